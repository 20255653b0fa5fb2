/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/multichannel_correlator_cpu.h"
#include "gnss/multichannel_correlator_cuda.h"
#include "gnss/multichannel_correlator_internal.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr double two_pi = 6.283185307179586476925286766559;

std::uint64_t fnv1a(const std::vector<std::int8_t>& table)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::int8_t v : table) {
        h ^= static_cast<std::uint8_t>(v);
        h *= 0x100000001b3ull;
    }
    return h ^ table.size();
}

} // namespace

// ------------------------------------------------------------------------------------
// Channel compilation
// ------------------------------------------------------------------------------------

gnss_code_table gnss_code_table_pool::intern(const std::vector<std::int8_t>& table)
{
    const std::uint64_t key = fnv1a(table);
    auto range = d_tables.equal_range(key);
    for (auto it = range.first; it != range.second;) {
        if (gnss_code_table held = it->second.lock()) {
            if (*held == table)
                return held;
            ++it;
        } else {
            it = d_tables.erase(it);
        }
    }
    auto made = std::make_shared<const std::vector<std::int8_t>>(table);
    d_tables.emplace(key, made);
    return made;
}

gnss_channel_setup make_gnss_channel_setup(const gnss_channel& c,
                                           const multichannel_correlator_config& config,
                                           std::uint64_t next_sample,
                                           gnss_code_table_pool& pool)
{
    const double fs = config.sample_rate_hz;
    const std::uint32_t entries = static_cast<std::uint32_t>(c.code.size());
    const double epc = c.code_entries_per_chip;
    gnss_channel_setup setup;
    setup.code = pool.intern(c.code);

    gnss_channel_params& p = setup.params;
    p = gnss_channel_params{};
    p.channel_id = c.id;
    p.entries = entries;
    p.entries_per_chip = c.code_entries_per_chip;
    p.periods = c.periods_per_integration;
    p.taps = static_cast<std::uint32_t>(config.taps);
    p.early_tap = static_cast<std::uint32_t>(c.early_tap);
    p.prompt_tap = static_cast<std::uint32_t>(c.prompt_tap);
    p.late_tap = static_cast<std::uint32_t>(c.late_tap);
    p.tracking = c.mode == gnss_channel_mode::tracking ? 1u : 0u;
    p.cn0_epochs = static_cast<std::uint32_t>(c.loop.cn0_epochs);
    p.if_step = gnss_carrier_step(c.intermediate_frequency_hz, fs);
    p.epoch_length = (std::uint64_t(p.periods) * entries) << 32;
    p.sample_rate_hz = fs;
    p.intermediate_frequency_hz = c.intermediate_frequency_hz;
    p.max_carrier_offset_hz =
        std::max(0.0, 0.49 * fs - std::fabs(c.intermediate_frequency_hz));
    p.cn0_threshold_dbhz = c.loop.cn0_lock_threshold_dbhz;
    p.carrier_lock_threshold = c.loop.carrier_lock_threshold;

    // Loop coefficients (gnss_tracking.h for the references).
    const gnss_loop_parameters& loop = c.loop;
    p.pll_order = loop.pll_order;
    p.fll_assist = loop.fll_bandwidth_hz > 0.0 ? 1 : 0;
    p.pll_a2 = 1.414;
    p.pll_a3 = 1.1;
    p.pll_b3 = 2.4;
    p.pll_w0 = loop.pll_order == 3 ? loop.pll_bandwidth_hz / 0.7845
                                   : loop.pll_bandwidth_hz / 0.53;
    p.fll_a2 = 1.414;
    p.fll_w0 =
        loop.pll_order == 3 ? loop.fll_bandwidth_hz / 0.53 : loop.fll_bandwidth_hz / 0.25;
    p.dll_order = loop.dll_order;
    p.dll_a2 = 1.414;
    p.dll_w0 =
        loop.dll_order == 2 ? loop.dll_bandwidth_hz / 0.53 : 4.0 * loop.dll_bandwidth_hz;
    p.nominal_code_rate_cps = loop.nominal_code_rate_cps;
    p.code_aiding_ratio =
        loop.nominal_carrier_frequency_hz > 0.0
            ? loop.nominal_code_rate_cps / loop.nominal_carrier_frequency_hz
            : 0.0;
    if (p.tracking) {
        const double spacing =
            c.tap_offsets_chips[c.late_tap] - c.tap_offsets_chips[c.early_tap];
        const double slope =
            gnss_correlation_slope_per_chip(c.code, c.code_entries_per_chip);
        p.dll_chips_per_discriminator = (2.0 - slope * spacing) / (2.0 * slope);
    }

    const std::uint64_t step = gnss_code_step(c.code_rate_cps, epc, fs);
    if (p.tracking) {
        // Guards for the loop-steered code NCO: half to one and a half times the nominal
        // rate, inside what the fixed point allows.
        const std::uint64_t lowest = p.epoch_length / gnss_max_epoch_samples + 1;
        const std::uint64_t highest = (std::uint64_t(entries) << 32) - 1;
        p.code_step_min =
            std::max(lowest, gnss_code_step(0.5 * loop.nominal_code_rate_cps, epc, fs));
        p.code_step_max =
            std::min(highest, gnss_code_step(1.5 * loop.nominal_code_rate_cps, epc, fs));
    } else {
        p.code_step_min = p.code_step_max = step;
    }

    setup.tap_shifts.resize(config.taps);
    for (std::size_t k = 0; k < config.taps; ++k)
        setup.tap_shifts[k] = -std::llround(c.tap_offsets_chips[k] * epc * gnss_fp_one);

    gnss_channel_state& s = setup.state;
    s = gnss_channel_state{};
    s.code_step = step;
    s.carrier_step = gnss_carrier_step(c.carrier_frequency_hz, fs);
    // The phase rounds down so that a phase just below the integration's end stays in it.
    s.code_phase = std::min(
        static_cast<std::uint64_t>(std::floor(c.code_phase_chips * epc * gnss_fp_one)),
        p.epoch_length - 1);
    s.carrier_phase = gnss_carrier_phase_of_rad(c.carrier_phase_rad);
    std::uint64_t start = c.start_sample == gnss_start_now ? next_sample : c.start_sample;
    if (start < next_sample) {
        // Advance both NCOs over the samples already gone, exactly in their units.
        const std::uint64_t gone = next_sample - start;
        const unsigned __int128 code =
            static_cast<unsigned __int128>(s.code_phase) +
            static_cast<unsigned __int128>(gone) * static_cast<unsigned __int128>(step);
        s.code_phase = static_cast<std::uint64_t>(code % p.epoch_length);
        s.carrier_phase +=
            static_cast<std::uint32_t>(gone) * static_cast<std::uint32_t>(s.carrier_step);
        start = next_sample;
    }
    s.epoch = 0;
    s.epoch_start_sample = start;
    s.samples_done = 0;
    s.epoch_samples = static_cast<std::uint32_t>(
        gnss_samples_to_epoch_end(s.code_phase, p.epoch_length, step));

    s.carrier_hz = c.carrier_frequency_hz;
    s.code_rate_cps = c.code_rate_cps;
    const double doppler_hz = c.carrier_frequency_hz - c.intermediate_frequency_hz;
    s.pll_velocity = two_pi * doppler_hz;
    s.pll_acceleration = 0.0;
    // A 2nd-order DLL starts from the given rate: its integrator holds what the aided
    // rate does not explain.
    s.dll_integrator = loop.dll_order == 2
                           ? c.code_rate_cps - gnss_aided_code_rate(p, doppler_hz, 0.0)
                           : 0.0;
    s.cn0_dbhz = std::numeric_limits<double>::quiet_NaN();
    s.carrier_lock = std::numeric_limits<double>::quiet_NaN();
    s.flags = p.tracking ? gnss_flag_tracking : 0u;
    return setup;
}

