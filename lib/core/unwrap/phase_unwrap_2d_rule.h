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
#include <cstring>
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

/*!
 * Whether pixel \p i takes part (phase_unwrap_2d.h): its wrapped phase is finite and,
 * each only where given (null: every pixel passes), its mask is nonzero and its weight
 * finite and > 0. Every backend and method decides, counts and masks with this.
 */
CUDADSP_HOST_DEVICE bool unwrap_2d_pixel_valid(const float* wrapped,
                                               const float* weight,
                                               const std::uint8_t* mask,
                                               std::size_t i)
{
#ifdef __CUDA_ARCH__
    const bool phase_finite = isfinite(wrapped[i]);
    const bool weight_finite = weight == nullptr || isfinite(weight[i]);
#else
    const bool phase_finite = std::isfinite(wrapped[i]);
    const bool weight_finite = weight == nullptr || std::isfinite(weight[i]);
#endif
    return phase_finite && (mask == nullptr || mask[i] != 0) && weight_finite &&
           (weight == nullptr || weight[i] > 0.0f);
}

//! Largest frame (pixels) the engines take: pixel and edge indices fit 32 bits.
constexpr std::size_t max_unwrap_2d_pixels = std::size_t(1) << 30;

/*! A frame's whole periods as the MCF tiles give them before the frame is integrated
 *  (mcf_tiled_unwrap::join_tiles()) mark a pixel that is not valid with this: no K of
 *  a frame comes near it. */
constexpr std::int64_t unknown_cycles = INT64_MIN;

/*! The pixel at (row + drow, col + dcol), through the wrap-around edges where
 *  configured (as many times around as the offset needs: guided_edge_cycles() reaches
 *  half a window plus one away, which may exceed a small frame's side). false where
 *  it is off the frame. */
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
        r %= g.height;
        r = r < 0 ? r + g.height : r;
    }
    if (c < 0 || c >= g.width) {
        if (!g.wrap_x)
            return false;
        c %= g.width;
        c = c < 0 ? c + g.width : c;
    }
    *index = r * g.width + c;
    return true;
}

// float64 steps rounded once each, the same on both compilers (no contraction).
CUDADSP_HOST_DEVICE double rounded_add(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}

CUDADSP_HOST_DEVICE double rounded_sub(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}

