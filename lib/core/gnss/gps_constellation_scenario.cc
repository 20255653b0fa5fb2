/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/galileo_ephemeris.h"
#include "gnss/gps_constellation_scenario.h"
#include "gnss/gps_lnav.h"
#include "runtime/quoted_text.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr double two_pi = 6.283185307179586476925286766559;
constexpr double l1_wavelength_m = gps_speed_of_light / gps_l1_frequency_hz;
// Phase tracks are solved every millisecond: a cubic over 1 ms follows a GPS range to
// nanometres, and the light-time solution per entry stays cheap.
constexpr double track_interval_s = 1e-3;
// Central difference step for the range rate: its truncation error (h^2 / 6 times the
// range's third derivative) and rounding (1e-8 m / h) both stay below 1e-5 m/s.
constexpr double range_rate_step_s = 1e-3;
// Upper bound of t_rx - t_sv for any receiver the configuration allows (3 600 km up,
// satellite on its horizon: 0.122 s) with the satellite clock (|af0| < 1 ms).
constexpr double longest_signal_age_s = 0.2;
// Where receivers may be: from below the lowest land to 3 600 km above the Earth.
constexpr double receiver_radius_min_m = 6.3e6;
constexpr double receiver_radius_max_m = 1.0e7;

void require(bool ok, const std::string& field, const std::string& rule, double value)
{
    if (!ok)
        throw std::invalid_argument("gps_constellation_scenario: " + field +
                                    ": must be " + rule + ", got " + number_text(value));
}

void validate_galileo(const gps_scenario_config& config)
{
    require(config.galileo_week >= 0 && config.galileo_week <= 4095,
            "galileo_week",
            "in 0..4095",
            config.galileo_week);
    require(std::isfinite(config.gst_minus_gps_s) &&
                std::fabs(config.gst_minus_gps_s) < 1e-3,
            "gst_minus_gps_s",
            "finite and below 1 ms in magnitude",
            config.gst_minus_gps_s);
    std::set<int> prns;
    for (std::size_t i = 0; i < config.galileo_satellites.size(); ++i) {
        const galileo_scenario_satellite& s = config.galileo_satellites[i];
        const galileo_ephemeris& e = s.message.ephemeris;
        const std::string name = "galileo_satellites[" + std::to_string(i) + "].";
        require(e.svid >= 1 && e.svid <= galileo_e1_prn_count &&
                    prns.insert(e.svid).second,
                name + "message.ephemeris.svid",
                "in 1..50 and not repeated",
                e.svid);
        require(std::isfinite(e.sqrt_a) && e.sqrt_a > 0.0,
                name + "message.ephemeris.sqrt_a",
                "finite and > 0",
                e.sqrt_a);
        require(e.e >= 0.0 && e.e < 1.0, name + "message.ephemeris.e", "in [0, 1)", e.e);
        require(std::isfinite(s.cn0_dbhz) && s.cn0_dbhz <= 120.0,
                name + "cn0_dbhz",
                "finite and <= 120",
                s.cn0_dbhz);
    }
}

void validate(const gps_scenario_config& config)
{
    require(std::isfinite(config.duration_s) && config.duration_s > 0.0,
            "duration_s",
            "finite and > 0",
            config.duration_s);
    require(std::isfinite(config.start_tow_s) && config.start_tow_s >= 1.0 &&
                config.start_tow_s + config.duration_s < gps_week_s,
            "start_tow_s",
            "in [1, 604800 - duration_s) (one GPS week)",
            config.start_tow_s);
    require(std::isfinite(config.elevation_mask_deg) &&
                std::fabs(config.elevation_mask_deg) <= 90.0,
            "elevation_mask_deg",
            "in [-90, 90]",
            config.elevation_mask_deg);
    const gnss_vec3& p = config.receiver.position_m;
    const double radius = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    require(std::isfinite(radius) && radius >= receiver_radius_min_m &&
                radius <= receiver_radius_max_m,
            "receiver.position_m",
            "6300 km to 10000 km from the Earth's centre",
            radius);
    for (double v : config.receiver.velocity_m_s)
        require(std::isfinite(v), "receiver.velocity_m_s", "finite", v);
    for (const double* coefficients : { config.klobuchar.alpha, config.klobuchar.beta })
        for (int k = 0; k < 4; ++k)
            require(std::isfinite(coefficients[k]),
                    coefficients == config.klobuchar.alpha ? "klobuchar.alpha"
                                                           : "klobuchar.beta",
                    "finite",
                    coefficients[k]);
    std::set<int> prns;
    for (std::size_t i = 0; i < config.satellites.size(); ++i) {
        const gps_scenario_satellite& s = config.satellites[i];
        const std::string name = "satellites[" + std::to_string(i) + "].";
        require(s.ephemeris.prn >= 1 && s.ephemeris.prn <= 32 &&
                    prns.insert(s.ephemeris.prn).second,
                name + "ephemeris.prn",
                "in 1..32 and not repeated",
                s.ephemeris.prn);
        require(std::isfinite(s.ephemeris.sqrt_a) && s.ephemeris.sqrt_a > 0.0,
                name + "ephemeris.sqrt_a",
                "finite and > 0",
                s.ephemeris.sqrt_a);
        require(s.ephemeris.e >= 0.0 && s.ephemeris.e < 1.0,
                name + "ephemeris.e",
                "in [0, 1)",
                s.ephemeris.e);
        require(std::isfinite(s.cn0_dbhz) && s.cn0_dbhz <= 120.0,
                name + "cn0_dbhz",
                "finite and <= 120",
                s.cn0_dbhz);
    }
    validate_galileo(config);
}

} // namespace

