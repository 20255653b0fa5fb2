/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PARALLEL_RANGES_H
#define INCLUDED_CUDADSP_CORE_PARALLEL_RANGES_H

#include <cstddef>
#include <functional>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief Runs \p range(first, end) over contiguous shares of [0, \p count), one share
 * per worker thread, for the CPU backends' independent records (radials, frames).
 *
 * Workers: at most \p count, the host's hardware threads and \p max_workers_by_size,
 * which the caller derives from the call's size so that small calls stay on the calling
 * thread, where starting threads would cost more than they save. Returns when every
 * share is done.
 */
void parallel_ranges(
    std::size_t count,
    std::size_t max_workers_by_size,
    const std::function<void(std::size_t first, std::size_t end)>& range);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PARALLEL_RANGES_H */
