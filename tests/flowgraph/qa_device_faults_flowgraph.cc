/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A device fault in the middle of a flowgraph: every block, fed its soak stream on the
// CUDA backend, gets an out-of-memory error from the next checked CUDA call once items
// flow (the hook of runtime/cuda_check.h). The flowgraph must stop by itself (wait()
// returns; a hang ends the process), the log must name the block and the failed call,
// and a fresh block must run afterwards. A backend-free case shows the same for
// stop_on_error() (lib/blocks/common/work_errors.h) with an infinite source upstream.

#include "blocks/common/work_errors.h"
#include "qa_support.h"
#include "runtime/cuda_check.h"
#include "soak_cases.h"
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/null_source.h>
#include <gnuradio/cudadsp/core/device.h>
#include <gnuradio/logger.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <cppunit/extensions/HelperMacros.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <future>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>

namespace gr {
namespace cudadsp {

namespace {

//! Every log line of every block from the first call on.
std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> captured_log()
{
    static const auto sink = [] {
        auto s = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(4096);
        gr::logging::singleton().add_default_sink(s);
        return s;
    }();
    return sink;
}

//! The captured lines that contain \p text, joined.
std::string log_lines_with(const std::string& text)
{
    std::string found;
    for (const std::string& line : captured_log()->last_formatted())
        if (line.find(text) != std::string::npos)
            found += line;
    return found;
}

/*!
 * A started soak flowgraph, its runtime inputs churned (channels added and removed, as
 * the soak does: the correlator's flowgraph starts without channels) while the test
 * waits on it. The destructor stops it first, so that a failed assertion does not leave
 * the waiting thread (and the test with it) blocked for ever.
 */
class running_flowgraph
{
public:
    explicit running_flowgraph(const soak::soak_flowgraph& f) : d_f(f)
    {
        d_f.tb->start();
        d_done = std::async(std::launch::async, [tb = d_f.tb] { tb->wait(); });
    }

    ~running_flowgraph()
    {
        d_f.tb->stop();
        if (d_done.valid())
            d_done.wait();
    }

    //! Churns until \p until() holds; false when \p seconds passed first.
    bool churn_until(const std::function<bool()>& until, double seconds)
    {
        const auto give_up =
            std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        while (!until()) {
            if (std::chrono::steady_clock::now() > give_up)
                return false;
            if (d_f.churn)
                d_f.churn(d_rng);
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return true;
    }

    //! Waits for the flowgraph to end by itself, churning; one still running after
    //! \p seconds hangs: end the process.
    void wait_or_die(const std::string& what, double seconds)
    {
        if (!churn_until(
                [this] {
                    return d_done.wait_for(std::chrono::seconds(0)) ==
                           std::future_status::ready;
                },
                seconds)) {
            std::cerr << what << ": flowgraph still running " << seconds
                      << " s after the fault (hang); aborting" << std::endl;
            std::_Exit(3);
        }
        d_done.get();
    }

private:
    const soak::soak_flowgraph& d_f;
    std::future<void> d_done;
    std::mt19937_64 d_rng{ 7 };
};

//! A float block that passes items through and throws what \p error says after
//! \p good items, inside stop_on_error() as the module's blocks do.
class failing_block : public gr::sync_block
{
public:
    failing_block(std::uint64_t good)
        : gr::sync_block("failing_block",
                         gr::io_signature::make(1, 1, sizeof(float)),
                         gr::io_signature::make(1, 1, sizeof(float))),
          d_good(good)
    {
    }

    int work(int n, gr_vector_const_void_star& in, gr_vector_void_star& out) override
    {
        return stop_on_error(d_logger, *this, [&] {
            if (nitems_read(0) + n > d_good)
                throw core::cuda_error("cudaMallocAsync(&p, bytes, stream) failed at "
                                       "fake.cu:7: out of memory "
                                       "(cudaErrorMemoryAllocation)");
            std::copy_n(static_cast<const float*>(in[0]), n, static_cast<float*>(out[0]));
            return n;
        });
    }

private:
    const std::uint64_t d_good;
};

} // namespace

class qa_device_faults_flowgraph : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_device_faults_flowgraph);
    CPPUNIT_TEST(error_in_work_stops_the_flowgraph);
    QA_CUDA_TEST(phase_unwrap_ff);
    QA_CUDA_TEST(phase_unwrap_2d_ff);
    QA_CUDA_TEST(cross_correlator_cc);
    QA_CUDA_TEST(polarimetric_products_cf);
    QA_CUDA_TEST(kdp_ff);
    QA_CUDA_TEST(st_tbd_ff);
    QA_CUDA_TEST(patch_xcorr_cc);
    QA_CUDA_TEST(multichannel_correlator_cc);
    QA_CUDA_TEST(pcps_acquisition_cc);
    CPPUNIT_TEST_SUITE_END();

