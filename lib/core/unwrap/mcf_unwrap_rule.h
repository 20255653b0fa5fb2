/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MCF_UNWRAP_RULE_H
#define INCLUDED_CUDADSP_CORE_MCF_UNWRAP_RULE_H

// The per-loop and per-difference arithmetic of minimum-cost-flow (MCF) unwrapping:
// residues and the statistical cost of each difference's whole periods. Host and
// device callable, so that a CUDA backend computes the same network as the CPU one;
// the derivation is in docs/design/mcf_unwrapping.md.

#include "runtime/host_device.h"
#include "unwrap/phase_unwrap_2d_rule.h"
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * Residue of a 2 x 2 loop of pixels: the sum of its wrapped differences, taken around
 * the loop top-left -> top-right -> bottom-right -> bottom-left -> top-left, in
 * periods. Four differences in [-P/2, P/2) sum to a whole number of periods in
 * [-2P, 2P): -1, 0 or +1, and -2 only when all four are exactly -P/2. The differences
 * of a curl-free (unwrapped) field sum to 0 around every loop; a loop with a residue
 * is crossed by an odd number of cuts.
 */
CUDADSP_HOST_DEVICE std::int32_t mcf_loop_residue(
    double top, double right, double bottom, double left, const unwrap_period& p)
{
    // top and right run along the loop; bottom and left are the differences to the
    // right and downwards, against it.
    const double sum = top + right - bottom - left;
    return static_cast<std::int32_t>(
        floor(rounded_add(rounded_mul(sum, p.inverse_period), 0.5)));
}

/*!
 * The flow network's two nodes on either side of the difference from pixel (\p row,
 * \p col) to its right (\p direction 0) or lower (1) neighbour, in a frame of
 * \p width x \p height pixels. Node r (width - 1) + c is the 2 x 2 loop whose
 * top-left pixel is (r, c); the earth, (width - 1)(height - 1), is everything off the
 * frame. \p plus is the loop whose mcf_loop_residue() runs along the difference,
 * \p minus the one that runs against it: a flow of k from plus to minus adds k
 * periods to the difference and keeps every loop's sum balanced.
 */
struct mcf_dual_ends {
    std::int32_t plus;
    std::int32_t minus;
};

CUDADSP_HOST_DEVICE mcf_dual_ends mcf_difference_ends(std::int32_t row,
                                                      std::int32_t col,
                                                      std::int32_t direction,
                                                      std::int32_t width,
                                                      std::int32_t height)
{
    const std::int32_t earth = (width - 1) * (height - 1);
    const auto loop = [&](std::int32_t r, std::int32_t c) {
        return r >= 0 && r < height - 1 && c >= 0 && c < width - 1 ? r * (width - 1) + c
                                                                   : earth;
    };
    // A loop runs along its top and right sides and against its bottom and left ones.
    return direction == 0 ? mcf_dual_ends{ loop(row, col), loop(row - 1, col) }
                          : mcf_dual_ends{ loop(row, col - 1), loop(row, col) };
}

//! Coherence beyond which a pixel counts as this coherent: the phase moment there is
//! within 0.02 of 1 for one look, and the variance floor below dominates anyway.
constexpr double mcf_max_coherence = 0.99;

/*!
 * The first circular moment |E exp(i phi)| of the interferometric phase noise phi of
 * an L-look pixel of coherence \p coherence (0 to 1), host only (an engine tabulates
 * it once). With unit-power circular Gaussian echoes, the L-look product is
 * z = gamma A + sqrt(1 - gamma^2) sqrt(A) w, A ~ Gamma(L, 1) the first echo's
 * summed power and w ~ CN(0, 1); given A, phi is the phase of a Rician variable of
 * amplitude ratio a = gamma sqrt(A / (1 - gamma^2)), whose first moment is
 * m(a) = sqrt(pi)/2 a exp(-a^2/2) (I0(a^2/2) + I1(a^2/2)) (Rice 1945; Lee et al.
 * 1994, IEEE TGRS 32(5) 1017-1028, for the L-look phase law). The expectation over A
 * is a Simpson sum in u = sqrt(A), where the integrand is smooth. For L = 1 this is
 * pi/4 gamma 2F1(1/2, 1/2; 2; gamma^2) (Just and Bamler 1994), as the tests check.
 */
