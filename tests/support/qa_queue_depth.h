/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_QUEUE_DEPTH_H
#define INCLUDED_CUDADSP_QA_QUEUE_DEPTH_H

// The length of a test block's message queue, counted: GNU Radio 3.10 gives no locked
// view of a queue, and its scheduler bounds only the queues of ports without a handler.

#include <atomic>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace qa {

/*!
 * Messages posted to a port and not yet taken by its handler. The block calls posted()
 * from its post() override (what message_port_pub() calls) and taken() first thing in
 * its handler.
 */
class queue_depth
{
public:
    void posted()
    {
        const std::uint64_t depth = ++d_posted - d_taken.load();
        std::uint64_t peak = d_max.load();
        while (depth > peak && !d_max.compare_exchange_weak(peak, depth)) {
        }
    }
    void taken() { ++d_taken; }

    std::uint64_t now() const { return d_posted.load() - d_taken.load(); }
    //! The most messages the queue ever held (counting the one being posted).
    std::uint64_t max() const { return d_max.load(); }

private:
    std::atomic<std::uint64_t> d_posted{ 0 };
    std::atomic<std::uint64_t> d_taken{ 0 };
    std::atomic<std::uint64_t> d_max{ 0 };
};

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_QUEUE_DEPTH_H */