    /*!
     * Runs \p block's soak flowgraph on \p device; once it has delivered items, the next
     * checked CUDA call fails with out of memory. Then a fresh one runs for 2 s.
     */
    void fault_mid_stream(const std::string& block, const std::string& device)
    {
        captured_log();
        soak::soak_case chosen;
        for (const soak::soak_case& c : soak::soak_cases())
            if (c.block == block)
                chosen = c;
        CPPUNIT_ASSERT_MESSAGE(block, chosen.build != nullptr);

        soak::soak_flowgraph f = chosen.build(device, 600.0);
        running_flowgraph running(f);
        CPPUNIT_ASSERT_MESSAGE(
            block + ": nothing came out in 60 s",
            running.churn_until([&f] { return f.items_out() > 0; }, 60.0));

        const std::uint64_t injected = core::cuda_faults_injected();
        core::arm_cuda_fault(core::parse_cuda_fault_spec("*:1:oom", "test"));
        running.wait_or_die(block, 60.0);
        core::disarm_cuda_fault();
        CPPUNIT_ASSERT_EQUAL(injected + 1, core::cuda_faults_injected());
        const std::string report = log_lines_with(block + " :error:");
        CPPUNIT_ASSERT_MESSAGE(block + ": " + report,
                               report.find("stopped by an error in work()") !=
                                   std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(report, report.find(" failed at ") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(
            report, report.find("(cudaErrorMemoryAllocation)") != std::string::npos);
        std::cout << "  " << report;

        // The device and the module are usable again: a new block streams correctly.
        soak::soak_flowgraph fresh = chosen.build(device, 2.0);
        running_flowgraph fresh_running(fresh);
        fresh_running.wait_or_die(block + " (fresh)", 120.0);
        CPPUNIT_ASSERT(fresh.items_out() > 0);
        CPPUNIT_ASSERT_EQUAL(std::int64_t(0), fresh.lost());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), fresh.bad());
    }

public:
    void phase_unwrap_ff(const std::string& d) { fault_mid_stream("phase_unwrap_ff", d); }
    void phase_unwrap_2d_ff(const std::string& d)
    {
        fault_mid_stream("phase_unwrap_2d_ff", d);
    }
    void cross_correlator_cc(const std::string& d)
    {
        fault_mid_stream("cross_correlator_cc", d);
    }
    void polarimetric_products_cf(const std::string& d)
    {
        fault_mid_stream("polarimetric_products_cf", d);
    }
    void kdp_ff(const std::string& d) { fault_mid_stream("kdp_ff", d); }
    void st_tbd_ff(const std::string& d) { fault_mid_stream("st_tbd_ff", d); }
    void patch_xcorr_cc(const std::string& d) { fault_mid_stream("patch_xcorr_cc", d); }
    void multichannel_correlator_cc(const std::string& d)
    {
        fault_mid_stream("multichannel_correlator_cc", d);
    }
    void pcps_acquisition_cc(const std::string& d)
    {
        fault_mid_stream("pcps_acquisition_cc", d);
    }

    void error_in_work_stops_the_flowgraph()
    {
        captured_log();
        auto source = gr::blocks::null_source::make(sizeof(float)); // never ends
        auto failing = gnuradio::make_block_sptr<failing_block>(100000);
        auto sink = gr::blocks::null_sink::make(sizeof(float));
        auto tb = gr::make_top_block("error_in_work");
        tb->connect(source, 0, failing, 0);
        tb->connect(failing, 0, sink, 0);
        soak::soak_flowgraph f;
        f.tb = tb;
        running_flowgraph running(f);
        running.wait_or_die("failing_block", 30.0);
        const std::string report = log_lines_with("stopped by an error in work()");
        CPPUNIT_ASSERT_MESSAGE(report,
                               report.find(failing->alias()) != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(report,
                               report.find("cudaMallocAsync(") != std::string::npos);
        CPPUNIT_ASSERT(failing->nitems_read(0) <= 100000);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_device_faults_flowgraph);

} // namespace cudadsp
} // namespace gr
