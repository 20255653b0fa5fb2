/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_PCPS_ACQUISITION_CC_IMPL_H
#define INCLUDED_CUDADSP_PCPS_ACQUISITION_CC_IMPL_H

#include "blocks/common/rate_limited_log.h"
#include "blocks/common/work_errors.h"
#include "blocks/gnss/gnss_search_list.h"
#include <gnuradio/cudadsp/core/pcps_acquisition.h>
#include <gnuradio/cudadsp/pcps_acquisition_cc.h>
#include <condition_variable>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {

//! What make() validated: the engine's config and the block's own parameters.
struct pcps_acquisition_setup {
    core::pcps_acquisition_config config;
    std::vector<int> satellites;
    //! The signal's satellites the stream cannot hold, left out of an empty list.
    std::vector<int> left_out;
    //! stream_mode "recording": every sample searched, the stream waits for searches.
    bool hold_stream = false;
    std::size_t max_channels = 0;
    std::size_t satellites_per_search = 0;
    std::uint32_t first_channel_id = 0;
    //! The "system" of a Galileo detection's channel: "galileo_e1b" or "galileo_e1c".
    std::string galileo_channel_system;
    //! (key, value) pairs every detection dict ends with.
    std::vector<std::pair<std::string, pmt::pmt_t>> channel_parameters;
};

//! What each input item of pcps_acquisition<Item> fixes: the engine's sample type, its
//! count per item and the block name.
template <class Public>
struct pcps_acquisition_input;
template <>
struct pcps_acquisition_input<pcps_acquisition_cc> {
    using value = std::complex<float>;
    static constexpr std::size_t values_per_item = 1;
    static constexpr const char* block_name = "pcps_acquisition_cc";
};
template <>
struct pcps_acquisition_input<pcps_acquisition_sc> {
    using value = std::int16_t; //!< I, Q
    static constexpr std::size_t values_per_item = 2;
    static constexpr const char* block_name = "pcps_acquisition_sc";
};

/*!
 * The implementation of pcps_acquisition<Item>; \p Public (the typedef) fixes the block
 * name and the input item.
 *
 * Threads: work() and the message handler of "lost" (both the scheduler's thread of
 * the block), and the worker that runs searches. The search list, the job handed to
 * the worker, its detections and the counters are under d_mutex. The dwell buffer
 * belongs to work() while no search runs and to the worker while one does (d_busy,
 * set and cleared under the mutex). The worker only searches: work() hands the
 * detections off and publishes them, so that every message leaves before the
 * scheduler can declare the block done (a message posted after that never reaches
 * subscribers that have finished).
 */
template <class Public>
class pcps_acquisition_impl : public guarded_work<pcps_acquisition_impl<Public>, Public>
{
public:
    pcps_acquisition_impl(const pcps_acquisition_setup& setup, const char* name);
    ~pcps_acquisition_impl() override;

    std::vector<int> searching() const override;
    std::vector<int> tracked() const override;
    std::vector<std::uint32_t> tracked_ids() const override;
    std::uint64_t searches_completed() const override;
    std::uint64_t samples_dropped() const override;
    std::uint64_t samples_searched() const override;
    std::uint64_t detections_published() const override;
    std::uint64_t search_samples() const override;
    double sample_rate_hz() const override;
    std::string signal() const override;
    std::string input_format() const override;
    std::string backend() const override;
    std::string stream_mode() const override;

    bool start() override;
    bool stop() override;
    //! work()'s body: guarded_work (work_errors.h) runs it in work().
    int work_body(int noutput_items,
                  gr_vector_const_void_star& input_items,
                  gr_vector_void_star& output_items);

private:
    using value_type = typename pcps_acquisition_input<Public>::value;
    static constexpr std::size_t values_per_item =
        pcps_acquisition_input<Public>::values_per_item;

    void worker_loop();
    //! One search of the dwell buffer: its detections, strongest first.
    std::vector<core::acquisition_detection> run_search(const std::vector<int>& group,
                                                        std::uint64_t first_sample);
    /*!
     * work()'s side of a search (\p lock holds d_mutex): in recording mode waits for a
     * running search; rethrows a search's failure; hands off and publishes the
     * detections of a finished one. Returns whether the dwell buffer is free.
     */
    bool collect_search(std::unique_lock<std::mutex>& lock);
    //! The detections of the finished search handed off and published (\p lock held).
    void publish_found(std::unique_lock<std::mutex>& lock);
    //! The channel dict of a detection handed off as channel \p id.
    pmt::pmt_t detection_dict(const core::acquisition_detection& detection,
                              std::uint32_t id) const;
    //! The "lost" port's handler: never throws.
    void handle_event(const pmt::pmt_t& msg);
    //! Malformed events: a log line per interval, the others counted.
    rate_limited_log d_ignored_event_log{ rate_limited_log::level::warn,
                                          "\"lost\" messages ignored" };
    void stop_worker();

    const std::unique_ptr<core::pcps_acquisition> d_engine;
    const std::size_t d_search_samples;
    const std::size_t d_satellites_per_search;
    const bool d_hold_stream;
    const std::vector<std::pair<std::string, pmt::pmt_t>> d_channel_parameters;
    const std::string d_galileo_channel_system;
    const pmt::pmt_t d_detections_port;

    mutable std::mutex d_mutex;
    std::condition_variable d_wake; //!< the worker: a job, or stop
    std::condition_variable d_idle; //!< work(): a search finished
    gnss_search_list d_list;
    std::vector<value_type> d_buffer; //!< search_samples() items
    std::size_t d_filled = 0;         //!< items in d_buffer (work() thread)
    std::uint64_t d_fill_start = 0;   //!< absolute index of d_buffer's first item
    bool d_busy = false;              //!< a search owns d_buffer
    bool d_job_ready = false;
    bool d_stopping = false;
    std::vector<int> d_job_group;
    std::uint64_t d_job_first_sample = 0;
    //! The finished search's detections, strongest first, until work() publishes them.
    std::vector<core::acquisition_detection> d_found;
    std::exception_ptr d_failure; //!< a search's exception, rethrown by work()
    std::uint64_t d_searches = 0;
    std::uint64_t d_dropped = 0;
    std::uint64_t d_searched = 0;
    std::uint64_t d_published = 0;
    std::thread d_worker;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_PCPS_ACQUISITION_CC_IMPL_H */
