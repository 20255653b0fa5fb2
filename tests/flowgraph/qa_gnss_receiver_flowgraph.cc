/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The receiver front end in C++ (what the GPU host runs; its Python has no GNU Radio):
// pcps_acquisition_cc and multichannel_correlator_cc on one stream, detections -> add,
// events -> lost, no channel written by hand. Six simulated GPS satellites must all
// lock (code and carrier lock flags, on the simulator's truth: code phase within 0.1
// chip, Doppler within 10 Hz). On CUDA the stream is fed without a throttle (faster
// than real time) and all six must lock within 1 s of stream; on the CPU the stream
// is throttled to real rate (the CPU's searches take longer than the signal) and the
// stream time is printed. A CUDA case also measures 12 tracked satellites while 20
// more PRNs are searched continuously, at 4 and 25 Msps, as processing rate over
// signal rate (printed, not asserted: shared machines). The acquisition alone in
// stream_mode "recording" on a finite stream through a head: every sample searched,
// every detection received by the subscriber, in each of three runs.

#include "qa_run_flowgraph.h"
#include "qa_support.h"
#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/message_debug.h>
#include <gnuradio/blocks/throttle.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <gnuradio/cudadsp/multichannel_correlator_cc.h>
#include <gnuradio/cudadsp/pcps_acquisition_cc.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {

namespace {

constexpr double chips = 1023.0;

std::vector<core::gnss_simulated_satellite> satellites(std::size_t count)
{
    std::vector<core::gnss_simulated_satellite> sats;
    for (std::size_t i = 0; i < count; ++i) {
        core::gnss_simulated_satellite s;
        const int prn = static_cast<int>(2 + 5 * i % 31); // distinct PRNs in 1..32
        s.code = core::gps_l1ca_code(prn);
        s.code_phase_chips = std::fmod(101.3 + 173.9 * double(i), chips);
        s.doppler_hz = -4400.0 + 790.0 * double(i % 12);
        s.cn0_dbhz = 43.0 + double(i % 4);
        sats.push_back(s);
    }
    return sats;
}

int prn_of(std::size_t i) { return static_cast<int>(2 + 5 * i % 31); }

//! The simulator as a source, generating as fast as it is read.
class simulator_source : public gr::sync_block
{
public:
    using sptr = std::shared_ptr<simulator_source>;
    static sptr make(const core::gnss_signal_simulator& sim, std::uint64_t nsamples)
    {
        return gnuradio::make_block_sptr<simulator_source>(sim, nsamples);
    }
    simulator_source(const core::gnss_signal_simulator& sim, std::uint64_t nsamples)
        : gr::sync_block("simulator_source",
                         gr::io_signature::make(0, 0, 0),
                         gr::io_signature::make(1, 1, sizeof(gr_complex))),
          d_sim(sim),
          d_nsamples(nsamples)
    {
    }
    int work(int n, gr_vector_const_void_star&, gr_vector_void_star& out) override
    {
        const std::uint64_t left = d_nsamples - d_sim.position();
        if (left == 0)
            return -1;
        const std::size_t count =
            static_cast<std::size_t>(std::min<std::uint64_t>(n, left));
        d_sim.generate(static_cast<gr_complex*>(out[0]), count);
        return static_cast<int>(count);
    }

private:
    core::gnss_signal_simulator d_sim;
    const std::uint64_t d_nsamples;
};

/*!
 * Reads the correlator's records and notes, per simulated satellite, the first sample
 * at which a record of its PRN is in code and carrier lock on the truth.
 */
class lock_watch : public gr::sync_block
{
public:
    using sptr = std::shared_ptr<lock_watch>;
    static sptr make(const core::gnss_signal_simulator& truth, std::size_t taps)
    {
        return gnuradio::make_block_sptr<lock_watch>(truth, taps);
    }
    lock_watch(const core::gnss_signal_simulator& truth, std::size_t taps)
        : gr::sync_block(
              "lock_watch",
              gr::io_signature::makev(
                  2,
                  2,
                  { static_cast<int>(sizeof(gr_complex) * taps),
                    static_cast<int>(sizeof(double) * gnss_state_field_count) }),
              gr::io_signature::make(0, 0, 0)),
          d_truth(truth)
    {
    }
    int work(int n, gr_vector_const_void_star& in, gr_vector_void_star&) override
    {
        const auto* state = static_cast<const double*>(in[1]);
        const std::uint32_t locked =
            core::gnss_flag_code_lock | core::gnss_flag_carrier_lock;
        std::lock_guard<std::mutex> lock(d_mutex);
        for (int r = 0; r < n; ++r) {
            const double* s = state + std::size_t(r) * gnss_state_field_count;
            ++d_records;
            const auto flags = static_cast<std::uint32_t>(s[gnss_state_flags]);
            if ((flags & locked) != locked)
                continue;
            const int prn = static_cast<int>(s[gnss_state_prn]);
            for (std::size_t i = 0; i < d_truth.satellite_count(); ++i) {
                if (prn_of(i) != prn || d_first_lock.count(prn))
                    continue;
                const double at = s[gnss_state_start_sample] + s[gnss_state_sample_count];
                double d = std::fmod(s[gnss_state_code_phase_chips] -
                                         d_truth.code_phase_chips(i, at) + 10 * chips,
                                     chips);
                d = std::min(d, chips - d);
                if (d < 0.1 && std::fabs(s[gnss_state_doppler_hz] -
                                         d_truth.doppler_hz(i, at)) < 10.0)
                    d_first_lock[prn] = static_cast<std::uint64_t>(at);
            }
        }
        return n;
    }
    std::map<int, std::uint64_t> first_locks() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_first_lock;
    }
    std::uint64_t records() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_records;
    }

