/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/parallel_copy.h"
#include <condition_variable>
#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Below this a block is copied by the calling thread: waking workers costs more.
constexpr std::size_t min_bytes_per_part = std::size_t(2) << 20;
constexpr unsigned max_workers = 4;

//! Worker threads that copy parts; they live until the process ends.
class copy_pool
{
public:
    static copy_pool& instance()
    {
        static copy_pool pool;
        return pool;
    }

    unsigned workers() const { return static_cast<unsigned>(d_threads.size()); }

    void submit(std::function<void()> task)
    {
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_tasks.push_back(std::move(task));
        }
        d_wake.notify_one();
    }

private:
    copy_pool()
    {
        const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
        // The calling thread copies a part too.
        const unsigned count = std::min(max_workers, hardware - 1);
        for (unsigned i = 0; i < count; ++i)
            d_threads.emplace_back([this] { run(); });
    }
    ~copy_pool()
    {
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_stop = true;
        }
        d_wake.notify_all();
        for (std::thread& t : d_threads)
            t.join();
    }

    void run()
    {
        std::unique_lock<std::mutex> lock(d_mutex);
        while (true) {
            d_wake.wait(lock, [this] { return d_stop || !d_tasks.empty(); });
            if (d_tasks.empty())
                return; // stopping
            std::function<void()> task = std::move(d_tasks.front());
            d_tasks.pop_front();
            lock.unlock();
            task();
            lock.lock();
        }
    }

    std::mutex d_mutex;
    std::condition_variable d_wake;
    std::deque<std::function<void()>> d_tasks;
    bool d_stop = false;
    std::vector<std::thread> d_threads;
};

} // namespace

void parallel_memcpy(void* dst, const void* src, std::size_t bytes)
{
    // An empty range may come as null pointers (an empty vector's data()), which memcpy
    // must not be given even for 0 bytes.
    if (bytes == 0)
        return;
    copy_pool& pool = copy_pool::instance();
    const std::size_t parts =
        std::min<std::size_t>(pool.workers() + 1, bytes / min_bytes_per_part);
    if (parts <= 1) {
        std::memcpy(dst, src, bytes);
        return;
    }
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    auto part_begin = [&](std::size_t p) { return bytes * p / parts; };

    std::mutex mutex;
    std::condition_variable done;
    std::size_t remaining = parts - 1;
    for (std::size_t p = 1; p < parts; ++p) {
        const std::size_t begin = part_begin(p), end = part_begin(p + 1);
        pool.submit([&, begin, end] {
            std::memcpy(d + begin, s + begin, end - begin);
            std::lock_guard<std::mutex> lock(mutex);
            if (--remaining == 0)
                done.notify_one();
        });
    }
    std::memcpy(d, s, part_begin(1));
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return remaining == 0; });
}

} // namespace core
} // namespace cudadsp
} // namespace gr