CUDADSP_HOST_DEVICE double rounded_mul(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

//! Whole periods in d, floor(d / period + 1/2): d = wrap_difference(d) + period * turns.
CUDADSP_HOST_DEVICE double wrap_turns(double d, const unwrap_period& p)
{
    return floor(rounded_add(rounded_mul(d, p.inverse_period), 0.5));
}

//! d reduced to [-period/2, period/2): d - period * floor(d / period + 1/2), in float64.
CUDADSP_HOST_DEVICE double wrap_difference(double d, const unwrap_period& p)
{
    return rounded_sub(d, rounded_mul(p.period, wrap_turns(d, p)));
}

/*! One second-difference term of the reliability (Herraez et al. 2002, eq. 2-4):
 *  gamma(a - centre) - gamma(centre - b) for the neighbours a and b on either side. */
CUDADSP_HOST_DEVICE double
second_difference(float a, float centre, float b, const unwrap_period& p)
{
    const double before = wrap_difference(double(a) - double(centre), p);
    const double after = wrap_difference(double(centre) - double(b), p);
    return rounded_sub(before, after);
}

/*!
 * The reliability key of the valid pixel \p index at (row, col): the sum of the
 * squares of its second differences along the row, the column and both diagonals,
 * lower meaning more reliable (Herraez et al. 2002: D^2 = H^2 + V^2 + D1^2 + D2^2, as
 * scikit-image). A pixel whose eight neighbours are not all there and valid (the frame's
 * border without wrap-around, a pixel beside a masked one) has no full set of terms: its
 * key is +infinity, "unranked", and edge_order_key() puts its edges after all others,
 * as scikit-image does by giving such pixels a huge random reliability. Ranking them by
 * the terms they have instead was measured worse beside masks (docs/blocks/
 * phase_unwrap_2d_ff.md, "Accuracy"). Rounded once to float32.
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
    for (int t = 0; t < 4; ++t) {
        std::int32_t before_index = 0;
        std::int32_t after_index = 0;
        if (!unwrap_2d_neighbour(
                row, col, -directions[t][0], -directions[t][1], g, &before_index) ||
            !unwrap_2d_neighbour(
                row, col, directions[t][0], directions[t][1], g, &after_index) ||
            !valid[before_index] || !valid[after_index])
            return INFINITY;
        const double term =
            second_difference(wrapped[before_index], centre, wrapped[after_index], p);
        sum = rounded_add(sum, rounded_mul(term, term));
    }
#ifdef __CUDA_ARCH__
    return __double2float_rn(sum);
#else
    return static_cast<float>(sum);
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

/*!
 * An edge's place in the order (lower first; ties by edge index), from its pixels'
 * keys: first the number of unranked (+infinity) ends, then the float32 sum of the
 * ranked ends' keys (Herraez et al.: the sum of the two reliabilities). Packed in 32
 * bits as unranked_ends << 30 | (float bits of the sum) >> 1: a non-negative float's
 * bits order as the float, and dropping the lowest mantissa bit only turns sums one
 * float32 ulp apart into ties, which the edge index then breaks.
 */
CUDADSP_HOST_DEVICE std::uint32_t edge_order_key(float from_key, float to_key)
{
    const bool from_ranked = from_key < INFINITY;
    const bool to_ranked = to_key < INFINITY;
    const std::uint32_t unranked = (from_ranked ? 0u : 1u) + (to_ranked ? 0u : 1u);
    const float a = from_ranked ? from_key : 0.0f;
    const float b = to_ranked ? to_key : 0.0f;
#ifdef __CUDA_ARCH__
    const std::uint32_t bits = __float_as_uint(__fadd_rn(a, b));
#else
    const float sum = a + b;
    std::uint32_t bits;
    std::memcpy(&bits, &sum, sizeof bits);
#endif
    return unranked << 30 | bits >> 1;
}

/*! Whole periods across an edge: K[to] - K[from], the one-dimensional rule of
 *  phase_unwrap_rule.h with \p from as the previous sample. */
CUDADSP_HOST_DEVICE std::int32_t edge_cycles(float from, float to, const unwrap_period& p)
{
    return unwrap_step_exact(from, to, p);
}

//! A unit phasor (cos, sin) of a phase, rounded to float32.
struct unwrap_phasor {
    float re;
    float im;
};

/*!
 * exp(i 2 pi x / period), computed with the same float64 operations on both compilers
 * (no library sin/cos, whose last bits differ between the host's libm and CUDA): x is
 * reduced to a quarter period around a multiple of period/4 (pi/2 in two parts), then
 * Taylor polynomials to degree 13 (sin) and 12 (cos), error below 1e-12, rounded to
 * float32. Decisions made from these phasors are therefore the same on CPU and CUDA.
 */
CUDADSP_HOST_DEVICE unwrap_phasor unit_phasor(float x, const unwrap_period& p)
{
    constexpr double two_pi = 6.283185307179586476925286766559;
    constexpr double two_over_pi = 0.63661977236758134307553505349006;
    constexpr double half_pi_high = 1.5707963267948966192313216916398;
    constexpr double half_pi_low = 6.123233995736766035868820147292e-17;
    const double t =
        rounded_mul(wrap_difference(double(x), p), rounded_mul(two_pi, p.inverse_period));
    const double quadrant = floor(rounded_add(rounded_mul(t, two_over_pi), 0.5));
    const double r = rounded_sub(rounded_sub(t, rounded_mul(quadrant, half_pi_high)),
                                 rounded_mul(quadrant, half_pi_low));
    const double r2 = rounded_mul(r, r);
    // Horner, innermost coefficient first: sin r = r + r^3 (s1 + r^2 (s2 + ...)).
    const double sin_coefficients[6] = { 1.0 / 6227020800.0, -1.0 / 39916800.0,
                                         1.0 / 362880.0,     -1.0 / 5040.0,
                                         1.0 / 120.0,        -1.0 / 6.0 };
    const double cos_coefficients[6] = { 1.0 / 479001600.0, -1.0 / 3628800.0,
                                         1.0 / 40320.0,     -1.0 / 720.0,
                                         1.0 / 24.0,        -0.5 };
    double sin_poly = sin_coefficients[0];
    double cos_poly = cos_coefficients[0];
    for (int k = 1; k < 6; ++k) {
        sin_poly = rounded_add(rounded_mul(sin_poly, r2), sin_coefficients[k]);
        cos_poly = rounded_add(rounded_mul(cos_poly, r2), cos_coefficients[k]);
    }
    const double sin_r = rounded_add(r, rounded_mul(rounded_mul(r, r2), sin_poly));
    const double cos_r = rounded_add(1.0, rounded_mul(r2, cos_poly));
    // t = r + quadrant * pi/2, quadrant in -2..2.
    const int q = static_cast<int>(quadrant) & 3;
    const double c = q == 0 ? cos_r : q == 1 ? -sin_r : q == 2 ? -cos_r : sin_r;
    const double sn = q == 0 ? sin_r : q == 1 ? cos_r : q == 2 ? -sin_r : -cos_r;
#ifdef __CUDA_ARCH__
    return { __double2float_rn(c), __double2float_rn(sn) };
#else
    return { static_cast<float>(c), static_cast<float>(sn) };
#endif
}

//! A product of phasors in float64.
struct unwrap_phasor_product {
    double re;
    double im;
};

/*! to * conj(from): each float32 product exact in float64, each component rounded
 *  once where the two are added. */
CUDADSP_HOST_DEVICE unwrap_phasor_product phasor_step(unwrap_phasor from,
                                                      unwrap_phasor to)
{
    return { rounded_add(rounded_mul(to.re, from.re), rounded_mul(to.im, from.im)),
             rounded_sub(rounded_mul(to.im, from.re), rounded_mul(to.re, from.im)) };
}

/*!
 * A pair's phase step z[b] conj(z[a]) in fixed point: each component times 2^20,
 * rounded to the nearest integer (ties to even). Window sums of steps are then exact
 * integers, the same whatever order or method sums them (the CPU backend's separable
 * box sums, the CUDA backend's direct loop); a window of at most 15 x 15 steps stays
 * below 2^28 in magnitude, within int32.
 */
struct gradient_step {
    std::int32_t re;
    std::int32_t im;
};

CUDADSP_HOST_DEVICE std::int32_t step_fixed_point(double component)
{
    constexpr double scale = 1048576.0; // 2^20: the product is exact
#ifdef __CUDA_ARCH__
    return __double2int_rn(component * scale);
#else
    return static_cast<std::int32_t>(std::nearbyint(component * scale));
#endif
}

/*!
 * The step of the pair from pixel \p a to its right (direction 0) or lower (1)
 * neighbour, unit_phasor() of each, in fixed point; {0, 0} when that neighbour is off
 * the frame or either pixel is not valid (such pairs add nothing to a window).
 */
CUDADSP_HOST_DEVICE gradient_step pair_step(const float* wrapped,
                                            const std::uint8_t* valid,
                                            std::int32_t a,
                                            std::int32_t direction,
                                            const unwrap_2d_geometry& g,
                                            const unwrap_period& p)
{
    const std::int32_t row = a / g.width;
    const std::int32_t col = a - row * g.width;
    std::int32_t b = 0;
    if (!valid[a] || !unwrap_2d_neighbour(row, col, direction, 1 - direction, g, &b) ||
        !valid[b])
        return { 0, 0 };
    const unwrap_phasor_product step =
        phasor_step(unit_phasor(wrapped[a], p), unit_phasor(wrapped[b], p));
    return { step_fixed_point(step.re), step_fixed_point(step.im) };
}

/*!
 * The sum of \p steps (one direction's pair_step() of every pixel) over the
 * (2 half + 1)^2 pixels centred on \p from, through the wrap-around edges where
 * configured (a window wider than the frame counts a wrapped pixel again). Integer
 * sums: any other summation order gives the same value.
 */
CUDADSP_HOST_DEVICE gradient_step window_step_sum(const gradient_step* steps,
                                                  std::int32_t from,
                                                  std::int32_t half,
                                                  const unwrap_2d_geometry& g)
{
    const std::int32_t row = from / g.width;
    const std::int32_t col = from - row * g.width;
    gradient_step sum = { 0, 0 };
    for (std::int32_t r = -half; r <= half; ++r)
        for (std::int32_t c = -half; c <= half; ++c) {
            std::int32_t a = 0;
            if (!unwrap_2d_neighbour(row, col, r, c, g, &a))
                continue;
            sum.re += steps[a].re;
            sum.im += steps[a].im;
        }
    return sum;
}

//! The angle of \p v lies in (0, pi] (else in (-pi, 0]).
CUDADSP_HOST_DEVICE bool in_upper_half(const gradient_step& v)
{
    return v.im > 0 || (v.im == 0 && v.re < 0);
}

/*!
 * Whole periods across an edge from \p from_value to \p to_value, K[to] - K[from],
 * guided by the local phase gradient: G, the angle of \p window, the window_step_sum()
 * of the edge's direction around its first pixel, and K[to] - K[from] is the whole
 * number of periods that brings the pair's difference to_value - from_value nearest
 * to G. In noise, one pair's difference crosses half a period far more often than the
 * mean of a window of them, so this decides fewer edges wrongly than edge_cycles()
 * (docs/blocks/phase_unwrap_2d_ff.md, "Accuracy"); on a smooth field whose gradient
 * changes by less than half a period across the window both agree.
 *
 * Decided without atan2, from integer signs only, so that CPU and CUDA agree: with
 * \p pair = T, the edge's own pair_step() (angle d_T) and S = \p window, the count is
 * -n_T (the whole periods between to_value - from_value and d_T) plus 1 if G - d_T > pi,
 * minus 1 if G - d_T < -pi, which the half planes of S and T and the sign of their
 * (exact, int64) cross product tell. S == 0: edge_cycles().
 */
CUDADSP_HOST_DEVICE std::int32_t guided_edge_cycles(float from_value,
                                                    float to_value,
                                                    const gradient_step& pair,
                                                    const gradient_step& window,
                                                    const unwrap_period& p)
{
    if (window.re == 0 && window.im == 0)
        return edge_cycles(from_value, to_value, p);

    // The pair's difference d = w + period * n with w in [-period/2, period/2); d_T,
    // the pair step's angle, is w to within rounding, except that near -period/2
    // (+period/2) it may be the other end of the range: then n_T is n - 1 (n + 1).
    const double d = double(to_value) - double(from_value);
    const double n = wrap_turns(d, p);
    const double w = rounded_sub(d, rounded_mul(p.period, n));
    const double edge_zone = rounded_mul(p.period, 1.0 / 1024.0);
    double n_pair = n;
    if (w < rounded_add(-p.half_period, edge_zone) && in_upper_half(pair))
        n_pair = n - 1.0;
    else if (w > rounded_sub(p.half_period, edge_zone) && !in_upper_half(pair))
        n_pair = n + 1.0;

    // sin(G - d_T) up to a positive factor, exactly.
    const std::int64_t cross =
        std::int64_t(pair.re) * window.im - std::int64_t(pair.im) * window.re;
    double beyond = 0.0;
    if (in_upper_half(window) && !in_upper_half(pair) && cross < 0)
        beyond = 1.0; // G - d_T in (pi, 2 pi)
    else if (!in_upper_half(window) && in_upper_half(pair) && cross > 0)
        beyond = -1.0; // G - d_T in (-2 pi, -pi)
    const double cycles = beyond - n_pair;
    const double limit = max_step_periods;
    return static_cast<std::int32_t>(cycles > limit    ? limit
                                     : cycles < -limit ? -limit
                                                       : cycles);
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

/*! Least squares: a pixel's weight relative to the frame's largest valid weight, in
 *  (0, 1]: the IEEE float32 quotient, correctly rounded on both backends (CUDA's
 *  division without fast math, __fdiv_rn). It equals the float64 quotient rounded to
 *  float32 (a division rounded through float64 first is rounded once: 53 >= 2 x 24 + 2,
 *  Figueroa 1995), at the cost of a float32 division: the float64 one raised the
 *  divergence kernels' registers from 32 to 42 on sm_90. */
CUDADSP_HOST_DEVICE float relative_weight(float weight, float largest_weight)
{
#ifdef __CUDA_ARCH__
    return __fdiv_rn(weight, largest_weight);
#else
    return weight / largest_weight;
#endif
}

/*!
 * Least squares: weight of the difference between two valid pixels, the smaller of
 * their squared weights (Ghiglia and Romero 1994, eq. 21), each weight taken relative
 * to \p largest_weight, the largest weight of the frame's valid pixels. Weights are
 * relative: a frame's weights times any positive constant give the same solution, and
 * the differences' weights stay in (0, 1] whatever the scale. Squared as given, weights
 * of 1e10 made differences weigh 1e20, whose products with the conjugate gradients'
 * search directions overflowed float32 (every pixel -1.3e10, residual NaN); weights of
 * 1e-20 squared to 0.
 */
CUDADSP_HOST_DEVICE float
edge_weight(float from_weight, float to_weight, float largest_weight)
{
    const float a = relative_weight(from_weight, largest_weight);
    const float b = relative_weight(to_weight, largest_weight);
    return a < b ? a * a : b * b;
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_RULE_H */
