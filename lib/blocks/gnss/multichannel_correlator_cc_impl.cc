/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/backend_log.h"
#include "blocks/gnss/gnss_correlator_messages.h"
#include "blocks/gnss/multichannel_correlator_cc_impl.h"
#include "runtime/quoted_text.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

namespace gr {
namespace cudadsp {

namespace {

//! Output buffers hold this many records per channel at least: a batch of 1 ms epochs
//! (the shortest common GNSS epoch) plus the partial epochs at both ends.
constexpr double output_records_margin = 2.0;
//! ... but no port's buffer grows beyond this many bytes.
constexpr double max_output_buffer_bytes = 64.0 * 1024 * 1024;
//! Most samples one work() call hands the engine (a batch longer than this is capped).
constexpr double max_batch_samples = double(1 << 26);

/*!
 * \p config validated for input items of \p format (each error naming the field by its
 * keyword name), with what follows from it: the engine's configuration, the batch, the
 * initial channels.
 */
multichannel_correlator_setup
make_setup(const multichannel_correlator_block_config& config,
           core::gnss_sample_format format)
{
    multichannel_correlator_setup s;
    if (config.max_channels < 1 ||
        config.max_channels > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw std::invalid_argument("max_channels: must be 1 to " +
                                    std::to_string(std::numeric_limits<int>::max()) +
                                    " (max_channels() is an int), got " +
                                    std::to_string(config.max_channels));
    s.defaults.tap_offsets_chips = config.tap_offsets_chips;
    s.defaults.intermediate_frequency_hz = config.intermediate_frequency_hz;
    s.config = core::make_correlator_config(
        config.sample_rate_hz, format, config.max_channels, config.device, s.defaults);
    const double batch_ms = config.batch_ms;
    if (!std::isfinite(batch_ms) || !(batch_ms > 0.0))
        throw std::invalid_argument("batch_ms: must be finite and > 0, got " +
                                    gnss_number_text(batch_ms));
    const double batch = std::ceil(batch_ms * 1e-3 * config.sample_rate_hz);
    if (batch > max_batch_samples)
        throw std::invalid_argument(
            "batch_ms: must be at most 2^26 samples at "
            "sample_rate_hz, " +
            gnss_number_text(max_batch_samples / config.sample_rate_hz * 1e3) +
            " ms, got " + gnss_number_text(batch_ms));
    s.batch_samples = static_cast<std::size_t>(std::max(1.0, batch));
    s.lock_loss_windows = config.lock_loss_windows;
    s.lock_timeout_windows = config.lock_timeout_windows;
    s.remove_lost = config.remove_lost;

    const std::vector<pmt::pmt_t> items = gnss_channel_items(config.channels, "channels");
    std::set<std::uint32_t> ids;
    for (std::size_t i = 0; i < items.size(); ++i) {
        try {
            s.initial_channels.push_back(
                parse_gnss_channel(items[i], s.defaults, s.config));
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument("channels[" + std::to_string(i) + "]." +
                                        e.what());
        }
        if (!ids.insert(s.initial_channels.back().channel.id).second)
            throw std::invalid_argument(
                "channels[" + std::to_string(i) + "].id: " +
                std::to_string(s.initial_channels.back().channel.id) + " is used twice");
    }
    if (items.size() > config.max_channels)
        throw std::invalid_argument(
            "channels: " + std::to_string(items.size()) +
            " channels exceed max_channels = " + std::to_string(config.max_channels));
    return s;
}

} // namespace

// ------------------------------------------------------------------------------------
// make()
// ------------------------------------------------------------------------------------

namespace {

//! What each input item of the template fixes: the engine's format and the block name.
template <class Item>
struct correlator_item;
template <>
struct correlator_item<gr_complex> {
    static constexpr core::gnss_sample_format format = core::gnss_sample_format::cf32;
    static constexpr const char* block_name = "multichannel_correlator_cc";
};
template <>
struct correlator_item<std::complex<std::int16_t>> {
    static constexpr core::gnss_sample_format format = core::gnss_sample_format::ci16;
    static constexpr const char* block_name = "multichannel_correlator_sc";
};
template <>
struct correlator_item<std::complex<std::int8_t>> {
    static constexpr core::gnss_sample_format format = core::gnss_sample_format::ci8;
    static constexpr const char* block_name = "multichannel_correlator_bc";
};

} // namespace

template <class Item>
typename multichannel_correlator<Item>::sptr
multichannel_correlator<Item>::make(const multichannel_correlator_block_config& config)
{
    return gnuradio::make_block_sptr<
        multichannel_correlator_impl<multichannel_correlator<Item>>>(
        make_setup(config, correlator_item<Item>::format),
        correlator_item<Item>::block_name);
}

template class multichannel_correlator<gr_complex>;
template class multichannel_correlator<std::complex<std::int16_t>>;
template class multichannel_correlator<std::complex<std::int8_t>>;

// ------------------------------------------------------------------------------------
// Construction and accessors
// ------------------------------------------------------------------------------------

template <class Public>
multichannel_correlator_impl<Public>::multichannel_correlator_impl(
    const multichannel_correlator_setup& setup, const char* name)
    : gr::block(
          name,
          gr::io_signature::make(
              1, 1, static_cast<int>(core::bytes_per_sample(setup.config.input_format))),
          gr::io_signature::makev(
              2,
              2,
              { static_cast<int>(sizeof(gr_complex) * setup.config.taps),
                static_cast<int>(sizeof(double) * gnss_state_field_count) })),
      d_engine(core::multichannel_correlator::make(setup.config)),
      d_defaults(setup.defaults),
      d_taps(setup.config.taps),
      d_item_bytes(core::bytes_per_sample(setup.config.input_format)),
      d_batch_samples(setup.batch_samples),
      d_batch(static_cast<int>(setup.batch_samples)),
      d_lock_monitor(setup.lock_loss_windows, setup.lock_timeout_windows),
      d_remove_lost(setup.remove_lost),
      d_events_port(pmt::intern("events")),
      d_event_tag_key(pmt::intern("channel_event"))
{
    log_backend(this->d_logger, d_engine->device());

    // Initial channels were parsed by make(); an engine refusal here raises.
    for (const core::gnss_channel_request& request : setup.initial_channels) {
        d_engine->add_channel(request.channel);
        add_info(request);
    }
    d_ids_snapshot = d_engine->channel_ids();
    d_queued_ids.insert(d_ids_snapshot.begin(), d_ids_snapshot.end());

    for (const char* port : { "add", "reinit", "remove" }) {
        const pmt::pmt_t p = pmt::intern(port);
        this->message_port_register_in(p);
        this->set_msg_handler(
            p, [this, port](const pmt::pmt_t& msg) { handle_message(port, msg); });
    }
    this->message_port_register_out(d_events_port);

    // Records and input samples are in no fixed ratio: tags are placed by hand.
    this->set_tag_propagation_policy(gr::block::TPP_DONT);

    // Room for a batch's records of every channel, so that a call rarely has to cap
    // its input below a batch (input_cap()).
    const double batch_ms =
        1e3 * static_cast<double>(d_batch_samples) / setup.config.sample_rate_hz;
    const double records = static_cast<double>(setup.config.max_channels) *
                           (std::ceil(batch_ms) + output_records_margin);
    const double widest = static_cast<double>(
        std::max(sizeof(gr_complex) * d_taps, sizeof(double) * gnss_state_field_count));
    const long items = static_cast<long>(
        std::clamp(records, 8192.0, std::max(8192.0, max_output_buffer_bytes / widest)));
    this->set_min_output_buffer(0, items);
    this->set_min_output_buffer(1, items);
}

template <class Public>
multichannel_correlator_impl<Public>::~multichannel_correlator_impl() = default;

template <class Public>
std::vector<std::uint32_t> multichannel_correlator_impl<Public>::channel_ids() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_ids_snapshot;
}

template <class Public>
std::size_t multichannel_correlator_impl<Public>::pending_changes() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_queue.size();
}

template <class Public>
std::uint64_t multichannel_correlator_impl<Public>::samples_processed() const
{
    return d_samples_done.load();
}

template <class Public>
double multichannel_correlator_impl<Public>::sample_rate_hz() const
{
    return d_engine->config().sample_rate_hz;
}

template <class Public>
int multichannel_correlator_impl<Public>::taps() const
{
    return static_cast<int>(d_taps);
}

template <class Public>
std::vector<double> multichannel_correlator_impl<Public>::tap_offsets_chips() const
{
    return d_defaults.tap_offsets_chips;
}

template <class Public>
int multichannel_correlator_impl<Public>::max_channels() const
{
    return static_cast<int>(d_engine->config().max_channels);
}

template <class Public>
std::string multichannel_correlator_impl<Public>::input_format() const
{
    return core::to_string(d_engine->config().input_format);
}

template <class Public>
std::string multichannel_correlator_impl<Public>::backend() const
{
    return d_engine->device().to_string();
}

// ------------------------------------------------------------------------------------
// Channel changes
// ------------------------------------------------------------------------------------

template <class Public>
std::vector<typename multichannel_correlator_impl<Public>::change>
multichannel_correlator_impl<Public>::parse_requests(const pmt::pmt_t& channels,
                                                     change_kind kind,
                                                     const char* what) const
{
    std::vector<change> changes;
    const std::vector<pmt::pmt_t> items = gnss_channel_items(channels, what);
    refusals refused("channels");
    for (std::size_t i = 0; i < items.size(); ++i) {
        change c{ kind, {}, 0 };
        try {
            // The config is immutable, so parsing needs no lock.
            c.request = parse_gnss_channel(items[i], d_defaults, d_engine->config());
        } catch (const std::invalid_argument& e) {
            refused.add(i, e.what());
            continue;
        }
        c.id = c.request.channel.id;
        changes.push_back(std::move(c));
    }
    if (refused.any())
        refused.raise(what, items.size());
    return changes;
}

template <class Public>
void multichannel_correlator_impl<Public>::queue(std::vector<change>&& changes,
                                                 const char* what)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    std::set<std::uint32_t> ids = d_queued_ids;
    const std::size_t capacity = d_engine->config().max_channels;
    refusals refused(std::string(what) == "remove" ? "ids" : "channels");
    for (std::size_t i = 0; i < changes.size(); ++i) {
        const change& c = changes[i];
        const std::string id = std::to_string(c.id);
        switch (c.kind) {
        case change_kind::add:
            if (ids.count(c.id))
                refused.add(i, "id: channel " + id + " already exists");
            else if (ids.size() >= capacity)
                refused.add(i,
                            "id: channel " + id + " would exceed max_channels = " +
                                std::to_string(capacity));
            else
                ids.insert(c.id);
            break;
        case change_kind::reinit:
        case change_kind::remove:
            if (!ids.count(c.id))
                refused.add(i, "id: no channel " + id);
            else if (c.kind == change_kind::remove)
                ids.erase(c.id);
            break;
        case change_kind::remove_all:
            ids.clear();
            break;
        }
    }
    if (refused.any())
        refused.raise(what, changes.size());
    d_queued_ids.swap(ids);
    for (change& c : changes)
        d_queue.push_back(std::move(c));
}

