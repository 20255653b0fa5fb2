/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// st_tbd_ff inside GNU Radio flowgraphs, from C++: the block tier that runs on the GPU
// host (whose Python cannot import GNU Radio). The block must give exactly what one
// engine call on all the frames gives (the engine itself is checked against a float64
// reference in qa_st_tbd): every frame once and in order whatever the work() calls
// and GPU batches, the int32 argmax as exact floats, the engine's detections as
// messages numbered by input item, resets where the tags say. Each case is defined once
// and runs on the CPU backend and on CUDA (generic kernel, software bilinear: the same
// configuration in the block and in the engine it is compared with).

#include "qa_message_collector.h"
#include "qa_support.h"
#include <gnuradio/blocks/throttle.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/cudadsp/core/st_tbd.h>
#include <gnuradio/cudadsp/st_tbd_ff.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/top_block.h>
#include <cppunit/extensions/HelperMacros.h>
#include <boost/thread/thread.hpp>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

namespace gr {
namespace cudadsp {

namespace {

//! Random frames, values in [-0.5, 1.5) with a bright moving spot (non-zero).
std::vector<float> make_frames(std::size_t n, std::size_t w, std::size_t h, unsigned seed)
{
    qa::gaussian_source rng(seed);
    std::vector<float> frames(n * w * h);
    for (float& v : frames)
        v = static_cast<float>(rng.uniform(-0.5, 1.5));
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t x = (3 + k) % w, y = (2 + k / 2) % h;
        frames[k * w * h + y * w + x] += 4.0f;
    }
    return frames;
}

std::vector<core::tbd_hypothesis> hypotheses()
{
    return core::st_tbd_config::velocity_grid(1.0f, 0.5f, 0.3f);
}

//! Nine whole-pixel velocities, one transition each: cheap enough for 1000 x 1000 frames
//! on the CPU backend in CI.
std::vector<core::tbd_hypothesis> coarse_hypotheses()
{
    return core::st_tbd_config::velocity_grid(1.0f, 1.0f, 0.0f);
}

core::st_tbd_config engine_config(std::size_t w,
                                  std::size_t h,
                                  const std::string& device,
                                  float threshold,
                                  const std::vector<core::tbd_hypothesis>& hyps)
{
    core::st_tbd_config c;
    c.width = w;
    c.height = h;
    c.hypotheses = hyps;
    c.alpha = 0.85f;
    c.threshold = threshold;
    c.device = device;
    c.kernel = "generic";
    c.bilinear = "software";
    return c;
}

st_tbd_ff::sptr make_block(std::size_t w,
                           std::size_t h,
                           const std::string& device,
                           float threshold,
                           std::size_t batch_frames,
                           const std::vector<core::tbd_hypothesis>& hyps = hypotheses())
{
    st_tbd_ff_config config;
    config.tbd = engine_config(w, h, device, threshold, hyps);
    config.batch_frames = batch_frames;
    return st_tbd_ff::make(config);
}

//! What one engine call on all the frames gives; resets before the frames listed.
struct expected_output {
    std::vector<float> map;
    std::vector<float> argmax;
    std::vector<core::tbd_detection> detections; // frame = input item
};

expected_output
engine_output(const std::vector<float>& frames,
              std::size_t w,
              std::size_t h,
              const std::string& device,
              float threshold,
              const std::vector<std::size_t>& resets = {},
              const std::vector<core::tbd_hypothesis>& hyps = hypotheses())
{
    auto engine = core::st_tbd::make(engine_config(w, h, device, threshold, hyps));
    const std::size_t cells = w * h, n = frames.size() / cells;
    expected_output e;
    e.map.resize(frames.size());
    std::vector<std::int32_t> arg(frames.size());
    std::size_t begin = 0;
    std::vector<std::size_t> bounds = resets;
    bounds.push_back(n);
    for (std::size_t end : bounds) {
        std::vector<core::tbd_detection> dets;
        engine->process(frames.data() + begin * cells,
                        end - begin,
                        e.map.data() + begin * cells,
                        arg.data() + begin * cells,
                        &dets);
        for (core::tbd_detection d : dets) {
            d.frame += begin;
            e.detections.push_back(d);
        }
        engine->reset();
        begin = end;
    }
    e.argmax.assign(arg.begin(), arg.end());
    return e;
}

void assert_identical(const std::vector<float>& expected,
                      const std::vector<float>& actual,
                      const std::string& what)
{
    CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": value count", expected.size(), actual.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        if (std::memcmp(&expected[i], &actual[i], sizeof(float)) != 0)
            CPPUNIT_FAIL(what + ": value " + std::to_string(i) + " expected " +
                         std::to_string(expected[i]) + " got " +
                         std::to_string(actual[i]));
}

using qa::message_collector;

void assert_messages(const std::vector<core::tbd_detection>& expected,
                     const std::vector<pmt::pmt_t>& messages,
                     const std::string& what)
{
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        what + ": message count", expected.size(), messages.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const pmt::pmt_t& m = messages[i];
        const core::tbd_detection& d = expected[i];
        auto get = [&](const char* key) {
            return pmt::dict_ref(m, pmt::intern(key), pmt::PMT_NIL);
        };
        const std::string at = what + ": message " + std::to_string(i);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(at, std::size_t(6), pmt::length(pmt::dict_keys(m)));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            at + " frame", d.frame, pmt::to_uint64(get("frame")));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            at + " x", std::uint64_t(d.x), pmt::to_uint64(get("x")));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            at + " y", std::uint64_t(d.y), pmt::to_uint64(get("y")));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(at + " vx", double(d.vx), pmt::to_double(get("vx")));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(at + " vy", double(d.vy), pmt::to_double(get("vy")));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            at + " value", double(d.value), pmt::to_double(get("value")));
    }
}