private:
    const core::gnss_signal_simulator d_truth;
    mutable std::mutex d_mutex;
    std::map<int, std::uint64_t> d_first_lock;
    std::uint64_t d_records = 0;
};

struct receiver {
    pcps_acquisition_cc::sptr acquisition;
    multichannel_correlator_cc::sptr correlator;
    lock_watch::sptr watch;
};

//! The receiver's search in these tests: +-5 kHz, K = 4 (the other fields' defaults).
pcps_acquisition_block_config acquisition_config(double fs, const std::string& device)
{
    pcps_acquisition_block_config config;
    config.acquisition.sample_rate_hz = fs;
    config.acquisition.doppler_max_hz = 5e3;
    config.acquisition.noncoherent_dwells = 4;
    config.acquisition.device = device;
    return config;
}

receiver connect_receiver(gr::top_block_sptr tb,
                          gr::basic_block_sptr source,
                          double fs,
                          int max_channels,
                          const core::gnss_signal_simulator& truth,
                          const std::string& device)
{
    receiver rx;
    pcps_acquisition_block_config search = acquisition_config(fs, device);
    search.max_channels = static_cast<std::size_t>(max_channels);
    rx.acquisition = pcps_acquisition_cc::make(search);
    multichannel_correlator_block_config tracking;
    tracking.sample_rate_hz = fs;
    tracking.max_channels = static_cast<std::size_t>(max_channels);
    tracking.device = device;
    rx.correlator = multichannel_correlator_cc::make(tracking);
    rx.watch = lock_watch::make(truth, 3);
    tb->connect(source, 0, rx.acquisition, 0);
    tb->connect(source, 0, rx.correlator, 0);
    tb->connect(rx.correlator, 0, rx.watch, 0);
    tb->connect(rx.correlator, 1, rx.watch, 1);
    tb->msg_connect(rx.acquisition, "detections", rx.correlator, "add");
    tb->msg_connect(rx.correlator, "events", rx.acquisition, "lost");
    return rx;
}

} // namespace

class qa_gnss_receiver_flowgraph : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_gnss_receiver_flowgraph);
    QA_BACKEND_TEST(six_satellites_lock);
    QA_BACKEND_TEST(recording_through_head);
    QA_CUDA_TEST(tracking_while_searching_rate);
    CPPUNIT_TEST_SUITE_END();

