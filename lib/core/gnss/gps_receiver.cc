/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gps_receiver.h"
#include "runtime/parameter_checks.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr int min_satellites = 4; // x, y, z and the GPS clock

/*! Half the ephemeris's fit interval (IS-GPS-200 20.3.4.4 and Table 20-XII): 4 hours
 *  for fit interval flag 0; flag 1 means more, of which 6 hours is the shortest. */
double half_fit_interval_s(const gps_ephemeris& e)
{
    return e.fit_interval_flag == 0 ? 2.0 * 3600.0 : 3.0 * 3600.0;
}

std::string prn_text(int prn)
{
    char text[8];
    std::snprintf(text, sizeof text, "G%02d", prn);
    return text;
}

} // namespace

void gps_receiver_config::validate() const
{
    // The observables and the solver check their own configurations when built / run.
    gnss_observables check_observables(observables);
    navigation.validate();
    if (prompt_tap >= gnss_max_taps) {
        parameter_error("prompt_tap",
                        "a tap index below " + std::to_string(gnss_max_taps),
                        static_cast<double>(prompt_tap));
    }
}

gps_receiver::gps_receiver(const gps_receiver_config& config)
    : d_config(config),
      d_observables(config.observables),
      d_has_iono_utc(config.has_iono_utc),
      d_iono_utc(config.iono_utc)
{
    config.validate();
}

void gps_receiver::assign_channel(std::uint32_t channel_id, int prn)
{
    d_channels.erase(channel_id);
    d_channels.emplace(channel_id,
                       channel_slot{ gps_navigation_channel(prn, d_config.navigation) });
}

void gps_receiver::release_channel(std::uint32_t channel_id)
{
    d_channels.erase(channel_id);
}

const gps_navigation_channel* gps_receiver::channel(std::uint32_t channel_id) const
{
    const auto it = d_channels.find(channel_id);
    return it == d_channels.end() ? nullptr : &it->second.navigation;
}

std::vector<gps_receiver_epoch>
gps_receiver::process(const gnss_correlator_results& results,
                      std::uint64_t complete_through_sample)
{
    if (!results.records.empty() && results.taps <= d_config.prompt_tap) {
        throw std::invalid_argument(
            "gps_receiver: results have " + std::to_string(results.taps) +
            " taps, the prompt is tap " + std::to_string(d_config.prompt_tap));
    }
    // A call's records come by channel; taken in order of their end across channels,
    // each epoch is formed as soon as every channel's states around it are in, and it
    // sees only the navigation data decoded by then.
    std::vector<std::size_t> order(results.records.size());
    std::iota(order.begin(), order.end(), std::size_t{ 0 });
    const auto end_of = [&results](std::size_t i) {
        return results.records[i].start_sample + results.records[i].sample_count;
    };
    std::stable_sort(order.begin(), order.end(), [&end_of](std::size_t a, std::size_t b) {
        return end_of(a) < end_of(b);
    });

    std::vector<gps_receiver_epoch> epochs;
    const auto form_epochs = [this, &epochs](std::uint64_t through) {
        for (gnss_observation_epoch& e : d_observables.epochs_through(through)) {
            d_epochs_formed = true;
            epochs.push_back(solve(std::move(e)));
        }
    };
    for (std::size_t i : order) {
        const gnss_epoch_record& record = results.records[i];
        const auto it = d_channels.find(record.channel_id);
        if (it == d_channels.end()) {
            throw std::invalid_argument("gps_receiver: a record of channel " +
                                        std::to_string(record.channel_id) +
                                        ", which has no PRN assigned");
        }
        channel_slot& slot = it->second;
        gnss_channel_epoch state;
        if (slot.navigation.push(
                record, results.taps_of(i)[d_config.prompt_tap], state)) {
            d_observables.add(state);
        }
        take_navigation_data(slot);
        form_epochs(end_of(i));
    }
    form_epochs(complete_through_sample);
    return epochs;
}

void gps_receiver::take_navigation_data(channel_slot& slot)
{
    const gps_lnav_counters counters = slot.navigation.lnav_counters();
    const gps_lnav_decoder& decoder = slot.navigation.decoder();
    if (counters.ephemerides != slot.ephemerides_taken) {
        slot.ephemerides_taken = counters.ephemerides;
        d_ephemerides[slot.navigation.prn()] = decoder.ephemeris();
    }
    if (counters.iono_utc_pages != slot.iono_utc_pages_taken) {
        slot.iono_utc_pages_taken = counters.iono_utc_pages;
        d_iono_utc = decoder.iono_utc();
        d_has_iono_utc = true;
    }
}

