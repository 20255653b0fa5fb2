/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_MESSAGE_COLLECTOR_H
#define INCLUDED_CUDADSP_QA_MESSAGE_COLLECTOR_H

// A message sink for the C++ flowgraph tests of blocks that publish messages.

#include <gnuradio/block.h>
#include <gnuradio/io_signature.h>
#include <pmt/pmt.h>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

//! Stores every message it gets on its port "in".
class message_collector : public gr::block
{
public:
    using sptr = std::shared_ptr<message_collector>;
    static sptr make() { return gnuradio::make_block_sptr<message_collector>(); }

    message_collector()
        : gr::block("message_collector",
                    gr::io_signature::make(0, 0, 0),
                    gr::io_signature::make(0, 0, 0)),
          d_port(pmt::intern("in"))
    {
        message_port_register_in(d_port);
        set_msg_handler(d_port, [this](const pmt::pmt_t& msg) {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_messages.push_back(msg);
        });
    }

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
    std::mutex d_mutex;
    std::vector<pmt::pmt_t> d_messages;
};

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_MESSAGE_COLLECTOR_H */