public:
    void six_satellites_lock(const std::string& device)
    {
        const double fs = 4e6;
        core::gnss_simulator_config config;
        config.sample_rate_hz = fs;
        config.seed = 41;
        const core::gnss_signal_simulator sim(config, satellites(6));
        // CUDA: throttle-free, as fast as the source goes (at least real rate); CPU,
        // and CUDA under a sanitizer (whose searches then take longer than the
        // signal): real rate, as a live receiver.
        const bool unthrottled = device == "cuda" && !qa::sanitizer_run();
        const double stream_s = unthrottled ? 2.0 : 20.0;
        auto tb = gr::make_top_block("qa_gnss_receiver_flowgraph");
        auto src = simulator_source::make(sim, std::uint64_t(stream_s * fs));
        gr::basic_block_sptr feed = src;
        if (!unthrottled) {
            auto throttle = gr::blocks::throttle::make(sizeof(gr_complex), fs);
            tb->connect(src, 0, throttle, 0);
            feed = throttle;
        }
        receiver rx = connect_receiver(tb, feed, fs, 12, sim, device);
        const auto t0 = std::chrono::steady_clock::now();
        tb->start();
        // Stop once all six are locked, or at the end of the stream.
        std::atomic<bool> done{ false };
        std::thread waiter([&] {
            tb->wait();
            done = true;
        });
        while (!done && rx.watch->first_locks().size() < 6 &&
               std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        tb->stop();
        waiter.join();

        const std::map<int, std::uint64_t> locks = rx.watch->first_locks();
        std::uint64_t last = 0;
        for (std::size_t i = 0; i < 6; ++i) {
            const auto it = locks.find(prn_of(i));
            std::cout << "qa_gnss_receiver_flowgraph[" << device << "]: PRN " << prn_of(i)
                      << (it == locks.end()
                              ? " never locked"
                              : " locked at " + std::to_string(double(it->second) / fs) +
                                    " s of stream")
                      << std::endl;
            if (it != locks.end())
                last = std::max(last, it->second);
        }
        std::cout << "qa_gnss_receiver_flowgraph[" << device
                  << "]: six satellites locked after " << double(last) / fs
                  << " s of stream, " << wall << " s wall ("
                  << rx.acquisition->searches_completed() << " searches, "
                  << rx.acquisition->samples_dropped() << " samples dropped, backend "
                  << rx.acquisition->backend() << ")" << std::endl;
        CPPUNIT_ASSERT_EQUAL(std::size_t(6), locks.size());
        if (unthrottled)
            CPPUNIT_ASSERT_MESSAGE("all six locked within 1 s of stream",
                                   double(last) / fs <= 1.0);
    }

    void recording_through_head(const std::string& device)
    {
        // stream_mode "recording": a finite stream through a head, unthrottled, is
        // searched whole, and the detections of its one search, which the end of the
        // stream meets running, all reach the subscriber; three runs, the same.
        const double fs = 4e6;
        core::gnss_simulator_config config;
        config.sample_rate_hz = fs;
        config.seed = 47;
        const core::gnss_signal_simulator sim(config, satellites(6));
        std::vector<int> present;
        for (std::size_t i = 0; i < 6; ++i)
            present.push_back(prn_of(i));
        std::vector<int> searched = present;
        searched.insert(searched.end(), { 1, 3 }); // absent
        for (int run = 0; run < 3; ++run) {
            auto tb = gr::make_top_block("qa_gnss_receiver_recording");
            auto src = simulator_source::make(sim, 20000);
            auto head = gr::blocks::head::make(sizeof(gr_complex), 16000);
            pcps_acquisition_block_config search = acquisition_config(fs, device);
            search.satellites = searched;
            search.acquisition.false_alarm = 1e-9;
            search.stream_mode = "recording";
            auto acq = pcps_acquisition_cc::make(search);
            auto sink = gr::blocks::message_debug::make();
            tb->connect(src, 0, head, 0);
            tb->connect(head, 0, acq, 0);
            tb->msg_connect(acq, "detections", sink, "store");
            qa::run_or_die(tb, "recording_through_head", 120.0);
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(16000), acq->search_samples());
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), acq->searches_completed());
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(16000), acq->samples_searched());
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), acq->samples_dropped());
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(6), acq->detections_published());
            CPPUNIT_ASSERT_EQUAL(std::size_t(6), sink->num_messages());
            std::vector<int> received;
            for (std::size_t i = 0; i < sink->num_messages(); ++i)
                received.push_back(static_cast<int>(pmt::to_long(pmt::dict_ref(
                    sink->get_message(i), pmt::intern("prn"), pmt::PMT_NIL))));
            std::sort(received.begin(), received.end());
            CPPUNIT_ASSERT(received == present);
        }
    }

    void tracking_while_searching_rate(const std::string& device)
    {
        // 12 satellites in the signal, 32 PRNs searched: once the 12 are tracked the
        // other 20 are searched continuously. A pre-generated second of signal, looped
        // (the source costs nothing next to the receiver).
        qa::skip_under_sanitizer("the processing rate while tracking and searching");
        for (const double fs : { 4e6, 25e6 }) {
            core::gnss_simulator_config config;
            config.sample_rate_hz = fs;
            config.seed = 43;
            core::gnss_signal_simulator sim(config, satellites(12));
            std::vector<gr_complex> x(static_cast<std::size_t>(fs));
            sim.generate(x.data(), x.size());
            const double stream_s = 10.0;
            auto tb = gr::make_top_block("qa_gnss_receiver_flowgraph_rate");
            auto src = gr::blocks::vector_source_c::make(x, true);
            src->set_min_output_buffer(static_cast<long>(0.02 * fs));
            auto head = gr::blocks::head::make(sizeof(gr_complex),
                                               static_cast<std::uint64_t>(stream_s * fs));
            tb->connect(src, 0, head, 0);
            const core::gnss_signal_simulator truth(config, satellites(12));
            receiver rx = connect_receiver(tb, head, fs, 32, truth, device);
            const auto t0 = std::chrono::steady_clock::now();
            qa::run_or_die(tb, "tracking_while_searching_rate", 300.0);
            const double wall =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                    .count();
            std::cout << "qa_gnss_receiver_flowgraph[" << device << "]: " << fs / 1e6
                      << " Msps, 12 satellites, 32 PRNs searched: " << stream_s
                      << " s of signal in " << wall
                      << " s, processing rate / signal rate " << stream_s / wall << "; "
                      << rx.acquisition->tracked().size() << " tracked, "
                      << rx.acquisition->searches_completed() << " searches, "
                      << rx.watch->first_locks().size()
                      << " locked on the truth before the first loop wrap" << std::endl;
            CPPUNIT_ASSERT(rx.acquisition->searches_completed() > 0);
            CPPUNIT_ASSERT(rx.watch->records() > 0);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_gnss_receiver_flowgraph);

} // namespace cudadsp
} // namespace gr
