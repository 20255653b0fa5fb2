/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/parallel_ranges.h"
#include <algorithm>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

void parallel_ranges(std::size_t count,
                     std::size_t max_workers_by_size,
                     const std::function<void(std::size_t first, std::size_t end)>& range)
{
    const std::size_t workers = std::min<std::size_t>(
        { count,
          std::max<std::size_t>(1, std::thread::hardware_concurrency()),
          max_workers_by_size });
    if (workers <= 1) {
        range(0, count);
        return;
    }
    std::vector<std::thread> threads;
    threads.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w)
        threads.emplace_back(range, count * w / workers, count * (w + 1) / workers);
    for (std::thread& t : threads)
        t.join();
}

} // namespace core
} // namespace cudadsp
} // namespace gr
