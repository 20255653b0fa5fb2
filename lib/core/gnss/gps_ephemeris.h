/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// GPS broadcast ephemeris and clock (IS-GPS-200 20.3.3.3, Tables 20-III and 20-IV): the
// parameters of LNAV subframes 1 to 3 in the ICD's units, and the satellite's ECEF
// position, velocity and clock correction at a transmission time. The LNAV message
// (gps_lnav.h) encodes and decodes these parameters; docs/design/gps_navigation.md has
// the formulas and sources.

#ifndef INCLUDED_CUDADSP_CORE_GPS_EPHEMERIS_H
#define INCLUDED_CUDADSP_CORE_GPS_EPHEMERIS_H

#include <gnuradio/cudadsp/core/api.h>

namespace gr {
namespace cudadsp {
namespace core {

// IS-GPS-200 constants (20.3.3.4.3 and Table 20-IV), exactly as the ICD writes them:
// the orbit formulas must use these, not more accurate values.
constexpr double gps_mu = 3.986005e14;                  //!< m^3/s^2, WGS 84 GM
constexpr double gps_omega_e = 7.2921151467e-5;         //!< rad/s, WGS 84 Earth rotation
constexpr double gps_pi = 3.1415926535898;              //!< the ICD's pi
constexpr double gps_speed_of_light = 2.99792458e8;     //!< m/s
constexpr double gps_relativistic_f = -4.442807633e-10; //!< s/m^(1/2), -2 sqrt(mu)/c^2
constexpr double gps_half_week_s = 302400.0;
constexpr double gps_week_s = 604800.0;

/*!
 * \brief The broadcast ephemeris and clock of one satellite (LNAV subframes 1 to 3).
 *
 * Units are the ICD's: angles in semicircles (sc), rates in sc/s, lengths in metres,
 * times in seconds of the GPS week. The integer fields are the transmitted values:
 * `week` is the 10-bit week number (modulo 1024), `aodo` counts 900 s.
 */
struct gps_ephemeris {
    int prn = 0;
    // Subframe 1
    int week = 0;
    int code_on_l2 = 0;
    int ura_index = 0;
    int health = 0; //!< the 6-bit SV health; 0 = all signals OK
    int iodc = 0;   //!< 10 bits
    int l2p_data_flag = 0;
    double tgd = 0.0; //!< s
    double toc = 0.0; //!< s
    double af2 = 0.0; //!< s/s^2
    double af1 = 0.0; //!< s/s
    double af0 = 0.0; //!< s
    // Subframe 2
    int iode = 0;         //!< 8 bits; subframes 2 and 3 carry the same value
    double crs = 0.0;     //!< m
    double delta_n = 0.0; //!< sc/s
    double m0 = 0.0;      //!< sc
    double cuc = 0.0;     //!< rad
    double e = 0.0;       //!< eccentricity
    double cus = 0.0;     //!< rad
    double sqrt_a = 0.0;  //!< m^(1/2)
    double toe = 0.0;     //!< s
    int fit_interval_flag = 0;
    int aodo = 0;
    // Subframe 3
    double cic = 0.0;       //!< rad
    double omega0 = 0.0;    //!< sc
    double cis = 0.0;       //!< rad
    double i0 = 0.0;        //!< sc
    double crc = 0.0;       //!< m
    double omega = 0.0;     //!< sc, argument of perigee
    double omega_dot = 0.0; //!< sc/s
    double idot = 0.0;      //!< sc/s
};

//! Satellite state at a transmission time, in the ECEF frame of that time.
struct gps_satellite_state {
    double position[3];  //!< m
    double velocity[3];  //!< m/s, in the rotating ECEF frame
    double clock_bias;   //!< s: af0 + af1 dt + af2 dt^2 + relativistic - TGD (L1 C/A)
    double clock_drift;  //!< s/s
    double relativistic; //!< s: F e sqrt(A) sin(E_k), included in clock_bias
};

/*!
 * \brief t - t_ref in seconds, brought into [-302400, 302400) s: the ICD's rule for
 * t_k and t_c across a week crossover (both times are seconds of a GPS week).
 */
CUDADSP_CORE_API double gps_time_difference(double t, double t_ref);

/*!
 * \brief Position, velocity and clock correction at GPS system time \p t (seconds of
 * the week) of the transmission, per IS-GPS-200 Table 20-IV and 20.3.3.3.3.1.
 *
 * \p t is GPS time: the caller forms it from the satellite's clock reading t_sv as
 * t = t_sv - clock_bias, where clock_bias may be evaluated at t_sv (IS-GPS-200
 * 20.3.3.3.3.1 allows t_sv in place of t in the clock polynomial). Throws
 * std::invalid_argument when sqrt_a is not positive or e is outside [0, 1).
 */
CUDADSP_CORE_API gps_satellite_state gps_satellite_at(const gps_ephemeris& eph, double t);

/*!
 * \brief Rotates an ECEF position given in the frame of the transmission time into the
 * frame of the reception time, \p transit_s later: the Earth turned by OmegaE * transit_s
 * meanwhile (the Sagnac correction). In place.
 */
CUDADSP_CORE_API void gps_earth_rotation_correction(double vec[3], double transit_s);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GPS_EPHEMERIS_H */
