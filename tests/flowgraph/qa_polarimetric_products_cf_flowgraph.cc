/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// polarimetric_products_cf inside GNU Radio flowgraphs, from C++: the block tier that
// runs on the GPU host. The engine is tested against a float64 reference in
// qa_polarimetric; here the block's outputs must be the engine's, bit for bit, run
// directly on the same pulses: no radial lost, duplicated or shifted across work()
// calls, with 7, 8 or 9 outputs connected. Tags: _tags.cc; setters, getters and
// parameters: _control.cc (one ctest entry, qa_polarimetric_products_cf_flowgraph).

#include "qa_float_bits.h"
#include "qa_polarimetric_products_cf_flowgraph_support.h"
#include "qa_run_flowgraph.h"
#include "qa_stream_source.h"
#include "qa_support.h"
#include <gnuradio/blocks/throttle.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <gnuradio/cudadsp/polarimetric_products_cf.h>
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
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <thread>

namespace gr {
namespace cudadsp {

using namespace qa_polarimetric_flowgraph;

class qa_polarimetric_products_cf_flowgraph : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_polarimetric_products_cf_flowgraph);
    QA_BACKEND_TEST(stream_matches_engine);
    QA_BACKEND_TEST(no_radial_lost_with_small_work_calls);
    QA_BACKEND_TEST(partial_final_radial_is_not_emitted);
    QA_BACKEND_TEST(slow_source_within_the_wait_bound);
    QA_BACKEND_TEST(optional_outputs);
    CPPUNIT_TEST_SUITE_END();

public:
    void stream_matches_engine(const std::string& device)
    {
        for (const std::string mode : { "simultaneous", "alternating" }) {
            for (int ngates : { 1, 37, 2242 }) {
                params p;
                p.processing.device = device;
                p.processing.mode = core::parse_polarimetric_mode(mode);
                p.processing.ngates = ngates;
                p.processing.first_gate_m = 500.0;
                // Under a sanitizer a fifth of the radials: still several batches.
                const std::size_t nradials = ngates == 2242
                                                 ? qa::scaled<std::size_t>(40, 12)
                                                 : qa::scaled<std::size_t>(300, 60);
                const auto x =
                    echoes(p, nradials * p.processing.pulses_per_radial, 3 + ngates);
                graph g = make_vector_source_graph(p, x);
                run_or_die(g.tb, describe(p));
                assert_same_products(
                    engine_products(p, x, nradials), g.sinks, ngates, describe(p));
            }
        }
    }

    void no_radial_lost_with_small_work_calls(const std::string& device)
    {
        // 500 radials through work() calls of at most 1, 3 or 17 radials (and of the
        // block's own batch): every radial once, in order.
        for (const std::string mode : { "simultaneous", "alternating" }) {
            params p;
            p.processing.device = device;
            p.processing.mode = core::parse_polarimetric_mode(mode);
            p.processing.ngates = 61;
            p.processing.pulses_per_radial = mode == "alternating" ? 16 : 15;
            const std::size_t nradials = qa::scaled<std::size_t>(500, 100);
            const auto x = echoes(p, nradials * p.processing.pulses_per_radial, 77);
            const auto expected = engine_products(p, x, nradials);
            for (int max_items : { 1, 3, 17, 0 }) {
                graph g = make_vector_source_graph(p, x);
                if (max_items > 0)
                    g.block->set_max_noutput_items(max_items);
                const std::string what =
                    describe(p, " max_noutput_items=" + std::to_string(max_items));
                run_or_die(g.tb, what);
                assert_same_products(expected, g.sinks, p.processing.ngates, what);
            }
        }
    }

    void partial_final_radial_is_not_emitted(const std::string& device)
    {
        params p;
        p.processing.device = device;
        p.processing.ngates = 20;
        const std::size_t nradials = 10;
        for (std::size_t extra : { 1, 17, 35 }) {
            const auto x =
                echoes(p, nradials * p.processing.pulses_per_radial + extra, 5);
            graph g = make_vector_source_graph(p, x);
            const std::string what =
                describe(p, " + " + std::to_string(extra) + " pulses");
            run_or_die(g.tb, what);
            assert_same_products(
                engine_products(p, x, nradials), g.sinks, p.processing.ngates, what);
        }
    }

