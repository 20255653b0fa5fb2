/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/gnss/gnss_correlator_messages.h"
#include <gnuradio/cudadsp/multichannel_correlator_cc.h>
#include <limits>
#include <stdexcept>

namespace gr {
namespace cudadsp {

namespace {

//! Refused items of one message that its error names (the rest are counted).
constexpr std::size_t named_refusals = 3;

} // namespace

pmt::pmt_t error_text(const std::string& text)
{
    return pmt::init_u8vector(text.size(),
                              reinterpret_cast<const std::uint8_t*>(text.data()));
}

void refusals::add(std::size_t index, const std::string& text)
{
    if (d_named.size() < named_refusals)
        d_named.emplace_back(index, text);
    ++d_count;
}

void refusals::raise(const char* what, std::size_t items) const
{
    if (items == 1)
        throw std::invalid_argument(d_named.front().second);
    std::string text = std::string(what) + ": " + std::to_string(d_count) + " of " +
                       std::to_string(items) + " " + d_items +
                       " refused, none applied (all or nothing): ";
    for (std::size_t i = 0; i < d_named.size(); ++i)
        text += (i ? "; " : "") + d_items + "[" + std::to_string(d_named[i].first) +
                "]." + d_named[i].second;
    if (d_count > d_named.size())
        text += "; and " + std::to_string(d_count - d_named.size()) + " more";
    throw std::invalid_argument(text);
}

pmt::pmt_t lone_channel_id(const pmt::pmt_t& msg)
{
    pmt::pmt_t id = msg;
    if (pmt::is_dict(msg) && pmt::is_pair(msg) && pmt::is_pair(pmt::car(msg)))
        id = pmt::dict_ref(msg, pmt::intern("id"), pmt::PMT_NIL);
    if (pmt::is_integer(id) && pmt::to_long(id) >= 0 &&
        pmt::to_long(id) <= long(std::numeric_limits<std::uint32_t>::max()))
        return pmt::from_uint64(static_cast<std::uint64_t>(pmt::to_long(id)));
    if (pmt::is_uint64(id) &&
        pmt::to_uint64(id) <= std::numeric_limits<std::uint32_t>::max())
        return id;
    return pmt::PMT_NIL;
}

const char* system_name(int system)
{
    switch (system) {
    case gnss_system_gps_l1ca:
        return "gps_l1ca";
    case gnss_system_galileo_e1b:
        return "galileo_e1b";
    case gnss_system_galileo_e1c:
        return "galileo_e1c";
    case gnss_system_glonass_l1of:
        return "glonass_l1of";
    default:
        return "explicit_code";
    }
}

pmt::pmt_t event_dict(const char* event, std::uint32_t id, std::uint64_t sample)
{
    pmt::pmt_t d = pmt::make_dict();
    d = pmt::dict_add(d, pmt::intern("event"), pmt::intern(event));
    d = pmt::dict_add(d, pmt::intern("id"), pmt::from_uint64(id));
    d = pmt::dict_add(d, pmt::intern("sample"), pmt::from_uint64(sample));
    return d;
}

} // namespace cudadsp
} // namespace gr