struct run_result {
    std::vector<float> map, argmax;
    std::vector<pmt::pmt_t> messages;
    std::vector<gr::tag_t> map_tags;
};

run_result run_flowgraph(const std::vector<float>& frames,
                         std::size_t w,
                         std::size_t h,
                         st_tbd_ff::sptr tbd,
                         const std::vector<gr::tag_t>& tags = {},
                         bool connect_argmax = true,
                         double throttle_frames_per_s = 0.0)
{
    const unsigned cells = static_cast<unsigned>(w * h);
    auto tb = gr::make_top_block("st_tbd_ff");
    auto src = gr::blocks::vector_source_f::make(frames, false, cells, tags);
    // Room upstream for two batches, as the docs ask.
    src->set_min_output_buffer(2 * tbd->batch_frames());
    auto map_sink = gr::blocks::vector_sink_f::make(cells);
    auto arg_sink = gr::blocks::vector_sink_f::make(cells);
    auto collector = message_collector::make();
    if (throttle_frames_per_s > 0.0) {
        auto throttle =
            gr::blocks::throttle::make(sizeof(float) * cells, throttle_frames_per_s);
        throttle->set_min_output_buffer(2 * tbd->batch_frames());
        tb->connect(src, 0, throttle, 0);
        tb->connect(throttle, 0, tbd, 0);
    } else {
        tb->connect(src, 0, tbd, 0);
    }
    tb->connect(tbd, 0, map_sink, 0);
    if (connect_argmax)
        tb->connect(tbd, 1, arg_sink, 0);
    tb->msg_connect(tbd, "detections", collector, "in");
    tb->run();
    // The collector may still be handling the last messages.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return {
        map_sink->data(), arg_sink->data(), collector->messages(), map_sink->tags()
    };
}

/*!
 * The frames through \p tbd into a map sink, its detections to \p collector; once every
 * map is out, release() (a stuck collector's way out), then the flowgraph's end. Returns
 * the messages the collector got.
 */
std::vector<pmt::pmt_t> run_to_subscriber(const std::vector<float>& frames,
                                          std::size_t cells,
                                          st_tbd_ff::sptr tbd,
                                          qa::message_collector::sptr collector,
                                          const std::function<void()>& release)
{
    auto tb = gr::make_top_block("st_tbd_ff_subscriber");
    auto src = gr::blocks::vector_source_f::make(frames, false, cells);
    auto map_sink = gr::blocks::vector_sink_f::make(cells);
    tb->connect(src, 0, tbd, 0);
    tb->connect(tbd, 0, map_sink, 0);
    tb->msg_connect(tbd, "detections", collector, "in");
    tb->start();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (map_sink->data().size() < frames.size() &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CPPUNIT_ASSERT_EQUAL_MESSAGE("maps out", frames.size(), map_sink->data().size());
    release();
    tb->wait();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return collector->messages();
}

//! 200 frames of 32 x 32 at threshold 0.6: tens of detections a frame, about 10 000.
struct busy_detections {
    static constexpr std::size_t w = 32, h = 32, n = 200;
    const std::vector<float> frames = make_frames(n, w, h, 6);
    const expected_output e = engine_output(frames, w, h, "cpu", 0.6f);
};

} // namespace