template <class Public>
void multichannel_correlator_impl<Public>::add_channels(const pmt::pmt_t& channels)
{
    queue(parse_requests(channels, change_kind::add, "add"), "add");
}

template <class Public>
void multichannel_correlator_impl<Public>::reinit_channels(const pmt::pmt_t& channels)
{
    queue(parse_requests(channels, change_kind::reinit, "reinit"), "reinit");
}

template <class Public>
void multichannel_correlator_impl<Public>::remove_channels(const pmt::pmt_t& ids)
{
    bool all = false;
    const std::vector<std::uint32_t> parsed = parse_gnss_channel_ids(ids, all);
    std::vector<change> changes;
    if (all)
        changes.push_back(change{ change_kind::remove_all, {}, 0 });
    for (std::uint32_t id : parsed)
        changes.push_back(change{ change_kind::remove, {}, id });
    queue(std::move(changes), "remove");
}

template <class Public>
void multichannel_correlator_impl<Public>::handle_message(const char* port,
                                                          const pmt::pmt_t& msg)
{
    try {
        const std::string p(port);
        if (p == "add")
            add_channels(msg);
        else if (p == "reinit")
            reinit_channels(msg);
        else
            remove_channels(msg);
    } catch (const std::exception& e) {
        // A bad message must not stop the flowgraph: say what was wrong and go on.
        d_refused_log.log(this->d_logger,
                          "\"" + std::string(port) + "\" message ignored: " + e.what());
        pmt::pmt_t d = pmt::make_dict();
        d = pmt::dict_add(d, pmt::intern("event"), pmt::intern("error"));
        d = pmt::dict_add(d, pmt::intern("port"), pmt::intern(port));
        // A lone channel's id, so that whoever sent it (an acquisition block) knows
        // which of its channels was refused.
        const pmt::pmt_t id = lone_channel_id(msg);
        if (!pmt::is_null(id))
            d = pmt::dict_add(d, pmt::intern("id"), id);
        d = pmt::dict_add(d, pmt::intern("error"), error_text(e.what()));
        this->message_port_pub(d_events_port, d);
    }
}

