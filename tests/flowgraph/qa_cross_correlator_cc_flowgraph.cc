/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// cross_correlator_cc inside GNU Radio flowgraphs, from C++: the block tier that runs on
// the GPU host. The engine is tested against a float64 reference in
// qa_cross_correlator; here the block's outputs must be the engine's, bit for bit, run
// directly on the same frames: no frame lost, duplicated or shifted across work()
// calls, the optional ports where the block documents them, the partial final frame
// not emitted, input tags on the frame that holds the tagged sample.

#include "qa_float_bits.h"
#include "qa_run_flowgraph.h"
#include "qa_stream_source.h"
#include "qa_support.h"
#include <gnuradio/blocks/throttle.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/cudadsp/core/cross_correlator.h>
#include <gnuradio/cudadsp/cross_correlator_cc.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>

namespace gr {
namespace cudadsp {

namespace {

using qa::run_or_die;

//! The block's parameters, in make()'s order.
struct params {
    int fft_len = 64;
    int interp = 16;
    int max_lag = 0;
    bool spectrum_output = false;
    bool correlation_output = false;
    std::string device = "cpu";

    cross_correlator_cc::sptr make_block() const
    {
        return cross_correlator_cc::make(
            fft_len, interp, max_lag, spectrum_output, correlation_output, device);
    }

    core::cross_correlator_config engine_config() const
    {
        core::cross_correlator_config c;
        c.fft_len = std::size_t(fft_len);
        c.interp = std::size_t(interp);
        c.max_lag = std::size_t(max_lag);
        c.device = device;
        return c;
    }

    std::size_t transform_len() const { return engine_config().transform_len(); }
    std::size_t correlation_len() const { return engine_config().correlation_len(); }
    int nports() const { return 3 + int(spectrum_output) + int(correlation_output); }
};

struct signals {
    std::vector<gr_complex> x, y;
};

/*!
 * \p nsamples of x and y, frame by frame of \p N: y white, x = gain y delayed by a
 * random integer delay plus noise, some frames of independent noise and some of zeros.
 * Fixed seed.
 */
signals make_signals(std::size_t N, std::size_t nsamples, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, std::sqrt(0.5));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    auto cn = [&]() { return std::complex<double>(normal(rng), normal(rng)); };
    signals s;
    s.x.resize(nsamples);
    s.y.resize(nsamples);
    for (std::size_t first = 0; first < nsamples; first += N) {
        const std::size_t n = std::min(N, nsamples - first);
        const long d = long(std::floor((u(rng) - 0.5) * double(N)));
        const std::complex<double> gain = std::polar(0.5 + u(rng), 6.28 * u(rng));
        const int kind = int(u(rng) * 10);
        std::vector<std::complex<double>> base(3 * N);
        for (auto& b : base)
            b = cn();
        for (std::size_t i = 0; i < n; ++i) {
            const long at = long(N + i);
            std::complex<double> x = gain * base[at - d] + 0.2 * cn();
            std::complex<double> y = base[at];
            if (kind == 0)
                x = cn(); // independent
            if (kind == 1)
                x = 0.0; // zero energy
            s.x[first + i] = gr_complex(x);
            s.y[first + i] = gr_complex(y);
        }
    }
    return s;
}

//! Outputs of one run: lag, magnitude, phase, and the optional vectors.
struct outputs {
    std::vector<float> lag, mag, phase;
    std::vector<gr_complex> spectrum, correlation;
};

//! The engine run directly on the complete frames of \p s.
outputs engine_outputs(const params& p, const signals& s)
{
    const auto c = p.engine_config();
    auto engine = core::cross_correlator::make(c);
    const std::size_t nframes = s.x.size() / c.fft_len;
    std::vector<core::cross_correlation_peak> peaks(nframes);
    outputs out;
    if (p.spectrum_output)
        out.spectrum.resize(nframes * c.transform_len());
    if (p.correlation_output)
        out.correlation.resize(nframes * c.correlation_len());
    engine->process(s.x.data(),
                    s.y.data(),
                    nframes,
                    peaks.data(),
                    p.spectrum_output ? out.spectrum.data() : nullptr,
                    p.correlation_output ? out.correlation.data() : nullptr);
    for (const auto& k : peaks) {
        out.lag.push_back(k.lag);
        out.mag.push_back(k.magnitude);
        out.phase.push_back(k.phase);
    }
    return out;
}

using qa::assert_same_floats;
using qa::bits_of;

std::vector<float> as_floats(const std::vector<gr_complex>& v)
{
    std::vector<float> f;
    for (const gr_complex& c : v) {
        f.push_back(c.real());
        f.push_back(c.imag());
    }
    return f;
}

//! The block between two sources and its sinks.
struct graph {
    gr::top_block_sptr tb;
    cross_correlator_cc::sptr block;
    std::vector<gr::blocks::vector_sink_f::sptr> peak_sinks; //!< lag, mag, phase
    gr::blocks::vector_sink_c::sptr spectrum_sink, correlation_sink;

