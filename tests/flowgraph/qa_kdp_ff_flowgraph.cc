/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// kdp_ff inside GNU Radio flowgraphs, from C++: the block tier that runs on the GPU
// host. The engine is tested against known truth in qa_kdp; here the block's outputs
// must be the CPU engine's, bit for bit (the backends share the rule), run directly on
// the same radials: no radial lost, duplicated or shifted across work() calls, the
// optional inputs on the documented ports, every input tag passed once on both
// outputs at its radial.

#include "qa_float_bits.h"
#include "qa_run_flowgraph.h"
#include "qa_stream_source.h"
#include "qa_support.h"
#include <gnuradio/blocks/throttle.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/cudadsp/core/kdp.h>
#include <gnuradio/cudadsp/kdp_ff.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {

namespace {

using qa::run_or_die;
using qa::stream_tag;
using radial_source = qa::stream_source<float>;

//! Noisy PhiDP of rain: a rising profile from a random offset, wrapped, plus noise and
//! a few NaN gates; RhoHV and SNR with some gates below the default thresholds.
struct radials {
    std::vector<float> phidp, rhohv, snr;
};

radials make_radials(std::size_t ngates, std::size_t nradials, std::uint64_t seed)
{
    qa::gaussian_source rng(seed);
    radials x;
    const std::size_t n = ngates * nradials;
    x.phidp.resize(n);
    x.rhohv.resize(n);
    x.snr.resize(n);
    for (std::size_t r = 0; r < nradials; ++r) {
        double phase = rng.uniform(-180.0, 180.0);
        const double kdp = rng.uniform(0.0, 3.0);
        for (std::size_t g = 0; g < ngates; ++g) {
            phase += 2.0 * kdp * 0.15;
            const double measured = phase + 3.0 * rng.complex_normal(2.0).real();
            const std::size_t i = r * ngates + g;
            x.phidp[i] = static_cast<float>(std::remainder(measured, 360.0));
            if (rng.uniform() < 0.01)
                x.phidp[i] = std::nanf("");
            x.rhohv[i] = static_cast<float>(rng.uniform(0.6, 1.0));
            x.snr[i] = static_cast<float>(rng.uniform(-5.0, 40.0));
        }
    }
    return x;
}

struct engine_outputs {
    std::vector<float> phidp, kdp;
};

//! The CPU engine run directly: what the block must output on either backend.
engine_outputs engine_run(std::size_t ngates,
                          const radials& x,
                          bool use_rhohv,
                          bool use_snr,
                          double window_km = 3.0)
{
    core::kdp_config c;
    c.ngates = ngates;
    c.window_km = window_km;
    c.device = "cpu";
    auto engine = core::kdp_processor::make(c);
    const std::size_t n = x.phidp.size();
    engine_outputs out{ std::vector<float>(n, qa::poison_value),
                        std::vector<float>(n, qa::poison_value) };
    engine->process(x.phidp.data(),
                    use_rhohv ? x.rhohv.data() : nullptr,
                    use_snr ? x.snr.data() : nullptr,
                    n / ngates,
                    out.phidp.data(),
                    out.kdp.data());
    return out;
}

//! The block's configuration in these tests: spacing, gap and thresholds left at their
//! defaults (the engine_run() reference's).
kdp_ff_config block_config(std::size_t ngates,
                           double window_km,
                           bool use_rhohv,
                           bool use_snr,
                           const std::string& device)
{
    kdp_ff_config config;
    config.kdp.ngates = ngates;
    config.kdp.window_km = window_km;
    config.kdp.device = device;
    config.use_rhohv = use_rhohv;
    config.use_snr = use_snr;
    return config;
}

struct graph {
    gr::top_block_sptr tb;
    kdp_ff::sptr block;
    gr::blocks::vector_sink_f::sptr phidp_sink, kdp_sink;
};

graph connect(std::size_t ngates,
              gr::basic_block_sptr source,
              int inputs,
              kdp_ff::sptr block)
{
    graph g;
    g.tb = gr::make_top_block("kdp");
    g.block = block;
    for (int i = 0; i < inputs; ++i)
        g.tb->connect(source, i, block, i);
    g.phidp_sink = gr::blocks::vector_sink_f::make(ngates);
    g.kdp_sink = gr::blocks::vector_sink_f::make(ngates);
    g.tb->connect(block, 0, g.phidp_sink, 0);
    g.tb->connect(block, 1, g.kdp_sink, 0);
    return g;
}

} // namespace

