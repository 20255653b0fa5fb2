/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/quoted_text.h"
#include <gnuradio/cudadsp/core/gnss_channel_description.h>
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/pcps_acquisition.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

gnss_channel_fields::~gnss_channel_fields() = default;

const std::set<std::string>& gnss_channel_keys()
{
    static const std::set<std::string> keys = {
        "id",
        "system",
        "prn",
        "frequency_number",
        "boc",
        "code",
        "code_entries_per_chip",
        "code_rate_cps",
        "code_phase_chips",
        "periods_per_integration",
        "intermediate_frequency_hz",
        "doppler_hz",
        "carrier_frequency_hz",
        "carrier_phase_rad",
        "tap_offsets_chips",
        "early_tap",
        "prompt_tap",
        "late_tap",
        "mode",
        "start_sample",
        "pll_order",
        "pll_bandwidth_hz",
        "fll_bandwidth_hz",
        "dll_order",
        "dll_bandwidth_hz",
        "nominal_carrier_frequency_hz",
        "nominal_code_rate_cps",
        "cn0_epochs",
        "cn0_lock_threshold_dbhz",
        "carrier_lock_threshold",
    };
    return keys;
}

namespace {

//! The checks of one description, with messages that name the key and show its value.
class field_reader
{
public:
    explicit field_reader(const gnss_channel_fields& fields) : d_fields(fields) {}

    bool has(const char* key) const { return d_fields.has(key); }

    [[noreturn]] void bad(const std::string& key, const std::string& rule) const
    {
        throw std::invalid_argument(key + ": must be " + rule + ", got " +
                                    d_fields.value_text(key));
    }

    double number(const char* key) const { return d_fields.number(key); }
    //! The number at \p key, or \p fallback when absent.
    double number_or(const char* key, double fallback) const
    {
        return has(key) ? number(key) : fallback;
    }
    std::int64_t
    integer_in(const char* key, std::int64_t lowest, std::int64_t highest) const
    {
        const std::int64_t i = d_fields.integer(key);
        if (i < lowest || i > highest)
            bad(key,
                "an integer in [" + std::to_string(lowest) + ", " +
                    std::to_string(highest) + "]");
        return i;
    }
    std::string text(const char* key) const { return d_fields.text(key); }
    bool is_text(const char* key) const { return d_fields.is_text(key); }
    bool boolean(const char* key) const { return d_fields.boolean(key); }
    std::vector<double> numbers(const char* key) const { return d_fields.numbers(key); }