    //! Every output port's sink, in port order (for tags).
    std::vector<gr::basic_block_sptr> sinks_in_port_order() const
    {
        std::vector<gr::basic_block_sptr> s(peak_sinks.begin(), peak_sinks.end());
        if (spectrum_sink)
            s.push_back(spectrum_sink);
        if (correlation_sink)
            s.push_back(correlation_sink);
        return s;
    }
    std::vector<gr::tag_t> tags_of_port(int port) const
    {
        if (port < 3)
            return peak_sinks[port]->tags();
        if (spectrum_sink && port == 3)
            return spectrum_sink->tags();
        return correlation_sink->tags();
    }
};

graph make_graph(const params& p,
                 gr::basic_block_sptr x_source,
                 int x_port,
                 gr::basic_block_sptr y_source,
                 int y_port)
{
    graph g;
    g.tb = gr::make_top_block("cross_correlator");
    g.block = p.make_block();
    g.tb->connect(x_source, x_port, g.block, 0);
    g.tb->connect(y_source, y_port, g.block, 1);
    for (int q = 0; q < 3; ++q) {
        g.peak_sinks.push_back(gr::blocks::vector_sink_f::make(1));
        g.tb->connect(g.block, q, g.peak_sinks.back(), 0);
    }
    int port = 3;
    if (p.spectrum_output) {
        g.spectrum_sink = gr::blocks::vector_sink_c::make(p.transform_len());
        g.tb->connect(g.block, port++, g.spectrum_sink, 0);
    }
    if (p.correlation_output) {
        g.correlation_sink = gr::blocks::vector_sink_c::make(p.correlation_len());
        g.tb->connect(g.block, port++, g.correlation_sink, 0);
    }
    return g;
}

graph make_vector_source_graph(const params& p, const signals& s)
{
    auto x = gr::blocks::vector_source_c::make(s.x);
    auto y = gr::blocks::vector_source_c::make(s.y);
    return make_graph(p, x, 0, y, 0);
}

void assert_same_outputs(const outputs& expected, const graph& g, const std::string& what)
{
    assert_same_floats(expected.lag, g.peak_sinks[0]->data(), 1, what + ": lag");
    assert_same_floats(expected.mag, g.peak_sinks[1]->data(), 1, what + ": magnitude");
    assert_same_floats(expected.phase, g.peak_sinks[2]->data(), 1, what + ": phase");
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        what + ": spectrum port", !expected.spectrum.empty(), bool(g.spectrum_sink));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": correlation port",
                                 !expected.correlation.empty(),
                                 bool(g.correlation_sink));
    if (g.spectrum_sink) {
        const std::size_t L =
            2 * expected.spectrum.size() / std::max<std::size_t>(1, expected.lag.size());
        assert_same_floats(as_floats(expected.spectrum),
                           as_floats(g.spectrum_sink->data()),
                           L,
                           what + ": spectrum (re, im)");
    }
    if (g.correlation_sink) {
        const std::size_t C = 2 * expected.correlation.size() /
                              std::max<std::size_t>(1, expected.lag.size());
        assert_same_floats(as_floats(expected.correlation),
                           as_floats(g.correlation_sink->data()),
                           C,
                           what + ": correlation (re, im)");
    }
}