    void slow_source_within_the_wait_bound(const std::string& device)
    {
        // Throttled pulses with room for many radials upstream: on CUDA the block waits
        // for a batch that never fills in time, so it must process what it has after
        // its wait bound (20 ms), lose nothing, and finish when the source does.
        params p;
        p.processing.device = device;
        p.processing.ngates = 100;
        const std::size_t nradials = 150;
        const double pulses_per_second = 36000.0;
        const auto x = echoes(p, nradials * p.processing.pulses_per_radial, 21);
        auto tb = gr::make_top_block("polarimetric_slow_source");
        auto src_h = gr::blocks::vector_source_c::make(x.h, false, p.processing.ngates);
        auto src_v = gr::blocks::vector_source_c::make(x.v, false, p.processing.ngates);
        const std::size_t item = sizeof(gr_complex) * p.processing.ngates;
        auto throttle_h = gr::blocks::throttle::make(item, pulses_per_second);
        auto throttle_v = gr::blocks::throttle::make(item, pulses_per_second);
        throttle_h->set_min_output_buffer(16384);
        throttle_v->set_min_output_buffer(16384);
        graph g = make_graph(p, throttle_h, 0, throttle_v, 0);
        g.tb->connect(src_h, 0, throttle_h, 0);
        g.tb->connect(src_v, 0, throttle_v, 0);
        const auto start = std::chrono::steady_clock::now();
        run_or_die(g.tb, describe(p, " slow source"));
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                .count();
        assert_same_products(engine_products(p, x, nradials),
                             g.sinks,
                             p.processing.ngates,
                             describe(p, " slow source"));
        // Under a sanitizer the path above ran and was checked; its wall time means
        // nothing there.
        qa::skip_under_sanitizer("the wait bound's wall time");
        // 0.15 s of pulses: no batch-sized stall on top of that.
        CPPUNIT_ASSERT_MESSAGE(describe(p, " slow source took ") +
                                   std::to_string(seconds) + " s",
                               seconds < 1.0);
    }

    void optional_outputs(const std::string& device)
    {
        // 7, 8 or 9 outputs connected: each connected one the engine's product (the
        // engine computes all nine), each with the block's tags; the clutter and
        // convention settings reach the engine.
        for (bool clutter_settings : { false, true }) {
            params p;
            p.processing.device = device;
            p.processing.ngates = 37;
            if (clutter_settings) {
                p.processing.clutter.kind = core::clutter_filter_kind::regression;
                p.processing.clutter.only_where_detected = true;
                p.processing.clutter.cpa_threshold = 0.3;
                p.processing.clutter.antenna_rate_deg_s = 12.0;
                p.processing.clutter.beamwidth_deg = 0.9;
                p.processing.invert_velocity = true;
                p.processing.invert_phidp = true;
            }
            const std::size_t nradials = 90;
            const auto x = echoes(p, nradials * p.processing.pulses_per_radial, 31);
            const auto expected = engine_products(p, x, nradials);
            for (int outputs : { mandatory_outputs, mandatory_outputs + 1, nproducts }) {
                graph g = make_vector_source_graph(p, x, outputs);
                const std::string what =
                    describe(p,
                             " outputs=" + std::to_string(outputs) +
                                 (clutter_settings ? " clutter settings" : ""));
                run_or_die(g.tb, what);
                assert_same_products(expected, g.sinks, p.processing.ngates, what);
                for (std::size_t q = 0; q < g.sinks.size(); ++q)
                    tagged_geometry(g.sinks[q]->tags(),
                                    nradials,
                                    what + ": output " + std::to_string(q));
            }
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_polarimetric_products_cf_flowgraph);

} // namespace cudadsp
} // namespace gr