inline double mcf_phase_moment(double coherence, std::size_t looks)
{
    constexpr double pi = 3.14159265358979323846;
    if (!(coherence > 0.0))
        return 0.0;
    const double gamma = coherence < mcf_max_coherence ? coherence : mcf_max_coherence;
    const double ratio = gamma / std::sqrt(1.0 - gamma * gamma);
    // exp(-x) (I0(x) + I1(x)), by its asymptotic series where the Bessel functions
    // themselves would overflow.
    auto scaled_bessel_sum = [](double x) {
        if (x < 50.0)
            return std::exp(-x) * (std::cyl_bessel_i(0.0, x) + std::cyl_bessel_i(1.0, x));
        return (2.0 - 0.25 / x - 3.0 / (64.0 * x * x)) / std::sqrt(2.0 * pi * x);
    };
    const double L = double(looks);
    const double u_max = std::sqrt(L + 12.0 * std::sqrt(L) + 40.0);
    constexpr int intervals = 800; // even, for Simpson's rule
    const double h = u_max / intervals;
    const double log_normaliser = std::log(2.0) - std::lgamma(L);
    double sum = 0.0;
    for (int j = 1; j <= intervals; ++j) {
        const double u = j * h;
        const double a = ratio * u;
        const double rician = 0.5 * std::sqrt(pi) * a * scaled_bessel_sum(0.5 * a * a);
        // Density of u = sqrt(A): 2 u^(2L - 1) exp(-u^2) / Gamma(L).
        const double density =
            std::exp(log_normaliser + (2.0 * L - 1.0) * std::log(u) - u * u);
        const double simpson_weight = j == intervals ? 1.0 : (j % 2 == 1 ? 4.0 : 2.0);
        sum += simpson_weight * density * rician;
    }
    return sum * h / 3.0;
}

//! Entries of the phase-moment table over coherence 0 to mcf_max_coherence.
constexpr std::size_t mcf_moment_table_size = 256;

//! mcf_phase_moment() at coherence j / (mcf_moment_table_size - 1) of
//! mcf_max_coherence, for mcf_tabulated_moment(); host only.
inline std::vector<double> mcf_moment_table(std::size_t looks)
{
    std::vector<double> table(mcf_moment_table_size);
    for (std::size_t j = 0; j < mcf_moment_table_size; ++j)
        table[j] = mcf_phase_moment(
            mcf_max_coherence * double(j) / double(mcf_moment_table_size - 1), looks);
    return table;
}

//! The phase moment of a pixel of coherence \p coherence (> 0), interpolated
//! linearly in \p table (mcf_moment_table()).
CUDADSP_HOST_DEVICE double mcf_tabulated_moment(const double* table, float coherence)
{
    const double clipped =
        double(coherence) < mcf_max_coherence ? double(coherence) : mcf_max_coherence;
    const double position =
        clipped / mcf_max_coherence * double(mcf_moment_table_size - 1);
    std::size_t j = static_cast<std::size_t>(position);
    j = j < mcf_moment_table_size - 2 ? j : mcf_moment_table_size - 2;
    const double fraction = position - double(j);
    return rounded_add(table[j], rounded_mul(fraction, table[j + 1] - table[j]));
}

//! A phasor of the cost model's filters, in float as they are stored.
struct mcf_phasor {
    float re;
    float im;
};

constexpr double mcf_two_pi = 6.283185307179586476925286766559;

//! \p length exp(i 2 pi \p periods): a pixel's phasor scaled by its moment, or a
//! wrapped step's unit phasor.
CUDADSP_HOST_DEVICE mcf_phasor mcf_polar(double length, double periods)
{
    const double angle = mcf_two_pi * periods;
    return { static_cast<float>(length * cos(angle)),
             static_cast<float>(length * sin(angle)) };
}

//! The step F_b conj(F_a) from filtered phasor \p a to its neighbour's \p b, each
//! product rounded before the sum on both compilers (no contraction).
CUDADSP_HOST_DEVICE mcf_phasor mcf_filtered_step(mcf_phasor a, mcf_phasor b)
{
#ifdef __CUDA_ARCH__
    return { __fadd_rn(__fmul_rn(b.re, a.re), __fmul_rn(b.im, a.im)),
             __fsub_rn(__fmul_rn(b.im, a.re), __fmul_rn(b.re, a.im)) };
#else
    return { b.re * a.re + b.im * a.im, b.im * a.re - b.re * a.im };
#endif
}

/*!
 * The expected value, in periods, of a difference whose window's steps sum to
 * (\p re, \p im): their angle, or the difference's own wrapped value \p wrapped
 * (periods) where the sum is exactly 0.
 */
CUDADSP_HOST_DEVICE float mcf_expected_gradient(double re, double im, double wrapped)
{
    return static_cast<float>(re != 0.0 || im != 0.0 ? atan2(im, re) / mcf_two_pi
                                                     : wrapped);
}

