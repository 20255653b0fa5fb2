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
#include <sstream>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr double two_pi = 6.283185307179586476925286766559;

std::string number(double value)
{
    std::ostringstream text;
    text.precision(12);
    text << value;
    return text.str();
}

[[noreturn]] void fail(const std::string& field, const std::string& rule, double value)
{
    throw std::invalid_argument(field + ": must be " + rule + ", got " + number(value));
}

void require_positive(double value, const std::string& field)
{
    if (!std::isfinite(value) || !(value > 0.0))
        fail(field, "finite and > 0", value);
}

void require_finite(double value, const std::string& field)
{
    if (!std::isfinite(value))
        fail(field, "finite", value);
}

void require_non_negative(double value, const std::string& field)
{
    if (!std::isfinite(value) || value < 0.0)
        fail(field, "finite and >= 0", value);
}

std::uint64_t fnv1a(const std::vector<std::int8_t>& table)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::int8_t v : table) {
        h ^= static_cast<std::uint8_t>(v);
        h *= 0x100000001b3ull;
    }
    return h ^ table.size();
}

// Largest E / step the engine allows: epoch sample counts must fit an int32.
constexpr std::uint64_t max_epoch_samples = (std::uint64_t(1) << 31) - 1;

} // namespace

// ------------------------------------------------------------------------------------
// Formats and validation
// ------------------------------------------------------------------------------------

gnss_sample_format parse_gnss_sample_format(const std::string& name,
                                            const std::string& parameter_name)
{
    if (name == "cf32")
        return gnss_sample_format::cf32;
    if (name == "ci16")
        return gnss_sample_format::ci16;
    if (name == "ci8")
        return gnss_sample_format::ci8;
    throw std::invalid_argument(
        parameter_name + ": must be \"cf32\", \"ci16\" or \"ci8\", got \"" + name + "\"");
}

std::string to_string(gnss_sample_format format)
{
    switch (format) {
    case gnss_sample_format::ci16:
        return "ci16";
    case gnss_sample_format::ci8:
        return "ci8";
    default:
        return "cf32";
    }
}

std::size_t bytes_per_sample(gnss_sample_format format)
{
    switch (format) {
    case gnss_sample_format::ci16:
        return 4;
    case gnss_sample_format::ci8:
        return 2;
    default:
        return 8;
    }
}

void multichannel_correlator_config::validate() const
{
    if (!(sample_rate_hz > 0.0 && sample_rate_hz <= gnss_max_sample_rate_hz))
        fail("sample_rate_hz",
             "> 0 and at most 2^32 = 4294967296 (the carrier NCO's resolution, "
             "sample_rate_hz / 2^32, within 1 Hz)",
             sample_rate_hz);
    if (input_format != gnss_sample_format::cf32 &&
        input_format != gnss_sample_format::ci16 &&
        input_format != gnss_sample_format::ci8)
        throw std::invalid_argument("input_format: must be cf32, ci16 or ci8");
    if (taps < 1 || taps > gnss_max_taps)
        throw std::invalid_argument("taps: must be 1 to " +
                                    std::to_string(gnss_max_taps) + ", got " +
                                    std::to_string(taps));
    if (max_channels < 1)
        throw std::invalid_argument("max_channels: must be >= 1, got 0");
}