template <class Public>
void multichannel_correlator_impl<Public>::add_info(
    const core::gnss_channel_request& request)
{
    d_info[request.channel.id] =
        channel_info{ request.prn,
                      static_cast<int>(request.system),
                      core::gnss_min_epoch_samples(request.channel,
                                                   d_engine->config().sample_rate_hz) };
    d_lock_monitor.watch(request.channel);
}

template <class Public>
void multichannel_correlator_impl<Public>::publish_event(const char* event,
                                                         std::uint32_t id,
                                                         const std::string& error)
{
    pmt::pmt_t d = event_dict(event, id, d_engine->samples_processed());
    if (!error.empty())
        d = pmt::dict_add(d, pmt::intern("error"), error_text(error));
    else
        tag_event(d);
    this->message_port_pub(d_events_port, d);
}

template <class Public>
void multichannel_correlator_impl<Public>::tag_event(const pmt::pmt_t& event)
{
    gr::tag_t tag;
    tag.key = d_event_tag_key;
    tag.value = event;
    tag.srcid = this->alias_pmt();
    d_event_tags.push_back(tag);
}

template <class Public>
void multichannel_correlator_impl<Public>::apply(const change& c)
{
    const char* names[] = { "add", "reinit", "remove", "remove" };
    const char* name = names[static_cast<int>(c.kind)];
    try {
        switch (c.kind) {
        case change_kind::add:
            d_engine->add_channel(c.request.channel);
            add_info(c.request);
            break;
        case change_kind::reinit:
            d_engine->reinit_channel(c.request.channel);
            add_info(c.request);
            break;
        case change_kind::remove:
            d_engine->remove_channel(c.id);
            drop_info(c.id);
            break;
        case change_kind::remove_all:
            for (std::uint32_t id : d_engine->channel_ids()) {
                d_engine->remove_channel(id);
                drop_info(id);
                publish_event("remove", id);
            }
            return;
        }
        publish_event(name, c.id);
    } catch (const std::exception& e) {
        this->d_logger->error("{} of channel {} failed: {}", name, c.id, e.what());
        publish_event("error", c.id, e.what());
    }
}

