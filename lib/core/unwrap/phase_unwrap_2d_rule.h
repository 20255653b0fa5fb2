/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_RULE_H
#define INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_RULE_H

// The per-pixel and per-edge arithmetic of the two-dimensional phase unwrapper, shared
// by the CPU and CUDA backends. The reliability method's outputs are bit-identical on
// both because every decision (edge order, whole periods across an edge, the constant
// of a component) is made here on values computed with the same roundings: float64
// steps spelled out with _rn intrinsics on the device (nvcc would otherwise contract
// them into fused multiply-adds), one rounding to float32 where a key is stored.

#include "runtime/host_device.h"
#include "unwrap/phase_unwrap_rule.h"
#include <cmath>
#include <cstdint>
#include <limits>

namespace gr {
namespace cudadsp {
namespace core {

//! Frame shape and neighbourhood, as the rules need them.
struct unwrap_2d_geometry {
    std::int32_t width;
    std::int32_t height;
    bool wrap_x;
    bool wrap_y;
};

//! Largest frame (pixels) the engines take: pixel and edge indices fit 32 bits.
constexpr std::size_t max_unwrap_2d_pixels = std::size_t(1) << 30;

/*! The neighbour of (row, col) at (row + drow, col + dcol), |drow|, |dcol| <= 1,
 *  through the wrap-around edges where configured. false where it is off the frame. */
CUDADSP_HOST_DEVICE bool unwrap_2d_neighbour(std::int32_t row,
                                             std::int32_t col,
                                             std::int32_t drow,
                                             std::int32_t dcol,
                                             const unwrap_2d_geometry& g,
                                             std::int32_t* index)
{
    std::int32_t r = row + drow;
    std::int32_t c = col + dcol;
    if (r < 0 || r >= g.height) {
        if (!g.wrap_y)
            return false;
        r = r < 0 ? r + g.height : r - g.height;
    }
    if (c < 0 || c >= g.width) {
        if (!g.wrap_x)
            return false;
        c = c < 0 ? c + g.width : c - g.width;
    }
    *index = r * g.width + c;
    return true;
}

//! d reduced to [-period/2, period/2): d - period * floor(d / period + 1/2), in float64.
CUDADSP_HOST_DEVICE double wrap_difference(double d, const unwrap_period& p)
{
#ifdef __CUDA_ARCH__
    const double turns = floor(__dadd_rn(__dmul_rn(d, p.inverse_period), 0.5));
    return __dsub_rn(d, __dmul_rn(p.period, turns));
#else
    const double turns = std::floor(d * p.inverse_period + 0.5);
    return d - p.period * turns;
#endif
}

/*! One second-difference term of the reliability (Herraez et al. 2002, eq. 2-4):
 *  gamma(a - centre) - gamma(centre - b) for the neighbours a and b on either side. */
CUDADSP_HOST_DEVICE double
second_difference(float a, float centre, float b, const unwrap_period& p)
{
    const double before = wrap_difference(double(a) - double(centre), p);
    const double after = wrap_difference(double(centre) - double(b), p);
#ifdef __CUDA_ARCH__
    return __dsub_rn(before, after);
#else
    return before - after;
#endif
}

/*!
 * The reliability key of the valid pixel \p index at (row, col): the sum of the
 * squares of its second differences along the row, the column and both diagonals,
 * lower meaning more reliable (Herraez et al. 2002 use D^2 = H^2 + V^2 + D1^2 + D2^2,
 * as scikit-image does). A term counts only when both its neighbours exist and are
 * valid; with n < 4 terms the sum is scaled by 4/n, so border pixels and pixels beside
 * masks are ranked by what they have (scikit-image ranks them last, in random order).
 * With no term at all the key is +infinity. Rounded once to float32.
 */
CUDADSP_HOST_DEVICE float pixel_reliability_key(const float* wrapped,
                                                const std::uint8_t* valid,
                                                std::int32_t row,
                                                std::int32_t col,
                                                const unwrap_2d_geometry& g,
                                                const unwrap_period& p)
{
    // The four directions (drow, dcol) whose two opposite neighbours form a term, in
    // the order H, V, D1, D2 (the order of the sum is part of the rule).
    const std::int32_t directions[4][2] = { { 0, 1 }, { 1, 0 }, { 1, 1 }, { 1, -1 } };
    const float centre = wrapped[row * g.width + col];
    double sum = 0.0;
    int terms = 0;
    for (int t = 0; t < 4; ++t) {
        std::int32_t before_index = 0;
        std::int32_t after_index = 0;
        if (!unwrap_2d_neighbour(
                row, col, -directions[t][0], -directions[t][1], g, &before_index) ||
            !unwrap_2d_neighbour(
                row, col, directions[t][0], directions[t][1], g, &after_index))
            continue;
        if (!valid[before_index] || !valid[after_index])
            continue;
        const double term =
            second_difference(wrapped[before_index], centre, wrapped[after_index], p);
#ifdef __CUDA_ARCH__
        sum = __dadd_rn(sum, __dmul_rn(term, term));
#else
        sum = sum + term * term;
#endif
        ++terms;
    }
    if (terms == 0)
        return INFINITY;
#ifdef __CUDA_ARCH__
    return __double2float_rn(__ddiv_rn(__dmul_rn(sum, 4.0), double(terms)));
#else
    return static_cast<float>(sum * 4.0 / double(terms));
#endif
}

/*! Edge index of the edge from pixel \p index to its right (direction 0) or lower
 *  (direction 1) neighbour; the order of edges with equal keys. */
CUDADSP_HOST_DEVICE std::uint32_t unwrap_2d_edge_index(std::int32_t index,
                                                       std::int32_t direction)
{
    return 2u * static_cast<std::uint32_t>(index) + static_cast<std::uint32_t>(direction);
}

/*! The other end of edge \p edge (from edge / 2 to its right or lower neighbour), or
 *  false when that neighbour is off the frame. Validity is the caller's to check. */
CUDADSP_HOST_DEVICE bool unwrap_2d_edge_ends(std::uint32_t edge,
                                             const unwrap_2d_geometry& g,
                                             std::int32_t* from,
                                             std::int32_t* to)
{
    const std::int32_t index = static_cast<std::int32_t>(edge >> 1);
    const std::int32_t row = index / g.width;
    const std::int32_t col = index - row * g.width;
    *from = index;
    return (edge & 1u) == 0u ? unwrap_2d_neighbour(row, col, 0, 1, g, to)
                             : unwrap_2d_neighbour(row, col, 1, 0, g, to);
}

//! An edge's key: the sum of its pixels' keys, rounded to float32.
CUDADSP_HOST_DEVICE float edge_reliability_key(float from_key, float to_key)
{
#ifdef __CUDA_ARCH__
    return __fadd_rn(from_key, to_key);
#else
    return from_key + to_key;
#endif
}

/*! Whole periods across an edge: K[to] - K[from], the one-dimensional rule of
 *  phase_unwrap_rule.h with \p from as the previous sample. */
CUDADSP_HOST_DEVICE std::int32_t edge_cycles(float from, float to, const unwrap_period& p)
{
    return unwrap_step_exact(from, to, p);
}

/*! wrapped + period * cycles, evaluated in float64 and rounded once. Cycle counts are
 *  summed in 64 bits (a path of capped steps can pass 2^31); the cycles output
 *  saturates to int32 (saturate_cycles()). */
CUDADSP_HOST_DEVICE float
apply_cycles(float wrapped, std::int64_t cycles, const unwrap_period& p)
{
#ifdef __CUDA_ARCH__
    return __double2float_rn(
        __dadd_rn(double(wrapped), __dmul_rn(p.period, double(cycles))));
#else
    return static_cast<float>(double(wrapped) + p.period * double(cycles));
#endif
}

//! K as the int32 cycles output gives it: clamped to the int32 range.
CUDADSP_HOST_DEVICE std::int32_t saturate_cycles(std::int64_t cycles)
{
    return cycles > INT32_MAX   ? INT32_MAX
           : cycles < INT32_MIN ? INT32_MIN
                                : static_cast<std::int32_t>(cycles);
}

/*! Least squares: the whole number of periods between a solution value and the wrapped
 *  input, round((solution - wrapped) / period) with halves rounded up. */
CUDADSP_HOST_DEVICE std::int32_t
congruent_cycles(double solution, float wrapped, const unwrap_period& p)
{
    const double turns = (solution - double(wrapped)) * p.inverse_period;
    return static_cast<std::int32_t>(floor(turns + 0.5));
}

/*! Least squares: weight of the difference between two valid pixels, the smaller of
 *  their squared weights (Ghiglia and Romero 1994, eq. 21). */
CUDADSP_HOST_DEVICE float edge_weight(float from_weight, float to_weight)
{
    const float a = from_weight * from_weight;
    const float b = to_weight * to_weight;
    return a < b ? a : b;
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_RULE_H */
