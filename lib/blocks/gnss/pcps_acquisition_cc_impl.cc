/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/backend_log.h"
#include "blocks/gnss/gnss_channel_pmt.h"
#include "blocks/gnss/pcps_acquisition_cc_impl.h"
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

//! FLL assist of handed-off channels when channel_parameters does not set it.
constexpr double default_fll_bandwidth_hz = 10.0;

/*!
 * Correlator channel keys a detection may carry from channel_parameters: loops, taps
 * and the integration. The rest describe the satellite and its phases, which the
 * detection itself sets.
 */
const std::set<std::string>& tracking_keys()
{
    static const std::set<std::string> keys = {
        "tap_offsets_chips",
        "early_tap",
        "prompt_tap",
        "late_tap",
        "periods_per_integration",
        "pll_order",
        "pll_bandwidth_hz",
        "fll_bandwidth_hz",
        "dll_order",
        "dll_bandwidth_hz",
        "cn0_epochs",
        "cn0_lock_threshold_dbhz",
        "carrier_lock_threshold",
    };
    return keys;
}

//! A PMT dict's entries, in order; std::invalid_argument naming \p what otherwise.
std::vector<std::pair<std::string, pmt::pmt_t>> dict_entries(const pmt::pmt_t& dict,
                                                             const std::string& what)
{
    std::vector<std::pair<std::string, pmt::pmt_t>> entries;
    if (pmt::is_null(dict))
        return entries;
    if (!pmt::is_pair(dict) || !pmt::is_pair(pmt::car(dict)))
        throw std::invalid_argument(what + ": must be a dict of channel keys, got " +
                                    pmt::write_string(dict).substr(0, 80));
    for (pmt::pmt_t p = dict; pmt::is_pair(p); p = pmt::cdr(p)) {
        const pmt::pmt_t item = pmt::car(p);
        if (!pmt::is_pair(item) || !pmt::is_symbol(pmt::car(item)))
            throw std::invalid_argument(what + ": keys must be strings");
        entries.emplace_back(pmt::symbol_to_string(pmt::car(item)), pmt::cdr(item));
    }
    return entries;
}

/*!
 * The satellites to search: \p satellites as the engine checks them, or for an empty
 * list all of the signal's that the stream holds (GLONASS: the frequency numbers whose
 * carrier fits in +-fs / 2), the others in \p left_out.
 */
std::vector<int> searched_satellites(const std::vector<int>& satellites,
                                     const core::pcps_acquisition_config& config,
                                     std::vector<int>& left_out)
{
    if (!satellites.empty()) {
        config.check_satellites(satellites, "satellites");
        return satellites;
    }
    for (int s : config.signal_satellites())
        if (!config.satellite_in_stream(s))
            left_out.push_back(s);
    const std::vector<int> held = config.satellites_in_stream();
    if (held.empty())
        throw std::invalid_argument(
            "satellites: empty (all of " + core::to_string(config.signal) +
            "), but none lies inside +-sample_rate_hz / 2 with its Doppler window at "
            "sample_rate_hz " +
            gnss_number_text(config.sample_rate_hz) + ", intermediate_frequency_hz " +
            gnss_number_text(config.intermediate_frequency_hz));
    return held;
}

//! stream_mode: whether the stream is held back for the searches ("recording").
bool holds_stream(const std::string& stream_mode)
{
    if (stream_mode == "recording")
        return true;
    if (stream_mode != "live")
        throw std::invalid_argument(
            "stream_mode: must be \"live\" (an SDR) or \"recording\" (a file, a "
            "finite stream), got " +
            core::quoted_text(stream_mode));
    return false;
}

std::size_t positive(std::size_t value, const char* name)
{
    if (value < 1)
        throw std::invalid_argument(std::string(name) + ": must be >= 1, got " +
                                    std::to_string(value));
    return value;
}

/*!
 * channel_parameters: only tracking keys, and values the correlator's channel parser
 * takes (a trial detection dict with them is parsed here, so that a bad value fails
 * at construction rather than as refused channels at run time).
 */
