/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss_channel_pmt.h"
#include "runtime/quoted_text.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

namespace gr {
namespace cudadsp {

namespace {

constexpr double glonass_l1_base_frequency_hz = 1602.0e6;
constexpr double glonass_l1_channel_spacing_hz = 562.5e3;

const std::set<std::string>& known_keys()
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

//! Longest text of a value in an error message.
constexpr std::size_t max_value_text = core::max_quoted_text;

//! A key as the error messages name it: as it is when short and printable, else quoted.
std::string key_name(const std::string& key)
{
    const bool plain =
        key.size() <= max_value_text && std::all_of(key.begin(), key.end(), [](char c) {
            return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
        });
    return plain ? key : core::quoted_text(key);
}

/*!
 * Appends \p value as text to \p out, stopping once out holds more than
 * max_value_text bytes: containers element by element (a long list costs what is
 * shown), nesting beyond gnss_max_pmt_depth shown as "...", so that building the text
 * never recurses deeper than that whatever the value.
 */
void describe(const pmt::pmt_t& value, std::size_t depth, std::string& out)
{
    if (out.size() > max_value_text)
        return;
    if (depth > gnss_max_pmt_depth) {
        out += "...";
        return;
    }
    const auto elements = [&](const char* open, const char* close, auto element) {
        out += open;
        for (std::size_t i = 0; i < pmt::length(value) && out.size() <= max_value_text;
             ++i) {
            if (i > 0)
                out += ' ';
            describe(element(value, i), depth + 1, out);
        }
        out += close;
    };
    if (pmt::is_symbol(value)) {
        out += core::quoted_text(pmt::symbol_to_string(value));
    } else if (pmt::is_null(value)) {
        out += "()";
    } else if (pmt::is_pair(value)) {
        out += '(';
        pmt::pmt_t p = value;
        for (bool first = true; pmt::is_pair(p) && out.size() <= max_value_text;
             p = pmt::cdr(p), first = false) {
            if (!first)
                out += ' ';
            describe(pmt::car(p), depth + 1, out);
        }
        if (!pmt::is_pair(p) && !pmt::is_null(p)) {
            out += " . ";
            describe(p, depth + 1, out);
        }
        out += ')';
    } else if (pmt::is_vector(value)) {
        elements("#(", ")", [](const pmt::pmt_t& v, std::size_t i) {
            return pmt::vector_ref(v, i);
        });
    } else if (pmt::is_tuple(value)) {
        elements("{", "}", [](const pmt::pmt_t& v, std::size_t i) {
            return pmt::tuple_ref(v, i);
        });
    } else if (pmt::is_uniform_vector(value)) {
        out += "a uniform vector of " + std::to_string(pmt::length(value)) + " items";
    } else {
        out += pmt::write_string(value); // an atom: no nesting
    }
}

std::string text_of(const pmt::pmt_t& value)
{
    std::string text;
    describe(value, 0, text);
    if (text.size() > max_value_text)
        text = text.substr(0, max_value_text - 3) + "...";
    return text;
}

/*!
 * Throws naming \p what when \p value nests containers deeper than gnss_max_pmt_depth.
 * Lists are walked along their tails, so only nesting (not length) costs stack.
 */
void check_depth(const pmt::pmt_t& value, std::size_t depth, const std::string& what)
{
    if (depth > gnss_max_pmt_depth)
        throw std::invalid_argument(
            what + ": nested deeper than " + std::to_string(gnss_max_pmt_depth) +
            " levels (a channel list is a list of dicts of numbers, names and lists of "
            "numbers)");
    if (pmt::is_pair(value)) {
        pmt::pmt_t p = value;
        for (; pmt::is_pair(p); p = pmt::cdr(p))
            check_depth(pmt::car(p), depth + 1, what);
        if (!pmt::is_null(p))
            check_depth(p, depth + 1, what);
    } else if (pmt::is_vector(value)) {
        for (std::size_t i = 0; i < pmt::length(value); ++i)
            check_depth(pmt::vector_ref(value, i), depth + 1, what);
    } else if (pmt::is_tuple(value)) {
        for (std::size_t i = 0; i < pmt::length(value); ++i)
            check_depth(pmt::tuple_ref(value, i), depth + 1, what);
    }
}

[[noreturn]] void
bad(const std::string& key, const std::string& rule, const pmt::pmt_t& v)
{
    throw std::invalid_argument(key + ": must be " + rule + ", got " + text_of(v));
}

double number_of(const pmt::pmt_t& v, const std::string& key)
{
    if (pmt::is_integer(v))
        return static_cast<double>(pmt::to_long(v));
    if (pmt::is_uint64(v))
        return static_cast<double>(pmt::to_uint64(v));
    if (pmt::is_real(v))
        return pmt::to_double(v);
    bad(key, "a number", v);
}

//! An integer: PMT integer or uint64, or a real with an integral value (GRC writes 3.0).
std::int64_t integer_of(const pmt::pmt_t& v, const std::string& key)
{
    if (pmt::is_integer(v))
        return pmt::to_long(v);
    if (pmt::is_uint64(v)) {
        const std::uint64_t u = pmt::to_uint64(v);
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            bad(key, "an integer below 2^63", v);
        return static_cast<std::int64_t>(u);
    }
    if (pmt::is_real(v)) {
        const double d = pmt::to_double(v);
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15)
            return static_cast<std::int64_t>(d);
    }
    bad(key, "an integer", v);
}

std::int64_t integer_in(const pmt::pmt_t& v,
                        const std::string& key,
                        std::int64_t lowest,
                        std::int64_t highest)
{
    const std::int64_t i = integer_of(v, key);
    if (i < lowest || i > highest)
        bad(key,
            "an integer in [" + std::to_string(lowest) + ", " + std::to_string(highest) +
                "]",
            v);
    return i;
}

std::string name_of(const pmt::pmt_t& v, const std::string& key)
{
    if (pmt::is_symbol(v))
        return pmt::symbol_to_string(v);
    bad(key, "a string", v);
}

//! Numbers of a PMT list, tuple, vector or numeric uniform vector.
std::vector<double> numbers_of(const pmt::pmt_t& v, const std::string& key)
{
    std::vector<double> out;
    const auto element = [&](const pmt::pmt_t& e, std::size_t i) {
        out.push_back(number_of(e, key + "[" + std::to_string(i) + "]"));
    };
    if (pmt::is_vector(v)) {
        for (std::size_t i = 0; i < pmt::length(v); ++i)
            element(pmt::vector_ref(v, i), i);
    } else if (pmt::is_tuple(v)) {
        for (std::size_t i = 0; i < pmt::length(v); ++i)
            element(pmt::tuple_ref(v, i), i);
    } else if (pmt::is_null(v) || pmt::is_pair(v)) {
        std::size_t i = 0;
        for (pmt::pmt_t p = v; pmt::is_pair(p); p = pmt::cdr(p))
            element(pmt::car(p), i++);
    } else if (pmt::is_f64vector(v)) {
        out = pmt::f64vector_elements(v);
    } else if (pmt::is_f32vector(v)) {
        const auto e = pmt::f32vector_elements(v);
        out.assign(e.begin(), e.end());
    } else if (pmt::is_s32vector(v)) {
        const auto e = pmt::s32vector_elements(v);
        out.assign(e.begin(), e.end());
    } else if (pmt::is_s16vector(v)) {
        const auto e = pmt::s16vector_elements(v);
        out.assign(e.begin(), e.end());
    } else if (pmt::is_s8vector(v)) {
        const auto e = pmt::s8vector_elements(v);
        out.assign(e.begin(), e.end());
    } else if (pmt::is_s64vector(v)) {
        const auto e = pmt::s64vector_elements(v);
        out.assign(e.begin(), e.end());
    } else {
        bad(key, "a list of numbers", v);
    }
    return out;
}

std::vector<std::int8_t> code_of(const pmt::pmt_t& v)
{
    const std::vector<double> values = numbers_of(v, "code");
    std::vector<std::int8_t> code(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i] != 1.0 && values[i] != -1.0)
            throw std::invalid_argument("code: entries must be +1 or -1, entry " +
                                        std::to_string(i) + " is " +
                                        std::to_string(values[i]));
        code[i] = static_cast<std::int8_t>(values[i]);
    }
    return code;
}

