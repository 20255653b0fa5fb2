/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/gnss/gnss_channel_pmt.h"
#include "runtime/quoted_text.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace gr {
namespace cudadsp {

namespace {

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

//! A PMT dict: a list of (key . value) pairs with symbol keys (a list of dicts is not).
bool looks_like_dict(const pmt::pmt_t& v)
{
    return pmt::is_pair(v) && pmt::is_pair(pmt::car(v)) &&
           pmt::is_symbol(pmt::car(pmt::car(v)));
}

} // namespace

std::string gnss_number_text(double value) { return core::number_text(value, 12); }

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
class pmt_channel_fields : public core::gnss_channel_fields
{
public:
    explicit pmt_channel_fields(const pmt::pmt_t& dict)
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
            if (!core::gnss_channel_keys().count(key))
                throw std::invalid_argument(key_name(key) +
                                            ": unknown channel key (see "
                                            "docs/blocks/multichannel_correlator_cc.md)");
            d_fields.emplace(key, pmt::cdr(item)); // the first of equal keys, as dict_ref
        }
    }

    bool has(const std::string& key) const override { return d_fields.count(key) != 0; }
    double number(const std::string& key) const override
    {
        return number_of(get(key), key);
    }
    std::int64_t integer(const std::string& key) const override
    {
        return integer_of(get(key), key);
    }
    bool is_text(const std::string& key) const override
    {
        return pmt::is_symbol(get(key));
    }
    std::string text(const std::string& key) const override
    {
        return name_of(get(key), key);
    }
    bool boolean(const std::string& key) const override
    {
        if (!pmt::is_bool(get(key)))
            bad(key, "true or false", get(key));
        return pmt::to_bool(get(key));
    }
    std::vector<double> numbers(const std::string& key) const override
    {
        return numbers_of(get(key), key);
    }
    std::string value_text(const std::string& key) const override
    {
        return text_of(get(key));
    }

private:
    //! The value of \p key; PMT_NIL when absent.
    pmt::pmt_t get(const std::string& key) const
    {
        const auto it = d_fields.find(key);
        return it == d_fields.end() ? pmt::PMT_NIL : it->second;
    }

    std::map<std::string, pmt::pmt_t> d_fields;
};

} // namespace

core::gnss_channel_request
parse_gnss_channel(const pmt::pmt_t& dict,
                   const core::gnss_channel_defaults& defaults,
                   const core::multichannel_correlator_config& config)
{
    check_depth(dict, 0, "channel");
    return core::make_gnss_channel(pmt_channel_fields(dict), defaults, config);
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