std::vector<std::pair<std::string, pmt::pmt_t>>
checked_channel_parameters(const pmt::pmt_t& parameters,
                           const core::pcps_acquisition_config& config,
                           const std::string& galileo_channel_system,
                           int first_satellite)
{
    const auto entries = dict_entries(parameters, "channel_parameters");
    pmt::pmt_t trial = pmt::make_dict();
    trial = pmt::dict_add(trial, pmt::intern("id"), pmt::from_long(0));
    const bool glonass = config.signal == core::acquisition_signal::glonass_l1of;
    trial =
        pmt::dict_add(trial,
                      pmt::intern("system"),
                      pmt::intern(glonass ? "glonass_l1of"
                                  : config.signal == core::acquisition_signal::galileo_e1
                                      ? galileo_channel_system
                                      : "gps_l1ca"));
    trial = pmt::dict_add(trial,
                          pmt::intern(glonass ? "frequency_number" : "prn"),
                          pmt::from_long(first_satellite));
    std::size_t taps = 3;
    for (const auto& [key, value] : entries) {
        if (!tracking_keys().count(key)) {
            std::string allowed;
            for (const std::string& k : tracking_keys())
                allowed += (allowed.empty() ? "" : ", ") + k;
            throw std::invalid_argument("channel_parameters." + key +
                                        ": not a tracking parameter the acquisition "
                                        "passes on (allowed: " +
                                        allowed + ")");
        }
        trial = pmt::dict_add(trial, pmt::intern(key), value);
        if (key == "tap_offsets_chips" && pmt::is_vector(value))
            taps = pmt::length(value);
        else if (key == "tap_offsets_chips" && pmt::is_f64vector(value))
            taps = pmt::length(value);
    }
    core::multichannel_correlator_config correlator;
    correlator.sample_rate_hz = config.sample_rate_hz;
    correlator.taps = std::clamp<std::size_t>(taps, 1, core::gnss_max_taps);
    correlator.max_channels = 1;
    core::gnss_channel_defaults defaults;
    // The trial channel is checked with the taps a receiver uses for this signal.
    defaults.tap_offsets_chips = core::gnss_receiver_tap_offsets(config.signal);
    defaults.intermediate_frequency_hz = config.intermediate_frequency_hz;
    try {
        parse_gnss_channel(trial, defaults, correlator);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("channel_parameters.") + e.what());
    }
    return entries;
}

/*!
 * \p config validated (each error naming the field by its keyword name), with what
 * follows from it: the satellites to search, the stream mode, the detections' keys.
 */
pcps_acquisition_setup make_setup(const pcps_acquisition_block_config& config)
{
    pcps_acquisition_setup s;
    s.config = config.acquisition;
    const core::pcps_acquisition_config& c = s.config;
    c.validate();
    s.satellites = searched_satellites(config.satellites, c, s.left_out);
    s.hold_stream = holds_stream(config.stream_mode);
    s.max_channels = positive(config.max_channels, "max_channels");
    s.satellites_per_search =
        positive(config.satellites_per_search, "satellites_per_search");
    s.first_channel_id = config.first_channel_id;
    if (config.galileo_channel_system != "galileo_e1b" &&
        config.galileo_channel_system != "galileo_e1c")
        throw std::invalid_argument(
            "galileo_channel_system: must be \"galileo_e1b\" (the data code, whose "
            "I/NAV a telemetry decoder reads) or \"galileo_e1c\" (the pilot), got " +
            core::quoted_text(config.galileo_channel_system));
    s.galileo_channel_system = config.galileo_channel_system;
    s.channel_parameters = checked_channel_parameters(
        config.channel_parameters, c, s.galileo_channel_system, s.satellites.front());
    // The refined Doppler is a few tens of Hz off at 1 ms coherent time: beyond what a
    // PLL alone pulls in, so the FLL assists until carrier lock unless told otherwise.
    const bool fll_given =
        std::any_of(s.channel_parameters.begin(),
                    s.channel_parameters.end(),
                    [](const auto& e) { return e.first == "fll_bandwidth_hz"; });
    if (!fll_given)
        s.channel_parameters.emplace_back("fll_bandwidth_hz",
                                          pmt::from_double(default_fll_bandwidth_hz));
    return s;
}

//! A channel id in an event: an integer in [0, 2^32); false otherwise.
bool event_id(const pmt::pmt_t& value, std::uint32_t& id)
{
    if (pmt::is_uint64(value)) {
        const std::uint64_t u = pmt::to_uint64(value);
        if (u > std::numeric_limits<std::uint32_t>::max())
            return false;
        id = static_cast<std::uint32_t>(u);
        return true;
    }
    if (pmt::is_integer(value)) {
        const long l = pmt::to_long(value);
        if (l < 0 || l > long(std::numeric_limits<std::uint32_t>::max()))
            return false;
        id = static_cast<std::uint32_t>(l);
        return true;
    }
    return false;
}

} // namespace

// ------------------------------------------------------------------------------------
// make()
// ------------------------------------------------------------------------------------

