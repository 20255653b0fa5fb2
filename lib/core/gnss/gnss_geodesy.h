/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// WGS-84 geodesy for the position solver: ECEF <-> geodetic, the local east-north-up
// frame, and a satellite's azimuth and elevation seen from a receiver. Angles in
// radians, lengths in metres. See docs/design/gnss_pvt.md.

#ifndef INCLUDED_CUDADSP_CORE_GNSS_GEODESY_H
#define INCLUDED_CUDADSP_CORE_GNSS_GEODESY_H

#include <array>

namespace gr {
namespace cudadsp {
namespace core {

using gnss_vec3 = std::array<double, 3>;

//! WGS-84 (NIMA TR8350.2): semi-major axis, flattening, Earth rotation rate (IS-GPS-200),
//! speed of light.
constexpr double wgs84_a_m = 6378137.0;
constexpr double wgs84_f = 1.0 / 298.257223563;
constexpr double wgs84_e2 = wgs84_f * (2.0 - wgs84_f);
constexpr double wgs84_omega_e_rad_s = 7.2921151467e-5;
constexpr double gnss_speed_of_light_m_s = 299792458.0;

struct gnss_geodetic {
    double latitude_rad;  //!< geodetic latitude, [-pi/2, pi/2]
    double longitude_rad; //!< (-pi, pi]
    double height_m;      //!< above the ellipsoid
};

struct gnss_az_el {
    double azimuth_rad;   //!< from north towards east, [0, 2 pi)
    double elevation_rad; //!< above the local horizon (ellipsoid normal), [-pi/2, pi/2]
};

gnss_vec3 geodetic_to_ecef(const gnss_geodetic& position);

//! Iterated to convergence (1e-12 m on the auxiliary z); exact at the poles and on the
//! axis, where the longitude is reported as 0.
gnss_geodetic ecef_to_geodetic(const gnss_vec3& ecef_m);

//! Rotates an ECEF vector (a difference, not a position) into east, north, up at \p at.
gnss_vec3 ecef_to_enu(const gnss_vec3& delta_ecef, const gnss_geodetic& at);

//! Direction of \p satellite_ecef_m from a receiver at \p receiver (both ECEF, metres).
gnss_az_el azimuth_elevation(const gnss_vec3& receiver_ecef_m,
                             const gnss_geodetic& receiver,
                             const gnss_vec3& satellite_ecef_m);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_GEODESY_H */
