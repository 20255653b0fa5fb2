/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/batch_gate.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer.h>
#include <gnuradio/buffer_reader.h>
#include <algorithm>

namespace gr {
namespace cudadsp {

constexpr std::chrono::milliseconds batch_gate::max_wait;

void batch_gate::limit_work_calls(gr::block& block) const
{
    block.set_max_noutput_items(d_batch_items);
    block.set_min_output_buffer(2 * d_batch_items);
}

void batch_gate::start(gr::block& block, int inputs_per_output, gr::logger_ptr logger)
{
    gr::block_detail& detail = *block.detail();
    int upstream_buffer_items = static_cast<int>(detail.input(0)->buffer()->bufsize());
    for (int i = 1; i < detail.ninputs(); ++i)
        upstream_buffer_items =
            std::min(upstream_buffer_items,
                     static_cast<int>(detail.input(i)->buffer()->bufsize()));
    const int upstream_outputs = upstream_buffer_items / inputs_per_output;
    d_min_call_items = std::max(1, std::min(d_batch_items, upstream_outputs / 2));
    d_waiting = false;
    if (d_min_call_items < d_batch_items)
        logger->warn(
            "the upstream buffer holds {} items, less than two batches ({}): GPU "
            "launches will be small. For full speed set the upstream block's "
            "minimum output buffer to {} items (GRC: Advanced > Min Output "
            "Buffer; Python: set_min_output_buffer).",
            upstream_buffer_items,
            2 * d_batch_items * inputs_per_output,
            2 * d_batch_items * inputs_per_output);
}

namespace {

//! An upstream block has finished: no more input will come on one of the inputs.
bool upstream_done(const gr::block& block)
{
    gr::block_detail& detail = *block.detail();
    for (int i = 0; i < detail.ninputs(); ++i)
        if (detail.input(i)->done())
            return true;
    return false;
}

} // namespace

bool batch_gate::should_wait(const gr::block& block, int available_items)
{
    if (available_items >= d_min_call_items || upstream_done(block)) {
        d_waiting = false;
        return false;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!d_waiting) {
        d_waiting = true;
        d_wait_started = now;
    }
    if (now - d_wait_started < max_wait)
        return true;
    d_waiting = false;
    return false;
}

} // namespace cudadsp
} // namespace gr
