/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A plausible GPS constellation for simulations and tests: broadcast ephemerides made
// deterministically from the nominal 24-slot geometry (6 planes, 4 satellites each), on
// the LNAV message's grid so that what a receiver decodes is what the orbit used.
// docs/design/gnss_scenario.md describes the choices.

#ifndef INCLUDED_CUDADSP_CORE_GPS_NOMINAL_CONSTELLATION_H
#define INCLUDED_CUDADSP_CORE_GPS_NOMINAL_CONSTELLATION_H

#include "gnss/gps_ephemeris.h"
#include <gnuradio/cudadsp/core/api.h>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief 24 healthy satellites, PRN 1 to 24, plane p = (prn - 1) / 4 with right
 * ascension 60 p degrees and slot s = (prn - 1) mod 4 at mean anomaly 90 s + 15 p
 * degrees: semi-major axis 26 560 km, inclination 55 degrees, eccentricities 0.005 to
 * 0.02, small harmonic corrections and clock terms of broadcast magnitudes. \p week is
 * the 10-bit week, \p toe_s the reference time of ephemeris and clock (a multiple of
 * 16 s in [0, 604784]). Every value is rounded to its LNAV field by an encode and decode
 * round trip. Throws std::invalid_argument naming the parameter.
 */
CUDADSP_CORE_API std::vector<gps_ephemeris> gps_nominal_constellation(int week,
                                                                      double toe_s);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GPS_NOMINAL_CONSTELLATION_H */
