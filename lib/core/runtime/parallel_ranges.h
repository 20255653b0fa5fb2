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
 * \brief How many workers parallel_ranges() shares \p count records among: at most
 * \p count, the host's hardware threads and \p max_workers_by_size, and at least 1.
 *
 * The caller derives \p max_workers_by_size from the call's size so that small calls
 * stay on the calling thread, where starting threads would cost more than they save.
 * A backend that keeps one workspace per worker sizes its workspaces with this.
 */
std::size_t parallel_workers(std::size_t count, std::size_t max_workers_by_size);

/*!
 * \brief Runs \p range(worker, first, end) over contiguous shares of [0, \p count), one
 * share per worker, for the CPU backends' independent records (radials, frames,
 * channels, patches, rows).
 *
 * \p worker runs from 0 to parallel_workers(count, max_workers_by_size) - 1, and no
 * two shares run with the same worker at once, so it indexes per-worker workspaces.
 * Worker 0 is the calling thread, the others are threads started for the call. Returns
 * when every share is done; an exception thrown by a share is rethrown here (the first
 * one, by worker), after every thread has been joined.
 */
void parallel_ranges(
    std::size_t count,
    std::size_t max_workers_by_size,
    const std::function<void(std::size_t worker, std::size_t first, std::size_t end)>&
        range);

//! parallel_ranges() for callers that keep no per-worker state.
void parallel_ranges(
    std::size_t count,
    std::size_t max_workers_by_size,
    const std::function<void(std::size_t first, std::size_t end)>& range);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PARALLEL_RANGES_H */
