/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_SOAK_CASES_H
#define INCLUDED_CUDADSP_SOAK_CASES_H

// One soak flowgraph per block: what a case builds and what the runner reads from it.

#include "soak_blocks.h"
#include <gnuradio/top_block.h>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace soak {

/*!
 * A built soak: the flowgraph, its counted source, and how to judge it once it has
 * ended. churn() is called every few tens of milliseconds while it runs (messages,
 * resets, channel changes); items_out(), lost() and bad() are read after it ended.
 */
struct soak_flowgraph {
    gr::top_block_sptr tb;
    counted_source::sptr source;
    //! What the block delivered: output items, records, or items consumed by a sink.
    std::function<std::uint64_t()> items_out;
    /*! Items the stream definition says should have come out (or been consumed) minus
     *  those that did: 0 when nothing was lost; negative for duplicates. */
    std::function<std::int64_t()> lost;
    //! Items or messages whose content was not the stream definition's.
    std::function<std::uint64_t()> bad;
    //! Messages the block published, for the summary.
    std::function<std::uint64_t()> messages;
    //! Messages published and not yet handled by the counting port: now, and at most.
    std::function<std::uint64_t()> messages_queued;
    std::function<std::uint64_t()> messages_queued_max;
    std::function<void(std::mt19937_64&)> churn;
};

struct soak_case {
    std::string block;
    std::function<soak_flowgraph(const std::string& device, double seconds)> build;
};

//! Every block's soak, in the order of the summary.
std::vector<soak_case> soak_cases();

} // namespace soak
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_SOAK_CASES_H */
