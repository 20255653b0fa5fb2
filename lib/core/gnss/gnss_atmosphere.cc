/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_atmosphere.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace cudadsp {
namespace core {

namespace {
const double pi = 3.14159265358979323846;

double cubic(const double c[4], double x)
{
    return c[0] + x * (c[1] + x * (c[2] + x * c[3]));
}
} // namespace

double klobuchar_delay_s(const gnss_klobuchar_coefficients& k,
                         const gnss_geodetic& receiver,
                         const gnss_az_el& direction,
                         double gps_time_s)
{
    // IS-GPS-200 works in semicircles; the trigonometric functions take radians.
    const double e = direction.elevation_rad / pi;
    const double lat_u = receiver.latitude_rad / pi;
    const double lon_u = receiver.longitude_rad / pi;
    // Earth-centred angle between the user and the ionospheric pierce point (350 km).
    const double psi = 0.0137 / (e + 0.11) - 0.022;
    const double lat_i =
        std::clamp(lat_u + psi * std::cos(direction.azimuth_rad), -0.416, 0.416);
    const double lon_i =
        lon_u + psi * std::sin(direction.azimuth_rad) / std::cos(lat_i * pi);
    // Geomagnetic latitude of the pierce point.
    const double lat_m = lat_i + 0.064 * std::cos((lon_i - 1.617) * pi);
    // Local time at the pierce point, [0, 86400).
    double t = std::fmod(4.32e4 * lon_i + gps_time_s, 86400.0);
    if (t < 0.0)
        t += 86400.0;
    const double obliquity = 1.0 + 16.0 * std::pow(0.53 - e, 3);
    const double period = std::max(cubic(k.beta, lat_m), 72000.0);
    const double amplitude = std::max(cubic(k.alpha, lat_m), 0.0);
    const double x = 2.0 * pi * (t - 50400.0) / period;
    if (std::fabs(x) >= 1.57)
        return obliquity * 5e-9;
    const double x2 = x * x;
    return obliquity * (5e-9 + amplitude * (1.0 - x2 / 2.0 + x2 * x2 / 24.0));
}

double klobuchar_delay_m(const gnss_klobuchar_coefficients& coefficients,
                         const gnss_geodetic& receiver,
                         const gnss_az_el& direction,
                         double gps_time_s)
{
    return gnss_speed_of_light_m_s *
           klobuchar_delay_s(coefficients, receiver, direction, gps_time_s);
}

double saastamoinen_delay_m(const gnss_geodetic& receiver, double elevation_rad)
{
    const double h = receiver.height_m;
    if (h < -100.0 || h > 1e4 || elevation_rad <= 0.0)
        return 0.0;
    const double hgt = std::max(h, 0.0);
    const double relative_humidity = 0.7;
    // Standard atmosphere at the receiver's height.
    const double pressure_hpa = 1013.25 * std::pow(1.0 - 2.2557e-5 * hgt, 5.2568);
    const double temperature_k = 15.0 - 6.5e-3 * hgt + 273.16;
    const double vapour_hpa =
        6.108 * relative_humidity *
        std::exp((17.15 * temperature_k - 4684.0) / (temperature_k - 38.45));
    const double sec_z = 1.0 / std::cos(pi / 2.0 - elevation_rad);
    const double hydrostatic =
        0.0022768 * pressure_hpa /
        (1.0 - 0.00266 * std::cos(2.0 * receiver.latitude_rad) - 0.00028 * hgt / 1e3) *
        sec_z;
    const double wet = 0.002277 * (1255.0 / temperature_k + 0.05) * vapour_hpa * sec_z;
    return hydrostatic + wet;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