    std::vector<std::int8_t> code() const
    {
        const std::vector<double> values = numbers("code");
        std::vector<std::int8_t> code(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (values[i] != 1.0 && values[i] != -1.0)
                throw std::invalid_argument("code: entries must be +1 or -1, entry " +
                                            std::to_string(i) + " is " +
                                            number_text(values[i]));
            code[i] = static_cast<std::int8_t>(values[i]);
        }
        return code;
    }

private:
    const gnss_channel_fields& d_fields;
};

//! GPS codes by PRN, made once: a search grid adds thousands of channels per PRN.
const std::vector<std::int8_t>& cached_gps_l1ca_code(int prn)
{
    static std::mutex mutex;
    static std::map<int, std::vector<std::int8_t>> codes;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = codes.find(prn);
    if (it == codes.end())
        it = codes.emplace(prn, gps_l1ca_code(prn)).first;
    return it->second;
}

//! The engine's loop messages name "loop.<field>"; a description has the field flat.
std::string flat_key_message(const std::string& message)
{
    return message.rfind("loop.", 0) == 0 ? message.substr(5) : message;
}

//! The nominal rates of a signal, which the loops and the code-rate default follow.
struct nominal_rates {
    double code_rate_cps = gps_l1ca_chip_rate_cps;
    double carrier_frequency_hz = gps_l1_frequency_hz;
};

//! "code" (and its entries per chip) as given; the nominal carrier stays GPS L1's.
nominal_rates read_explicit_code(const field_reader& f, gnss_channel& c)
{
    if (f.has("system") || f.has("prn") || f.has("frequency_number") || f.has("boc"))
        throw std::invalid_argument(
            "code: give either an explicit \"code\" or \"system\" and \"prn\", not "
            "both");
    nominal_rates nominal;
    c.code = f.code();
    if (f.has("code_entries_per_chip"))
        c.code_entries_per_chip =
            static_cast<std::uint32_t>(f.integer_in("code_entries_per_chip", 1, 1 << 20));
    nominal.code_rate_cps = f.number_or("code_rate_cps", nominal.code_rate_cps);
    return nominal;
}

void read_gps_l1ca(const field_reader& f, gnss_channel_request& r)
{
    if (!f.has("prn"))
        throw std::invalid_argument("prn: a GPS L1 C/A channel needs \"prn\" (1 "
                                    "to 32), or give an explicit \"code\"");
    r.system = gnss_system_gps_l1ca;
    r.prn = static_cast<int>(f.integer_in("prn", 1, 32));
    r.channel.code = cached_gps_l1ca_code(r.prn);
}

nominal_rates read_galileo_e1(const field_reader& f, bool pilot, gnss_channel_request& r)
{
    if (!f.has("prn"))
        throw std::invalid_argument("prn: a Galileo E1 channel needs \"prn\" (1 "
                                    "to 50)");
    gnss_channel& c = r.channel;
    r.system = pilot ? gnss_system_galileo_e1c : gnss_system_galileo_e1b;
    r.prn = static_cast<int>(f.integer_in("prn", 1, galileo_e1_prn_count));
    const bool boc = f.has("boc") ? f.boolean("boc") : true;
    c.code =
        galileo_e1_code(r.prn, pilot ? galileo_e1_component::c : galileo_e1_component::b);
    // Without the sub-carrier the table is the primary code alone: what a BPSK-like
    // receiver correlates one side lobe with, shifted to 0 Hz.
    if (boc) {
        c.code = boc11_expand(c.code);
        c.code_entries_per_chip = 2;
    }
    nominal_rates nominal;
    nominal.code_rate_cps = galileo_e1_chip_rate_cps;
    return nominal;
}

nominal_rates read_glonass_l1of(const field_reader& f, gnss_channel_request& r)
{
    r.system = gnss_system_glonass_l1of;
    r.prn = f.has("prn") ? static_cast<int>(f.integer_in("prn", 0, 64)) : 0;
    const std::int64_t k =
        f.has("frequency_number") ? f.integer_in("frequency_number", -7, 6) : 0;
    r.channel.code = glonass_l1of_code();
    nominal_rates nominal;
    nominal.code_rate_cps = glonass_l1of_chip_rate_cps;
    nominal.carrier_frequency_hz =
        glonass_l1_base_frequency_hz + double(k) * glonass_l1_channel_spacing_hz;
    return nominal;
}

//! The code of a "system" (GPS L1 C/A by default) and "prn", and the keys only some
//! systems take.
nominal_rates read_system_code(const field_reader& f, gnss_channel_request& r)
{
    const std::string system = f.has("system") ? f.text("system") : "gps_l1ca";
    if (f.has("code_entries_per_chip"))
        throw std::invalid_argument(
            "code_entries_per_chip: only with an explicit \"code\"");
    nominal_rates nominal;
    if (system == "gps_l1ca") {
        read_gps_l1ca(f, r);
    } else if (system == "galileo_e1b" || system == "galileo_e1c") {
        nominal = read_galileo_e1(f, system == "galileo_e1c", r);
    } else if (system == "glonass_l1of") {
        nominal = read_glonass_l1of(f, r);
    } else {
        throw std::invalid_argument("system: must be \"gps_l1ca\", \"galileo_e1b\", "
                                    "\"galileo_e1c\" or \"glonass_l1of\", got " +
                                    quoted_text(system));
    }
    if (f.has("frequency_number") && r.system != gnss_system_glonass_l1of)
        throw std::invalid_argument("frequency_number: only for glonass_l1of");
    if (f.has("boc") && r.system != gnss_system_galileo_e1b &&
        r.system != gnss_system_galileo_e1c)
        throw std::invalid_argument("boc: only for galileo_e1b and galileo_e1c");
    return nominal;
}

//! Carrier: IF + Doppler, or the NCO frequency itself. Returns the Doppler (Hz).
double read_carrier(const field_reader& f,
                    const gnss_channel_defaults& defaults,
                    const multichannel_correlator_config& config,
                    gnss_channel& c)
{
    c.intermediate_frequency_hz =
        f.number_or("intermediate_frequency_hz", defaults.intermediate_frequency_hz);
    if (f.has("doppler_hz") && f.has("carrier_frequency_hz"))
        throw std::invalid_argument("doppler_hz: give doppler_hz or carrier_frequency_hz "
                                    "(= IF + Doppler), not both");
    if (!std::isfinite(c.intermediate_frequency_hz))
        f.bad("intermediate_frequency_hz", "finite");
    // Checked here, before the code rate that follows from the Doppler, so that the
    // message names the key the caller gave.
    const double nyquist = 0.5 * config.sample_rate_hz;
    double doppler_hz = 0.0;
    if (f.has("carrier_frequency_hz")) {
        c.carrier_frequency_hz = f.number("carrier_frequency_hz");
        if (!(std::fabs(c.carrier_frequency_hz) < nyquist))
            f.bad("carrier_frequency_hz",
                  "finite and below sample_rate_hz / 2 in magnitude");
        doppler_hz = c.carrier_frequency_hz - c.intermediate_frequency_hz;
    } else {
        doppler_hz = f.number_or("doppler_hz", doppler_hz);
        c.carrier_frequency_hz = c.intermediate_frequency_hz + doppler_hz;
        if (!(std::fabs(c.carrier_frequency_hz) < nyquist))
            f.bad("doppler_hz",
                  "finite, with intermediate_frequency_hz + doppler_hz below "
                  "sample_rate_hz / 2 in magnitude");
    }
    c.carrier_phase_rad = f.number_or("carrier_phase_rad", c.carrier_phase_rad);
    return doppler_hz;
}

//! Loops, from the engine's defaults and the signal's nominal rates.
void read_loop(const field_reader& f,
               const nominal_rates& nominal,
               gnss_loop_parameters& loop)
{
    loop.nominal_code_rate_cps = nominal.code_rate_cps;
    loop.nominal_carrier_frequency_hz = nominal.carrier_frequency_hz;
    if (f.has("pll_order"))
        loop.pll_order = static_cast<int>(f.integer_in("pll_order", 0, 9));
    loop.pll_bandwidth_hz = f.number_or("pll_bandwidth_hz", loop.pll_bandwidth_hz);
    loop.fll_bandwidth_hz = f.number_or("fll_bandwidth_hz", loop.fll_bandwidth_hz);
    if (f.has("dll_order"))
        loop.dll_order = static_cast<int>(f.integer_in("dll_order", 0, 9));
    loop.dll_bandwidth_hz = f.number_or("dll_bandwidth_hz", loop.dll_bandwidth_hz);
    loop.nominal_carrier_frequency_hz =
        f.number_or("nominal_carrier_frequency_hz", loop.nominal_carrier_frequency_hz);
    loop.nominal_code_rate_cps =
        f.number_or("nominal_code_rate_cps", loop.nominal_code_rate_cps);
    if (f.has("cn0_epochs"))
        loop.cn0_epochs = static_cast<std::size_t>(
            f.integer_in("cn0_epochs", gnss_min_cn0_epochs, gnss_max_cn0_epochs));
    loop.cn0_lock_threshold_dbhz =
        f.number_or("cn0_lock_threshold_dbhz", loop.cn0_lock_threshold_dbhz);
    loop.carrier_lock_threshold =
        f.number_or("carrier_lock_threshold", loop.carrier_lock_threshold);
}

/*!
 * Code rate: given, else the nominal rate with the carrier's Doppler (the code Doppler
 * of the same path delay), which is what an acquisition result needs.
 */
double
code_rate_of(const field_reader& f, const gnss_loop_parameters& loop, double doppler_hz)
{
    if (f.has("code_rate_cps"))
        return f.number("code_rate_cps");
    return loop.nominal_carrier_frequency_hz > 0.0
               ? loop.nominal_code_rate_cps *
                     (1.0 + doppler_hz / loop.nominal_carrier_frequency_hz)
               : loop.nominal_code_rate_cps;
}

//! Code phase, wrapped into the integration interval (the code is periodic).
void read_code_phase(const field_reader& f, gnss_channel& c)
{
    if (!f.has("code_phase_chips"))
        return;
    const double phase = f.number("code_phase_chips");
    if (!std::isfinite(phase))
        f.bad("code_phase_chips", "finite");
    const double span =
        static_cast<double>(c.code.size()) /
        static_cast<double>(std::max<std::uint32_t>(c.code_entries_per_chip, 1)) *
        static_cast<double>(c.periods_per_integration);
    double wrapped = std::fmod(phase, span);
    if (wrapped < 0.0)
        wrapped += span;
    // fmod of a tiny negative value plus span can round to span itself.
    c.code_phase_chips = wrapped < span ? wrapped : 0.0;
}

//! Tap offsets and the early, prompt and late taps among them.
void read_taps(const field_reader& f,
               const gnss_channel_defaults& defaults,
               const multichannel_correlator_config& config,
               gnss_channel& c)
{
    c.tap_offsets_chips = f.has("tap_offsets_chips") ? f.numbers("tap_offsets_chips")
                                                     : defaults.tap_offsets_chips;
    default_gnss_taps(c.tap_offsets_chips, c.early_tap, c.prompt_tap, c.late_tap);
    const auto tap_index = [&](const char* key, std::size_t& index) {
        if (f.has(key))
            index = static_cast<std::size_t>(
                f.integer_in(key, 0, static_cast<std::int64_t>(config.taps) - 1));
    };
    tap_index("early_tap", c.early_tap);
    tap_index("prompt_tap", c.prompt_tap);
    tap_index("late_tap", c.late_tap);
}

void read_mode_and_start(const field_reader& f, gnss_channel& c)
{
    if (f.has("mode")) {
        const std::string mode = f.text("mode");
        if (mode == "tracking")
            c.mode = gnss_channel_mode::tracking;
        else if (mode == "open_loop")
            c.mode = gnss_channel_mode::open_loop;
        else
            throw std::invalid_argument(
                "mode: must be \"tracking\" or \"open_loop\", got " + quoted_text(mode));
    }
    if (f.has("start_sample")) {
        if (f.is_text("start_sample")) {
            if (f.text("start_sample") != "now")
                f.bad("start_sample", "\"now\" or an integer");
            c.start_sample = gnss_start_now;
        } else {
            c.start_sample = static_cast<std::uint64_t>(f.integer_in(
                "start_sample", 0, std::numeric_limits<std::int64_t>::max()));
        }
    }
}

} // namespace

