/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/bounded_message_port.h"
#include <gnuradio/block_registry.h>
#include <boost/thread/thread.hpp>
#include <stdexcept>
#include <thread>
#include <utility>

namespace gr {
namespace cudadsp {

bounded_message_port::bounded_message_port(gr::basic_block& owner,
                                           pmt::pmt_t port,
                                           std::size_t max_queued,
                                           gr::logger_ptr logger,
                                           std::chrono::milliseconds max_wait)
    : d_owner(owner),
      d_port(std::move(port)),
      d_max_queued(max_queued),
      d_logger(std::move(logger)),
      d_max_wait(max_wait),
      d_subscriber_list(pmt::PMT_NIL)
{
    if (max_queued < 1)
        throw std::invalid_argument("bounded_message_port: max_queued must be >= 1");
}

void bounded_message_port::refresh_subscribers()
{
    // msg_connect() and msg_disconnect() replace the list, so an unchanged list is the
    // same PMT object and the lookups below happen once per change.
    const pmt::pmt_t list = d_owner.message_subscribers(d_port);
    if (pmt::eq(list, d_subscriber_list))
        return;
    d_subscriber_list = list;
    d_subscribers.clear();
    for (pmt::pmt_t rest = list; pmt::is_pair(rest); rest = pmt::cdr(rest)) {
        const pmt::pmt_t target = pmt::car(rest);
        d_subscribers.push_back({ ::global_block_registry.block_lookup(pmt::car(target)),
                                  pmt::cdr(target),
                                  false,
                                  0 });
    }
}

std::string bounded_message_port::name(const subscriber& s) const
{
    return s.block->alias() + ":" + pmt::symbol_to_string(s.port);
}

bool bounded_message_port::wait_for_room(subscriber& s)
{
    if (s.block->nmsgs(s.port) < d_max_queued) {
        if (s.stalled) {
            d_logger->warn("{}: {} takes messages again; {} dropped while it took none",
                           pmt::symbol_to_string(d_port),
                           name(s),
                           s.dropped_in_stall);
            s.stalled = false;
            s.dropped_in_stall = 0;
        }
        return true;
    }
    if (s.stalled)
        return false;
    // Nothing is added while this waits, so the queue shrinks as soon as the subscriber
    // takes a message: a wait this long means it took none.
    const auto deadline = std::chrono::steady_clock::now() + d_max_wait;
    while (s.block->nmsgs(s.port) >= d_max_queued) {
        if (std::chrono::steady_clock::now() >= deadline) {
            s.stalled = true;
            d_logger->warn("{}: {} took no message for {} ms with {} queued: messages "
                           "to it are dropped until its queue is below {}",
                           pmt::symbol_to_string(d_port),
                           name(s),
                           d_max_wait.count(),
                           s.block->nmsgs(s.port),
                           d_max_queued);
            return false;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(500));
        // top_block::stop() interrupts the block's thread: end the wait at once.
        boost::this_thread::interruption_point();
    }
    return true;
}

void bounded_message_port::publish(const pmt::pmt_t& msg)
{
    refresh_subscribers();
    for (subscriber& s : d_subscribers) {
        if (wait_for_room(s)) {
            s.block->post(s.port, msg);
        } else {
            ++s.dropped_in_stall;
            ++d_dropped;
        }
    }
}

} // namespace cudadsp
} // namespace gr