template <class Public>
void multichannel_correlator_impl<Public>::apply_changes()
{
    std::vector<change> changes;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (d_queue.empty())
            return;
        changes.swap(d_queue);
    }
    for (const change& c : changes)
        apply(c);
    channel_set_changed();
}

template <class Public>
void multichannel_correlator_impl<Public>::drop_info(std::uint32_t id)
{
    d_info.erase(id);
    d_lock_monitor.forget(id);
}

template <class Public>
void multichannel_correlator_impl<Public>::channel_set_changed()
{
    d_inverse_epoch_sum = 0.0;
    for (const auto& [id, info] : d_info)
        d_inverse_epoch_sum += 1.0 / info.min_epoch_samples;
    std::lock_guard<std::mutex> lock(d_mutex);
    d_ids_snapshot = d_engine->channel_ids();
}

template <class Public>
void multichannel_correlator_impl<Public>::find_lost_channels()
{
    for (const core::gnss_epoch_record& r : d_results.records) {
        const core::gnss_lock_monitor::verdict v = d_lock_monitor.observe(r);
        if (v != core::gnss_lock_monitor::verdict::none)
            d_lost.push_back(
                lost_channel{ r.channel_id, r.start_sample + r.sample_count, v });
    }
}

template <class Public>
void multichannel_correlator_impl<Public>::publish_lost_channels()
{
    if (d_lost.empty())
        return;
    for (const lost_channel& lost : d_lost) {
        const auto info = d_info.find(lost.id);
        pmt::pmt_t d = event_dict("lost", lost.id, lost.sample);
        d = pmt::dict_add(d,
                          pmt::intern("prn"),
                          pmt::from_long(info != d_info.end() ? info->second.prn : 0));
        d = pmt::dict_add(
            d,
            pmt::intern("system"),
            pmt::intern(system_name(info != d_info.end() ? info->second.system : 0)));
        d = pmt::dict_add(d,
                          pmt::intern("reason"),
                          pmt::intern(core::gnss_lock_monitor::reason(lost.why)));
        this->d_logger->info("channel {} lost ({}) at sample {}",
                             lost.id,
                             core::gnss_lock_monitor::reason(lost.why),
                             lost.sample);
        tag_event(d);
        this->message_port_pub(d_events_port, d);
        if (!d_remove_lost)
            continue;
        d_engine->remove_channel(lost.id);
        drop_info(lost.id);
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_queued_ids.erase(lost.id);
        }
        publish_event("remove", lost.id);
    }
    d_lost.clear();
    if (d_remove_lost)
        channel_set_changed();
}

