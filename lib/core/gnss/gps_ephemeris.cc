/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gps_ephemeris.h"
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Kepler's equation M = E - e sin E by fixed-point iteration, as the ICD suggests;
//! it converges for every e < 1 and GPS orbits (e < 0.03) need a handful of steps.
double eccentric_anomaly(double mean_anomaly, double e)
{
    double ek = mean_anomaly;
    for (int i = 0; i < 50; ++i) {
        const double next = mean_anomaly + e * std::sin(ek);
        if (std::fabs(next - ek) < 1e-15) {
            return next;
        }
        ek = next;
    }
    return ek;
}

void check_orbit(const gps_ephemeris& eph)
{
    if (!(eph.sqrt_a > 0.0)) {
        throw std::invalid_argument("gps_satellite_at: sqrt_a = " +
                                    std::to_string(eph.sqrt_a) + " must be positive");
    }
    if (!(eph.e >= 0.0 && eph.e < 1.0)) {
        throw std::invalid_argument("gps_satellite_at: eccentricity e = " +
                                    std::to_string(eph.e) + " must lie in [0, 1)");
    }
}

} // namespace

double gps_time_difference(double t, double t_ref)
{
    double d = t - t_ref;
    if (d >= gps_half_week_s) {
        d -= gps_week_s;
    } else if (d < -gps_half_week_s) {
        d += gps_week_s;
    }
    return d;
}

gps_satellite_state gps_satellite_at(const gps_ephemeris& eph, double t)
{
    check_orbit(eph);
    const double a = eph.sqrt_a * eph.sqrt_a;
    const double n = std::sqrt(gps_mu / (a * a * a)) + eph.delta_n * gps_pi;
    const double tk = gps_time_difference(t, eph.toe);
    const double ek = eccentric_anomaly(eph.m0 * gps_pi + n * tk, eph.e);
    const double sin_e = std::sin(ek);
    const double cos_e = std::cos(ek);
    const double one_minus = 1.0 - eph.e * cos_e;
    const double root = std::sqrt(1.0 - eph.e * eph.e);
    const double nu = std::atan2(root * sin_e, cos_e - eph.e);
    const double phi = nu + eph.omega * gps_pi;
    const double s2 = std::sin(2.0 * phi);
    const double c2 = std::cos(2.0 * phi);
    const double u = phi + eph.cus * s2 + eph.cuc * c2;
    const double r = a * one_minus + eph.crs * s2 + eph.crc * c2;
    const double inc =
        eph.i0 * gps_pi + eph.cis * s2 + eph.cic * c2 + eph.idot * gps_pi * tk;
    const double omega_rate = eph.omega_dot * gps_pi - gps_omega_e;
    const double node = eph.omega0 * gps_pi + omega_rate * tk - gps_omega_e * eph.toe;

    // Rates: the derivatives of the lines above with respect to t (IS-GPS-200 Table
    // 20-IV's velocity supplement, written out).
    const double e_dot = n / one_minus;
    const double nu_dot = e_dot * root / one_minus;
    const double u_dot = nu_dot * (1.0 + 2.0 * (eph.cus * c2 - eph.cuc * s2));
    const double r_dot =
        a * eph.e * sin_e * e_dot + 2.0 * nu_dot * (eph.crs * c2 - eph.crc * s2);
    const double i_dot = eph.idot * gps_pi + 2.0 * nu_dot * (eph.cis * c2 - eph.cic * s2);

    const double xp = r * std::cos(u);
    const double yp = r * std::sin(u);
    const double xp_dot = r_dot * std::cos(u) - yp * u_dot;
    const double yp_dot = r_dot * std::sin(u) + xp * u_dot;
    const double cn = std::cos(node), sn = std::sin(node);
    const double ci = std::cos(inc), si = std::sin(inc);

    gps_satellite_state s;
    s.position[0] = xp * cn - yp * ci * sn;
    s.position[1] = xp * sn + yp * ci * cn;
    s.position[2] = yp * si;
    s.velocity[0] = xp_dot * cn - yp_dot * ci * sn + yp * si * i_dot * sn -
                    omega_rate * s.position[1];
    s.velocity[1] = xp_dot * sn + yp_dot * ci * cn - yp * si * i_dot * cn +
                    omega_rate * s.position[0];
    s.velocity[2] = yp_dot * si + yp * ci * i_dot;

    const double tc = gps_time_difference(t, eph.toc);
    s.relativistic = gps_relativistic_f * eph.e * eph.sqrt_a * sin_e;
    s.clock_bias = eph.af0 + eph.af1 * tc + eph.af2 * tc * tc + s.relativistic - eph.tgd;
    s.clock_drift = eph.af1 + 2.0 * eph.af2 * tc +
                    gps_relativistic_f * eph.e * eph.sqrt_a * cos_e * e_dot;
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
