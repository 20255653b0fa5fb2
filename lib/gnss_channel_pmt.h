/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_GNSS_CHANNEL_PMT_H
#define INCLUDED_CUDADSP_GNSS_CHANNEL_PMT_H

// Channel descriptions of the multichannel correlator blocks as PMT dicts: the keys,
// their defaults and their checks (docs/blocks/multichannel_correlator_cc.md lists them).

#include <gnuradio/cudadsp/core/multichannel_correlator.h>
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

//! What a channel dict does not say: the block's defaults.
struct gnss_channel_defaults {
    std::vector<double> tap_offsets_chips;
    double intermediate_frequency_hz = 0.0;
};

//! A parsed channel dict: the engine's description plus what the records report.
struct gnss_channel_request {
    core::gnss_channel channel;
    int prn = 0;
    gnss_signal_system system = gnss_system_explicit_code;
};

/*!
 * Parses one channel dict and checks it with core::gnss_channel::validate() against
 * \p config. Throws std::invalid_argument whose message starts with the offending key
 * (an unknown key, a wrong type, a value out of range).
 */
gnss_channel_request
parse_gnss_channel(const pmt::pmt_t& dict,
                   const gnss_channel_defaults& defaults,
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

/*!
 * Early, prompt and late taps for \p offsets: prompt the offset nearest 0 (the first of
 * equals), early and late its nearest neighbours below and above (prompt itself where
 * there is none).
 */
void default_gnss_taps(const std::vector<double>& offsets,
                       std::size_t& early,
                       std::size_t& prompt,
                       std::size_t& late);

/*!
 * Fewest samples any full epoch of \p channel can have at \p sample_rate_hz, rounded
 * down: in tracking mode the loops may raise the code rate up to 1.5 times the nominal
 * (the engine's guard). At least 1.
 */
double gnss_min_epoch_samples(const core::gnss_channel& channel, double sample_rate_hz);

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_GNSS_CHANNEL_PMT_H */