void gnss_loop_parameters::validate() const
{
    if (pll_order != 2 && pll_order != 3)
        throw std::invalid_argument("loop.pll_order: must be 2 or 3, got " +
                                    std::to_string(pll_order));
    require_positive(pll_bandwidth_hz, "loop.pll_bandwidth_hz");
    require_non_negative(fll_bandwidth_hz, "loop.fll_bandwidth_hz");
    if (dll_order != 1 && dll_order != 2)
        throw std::invalid_argument("loop.dll_order: must be 1 or 2, got " +
                                    std::to_string(dll_order));
    require_positive(dll_bandwidth_hz, "loop.dll_bandwidth_hz");
    require_non_negative(nominal_carrier_frequency_hz,
                         "loop.nominal_carrier_frequency_hz");
    require_positive(nominal_code_rate_cps, "loop.nominal_code_rate_cps");
    if (cn0_epochs < gnss_min_cn0_epochs || cn0_epochs > gnss_max_cn0_epochs)
        throw std::invalid_argument("loop.cn0_epochs: must be an integer in [" +
                                    std::to_string(gnss_min_cn0_epochs) + ", " +
                                    std::to_string(gnss_max_cn0_epochs) + "], got " +
                                    std::to_string(cn0_epochs));
    if (std::isnan(cn0_lock_threshold_dbhz))
        throw std::invalid_argument("loop.cn0_lock_threshold_dbhz: must not be NaN");
    if (!(carrier_lock_threshold > -1.0 && carrier_lock_threshold < 1.0))
        fail("loop.carrier_lock_threshold", "in (-1, 1)", carrier_lock_threshold);
}

double gnss_correlation_slope_per_chip(const std::vector<std::int8_t>& table,
                                       std::uint32_t entries_per_chip)
{
    long sum = 0;
    const std::size_t n = table.size();
    for (std::size_t i = 0; i < n; ++i)
        sum += table[i] * table[(i + 1) % n];
    const double rho1 = static_cast<double>(sum) / static_cast<double>(n);
    return (1.0 - rho1) * static_cast<double>(entries_per_chip);
}

