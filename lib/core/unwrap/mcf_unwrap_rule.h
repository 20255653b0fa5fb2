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
    return static_cast<std::int32_t>(floor(sum * p.inverse_period + 0.5));
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