gps_constellation_scenario::gps_constellation_scenario(const gps_scenario_config& config)
    : d_config((validate(config), config)),
      d_code_reference_tow_s(
          6.0 * std::floor((config.start_tow_s - longest_signal_age_s) / 6.0)),
      d_sources(visible_sources()),
      d_simulator(config.signal, simulated_satellites())
{
}

int gps_constellation_scenario::prn(std::size_t sat) const
{
    return system(sat) == gnss_system::galileo
               ? galileo_satellite(sat).message.ephemeris.svid
               : satellite(sat).ephemeris.prn;
}

const gps_scenario_satellite& gps_constellation_scenario::satellite(std::size_t sat) const
{
    const source& s = d_sources.at(sat);
    if (s.system != gnss_system::gps)
        throw std::out_of_range("gps_constellation_scenario: satellite " +
                                std::to_string(sat) + " is a Galileo satellite");
    return d_config.satellites[s.index];
}

const galileo_scenario_satellite&
gps_constellation_scenario::galileo_satellite(std::size_t sat) const
{
    const source& s = d_sources.at(sat);
    if (s.system != gnss_system::galileo)
        throw std::out_of_range("gps_constellation_scenario: satellite " +
                                std::to_string(sat) + " is a GPS satellite");
    return d_config.galileo_satellites[s.index];
}

std::vector<gps_constellation_scenario::source>
gps_constellation_scenario::visible_sources() const
{
    std::vector<source> in_view;
    const double mask_rad = d_config.elevation_mask_deg * two_pi / 360.0;
    std::vector<source> all;
    for (std::size_t i = 0; i < d_config.satellites.size(); ++i)
        all.push_back({ gnss_system::gps, i });
    for (std::size_t i = 0; i < d_config.galileo_satellites.size(); ++i)
        all.push_back({ gnss_system::galileo, i });
    for (const source& s : all)
        if (solve(s, 0.0).direction.elevation_rad >= mask_rad)
            in_view.push_back(s);
    return in_view;
}

gps_scenario_truth gps_constellation_scenario::solve(const source& satellite,
                                                     double receive_offset_s) const
{
    gps_scenario_truth truth{};
    truth.receive_offset_s = receive_offset_s;
    for (int i = 0; i < 3; ++i) {
        truth.receiver_position_m[i] =
            d_config.receiver.position_m[i] +
            d_config.receiver.velocity_m_s[i] * receive_offset_s;
        truth.receiver_velocity_m_s[i] = d_config.receiver.velocity_m_s[i];
    }
    const gnss_geodetic receiver = ecef_to_geodetic(truth.receiver_position_m);
    const double receive_tow_s = d_config.start_tow_s + receive_offset_s;
    const bool klobuchar = d_config.ionosphere == gnss_ionosphere_model::klobuchar;
    // A Galileo satellite's orbit and clock are given in GST: t_tx + GGTO.
    const bool galileo = satellite.system == gnss_system::galileo;
    const double system_offset_s = galileo ? d_config.gst_minus_gps_s : 0.0;
    const auto state_at = [&](double transmit_tow_s) {
        if (!galileo)
            return gps_satellite_at(d_config.satellites[satellite.index].ephemeris,
                                    transmit_tow_s);
        const galileo_inav_message& m =
            d_config.galileo_satellites[satellite.index].message;
        return galileo_satellite_at(
            m.ephemeris, transmit_tow_s + system_offset_s, m.iono_health.bgd_e1_e5b);
    };

    // Light time by fixed-point iteration: each step shrinks the error by the range
    // rate over c (< 1e-5), so five steps from 75 ms reach the rounding of a double.
    double transit_s = 0.075;
    gps_satellite_state state{};
    for (int step = 0; step < 5; ++step) {
        state = state_at(receive_tow_s - transit_s);
        double position[3] = { state.position[0], state.position[1], state.position[2] };
        gps_earth_rotation_correction(position, transit_s);
        double squared = 0.0;
        for (int i = 0; i < 3; ++i) {
            truth.satellite_position_m[i] = position[i];
            const double d = position[i] - truth.receiver_position_m[i];
            squared += d * d;
        }
        truth.geometric_range_m = std::sqrt(squared);
        truth.direction = azimuth_elevation(
            truth.receiver_position_m, receiver, truth.satellite_position_m);
        truth.ionosphere_m =
            klobuchar ? klobuchar_delay_m(
                            d_config.klobuchar, receiver, truth.direction, receive_tow_s)
                      : 0.0;
        transit_s = (truth.geometric_range_m + truth.ionosphere_m) / gps_speed_of_light;
    }
    truth.transit_s = transit_s;
    truth.transmit_tow_s = receive_tow_s - transit_s;
    truth.satellite_clock_s = state.clock_bias;
    const double clock_m = gps_speed_of_light * (state.clock_bias + system_offset_s);
    truth.pseudorange_m = truth.geometric_range_m + truth.ionosphere_m - clock_m;
    // The carrier is advanced by the ionosphere as much as the code is delayed; it is
    // evaluated at the code's t_tx, which differs from the carrier's by 2 I / c (under
    // 1 us): the satellite moves the range by under 1e-4 m meanwhile.
    truth.carrier_range_m = truth.geometric_range_m - truth.ionosphere_m - clock_m;
    // Differences of small numbers first: t_sv - reference would lose 0.1 ns (3 cm) if
    // formed from seconds of the week.
    truth.code_phase_chips =
        gps_l1ca_chip_rate_cps *
        ((d_config.start_tow_s - d_code_reference_tow_s) + receive_offset_s - transit_s +
         state.clock_bias + system_offset_s);
    return truth;
}

