/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_SOAK_CASE_BUILDERS_H
#define INCLUDED_CUDADSP_SOAK_CASE_BUILDERS_H

// Inside the soak cases: each block's builder, defined in the file of its family
// (soak_cases_<family>.cc), and what the builders share (soak_cases.cc).

#include "soak_cases.h"
#include <gnuradio/tags.h>
#include <pmt/pmt.h>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace soak {

constexpr double two_pi = 6.283185307179586476925286766559;

//! A value in [-1, 1) from any 64-bit key: the content of the random test images.
float hashed_unit(std::uint64_t key);

gr_complex hashed_complex(std::uint64_t key);

//! The value of an integer or real PMT as a double; NaN for anything else.
double pmt_number(const pmt::pmt_t& x);

/*!
 * Checks that every item of a call carries the tag \p key with the value
 * value_of(item index): tags on item streams survive the block one per item, none
 * lost, repeated or moved. Returns the items without their tag.
 */
std::uint64_t check_item_tags(const std::vector<gr::tag_t>& tags,
                              const pmt::pmt_t& key,
                              std::uint64_t first,
                              int n,
                              const std::function<double(std::uint64_t)>& value_of);

//! A soak whose items out are those \p sink counted, expected_out(items in) of them,
//! without messages and without churn (a case adds its own).
soak_flowgraph finish(gr::top_block_sptr tb,
                      counted_source::sptr source,
                      counted_sink::sptr sink,
                      std::function<std::uint64_t(std::uint64_t)> expected_out);

//! The summary's message figures, from the port that counts the block's messages.
void count_messages(soak_flowgraph& f, const message_counter::sptr& counter);

// signals
soak_flowgraph phase_unwrap_ff_soak(const std::string& device, double seconds);
soak_flowgraph cross_correlator_cc_soak(const std::string& device, double seconds);
// insar
soak_flowgraph phase_unwrap_2d_ff_soak(const std::string& device, double seconds);
soak_flowgraph patch_xcorr_cc_soak(const std::string& device, double seconds);
// radar
soak_flowgraph polarimetric_products_cf_soak(const std::string& device, double seconds);
soak_flowgraph kdp_ff_soak(const std::string& device, double seconds);
// tbd
soak_flowgraph st_tbd_ff_soak(const std::string& device, double seconds);
// gnss
soak_flowgraph multichannel_correlator_cc_soak(const std::string& device, double seconds);
soak_flowgraph pcps_acquisition_cc_soak(const std::string& device, double seconds);

} // namespace soak
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_SOAK_CASE_BUILDERS_H */