std::string describe(const params& p, const std::string& extra = "")
{
    std::ostringstream s;
    s << p.device << " fft_len=" << p.fft_len << " interp=" << p.interp
      << " max_lag=" << p.max_lag << (p.spectrum_output ? " +spectrum" : "")
      << (p.correlation_output ? " +correlation" : "") << extra;
    return s.str();
}

} // namespace

class qa_cross_correlator_cc_flowgraph : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_cross_correlator_cc_flowgraph);
    QA_BACKEND_TEST(stream_matches_engine);
    QA_BACKEND_TEST(optional_ports_and_getters);
    QA_BACKEND_TEST(no_frame_lost_with_small_work_calls);
    QA_BACKEND_TEST(partial_final_frame_is_not_emitted);
    QA_BACKEND_TEST(input_tags_land_on_their_frame);
    QA_BACKEND_TEST(slow_source);
    CPPUNIT_TEST(auto_device_prefers_cuda);
    CPPUNIT_TEST(bad_parameters);
    CPPUNIT_TEST_SUITE_END();

public:
    void stream_matches_engine(const std::string& device)
    {
        struct shape {
            int fft_len, interp, max_lag;
            bool spectrum, correlation;
            std::size_t nframes;
        };
        const shape shapes[] = {
            { 64, 4, 0, false, false, 300 },    { 100, 16, 30, true, true, 200 },
            { 3, 1, 0, true, false, 500 },      { 2, 16, 1, false, true, 500 },
            { 4096, 16, 256, false, true, 24 }, { 1000, 8, 0, true, true, 20 },
        };
        for (const shape& sh : shapes) {
            params p;
            p.device = device;
            p.fft_len = sh.fft_len;
            p.interp = sh.interp;
            p.max_lag = sh.max_lag;
            p.spectrum_output = sh.spectrum;
            p.correlation_output = sh.correlation;
            const auto s =
                make_signals(p.fft_len, sh.nframes * p.fft_len, unsigned(sh.fft_len));
            graph g = make_vector_source_graph(p, s);
            run_or_die(g.tb, describe(p));
            assert_same_outputs(engine_outputs(p, s), g, describe(p));
        }
    }

    void optional_ports_and_getters(const std::string& device)
    {
        for (int which = 0; which < 4; ++which) {
            params p;
            p.device = device;
            p.fft_len = 100;
            p.interp = 4;
            p.max_lag = which == 3 ? 0 : 20;
            p.spectrum_output = which & 1;
            p.correlation_output = which & 2;
            auto block = p.make_block();
            const std::string what = describe(p);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what,
                                         device == "cpu" ? std::string("cpu")
                                                         : std::string("cuda:0"),
                                         block->backend());
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 256, block->transform_len());
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                what, which == 3 ? 199 : 41, block->correlation_len());
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 100u, block->decimation());
            auto in = block->input_signature();
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 2, in->min_streams());
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 2, in->max_streams());
            for (int i = 0; i < 2; ++i)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    what, int(sizeof(gr_complex)), in->sizeof_stream_item(i));
            auto out = block->output_signature();
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                what + ": ports", p.nports(), out->min_streams());
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                what + ": ports", p.nports(), out->max_streams());
            for (int q = 0; q < 3; ++q)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    what, int(sizeof(float)), out->sizeof_stream_item(q));
            int port = 3;
            if (p.spectrum_output)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": spectrum item",
                                             int(sizeof(gr_complex)) * 256,
                                             out->sizeof_stream_item(port++));
            if (p.correlation_output)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": correlation item",
                                             int(sizeof(gr_complex)) *
                                                 block->correlation_len(),
                                             out->sizeof_stream_item(port++));
            // And it runs, with exactly these ports connected.
            const auto s = make_signals(p.fft_len, 30 * p.fft_len, 40 + which);
            graph g = make_vector_source_graph(p, s);
            run_or_die(g.tb, what);
            assert_same_outputs(engine_outputs(p, s), g, what);
        }
    }

    void auto_device_prefers_cuda()
    {
        params p;
        p.device = "auto";
        const std::string expected = qa::cuda_present() ? "cuda:0" : "cpu";
        CPPUNIT_ASSERT_EQUAL(expected, p.make_block()->backend());
    }

    void no_frame_lost_with_small_work_calls(const std::string& device)
    {
        // 400 frames through work() calls of at most 1, 3 or 17 frames (and of the
        // block's own size): every frame once, in order.
        params p;
        p.device = device;
        p.fft_len = 61;
        p.interp = 8;
        p.max_lag = 40;
        p.spectrum_output = true;
        p.correlation_output = true;
        const auto s = make_signals(p.fft_len, 400 * p.fft_len, 77);
        const auto expected = engine_outputs(p, s);
        for (int max_items : { 1, 3, 17, 0 }) {
            graph g = make_vector_source_graph(p, s);
            if (max_items > 0)
                g.block->set_max_noutput_items(max_items);
            const std::string what =
                describe(p, " max_noutput_items=" + std::to_string(max_items));
            run_or_die(g.tb, what);
            assert_same_outputs(expected, g, what);
        }
    }

    void partial_final_frame_is_not_emitted(const std::string& device)
    {
        params p;
        p.device = device;
        p.fft_len = 50;
        p.interp = 4;
        p.correlation_output = true;
        for (std::size_t extra : { 1, 25, 49 }) {
            const auto s = make_signals(p.fft_len, 10 * p.fft_len + extra, 5);
            graph g = make_vector_source_graph(p, s);
            const std::string what =
                describe(p, " + " + std::to_string(extra) + " samples");
            run_or_die(g.tb, what);
            const auto expected = engine_outputs(p, s);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(10), expected.lag.size());
            assert_same_outputs(expected, g, what);
        }
    }

    void input_tags_land_on_their_frame(const std::string& device)
    {
        for (int max_items : { 0, 2 }) {
            for (bool optional : { false, true }) {
                params p;
                p.device = device;
                p.fft_len = 12;
                p.interp = 4;
                p.spectrum_output = optional;
                p.correlation_output = optional;
                const std::uint64_t N = p.fft_len, nframes = 40;
                const auto s = make_signals(N, nframes * N + 5, 9);
                // Offsets early in a frame, at its middle and past it (GNU Radio's
                // own propagation would round s / N to the nearest frame), the last
                // sample of a frame, and in the partial final frame.
                std::vector<qa::stream_tag> tags;
                const std::uint64_t port0[] = { 0, 5, 6, 11, 12, 18, 23, 100, 479, 482 };
                const std::uint64_t port1[] = { 7, 250, 300, 481 };
                for (std::uint64_t o : port0)
                    tags.push_back({ 0, o, pmt::intern("x_tag"), pmt::from_uint64(o) });
                for (std::uint64_t o : port1)
                    tags.push_back({ 1, o, pmt::intern("y_tag"), pmt::from_uint64(o) });
                auto src = qa::stream_source<gr_complex>::make(1, { s.x, s.y }, tags);
                graph g = make_graph(p, src, 0, src, 1);
                if (max_items > 0)
                    g.block->set_max_noutput_items(max_items);
                const std::string what =
                    describe(p, " tags, max_noutput_items=" + std::to_string(max_items));
                run_or_die(g.tb, what);
                assert_same_outputs(engine_outputs(p, s), g, what);

                std::size_t in_whole_frames = 0;
                for (const auto& t : tags)
                    in_whole_frames += t.offset < nframes * N;
                for (int q = 0; q < p.nports(); ++q) {
                    const std::string port = what + ": output " + std::to_string(q);
                    std::vector<std::uint64_t> seen;
                    for (const gr::tag_t& t : g.tags_of_port(q)) {
                        const std::string key = pmt::symbol_to_string(t.key);
                        CPPUNIT_ASSERT_MESSAGE(port + ": unexpected tag " + key,
                                               key == "x_tag" || key == "y_tag");
                        const std::uint64_t sample = pmt::to_uint64(t.value);
                        CPPUNIT_ASSERT_MESSAGE(port + ": tag of sample " +
                                                   std::to_string(sample) +
                                                   " in the partial final frame",
                                               sample < nframes * N);
                        CPPUNIT_ASSERT_EQUAL_MESSAGE(port + ": " + key + " of sample " +
                                                         std::to_string(sample),
                                                     sample / N,
                                                     t.offset);
                        seen.push_back(sample);
                    }
                    // Every input tag of a whole frame, from either input, once.
                    std::sort(seen.begin(), seen.end());
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(
                        port + ": input tags passed on", in_whole_frames, seen.size());
                    CPPUNIT_ASSERT_MESSAGE(port + ": a tag passed on twice",
                                           std::adjacent_find(seen.begin(), seen.end()) ==
                                               seen.end());
                }
            }
        }
    }

    void slow_source(const std::string& device)
    {
        // Throttled samples with room for many frames upstream: the block must not wait
        // for a batch that never fills in time, lose nothing, and finish when the
        // source does (0.2 s of samples).
        params p;
        p.device = device;
        p.fft_len = 1024;
        p.interp = 16;
        const std::size_t nframes = 100;
        const double samples_per_second = 512e3;
        const auto s = make_signals(p.fft_len, nframes * p.fft_len, 21);
        auto tb = gr::make_top_block("cross_correlator_slow_source");
        auto src_x = gr::blocks::vector_source_c::make(s.x);
        auto src_y = gr::blocks::vector_source_c::make(s.y);
        auto throttle_x =
            gr::blocks::throttle::make(sizeof(gr_complex), samples_per_second);
        auto throttle_y =
            gr::blocks::throttle::make(sizeof(gr_complex), samples_per_second);
        throttle_x->set_min_output_buffer(1 << 20);
        throttle_y->set_min_output_buffer(1 << 20);
        graph g = make_graph(p, throttle_x, 0, throttle_y, 0);
        g.tb->connect(src_x, 0, throttle_x, 0);
        g.tb->connect(src_y, 0, throttle_y, 0);
        const auto start = std::chrono::steady_clock::now();
        run_or_die(g.tb, describe(p, " slow source"));
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                .count();
        assert_same_outputs(engine_outputs(p, s), g, describe(p, " slow source"));
        // Under a sanitizer the path above ran and was checked; its wall time means
        // nothing there.
        qa::skip_under_sanitizer("the wait bound's wall time");
        CPPUNIT_ASSERT_MESSAGE(describe(p, " slow source took ") +
                                   std::to_string(seconds) + " s",
                               seconds < 1.5);
    }

    void bad_parameters()
    {
        auto expect_error = [](params p, const std::string& name) {
            try {
                p.make_block();
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(name + ": " + e.what(),
                                       std::string(e.what()).find(name) !=
                                           std::string::npos);
                return;
            }
            CPPUNIT_FAIL("no std::invalid_argument for a bad " + name);
        };
        for (int n : { -5, 0, 1 }) {
            params p;
            p.fft_len = n;
            expect_error(p, "fft_len");
        }
        for (int i : { -1, 0 }) {
            params p;
            p.interp = i;
            expect_error(p, "interp");
        }
        for (int m : { -1, 64, 65, 1000 }) {
            params p;
            p.max_lag = m;
            expect_error(p, "max_lag");
        }
        for (const char* d : { "gpu", "cuda:x", "" }) {
            params p;
            p.device = d;
            expect_error(p, "device");
        }
        params p;
        p.max_lag = 63;
        p.make_block(); // the largest valid max_lag
        // A forced CUDA backend is an error only where no device exists.
        if (!qa::cuda_present()) {
            p.device = "cuda";
            CPPUNIT_ASSERT_THROW(p.make_block(), std::runtime_error);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_cross_correlator_cc_flowgraph);

} // namespace cudadsp
} // namespace gr