/*! The phase moment a difference gets without coherence: the length of the mean of
 *  the \p pairs unit steps of its window, which sum to (\p re, \p im). */
CUDADSP_HOST_DEVICE double mcf_window_moment(double re, double im, double pairs)
{
    return sqrt(rounded_add(rounded_mul(re, re), rounded_mul(im, im))) / pairs;
}

//! Largest half window of the filter along the gradients (gradient_window 15).
constexpr std::int32_t mcf_max_half_window = 7;

/*!
 * The phasors \p re, \p im of a frame of \p width x \p height summed over the
 * (2 \p half + 1)^2 window around pixel (\p row, \p col), clipped at the frame's
 * edges, each turned back by exp(-i 2 pi (g_r dc + g_c dr)) for its offset (dr, dc)
 * from the pixel along the pixel's expected gradients \p along_row and
 * \p along_column (periods per pixel), so that a ramp adds up instead of cancelling.
 * The turns are powers of one rotation each way, in float64 rounded step by step
 * as the host rounds it (rounded_mul() and its kind: no contraction).
 */
CUDADSP_HOST_DEVICE mcf_phasor mcf_filter_along_gradients(const float* re,
                                                          const float* im,
                                                          std::int32_t row,
                                                          std::int32_t col,
                                                          std::int32_t width,
                                                          std::int32_t height,
                                                          std::int32_t half,
                                                          double along_row,
                                                          double along_column)
{
    // exp(-i 2 pi g k) for k = -half..half: [0] the row's turns, [1] the column's.
    double turn_re[2][2 * mcf_max_half_window + 1];
    double turn_im[2][2 * mcf_max_half_window + 1];
    const double gradient[2] = { along_row, along_column };
    for (int axis = 0; axis < 2; ++axis) {
        const double step_re = cos(-mcf_two_pi * gradient[axis]);
        const double step_im = sin(-mcf_two_pi * gradient[axis]);
        turn_re[axis][half] = 1.0;
        turn_im[axis][half] = 0.0;
        for (std::int32_t k = 1; k <= half; ++k) {
            const double r = turn_re[axis][half + k - 1], i = turn_im[axis][half + k - 1];
            turn_re[axis][half + k] =
                rounded_sub(rounded_mul(r, step_re), rounded_mul(i, step_im));
            turn_im[axis][half + k] =
                rounded_add(rounded_mul(r, step_im), rounded_mul(i, step_re));
            turn_re[axis][half - k] = turn_re[axis][half + k];
            turn_im[axis][half - k] = -turn_im[axis][half + k];
        }
    }
    double sum_re = 0.0, sum_im = 0.0;
    const std::int32_t r0 = row - half > 0 ? row - half : 0;
    const std::int32_t r1 = row + half < height - 1 ? row + half : height - 1;
    const std::int32_t c0 = col - half > 0 ? col - half : 0;
    const std::int32_t c1 = col + half < width - 1 ? col + half : width - 1;
    for (std::int32_t r = r0; r <= r1; ++r) {
        double row_re = 0.0, row_im = 0.0;
        for (std::int32_t c = c0; c <= c1; ++c) {
            const std::size_t j = std::size_t(r) * std::size_t(width) + std::size_t(c);
            const double tr = turn_re[0][c - col + half], ti = turn_im[0][c - col + half];
            row_re = rounded_add(row_re,
                                 rounded_sub(rounded_mul(double(re[j]), tr),
                                             rounded_mul(double(im[j]), ti)));
            row_im = rounded_add(row_im,
                                 rounded_add(rounded_mul(double(re[j]), ti),
                                             rounded_mul(double(im[j]), tr)));
        }
        const double tr = turn_re[1][r - row + half], ti = turn_im[1][r - row + half];
        sum_re = rounded_add(
            sum_re, rounded_sub(rounded_mul(row_re, tr), rounded_mul(row_im, ti)));
        sum_im = rounded_add(
            sum_im, rounded_add(rounded_mul(row_re, ti), rounded_mul(row_im, tr)));
    }
    return { static_cast<float>(sum_re), static_cast<float>(sum_im) };
}

/*!
 * The residue of the loop whose top-left pixel is \p top_left in a frame \p width
 * wide, and its supply before the base periods: minus the residue, or, where a pixel
 * of the loop is not \p valid, minus the sum of its valid differences in periods (a
 * fraction: only the sum over all the loops merged with it is whole). A difference
 * touching an invalid pixel counts as 0.
 */