gnss_channel_request make_gnss_channel(const gnss_channel_fields& fields,
                                       const gnss_channel_defaults& defaults,
                                       const multichannel_correlator_config& config)
{
    const field_reader f(fields);
    gnss_channel_request r;
    gnss_channel& c = r.channel;
    if (!f.has("id"))
        throw std::invalid_argument("id: every channel needs an \"id\"");
    c.id = static_cast<std::uint32_t>(
        f.integer_in("id", 0, std::numeric_limits<std::uint32_t>::max()));

    const nominal_rates nominal =
        f.has("code") ? read_explicit_code(f, c) : read_system_code(f, r);
    if (f.has("periods_per_integration"))
        c.periods_per_integration = static_cast<std::uint32_t>(
            f.integer_in("periods_per_integration", 1, 1 << 20));
    const double doppler_hz = read_carrier(f, defaults, config, c);
    read_loop(f, nominal, c.loop);
    c.code_rate_cps = code_rate_of(f, c.loop, doppler_hz);
    read_code_phase(f, c);
    read_taps(f, defaults, config, c);
    read_mode_and_start(f, c);

    try {
        c.validate(config);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(flat_key_message(e.what()));
    }
    return r;
}

std::vector<double> gnss_receiver_tap_offsets(acquisition_signal signal)
{
    if (signal == acquisition_signal::galileo_e1)
        return { -0.15, 0.0, 0.15 };
    return { -0.5, 0.0, 0.5 };
}

