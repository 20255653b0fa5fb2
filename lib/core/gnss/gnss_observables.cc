/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_geodesy.h"
#include "gnss/gnss_observables.h"
#include "runtime/parameter_checks.h"
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

gnss_channel_epoch channel_epoch_of(const gnss_epoch_record& record,
                                    gnss_system system,
                                    int prn,
                                    int mark_tow_s,
                                    std::uint64_t mark_epoch,
                                    int bit_polarity)
{
    gnss_channel_epoch state;
    state.system = system;
    state.prn = prn;
    state.sample_index = record.start_sample + record.sample_count;
    state.subframe_start_tow_s = mark_tow_s;
    state.code_periods_since_subframe_start = record.epoch + 1 - mark_epoch;
    state.code_phase_chips = record.code_phase_chips;
    state.carrier_cycles = record.carrier_cycles;
    state.doppler_hz = record.doppler_hz;
    state.cn0_dbhz = (record.flags & gnss_flag_cn0_valid)
                         ? static_cast<double>(record.cn0_dbhz)
                         : std::numeric_limits<double>::quiet_NaN();
    state.carrier_lock = (record.flags & gnss_flag_carrier_lock) != 0;
    state.bit_polarity = bit_polarity;
    return state;
}

namespace {

constexpr std::int64_t week_ms = 604800000;

//! Seconds since the subframe start at which the state's signal left the satellite.
double seconds_into_subframe(const gnss_channel_epoch& s)
{
    const gnss_l1_signal signal = gnss_l1_signal_of(s.system);
    return (static_cast<double>(s.code_periods_since_subframe_start) *
                signal.chips_per_period +
            s.code_phase_chips) /
           signal.chip_rate_cps;
}

//! a - b for two millisecond times of week, brought into [-half week, half week).
std::int64_t wrapped_difference_ms(std::int64_t a, std::int64_t b)
{
    std::int64_t d = (a - b) % week_ms;
    if (d >= week_ms / 2)
        d -= week_ms;
    else if (d < -week_ms / 2)
        d += week_ms;
    return d;
}

} // namespace

gnss_l1_signal gnss_l1_signal_of(gnss_system system)
{
    if (system == gnss_system::galileo)
        return { 1.023e6, 4092.0, 1575.42e6 };
    return { 1.023e6, 1023.0, 1575.42e6 };
}

gnss_observables::gnss_observables(const gnss_observables_config& config)
    : d_config(config)
{
    require_positive(config.sample_rate_hz, "sample_rate_hz");
    if (config.interval_ms < 20)
        parameter_error("interval_ms", "at least 20 (50 Hz)", config.interval_ms);
    require_within(
        config.initial_transit_s, 0.0, 0.1, "initial_transit_s", "s", "a transit time");
    require_within(config.max_state_gap_s,
                   1e-3,
                   1.0,
                   "max_state_gap_s",
                   "s",
                   "a few tracking epochs");
}

void gnss_observables::add(const gnss_channel_epoch& state)
{
    channel& ch = d_channels[{ static_cast<int>(state.system), state.prn }];
    if (!ch.states.empty() && state.sample_index <= ch.states.back().sample_index)
        throw std::invalid_argument("gnss_observables: state of PRN " +
                                    std::to_string(state.prn) + " at sample " +
                                    std::to_string(state.sample_index) +
                                    " is not after the channel's last one");
    ch.states.push_back(state);
}

void gnss_observables::set_clock()
{
    double start_sample = 0.0;
    for (const auto& entry : d_channels)
        if (!entry.second.states.empty())
            start_sample =
                std::fmax(start_sample,
                          static_cast<double>(entry.second.states.front().sample_index));
    // The largest transmit time at start_sample, as a subframe start (whole seconds of
    // week) and the seconds after it. Each channel's latest state at or before
    // start_sample is carried forward at one second per second: the error, the
    // Doppler's 3e-6 over at most a gap, is common to all satellites and only moves the
    // clock's starting bias.
    bool found = false;
    std::int64_t latest_tow_s = 0;
    double latest_after_tow_s = 0.0;
    for (const auto& entry : d_channels) {
        const gnss_channel_epoch* at = nullptr;
        for (const auto& s : entry.second.states)
            if (static_cast<double>(s.sample_index) <= start_sample)
                at = &s;
        if (!at)
            continue;
        const double after_tow_s =
            seconds_into_subframe(*at) +
            (start_sample - static_cast<double>(at->sample_index)) /
                d_config.sample_rate_hz;
        const double later_by_s =
            static_cast<double>(wrapped_difference_ms(1000 * at->subframe_start_tow_s,
                                                      1000 * latest_tow_s)) /
                1000.0 +
            after_tow_s - latest_after_tow_s;
        if (!found || later_by_s > 0.0) {
            latest_tow_s = at->subframe_start_tow_s;
            latest_after_tow_s = after_tow_s;
            found = true;
        }
    }
    // Receiver time at start_sample: base_ms + offset_ms. The first epoch is the first
    // multiple of the interval (counted from the week's start) at or after it.
    const std::int64_t base_ms = 1000 * latest_tow_s;
    const double offset_ms = 1000.0 * (latest_after_tow_s + d_config.initial_transit_s);
    const std::int64_t interval = d_config.interval_ms;
    const std::int64_t base_in_interval = base_ms % interval;
    const std::int64_t first_after_base_ms =
        static_cast<std::int64_t>(
            std::ceil((static_cast<double>(base_in_interval) + offset_ms) /
                      static_cast<double>(interval))) *
            interval -
        base_in_interval;
    d_first_epoch_ms = (base_ms + first_after_base_ms) % week_ms;
    d_first_epoch_sample =
        start_sample + (static_cast<double>(first_after_base_ms) - offset_ms) / 1000.0 *
                           d_config.sample_rate_hz;
    d_next_epoch_ms = d_first_epoch_ms;
    d_clock_set = true;
}

