/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_nmea.h"
#include "runtime/printf_text.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

const double pi = 3.14159265358979323846;
const double rad_to_deg = 180.0 / pi;
const double knots_per_m_s = 3600.0 / 1852.0;


//! hhmmss.ss and, for RMC, ddmmyy, of the UTC time.
gnss_calendar_time utc(const gps_time& time, int leap_seconds)
{
    return utc_calendar(time, leap_seconds, 0.01);
}

std::string time_field(const gnss_calendar_time& c)
{
    return printf_text("%02d%02d%05.2f", c.hour, c.minute, c.second);
}

/*!
 * Degrees and minutes, "ddmm.mmmm,N" (or dddmm.mmmm for a longitude): the angle is
 * rounded to 1e-4 minute once, so that 59.99995' becomes the next degree, never 60'.
 */
std::string angle_field(double angle_rad, int degree_digits, char positive, char negative)
{
    const double degrees = angle_rad * rad_to_deg;
    const std::int64_t ten_thousandths = std::llround(std::fabs(degrees) * 60.0 * 1e4);
    const std::int64_t whole_degrees = ten_thousandths / 600000;
    const std::int64_t minutes_e4 = ten_thousandths % 600000;
    return printf_text("%0*lld%02lld.%04lld,%c",
                       degree_digits,
                       static_cast<long long>(whole_degrees),
                       static_cast<long long>(minutes_e4 / 10000),
                       static_cast<long long>(minutes_e4 % 10000),
                       degrees < 0.0 ? negative : positive);
}

std::string position_fields(const gnss_pvt_result& fix)
{
    if (!fix.valid)
        return ",,,";
    return angle_field(fix.geodetic.latitude_rad, 2, 'N', 'S') + "," +
           angle_field(fix.geodetic.longitude_rad, 3, 'E', 'W');
}

bool system_used(const gnss_pvt_result& fix, gnss_system system)
{
    return std::any_of(fix.satellites.begin(), fix.satellites.end(), [=](const auto& s) {
        return s.used && s.system == system;
    });
}

//! GP with GPS alone (or no satellite used), GA with Galileo alone, GN with both.
std::string talker(const gnss_pvt_result& fix)
{
    const bool gps = system_used(fix, gnss_system::gps);
    const bool galileo = system_used(fix, gnss_system::galileo);
    return gps && galileo ? "GN" : (galileo ? "GA" : "GP");
}

} // namespace

std::string nmea_checksum(const std::string& body)
{
    unsigned sum = 0;
    for (char c : body)
        sum ^= static_cast<unsigned char>(c);
    return printf_text("%02X", sum);
}

std::string nmea_sentence(const std::string& body)
{
    return "$" + body + "*" + nmea_checksum(body) + "\r\n";
}

std::string nmea_gga(const gnss_pvt_result& fix, const gps_time& time, int leap_seconds)
{
    std::string body = talker(fix) + "GGA," + time_field(utc(time, leap_seconds)) + "," +
                       position_fields(fix) + "," + (fix.valid ? "1" : "0") + "," +
                       printf_text("%02d", fix.valid ? fix.satellites_used : 0) + ",";
    if (fix.valid)
        body += printf_text("%.1f,%.1f,M,0.0,M,,", fix.dops.hdop, fix.geodetic.height_m);
    else
        body += ",,,,,,";
    return nmea_sentence(body);
}

std::string nmea_rmc(const gnss_pvt_result& fix, const gps_time& time, int leap_seconds)
{
    const gnss_calendar_time c = utc(time, leap_seconds);
    std::string body = talker(fix) + "RMC," + time_field(c) + "," +
                       (fix.valid ? "A" : "V") + "," + position_fields(fix) + ",";
    if (fix.valid && fix.velocity_valid) {
        const gnss_vec3 enu = ecef_to_enu(fix.velocity_m_s, fix.geodetic);
        double course = std::atan2(enu[0], enu[1]) * rad_to_deg;
        if (course < 0.0)
            course += 360.0;
        body +=
            printf_text("%.2f,%.1f,", std::hypot(enu[0], enu[1]) * knots_per_m_s, course);
    } else {
        body += ",,";
    }
    // The mode indicator, then NMEA 4.10's navigational status: V, none given (the
    // receiver has no integrity monitoring to call a fix safe or unsafe).
    body += printf_text("%02d%02d%02d,,,", c.day, c.month, c.year % 100) +
            (fix.valid ? "A" : "N") + ",V";
    return nmea_sentence(body);
}

std::vector<std::string> nmea_gsa(const gnss_pvt_result& fix)
{
    const std::string talker_id = talker(fix);
    std::vector<std::string> sentences;
    for (gnss_system system : { gnss_system::gps, gnss_system::galileo }) {
        // One sentence per system used; GPS's alone when none is.
        const bool wanted =
            system_used(fix, system) || (system == gnss_system::gps && talker_id == "GP");
        if (!wanted)
            continue;
        std::string body = talker_id + "GSA,A," + (fix.valid ? "3" : "1");
        int listed = 0;
        for (const auto& s : fix.satellites)
            if (s.used && s.system == system && listed < 12) {
                body += printf_text(",%02d", s.prn);
                ++listed;
            }
        for (; listed < 12; ++listed)
            body += ",";
        if (fix.valid)
            body += printf_text(
                ",%.1f,%.1f,%.1f", fix.dops.pdop, fix.dops.hdop, fix.dops.vdop);
        else
            body += ",,,";
        // NMEA 4.10's system ID (1 GPS, 3 Galileo), under every talker: it tells the
        // two GNGSA apart, and a 4.10 reader counts on the field.
        body += system == gnss_system::gps ? ",1" : ",3";
        sentences.push_back(nmea_sentence(body));
    }
    return sentences;
}

std::vector<std::string> nmea_gsv(const gnss_pvt_result& fix,
                                  const std::vector<gnss_pvt_observation>& observations)
{
    std::vector<std::string> sentences;
    for (gnss_system system : { gnss_system::gps, gnss_system::galileo }) {
        std::vector<std::string> in_view;
        for (std::size_t i = 0; i < fix.satellites.size(); ++i) {
            const gnss_pvt_satellite& s = fix.satellites[i];
            if (s.system != system || !(s.elevation_rad >= 0.0))
                continue;
            const double cn0 = i < observations.size() ? observations[i].cn0_dbhz : NAN;
            const int azimuth =
                static_cast<int>(std::lround(s.azimuth_rad * rad_to_deg)) % 360;
            in_view.push_back(
                printf_text(",%02d,%02d,%03d,",
                            s.prn,
                            static_cast<int>(std::lround(s.elevation_rad * rad_to_deg)),
                            azimuth) +
                (std::isfinite(cn0)
                     ? printf_text("%02d", static_cast<int>(std::lround(cn0)))
                     : ""));
        }
        if (in_view.empty())
            continue;
        const std::string talker_id = system == gnss_system::gps ? "GP" : "GA";
        // NMEA 4.10's signal ID: 1 GPS L1 C/A, 7 Galileo E1 (B/C).
        const std::string signal_id = system == gnss_system::gps ? ",1" : ",7";
        const std::size_t count = (in_view.size() + 3) / 4;
        for (std::size_t k = 0; k < count; ++k) {
            std::string body = talker_id + "GSV," + std::to_string(count) + "," +
                               std::to_string(k + 1) + "," +
                               printf_text("%02zu", in_view.size());
            for (std::size_t j = 4 * k; j < std::min(in_view.size(), 4 * k + 4); ++j)
                body += in_view[j];
            sentences.push_back(nmea_sentence(body + signal_id));
        }
    }
    return sentences;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
