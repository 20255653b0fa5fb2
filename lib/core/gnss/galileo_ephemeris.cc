/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/galileo_ephemeris.h"
#include "gnss/gnss_keplerian_orbit.h"
#include <cmath>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr keplerian_constants galileo_orbit_constants{ galileo_mu,
                                                       galileo_omega_e,
                                                       galileo_pi };

} // namespace

galileo_satellite_state
galileo_satellite_at(const galileo_ephemeris& eph, double t, double bgd_e1_e5b_s)
{
    const keplerian_state orbit = keplerian_orbit_at(keplerian_elements_of(eph, eph.t0e),
                                                     t,
                                                     galileo_orbit_constants,
                                                     "galileo_satellite_at");
    galileo_satellite_state s;
    for (int i = 0; i < 3; ++i) {
        s.position[i] = orbit.position[i];
        s.velocity[i] = orbit.velocity[i];
    }
    // 5.1.4: t_c wraps at the week crossover as t_k does.
    const double tc = week_time_difference(t, eph.t0c);
    const double sin_e = std::sin(orbit.eccentric_anomaly);
    const double cos_e = std::cos(orbit.eccentric_anomaly);
    s.relativistic = galileo_relativistic_f * eph.e * eph.sqrt_a * sin_e;
    s.clock_bias =
        eph.af0 + eph.af1 * tc + eph.af2 * tc * tc + s.relativistic - bgd_e1_e5b_s;
    s.clock_drift =
        eph.af1 + 2.0 * eph.af2 * tc +
        galileo_relativistic_f * eph.e * eph.sqrt_a * cos_e * orbit.eccentric_anomaly_dot;
    return s;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
