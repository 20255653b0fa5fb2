/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PARALLEL_COPY_H
#define INCLUDED_CUDADSP_CORE_PARALLEL_COPY_H

#include <cstddef>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief memcpy of a large block on several host threads.
 *
 * Staging pageable memory through pinned buffers is the slowest step of every host
 * path that does it: one thread copies at about 6 to 10 GB/s, less than the PCIe link
 * carries. Blocks of at least a few MiB are split into contiguous parts copied by a
 * small pool of worker threads (started on first use, at most 4, never more than the
 * host's hardware threads) and the calling thread; smaller blocks are copied by the
 * calling thread alone. Returns when the whole block is copied. The ranges must not
 * overlap. Safe to call from several threads at once.
 */
void parallel_memcpy(void* dst, const void* src, std::size_t bytes);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PARALLEL_COPY_H */