//! A PMT dict: a list of (key . value) pairs with symbol keys (a list of dicts is not).
bool looks_like_dict(const pmt::pmt_t& v)
{
    return pmt::is_pair(v) && pmt::is_pair(pmt::car(v)) &&
           pmt::is_symbol(pmt::car(pmt::car(v)));
}

//! GPS codes by PRN, made once: a search grid adds thousands of channels per PRN.
const std::vector<std::int8_t>& cached_gps_l1ca_code(int prn)
{
    static std::mutex mutex;
    static std::map<int, std::vector<std::int8_t>> codes;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = codes.find(prn);
    if (it == codes.end())
        it = codes.emplace(prn, core::gps_l1ca_code(prn)).first;
    return it->second;
}

//! The engine's loop messages name "loop.<field>"; a channel dict has the field flat.
std::string flat_key_message(const std::string& message)
{
    return message.rfind("loop.", 0) == 0 ? message.substr(5) : message;
}

} // namespace

std::string gnss_number_text(double value) { return core::number_text(value, 12); }

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

double gnss_min_epoch_samples(const core::gnss_channel& channel, double sample_rate_hz)
{
    const double chips = static_cast<double>(channel.code.size()) /
                         static_cast<double>(channel.code_entries_per_chip) *
                         static_cast<double>(channel.periods_per_integration);
    double fastest = channel.code_rate_cps;
    if (channel.mode == core::gnss_channel_mode::tracking)
        fastest = std::max(fastest, 1.5 * channel.loop.nominal_code_rate_cps);
    // One sample less than the exact value absorbs the code NCO's rounding.
    return std::max(1.0, std::floor(chips / fastest * sample_rate_hz) - 1.0);
}