bool gnss_observables::observe(const channel_key& key,
                               const channel& ch,
                               double sample,
                               std::int64_t receiver_time_ms,
                               gnss_observation& out) const
{
    const auto& states = ch.states;
    std::size_t j = 0;
    while (j + 1 < states.size() &&
           static_cast<double>(states[j + 1].sample_index) <= sample)
        ++j;
    if (j + 1 >= states.size() || static_cast<double>(states[j].sample_index) > sample)
        return false;
    const gnss_channel_epoch& a = states[j];
    const gnss_channel_epoch& b = states[j + 1];
    const double span = static_cast<double>(b.sample_index - a.sample_index);
    if (span > d_config.max_state_gap_s * d_config.sample_rate_hz)
        return false;
    const double w = (sample - static_cast<double>(a.sample_index)) / span;

    // Transmit time as a's subframe start (whole seconds) plus a fraction: a double time
    // of week would keep only 0.1 ns (3 cm), the fraction keeps well under a micrometre.
    const double b_after_a_s =
        static_cast<double>(wrapped_difference_ms(1000 * b.subframe_start_tow_s,
                                                  1000 * a.subframe_start_tow_s)) /
            1000.0 +
        seconds_into_subframe(b);
    const double a_s = seconds_into_subframe(a);
    const double transmit_fraction_s = a_s + w * (b_after_a_s - a_s);
    const double receiver_after_subframe_s =
        static_cast<double>(
            wrapped_difference_ms(receiver_time_ms, 1000 * a.subframe_start_tow_s)) /
        1000.0;

    out.system = static_cast<gnss_system>(key.first);
    out.prn = key.second;
    out.pseudorange_m =
        gnss_speed_of_light_m_s * (receiver_after_subframe_s - transmit_fraction_s);
    // The NCO's accumulated phase grows with the Doppler, that is as the range shrinks;
    // RINEX's phase grows with the range (3.04 5.2: "the phase changes in the same sense
    // as the range"), so it is the negative. An inverted bit stream means the Costas
    // loop sits half a cycle off.
    const double nco_cycles =
        a.carrier_cycles + w * (b.carrier_cycles - a.carrier_cycles);
    out.carrier_phase_cycles = -nco_cycles + (b.bit_polarity < 0 ? 0.5 : 0.0);
    out.doppler_hz = a.doppler_hz + w * (b.doppler_hz - a.doppler_hz);
    out.cn0_dbhz = a.cn0_dbhz;
    out.lli = b.bit_polarity == 0 ? gnss_lli_half_cycle : 0;
    for (std::size_t k = 0; k <= j + 1; ++k)
        if (static_cast<double>(states[k].sample_index) > ch.previous_epoch_sample &&
            !states[k].carrier_lock)
            out.lli |= gnss_lli_lost_lock;
    return true;
}

std::vector<gnss_observation_epoch>
gnss_observables::epochs_through(std::uint64_t complete_through_sample)
{
    std::vector<gnss_observation_epoch> epochs;
    if (!d_clock_set) {
        bool any = false;
        for (const auto& entry : d_channels)
            any |= !entry.second.states.empty();
        if (!any)
            return epochs;
        set_clock();
    }
    const double margin = d_config.max_state_gap_s * d_config.sample_rate_hz;
    for (;;) {
        const double sample = d_first_epoch_sample +
                              static_cast<double>(d_next_epoch_ms - d_first_epoch_ms) /
                                  1000.0 * d_config.sample_rate_hz;
        if (sample + margin > static_cast<double>(complete_through_sample))
            break;
        gnss_observation_epoch epoch;
        epoch.receiver_time_ms = d_next_epoch_ms;
        epoch.sample_index = sample;
        for (auto& entry : d_channels) {
            gnss_observation o;
            if (observe(entry.first, entry.second, sample, d_next_epoch_ms, o)) {
                epoch.observations.push_back(o);
                entry.second.previous_epoch_sample = sample;
            }
            // States before the one that brackets this epoch serve no later epoch.
            auto& states = entry.second.states;
            while (states.size() > 1 &&
                   static_cast<double>(states[1].sample_index) <= sample)
                states.pop_front();
        }
        d_next_epoch_ms += d_config.interval_ms;
        epochs.push_back(std::move(epoch));
    }
    return epochs;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
