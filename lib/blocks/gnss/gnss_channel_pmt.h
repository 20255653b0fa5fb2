/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_GNSS_CHANNEL_PMT_H
#define INCLUDED_CUDADSP_GNSS_CHANNEL_PMT_H

// Channel descriptions of the multichannel correlator blocks as PMT dicts, read through
// core::make_gnss_channel() (its keys, defaults and checks: docs/blocks/
// multichannel_correlator_cc.md), and the lists and "remove" messages that carry them.

#include <gnuradio/cudadsp/core/gnss_channel_description.h>
#include <gnuradio/cudadsp/multichannel_correlator_cc.h>
#include <pmt/pmt.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {

/*!
 * Deepest nesting of containers (lists, dicts, vectors, tuples) a channel message may
 * have: a list of dicts of lists of numbers needs 4. Deeper messages are refused
 * before anything in them is parsed or printed.
 */
constexpr std::size_t gnss_max_pmt_depth = 8;

//! Numbers in the GNSS blocks' messages and errors carry 12 digits (Dopplers, code
//! phases in chips, sample rates in Hz), more than core::number_text()'s default.
std::string gnss_number_text(double value);

/*!
 * Reads one channel dict with core::make_gnss_channel(), which checks it against
 * \p config. Throws std::invalid_argument whose message starts with the offending key
 * (an unknown key, a wrong type, a value out of range).
 */
core::gnss_channel_request
parse_gnss_channel(const pmt::pmt_t& dict,
                   const core::gnss_channel_defaults& defaults,
                   const core::multichannel_correlator_config& config);

/*!
 * The items of \p value: a dict alone, or the elements of a PMT list, tuple or vector.
 * PMT_NIL (the empty list) gives none. std::invalid_argument naming \p what otherwise,
 * and for nesting deeper than gnss_max_pmt_depth.
 */
std::vector<pmt::pmt_t> gnss_channel_items(const pmt::pmt_t& value,
                                           const std::string& what);

/*!
 * Channel ids of a "remove" message: an integer, a dict with "id", or a list of those.
 * \p all is set (and nothing returned) for the symbol "all".
 */
std::vector<std::uint32_t> parse_gnss_channel_ids(const pmt::pmt_t& value, bool& all);

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_GNSS_CHANNEL_PMT_H */
