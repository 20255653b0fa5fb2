/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The broadcast Keplerian orbit with harmonic corrections that GPS (IS-GPS-200 Table
// 20-IV) and Galileo (OS SIS ICD Issue 2.0, 5.1.1 Table 58) share word for word: only the
// constants differ (mu; Omega_e and pi are the same). gps_ephemeris.* and
// galileo_ephemeris.* map their broadcast parameters onto these elements and add their
// own clock models; docs/design/gps_navigation.md has the formulas.

#ifndef INCLUDED_CUDADSP_CORE_GNSS_KEPLERIAN_ORBIT_H
#define INCLUDED_CUDADSP_CORE_GNSS_KEPLERIAN_ORBIT_H

#include <gnuradio/cudadsp/core/api.h>

namespace gr {
namespace cudadsp {
namespace core {

//! The 16 quasi-Keplerian broadcast elements, in the ICDs' units: angles in semicircles
//! (sc), rates in sc/s, lengths in metres, toe in seconds of the week.
struct keplerian_elements {
    double sqrt_a = 0.0;    //!< m^(1/2)
    double e = 0.0;         //!< eccentricity
    double m0 = 0.0;        //!< sc
    double delta_n = 0.0;   //!< sc/s
    double omega0 = 0.0;    //!< sc, longitude of the ascending node at the week's start
    double i0 = 0.0;        //!< sc
    double omega = 0.0;     //!< sc, argument of perigee
    double omega_dot = 0.0; //!< sc/s
    double idot = 0.0;      //!< sc/s
    double cuc = 0.0, cus = 0.0; //!< rad
    double crc = 0.0, crs = 0.0; //!< m
    double cic = 0.0, cis = 0.0; //!< rad
    double toe = 0.0;            //!< s
};

//! The constants a system's ICD prescribes for its orbit formulas.
/*!
 * The Keplerian elements of a broadcast ephemeris (GPS LNAV, Galileo I/NAV: the same
 * field names), with \p toe_s its reference time, which the two ICDs name differently.
 */
template <class Ephemeris>
keplerian_elements keplerian_elements_of(const Ephemeris& eph, double toe_s)
{
    keplerian_elements k;
    k.sqrt_a = eph.sqrt_a;
    k.e = eph.e;
    k.m0 = eph.m0;
    k.delta_n = eph.delta_n;
    k.omega0 = eph.omega0;
    k.i0 = eph.i0;
    k.omega = eph.omega;
    k.omega_dot = eph.omega_dot;
    k.idot = eph.idot;
    k.cuc = eph.cuc;
    k.cus = eph.cus;
    k.crc = eph.crc;
    k.crs = eph.crs;
    k.cic = eph.cic;
    k.cis = eph.cis;
    k.toe = toe_s;
    return k;
}

struct keplerian_constants {
    double mu;      //!< m^3/s^2
    double omega_e; //!< rad/s
    double pi;      //!< the ICD's pi
};

//! Position and velocity in the ECEF frame of time t, and the eccentric anomaly the
//! clocks' relativistic term needs.
struct keplerian_state {
    double position[3];           //!< m
    double velocity[3];           //!< m/s, in the rotating ECEF frame
    double eccentric_anomaly;     //!< rad
    double eccentric_anomaly_dot; //!< rad/s
};

/*!
 * \brief t - t_ref in seconds, brought into [-302400, 302400) s: the ICDs' rule for t_k
 * and t_c across a week crossover (both times are seconds of a week).
 */
CUDADSP_CORE_API double week_time_difference(double t, double t_ref);

/*!
 * \brief The satellite's position and velocity at system time \p t (seconds of the week)
 * from \p elements with \p constants. \p caller names the function in the error thrown
 * (std::invalid_argument) when sqrt_a is not positive or e is outside [0, 1).
 */
CUDADSP_CORE_API keplerian_state keplerian_orbit_at(const keplerian_elements& elements,
                                                    double t,
                                                    const keplerian_constants& constants,
                                                    const char* caller);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_KEPLERIAN_ORBIT_H */
