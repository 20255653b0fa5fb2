/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BENCH_PATCH_CUFFT_FLOOR_H
#define INCLUDED_CUDADSP_BENCH_PATCH_CUFFT_FLOOR_H

#include "bench_harness.h"
#include "patch_bench_case.h"
#include <cstddef>

namespace gr {
namespace cudadsp {
namespace bench {
namespace patch_bench {

//! The transform sizes of a configuration.
struct geometry {
    int npx, npy, ri;
    int range_len() const { return ri * npx; }
};

/*!
 * The transforms the CUDA backend runs on \p npatches patches of geometry \p g, in
 * batches of \p batch patches (the engine's), each transform kind a plan with the
 * engine's layout (lib/core/cross_correlation/patch_correlator_cuda.cu, workspace), a
 * full batch in one launch: per batch, for each image the npy rows of each patch forward
 * (npx-point C2C, rows of npx into rows of ri npx), all 2n npy rows back (ri npx-point
 * C2C), the 2D R2C transforms of the 2n patches (rows of npx + 2 floats) and the 2D C2R
 * transforms of n products. Out of place (the engine works in place), so that every
 * repeat transforms the same data: the range rows' upper part stays zero as the
 * engine's spread leaves it, and no value grows from one repeat to the next.
 * \p master and \p aligned: the patches (npy x npx complex each, patch-major); null:
 * one batch of patches copied from \p fill (at least that many bytes), reused for
 * every batch.
 */
row cufft_floor(const geometry& g,
                std::size_t npatches,
                std::size_t batch,
                const cfloat* master,
                const cfloat* aligned,
                const void* fill,
                int repeats);

} // namespace patch_bench
} // namespace bench
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BENCH_PATCH_CUFFT_FLOOR_H */