multichannel_correlator_config
make_correlator_config(double sample_rate_hz,
                       gnss_sample_format input_format,
                       std::size_t max_channels,
                       const std::string& device,
                       const gnss_channel_defaults& defaults)
{
    const std::vector<double>& offsets = defaults.tap_offsets_chips;
    if (offsets.empty() || offsets.size() > gnss_max_taps)
        throw std::invalid_argument(
            "tap_offsets_chips: must hold 1 to " + std::to_string(gnss_max_taps) +
            " offsets (one per tap), got " + std::to_string(offsets.size()));
    multichannel_correlator_config config;
    config.sample_rate_hz = sample_rate_hz;
    config.input_format = input_format;
    config.taps = offsets.size();
    config.max_channels = max_channels;
    config.device = device;
    config.validate();
    // The longest code period a channel can have; each channel allows less.
    constexpr double max_tap_offset_chips = double(1 << 30);
    for (std::size_t k = 0; k < offsets.size(); ++k)
        if (!(std::fabs(offsets[k]) < max_tap_offset_chips))
            throw std::invalid_argument(
                "tap_offsets_chips[" + std::to_string(k) +
                "]: must be finite and below 2^30 chips in magnitude (the longest code "
                "period a channel can have; each channel allows less than its own code "
                "period), got " +
                number_text(offsets[k], 12));
    const double f = defaults.intermediate_frequency_hz;
    if (!std::isfinite(f) || std::fabs(f) >= 0.5 * sample_rate_hz)
        throw std::invalid_argument(
            "intermediate_frequency_hz: must be below sample_rate_hz / 2 in magnitude, "
            "got " +
            number_text(f, 12));
    return config;
}

