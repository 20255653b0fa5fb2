/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_time.h"
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

/*
 * Days since 1970-01-01 of a proleptic Gregorian date, and its inverse: H. Hinnant's
 * "chrono-compatible low-level date algorithms" (days_from_civil, civil_from_days),
 * exact for any date in integer arithmetic.
 */
std::int64_t days_from_civil(std::int64_t y, int m, int d)
{
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const std::int64_t yoe = y - era * 400;
    const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void civil_from_days(std::int64_t z, int& year, int& month, int& day)
{
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const std::int64_t doe = z - era * 146097;
    const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const std::int64_t mp = (5 * doy + 2) / 153;
    day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
    month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
    year = static_cast<int>(yoe + era * 400 + (month <= 2));
}

const std::int64_t gps_epoch_days = days_from_civil(1980, 1, 6);

//! Whole days since the GPS epoch and the seconds of that day, in ticks of the
//! resolution.
gnss_calendar_time calendar_of(int week, double seconds_of_week, double resolution_s)
{
    const std::int64_t ticks_per_second = std::llround(1.0 / resolution_s);
    const std::int64_t ticks_per_day = 86400 * ticks_per_second;
    const std::int64_t ticks =
        static_cast<std::int64_t>(week) * 7 * ticks_per_day +
        std::llround(seconds_of_week * static_cast<double>(ticks_per_second));
    std::int64_t days = ticks / ticks_per_day;
    std::int64_t of_day = ticks % ticks_per_day;
    if (of_day < 0) {
        of_day += ticks_per_day;
        --days;
    }
    gnss_calendar_time c;
    civil_from_days(gps_epoch_days + days, c.year, c.month, c.day);
    const std::int64_t whole_seconds = of_day / ticks_per_second;
    c.hour = static_cast<int>(whole_seconds / 3600);
    c.minute = static_cast<int>(whole_seconds / 60 % 60);
    c.second = static_cast<double>(whole_seconds % 60) +
               static_cast<double>(of_day % ticks_per_second) /
                   static_cast<double>(ticks_per_second);
    return c;
}

} // namespace

gnss_calendar_time gps_calendar(const gps_time& t, double resolution_s)
{
    return calendar_of(t.week, t.seconds_of_week, resolution_s);
}

gnss_calendar_time utc_calendar(const gps_time& t, int leap_seconds, double resolution_s)
{
    return calendar_of(t.week, t.seconds_of_week - leap_seconds, resolution_s);
}

std::string utc_iso8601(const gps_time& t, int leap_seconds)
{
    const gnss_calendar_time c = utc_calendar(t, leap_seconds, 1e-3);
    char text[40];
    std::snprintf(text,
                  sizeof text,
                  "%04d-%02d-%02dT%02d:%02d:%06.3fZ",
                  c.year,
                  c.month,
                  c.day,
                  c.hour,
                  c.minute,
                  c.second);
    return text;
}

int day_of_year(const gnss_calendar_time& date)
{
    return static_cast<int>(days_from_civil(date.year, date.month, date.day) -
                            days_from_civil(date.year, 1, 1)) +
           1;
}

int gps_resolve_week(int truncated_week, int modulus, int reference_week)
{
    const int low = ((truncated_week % modulus) + modulus) % modulus;
    int week = reference_week - ((reference_week % modulus) + modulus) % modulus + low;
    if (week - reference_week > modulus / 2)
        week -= modulus;
    else if (reference_week - week > modulus / 2)
        week += modulus;
    return week;
}

int gps_week_of_gst_week(int gst_week, int reference_week)
{
    return gps_resolve_week(gst_week + gst_week_zero_gps_week, 4096, reference_week);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
