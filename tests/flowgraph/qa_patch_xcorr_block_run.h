/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_PATCH_XCORR_BLOCK_RUN_H
#define INCLUDED_CUDADSP_QA_PATCH_XCORR_BLOCK_RUN_H

// qa_patch_xcorr_cc_flowgraph's runs: patch_xcorr_cc in a flowgraph fed line by line,
// and what it gave compared with the engine's records.

#include "qa_patch_xcorr_scene.h"
#include <pmt/pmt.h>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace patch_xcorr_qa {

struct block_output {
    std::vector<float> stream; //!< 5 floats a record
    std::vector<pmt::pmt_t> messages;
};

//! How the test feeds the block and drains it.
struct run_options {
    long lines = -1;           //!< lines of each image to send; < 0: all
    int max_noutput = 0;       //!< set_max_noutput_items on the block; 0: none
    int slow_per_call = 0;     //!< > 0: a slow consumer taking this many records a call
    bool whole_buffer = false; //!< the source's buffer holds every line at once
};

block_output run_block(const params& p,
                       const image_pair& img,
                       const run_options& o,
                       const std::string& what = "");

//! A record as text, for failure messages.
std::string record_text(const float* r);

/*! The block's stream equals the expected records bit for bit (NaN matching NaN), in
 *  order, and its messages, one a record in the same order, carry the same values and
 *  the record's strip, with the keys x, dx, y, dy, corr, strip and no others. */
void assert_same_records(const expected_records& e,
                         const block_output& got,
                         const std::string& what);

} // namespace patch_xcorr_qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_PATCH_XCORR_BLOCK_RUN_H */