std::vector<pmt::pmt_t> gnss_channel_items(const pmt::pmt_t& value,
                                           const std::string& what)
{
    check_depth(value, 0, what);
    std::vector<pmt::pmt_t> items;
    // A dict is itself a list of pairs, told from a list of dicts by its first element.
    if (looks_like_dict(value)) {
        items.push_back(value);
        return items;
    }
    if (pmt::is_vector(value)) {
        for (std::size_t i = 0; i < pmt::length(value); ++i)
            items.push_back(pmt::vector_ref(value, i));
    } else if (pmt::is_tuple(value)) {
        for (std::size_t i = 0; i < pmt::length(value); ++i)
            items.push_back(pmt::tuple_ref(value, i));
    } else if (pmt::is_null(value) || pmt::is_pair(value)) {
        for (pmt::pmt_t p = value; pmt::is_pair(p); p = pmt::cdr(p))
            items.push_back(pmt::car(p));
    } else {
        throw std::invalid_argument(what + ": must be a dict or a list of dicts, got " +
                                    text_of(value));
    }
    return items;
}

namespace {

//! A channel dict's fields by key, read in one walk over the dict.
class channel_fields
{
public:
    explicit channel_fields(const pmt::pmt_t& dict)
    {
        if (pmt::is_null(dict))
            throw std::invalid_argument(
                "id: every channel needs an \"id\", got an empty dict");
        if (!looks_like_dict(dict))
            throw std::invalid_argument(
                "channel: must be a dict with at least \"id\", got " + text_of(dict));
        // One walk over the dict (an association list): a search grid parses thousands
        // of channels, and a dict lookup per key would walk it once per key.
        for (pmt::pmt_t p = dict; pmt::is_pair(p); p = pmt::cdr(p)) {
            const pmt::pmt_t item = pmt::car(p);
            if (!pmt::is_pair(item) || !pmt::is_symbol(pmt::car(item)))
                throw std::invalid_argument("channel: keys must be strings, got " +
                                            text_of(item));
            const std::string key = pmt::symbol_to_string(pmt::car(item));
            if (!known_keys().count(key))
                throw std::invalid_argument(key_name(key) +
                                            ": unknown channel key (see "
                                            "docs/blocks/multichannel_correlator_cc.md)");
            d_fields.emplace(key, pmt::cdr(item)); // the first of equal keys, as dict_ref
        }
    }

