/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Fuzz target: the channel messages of the multichannel correlator blocks
// (lib/blocks/gnss/gnss_channel_pmt.h): gnss_channel_items() and parse_gnss_channel() as
// the "add" and "reinit" ports and add_channels() use them, parse_gnss_channel_ids() as
// "remove" does. The first input byte picks how the PMT is made from the rest:
//   even: pmt::deserialize_str() of the rest (what a ZMQ or socket message source
//         delivers); inputs it refuses are skipped, and so are inputs that would make
//         more elements than they have bytes, and messages of more than max_nodes
//         elements: GNU Radio's deserialiser takes a vector's length field as it is
//         (16 million elements, or 30 GB for a uniform vector, from 25 bytes, which
//         ends an AddressSanitizer run), and a message costs time in proportion to its
//         elements, which is no finding;
//   odd:  a builder that reads the rest as a tree of lists, dicts, vectors, tuples,
//         uniform vectors, improper lists, numbers, booleans and names, so that deep
//         nesting and odd types come quickly.
// A few bytes before the PMT pick the block's configuration (sample rate, taps, IF).
// Besides "no crash, no leak, no hang": only std::invalid_argument is thrown; its text
// starts with the key (or "channel", "add", "remove") it is about, or says the key is
// unknown; it is one line without control bytes and bounded in length, whatever the
// message holds (docs/blocks/multichannel_correlator_cc.md: values are cut at 80
// characters, names quoted with control bytes escaped); an accepted channel is valid
// for the configuration.

#include "blocks/gnss/gnss_channel_pmt.h"
#include "fuzz_check.h"
#include <fuzzer/FuzzedDataProvider.h>
#include <pmt/pmt.h>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gc = gr::cudadsp;
namespace core = gr::cudadsp::core;
using cudadsp_fuzz::require;

namespace {

//! Longest error text: the longest fixed texts with two values of 80 characters.
constexpr std::size_t max_error_text = 512;
//! Containers the builder makes per input, and elements per container: enough for
//! nesting past gnss_max_pmt_depth and lists of several channels, small enough that an
//! input runs in microseconds.
constexpr int max_nodes = 400;
constexpr std::size_t max_elements = 12;

bool is_key_name(const std::string& name)
{
    // "tap_offsets_chips[2]", "prn", "channel": a lower-case identifier, maybe indexed.
    const std::size_t bracket = name.find('[');
    const std::string base = name.substr(0, bracket);
    if (base.empty())
        return false;
    for (const char c : base)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return false;
    return bracket == std::string::npos ||
           (name.back() == ']' && name.size() > bracket + 2);
}

//! A refusal: std::invalid_argument, with a text as the docs promise.
void check_error_text(const std::string& what)
{
    require(what.size() <= max_error_text, "an error text is bounded", what);
    require(cudadsp_fuzz::printable_ascii_controls(what),
            "an error text holds no control byte",
            what);
    const std::size_t colon = what.find(": ");
    require(colon != std::string::npos &&
                (is_key_name(what.substr(0, colon)) ||
                 what.find(": unknown channel key (see") != std::string::npos),
            "an error text starts with the key it is about",
            what);
}

template <class F>
bool accepted(F&& f)
{
    return cudadsp_fuzz::returns_or_refuses<std::invalid_argument>(f, check_error_text);
}

class pmt_builder
{
public:
    explicit pmt_builder(FuzzedDataProvider& in) : d_in(in) {}

    pmt::pmt_t build(std::size_t depth)
    {
        if (d_nodes++ > max_nodes || depth > 3 * gc::gnss_max_pmt_depth ||
            d_in.remaining_bytes() == 0)
            return atom();
        switch (d_in.ConsumeIntegralInRange(0, 9)) {
        case 0:
            return list(depth);
        case 1:
            return dict(depth);
        case 2:
            return vector(depth, max_elements);
        case 3:
            return pmt::to_tuple(vector(depth, 10)); // tuples hold at most 10 elements
        case 4:
            return uniform_vector();
        case 5:
            // An improper list: (a . b).
            return pmt::cons(build(depth + 1), build(depth + 1));
        case 6: {
            // A value wrapped in one-element lists, deeper than any channel needs.
            const int levels = d_in.ConsumeIntegralInRange(1, 24);
            pmt::pmt_t v = build(depth + 1);
            for (int i = 0; i < levels; ++i)
                v = pmt::list1(v);
            return v;
        }
        default:
            return atom();
        }
    }

private:
    pmt::pmt_t list(std::size_t depth)
    {
        const std::size_t n = d_in.ConsumeIntegralInRange<std::size_t>(0, max_elements);
        pmt::pmt_t l = pmt::PMT_NIL;
        for (std::size_t i = 0; i < n; ++i)
            l = pmt::cons(build(depth + 1), l);
        return pmt::reverse(l);
    }

