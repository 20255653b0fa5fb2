/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A plausible Galileo constellation for simulations and tests: the nominal Walker
// 24/3/1 (OS SDD 2.2: 3 planes, 8 satellites each, 29 600 km semi-major axis, 56
// degrees), as the I/NAV messages its satellites would send, every value on its I/NAV
// field's grid so that what a receiver decodes is what the orbit used.
// docs/design/gnss_scenario.md describes the choices.

#ifndef INCLUDED_CUDADSP_CORE_GALILEO_NOMINAL_CONSTELLATION_H
#define INCLUDED_CUDADSP_CORE_GALILEO_NOMINAL_CONSTELLATION_H

#include "gnss/galileo_inav_encoder.h"
#include <gnuradio/cudadsp/core/api.h>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief 24 healthy satellites, PRN (SVID) 1 to 24: plane p = (prn - 1) / 8 with right
 * ascension 120 p degrees, slot s = (prn - 1) mod 8 at argument of latitude 45 s + 15 p
 * degrees (the Walker phasing 1), semi-major axis 29 600 km, inclination 56 degrees,
 * eccentricities 0.0002 to 0.001, small harmonic corrections and clock terms of
 * broadcast magnitudes, BGDs of a few ns, SISA index 107 (about 3 m), E1-B HS and DVS 0.
 * \p t0e_s is the reference time of ephemeris and clock (a multiple of 60 s in the
 * week), \p iodnav the batch's issue (0 to 1023). Every value is rounded to its I/NAV
 * field by an encode and decode round trip. Throws std::invalid_argument naming the
 * parameter.
 */
CUDADSP_CORE_API std::vector<galileo_inav_message>
galileo_nominal_constellation(double t0e_s, int iodnav);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GALILEO_NOMINAL_CONSTELLATION_H */
