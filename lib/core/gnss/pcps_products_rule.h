/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PCPS_PRODUCTS_RULE_H
#define INCLUDED_CUDADSP_CORE_PCPS_PRODUCTS_RULE_H

// The products of the CUDA PCPS acquisition (gnss/pcps_acquisition_cuda.cu), compiled
// twice: by nvcc into products_kernel, and by NVRTC into the load callback that cuFFT
// links into the inverse transforms. Device code only, and no standard header: NVRTC
// compiles it too (embed_text.cmake).
#include "runtime/fast_divisor.h"

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * Where the rows of one batch are. A batch is rows x dwells x replicas transforms of M
 * points: transform t = (local_row dwells + d) replicas + j holds row first_row +
 * local_row (satellite, grid g, Doppler bin; rows_per_sat = grids x bins per
 * satellite), integration first_dwell + d, replica j.
 */
struct pcps_batch_layout {
    unsigned int M;            //!< 2N: points per transform
    unsigned int first_row;    //!< global row (satellite, grid, bin) of row 0
    unsigned int rows;         //!< rows in the batch
    unsigned int dwells;       //!< integrations in the batch
    unsigned int first_dwell;  //!< integration (0 .. K - 1) of the batch's dwell 0
    unsigned int periods;      //!< code periods per integration (P)
    unsigned int grids;        //!< grids per satellite (G)
    unsigned int replicas;     //!< replicas per grid (R)
    unsigned int bins;         //!< Doppler bins (B)
    unsigned int rows_per_sat; //!< grids x bins
    unsigned int lags;         //!< code-phase bins of one grid row
};

/*!
 * What transform t of a batch multiplies: the integration spectrum \p dwell of the
 * batch (0 .. dwells - 1) times the conjugate of bank spectrum \p spectrum circularly
 * shifted up by \p shift points.
 */
struct pcps_transform_source {
    unsigned int spectrum;
    unsigned int shift;
    unsigned int dwell;
};

/*!
 * The source of transform \p t of batch \p b: the replica spectrum of the row's
 * satellite, Doppler residue and replica j, at grid (g + k P) mod G for row grid g and
 * integration k (the pilot's secondary code moves on P periods per integration; G = 1
 * otherwise), shifted by its bin's circular shift (pcps_acquisition::doppler_plan).
 * \p bin_spectrum[s B + b]: the bank index of satellite s's residue of bin b at grid 0,
 * replica 0 (grid g, replica j: + g R + j); \p bin_shift[s B + b] its shift.
 */
__device__ __forceinline__ pcps_transform_source
pcps_transform_of(const pcps_batch_layout& b,
                  const unsigned int* __restrict__ bin_spectrum,
                  const unsigned int* __restrict__ bin_shift,
                  unsigned int t)
{
    const unsigned int j = t % b.replicas;
    const unsigned int q = t / b.replicas;
    const unsigned int d = q % b.dwells;
    const unsigned int row = b.first_row + q / b.dwells;
    const unsigned int sat = row / b.rows_per_sat;
    const unsigned int in_sat = row - sat * b.rows_per_sat;
    const unsigned int g = in_sat / b.bins;
    const unsigned int sb = sat * b.bins + (in_sat - g * b.bins);
    const unsigned int gk = (g + (b.first_dwell + d) * b.periods) % b.grids;
    pcps_transform_source s;
    s.spectrum = bin_spectrum[sb] + j + gk * b.replicas;
    s.shift = bin_shift[sb];
    s.dwell = d;
    return s;
}

/*!
 * What the products of one batch read: the batch's transform sources, its
 * integrations' spectra (M points each, in order) and the replica spectra. The load
 * callback receives it as cuFFT's caller info, products_kernel as a parameter.
 */
struct pcps_products_info {
    const pcps_transform_source* transforms;
    const float2* spectra;
    const float2* bank;
    unsigned int M;
    fast_divisor by_M;
};

/*!
 * Element \p item = t M + f (< 2^31) of a batch's products: X_dwell[f] conj(Q[(f -
 * shift) mod M]) for transform t's source. The CPU backend's arithmetic, x times
 * conj(Q) = (rr, ri), with roundings that no compiler contracts into a fused
 * multiply-add, so that both compilations give the same bits.
 */
__device__ __forceinline__ float2 pcps_batch_product(const pcps_products_info& p,
                                                     unsigned int item)
{
    const unsigned int t = p.by_M.quotient(item);
    const unsigned int f = item - t * p.M;
    const pcps_transform_source s = p.transforms[t];
    const unsigned int e = f >= s.shift ? f - s.shift : f + p.M - s.shift;
    const float2 r =
        __ldg(&p.bank[static_cast<unsigned long long>(s.spectrum) * p.M + e]);
    const float2 x =
        __ldg(&p.spectra[static_cast<unsigned long long>(s.dwell) * p.M + f]);
    const float rr = r.x;
    const float ri = -r.y;
    float2 c;
    c.x = __fsub_rn(__fmul_rn(x.x, rr), __fmul_rn(x.y, ri));
    c.y = __fadd_rn(__fmul_rn(x.x, ri), __fmul_rn(x.y, rr));
    return c;
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PCPS_PRODUCTS_RULE_H */