struct mcf_loop_balance {
    std::int32_t residue;
    double supply;
};

CUDADSP_HOST_DEVICE mcf_loop_balance mcf_loop_supply(const float* x,
                                                     const std::uint8_t* valid,
                                                     std::size_t top_left,
                                                     std::size_t width,
                                                     const unwrap_period& p)
{
    const std::size_t tl = top_left, tr = tl + 1, bl = tl + width, br = bl + 1;
    const auto difference = [&](std::size_t a, std::size_t b) {
        return valid[a] && valid[b] ? wrap_difference(double(x[b]) - double(x[a]), p)
                                    : 0.0;
    };
    const double top = difference(tl, tr), right = difference(tr, br);
    const double bottom = difference(bl, br), left = difference(tl, bl);
    const std::int32_t residue = mcf_loop_residue(top, right, bottom, left, p);
    const bool whole = valid[tl] && valid[tr] && valid[bl] && valid[br];
    return { residue,
             whole ? -double(residue)
                   : -(top + right - bottom - left) * p.inverse_period };
}

/*!
 * Variance, in periods squared, that the cost model gives a phase difference whose
 * circular moment is \p moment (the product of its two pixels' mcf_phase_moment(),
 * their noises being independent): the variance of the wrapped normal law with that
 * moment, -2 ln(moment) / (2 pi)^2 (Mardia and Jupp 2000, Directional Statistics,
 * 3.5.7), plus mcf_gradient_variance_floor for the true gradient's own departure from
 * the window's mean. Moments below 1e-6 count as 1e-6 (0.7 periods squared).
 */
constexpr double mcf_gradient_variance_floor = 0.002; // (0.045 period)^2

CUDADSP_HOST_DEVICE double mcf_difference_variance(double moment)
{
    constexpr double two_pi_squared = 39.478417604357434;
    // A moment of (nearly) 0 still costs a little, so that a difference between valid
    // pixels is never free: free differences are those beside invalid pixels.
    const double m = moment < 1e-6 ? 1e-6 : moment < 1.0 ? moment : 1.0;
    return -2.0 * log(m) / two_pi_squared + mcf_gradient_variance_floor;
}

/*!
 * The cost model of one difference between valid 4-neighbours: with d its wrapped
 * value and mu its expected value (the window's mean gradient), both in periods, the
 * unwrapped difference d + k has the Gaussian negative log-likelihood
 *
 *   cost(k) = (d + k - mu)^2 / (2 s^2)    (nats, up to a constant)
 *
 * (Chen and Zebker 2001, JOSA A 18(2) 338-351, eq. 4 and the smooth model of their
 * 2002 paper, IEEE TGRS 40(8) 1709-1719). Convex in k, least at base_cycles, the k
 * nearest to mu - d; offset = d + base_cycles - mu lies in [-1/2, 1/2].
 */
struct mcf_difference_cost {
    std::int32_t base_cycles;
    float offset;
    float curvature; //!< 1 / (2 s^2), nats per period squared
};

CUDADSP_HOST_DEVICE mcf_difference_cost mcf_cost_of(double wrapped_periods,
                                                    double expected_periods,
                                                    double variance)
{
    const double gap = expected_periods - wrapped_periods;
    const double base = floor(gap + 0.5);
    return { static_cast<std::int32_t>(base),
             static_cast<float>(wrapped_periods + base - expected_periods),
             static_cast<float>(0.5 / variance) };
}

//! Integer cost units per nat: rounding a cost to 1/100 nat changes no decision that
//! the model's own precision could make.
constexpr double mcf_cost_units_per_nat = 100.0;

/*!
 * The cost, in integer units, of the \p step-th period (1, 2, ...) moved across a
 * difference in \p direction (+1 adds periods, -1 takes them away) beyond its
 * base_cycles: cost(base + direction step) - cost(base + direction (step - 1)) =
 * curvature (2 direction offset + 2 step - 1). Non-negative and non-decreasing in
 * step (rounding keeps the order), so unit-capacity arcs with these costs in parallel
 * represent the convex cost exactly for a solver of linear costs.
 */
CUDADSP_HOST_DEVICE std::int32_t
mcf_step_cost(const mcf_difference_cost& c, std::int32_t direction, std::int32_t step)
{
    const double nats =
        double(c.curvature) * (2.0 * direction * double(c.offset) + 2.0 * step - 1.0);
    return static_cast<std::int32_t>(floor(nats * mcf_cost_units_per_nat + 0.5));
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MCF_UNWRAP_RULE_H */
