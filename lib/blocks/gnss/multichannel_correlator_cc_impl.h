/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_MULTICHANNEL_CORRELATOR_CC_IMPL_H
#define INCLUDED_CUDADSP_MULTICHANNEL_CORRELATOR_CC_IMPL_H

#include "blocks/common/batch_gate.h"
#include "blocks/common/rate_limited_log.h"
#include "blocks/common/registered_gr_buffers.h"
#include "blocks/common/work_errors.h"
#include "blocks/gnss/gnss_channel_pmt.h"
#include "gnss/gnss_lock_monitor.h"
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <gnuradio/cudadsp/multichannel_correlator_cc.h>
#include <unordered_map>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

namespace gr {
namespace cudadsp {

//! What make() validated: the engine's config and the channels' defaults.
struct multichannel_correlator_setup {
    core::multichannel_correlator_config config;
    core::gnss_channel_defaults defaults;
    std::vector<core::gnss_channel_request> initial_channels;
    std::size_t batch_samples = 0;
    unsigned lock_loss_windows = 0;
    unsigned lock_timeout_windows = 0;
    bool remove_lost = true;
};

/*!
 * The three input formats share this implementation; \p Public is one of the public
 * multichannel_correlator<Item> and only fixes the block name and the input item
 * (config.input_format).
 */
template <class Public>
class multichannel_correlator_impl
    : public guarded_general_work<multichannel_correlator_impl<Public>, Public>
{
public:
    multichannel_correlator_impl(const multichannel_correlator_setup& setup,
                                 const char* name);
    ~multichannel_correlator_impl() override;

    void add_channels(const pmt::pmt_t& channels) override;
    void reinit_channels(const pmt::pmt_t& channels) override;
    void remove_channels(const pmt::pmt_t& ids) override;
    std::vector<std::uint32_t> channel_ids() const override;
    std::size_t pending_changes() const override;
    std::uint64_t samples_processed() const override;
    double sample_rate_hz() const override;
    int taps() const override;
    std::vector<double> tap_offsets_chips() const override;
    int max_channels() const override;
    std::string input_format() const override;
    std::string backend() const override;

    bool start() override;
    bool stop() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    //! general_work()'s body: guarded_general_work (work_errors.h) runs it.
    int general_work_body(int noutput_items,
                          gr_vector_int& ninput_items,
                          gr_vector_const_void_star& input_items,
                          gr_vector_void_star& output_items);

private:
    enum class change_kind { add, reinit, remove, remove_all };
    struct change {
        change_kind kind;
        core::gnss_channel_request request; //!< add, reinit
        std::uint32_t id;                   //!< remove
    };
    //! What a record needs from its channel, and the output bound's share.
    struct channel_info {
        int prn;
        int system;
        double min_epoch_samples;
    };

    std::vector<change>
    parse_requests(const pmt::pmt_t& channels, change_kind kind, const char* what) const;
    /*! Queues one message's changes whole, or refuses them whole: checked in order
     *  against the channels there will be once the changes queued before are applied
     *  (ids in use, ids absent, max_channels). std::invalid_argument naming the first
     *  refused items (at most a few, with the count) else. */
    void queue(std::vector<change>&& changes, const char* what);
    //! A message port's handler: queue, or log and publish the error.
    void handle_message(const char* port, const pmt::pmt_t& msg);
    //! Each refused message gets its "error" event; the log, a line per interval.
    rate_limited_log d_refused_log{ rate_limited_log::level::error, "messages ignored" };
    //! Applies the queued changes to the engine (work() thread only).
    void apply_changes();
    void apply(const change& c);
    void add_info(const core::gnss_channel_request& request);
    //! Forgets a removed channel's info and lock watch.
    void drop_info(std::uint32_t id);
    //! After channels came or went: the output bound's sum and the ids snapshot.
    void channel_set_changed();
    //! The lock monitor's verdicts on this call's records, into d_lost.
    void find_lost_channels();
    //! Publishes a "lost" event per channel of d_lost and, with remove_lost, removes it.
    void publish_lost_channels();
    //! Puts \p event on the next record written, as a "channel_event" tag.
    void tag_event(const pmt::pmt_t& event);
    void publish_event(const char* event,
                       std::uint32_t id,
                       const std::string& error = std::string());
    //! Input samples one call may correlate so that its records fit \p space items.
    std::size_t input_cap(int space, std::size_t available) const;
    //! Writes results record \p i as one item of each output.
    void write_record(std::size_t i, gr_complex* taps_out, double* state_out) const;
    //! Moves d_results' records from \p first on into the overflow store.
    void keep_overflow(std::size_t first);
    //! Writes overflow records into the outputs; returns how many.
    int emit_overflow(gr_complex* taps_out, double* state_out, int space);
    /*! Puts the waiting tags on the records just written, results records [0, count)
     *  at output items first_item on: an input tag on the first record whose epoch ends
     *  after its sample, a channel event on the first record. */
    void write_waiting_tags(std::uint64_t first_item, std::size_t count);

    //! A channel the lock monitor gave up on, at the end of the epoch that decided it.
    struct lost_channel {
        std::uint32_t id;
        std::uint64_t sample;
        core::gnss_lock_monitor::verdict why;
    };

    std::unique_ptr<core::multichannel_correlator> d_engine;
    const core::gnss_channel_defaults d_defaults;
    const std::size_t d_taps;
    const std::size_t d_item_bytes;
    const std::size_t d_batch_samples;
    batch_gate d_batch;
    core::gnss_lock_monitor d_lock_monitor; // work() thread
    const bool d_remove_lost;
    std::vector<lost_channel> d_lost;
    registered_gr_buffers d_registered_buffers;

    // Message handlers and the public methods may run on other threads than work():
    // they queue changes under this mutex; work() applies them to the engine.
    mutable std::mutex d_mutex;
    std::vector<change> d_queue;
    std::vector<std::uint32_t> d_ids_snapshot;
    //! The channel ids once d_queue is applied: what a new message is checked against.
    std::set<std::uint32_t> d_queued_ids;
    std::atomic<std::uint64_t> d_samples_done{ 0 };

    std::unordered_map<std::uint32_t, channel_info> d_info; // work() thread
    double d_inverse_epoch_sum = 0.0; //!< sum over channels of 1 / min_epoch_samples
    core::gnss_correlator_results d_results;
    // Records that did not fit the output buffer, already in output layout; while any
    // wait, the last sample given to the engine stays unconsumed (see general_work).
    std::vector<gr_complex> d_overflow_taps;
    std::vector<double> d_overflow_state;
    std::size_t d_overflow_first = 0;
    std::size_t d_overflow_count = 0;
    // Input tags (at their input offsets) and channel events waiting for a record.
    std::vector<gr::tag_t> d_waiting_tags;
    std::vector<gr::tag_t> d_event_tags;

    const pmt::pmt_t d_events_port;
    const pmt::pmt_t d_event_tag_key;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_MULTICHANNEL_CORRELATOR_CC_IMPL_H */
