/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The multichannel correlator's sample formats and the checks of its configuration and
// channels. Apart from the engine (multichannel_correlator.cc) so that the fuzz target
// of the channel messages (tests/fuzz) compiles them without the backends.

#include "gnss/multichannel_correlator_internal.h"
#include "runtime/parameter_checks.h"
#include "runtime/quoted_text.h"
#include <cmath>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Rates and frequencies in these errors need more than 6 digits (1023000.5 cps).
constexpr int digits = 12;

std::string number(double value) { return number_text(value, digits); }

[[noreturn]] void fail(const std::string& field, const std::string& rule, double value)
{
    parameter_error(field, rule, value, digits);
}

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
    throw std::invalid_argument(parameter_name +
                                ": must be \"cf32\", \"ci16\" or \"ci8\", got " +
                                quoted_text(name));
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
    require_positive(pll_bandwidth_hz, "loop.pll_bandwidth_hz", digits);
    require_non_negative(fll_bandwidth_hz, "loop.fll_bandwidth_hz", digits);
    if (dll_order != 1 && dll_order != 2)
        throw std::invalid_argument("loop.dll_order: must be 1 or 2, got " +
                                    std::to_string(dll_order));
    require_positive(dll_bandwidth_hz, "loop.dll_bandwidth_hz", digits);
    require_non_negative(
        nominal_carrier_frequency_hz, "loop.nominal_carrier_frequency_hz", digits);
    require_positive(nominal_code_rate_cps, "loop.nominal_code_rate_cps", digits);
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

    require_positive(code_rate_cps, "code_rate_cps", digits);
    const std::uint64_t step = gnss_code_step(code_rate_cps, code_entries_per_chip, fs);
    const std::uint64_t epoch_length = (std::uint64_t(periods_per_integration) * entries)
                                       << 32;
    if (step < 1 || step >= (entries << 32) ||
        epoch_length / step >= gnss_max_epoch_samples)
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

    require_finite(intermediate_frequency_hz, "intermediate_frequency_hz", digits);
    if (std::fabs(intermediate_frequency_hz) >= 0.5 * fs)
        fail("intermediate_frequency_hz",
             "below sample_rate_hz / 2 in magnitude",
             intermediate_frequency_hz);
    require_finite(carrier_frequency_hz, "carrier_frequency_hz", digits);
    if (std::fabs(carrier_frequency_hz) >= 0.5 * fs)
        fail("carrier_frequency_hz",
             "below sample_rate_hz / 2 in magnitude",
             carrier_frequency_hz);
    require_finite(carrier_phase_rad, "carrier_phase_rad", digits);

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

} // namespace core
} // namespace cudadsp
} // namespace gr
