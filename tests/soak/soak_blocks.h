/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_SOAK_BLOCKS_H
#define INCLUDED_CUDADSP_SOAK_BLOCKS_H

// The soak's flowgraph ends: a source that makes a deterministic stream for a given time
// and counts it, a sink that counts every item and checks it against the same
// definition, and a message port that only counts. None of them keeps what passes
// through, so over an hour their own memory stays flat and the RSS the soak samples is
// the block's.

#include "qa_queue_depth.h"
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace gr {
namespace cudadsp {
namespace soak {

/*!
 * Items 0, 1, 2, ... on every output, made by fill(first_item, n, outputs), until
 * \p seconds after start(); then WORK_DONE. tag(first_item, n) may add stream tags to
 * the items of the call (through tag()).
 */
class counted_source : public gr::sync_block
{
public:
    using fill_fn = std::function<void(std::uint64_t, int, gr_vector_void_star&)>;
    using tag_fn = std::function<void(counted_source&, std::uint64_t, int)>;
    using sptr = std::shared_ptr<counted_source>;

    static sptr make(const std::vector<int>& item_sizes,
                     double seconds,
                     fill_fn fill,
                     tag_fn tag = nullptr)
    {
        return gnuradio::make_block_sptr<counted_source>(
            item_sizes, seconds, std::move(fill), std::move(tag));
    }

    counted_source(const std::vector<int>& item_sizes,
                   double seconds,
                   fill_fn fill,
                   tag_fn tag)
        : gr::sync_block("soak_source",
                         gr::io_signature::make(0, 0, 0),
                         gr::io_signature::makev(static_cast<int>(item_sizes.size()),
                                                 static_cast<int>(item_sizes.size()),
                                                 item_sizes)),
          d_seconds(seconds),
          d_fill(std::move(fill)),
          d_tag(std::move(tag))
    {
    }

    bool start() override
    {
        d_deadline = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(d_seconds));
        return true;
    }

    int
    work(int noutput_items, gr_vector_const_void_star&, gr_vector_void_star& out) override
    {
        if (std::chrono::steady_clock::now() >= d_deadline) {
            d_finished = true;
            return WORK_DONE;
        }
        const std::uint64_t first = d_produced.load();
        d_fill(first, noutput_items, out);
        if (d_tag)
            d_tag(*this, first, noutput_items);
        d_produced.store(first + static_cast<std::uint64_t>(noutput_items));
        return noutput_items;
    }

    //! For the tag function: \p key = \p value on item \p item of output 0.
    void tag(std::uint64_t item, const pmt::pmt_t& key, const pmt::pmt_t& value)
    {
        add_item_tag(0, item, key, value);
    }

    //! Items made on each output so far (readable while the flowgraph runs).
    std::uint64_t produced() const { return d_produced.load(); }
    //! Whether the time is up and the source has ended its stream.
    bool finished() const { return d_finished.load(); }

private:
    const double d_seconds;
    const fill_fn d_fill;
    const tag_fn d_tag;
    std::chrono::steady_clock::time_point d_deadline;
    std::atomic<std::uint64_t> d_produced{ 0 };
    std::atomic<bool> d_finished{ false };
};

/*!
 * Counts the items on its inputs (all at one rate) and passes each call to
 * check(first_item, n, inputs, tags), which returns the number of items that were not
 * what the stream's definition says; tags holds the calls' tags of input 0.
 */
class counted_sink : public gr::sync_block
{
public:
    using check_fn = std::function<std::uint64_t(std::uint64_t,
                                                 int,
                                                 const gr_vector_const_void_star&,
                                                 const std::vector<gr::tag_t>&)>;
    using sptr = std::shared_ptr<counted_sink>;

    static sptr make(const std::vector<int>& item_sizes, check_fn check)
    {
        return gnuradio::make_block_sptr<counted_sink>(item_sizes, std::move(check));
    }

    counted_sink(const std::vector<int>& item_sizes, check_fn check)
        : gr::sync_block("soak_sink",
                         gr::io_signature::makev(static_cast<int>(item_sizes.size()),
                                                 static_cast<int>(item_sizes.size()),
                                                 item_sizes),
                         gr::io_signature::make(0, 0, 0)),
          d_check(std::move(check))
    {
    }

    int
    work(int noutput_items, gr_vector_const_void_star& in, gr_vector_void_star&) override
    {
        const std::uint64_t first = nitems_read(0);
        d_tags.clear();
        get_tags_in_range(
            d_tags, 0, first, first + static_cast<std::uint64_t>(noutput_items));
        d_bad += d_check(first, noutput_items, in, d_tags);
        d_items.store(first + static_cast<std::uint64_t>(noutput_items));
        return noutput_items;
    }

    std::uint64_t items() const { return d_items.load(); }
    std::uint64_t bad_items() const { return d_bad.load(); }

private:
    const check_fn d_check;
    std::vector<gr::tag_t> d_tags; // reused: no allocation per call once grown
    std::atomic<std::uint64_t> d_items{ 0 };
    std::atomic<std::uint64_t> d_bad{ 0 };
};

/*!
 * Counts the messages that reach its port "in" and keeps none; with a check, also those
 * for which check(message) is false; and the length of its queue (qa_queue_depth.h).
 */
class message_counter : public gr::block
{
public:
    using check_fn = std::function<bool(const pmt::pmt_t&)>;
    using sptr = std::shared_ptr<message_counter>;
    static sptr make(check_fn check = nullptr)
    {
        return gnuradio::make_block_sptr<message_counter>(std::move(check));
    }

    explicit message_counter(check_fn check)
        : gr::block("soak_message_counter",
                    gr::io_signature::make(0, 0, 0),
                    gr::io_signature::make(0, 0, 0)),
          d_check(std::move(check))
    {
        message_port_register_in(pmt::mp("in"));
        set_msg_handler(pmt::mp("in"), [this](const pmt::pmt_t& msg) {
            d_queue.taken();
            ++d_count;
            if (d_check && !d_check(msg))
                ++d_bad;
        });
    }

    //! What message_port_pub() calls: counts, then queues as usual.
    void post(pmt::pmt_t which_port, pmt::pmt_t msg) override
    {
        d_queue.posted();
        gr::block::post(which_port, msg);
    }

    std::uint64_t count() const { return d_count.load(); }
    std::uint64_t bad_messages() const { return d_bad.load(); }
    //! Messages posted and not yet handled: now, and the most there ever were.
    std::uint64_t queued() const { return d_queue.now(); }
    std::uint64_t queued_max() const { return d_queue.max(); }

private:
    const check_fn d_check;
    qa::queue_depth d_queue;
    std::atomic<std::uint64_t> d_count{ 0 };
    std::atomic<std::uint64_t> d_bad{ 0 };
};

} // namespace soak
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_SOAK_BLOCKS_H */