gps_receiver_epoch gps_receiver::solve(gnss_observation_epoch observations) const
{
    gps_receiver_epoch out;
    out.observations = std::move(observations);
    const double receive_s = static_cast<double>(out.observations.receiver_time_ms) / 1e3;
    const double wavelength_m = gnss_speed_of_light_m_s / gps_l1_frequency_hz;

    std::vector<gnss_pvt_observation> inputs;
    for (const gnss_observation& o : out.observations.observations) {
        const auto it = d_ephemerides.find(o.prn);
        if (it == d_ephemerides.end()) {
            out.excluded.push_back({ o.prn, "no ephemeris yet" });
            continue;
        }
        const gps_ephemeris& e = it->second;
        if (e.health != 0) {
            out.excluded.push_back(
                { o.prn, "unhealthy (SV health " + std::to_string(e.health) + ")" });
            continue;
        }
        // The pseudorange is c (receiver time - satellite clock reading at
        // transmission): the reading is exact whatever the receiver clock's error, and
        // the satellite's clock correction turns it into GPS time (IS-GPS-200
        // 20.3.3.3.3.1, evaluated at the reading as the ICD allows).
        const double sent_sv_s = receive_s - o.pseudorange_m / gnss_speed_of_light_m_s;
        const double sent_s = sent_sv_s - gps_satellite_at(e, sent_sv_s).clock_bias;
        const double from_toe_s = gps_time_difference(sent_s, e.toe);
        if (std::fabs(from_toe_s) > half_fit_interval_s(e)) {
            out.excluded.push_back({ o.prn,
                                     "ephemeris outside its fit interval (" +
                                         std::to_string(static_cast<long>(from_toe_s)) +
                                         " s from toe)" });
            continue;
        }
        const gps_satellite_state s = gps_satellite_at(e, sent_s);
        gnss_pvt_observation p;
        p.system = gnss_system::gps;
        p.prn = o.prn;
        p.pseudorange_m = o.pseudorange_m;
        p.pseudorange_rate_m_s = -o.doppler_hz * wavelength_m;
        p.cn0_dbhz = o.cn0_dbhz;
        p.satellite_position_m = { s.position[0], s.position[1], s.position[2] };
        p.satellite_velocity_m_s = { s.velocity[0], s.velocity[1], s.velocity[2] };
        p.satellite_clock_s = s.clock_bias;
        p.satellite_clock_drift = s.clock_drift;
        inputs.push_back(p);
    }

    gnss_pvt_config pvt = d_config.pvt;
    pvt.gps_time_s = std::fmod(receive_s, gps_week_s);
    out.ionosphere_applied =
        pvt.ionosphere == gnss_ionosphere_model::klobuchar && d_has_iono_utc;
    if (out.ionosphere_applied) {
        for (int k = 0; k < 4; ++k) {
            pvt.klobuchar.alpha[k] = d_iono_utc.alpha[k];
            pvt.klobuchar.beta[k] = d_iono_utc.beta[k];
        }
    } else {
        pvt.ionosphere = gnss_ionosphere_model::none;
    }
    // Fewer than four still go to the solver: its reason states the count.
    out.fix = gnss_solve_pvt(inputs, pvt);
    if (out.fix.valid) {
        out.gps_time_of_week_s =
            receive_s - out.fix.clock_bias_s[static_cast<int>(gnss_system::gps)];
    } else {
        out.gps_time_of_week_s = std::numeric_limits<double>::quiet_NaN();
        if (inputs.size() < static_cast<std::size_t>(min_satellites)) {
            for (const gps_receiver_exclusion& x : out.excluded) {
                out.fix.reason += "; " + prn_text(x.prn) + ": " + x.reason;
            }
        }
    }
    return out;
}

std::string gps_receiver::waiting_for() const
{
    if (d_epochs_formed) {
        return "";
    }
    if (d_channels.empty()) {
        return "no channel assigned";
    }
    std::string text;
    for (const auto& entry : d_channels) {
        const gps_navigation_channel& n = entry.second.navigation;
        text +=
            (text.empty() ? "" : "; ") + prn_text(n.prn()) + ": " + to_string(n.stage());
    }
    return text;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