    bool has(const char* key) const { return d_fields.count(key) != 0; }
    //! The value of \p key; PMT_NIL when absent.
    pmt::pmt_t get(const char* key) const
    {
        const auto it = d_fields.find(key);
        return it == d_fields.end() ? pmt::PMT_NIL : it->second;
    }
    //! The number at \p key, or \p fallback when absent.
    double number_or(const char* key, double fallback) const
    {
        return has(key) ? number_of(get(key), key) : fallback;
    }

private:
    std::map<std::string, pmt::pmt_t> d_fields;
};

//! The nominal rates of a signal, which the loops and the code-rate default follow.
struct nominal_rates {
    double code_rate_cps = core::gps_l1ca_chip_rate_cps;
    double carrier_frequency_hz = core::gps_l1_frequency_hz;
};

//! "code" (and its entries per chip) as given; the nominal carrier stays GPS L1's.
nominal_rates parse_explicit_code(const channel_fields& f, core::gnss_channel& c)
{
    if (f.has("system") || f.has("prn") || f.has("frequency_number") || f.has("boc"))
        throw std::invalid_argument(
            "code: give either an explicit \"code\" or \"system\" and \"prn\", not "
            "both");
    nominal_rates nominal;
    c.code = code_of(f.get("code"));
    if (f.has("code_entries_per_chip"))
        c.code_entries_per_chip = static_cast<std::uint32_t>(integer_in(
            f.get("code_entries_per_chip"), "code_entries_per_chip", 1, 1 << 20));
    nominal.code_rate_cps = f.number_or("code_rate_cps", nominal.code_rate_cps);
    return nominal;
}

void parse_gps_l1ca(const channel_fields& f, gnss_channel_request& r)
{
    if (!f.has("prn"))
        throw std::invalid_argument("prn: a GPS L1 C/A channel needs \"prn\" (1 "
                                    "to 32), or give an explicit \"code\"");
    r.system = gnss_system_gps_l1ca;
    r.prn = static_cast<int>(integer_in(f.get("prn"), "prn", 1, 32));
    r.channel.code = cached_gps_l1ca_code(r.prn);
}

nominal_rates
parse_galileo_e1(const channel_fields& f, bool pilot, gnss_channel_request& r)
{
    if (!f.has("prn"))
        throw std::invalid_argument("prn: a Galileo E1 channel needs \"prn\" (1 "
                                    "to 50)");
    core::gnss_channel& c = r.channel;
    r.system = pilot ? gnss_system_galileo_e1c : gnss_system_galileo_e1b;
    r.prn =
        static_cast<int>(integer_in(f.get("prn"), "prn", 1, core::galileo_e1_prn_count));
    bool boc = true;
    if (f.has("boc")) {
        if (!pmt::is_bool(f.get("boc")))
            bad("boc", "true or false", f.get("boc"));
        boc = pmt::to_bool(f.get("boc"));
    }
    c.code = core::galileo_e1_code(
        r.prn, pilot ? core::galileo_e1_component::c : core::galileo_e1_component::b);
    // Without the sub-carrier the table is the primary code alone: what a BPSK-like
    // receiver correlates one side lobe with, shifted to 0 Hz.
    if (boc) {
        c.code = core::boc11_expand(c.code);
        c.code_entries_per_chip = 2;
    }
    nominal_rates nominal;
    nominal.code_rate_cps = core::galileo_e1_chip_rate_cps;
    return nominal;
}

nominal_rates parse_glonass_l1of(const channel_fields& f, gnss_channel_request& r)
{
    r.system = gnss_system_glonass_l1of;
    r.prn = f.has("prn") ? static_cast<int>(integer_in(f.get("prn"), "prn", 0, 64)) : 0;
    const std::int64_t k =
        f.has("frequency_number")
            ? integer_in(f.get("frequency_number"), "frequency_number", -7, 6)
            : 0;
    r.channel.code = core::glonass_l1of_code();
    nominal_rates nominal;
    nominal.code_rate_cps = core::glonass_l1of_chip_rate_cps;
    nominal.carrier_frequency_hz =
        glonass_l1_base_frequency_hz + double(k) * glonass_l1_channel_spacing_hz;
    return nominal;
}

//! The code of a "system" (GPS L1 C/A by default) and "prn", and the keys only some
//! systems take.
nominal_rates parse_system_code(const channel_fields& f, gnss_channel_request& r)
{
    const std::string system =
        f.has("system") ? name_of(f.get("system"), "system") : std::string("gps_l1ca");
    if (f.has("code_entries_per_chip"))
        throw std::invalid_argument(
            "code_entries_per_chip: only with an explicit \"code\"");
    nominal_rates nominal;
    if (system == "gps_l1ca") {
        parse_gps_l1ca(f, r);
    } else if (system == "galileo_e1b" || system == "galileo_e1c") {
        nominal = parse_galileo_e1(f, system == "galileo_e1c", r);
    } else if (system == "glonass_l1of") {
        nominal = parse_glonass_l1of(f, r);
    } else {
        throw std::invalid_argument("system: must be \"gps_l1ca\", \"galileo_e1b\", "
                                    "\"galileo_e1c\" or \"glonass_l1of\", got " +
                                    core::quoted_text(system));
    }
    if (f.has("frequency_number") && r.system != gnss_system_glonass_l1of)
        throw std::invalid_argument("frequency_number: only for glonass_l1of");
    if (f.has("boc") && r.system != gnss_system_galileo_e1b &&
        r.system != gnss_system_galileo_e1c)
        throw std::invalid_argument("boc: only for galileo_e1b and galileo_e1c");
    return nominal;
}

//! Carrier: IF + Doppler, or the NCO frequency itself. Returns the Doppler (Hz).
double parse_carrier(const channel_fields& f,
                     const gnss_channel_defaults& defaults,
                     const core::multichannel_correlator_config& config,
                     core::gnss_channel& c)
{
    c.intermediate_frequency_hz =
        f.number_or("intermediate_frequency_hz", defaults.intermediate_frequency_hz);
    if (f.has("doppler_hz") && f.has("carrier_frequency_hz"))
        throw std::invalid_argument("doppler_hz: give doppler_hz or carrier_frequency_hz "
                                    "(= IF + Doppler), not both");
    if (!std::isfinite(c.intermediate_frequency_hz))
        bad("intermediate_frequency_hz", "finite", f.get("intermediate_frequency_hz"));
    // Checked here, before the code rate that follows from the Doppler, so that the
    // message names the key the caller gave.
    const double nyquist = 0.5 * config.sample_rate_hz;
    double doppler_hz = 0.0;
    if (f.has("carrier_frequency_hz")) {
        c.carrier_frequency_hz =
            number_of(f.get("carrier_frequency_hz"), "carrier_frequency_hz");
        if (!(std::fabs(c.carrier_frequency_hz) < nyquist))
            bad("carrier_frequency_hz",
                "finite and below sample_rate_hz / 2 in magnitude",
                f.get("carrier_frequency_hz"));
        doppler_hz = c.carrier_frequency_hz - c.intermediate_frequency_hz;
    } else {
        doppler_hz = f.number_or("doppler_hz", doppler_hz);
        c.carrier_frequency_hz = c.intermediate_frequency_hz + doppler_hz;
        if (!(std::fabs(c.carrier_frequency_hz) < nyquist))
            bad("doppler_hz",
                "finite, with intermediate_frequency_hz + doppler_hz below "
                "sample_rate_hz / 2 in magnitude",
                f.get("doppler_hz"));
    }
    c.carrier_phase_rad = f.number_or("carrier_phase_rad", c.carrier_phase_rad);
    return doppler_hz;
}

//! Loops, from the engine's defaults and the signal's nominal rates.
void parse_loop(const channel_fields& f,
                const nominal_rates& nominal,
                core::gnss_loop_parameters& loop)
{
    loop.nominal_code_rate_cps = nominal.code_rate_cps;
    loop.nominal_carrier_frequency_hz = nominal.carrier_frequency_hz;
    if (f.has("pll_order"))
        loop.pll_order =
            static_cast<int>(integer_in(f.get("pll_order"), "pll_order", 0, 9));
    loop.pll_bandwidth_hz = f.number_or("pll_bandwidth_hz", loop.pll_bandwidth_hz);
    loop.fll_bandwidth_hz = f.number_or("fll_bandwidth_hz", loop.fll_bandwidth_hz);
    if (f.has("dll_order"))
        loop.dll_order =
            static_cast<int>(integer_in(f.get("dll_order"), "dll_order", 0, 9));
    loop.dll_bandwidth_hz = f.number_or("dll_bandwidth_hz", loop.dll_bandwidth_hz);
    loop.nominal_carrier_frequency_hz =
        f.number_or("nominal_carrier_frequency_hz", loop.nominal_carrier_frequency_hz);
    loop.nominal_code_rate_cps =
        f.number_or("nominal_code_rate_cps", loop.nominal_code_rate_cps);
    if (f.has("cn0_epochs"))
        loop.cn0_epochs = static_cast<std::size_t>(integer_in(f.get("cn0_epochs"),
                                                              "cn0_epochs",
                                                              core::gnss_min_cn0_epochs,
                                                              core::gnss_max_cn0_epochs));
    loop.cn0_lock_threshold_dbhz =
        f.number_or("cn0_lock_threshold_dbhz", loop.cn0_lock_threshold_dbhz);
    loop.carrier_lock_threshold =
        f.number_or("carrier_lock_threshold", loop.carrier_lock_threshold);
}

/*!
 * Code rate: given, else the nominal rate with the carrier's Doppler (the code Doppler
 * of the same path delay), which is what an acquisition result needs.
 */
double code_rate_of(const channel_fields& f,
                    const core::gnss_loop_parameters& loop,
                    double doppler_hz)
{
    if (f.has("code_rate_cps"))
        return number_of(f.get("code_rate_cps"), "code_rate_cps");
    return loop.nominal_carrier_frequency_hz > 0.0
               ? loop.nominal_code_rate_cps *
                     (1.0 + doppler_hz / loop.nominal_carrier_frequency_hz)
               : loop.nominal_code_rate_cps;
}

//! Code phase, wrapped into the integration interval (the code is periodic).
void parse_code_phase(const channel_fields& f, core::gnss_channel& c)
{
    if (!f.has("code_phase_chips"))
        return;
    const double phase = number_of(f.get("code_phase_chips"), "code_phase_chips");
    if (!std::isfinite(phase))
        bad("code_phase_chips", "finite", f.get("code_phase_chips"));
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
void parse_taps(const channel_fields& f,
                const gnss_channel_defaults& defaults,
                const core::multichannel_correlator_config& config,
                core::gnss_channel& c)
{
    c.tap_offsets_chips =
        f.has("tap_offsets_chips")
            ? numbers_of(f.get("tap_offsets_chips"), "tap_offsets_chips")
            : defaults.tap_offsets_chips;
    default_gnss_taps(c.tap_offsets_chips, c.early_tap, c.prompt_tap, c.late_tap);
    const auto tap_index = [&](const char* key, std::size_t& index) {
        if (f.has(key))
            index = static_cast<std::size_t>(integer_in(
                f.get(key), key, 0, static_cast<std::int64_t>(config.taps) - 1));
    };
    tap_index("early_tap", c.early_tap);
    tap_index("prompt_tap", c.prompt_tap);
    tap_index("late_tap", c.late_tap);
}

void parse_mode_and_start(const channel_fields& f, core::gnss_channel& c)
{
    if (f.has("mode")) {
        const std::string mode = name_of(f.get("mode"), "mode");
        if (mode == "tracking")
            c.mode = core::gnss_channel_mode::tracking;
        else if (mode == "open_loop")
            c.mode = core::gnss_channel_mode::open_loop;
        else
            throw std::invalid_argument(
                "mode: must be \"tracking\" or \"open_loop\", got " +
                core::quoted_text(mode));
    }
    if (f.has("start_sample")) {
        const pmt::pmt_t v = f.get("start_sample");
        if (pmt::is_symbol(v) && pmt::symbol_to_string(v) == "now")
            c.start_sample = core::gnss_start_now;
        else
            c.start_sample = static_cast<std::uint64_t>(integer_in(
                v, "start_sample", 0, std::numeric_limits<std::int64_t>::max()));
    }
}

} // namespace

gnss_channel_request
parse_gnss_channel(const pmt::pmt_t& dict,
                   const gnss_channel_defaults& defaults,
                   const core::multichannel_correlator_config& config)
{
    check_depth(dict, 0, "channel");
    const channel_fields f(dict);
    gnss_channel_request r;
    core::gnss_channel& c = r.channel;
    if (!f.has("id"))
        throw std::invalid_argument("id: every channel needs an \"id\"");
    c.id = static_cast<std::uint32_t>(
        integer_in(f.get("id"), "id", 0, std::numeric_limits<std::uint32_t>::max()));

    const nominal_rates nominal =
        f.has("code") ? parse_explicit_code(f, c) : parse_system_code(f, r);
    if (f.has("periods_per_integration"))
        c.periods_per_integration = static_cast<std::uint32_t>(integer_in(
            f.get("periods_per_integration"), "periods_per_integration", 1, 1 << 20));
    const double doppler_hz = parse_carrier(f, defaults, config, c);
    parse_loop(f, nominal, c.loop);
    c.code_rate_cps = code_rate_of(f, c.loop, doppler_hz);
    parse_code_phase(f, c);
    parse_taps(f, defaults, config, c);
    parse_mode_and_start(f, c);

    try {
        c.validate(config);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(flat_key_message(e.what()));
    }
    return r;
}

std::vector<std::uint32_t> parse_gnss_channel_ids(const pmt::pmt_t& value, bool& all)
{
    all = false;
    check_depth(value, 0, "remove");
    std::vector<std::uint32_t> ids;
    if (pmt::is_symbol(value)) {
        if (pmt::symbol_to_string(value) == "all") {
            all = true;
            return ids;
        }
        bad("id", "an integer, a dict with \"id\", a list of those or \"all\"", value);
    }
    const auto one = [&](const pmt::pmt_t& item) {
        const pmt::pmt_t id = looks_like_dict(item)
                                  ? pmt::dict_ref(item, pmt::intern("id"), pmt::PMT_NIL)
                                  : item;
        ids.push_back(static_cast<std::uint32_t>(
            integer_in(id, "id", 0, std::numeric_limits<std::uint32_t>::max())));
    };
    if (pmt::is_integer(value) || pmt::is_uint64(value) || pmt::is_real(value)) {
        one(value);
        return ids;
    }
    for (const pmt::pmt_t& item : gnss_channel_items(value, "remove"))
        one(item);
    return ids;
}

} // namespace cudadsp
} // namespace gr