    pmt::pmt_t vector(std::size_t depth, std::size_t most)
    {
        pmt::pmt_t v = pmt::make_vector(d_in.ConsumeIntegralInRange<std::size_t>(0, most),
                                        pmt::PMT_NIL);
        for (std::size_t i = 0; i < pmt::length(v); ++i)
            pmt::vector_set(v, i, build(depth + 1));
        return v;
    }

    pmt::pmt_t dict(std::size_t depth)
    {
        pmt::pmt_t d = pmt::make_dict();
        const std::size_t n = d_in.ConsumeIntegralInRange<std::size_t>(0, max_elements);
        for (std::size_t i = 0; i < n; ++i) {
            // An association list, as pmt::dict_add makes it, but equal keys may come
            // twice (the parser takes the first, as dict_ref does).
            const pmt::pmt_t key = name();
            d = pmt::cons(pmt::cons(key, build(depth + 1)), d);
        }
        return d;
    }

    pmt::pmt_t name()
    {
        // Mostly short names (the fuzzer's dictionary and comparisons supply the keys);
        // at times a long one of one repeated byte, past the 80 characters an error
        // text shows. Names are interned for the life of the process: their variety is
        // bounded so that the run's memory is.
        if (d_in.ConsumeIntegralInRange(0, 15) == 0) {
            static const std::size_t lengths[] = { 79, 81, 300, 5000 };
            return pmt::intern(std::string(lengths[d_in.ConsumeIntegralInRange(0, 3)],
                                           d_in.ConsumeIntegral<char>()));
        }
        return pmt::intern(d_in.ConsumeRandomLengthString(24));
    }

    double number()
    {
        static const double edges[] = { 0.0,  -0.0, 1.0,  -1.0,         2.0,     3.0,
                                        20.0, 32.0, 50.0, 0.5,          -0.5,    1e300,
                                        9e15, 1e6,  2e6,  4294967296.0, 1.023e6, -1e300 };
        if (d_in.ConsumeBool())
            return edges[d_in.ConsumeIntegralInRange<std::size_t>(0,
                                                                  std::size(edges) - 1)];
        return d_in.ConsumeFloatingPoint<double>();
    }

    pmt::pmt_t atom()
    {
        switch (d_in.ConsumeIntegralInRange(0, 7)) {
        case 0:
            return pmt::from_long(d_in.ConsumeIntegralInRange<long>(-70, 70));
        case 1:
            return pmt::from_long(d_in.ConsumeIntegral<long>());
        case 2:
            return pmt::from_uint64(d_in.ConsumeIntegral<std::uint64_t>());
        case 3:
            return pmt::from_double(number());
        case 4:
            return pmt::from_bool(d_in.ConsumeBool());
        case 5:
            return pmt::from_complex(number(), number());
        case 6:
            return name();
        default:
            return pmt::PMT_NIL;
        }
    }

    pmt::pmt_t uniform_vector()
    {
        const std::size_t n = d_in.ConsumeIntegralInRange<std::size_t>(0, 40);
        std::vector<double> v(n);
        for (double& x : v)
            x = d_in.ConsumeBool() ? (d_in.ConsumeBool() ? 1.0 : -1.0) : number();
        switch (d_in.ConsumeIntegralInRange(0, 6)) {
        case 0:
            return pmt::init_f64vector(n, v);
        case 1:
            return pmt::init_f32vector(n, std::vector<float>(v.begin(), v.end()));
        case 2:
            return pmt::init_s8vector(n, narrowed<std::int8_t>(v));
        case 3:
            return pmt::init_s16vector(n, narrowed<std::int16_t>(v));
        case 4:
            return pmt::init_s32vector(n, narrowed<std::int32_t>(v));
        case 5:
            return pmt::init_s64vector(n, narrowed<std::int64_t>(v));
        default:
            return pmt::init_u8vector(n, narrowed<std::uint8_t>(v));
        }
    }

    template <class T>
    static std::vector<T> narrowed(const std::vector<double>& v)
    {
        std::vector<T> out;
        for (const double x : v)
            // Through int64 (modular for unsigned T: -1 gives 255), as NumPy casts.
            out.push_back(std::isfinite(x) && std::fabs(x) < 100.0
                              ? static_cast<T>(static_cast<std::int64_t>(x))
                              : T(1));
        return out;
    }