template <class Item>
typename pcps_acquisition<Item>::sptr
pcps_acquisition<Item>::make(const pcps_acquisition_block_config& config)
{
    return gnuradio::make_block_sptr<pcps_acquisition_impl<pcps_acquisition<Item>>>(
        make_setup(config), pcps_acquisition_input<pcps_acquisition<Item>>::block_name);
}

template class pcps_acquisition<gr_complex>;
template class pcps_acquisition<std::complex<std::int16_t>>;

// ------------------------------------------------------------------------------------
// Construction and accessors
// ------------------------------------------------------------------------------------

template <class Public>
pcps_acquisition_impl<Public>::pcps_acquisition_impl(const pcps_acquisition_setup& setup,
                                                     const char* name)
    : gr::sync_block(name,
                     gr::io_signature::make(
                         1, 1, static_cast<int>(sizeof(value_type) * values_per_item)),
                     gr::io_signature::make(0, 0, 0)),
      d_engine(core::pcps_acquisition::make(setup.config)),
      d_search_samples(setup.config.search_samples()),
      d_satellites_per_search(setup.satellites_per_search),
      d_hold_stream(setup.hold_stream),
      d_channel_parameters(setup.channel_parameters),
      d_galileo_channel_system(setup.galileo_channel_system),
      d_detections_port(pmt::intern("detections")),
      d_list(setup.satellites, setup.max_channels, setup.first_channel_id),
      d_buffer(setup.config.search_samples() * values_per_item)
{
    log_backend(this->d_logger, d_engine->device());
    if (!setup.left_out.empty())
        this->d_logger->info(
            "satellites: all {} the stream holds are searched: {}; left "
            "out, outside +-sample_rate_hz / 2 = +-{} Hz with the Doppler "
            "window: {}",
            signal(),
            core::integers_text(setup.satellites),
            gnss_number_text(0.5 * setup.config.sample_rate_hz),
            core::integers_text(setup.left_out));
    this->message_port_register_out(d_detections_port);
    const pmt::pmt_t lost = pmt::intern("lost");
    this->message_port_register_in(lost);
    this->set_msg_handler(lost, [this](const pmt::pmt_t& msg) { handle_event(msg); });
}

template <class Public>
pcps_acquisition_impl<Public>::~pcps_acquisition_impl()
{
    stop_worker();
}

template <class Public>
std::vector<int> pcps_acquisition_impl<Public>::searching() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_list.searching();
}

template <class Public>
std::vector<int> pcps_acquisition_impl<Public>::tracked() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_list.tracked();
}

template <class Public>
std::vector<std::uint32_t> pcps_acquisition_impl<Public>::tracked_ids() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_list.tracked_ids();
}

template <class Public>
std::uint64_t pcps_acquisition_impl<Public>::searches_completed() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_searches;
}

template <class Public>
std::uint64_t pcps_acquisition_impl<Public>::samples_dropped() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_dropped;
}

template <class Public>
std::uint64_t pcps_acquisition_impl<Public>::samples_searched() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_searched;
}

template <class Public>
std::uint64_t pcps_acquisition_impl<Public>::detections_published() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_published;
}

template <class Public>
std::uint64_t pcps_acquisition_impl<Public>::search_samples() const
{
    return d_search_samples;
}

template <class Public>
double pcps_acquisition_impl<Public>::sample_rate_hz() const
{
    return d_engine->config().sample_rate_hz;
}

template <class Public>
std::string pcps_acquisition_impl<Public>::signal() const
{
    return core::to_string(d_engine->config().signal);
}

template <class Public>
std::string pcps_acquisition_impl<Public>::input_format() const
{
    return values_per_item == 1 ? "cf32" : "ci16";
}

template <class Public>
std::string pcps_acquisition_impl<Public>::backend() const
{
    return d_engine->device().to_string();
}

template <class Public>
std::string pcps_acquisition_impl<Public>::stream_mode() const
{
    return d_hold_stream ? "recording" : "live";
}

// ------------------------------------------------------------------------------------
// Hand-off
// ------------------------------------------------------------------------------------

