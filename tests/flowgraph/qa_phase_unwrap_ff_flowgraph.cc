/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// phase_unwrap_ff inside GNU Radio flowgraphs, from C++: the block tier that runs on the
// GPU host (whose Python cannot import GNU Radio). Each case runs on the CPU backend and
// on CUDA (skipped without a device), against a float64 reference written here.

#include "qa_support.h"
#include <gnuradio/blocks/throttle.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/cudadsp/phase_unwrap_ff.h>
#include <gnuradio/top_block.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace gr {
namespace cudadsp {

namespace {

const double two_pi = 6.283185307179586476925286766559;

//! A wrapped random walk drawn from a fixed seed (cases differ by seed).
std::vector<float> wrapped_walk(std::size_t n, double step_std, unsigned seed)
{
    std::mt19937_64 rng(seed);
    return qa::wrapped_walk(n, two_pi, step_std, rng);
}

void assert_close(const std::vector<float>& expected,
                  const std::vector<float>& actual,
                  const std::string& what)
{
    CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": item count", expected.size(), actual.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        if (std::isnan(expected[i]) && std::isnan(actual[i]))
            continue;
        if (std::memcmp(&expected[i], &actual[i], sizeof(float)) != 0)
            CPPUNIT_FAIL(what + ": sample " + std::to_string(i) + " expected " +
                         std::to_string(expected[i]) + " got " +
                         std::to_string(actual[i]));
    }
}

} // namespace

class qa_phase_unwrap_ff_flowgraph : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_phase_unwrap_ff_flowgraph);
    QA_BACKEND_TEST(stream_over_many_work_calls);
    QA_BACKEND_TEST(reset_tags_and_passthrough);
    QA_BACKEND_TEST(vector_mode);
    QA_BACKEND_TEST(slow_source_within_the_wait_bound);
    CPPUNIT_TEST(bad_parameters);
    CPPUNIT_TEST_SUITE_END();

