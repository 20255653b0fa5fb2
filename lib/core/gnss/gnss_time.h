/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// GPS time as the output files write it: the continuous week number and the seconds of
// the week, the calendar date and time of day in the GPS time scale (RINEX epochs and
// file names) or in UTC (NMEA, GeoJSON: GPS time minus the leap seconds), and the
// resolution of the broadcast 10-bit and 8-bit week numbers. See
// docs/design/gnss_outputs.md.

#ifndef INCLUDED_CUDADSP_CORE_GNSS_TIME_H
#define INCLUDED_CUDADSP_CORE_GNSS_TIME_H

#include <string>

namespace gr {
namespace cudadsp {
namespace core {

//! A GPS time: week counted from 1980-01-06 00:00:00 without rollover, and the
//! seconds of that week, [0, 604800).
struct gps_time {
    int week = 0;
    double seconds_of_week = 0.0;
};

//! A date and a time of day; which time scale it is in is the producer's to say.
struct gnss_calendar_time {
    int year = 1980;
    int month = 1; //!< 1..12
    int day = 6;   //!< 1..31
    int hour = 0;
    int minute = 0;
    double second = 0.0; //!< [0, 60)
};

/*!
 * \brief The calendar date and time of \p t in the GPS time scale (no leap seconds),
 * \p t first rounded to a multiple of \p resolution_s.
 *
 * Rounding first is what lets a writer print the seconds with the resolution's decimals
 * without ever printing 60: the caller passes the resolution of its format (1e-7 s for
 * a RINEX epoch, 0.01 s for NMEA). \p resolution_s must divide one second.
 */
gnss_calendar_time gps_calendar(const gps_time& t, double resolution_s);

//! \brief The UTC date and time of \p t: GPS time minus \p leap_seconds (18 since
//! 2017-01-01), then as gps_calendar().
gnss_calendar_time utc_calendar(const gps_time& t, int leap_seconds, double resolution_s);

//! \brief The UTC time of \p t in ISO 8601 to the millisecond, "2026-12-05T13:02:07.250Z"
//! (the GeoJSON track's and the PVT block's time stamps).
std::string utc_iso8601(const gps_time& t, int leap_seconds);

//! Day of the year, 1 on 1 January.
int day_of_year(const gnss_calendar_time& date);

/*!
 * \brief The continuous week whose low bits are \p truncated_week (the LNAV message's
 * 10-bit WN with \p modulus 1024, or the 8-bit WNt and WN_LSF with \p modulus 256) and
 * which lies nearest \p reference_week (a week known from elsewhere, the first
 * ephemeris's resolved week or the caller's knowledge of the decade).
 */
int gps_resolve_week(int truncated_week, int modulus, int reference_week);

//! GST week 0 is GPS week 1024, 1999-08-22 (Galileo OS SIS ICD 5.1.2).
constexpr int gst_week_zero_gps_week = 1024;

/*!
 * \brief The continuous GPS week of a 12-bit GST week number (I/NAV word 5's or word
 * 6's WN), the one nearest \p reference_week.
 */
int gps_week_of_gst_week(int gst_week, int reference_week);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_TIME_H */