// ------------------------------------------------------------------------------------
// Streaming
// ------------------------------------------------------------------------------------

template <class Public>
bool multichannel_correlator_impl<Public>::start()
{
    d_inverse_epoch_sum = 0.0;
    for (const auto& [id, info] : d_info)
        d_inverse_epoch_sum += 1.0 / info.min_epoch_samples;
    if (d_engine->device().backend == core::backend_kind::cuda) {
        // On CUDA, work() waits for a batch of samples (see batch_gate), and the GNU
        // Radio buffers it moves are page-locked.
        d_batch.start(*this, 1, this->d_logger);
        d_registered_buffers.register_buffers(
            *this, d_engine->device().cuda_ordinal, this->d_logger);
    }
    return gr::block::start();
}

template <class Public>
bool multichannel_correlator_impl<Public>::stop()
{
    d_refused_log.report(this->d_logger);
    d_registered_buffers.release();
    return gr::block::stop();
}

template <class Public>
void multichannel_correlator_impl<Public>::forecast(int,
                                                    gr_vector_int& ninput_items_required)
{
    // Any input can be correlated; records come whenever epochs complete.
    ninput_items_required[0] = 1;
}

template <class Public>
std::size_t multichannel_correlator_impl<Public>::input_cap(int space,
                                                            std::size_t available) const
{
    const std::size_t n = std::min(available, d_batch_samples);
    if (d_info.empty())
        return n;
    // Each channel completes at most 1 + n / min_epoch_samples epochs in n samples
    // (the first may be partial): the records of n samples stay within space when
    // n <= (space - channels) / sum(1 / min_epoch_samples).
    const double room = static_cast<double>(space) - static_cast<double>(d_info.size());
    const double fit = std::floor(room / d_inverse_epoch_sum);
    if (!(fit >= 1.0))
        return std::min<std::size_t>(n, 1); // overflow records wait (general_work)
    return static_cast<std::size_t>(std::min(static_cast<double>(n), fit));
}