gps_scenario_truth gps_constellation_scenario::truth(std::size_t sat, double n) const
{
    const source& s = d_sources.at(sat);
    const double offset_s = n / d_config.signal.sample_rate_hz;
    gps_scenario_truth truth = solve(s, offset_s);
    truth.range_rate_m_s = (solve(s, offset_s + range_rate_step_s).carrier_range_m -
                            solve(s, offset_s - range_rate_step_s).carrier_range_m) /
                           (2.0 * range_rate_step_s);
    truth.doppler_hz = -truth.range_rate_m_s / l1_wavelength_m;
    return truth;
}

gnss_simulated_satellite
gps_constellation_scenario::simulated(const source& satellite) const
{
    const double last_signal_tow_s = d_config.start_tow_s + d_config.duration_s;
    gnss_simulated_satellite out;
    if (satellite.system == gnss_system::galileo) {
        const galileo_scenario_satellite& s =
            d_config.galileo_satellites[satellite.index];
        const int prn = s.message.ephemeris.svid;
        out.code = boc11_expand(galileo_e1_code(prn, galileo_e1_component::b));
        out.pilot_code = boc11_expand(galileo_e1_code(prn, galileo_e1_component::c));
        out.code_entries_per_chip = 2;
        out.chip_rate_cps = galileo_e1_chip_rate_cps;
        out.cn0_dbhz = s.cn0_dbhz;
        out.code_periods_per_bit = 1;
        // Pages of 2 s from the reference (a multiple of 6 s, so a page start), one
        // past the last GST the signal reaches.
        const int n_pages = static_cast<int>(std::floor(
                                (last_signal_tow_s - d_code_reference_tow_s) / 2.0)) +
                            2;
        const galileo_gst start{ d_config.galileo_week,
                                 static_cast<int>(d_code_reference_tow_s) };
        for (std::uint8_t symbol : galileo_inav_encode(s.message, start, n_pages))
            out.bits.push_back(symbol ? -1 : 1);
        return out;
    }
    const gps_scenario_satellite& s = d_config.satellites[satellite.index];
    const int n_subframes =
        static_cast<int>(std::floor((last_signal_tow_s - d_code_reference_tow_s) / 6.0)) +
        2;
    out.code = gps_l1ca_code(s.ephemeris.prn);
    out.cn0_dbhz = s.cn0_dbhz;
    out.code_periods_per_bit = 20;
    gps_lnav_message message;
    message.ephemeris = s.ephemeris;
    for (int k = 0; k < 4; ++k) {
        message.iono_utc.alpha[k] = d_config.klobuchar.alpha[k];
        message.iono_utc.beta[k] = d_config.klobuchar.beta[k];
    }
    for (std::uint8_t bit :
         gps_lnav_encode(message, static_cast<int>(d_code_reference_tow_s), n_subframes))
        out.bits.push_back(bit ? -1 : 1);
    return out;
}

std::vector<gnss_simulated_satellite>
gps_constellation_scenario::simulated_satellites() const
{
    // Entries past the last sample so that its cubic has neighbours on both sides.
    const std::size_t entries =
        static_cast<std::size_t>(std::ceil(d_config.duration_s / track_interval_s)) + 3;

    std::vector<gnss_simulated_satellite> all;
    for (const source& s : d_sources) {
        gnss_simulated_satellite out = simulated(s);
        out.track.interval_s = track_interval_s;
        const double carrier_range_0_m = solve(s, 0.0).carrier_range_m;
        for (std::size_t k = 0; k < entries; ++k) {
            const gps_scenario_truth truth = solve(s, k * track_interval_s);
            out.track.code_phase_chips.push_back(truth.code_phase_chips);
            out.track.carrier_phase_rad.push_back(
                -two_pi * (truth.carrier_range_m - carrier_range_0_m) / l1_wavelength_m);
        }
        all.push_back(std::move(out));
    }
    return all;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