void default_gnss_taps(const std::vector<double>& offsets,
                       std::size_t& early,
                       std::size_t& prompt,
                       std::size_t& late)
{
    prompt = 0;
    for (std::size_t k = 1; k < offsets.size(); ++k)
        if (std::fabs(offsets[k]) < std::fabs(offsets[prompt]))
            prompt = k;
    early = late = prompt;
    for (std::size_t k = 0; k < offsets.size(); ++k) {
        const double o = offsets[k];
        if (o < offsets[prompt] && (early == prompt || o > offsets[early]))
            early = k;
        if (o > offsets[prompt] && (late == prompt || o < offsets[late]))
            late = k;
    }
}

double gnss_min_epoch_samples(const gnss_channel& channel, double sample_rate_hz)
{
    const double chips = static_cast<double>(channel.code.size()) /
                         static_cast<double>(channel.code_entries_per_chip) *
                         static_cast<double>(channel.periods_per_integration);
    double fastest = channel.code_rate_cps;
    if (channel.mode == gnss_channel_mode::tracking)
        fastest = std::max(fastest, 1.5 * channel.loop.nominal_code_rate_cps);
    // One sample less than the exact value absorbs the code NCO's rounding.
    return std::max(1.0, std::floor(chips / fastest * sample_rate_hz) - 1.0);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