public:
    void stream_over_many_work_calls(const std::string& device)
    {
        for (int batch : { 1000, 4097, 1 << 20 }) {
            auto x = wrapped_walk(1500007, 1.3, 11 + batch);
            x[777] = std::numeric_limits<float>::quiet_NaN();
            auto tb = gr::make_top_block("unwrap");
            auto src = gr::blocks::vector_source_f::make(x);
            auto unwrap = phase_unwrap_ff::make(1, two_pi, device, batch);
            auto sink = gr::blocks::vector_sink_f::make();
            tb->connect(src, 0, unwrap, 0);
            tb->connect(unwrap, 0, sink, 0);
            tb->run();
            CPPUNIT_ASSERT_EQUAL(device == "cpu" ? std::string("cpu")
                                                 : std::string("cuda:0"),
                                 unwrap->backend());
            assert_close(qa::reference_unwrap(x, two_pi),
                         sink->data(),
                         device + " batch " + std::to_string(batch));
        }
    }

    void reset_tags_and_passthrough(const std::string& device)
    {
        const auto x = wrapped_walk(300000, 2.0, 5);
        std::vector<gr::tag_t> tags(3);
        const std::size_t offsets[] = { 1234, 100000, 250001 };
        for (int t = 0; t < 3; ++t) {
            tags[t].offset = offsets[t];
            tags[t].key = pmt::intern(t == 1 ? "other" : "unwrap_reset");
            tags[t].value = pmt::PMT_T;
        }
        auto tb = gr::make_top_block("unwrap_tags");
        auto src = gr::blocks::vector_source_f::make(x, false, 1, tags);
        auto unwrap = phase_unwrap_ff::make(1, two_pi, device, 65536);
        auto sink = gr::blocks::vector_sink_f::make();
        tb->connect(src, 0, unwrap, 0);
        tb->connect(unwrap, 0, sink, 0);
        tb->run();
        assert_close(qa::reference_unwrap(x, two_pi, 0, { 1234, 250001 }),
                     sink->data(),
                     device + " tags");
        // Every tag arrives downstream at its offset, the reset tags included.
        const auto out_tags = sink->tags();
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), out_tags.size());
        for (const auto& tag : out_tags)
            CPPUNIT_ASSERT(std::find(std::begin(offsets),
                                     std::end(offsets),
                                     tag.offset) != std::end(offsets));
    }

    void vector_mode(const std::string& device)
    {
        const int vlen = 1031;
        const auto x = wrapped_walk(vlen * 517, 1.5, 9);
        auto tb = gr::make_top_block("unwrap_vectors");
        auto src = gr::blocks::vector_source_f::make(x, false, vlen);
        auto unwrap = phase_unwrap_ff::make(vlen, two_pi, device, vlen * 40);
        auto sink = gr::blocks::vector_sink_f::make(vlen);
        tb->connect(src, 0, unwrap, 0);
        tb->connect(unwrap, 0, sink, 0);
        tb->run();
        std::vector<float> expected;
        for (std::size_t v = 0; v < 517; ++v) {
            const std::vector<float> one(x.begin() + v * vlen,
                                         x.begin() + (v + 1) * vlen);
            const auto y = qa::reference_unwrap(one, two_pi);
            expected.insert(expected.end(), y.begin(), y.end());
        }
        assert_close(expected, sink->data(), device + " vectors");
    }

    void slow_source_within_the_wait_bound(const std::string& device)
    {
        // A throttled source with room for whole batches upstream: on CUDA the block
        // waits for a batch that never fills in time, so it must process what it has
        // after its wait bound (20 ms), lose nothing, and finish when the source does.
        const auto x = wrapped_walk(150001, 1.1, 21);
        auto tb = gr::make_top_block("unwrap_slow_source");
        auto src = gr::blocks::vector_source_f::make(x);
        auto throttle = gr::blocks::throttle::make(sizeof(float), 1.0e6);
        auto unwrap = phase_unwrap_ff::make(1, two_pi, device, 1 << 20);
        throttle->set_min_output_buffer(2 << 20);
        auto sink = gr::blocks::vector_sink_f::make();
        tb->connect(src, 0, throttle, 0);
        tb->connect(throttle, 0, unwrap, 0);
        tb->connect(unwrap, 0, sink, 0);
        const auto start = std::chrono::steady_clock::now();
        tb->run();
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                .count();
        assert_close(
            qa::reference_unwrap(x, two_pi), sink->data(), device + " slow source");
        // Under a sanitizer the path above ran and was checked; its wall time means
        // nothing there.
        qa::skip_under_sanitizer("the wait bound's wall time");
        // 0.15 s of samples at 1 Msample/s: no batch-sized stall on top of that.
        CPPUNIT_ASSERT_MESSAGE(std::to_string(seconds), seconds < 1.0);
    }

    void bad_parameters()
    {
        CPPUNIT_ASSERT_THROW(phase_unwrap_ff::make(0), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(phase_unwrap_ff::make(1, 0.0), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(phase_unwrap_ff::make(1, -two_pi), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(phase_unwrap_ff::make(1, std::nan("")),
                             std::invalid_argument);
        CPPUNIT_ASSERT_THROW(phase_unwrap_ff::make(1, two_pi, "gpu"),
                             std::invalid_argument);
        CPPUNIT_ASSERT_THROW(phase_unwrap_ff::make(8, two_pi, "cpu", 4),
                             std::invalid_argument);
        // An item of 2^29 floats is 2^31 bytes, beyond GNU Radio's int item size: the
        // error names vlen and its bound, not gr::io_signature.
        for (int vlen : { 1 << 29, 1 << 30 }) {
            try {
                phase_unwrap_ff::make(vlen, two_pi, "cpu", vlen);
                CPPUNIT_FAIL("vlen " + std::to_string(vlen) + " accepted");
            } catch (const std::invalid_argument& e) {
                const std::string msg = e.what();
                CPPUNIT_ASSERT_MESSAGE(msg,
                                       msg.rfind("vlen: must be 1 to 536870911", 0) == 0);
            }
        }
        auto block = phase_unwrap_ff::make(1, two_pi, "cpu");
        CPPUNIT_ASSERT_THROW(block->set_period(0.0), std::invalid_argument);
        CPPUNIT_ASSERT_EQUAL(two_pi, block->period());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_phase_unwrap_ff_flowgraph);

} // namespace cudadsp
} // namespace gr
