/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_ST_TBD_RULE_H
#define INCLUDED_CUDADSP_CORE_ST_TBD_RULE_H

/*
 * The arithmetic of the track-before-detect filter that every implementation shares:
 * the CPU backend, the generic CUDA kernel (nvcc) and the generated CUDA kernel (this
 * file's text is handed to NVRTC as a header, see st_tbd_kernel_source.cc). So it
 * includes nothing but host_device.h and uses no library function: NVRTC compiles it
 * without the host's headers.
 */

#include "runtime/host_device.h"

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * One transition resolved for the grid: the bilinear sample at (x - dx, y - dy) reads
 * the cells (x + ix, y + iy), (x + ix + 1, y + iy), (x + ix, y + iy + 1) and
 * (x + ix + 1, y + iy + 1) of plane \p source with fractions fx, fy in [0, 1):
 * ix = floor(-dx), fx = -dx - ix (exact in float: x is an integer, so the fraction
 * is the same for every cell).
 */
struct tbd_tap {
    int source;
    int ix;
    int iy;
    float fx;
    float fy;
    float weight;
};

/*! Bilinear interpolation of the four cells p_yx around the sample point; the weights
 *  are formed in float32 as (1 - f) and f, rows first. */
CUDADSP_HOST_DEVICE float
tbd_bilinear(float p00, float p01, float p10, float p11, float fx, float fy)
{
    const float top = (1.0f - fx) * p00 + fx * p01;
    const float bottom = (1.0f - fx) * p10 + fx * p11;
    return (1.0f - fy) * top + fy * bottom;
}

//! An input sample as evidence: non-finite samples count as 0.
CUDADSP_HOST_DEVICE float tbd_input(float x)
{
    // x - x is 0 for finite x and NaN for NaN and +-Inf; compilers keep it (no
    // -ffast-math in this project), and it needs no isfinite() under NVRTC.
    return (x - x == 0.0f) ? x : 0.0f;
}

//! Information update P = alpha P^- + (1 - alpha) X.
CUDADSP_HOST_DEVICE float tbd_information_update(float prior, float x, float alpha)
{
    return alpha * prior + (1.0f - alpha) * x;
}

/*!
 * Running max and argmax over the hypotheses, visited in increasing m: a later
 * hypothesis takes over only when strictly larger, so ties go to the smallest m. Call
 * with m = 0 first.
 */
CUDADSP_HOST_DEVICE void tbd_argmax_step(float p, int m, float& best, int& arg)
{
    if (m == 0 || p > best) {
        best = p;
        arg = m;
    }
}

//! What a neighbour outside the grid compares as: below every value (-infinity).
CUDADSP_HOST_DEVICE float tbd_outside() { return -3.402823466e38f * 2.0f; }

/*!
 * The detection rule: d (the detection map at a cell) is above the threshold, not
 * smaller than any of its 8 neighbours, and larger than the four that precede it in
 * row-major order (b0..b3: (x-1, y-1), (x, y-1), (x+1, y-1), (x-1, y)); a0..a3 follow
 * it ((x+1, y), (x-1, y+1), (x, y+1), (x+1, y+1)). Missing neighbours are
 * tbd_outside(). A NaN anywhere makes the comparison false: no detection.
 */
CUDADSP_HOST_DEVICE bool tbd_is_detection(float d,
                                          float threshold,
                                          float b0,
                                          float b1,
                                          float b2,
                                          float b3,
                                          float a0,
                                          float a1,
                                          float a2,
                                          float a3)
{
    return d > threshold && d > b0 && d > b1 && d > b2 && d > b3 && d >= a0 && d >= a1 &&
           d >= a2 && d >= a3;
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_ST_TBD_RULE_H */