class qa_st_tbd_ff_flowgraph : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_st_tbd_ff_flowgraph);
    QA_BACKEND_TEST(frames_over_many_work_calls);
    QA_BACKEND_TEST(large_frames);
    QA_BACKEND_TEST(reset_tags_and_passthrough);
    QA_BACKEND_TEST(argmax_unconnected);
    QA_BACKEND_TEST(slow_source_within_the_wait_bound);
    CPPUNIT_TEST(slow_subscriber_holds_the_stream_not_the_memory);
    CPPUNIT_TEST(stuck_subscriber_loses_messages_counted);
    CPPUNIT_TEST(stop_ends_the_wait_for_a_subscriber);
    CPPUNIT_TEST(bad_parameters);
    CPPUNIT_TEST_SUITE_END();

public:
    void frames_over_many_work_calls(const std::string& device)
    {
        // 61 frames of 37 x 23 (primes), batches of 1, 4 and automatic (256).
        const std::size_t w = 37, h = 23, n = 61;
        const auto frames = make_frames(n, w, h, 1);
        const auto e = engine_output(frames, w, h, device, 1.2f);
        CPPUNIT_ASSERT(e.detections.size() > n);
        for (int batch : { 1, 4, 0 }) {
            const std::string what = device + " batch " + std::to_string(batch);
            auto tbd = make_block(w, h, device, 1.2f, batch);
            CPPUNIT_ASSERT_EQUAL(device == "cpu" ? std::string("cpu")
                                                 : std::string("cuda:0"),
                                 tbd->backend());
            const auto r = run_flowgraph(frames, w, h, tbd);
            assert_identical(e.map, r.map, what + " map");
            assert_identical(e.argmax, r.argmax, what + " argmax");
            assert_messages(e.detections, r.messages, what);
        }
    }

    void large_frames(const std::string& device)
    {
        // Frames of 1000 x 1000 (4 MB items, GNU Radio buffers of 16-item granularity)
        // in batches of 8: two full batches and a partial one.
        const std::size_t w = 1000, h = 1000, n = 20;
        const auto frames = make_frames(n, w, h, 2);
        const auto hyps = coarse_hypotheses();
        const auto e = engine_output(frames, w, h, device, 1.4f, {}, hyps);
        auto tbd = make_block(w, h, device, 1.4f, 0, hyps);
        CPPUNIT_ASSERT_EQUAL(8, tbd->batch_frames());
        const auto r = run_flowgraph(frames, w, h, tbd);
        assert_identical(e.map, r.map, device + " large map");
        assert_identical(e.argmax, r.argmax, device + " large argmax");
        assert_messages(e.detections, r.messages, device + " large");
    }

    void reset_tags_and_passthrough(const std::string& device)
    {
        const std::size_t w = 19, h = 11, n = 40;
        const auto frames = make_frames(n, w, h, 3);
        std::vector<gr::tag_t> tags(3);
        const std::uint64_t offsets[] = { 7, 8, 31 };
        for (int t = 0; t < 3; ++t) {
            tags[t].offset = offsets[t];
            tags[t].key = pmt::intern(t == 1 ? "other" : "tbd_reset");
            tags[t].value = pmt::PMT_T;
        }
        const auto e = engine_output(frames, w, h, device, 1.0f, { 7, 31 });
        auto tbd = make_block(w, h, device, 1.0f, 5);
        const auto r = run_flowgraph(frames, w, h, tbd, tags);
        assert_identical(e.map, r.map, device + " reset map");
        assert_identical(e.argmax, r.argmax, device + " reset argmax");
        assert_messages(e.detections, r.messages, device + " reset");
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), r.map_tags.size());
        for (const auto& tag : r.map_tags)
            CPPUNIT_ASSERT(std::find(std::begin(offsets),
                                     std::end(offsets),
                                     tag.offset) != std::end(offsets));
    }

    void argmax_unconnected(const std::string& device)
    {
        const std::size_t w = 16, h = 9, n = 12;
        const auto frames = make_frames(n, w, h, 4);
        const auto e = engine_output(frames, w, h, device, 1.0f);
        auto tbd = make_block(w, h, device, 1.0f, 0);
        const auto r = run_flowgraph(frames, w, h, tbd, {}, false);
        assert_identical(e.map, r.map, device + " map without argmax");
        assert_messages(e.detections, r.messages, device + " without argmax");
    }

    void slow_source_within_the_wait_bound(const std::string& device)
    {
        // 64 frames at 400 frames/s with room for whole batches upstream: on CUDA the
        // block waits for batches of 256 frames that never fill in time, so it must
        // process what it has after its wait bound (20 ms), lose nothing, and finish
        // when the source does.
        const std::size_t w = 24, h = 24, n = 64;
        const auto frames = make_frames(n, w, h, 5);
        const auto e = engine_output(frames, w, h, device, 1.0f);
        auto tbd = make_block(w, h, device, 1.0f, 0);
        const auto start = std::chrono::steady_clock::now();
        const auto r = run_flowgraph(frames, w, h, tbd, {}, true, 400.0);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                .count();
        assert_identical(e.map, r.map, device + " slow source map");
        assert_messages(e.detections, r.messages, device + " slow source");
        // Under a sanitizer the path above ran and was checked; its wall time means
        // nothing there.
        qa::skip_under_sanitizer("the wait bound's wall time");
        // 0.16 s of frames: no batch-sized stall on top of that.
        CPPUNIT_ASSERT_MESSAGE(std::to_string(seconds), seconds < 1.5);
    }

    void slow_subscriber_holds_the_stream_not_the_memory()
    {
        // A subscriber slower than the block (50 us a message, as one starved of CPU):
        // GNU Radio alone would queue nearly every message at it. The block waits for
        // it instead, so its queue stays within the limit and nothing is lost.
        const busy_detections b;
        auto tbd = make_block(b.w, b.h, "cpu", 0.6f, 0);
        const std::size_t limit = tbd->detection_queue_limit();
        CPPUNIT_ASSERT_EQUAL(std::size_t(2048), limit); // max(1024, 2 x 1024 a frame)
        CPPUNIT_ASSERT(b.e.detections.size() > 4 * limit);
        auto collector = qa::message_collector::make(
            [] { std::this_thread::sleep_for(std::chrono::microseconds(50)); });
        const auto messages =
            run_to_subscriber(b.frames, b.w * b.h, tbd, collector, [] {});
        assert_messages(b.e.detections, messages, "slow subscriber");
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), tbd->detections_dropped());
        // + 1: the message being handled, out of GNU Radio's queue but not yet counted.
        CPPUNIT_ASSERT_MESSAGE("queued at most " +
                                   std::to_string(collector->queued_max()),
                               collector->queued_max() <= limit + 1);
    }

    void stuck_subscriber_loses_messages_counted()
    {
        // A subscriber that takes one message and then none until the stream has ended:
        // the block waits 2 s for it, then drops (and counts) what does not fit, so the
        // stream goes on and the queue stays within the limit.
        const busy_detections b;
        auto tbd = make_block(b.w, b.h, "cpu", 0.6f, 0);
        const std::size_t limit = tbd->detection_queue_limit();
        std::promise<void> gate;
        std::shared_future<void> open = gate.get_future().share();
        auto collector = qa::message_collector::make([open] { open.wait(); });
        const auto messages = run_to_subscriber(
            b.frames, b.w * b.h, tbd, collector, [&gate] { gate.set_value(); });
        CPPUNIT_ASSERT_MESSAGE("queued at most " +
                                   std::to_string(collector->queued_max()),
                               collector->queued_max() <= limit + 1);
        CPPUNIT_ASSERT(messages.size() >= limit);
        CPPUNIT_ASSERT_EQUAL(b.e.detections.size(),
                             messages.size() + tbd->detections_dropped());
        // What arrived is the stream's beginning, in order.
        const std::vector<core::tbd_detection> first(
            b.e.detections.begin(), b.e.detections.begin() + messages.size());
        assert_messages(first, messages, "stuck subscriber");
    }

    void stop_ends_the_wait_for_a_subscriber()
    {
        // The block waits for a stuck subscriber (its 2 s are not up): top_block::stop()
        // must end that wait at once, not after it. The subscriber's own wait is an
        // interruption point too, so that every thread can end.
        const busy_detections b;
        auto tbd = make_block(b.w, b.h, "cpu", 0.6f, 0);
        const std::size_t limit = tbd->detection_queue_limit();
        auto collector = qa::message_collector::make([] {
            for (;;) {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
                boost::this_thread::interruption_point();
            }
        });
        auto tb = gr::make_top_block("st_tbd_ff_stop");
        auto src = gr::blocks::vector_source_f::make(b.frames, false, b.w * b.h);
        auto map_sink = gr::blocks::vector_sink_f::make(b.w * b.h);
        tb->connect(src, 0, tbd, 0);
        tb->connect(tbd, 0, map_sink, 0);
        tb->msg_connect(tbd, "detections", collector, "in");
        tb->start();
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (collector->queued_max() < limit &&
               std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        CPPUNIT_ASSERT(collector->queued_max() >= limit); // the block is waiting
        const auto stop = std::chrono::steady_clock::now();
        tb->stop();
        tb->wait();
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - stop)
                .count();
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), tbd->detections_dropped());
        CPPUNIT_ASSERT(map_sink->data().size() < b.frames.size());
        qa::skip_under_sanitizer("the stop's wall time");
        CPPUNIT_ASSERT_MESSAGE(std::to_string(seconds), seconds < 1.0);
    }

    void bad_parameters()
    {
        const auto hyps = hypotheses();
        // A valid 8 x 8 configuration on the CPU.
        const auto valid = [](const std::vector<core::tbd_hypothesis>& h) {
            st_tbd_ff_config config;
            config.tbd.width = 8;
            config.tbd.height = 8;
            config.tbd.hypotheses = h;
            config.tbd.device = "cpu";
            return config;
        };
        // Each case changes one field of the valid configuration; the error names it.
        auto expect = [&](const std::string& field,
                          const std::function<void(st_tbd_ff_config&)>& change) {
            st_tbd_ff_config config = valid(hyps);
            change(config);
            try {
                st_tbd_ff::make(config);
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(e.what(),
                                       std::string(e.what()).rfind(field + ": ", 0) == 0);
                return;
            }
            CPPUNIT_FAIL(field + ": accepted");
        };
        expect("width", [](st_tbd_ff_config& c) { c.tbd.width = 0; });
        expect("hypotheses", [](st_tbd_ff_config& c) { c.tbd.hypotheses.clear(); });
        expect("alpha", [](st_tbd_ff_config& c) { c.tbd.alpha = 1.0f; });
        expect("threshold", [](st_tbd_ff_config& c) { c.tbd.threshold = std::nanf(""); });
        expect("device", [](st_tbd_ff_config& c) { c.tbd.device = "gpu"; });
        expect("max_detections_per_frame",
               [](st_tbd_ff_config& c) { c.tbd.max_detections_per_frame = 0; });
        // Beyond the int that the getters return.
        expect("max_detections_per_frame", [](st_tbd_ff_config& c) {
            c.tbd.max_detections_per_frame = std::size_t(1) << 31;
        });
        // An int, but the detection queue's bound (twice it) is not.
        expect("max_detections_per_frame", [](st_tbd_ff_config& c) {
            c.tbd.max_detections_per_frame = std::size_t(1) << 30;
        });
        expect("batch_frames",
               [](st_tbd_ff_config& c) { c.batch_frames = std::size_t(1) << 31; });
        // 2^30 cells, within the engine's bounds, but 2^32 bytes an item.
        expect("width * height", [](st_tbd_ff_config& c) {
            c.tbd.width = std::size_t(1) << 15;
            c.tbd.height = std::size_t(1) << 15;
        });
        auto bad = hyps;
        bad[3].transitions[0].source = 99;
        try {
            st_tbd_ff::make(valid(bad));
            CPPUNIT_FAIL("source out of range accepted");
        } catch (const std::invalid_argument& e) {
            CPPUNIT_ASSERT(
                std::string(e.what()).find("hypotheses[3].transitions[0].source") !=
                std::string::npos);
        }
        auto block = st_tbd_ff::make(valid(hyps));
        CPPUNIT_ASSERT_THROW(block->set_alpha(1.5f), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(block->set_threshold(INFINITY), std::invalid_argument);
        CPPUNIT_ASSERT_EQUAL(0.9f, block->alpha());
        CPPUNIT_ASSERT_EQUAL(1.0f, block->threshold());
        CPPUNIT_ASSERT_EQUAL(hyps.size(), block->hypotheses().size());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_st_tbd_ff_flowgraph);

} // namespace cudadsp
} // namespace gr