template <class Public>
pmt::pmt_t pcps_acquisition_impl<Public>::detection_dict(
    const core::acquisition_detection& detection, std::uint32_t id) const
{
    const core::acquisition_channel_fields f = d_engine->channel_fields(detection);
    pmt::pmt_t d = pmt::make_dict();
    const auto add = [&d](const char* key, const pmt::pmt_t& value) {
        d = pmt::dict_add(d, pmt::intern(key), value);
    };
    add("id", pmt::from_uint64(id));
    // The engine names the pilot: the code searched is B and C alike, and one code
    // period's phase is the same on both.
    add("system",
        pmt::intern(f.system == "galileo_e1c" ? d_galileo_channel_system : f.system));
    if (f.system == "glonass_l1of") {
        add("frequency_number", pmt::from_long(f.frequency_number));
    } else {
        add("prn", pmt::from_long(f.prn));
    }
    if (f.system == "galileo_e1b" || f.system == "galileo_e1c")
        add("boc", pmt::from_bool(f.boc));
    add("code_phase_chips", pmt::from_double(f.code_phase_chips));
    add("doppler_hz", pmt::from_double(f.doppler_hz));
    add("intermediate_frequency_hz", pmt::from_double(f.intermediate_frequency_hz));
    add("start_sample", pmt::from_uint64(f.start_sample));
    add("mode", pmt::intern("tracking"));
    for (const auto& [key, value] : d_channel_parameters)
        d = pmt::dict_add(d, pmt::intern(key), value);
    return d;
}

template <class Public>
std::vector<core::acquisition_detection>
pcps_acquisition_impl<Public>::run_search(const std::vector<int>& group,
                                          std::uint64_t first_sample)
{
    std::vector<core::acquisition_detection> results;
    d_engine->search(d_buffer.data(), d_search_samples, first_sample, group, results);
    std::vector<core::acquisition_detection> found;
    for (const core::acquisition_detection& r : results)
        if (r.detected)
            found.push_back(r);
    // Strongest first: when channels are short, the best detections get them.
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        return a.metric / a.threshold > b.metric / b.threshold;
    });
    return found;
}

template <class Public>
void pcps_acquisition_impl<Public>::publish_found(std::unique_lock<std::mutex>& lock)
{
    std::vector<std::pair<core::acquisition_detection, std::uint32_t>> handed;
    for (const core::acquisition_detection& r : d_found) {
        std::uint32_t id = 0;
        if (d_list.hand_off(r.satellite, id))
            handed.emplace_back(r, id);
    }
    d_found.clear();
    d_published += handed.size();
    lock.unlock();
    for (const auto& [r, id] : handed) {
        this->d_logger->info("{} {} detected at sample {}: Doppler {} Hz, code phase {} "
                             "chips, C/N0 about {} dB-Hz, metric {} (threshold {}); "
                             "channel {}",
                             signal(),
                             r.satellite,
                             r.start_sample,
                             gnss_number_text(r.doppler_hz),
                             gnss_number_text(r.code_phase_chips),
                             gnss_number_text(std::round(r.cn0_dbhz * 10.0) / 10.0),
                             gnss_number_text(r.metric),
                             gnss_number_text(r.threshold),
                             id);
        this->message_port_pub(d_detections_port, detection_dict(r, id));
    }
    lock.lock();
}

template <class Public>
bool pcps_acquisition_impl<Public>::collect_search(std::unique_lock<std::mutex>& lock)
{
    if (d_hold_stream)
        d_idle.wait(lock, [this] { return !d_busy; });
    if (d_failure)
        std::rethrow_exception(d_failure);
    if (!d_found.empty())
        publish_found(lock);
    return !d_busy;
}

template <class Public>
void pcps_acquisition_impl<Public>::handle_event(const pmt::pmt_t& msg)
{
    // The correlator's events: lost (loss of lock), remove (the channel is gone) and
    // error (a channel refused) give a satellite back; add and reinit say nothing new.
    const auto ignore = [this, &msg](const char* why) {
        d_ignored_event_log.log(this->d_logger,
                                std::string("\"lost\" message ignored: ") + why +
                                    ", got " + pmt::write_string(msg).substr(0, 120));
    };
    try {
        if (!pmt::is_pair(msg) || !pmt::is_pair(pmt::car(msg)))
            return ignore("must be a dict (a correlator event)");
        const pmt::pmt_t event = pmt::dict_ref(msg, pmt::intern("event"), pmt::PMT_NIL);
        if (!pmt::is_symbol(event))
            return ignore("\"event\" must be a string");
        const std::string name = pmt::symbol_to_string(event);
        if (name != "lost" && name != "remove" && name != "error")
            return;
        const pmt::pmt_t value = pmt::dict_ref(msg, pmt::intern("id"), pmt::PMT_NIL);
        std::uint32_t id = 0;
        if (!event_id(value, id)) {
            // A message refused as a whole names its port, not a channel: nothing of
            // ours to give back (the acquisition sends one channel per message).
            if (name != "error")
                ignore("\"id\" must be a channel id (an integer in [0, 2^32))");
            return;
        }
        int satellite = 0;
        bool released = false;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            released = d_list.release(id, satellite);
        }
        if (released)
            this->d_logger->info("{} {} (channel {}) returns to the search: {}",
                                 signal(),
                                 satellite,
                                 id,
                                 name);
    } catch (const std::exception& e) {
        ignore(e.what());
    }
}

