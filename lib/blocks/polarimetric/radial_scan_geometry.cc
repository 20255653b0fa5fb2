/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/polarimetric/radial_scan_geometry.h"
#include "runtime/parameter_checks.h"
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace cudadsp {

namespace {

/*! Summed steps of a turn that reach 360 within this count as a full turn: a scan of
 *  N equal steps of 360/N degrees must close on the N-th radial whatever the rounding
 *  of the steps' sum. */
constexpr double full_turn_slack_deg = 1e-6;

double wrap_360(double degrees)
{
    double wrapped = std::fmod(degrees, 360.0);
    if (wrapped < 0.0)
        wrapped += 360.0;
    // fmod of a tiny negative value plus 360 rounds to 360 itself.
    return wrapped >= 360.0 ? 0.0 : wrapped;
}

//! The shortest signed step from \p from to \p to, degrees in [-180, 180).
double azimuth_step(double from, double to)
{
    return wrap_360(to - from + 180.0) - 180.0;
}

//! Bounds of |azimuth| and |elevation| of the simple scan and of tags, degrees.
constexpr double max_abs_azimuth_deg = 360.0;
constexpr double max_abs_elevation_deg = 90.0;

bool within(double value, double lo, double hi) { return value >= lo && value <= hi; }

} // namespace

void scan_settings::validate(const std::string& prefix) const
{
    // A larger start angle would swamp the turn added to it (1e300 + rate t is 1e300).
    core::require_within(start_azimuth_deg,
                         -max_abs_azimuth_deg,
                         max_abs_azimuth_deg,
                         prefix + "start_azimuth_deg",
                         "degrees",
                         "one turn either way");
    core::require_within(elevation_deg,
                         -max_abs_elevation_deg,
                         max_abs_elevation_deg,
                         prefix + "elevation_deg",
                         "degrees",
                         "nadir to zenith");
    core::require_within(rate_deg_s,
                         0.0,
                         core::max_antenna_rate_deg_s,
                         prefix + "rate_deg_s",
                         "deg/s",
                         "ten turns a second");
}

void radial_scan_geometry::tag_track::add(std::uint64_t pulse, double value)
{
    d_pending.push_back({ pulse, value });
}

std::optional<radial_scan_geometry::tagged_value>
radial_scan_geometry::tag_track::nearest(double centre, std::uint64_t end)
{
    auto distance = [centre](const tagged_value& t) {
        return std::abs(static_cast<double>(t.pulse) - centre);
    };
    std::optional<tagged_value> best = d_passed;
    while (!d_pending.empty() && d_pending.front().pulse < end) {
        const tagged_value tag = d_pending.front();
        d_pending.pop_front();
        if (!best || tag.pulse == best->pulse || distance(tag) < distance(*best))
            best = tag;
        d_passed = tag;
    }
    return best;
}

radial_scan_geometry::radial_scan_geometry(std::size_t pulses_per_radial,
                                           double prt_s,
                                           const scan_settings& settings)
    : d_pulses_per_radial(pulses_per_radial), d_prt_s(prt_s), d_scan(settings)
{
}

bool radial_scan_geometry::add_azimuth(std::uint64_t pulse, double azimuth_deg)
{
    if (!within(azimuth_deg, -max_abs_azimuth_deg, max_abs_azimuth_deg))
        return false;
    d_azimuth.add(pulse, azimuth_deg);
    return true;
}

bool radial_scan_geometry::add_elevation(std::uint64_t pulse, double elevation_deg)
{
    if (!within(elevation_deg, -max_abs_elevation_deg, max_abs_elevation_deg))
        return false;
    d_elevation.add(pulse, elevation_deg);
    return true;
}

bool radial_scan_geometry::add_time(std::uint64_t pulse, double time_s)
{
    // max_time_s itself is out: the end of year 9999 is not in it.
    if (!(time_s >= 0.0 && time_s < max_time_s))
        return false;
    d_time.add(pulse, time_s);
    return true;
}

void radial_scan_geometry::set_scan(const scan_settings& settings)
{
    d_scan = settings;
    d_scan_origin_pending = true;
}

radial_geometry radial_scan_geometry::take_radial(std::uint64_t radial)
{
    const std::uint64_t first_pulse = radial * d_pulses_per_radial;
    const std::uint64_t end_pulse = first_pulse + d_pulses_per_radial;
    const double centre = static_cast<double>(first_pulse) +
                          0.5 * static_cast<double>(d_pulses_per_radial - 1);
    if (d_scan_origin_pending) {
        d_scan_origin_pulse = static_cast<double>(first_pulse);
        d_scan_origin_pending = false;
    }
    auto seconds_from = [&](double pulse) { return (centre - pulse) * d_prt_s; };

    radial_geometry g;
    if (const auto tag = d_azimuth.nearest(centre, end_pulse))
        g.azimuth_deg =
            wrap_360(tag->value + d_scan.rate_deg_s * seconds_from(double(tag->pulse)));
    else
        g.azimuth_deg = wrap_360(d_scan.start_azimuth_deg +
                                 d_scan.rate_deg_s * seconds_from(d_scan_origin_pulse));
    const auto elevation = d_elevation.nearest(centre, end_pulse);
    g.elevation_deg = elevation ? elevation->value : d_scan.elevation_deg;
    const auto time = d_time.nearest(centre, end_pulse);
    g.time_s = time ? time->value + seconds_from(double(time->pulse)) : centre * d_prt_s;

    update_sweep(g.azimuth_deg, g.elevation_deg);
    g.sweep_index = d_sweep_index;
    return g;
}

void radial_scan_geometry::update_sweep(double azimuth_deg, double elevation_deg)
{
    bool new_sweep = false;
    if (d_sweep_started) {
        d_sweep_travel_deg += azimuth_step(d_previous_azimuth_deg, azimuth_deg);
        new_sweep = std::abs(elevation_deg - d_sweep_elevation_deg) >
                        sweep_elevation_tolerance_deg ||
                    std::abs(d_sweep_travel_deg) >= 360.0 - full_turn_slack_deg;
    }
    if (!d_sweep_started || new_sweep) {
        if (d_sweep_started)
            ++d_sweep_index;
        d_sweep_started = true;
        d_sweep_elevation_deg = elevation_deg;
        d_sweep_travel_deg = 0.0;
    }
    d_previous_azimuth_deg = azimuth_deg;
}

} // namespace cudadsp
} // namespace gr
