/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/parallel_ranges.h"
#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

std::size_t parallel_workers(std::size_t count, std::size_t max_workers_by_size)
{
    return std::max<std::size_t>(
        1,
        std::min<std::size_t>(
            { count,
              std::max<std::size_t>(1, std::thread::hardware_concurrency()),
              max_workers_by_size }));
}

void parallel_ranges(
    std::size_t count,
    std::size_t max_workers_by_size,
    const std::function<void(std::size_t worker, std::size_t first, std::size_t end)>&
        range)
{
    const std::size_t workers = parallel_workers(count, max_workers_by_size);
    if (workers == 1) {
        range(0, 0, count);
        return;
    }
    // One error slot per worker: a thread must not let an exception escape (that would
    // call std::terminate), and the caller gets the same error whatever the timing.
    std::vector<std::exception_ptr> errors(workers);
    auto share = [&](std::size_t w) {
        try {
            range(w, count * w / workers, count * (w + 1) / workers);
        } catch (...) {
            errors[w] = std::current_exception();
        }
    };
    std::vector<std::thread> threads;
    threads.reserve(workers - 1);
    for (std::size_t w = 1; w < workers; ++w)
        threads.emplace_back(share, w);
    share(0);
    for (std::thread& t : threads)
        t.join();
    for (const std::exception_ptr& error : errors)
        if (error)
            std::rethrow_exception(error);
}

void parallel_ranges(std::size_t count,
                     std::size_t max_workers_by_size,
                     const std::function<void(std::size_t first, std::size_t end)>& range)
{
    parallel_ranges(
        count,
        max_workers_by_size,
        [&range](std::size_t, std::size_t first, std::size_t end) { range(first, end); });
}

} // namespace core
} // namespace cudadsp
} // namespace gr
