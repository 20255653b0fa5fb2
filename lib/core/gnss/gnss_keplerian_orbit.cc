/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_keplerian_orbit.h"
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr double half_week_s = 302400.0;
constexpr double week_s = 604800.0;

//! Kepler's equation M = E - e sin E by fixed-point iteration, as the ICDs suggest; it
//! converges for every e < 1 and GNSS orbits (e < 0.03) need a handful of steps.
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

void check_orbit(const keplerian_elements& k, const char* caller)
{
    if (!(k.sqrt_a > 0.0)) {
        throw std::invalid_argument(std::string(caller) + ": sqrt_a = " +
                                    std::to_string(k.sqrt_a) + " must be positive");
    }
    if (!(k.e >= 0.0 && k.e < 1.0)) {
        throw std::invalid_argument(std::string(caller) + ": eccentricity e = " +
                                    std::to_string(k.e) + " must lie in [0, 1)");
    }
}

} // namespace

double week_time_difference(double t, double t_ref)
{
    double d = t - t_ref;
    if (d >= half_week_s) {
        d -= week_s;
    } else if (d < -half_week_s) {
        d += week_s;
    }
    return d;
}

keplerian_state keplerian_orbit_at(const keplerian_elements& k,
                                   double t,
                                   const keplerian_constants& c,
                                   const char* caller)
{
    check_orbit(k, caller);
    const double a = k.sqrt_a * k.sqrt_a;
    const double n = std::sqrt(c.mu / (a * a * a)) + k.delta_n * c.pi;
    const double tk = week_time_difference(t, k.toe);
    const double ek = eccentric_anomaly(k.m0 * c.pi + n * tk, k.e);
    const double sin_e = std::sin(ek);
    const double cos_e = std::cos(ek);
    const double one_minus = 1.0 - k.e * cos_e;
    const double root = std::sqrt(1.0 - k.e * k.e);
    const double nu = std::atan2(root * sin_e, cos_e - k.e);
    const double phi = nu + k.omega * c.pi;
    const double s2 = std::sin(2.0 * phi);
    const double c2 = std::cos(2.0 * phi);
    const double u = phi + k.cus * s2 + k.cuc * c2;
    const double r = a * one_minus + k.crs * s2 + k.crc * c2;
    const double inc = k.i0 * c.pi + k.cis * s2 + k.cic * c2 + k.idot * c.pi * tk;
    const double omega_rate = k.omega_dot * c.pi - c.omega_e;
    const double node = k.omega0 * c.pi + omega_rate * tk - c.omega_e * k.toe;

    // Rates: the derivatives of the lines above with respect to t (IS-GPS-200 Table
    // 20-IV's velocity supplement, written out).
    const double e_dot = n / one_minus;
    const double nu_dot = e_dot * root / one_minus;
    const double u_dot = nu_dot * (1.0 + 2.0 * (k.cus * c2 - k.cuc * s2));
    const double r_dot =
        a * k.e * sin_e * e_dot + 2.0 * nu_dot * (k.crs * c2 - k.crc * s2);
    const double i_dot = k.idot * c.pi + 2.0 * nu_dot * (k.cis * c2 - k.cic * s2);

    const double xp = r * std::cos(u);
    const double yp = r * std::sin(u);
    const double xp_dot = r_dot * std::cos(u) - yp * u_dot;
    const double yp_dot = r_dot * std::sin(u) + xp * u_dot;
    const double cn = std::cos(node), sn = std::sin(node);
    const double ci = std::cos(inc), si = std::sin(inc);

    keplerian_state s;
    s.position[0] = xp * cn - yp * ci * sn;
    s.position[1] = xp * sn + yp * ci * cn;
    s.position[2] = yp * si;
    s.velocity[0] = xp_dot * cn - yp_dot * ci * sn + yp * si * i_dot * sn -
                    omega_rate * s.position[1];
    s.velocity[1] = xp_dot * sn + yp_dot * ci * cn - yp * si * i_dot * cn +
                    omega_rate * s.position[0];
    s.velocity[2] = yp_dot * si + yp * ci * i_dot;
    s.eccentric_anomaly = ek;
    s.eccentric_anomaly_dot = e_dot;
    return s;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