template <class Public>
void multichannel_correlator_impl<Public>::write_record(std::size_t i,
                                                        gr_complex* taps_out,
                                                        double* state_out) const
{
    const core::gnss_epoch_record& r = d_results.records[i];
    const std::complex<float>* taps = d_results.taps_of(i);
    std::copy(taps, taps + d_taps, taps_out);
    const auto info = d_info.find(r.channel_id);
    double* s = state_out;
    s[gnss_state_channel_id] = r.channel_id;
    s[gnss_state_epoch] = static_cast<double>(r.epoch);
    s[gnss_state_start_sample] = static_cast<double>(r.start_sample);
    s[gnss_state_sample_count] = r.sample_count;
    s[gnss_state_flags] = r.flags;
    s[gnss_state_prompt_sign] = r.prompt_sign;
    s[gnss_state_code_phase_chips] = r.code_phase_chips;
    s[gnss_state_code_rate_cps] = r.code_rate_cps;
    s[gnss_state_doppler_hz] = r.doppler_hz;
    s[gnss_state_carrier_phase_rad] = r.carrier_phase_rad;
    s[gnss_state_carrier_cycles] = r.carrier_cycles;
    s[gnss_state_cn0_dbhz] = r.cn0_dbhz;
    s[gnss_state_carrier_lock] = r.carrier_lock;
    s[gnss_state_pll_discriminator_rad] = r.pll_discriminator_rad;
    s[gnss_state_dll_discriminator_chips] = r.dll_discriminator_chips;
    s[gnss_state_prn] = info != d_info.end() ? info->second.prn : 0;
    s[gnss_state_system] = info != d_info.end() ? info->second.system : 0;
}

template <class Public>
void multichannel_correlator_impl<Public>::keep_overflow(std::size_t first)
{
    // Formatted now: the channel may be gone (and its info with it) by the time the
    // records go out.
    const std::size_t count = d_results.records.size() - first;
    d_overflow_taps.resize(count * d_taps);
    d_overflow_state.resize(count * gnss_state_field_count);
    for (std::size_t i = 0; i < count; ++i)
        write_record(first + i,
                     d_overflow_taps.data() + i * d_taps,
                     d_overflow_state.data() + i * gnss_state_field_count);
    d_overflow_first = 0;
    d_overflow_count = count;
    this->d_logger->debug("{} records wait for output space", count);
}

template <class Public>
int multichannel_correlator_impl<Public>::emit_overflow(gr_complex* taps_out,
                                                        double* state_out,
                                                        int space)
{
    const std::size_t n =
        std::min(d_overflow_count, static_cast<std::size_t>(std::max(space, 0)));
    std::copy_n(d_overflow_taps.data() + d_overflow_first * d_taps, n * d_taps, taps_out);
    std::copy_n(d_overflow_state.data() + d_overflow_first * gnss_state_field_count,
                n * gnss_state_field_count,
                state_out);
    d_overflow_first += n;
    d_overflow_count -= n;
    return static_cast<int>(n);
}

