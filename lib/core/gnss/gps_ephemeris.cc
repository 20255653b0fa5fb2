/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_keplerian_orbit.h"
#include "gnss/gps_ephemeris.h"
#include <cmath>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr keplerian_constants gps_orbit_constants{ gps_mu, gps_omega_e, gps_pi };

} // namespace

double gps_time_difference(double t, double t_ref)
{
    return week_time_difference(t, t_ref);
}

gps_satellite_state gps_satellite_at(const gps_ephemeris& eph, double t)
{
    const keplerian_state orbit = keplerian_orbit_at(
        keplerian_elements_of(eph, eph.toe), t, gps_orbit_constants, "gps_satellite_at");
    gps_satellite_state s;
    for (int i = 0; i < 3; ++i) {
        s.position[i] = orbit.position[i];
        s.velocity[i] = orbit.velocity[i];
    }
    const double tc = gps_time_difference(t, eph.toc);
    const double sin_e = std::sin(orbit.eccentric_anomaly);
    const double cos_e = std::cos(orbit.eccentric_anomaly);
    s.relativistic = gps_relativistic_f * eph.e * eph.sqrt_a * sin_e;
    s.clock_bias = eph.af0 + eph.af1 * tc + eph.af2 * tc * tc + s.relativistic - eph.tgd;
    s.clock_drift =
        eph.af1 + 2.0 * eph.af2 * tc +
        gps_relativistic_f * eph.e * eph.sqrt_a * cos_e * orbit.eccentric_anomaly_dot;
    return s;
}

void gps_earth_rotation_correction(double vec[3], double transit_s)
{
    // The receiver's ECEF frame has turned by theta since the transmission: a vector
    // fixed in inertial space has, in the new frame, coordinates R3(theta) v.
    const double theta = gps_omega_e * transit_s;
    const double c = std::cos(theta), s = std::sin(theta);
    const double x = c * vec[0] + s * vec[1];
    const double y = -s * vec[0] + c * vec[1];
    vec[0] = x;
    vec[1] = y;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
