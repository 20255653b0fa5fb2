/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_geodesy.h"
#include <cmath>

namespace gr {
namespace cudadsp {
namespace core {

namespace {
const double pi = 3.14159265358979323846;
} // namespace

gnss_vec3 geodetic_to_ecef(const gnss_geodetic& p)
{
    const double sin_lat = std::sin(p.latitude_rad);
    const double cos_lat = std::cos(p.latitude_rad);
    // Prime-vertical radius of curvature.
    const double n = wgs84_a_m / std::sqrt(1.0 - wgs84_e2 * sin_lat * sin_lat);
    return { (n + p.height_m) * cos_lat * std::cos(p.longitude_rad),
             (n + p.height_m) * cos_lat * std::sin(p.longitude_rad),
             (n * (1.0 - wgs84_e2) + p.height_m) * sin_lat };
}

gnss_geodetic ecef_to_geodetic(const gnss_vec3& r)
{
    // The fixed point z = z0 + N(phi) e^2 sin(phi), sin(phi) = z / sqrt(rho^2 + z^2)
    // (the form RTKLIB's ecef2pos() iterates): a contraction by about e^2 per step, so
    // a few steps reach double precision anywhere outside the Earth's centre.
    const double rho2 = r[0] * r[0] + r[1] * r[1];
    double z = r[2];
    double n = wgs84_a_m;
    for (int i = 0; i < 50; ++i) {
        const double sin_lat = z / std::sqrt(rho2 + z * z);
        n = wgs84_a_m / std::sqrt(1.0 - wgs84_e2 * sin_lat * sin_lat);
        const double next = r[2] + n * wgs84_e2 * sin_lat;
        const bool converged = std::fabs(next - z) < 1e-12 * wgs84_a_m;
        z = next;
        if (converged)
            break;
    }
    const double rho = std::sqrt(rho2);
    gnss_geodetic g;
    g.latitude_rad = rho > 0.0 ? std::atan2(z, rho) : (r[2] >= 0.0 ? pi / 2 : -pi / 2);
    g.longitude_rad = rho > 0.0 ? std::atan2(r[1], r[0]) : 0.0;
    g.height_m = std::sqrt(rho2 + z * z) - n;
    return g;
}

gnss_vec3 ecef_to_enu(const gnss_vec3& d, const gnss_geodetic& at)
{
    const double sl = std::sin(at.latitude_rad), cl = std::cos(at.latitude_rad);
    const double so = std::sin(at.longitude_rad), co = std::cos(at.longitude_rad);
    return { -so * d[0] + co * d[1],
             -sl * co * d[0] - sl * so * d[1] + cl * d[2],
             cl * co * d[0] + cl * so * d[1] + sl * d[2] };
}

gnss_az_el azimuth_elevation(const gnss_vec3& receiver_ecef_m,
                             const gnss_geodetic& receiver,
                             const gnss_vec3& satellite_ecef_m)
{
    const gnss_vec3 d = { satellite_ecef_m[0] - receiver_ecef_m[0],
                          satellite_ecef_m[1] - receiver_ecef_m[1],
                          satellite_ecef_m[2] - receiver_ecef_m[2] };
    const gnss_vec3 enu = ecef_to_enu(d, receiver);
    const double horizontal = std::hypot(enu[0], enu[1]);
    gnss_az_el ae;
    ae.azimuth_rad = std::atan2(enu[0], enu[1]);
    if (ae.azimuth_rad < 0.0)
        ae.azimuth_rad += 2.0 * pi;
    ae.elevation_rad = std::atan2(enu[2], horizontal);
    return ae;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
