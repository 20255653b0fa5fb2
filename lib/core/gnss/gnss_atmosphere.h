/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Atmospheric delays for single-frequency positioning: the GPS broadcast (Klobuchar)
// ionosphere and the Saastamoinen troposphere on a standard atmosphere. Each is chosen
// by the caller through an enum (gnss_pvt_config). See docs/design/gnss_pvt.md.

#ifndef INCLUDED_CUDADSP_CORE_GNSS_ATMOSPHERE_H
#define INCLUDED_CUDADSP_CORE_GNSS_ATMOSPHERE_H

#include "gnss/gnss_geodesy.h"

namespace gr {
namespace cudadsp {
namespace core {

enum class gnss_ionosphere_model { none, klobuchar };
enum class gnss_troposphere_model { none, saastamoinen };

//! The eight broadcast coefficients of IS-GPS-200 20.3.3.5.1.7, in the units the
//! subframe scales give them: alpha_n in s / semicircle^n, beta_n in s / semicircle^n.
struct gnss_klobuchar_coefficients {
    double alpha[4];
    double beta[4];
};

//! IS-GPS-200 20.3.3.5.2.5: the L1 ionospheric group delay in seconds (positive: it
//! lengthens the pseudorange). \p gps_time_s is the GPS time of day or of week (the
//! model takes it modulo 86400).
double klobuchar_delay_s(const gnss_klobuchar_coefficients& coefficients,
                         const gnss_geodetic& receiver,
                         const gnss_az_el& direction,
                         double gps_time_s);

//! The same delay in metres on L1.
double klobuchar_delay_m(const gnss_klobuchar_coefficients& coefficients,
                         const gnss_geodetic& receiver,
                         const gnss_az_el& direction,
                         double gps_time_s);

//! Saastamoinen's zenith delays on the standard atmosphere (1013.25 hPa and 15 degC at
//! sea level, lapse 6.5 K/km, relative humidity 0.7) mapped by 1/cos(zenith): the model
//! and constants of RTKLIB's tropmodel() as its pntpos() uses it. Metres; 0 below the
//! horizon or outside -100 m .. 10 km of height, where the standard atmosphere does
//! not hold.
double saastamoinen_delay_m(const gnss_geodetic& receiver, double elevation_rad);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_ATMOSPHERE_H */
