/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_GPS_SCENARIO_H
#define INCLUDED_CUDADSP_QA_GPS_SCENARIO_H

// The GPS scenario the scenario and receiver tests share: the nominal constellation at
// 45 dB-Hz seen from Vienna, and the Klobuchar coefficients it broadcasts. Each test
// sets its own times, mask, models and signal.

#include "gnss/gnss_atmosphere.h"
#include "gnss/gnss_geodesy.h"
#include "gnss/gps_constellation_scenario.h"
#include "gnss/gps_nominal_constellation.h"

namespace gr {
namespace cudadsp {
namespace qa {

inline const core::gnss_klobuchar_coefficients& broadcast_klobuchar()
{
    static const core::gnss_klobuchar_coefficients k{
        { 1.1176e-8, 7.4506e-9, -5.9605e-8, -5.9605e-8 },
        { 90112.0, 0.0, -196608.0, -65536.0 }
    };
    return k;
}

//! A static receiver in Vienna (48.2 N, 16.37 E, 200 m).
inline core::gnss_vec3 vienna_ecef()
{
    const double degree = 3.141592653589793 / 180.0;
    return core::geodetic_to_ecef({ 48.2 * degree, 16.37 * degree, 200.0 });
}

//! Every satellite of the nominal constellation at 45 dB-Hz, the receiver in Vienna.
inline core::gps_scenario_config nominal_scenario(int week, double toe)
{
    core::gps_scenario_config config;
    for (const core::gps_ephemeris& e : core::gps_nominal_constellation(week, toe))
        config.satellites.push_back({ e, 45.0 });
    config.receiver.position_m = vienna_ecef();
    return config;
}

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_GPS_SCENARIO_H */