    FuzzedDataProvider& d_in;
    int d_nodes = 0;
};

/*!
 * True when no vector, tuple or uniform vector tag of GNU Radio's serial format
 * (pmt_serial_tags.h: 0x08, 0x0c with the count after the tag, 0x0a with the count
 * after the tag and the item type) in \p bytes, at any position, is followed by a
 * count above the input's size, or cut off by its end: a conservative filter, not a
 * parser, so every input the deserialiser would blow up is skipped (with some it would
 * not).
 */
bool no_inflated_counts(const std::string& bytes)
{
    const auto count_at = [&](std::size_t i) {
        std::uint64_t n = 0;
        for (std::size_t k = 0; k < 4; ++k)
            n = (n << 8) | static_cast<unsigned char>(bytes[i + k]);
        return n;
    };
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const auto tag = static_cast<unsigned char>(bytes[i]);
        const std::size_t at = tag == 0x08 || tag == 0x0c ? i + 1
                               : tag == 0x0a              ? i + 2
                                                          : 0;
        // A count cut off by the end of the input is read with EOF bytes: as large.
        if (at != 0 && (at + 4 > bytes.size() || count_at(at) > bytes.size()))
            return false;
    }
    return true;
}

//! True when \p value has at most \p budget elements (lists, vectors, tuples and what
//! they hold); stops counting there.
bool at_most(const pmt::pmt_t& value, int& budget)
{
    if (--budget < 0)
        return false;
    if (pmt::is_pair(value)) {
        pmt::pmt_t p = value;
        for (; pmt::is_pair(p) && budget >= 0; p = pmt::cdr(p))
            if (!at_most(pmt::car(p), budget))
                return false;
        return budget >= 0 && at_most(p, budget);
    }
    if (pmt::is_vector(value) || pmt::is_tuple(value)) {
        const std::size_t n = pmt::length(value);
        for (std::size_t i = 0; i < n; ++i)
            if (!at_most(pmt::is_vector(value) ? pmt::vector_ref(value, i)
                                               : pmt::tuple_ref(value, i),
                         budget))
                return false;
    }
    return budget >= 0;
}

core::multichannel_correlator_config config_of(FuzzedDataProvider& in,
                                               gc::core::gnss_channel_defaults& defaults)
{
    static const double rates[] = { 4e6, 2.046e6, 25e6, 1e3, 4294967296.0 };
    core::multichannel_correlator_config config;
    config.sample_rate_hz = rates[in.ConsumeIntegralInRange<std::size_t>(0, 4)];
    config.taps = in.ConsumeIntegralInRange<std::size_t>(1, 5);
    config.max_channels = 64;
    defaults.tap_offsets_chips.clear();
    for (std::size_t k = 0; k < config.taps; ++k)
        defaults.tap_offsets_chips.push_back(0.5 * (double(k) - double(config.taps / 2)));
    defaults.intermediate_frequency_hz = in.ConsumeBool() ? 0.0 : 0.25e6;
    return config;
}

void check_channel(const gc::core::gnss_channel_request& r,
                   const core::multichannel_correlator_config& config)
{
    require(accepted([&] { r.channel.validate(config); }),
            "an accepted channel is valid for the configuration");
    require(r.channel.tap_offsets_chips.size() == config.taps,
            "an accepted channel has one offset per tap");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size < 1)
        return 0;
    FuzzedDataProvider in(data + 1, size - 1);
    gc::core::gnss_channel_defaults defaults;
    const core::multichannel_correlator_config config = config_of(in, defaults);
    pmt::pmt_t message;
    if (data[0] % 2 == 0) {
        const std::string bytes = in.ConsumeRemainingBytesAsString();
        if (!no_inflated_counts(bytes))
            return 0;
        try {
            message = pmt::deserialize_str(bytes);
        } catch (const std::exception&) {
            return 0; // not a serialised PMT: nothing a message port would deliver
        }
        int budget = max_nodes;
        if (!at_most(message, budget))
            return 0;
    } else {
        pmt_builder builder(in);
        message = builder.build(0);
    }

    std::vector<pmt::pmt_t> items;
    if (accepted([&] { items = gc::gnss_channel_items(message, "add"); })) {
        for (const pmt::pmt_t& item : items) {
            gc::core::gnss_channel_request r;
            if (accepted([&] { r = gc::parse_gnss_channel(item, defaults, config); }))
                check_channel(r, config);
        }
    }
    bool all = false;
    std::vector<std::uint32_t> ids;
    if (accepted([&] { ids = gc::parse_gnss_channel_ids(message, all); }))
        require(!all || ids.empty(), "\"all\" comes alone");
    return 0;
}
