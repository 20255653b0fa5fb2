/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "batch_gate.h"
#include <algorithm>

namespace gr {
namespace cudadsp {

constexpr std::chrono::milliseconds batch_gate::max_wait;

void batch_gate::start(int upstream_buffer_items,
                       int inputs_per_output,
                       gr::logger_ptr logger)
{
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

bool batch_gate::should_wait(int available_items, bool upstream_done)
{
    if (available_items >= d_min_call_items || upstream_done) {
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
