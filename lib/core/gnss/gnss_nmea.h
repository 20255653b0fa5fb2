/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// NMEA 0183 sentences of a fix: GGA (position), RMC (position, speed, course, date),
// GSA (satellites used, DOPs) and GSV (satellites in view). Times are UTC: the fix's
// GPS time minus the leap seconds. Talker GP when only GPS is used (or none), GA when
// only Galileo is, GN with both (GSA then one sentence per system); GSA ends in NMEA
// 4.10's system ID whatever the talker; GSV always per system, GP and GA. Sentences end
// in "\r\n". Choices: docs/design/gnss_outputs.md.

#ifndef INCLUDED_CUDADSP_CORE_GNSS_NMEA_H
#define INCLUDED_CUDADSP_CORE_GNSS_NMEA_H

#include "gnss/gnss_pvt.h"
#include "gnss/gnss_time.h"
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! The two hex digits (upper case) of the XOR of every character of \p body, the
//! text between '$' and '*'.
std::string nmea_checksum(const std::string& body);

//! "$" body "*" checksum "\r\n".
std::string nmea_sentence(const std::string& body);

/*!
 * \brief GGA: UTC time, latitude and longitude (ddmm.mmmm, dddmm.mmmm), quality 1 (or 0
 * without a fix, the position fields then empty), satellites used, HDOP, altitude.
 *
 * The engine has no geoid model: the altitude is the height above the WGS-84 ellipsoid
 * and the geoid separation is written 0.0, so that altitude + separation is still the
 * ellipsoidal height a reader reconstructs.
 */
std::string nmea_gga(const gnss_pvt_result& fix, const gps_time& time, int leap_seconds);

//! RMC: status A / V, position, speed over ground (knots) and true course from the
//! velocity (empty without one), UTC date ddmmyy, no magnetic variation, mode A / N.
std::string nmea_rmc(const gnss_pvt_result& fix, const gps_time& time, int leap_seconds);

//! GSA: automatic mode, fix 3 (3D) or 1 (none), the PRNs used (12 at most per sentence),
//! PDOP, HDOP, VDOP, NMEA 4.10's system ID (1 GPS, 3 Galileo). One sentence per system
//! used (GP's alone when none is).
std::vector<std::string> nmea_gsa(const gnss_pvt_result& fix);

/*!
 * \brief GSV: the satellites of \p fix above the horizon, four per sentence, each with
 * elevation (deg), azimuth (deg) and C/N0 (dB-Hz, empty when NaN) taken from
 * \p observations, the solver's input in the same order as fix.satellites.
 */
std::vector<std::string> nmea_gsv(const gnss_pvt_result& fix,
                                  const std::vector<gnss_pvt_observation>& observations);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_NMEA_H */
