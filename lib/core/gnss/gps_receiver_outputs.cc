/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_nmea.h"
#include "gnss/gps_ephemeris.h"
#include "gnss/gps_receiver_outputs.h"
#include <cmath>

namespace gr {
namespace cudadsp {
namespace core {

gps_time gps_time_from_week(int week, double seconds)
{
    const double whole_weeks = std::floor(seconds / gps_week_s);
    return { week + static_cast<int>(whole_weeks), seconds - whole_weeks * gps_week_s };
}

std::vector<std::string>
gps_receiver_nmea(const gps_receiver_epoch& e, int week, int leap_seconds)
{
    const gps_time t = gps_time_from_week(
        week, e.fix.valid ? e.gps_time_of_week_s : e.observations.receiver_time_ms / 1e3);
    std::vector<gnss_pvt_observation> given;
    for (const gnss_pvt_satellite& s : e.fix.satellites) {
        gnss_pvt_observation o;
        o.system = s.system;
        o.prn = s.prn;
        o.cn0_dbhz = NAN;
        for (const gnss_observation& m : e.observations.observations)
            if (m.system == s.system && m.prn == s.prn)
                o.cn0_dbhz = m.cn0_dbhz;
        given.push_back(o);
    }
    std::vector<std::string> out{ nmea_gga(e.fix, t, leap_seconds),
                                  nmea_rmc(e.fix, t, leap_seconds) };
    for (const std::string& s : nmea_gsa(e.fix))
        out.push_back(s);
    for (const std::string& s : nmea_gsv(e.fix, given))
        out.push_back(s);
    return out;
}

double gps_ephemeris_transmission_time_s(double first_used_s)
{
    const double frame_s = 30.0;
    return std::fmod(frame_s * std::floor((first_used_s - 18.0) / frame_s), gps_week_s);
}

double galileo_ephemeris_transmission_time_s(double first_used_s)
{
    const double subframe_s = 30.0;
    return std::fmod(subframe_s * std::floor((first_used_s - 4.0) / subframe_s),
                     gps_week_s);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
