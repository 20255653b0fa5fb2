/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_RULE_H
#define INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_RULE_H

#include "runtime/host_device.h"
#include <cstddef>
#include <cstdint>

/*
 * The decisions both PCPS acquisition backends make (core/pcps_acquisition.h), so that
 * they report the same peak and the same second peak:
 *  - cells are numbered (grid, Doppler bin, lag) row-major; the peak is the largest
 *    power and, among equal powers, the smallest cell number (a total order, so any
 *    reduction order finds the same cell);
 *  - the second peak is sought over cells whose lag lies more than 2 chips from the
 *    peak's, on the circle of one code period.
 * The host-only half (threshold, refinement formulas) is below the device half.
 */

namespace gr {
namespace cudadsp {
namespace core {

//! Cell number of (grid, Doppler bin, lag).
CUDADSP_HOST_DEVICE std::uint64_t pcps_cell_index(std::size_t grid,
                                                  std::size_t bin,
                                                  std::size_t lag,
                                                  std::size_t bins,
                                                  std::size_t lags)
{
    return (static_cast<std::uint64_t>(grid) * bins + bin) * lags + lag;
}

//! True when cell a (power pa, number ia) beats cell b: larger power, then smaller
//! number. NaN powers never win.
CUDADSP_HOST_DEVICE bool
pcps_better_cell(float pa, std::uint64_t ia, float pb, std::uint64_t ib)
{
    return pa > pb || (pa == pb && ia < ib);
}

//! Circular distance between two lags of a code period of \p lags samples.
CUDADSP_HOST_DEVICE std::size_t
pcps_lag_distance(std::size_t a, std::size_t b, std::size_t lags)
{
    const std::size_t d = a > b ? a - b : b - a;
    return d < lags - d ? d : lags - d;
}

//! Lags within this distance of the peak are excluded from the second peak: 2 chips.
inline std::size_t pcps_exclusion_lags(double sample_rate_hz, double chip_rate_cps)
{
    return static_cast<std::size_t>(2.0 * sample_rate_hz / chip_rate_cps);
}

/*! Sub-sample offset of a correlation triangle's apex from the amplitudes e, p, l at
 *  lags t - 1, t, t + 1 (p the largest): the two sides have opposite slopes of equal
 *  size, so the apex lies at (l - e) / (2 (p - min(e, l))); clamped to +-0.5. */
inline double pcps_triangle_offset(double e, double p, double l)
{
    const double lower = e < l ? e : l;
    const double den = 2.0 * (p - lower);
    if (!(den > 0.0))
        return 0.0;
    const double d = (l - e) / den;
    return d < -0.5 ? -0.5 : (d > 0.5 ? 0.5 : d);
}

//! Vertex offset in (-1, 1) of the parabola through (-1, ym), (0, y0), (1, yp), for a
//! maximum at 0 (0 when the three points are not concave).
inline double pcps_parabola_offset(double ym, double y0, double yp)
{
    const double den = ym - 2.0 * y0 + yp;
    if (!(den < 0.0))
        return 0.0;
    const double d = 0.5 * (ym - yp) / den;
    return d < -1.0 ? -1.0 : (d > 1.0 ? 1.0 : d);
}

/*! The cell statistic's law under noise alone (noise level 1 per integration):
 *  Gamma(K, 1) for one replica per grid; for two (Galileo B + C and B - C, nearly
 *  orthogonal, each integration keeping the larger) the sum of K maxima of two unit
 *  exponentials, which is Gamma(K) + Gamma(K) / 2 (Renyi: max(E1, E2) = E + E' / 2). */
double pcps_cell_tail(double x, std::size_t k, std::size_t replicas);
//! Mean of that cell: K or 1.5 K.
double pcps_cell_mean(std::size_t k, std::size_t replicas);
/*! The peak-to-mean threshold: x / pcps_cell_mean() with pcps_cell_tail(x) =
 *  false_alarm / cells. */
double pcps_threshold(std::size_t k,
                      std::size_t replicas,
                      std::size_t cells,
                      double false_alarm);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_RULE_H */
