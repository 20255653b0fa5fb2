/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A plausible GPS constellation for simulations and tests: broadcast ephemerides made
// deterministically from a nominal geometry (6 planes of 5 satellites), on the LNAV
// message's grid so that what a receiver decodes is what the orbit used.
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
 * \brief 30 healthy satellites, PRN 1 to 30, plane p = (prn - 1) / 5 with right
 * ascension 60 p degrees and slot s = (prn - 1) mod 5 at mean anomaly 72 s + 15 p
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