template <class Public>
void multichannel_correlator_impl<Public>::write_waiting_tags(std::uint64_t first_item,
                                                              std::size_t count)
{
    if (count == 0)
        return;
    for (gr::tag_t tag : d_event_tags) {
        tag.offset = first_item;
        this->add_item_tag(0, tag);
        this->add_item_tag(1, tag);
    }
    d_event_tags.clear();
    // A later call's records all end after this call's samples: a tag no record of
    // this call qualifies for goes to the next record written.
    std::vector<gr::tag_t> still_waiting;
    for (gr::tag_t tag : d_waiting_tags) {
        std::size_t i = 0;
        while (i < count &&
               d_results.records[i].start_sample + d_results.records[i].sample_count <=
                   tag.offset)
            ++i;
        if (i == count) {
            still_waiting.push_back(tag);
            continue;
        }
        tag.offset = first_item + i;
        this->add_item_tag(0, tag);
        this->add_item_tag(1, tag);
    }
    d_waiting_tags.swap(still_waiting);
}

template <class Public>
int multichannel_correlator_impl<Public>::general_work_body(
    int noutput_items,
    gr_vector_int& ninput_items,
    gr_vector_const_void_star& input_items,
    gr_vector_void_star& output_items)
{
    // GNU Radio ends a block whose input is done and fully consumed, so records never
    // wait in the block with all its input consumed: while overflow records wait, the
    // last sample given to the engine stays unconsumed (the engine is one sample ahead
    // of nitems_read), and is consumed once they are out.
    auto* taps_out = static_cast<gr_complex*>(output_items[0]);
    auto* state_out = static_cast<double*>(output_items[1]);
    const std::uint64_t read = this->nitems_read(0);
    const int held = static_cast<int>(d_engine->samples_processed() - read);

    int produced = emit_overflow(taps_out, state_out, noutput_items);
    if (d_overflow_count > 0)
        return produced;

    apply_changes();
    int consumed = held;
    const std::size_t available = static_cast<std::size_t>(ninput_items[0] - held);
    const int space = noutput_items - produced;
    if (available > 0 && space > 0 &&
        !d_batch.should_wait(*this, static_cast<int>(available))) {
        const std::size_t n = input_cap(space, available);
        const auto* in = static_cast<const char*>(input_items[0]) + held * d_item_bytes;
        d_results.clear();
        d_engine->process(in, n, d_results);
        d_samples_done.store(d_engine->samples_processed());
        consumed += static_cast<int>(n);

        const std::size_t records = d_results.records.size();
        const std::size_t fit = std::min(records, static_cast<std::size_t>(space));
        for (std::size_t i = 0; i < fit; ++i)
            write_record(i,
                         taps_out + (produced + i) * d_taps,
                         state_out + (produced + i) * gnss_state_field_count);
        if (fit < records) {
            keep_overflow(fit);
            consumed -= 1;
        }

        // Input tags of the samples consumed now go to the first record whose epoch
        // ends after them (see write_waiting_tags).
        std::vector<gr::tag_t> tags;
        this->get_tags_in_range(
            tags, 0, read, read + static_cast<std::uint64_t>(consumed));
        d_waiting_tags.insert(d_waiting_tags.end(), tags.begin(), tags.end());
        write_waiting_tags(this->nitems_written(0) + static_cast<std::uint64_t>(produced),
                           fit);
        produced += static_cast<int>(fit);
        // After the records are out (the overflow ones formatted): a removal of a lost
        // channel takes its prn and system with it.
        find_lost_channels();
        publish_lost_channels();
    } else if (consumed > 0) {
        std::vector<gr::tag_t> tags;
        this->get_tags_in_range(
            tags, 0, read, read + static_cast<std::uint64_t>(consumed));
        d_waiting_tags.insert(d_waiting_tags.end(), tags.begin(), tags.end());
    }
    this->consume_each(consumed);
    return produced;
}

template class multichannel_correlator_impl<multichannel_correlator_cc>;
template class multichannel_correlator_impl<multichannel_correlator_sc>;
template class multichannel_correlator_impl<multichannel_correlator_bc>;

} /* namespace cudadsp */
} /* namespace gr */
