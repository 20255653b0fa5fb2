/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BENCH_UNWRAP_2D_MCF_ROWS_H
#define INCLUDED_CUDADSP_BENCH_UNWRAP_2D_MCF_ROWS_H

#include "bench_harness.h"
#include <cstddef>

namespace gr {
namespace cudadsp {
namespace bench {

/*!
 * Section unwrap2d's minimum-cost-flow rows: the CPU and CUDA backends on issue 24's
 * kind of field (single look, coherence 0.7, water and vegetation) at 1024 x 1024 and at
 * \p side (the section's, 4096 by default), each with the default solver (successive
 * shortest paths) and with LEMON's network simplex (the reference) and checked by its
 * right-cycle fraction, against SNAPHU's cited time (a row of its own) and issue 24's
 * targets.
 */
void measure_unwrap_2d_mcf_rows(section_report& report,
                                std::size_t side,
                                const bench_device& device,
                                int slow_repeats);

} // namespace bench
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BENCH_UNWRAP_2D_MCF_ROWS_H */