// ------------------------------------------------------------------------------------
// Streaming
// ------------------------------------------------------------------------------------

template <class Public>
void pcps_acquisition_impl<Public>::worker_loop()
{
    std::unique_lock<std::mutex> lock(d_mutex);
    for (;;) {
        d_wake.wait(lock, [this] { return d_stopping || d_job_ready; });
        if (d_job_ready) {
            d_job_ready = false;
            const std::vector<int> group = d_job_group;
            const std::uint64_t first = d_job_first_sample;
            lock.unlock();
            std::exception_ptr failure;
            std::vector<core::acquisition_detection> found;
            try {
                found = run_search(group, first);
            } catch (...) {
                failure = std::current_exception();
            }
            lock.lock();
            d_busy = false;
            ++d_searches;
            d_searched += d_search_samples;
            d_found = std::move(found);
            if (failure && !d_failure)
                d_failure = failure;
            d_idle.notify_all();
            continue;
        }
        if (d_stopping)
            return;
    }
}

template <class Public>
bool pcps_acquisition_impl<Public>::start()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_stopping = false;
        d_filled = 0;
        d_found.clear();
    }
    if (!d_worker.joinable())
        d_worker = std::thread([this] { worker_loop(); });
    return gr::sync_block::start();
}

template <class Public>
void pcps_acquisition_impl<Public>::stop_worker()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_stopping = true;
    }
    d_wake.notify_all();
    if (d_worker.joinable())
        d_worker.join();
}

template <class Public>
bool pcps_acquisition_impl<Public>::stop()
{
    // The scheduler calls stop() after the block is done: a message published now
    // would reach no subscriber that has finished, so a search still running (live
    // mode) is waited for and its detections are only reported here.
    stop_worker();
    d_ignored_event_log.report(this->d_logger);
    std::lock_guard<std::mutex> lock(d_mutex);
    if (!d_found.empty()) {
        std::vector<int> lost;
        for (const core::acquisition_detection& r : d_found)
            lost.push_back(r.satellite);
        this->d_logger->warn("the stream ended during a search: its detections ({} {}) "
                             "are not published; stream_mode \"recording\" searches a "
                             "finite stream whole",
                             signal(),
                             core::integers_text(lost));
        d_found.clear();
    }
    if (d_hold_stream && d_filled > 0)
        this->d_logger->info("the last {} samples of the stream, fewer than one search "
                             "takes ({}), were not searched",
                             d_filled,
                             d_search_samples);
    return gr::sync_block::stop();
}

template <class Public>
int pcps_acquisition_impl<Public>::work_body(int noutput_items,
                                             gr_vector_const_void_star& input_items,
                                             gr_vector_void_star&)
{
    const auto* in = static_cast<const value_type*>(input_items[0]);
    const std::size_t n = static_cast<std::size_t>(noutput_items);
    const std::uint64_t read = this->nitems_read(0);
    std::unique_lock<std::mutex> lock(d_mutex);
    std::size_t i = 0;
    while (i < n) {
        if (!collect_search(lock)) {
            d_dropped += n - i; // live mode: a search is running
            break;
        }
        if (d_filled == 0) {
            if (!d_list.anything_to_search())
                break; // all satellites tracked or all channels used: nothing to do
            d_fill_start = read + i;
        }
        const std::size_t take = std::min(n - i, d_search_samples - d_filled);
        std::copy_n(in + i * values_per_item,
                    take * values_per_item,
                    d_buffer.data() + d_filled * values_per_item);
        d_filled += take;
        i += take;
        if (d_filled < d_search_samples)
            break;
        d_filled = 0;
        // The group is chosen now, not when filling began, so that a satellite given
        // back meanwhile is already in it.
        d_job_group = d_list.next_group(d_satellites_per_search);
        if (d_job_group.empty())
            continue;
        d_job_first_sample = d_fill_start;
        d_job_ready = true;
        d_busy = true;
        d_wake.notify_one();
    }
    // Recording mode: the search started last is published before work() returns, so
    // that the end of a finite stream finds every detection out.
    if (d_hold_stream)
        collect_search(lock);
    return noutput_items;
}

template class pcps_acquisition_impl<pcps_acquisition_cc>;
template class pcps_acquisition_impl<pcps_acquisition_sc>;

} /* namespace cudadsp */
} /* namespace gr */