void gnss_channel::validate(const multichannel_correlator_config& config) const
{
    const double fs = config.sample_rate_hz;
    if (code.empty())
        throw std::invalid_argument("code: must hold at least one entry");
    for (std::size_t i = 0; i < code.size(); ++i)
        if (code[i] != 1 && code[i] != -1)
            throw std::invalid_argument("code: entries must be +1 or -1, entry " +
                                        std::to_string(i) + " is " +
                                        std::to_string(int(code[i])));
    if (code_entries_per_chip < 1 || code.size() % code_entries_per_chip != 0)
        throw std::invalid_argument("code_entries_per_chip: must be >= 1 and divide the "
                                    "code length " +
                                    std::to_string(code.size()) + ", got " +
                                    std::to_string(code_entries_per_chip));
    if (periods_per_integration < 1)
        throw std::invalid_argument("periods_per_integration: must be >= 1, got 0");
    const std::uint64_t entries = code.size();
    if ((std::uint64_t(periods_per_integration) + 1) * entries >=
        (std::uint64_t(1) << 31))
        throw std::invalid_argument(
            "periods_per_integration: (periods_per_integration + 1) * code entries must "
            "be below 2^31, got periods_per_integration " +
            std::to_string(periods_per_integration) + " with " + std::to_string(entries) +
            " entries");
    const double chips = static_cast<double>(entries) / code_entries_per_chip;

    require_positive(code_rate_cps, "code_rate_cps");
    const std::uint64_t step = gnss_code_step(code_rate_cps, code_entries_per_chip, fs);
    const std::uint64_t epoch_length = (std::uint64_t(periods_per_integration) * entries)
                                       << 32;
    if (step < 1 || step >= (entries << 32) || epoch_length / step >= max_epoch_samples)
        throw std::invalid_argument(
            "code_rate_cps: must give between 2^-31 epochs and one code period per "
            "sample at sample_rate_hz " +
            number(fs) + ", got " + number(code_rate_cps));
    if (!std::isfinite(code_phase_chips) || code_phase_chips < 0.0 ||
        code_phase_chips >= chips * periods_per_integration)
        fail("code_phase_chips",
             "in [0, " + number(chips * periods_per_integration) +
                 ") (periods_per_integration code periods)",
             code_phase_chips);

    require_finite(intermediate_frequency_hz, "intermediate_frequency_hz");
    if (std::fabs(intermediate_frequency_hz) >= 0.5 * fs)
        fail("intermediate_frequency_hz",
             "below sample_rate_hz / 2 in magnitude",
             intermediate_frequency_hz);
    require_finite(carrier_frequency_hz, "carrier_frequency_hz");
    if (std::fabs(carrier_frequency_hz) >= 0.5 * fs)
        fail("carrier_frequency_hz",
             "below sample_rate_hz / 2 in magnitude",
             carrier_frequency_hz);
    require_finite(carrier_phase_rad, "carrier_phase_rad");

    if (tap_offsets_chips.size() != config.taps)
        throw std::invalid_argument(
            "tap_offsets_chips: must hold taps = " + std::to_string(config.taps) +
            " offsets, got " + std::to_string(tap_offsets_chips.size()));
    for (std::size_t k = 0; k < tap_offsets_chips.size(); ++k) {
        const double offset = tap_offsets_chips[k];
        if (!std::isfinite(offset) || std::fabs(offset) >= chips)
            fail("tap_offsets_chips[" + std::to_string(k) + "]",
                 "finite and shorter than one code period (" + number(chips) + " chips)",
                 offset);
    }
    for (const auto& [index, name] :
         { std::pair<std::size_t, const char*>{ early_tap, "early_tap" },
           { prompt_tap, "prompt_tap" },
           { late_tap, "late_tap" } })
        if (index >= config.taps)
            throw std::invalid_argument(std::string(name) + ": must be below taps = " +
                                        std::to_string(config.taps) + ", got " +
                                        std::to_string(index));
    if (mode != gnss_channel_mode::open_loop && mode != gnss_channel_mode::tracking)
        throw std::invalid_argument("mode: must be open_loop or tracking");
    loop.validate();
    if (mode == gnss_channel_mode::tracking) {
        const double epoch_s =
            chips * periods_per_integration / loop.nominal_code_rate_cps;
        for (const auto& [bandwidth, name] :
             { std::pair<double, const char*>{ loop.pll_bandwidth_hz,
                                               "loop.pll_bandwidth_hz" },
               { loop.fll_bandwidth_hz, "loop.fll_bandwidth_hz" },
               { loop.dll_bandwidth_hz, "loop.dll_bandwidth_hz" } })
            if (bandwidth * epoch_s > gnss_max_loop_bandwidth_epochs)
                fail(name,
                     "at most " + number(gnss_max_loop_bandwidth_epochs) +
                         " / epoch duration = " +
                         number(gnss_max_loop_bandwidth_epochs / epoch_s) +
                         " Hz (a loop updated once per epoch of " + number(epoch_s) +
                         " s)",
                     bandwidth);
        const double spacing = tap_offsets_chips[late_tap] - tap_offsets_chips[early_tap];
        if (!(spacing > 0.0))
            throw std::invalid_argument(
                "tap_offsets_chips: the early tap (early_tap) must have a smaller offset "
                "than the late tap (late_tap) in tracking mode, got early " +
                number(tap_offsets_chips[early_tap]) + " and late " +
                number(tap_offsets_chips[late_tap]));
        const double slope = gnss_correlation_slope_per_chip(code, code_entries_per_chip);
        if (!(slope * spacing / 2.0 < 1.0))
            throw std::invalid_argument(
                "tap_offsets_chips: early-late spacing " + number(spacing) +
                " chips reaches past this code's correlation peak (half-width " +
                number(1.0 / slope) + " chips); use a spacing below " +
                number(2.0 / slope) + " chips");
        const double nominal = loop.nominal_code_rate_cps;
        if (!(code_rate_cps > 0.5 * nominal && code_rate_cps < 1.5 * nominal))
            fail("code_rate_cps",
                 "within 50% of loop.nominal_code_rate_cps in tracking mode",
                 code_rate_cps);
    }
}

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
        const std::uint64_t lowest = p.epoch_length / max_epoch_samples + 1;
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
