/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_MESSAGE_COLLECTOR_H
#define INCLUDED_CUDADSP_QA_MESSAGE_COLLECTOR_H

// A message sink for the C++ flowgraph tests of blocks that publish messages.

#include "qa_queue_depth.h"
#include <gnuradio/block.h>
#include <gnuradio/io_signature.h>
#include <pmt/pmt.h>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

/*!
 * Stores every message it gets on its port "in", and counts the length of its queue
 * (qa_queue_depth.h). \p before_each, when given, runs at the start of each handling:
 * a slow or stuck subscriber for the tests of publishers' back-pressure.
 */
class message_collector : public gr::block
{
public:
    using sptr = std::shared_ptr<message_collector>;
    static sptr make(std::function<void()> before_each = nullptr)
    {
        return gnuradio::make_block_sptr<message_collector>(std::move(before_each));
    }

    explicit message_collector(std::function<void()> before_each)
        : gr::block("message_collector",
                    gr::io_signature::make(0, 0, 0),
                    gr::io_signature::make(0, 0, 0)),
          d_port(pmt::intern("in")),
          d_before_each(std::move(before_each))
    {
        message_port_register_in(d_port);
        set_msg_handler(d_port, [this](const pmt::pmt_t& msg) {
            d_queue.taken();
            if (d_before_each)
                d_before_each();
            std::lock_guard<std::mutex> lock(d_mutex);
            d_messages.push_back(msg);
        });
    }

    //! What message_port_pub() calls: counts, then queues as usual.
    void post(pmt::pmt_t which_port, pmt::pmt_t msg) override
    {
        d_queue.posted();
        gr::block::post(which_port, msg);
    }

    //! The most messages its queue ever held.
    std::uint64_t queued_max() const { return d_queue.max(); }

    /*! The messages handled so far, then (after the flowgraph has stopped) any still
     *  queued: a message-only block may be told to stop before its queue is empty. */
    std::vector<pmt::pmt_t> messages()
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        std::vector<pmt::pmt_t> out = d_messages;
        while (!empty_p(d_port))
            out.push_back(delete_head_nowait(d_port));
        return out;
    }

    //! Messages handled so far.
    std::size_t handled()
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_messages.size();
    }

private:
    const pmt::pmt_t d_port;
    const std::function<void()> d_before_each;
    queue_depth d_queue;
    std::mutex d_mutex;
    std::vector<pmt::pmt_t> d_messages;
};

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_MESSAGE_COLLECTOR_H */