class qa_kdp_ff_flowgraph : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_kdp_ff_flowgraph);
    QA_BACKEND_TEST(radials_and_tags_through_all_inputs);
    QA_BACKEND_TEST(optional_input_ports);
    QA_BACKEND_TEST(throttled_source_loses_no_radial);
    CPPUNIT_TEST(bad_parameters_are_named);
    CPPUNIT_TEST_SUITE_END();

public:
    void radials_and_tags_through_all_inputs(const std::string& device)
    {
        const std::size_t G = 500, R = 2500; // several GPU batches of 1024 radials
        const radials x = make_radials(G, R, 11);
        // Every radial carries the same "radial_index" tag on all three inputs, as the
        // outputs of polarimetric_products_cf do; some radials carry a tag on one input
        // only, and one radial two different values of one key.
        std::vector<stream_tag> tags;
        for (std::uint64_t r = 0; r < R; ++r)
            for (int port = 0; port < 3; ++port)
                tags.push_back(
                    { port, r, pmt::intern("radial_index"), pmt::from_uint64(r) });
        for (std::uint64_t r = 5; r < R; r += 97)
            tags.push_back(
                { 1 + int(r % 2), r, pmt::intern("only_one"), pmt::from_long(r) });
        tags.push_back({ 0, 700, pmt::intern("azimuth_deg"), pmt::from_double(12.5) });
        tags.push_back({ 2, 700, pmt::intern("azimuth_deg"), pmt::from_double(13.0) });

        auto source = radial_source::make(G, { x.phidp, x.rhohv, x.snr }, tags);
        graph g =
            connect(G, source, 3, kdp_ff::make(block_config(G, 3.0, true, true, device)));
        run_or_die(g.tb, "kdp_ff " + device);
        CPPUNIT_ASSERT_EQUAL(device == "cpu" ? std::string("cpu") : std::string("cuda:0"),
                             g.block->backend());
        CPPUNIT_ASSERT_EQUAL(10, g.block->half_window_gates());
        const engine_outputs expected = engine_run(G, x, true, true);
        qa::assert_same_floats(
            expected.phidp, g.phidp_sink->data(), G, device + " PhiDP", "radial", "gate");
        qa::assert_same_floats(
            expected.kdp, g.kdp_sink->data(), G, device + " KDP", "radial", "gate");

        // Distinct tags, as (offset, key, value) text, each once per output.
        std::map<std::string, int> wanted;
        auto name = [](std::uint64_t offset, const pmt::pmt_t& key, const pmt::pmt_t& v) {
            return std::to_string(offset) + " " + pmt::symbol_to_string(key) + " " +
                   pmt::write_string(v);
        };
        for (const stream_tag& t : tags)
            wanted[name(t.offset, t.key, t.value)] = 1;
        for (auto& sink : { g.phidp_sink, g.kdp_sink }) {
            std::map<std::string, int> seen;
            for (const gr::tag_t& t : sink->tags())
                ++seen[name(t.offset, t.key, t.value)];
            CPPUNIT_ASSERT_EQUAL_MESSAGE(device + " tags", wanted.size(), seen.size());
            CPPUNIT_ASSERT_MESSAGE(device + " each tag once", seen == wanted);
        }
    }

    void optional_input_ports(const std::string& device)
    {
        // SNR alone is port 1; RhoHV alone is port 1; neither: one input.
        const std::size_t G = 300, R = 40;
        const radials x = make_radials(G, R, 23);
        struct choice {
            bool rhohv, snr;
        };
        for (const choice c :
             { choice{ false, true }, choice{ true, false }, choice{ false, false } }) {
            std::vector<std::vector<float>> streams{ x.phidp };
            if (c.rhohv)
                streams.push_back(x.rhohv);
            if (c.snr)
                streams.push_back(x.snr);
            const int inputs = static_cast<int>(streams.size());
            auto source = radial_source::make(G, streams);
            graph g = connect(G,
                              source,
                              inputs,
                              kdp_ff::make(block_config(G, 2.0, c.rhohv, c.snr, device)));
            run_or_die(g.tb, "kdp_ff ports " + device);
            const engine_outputs expected = engine_run(G, x, c.rhohv, c.snr, 2.0);
            const std::string what =
                device + (c.rhohv ? " rhohv" : "") + (c.snr ? " snr" : "");
            qa::assert_same_floats(expected.phidp,
                                   g.phidp_sink->data(),
                                   G,
                                   what + " PhiDP",
                                   "radial",
                                   "gate");
            qa::assert_same_floats(
                expected.kdp, g.kdp_sink->data(), G, what + " KDP", "radial", "gate");
        }
    }

    void throttled_source_loses_no_radial(const std::string& device)
    {
        // A source slower than a batch: on CUDA the block waits at most its bound for a
        // batch that never fills, processes what it has and loses nothing.
        const std::size_t G = 200, R = 3000;
        const radials x = make_radials(G, R, 31);
        auto tb = gr::make_top_block("kdp_throttled");
        auto source = radial_source::make(G, { x.phidp });
        auto throttle = gr::blocks::throttle::make(sizeof(float) * G, 20000.0);
        auto block = kdp_ff::make(block_config(G, 3.0, false, false, device));
        auto phidp_sink = gr::blocks::vector_sink_f::make(G);
        auto kdp_sink = gr::blocks::vector_sink_f::make(G);
        tb->connect(source, 0, throttle, 0);
        tb->connect(throttle, 0, block, 0);
        tb->connect(block, 0, phidp_sink, 0);
        tb->connect(block, 1, kdp_sink, 0);
        run_or_die(tb, "kdp_ff throttled " + device);
        const engine_outputs expected = engine_run(G, x, false, false);
        qa::assert_same_floats(expected.phidp,
                               phidp_sink->data(),
                               G,
                               device + " throttled PhiDP",
                               "radial",
                               "gate");
        qa::assert_same_floats(expected.kdp,
                               kdp_sink->data(),
                               G,
                               device + " throttled KDP",
                               "radial",
                               "gate");
    }

    void bad_parameters_are_named()
    {
        // Each case changes one field of a valid configuration of 100 gates.
        auto expect = [](const std::string& field, auto change) {
            kdp_ff_config config = block_config(100, 3.0, false, false, "cpu");
            change(config);
            try {
                kdp_ff::make(config);
            } catch (const std::invalid_argument& e) {
                const std::string message = e.what();
                CPPUNIT_ASSERT_MESSAGE(message, message.rfind(field + ":", 0) == 0);
                return;
            }
            CPPUNIT_FAIL(field + ": accepted");
        };
        expect("ngates", [](kdp_ff_config& c) { c.kdp.ngates = 0; });
        // Within the rule's bound but 2^31 bytes an item: beyond GNU Radio's item size.
        expect("ngates", [](kdp_ff_config& c) { c.kdp.ngates = 1 << 29; });
        expect("gate_spacing_m", [](kdp_ff_config& c) { c.kdp.gate_spacing_m = -150.0; });
        expect("window_km", [](kdp_ff_config& c) { c.kdp.window_km = 0.1; });
        expect("max_gap_km", [](kdp_ff_config& c) { c.kdp.max_gap_km = -1.0; });
        expect("min_rhohv", [](kdp_ff_config& c) {
            c.use_rhohv = true;
            c.kdp.min_rhohv = 2.0;
        });
        expect("min_snr_db", [](kdp_ff_config& c) {
            c.use_snr = true;
            c.kdp.min_snr_db = std::nan("");
        });
        expect("device", [](kdp_ff_config& c) { c.kdp.device = "gpu"; });
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_kdp_ff_flowgraph);

} // namespace cudadsp
} // namespace gr
