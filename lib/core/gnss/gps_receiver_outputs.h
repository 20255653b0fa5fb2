/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What the GPS receiver's epochs become in the files of the field, shared by the Python
// writers (gps_receiver_python.cc) and the PVT block: GPS time from the continuous week
// and a time of week that may pass the week's end, the NMEA sentences of an epoch, and
// when the ephemeris a receiver first used was sent. docs/design/gnss_outputs.md.

#ifndef INCLUDED_CUDADSP_CORE_GPS_RECEIVER_OUTPUTS_H
#define INCLUDED_CUDADSP_CORE_GPS_RECEIVER_OUTPUTS_H

#include "gnss/gnss_time.h"
#include "gnss/gps_fix_solver.h"
#include <gnuradio/cudadsp/core/api.h>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*! The GPS time \p seconds after the start of \p week: receiver_time_ms passes a
 *  week's end during a run (gnss_observation_epoch), which carries into the week. */
CUDADSP_CORE_API gps_time gps_time_from_week(int week, double seconds);

/*! The NMEA sentences of one epoch: GGA, RMC, GSA, GSV (GSV's C/N0 from the
 *  observations of the satellites the solver was given, in its order); \p week the GPS
 *  week of its receiver_time_ms. */
CUDADSP_CORE_API std::vector<std::string>
gps_receiver_nmea(const gps_receiver_epoch& epoch, int week, int leap_seconds);

/*!
 * The RINEX "transmission time of message" of an ephemeris first used at receiver
 * time of week \p first_used_s: subframe 3 completes an ephemeris 18 s into its frame
 * (frames start on whole 30 s of GPS time), and the first epoch after it lies a
 * transit time and less than an epoch interval and a processing batch later, well
 * within the frame. So subframe 1 was sent at the frame start before first_used - 18 s.
 */
CUDADSP_CORE_API double gps_ephemeris_transmission_time_s(double first_used_s);

/*!
 * The RINEX transmission time (s of the GST week) of a Galileo ephemeris first used at
 * receiver time of week \p first_used_s. The nominal E1-B sub-frame (30 s from a GST
 * multiple of 30 s) sends words 2 and 4 at 0 to 4 s, 1 and 3 at 20 to 24 s, so words 1
 * to 4 of one IODnav complete 24 s into a sub-frame (2 and 4 received first) or 2 to 4 s
 * into the next (1 and 3 first); the first epoch after lies a transit time and less
 * than an epoch interval and a processing batch (under 6 s together) later. The
 * sub-frame start before first_used - 4 s is then that of a sub-frame that broadcast
 * the batch (the one that completed it, or the one before).
 */
CUDADSP_CORE_API double galileo_ephemeris_transmission_time_s(double first_used_s);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GPS_RECEIVER_OUTPUTS_H */