// ------------------------------------------------------------------------------------
// Engine
// ------------------------------------------------------------------------------------

multichannel_correlator::multichannel_correlator(
    const multichannel_correlator_config& config, const device_selection& device)
    : d_config(config),
      d_device(device),
      d_code_pool(std::make_shared<gnss_code_table_pool>())
{
}

multichannel_correlator::~multichannel_correlator() = default;

void multichannel_correlator::add_channel(const gnss_channel& channel)
{
    if (d_ids.count(channel.id))
        throw std::invalid_argument("id: channel " + std::to_string(channel.id) +
                                    " already exists");
    if (d_ids.size() >= d_config.max_channels)
        throw std::invalid_argument("max_channels: all " +
                                    std::to_string(d_config.max_channels) +
                                    " channels are in use");
    channel.validate(d_config);
    do_add_channel(
        make_gnss_channel_setup(channel, d_config, d_samples_processed, *d_code_pool));
    d_ids.insert(channel.id);
}

void multichannel_correlator::reinit_channel(const gnss_channel& channel)
{
    if (!d_ids.count(channel.id))
        throw std::invalid_argument("id: no channel " + std::to_string(channel.id));
    channel.validate(d_config);
    do_reinit_channel(
        make_gnss_channel_setup(channel, d_config, d_samples_processed, *d_code_pool));
}

void multichannel_correlator::remove_channel(std::uint32_t id)
{
    if (!d_ids.count(id))
        throw std::invalid_argument("id: no channel " + std::to_string(id));
    do_remove_channel(id);
    d_ids.erase(id);
}

void multichannel_correlator::process(const void* samples,
                                      std::size_t nsamples,
                                      gnss_correlator_results& results)
{
    if (!results.records.empty() && results.taps != d_config.taps)
        throw std::invalid_argument(
            "results: holds records of " + std::to_string(results.taps) +
            " taps; this engine has " + std::to_string(d_config.taps));
    results.taps = d_config.taps;
    if (nsamples == 0)
        return;
    if (samples == nullptr)
        throw std::invalid_argument("samples: must not be null");
    do_process(samples, nsamples, results);
    d_samples_processed += nsamples;
}

std::unique_ptr<multichannel_correlator>
multichannel_correlator::make(const multichannel_correlator_config& config)
{
    config.validate();
    const device_selection device = select_device(config.device, "device");
    if (device.backend == backend_kind::cuda)
        return std::make_unique<multichannel_correlator_cuda>(config, device);
    return std::make_unique<multichannel_correlator_cpu>(config, device);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
