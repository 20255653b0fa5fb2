/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BOUNDED_MESSAGE_PORT_H
#define INCLUDED_CUDADSP_BOUNDED_MESSAGE_PORT_H

#include <gnuradio/basic_block.h>
#include <gnuradio/logger.h>
#include <pmt/pmt.h>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {

/*!
 * Publishes on a block's output message port with a bound on each subscriber's queue.
 *
 * Why: GNU Radio 3.10 queues a message at a subscriber's port without limit when the
 * port has a handler (its scheduler prunes only the queues of ports without one, at the
 * [DEFAULT] max_messages preference). A block that publishes at the stream's rate fills
 * the queue for as long as the subscriber's thread waits for a core, and the heap the
 * queue took stays with the process after it drains: under CPU starvation the RSS
 * ratchets up with each longer wait.
 *
 * publish() gives messages the back-pressure a full output buffer gives items: before
 * posting to a subscriber that holds max_queued messages or more, it waits, inside
 * work(), until the subscriber has taken one. A subscriber that takes none for max_wait
 * (stuck, or ended) is stalled: the message is dropped for it, counted and logged, and
 * so are the following ones, without waiting, until its queue is below the bound again.
 * A stuck subscriber thus neither holds the stream nor grows without bound.
 *
 * The queue length is basic_block::nmsgs(), read without the subscriber's lock, as GNU
 * Radio's scheduler reads it for its own bound: an approximate length is enough here.
 * Waits are interruption points of boost::thread, so top_block::stop() ends them.
 * publish() is for the block's work() thread only.
 */
class bounded_message_port
{
public:
    bounded_message_port(gr::basic_block& owner,
                         pmt::pmt_t port,
                         std::size_t max_queued,
                         gr::logger_ptr logger,
                         std::chrono::milliseconds max_wait = std::chrono::seconds(2));

    //! Posts \p msg to every subscriber of the port, each within the bound.
    void publish(const pmt::pmt_t& msg);

    std::size_t max_queued() const { return d_max_queued; }
    //! Messages dropped at stalled subscribers (one per message and subscriber).
    std::uint64_t dropped() const { return d_dropped.load(); }

private:
    struct subscriber {
        gr::basic_block_sptr block;
        pmt::pmt_t port;
        bool stalled;
        std::uint64_t dropped_in_stall;
    };

    //! The subscriber list, looked up again whenever msg_connect() changed it.
    void refresh_subscribers();
    //! True once \p s holds fewer than max_queued messages; false when it is stalled.
    bool wait_for_room(subscriber& s);
    std::string name(const subscriber& s) const;

    gr::basic_block& d_owner;
    const pmt::pmt_t d_port;
    const std::size_t d_max_queued;
    const gr::logger_ptr d_logger;
    const std::chrono::milliseconds d_max_wait;
    pmt::pmt_t d_subscriber_list; // the list d_subscribers was made from
    std::vector<subscriber> d_subscribers;
    std::atomic<std::uint64_t> d_dropped{ 0 };
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BOUNDED_MESSAGE_PORT_H */
