/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Galileo broadcast ephemeris and clock (OS SIS ICD Issue 2.0: 5.1.1 ephemeris, Table 58
// user algorithm; 5.1.4 clock correction; 5.1.5 broadcast group delay): the parameters
// of I/NAV word types 1 to 4 in the ICD's units, and the satellite's ECEF position,
// velocity and clock correction at a transmission time. The orbit is the model GPS
// uses (gnss_keplerian_orbit.h) with Galileo's constants. The I/NAV decoder
// (galileo_inav.h) fills these; docs/design/galileo_inav.md has the sources.

#ifndef INCLUDED_CUDADSP_CORE_GALILEO_EPHEMERIS_H
#define INCLUDED_CUDADSP_CORE_GALILEO_EPHEMERIS_H

#include "gnss/gps_ephemeris.h"
#include <gnuradio/cudadsp/core/api.h>

namespace gr {
namespace cudadsp {
namespace core {

// OS SIS ICD 5.1.1 (Table 58) and 5.1.4, as the ICD writes them.
constexpr double galileo_mu = 3.986004418e14;               //!< m^3/s^2, GTRF GM
constexpr double galileo_omega_e = 7.2921151467e-5;         //!< rad/s
constexpr double galileo_pi = 3.1415926535898;              //!< the ICD's pi
constexpr double galileo_relativistic_f = -4.442807309e-10; //!< s/m^(1/2)

/*!
 * \brief One satellite's ephemeris and clock from I/NAV word types 1 to 4 (one IODnav).
 *
 * Angles in semicircles (sc), rates in sc/s, lengths in metres, times in seconds of the
 * Galileo week. The clock parameters are those of the E1,E5b pair that I/NAV carries.
 */
struct galileo_ephemeris {
    int svid = 0;   //!< word 4, 6 bits
    int iodnav = 0; //!< 10 bits, the same in words 1 to 4
    // Word 1
    double t0e = 0.0;    //!< s
    double m0 = 0.0;     //!< sc
    double e = 0.0;      //!< eccentricity
    double sqrt_a = 0.0; //!< m^(1/2)
    // Word 2
    double omega0 = 0.0; //!< sc
    double i0 = 0.0;     //!< sc
    double omega = 0.0;  //!< sc, argument of perigee
    double idot = 0.0;   //!< sc/s
    // Word 3
    double omega_dot = 0.0; //!< sc/s
    double delta_n = 0.0;   //!< sc/s
    double cuc = 0.0;       //!< rad
    double cus = 0.0;       //!< rad
    double crc = 0.0;       //!< m
    double crs = 0.0;       //!< m
    int sisa = 0;           //!< SISA(E1,E5b) index, 8 bits (255: no accuracy prediction)
    // Word 4
    double cic = 0.0; //!< rad
    double cis = 0.0; //!< rad
    double t0c = 0.0; //!< s
    double af0 = 0.0; //!< s
    double af1 = 0.0; //!< s/s
    double af2 = 0.0; //!< s/s^2
};

//! The same quantities as for GPS (position, velocity, clock at a transmission time).
using galileo_satellite_state = gps_satellite_state;

/*!
 * \brief Position, velocity and clock correction at Galileo system time \p t (seconds
 * of the week) of an E1 single-frequency transmission (OS SIS ICD 5.1.1, 5.1.4, 5.1.5).
 *
 * clock_bias = af0 + af1 t_c + af2 t_c^2 + F e sqrt(A) sin E_k - BGD(E1,E5b), with
 * \p bgd_e1_e5b_s from word type 5 (0 to get the E1,E5b dual-frequency clock). Throws
 * std::invalid_argument when sqrt_a is not positive or e is outside [0, 1).
 */
CUDADSP_CORE_API galileo_satellite_state
galileo_satellite_at(const galileo_ephemeris& eph, double t, double bgd_e1_e5b_s);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GALILEO_EPHEMERIS_H */
