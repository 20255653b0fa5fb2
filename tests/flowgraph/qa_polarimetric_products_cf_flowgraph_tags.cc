/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// polarimetric_products_cf's tags in a flowgraph: radial_index and input tags on the
// radial that holds their pulse, and the scan geometry tags checked against the
// antenna's true position and time, computed here in float64 from the scan that the
// input tags (or the simple scan, set_scan() and "scan" messages) describe.

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

class qa_polarimetric_products_cf_flowgraph_tags : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_polarimetric_products_cf_flowgraph_tags);
    QA_BACKEND_TEST(radial_index_and_input_tags);
    QA_BACKEND_TEST(scan_tags_from_tagged_pulses);
    QA_BACKEND_TEST(scan_tags_of_the_simple_scan);
    QA_BACKEND_TEST(scan_changes_apply_from_the_next_radial);
    CPPUNIT_TEST_SUITE_END();

public:
    void radial_index_and_input_tags(const std::string& device)
    {
        for (int max_items : { 0, 2 }) {
            params p;
            p.processing.device = device;
            p.processing.ngates = 8;
            p.processing.pulses_per_radial = 12;
            const std::size_t M = p.processing.pulses_per_radial, nradials = 40;
            const auto x = echoes(p, nradials * M + 5, 9);
            // Offsets p within a radial early, at its middle and past it (GNU
            // Radio's own propagation would round p / M to the nearest radial), the
            // very last pulse of a radial, and one in the partial final radial.
            std::vector<qa::stream_tag> tags;
            const std::uint64_t port0[] = { 0, 5, 6, 11, 12, 18, 23, 100, 479, 482 };
            const std::uint64_t port1[] = { 7, 250, 300 };
            for (std::uint64_t o : port0)
                tags.push_back({ 0, o, pmt::intern("h_tag"), pmt::from_uint64(o) });
            for (std::uint64_t o : port1)
                tags.push_back({ 1, o, pmt::intern("v_tag"), pmt::from_uint64(o) });
            auto src = pulse_source::make(p.processing.ngates, { x.h, x.v }, tags);
            graph g = make_graph(p, src, 0, src, 1);
            if (max_items > 0)
                g.block->set_max_noutput_items(max_items);
            const std::string what =
                describe(p, " tags, max_noutput_items=" + std::to_string(max_items));
            run_or_die(g.tb, what);
            assert_same_products(
                engine_products(p, x, nradials), g.sinks, p.processing.ngates, what);

            for (int q = 0; q < nproducts; ++q) {
                const std::string port = what + ": output " + std::to_string(q);
                std::vector<gr::tag_t> out = g.sinks[q]->tags();
                std::vector<std::uint64_t> radial_offsets;
                std::size_t passed = 0;
                for (const gr::tag_t& t : out) {
                    CPPUNIT_ASSERT_MESSAGE(port + ": tag beyond the last radial",
                                           t.offset < nradials);
                    const std::string key = pmt::symbol_to_string(t.key);
                    if (key == "radial_index") {
                        CPPUNIT_ASSERT_MESSAGE(port, pmt::is_uint64(t.value));
                        CPPUNIT_ASSERT_EQUAL_MESSAGE(
                            port, t.offset, pmt::to_uint64(t.value));
                        radial_offsets.push_back(t.offset);
                        continue;
                    }
                    if (is_geometry_key(key))
                        continue; // scan_tags_* check these
                    ++passed;
                    CPPUNIT_ASSERT_MESSAGE(port + ": unexpected tag " + key,
                                           key == "h_tag" || key == "v_tag");
                    const std::uint64_t pulse = pmt::to_uint64(t.value);
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(port + ": " + key + " of pulse " +
                                                     std::to_string(pulse),
                                                 pulse / M,
                                                 t.offset);
                }
                std::sort(radial_offsets.begin(), radial_offsets.end());
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    port + ": radial_index tags", nradials, radial_offsets.size());
                for (std::size_t r = 0; r < nradials; ++r)
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(
                        port, std::uint64_t(r), radial_offsets[r]);
                // Every input tag of a whole radial, from either input, once.
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    port + ": input tags passed on", std::size_t(9 + 3), passed);
            }
        }
    }

    void scan_tags_from_tagged_pulses(const std::string& device)
    {
        // An antenna turning at 500 deg/s (6 degrees per radial of 12 pulses), azimuth
        // tags every 7 pulses (across radial boundaries), elevation stepping 0.5 ->
        // 0.52 (within the sweep tolerance) -> 1.5 (a new sweep), and two rx_time
        // tags (the second a jump in the time base). The truth of each radial is the
        // antenna at its centre pulse: a0 + rate t for the azimuth, the elevation and
        // the time base in force at that pulse. A full turn after the elevation change
        // starts the third sweep. Malformed scan tags are ignored, scan tags on input 1
        // are not read, and no input scan tag is passed on.
        params p;
        p.processing.device = device;
        p.processing.ngates = 4;
        p.processing.pulses_per_radial = 12;
        p.processing.clutter.antenna_rate_deg_s = 500.0;
        const double T = p.processing.prt_s, a0 = 355.0;
        const std::size_t M = p.processing.pulses_per_radial, nradials = 100;
        const std::uint64_t elevation_step[] = { 2, 40, 10 * M + 3 };
        const double elevation_value[] = { 0.5, 0.52, 1.5 };
        const std::uint64_t time_base_pulse[] = { 5, 50 * M + 1 };
        const std::uint64_t time_base_seconds[] = { 1700000000, 1700000100 };
        const double time_base_fraction[] = { 0.25, 0.5 };
        const auto x = echoes(p, nradials * M + 5, 41);

        std::vector<qa::stream_tag> tags;
        for (std::uint64_t k = 3; k < nradials * M + 5; k += 7)
            tags.push_back(
                { 0,
                  k,
                  pmt::intern("azimuth_deg"),
                  pmt::from_double(
                      wrap_360(a0 + p.processing.clutter.antenna_rate_deg_s * k * T)) });
        for (int i = 0; i < 3; ++i)
            tags.push_back({ 0,
                             elevation_step[i],
                             pmt::intern("elevation_deg"),
                             pmt::from_double(elevation_value[i]) });
        for (int i = 0; i < 2; ++i)
            tags.push_back({ 0,
                             time_base_pulse[i],
                             pmt::intern("rx_time"),
                             pmt::make_tuple(pmt::from_uint64(time_base_seconds[i]),
                                             pmt::from_double(time_base_fraction[i])) });
        tags.push_back({ 0, 50, pmt::intern("azimuth_deg"), pmt::intern("north") });
        tags.push_back({ 0, 60, pmt::intern("rx_time"), pmt::from_double(12.0) });
        tags.push_back({ 1, 30, pmt::intern("azimuth_deg"), pmt::from_double(123.0) });
        tags.push_back({ 1, 31, pmt::intern("elevation_deg"), pmt::from_double(45.0) });

        std::vector<radial_geometry> expected(nradials);
        for (std::size_t r = 0; r < nradials; ++r) {
            const double c = centre_pulse(p, r);
            radial_geometry& e = expected[r];
            e.azimuth_deg =
                wrap_360(a0 + p.processing.clutter.antenna_rate_deg_s * c * T);
            for (int i = 0; i < 3; ++i)
                if (c >= double(elevation_step[i]))
                    e.elevation_deg = elevation_value[i];
            for (int i = 0; i < 2; ++i)
                if (c >= double(time_base_pulse[i]))
                    e.time_s = double(time_base_seconds[i]) + time_base_fraction[i] +
                               (c - double(time_base_pulse[i])) * T;
            e.sweep_index = r < 10 ? 0 : r < 70 ? 1 : 2;
        }

        // The same tags however the stream is cut: (block, source) items per call.
        std::vector<std::string> first_run;
        for (auto [block_items, source_items] :
             { std::pair{ 0, 0 }, { 1, 5 }, { 3, 7 }, { 2, 1 } }) {
            auto src = pulse_source::make(p.processing.ngates, { x.h, x.v }, tags);
            if (source_items > 0)
                src->set_max_noutput_items(source_items);
            graph g = make_graph(p, src, 0, src, 1);
            if (block_items > 0)
                g.block->set_max_noutput_items(block_items);
            const std::string what = describe(p,
                                              " tagged scan, block/source items " +
                                                  std::to_string(block_items) + "/" +
                                                  std::to_string(source_items));
            run_or_die(g.tb, what);
            assert_same_products(
                engine_products(p, x, nradials), g.sinks, p.processing.ngates, what);
            assert_geometry(expected, g, what);
            const auto text = tag_text(g);
            if (first_run.empty())
                first_run = text;
            else
                CPPUNIT_ASSERT_MESSAGE(what + ": tags differ from the first run's",
                                       first_run == text);
        }
    }

    void scan_tags_of_the_simple_scan(const std::string& device)
    {
        // No scan tags: azimuth from scan_start_azimuth_deg at the antenna rate
        // (10 degrees per radial, a new sweep every 36 radials), the fixed
        // scan_elevation_deg, time from 0 at the first pulse; on 7 or 9 outputs.
        params p;
        p.processing.device = device;
        p.processing.ngates = 3;
        p.processing.pulses_per_radial = 10;
        p.processing.clutter.antenna_rate_deg_s = 1000.0;
        p.scan_start_azimuth_deg = 350.0;
        p.scan_elevation_deg = 2.0;
        const std::size_t nradials = 80;
        const auto x = echoes(p, nradials * p.processing.pulses_per_radial + 3, 43);
        std::vector<radial_geometry> expected(nradials);
        for (std::size_t r = 0; r < nradials; ++r) {
            const double t = centre_pulse(p, r) * p.processing.prt_s;
            expected[r] = { wrap_360(350.0 + 1000.0 * t), 2.0, t, r / 36 };
        }
        for (int outputs : { mandatory_outputs, nproducts }) {
            graph g = make_vector_source_graph(p, x, outputs);
            g.block->set_max_noutput_items(7);
            const std::string what =
                describe(p, " simple scan, outputs=" + std::to_string(outputs));
            run_or_die(g.tb, what);
            assert_geometry(expected, g, what);
        }
    }

    void scan_changes_apply_from_the_next_radial(const std::string& device)
    {
        // The source stops before radial K until the sinks hold K radials; then the
        // scan changes, through the "scan" message port (after messages that must be
        // ignored, one of them partly valid) or set_scan(). Radials 0..K-1 keep the
        // make() scan, K.. follow the new one from K's first pulse.
        params p;
        p.processing.device = device;
        p.processing.ngates = 5;
        p.processing.pulses_per_radial = 10;
        p.processing.clutter.antenna_rate_deg_s = 100.0;
        const std::size_t M = p.processing.pulses_per_radial, nradials = 60, K = 20;
        const auto x = echoes(p, nradials * M, 47);
        const double inf = std::numeric_limits<double>::infinity();
        for (bool by_message : { true, false }) {
            std::vector<gr::blocks::vector_sink_f::sptr> sinks;
            polarimetric_products_cf* block = nullptr;
            bool applied = true;
            auto ready = [&]() {
                for (const auto& s : sinks)
                    if (s->data().size() < K * p.processing.ngates)
                        return false;
                return true;
            };
            auto change = [&]() {
                if (!by_message) {
                    block->set_scan(90.0, 1.0, 0.0);
                    return;
                }
                const pmt::pmt_t port = pmt::intern("scan");
                for (const pmt::pmt_t& bad :
                     { pmt::from_double(3.0),
                       scan_message({ { "tilt", pmt::from_double(1.0) } }),
                       scan_message({ { "start_azimuth_deg", pmt::intern("north") } }),
                       scan_message({ { "elevation_deg", pmt::from_double(3.0) },
                                      { "rate_deg_s", pmt::from_double(-1.0) } }),
                       scan_message({ { "elevation_deg", pmt::from_double(95.0) } }),
                       scan_message({ { "start_azimuth_deg", pmt::from_double(inf) } }) })
                    block->_post(port, bad);
                block->_post(
                    port,
                    scan_message({ { "start_azimuth_deg", pmt::from_double(200.0) },
                                   { "rate_deg_s", pmt::from_long(250) } }));
                // Messages are handled on the block's thread: wait for the good one.
                const auto deadline =
                    std::chrono::steady_clock::now() + std::chrono::seconds(30);
                while (block->scan_start_azimuth_deg() != 200.0) {
                    if (std::chrono::steady_clock::now() > deadline) {
                        applied = false;
                        return;
                    }
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                }
            };
            auto src = pulse_source::make(
                p.processing.ngates, { x.h, x.v }, {}, K * M, ready, change);
            graph g = make_graph(p, src, 0, src, 1, mandatory_outputs);
            sinks = g.sinks;
            block = g.block.get();
            const std::string what =
                describe(p, by_message ? " scan message" : " set_scan");
            run_or_die(g.tb, what);
            CPPUNIT_ASSERT_MESSAGE(what + ": the first radials never arrived",
                                   !src->pause_timed_out());
            CPPUNIT_ASSERT_MESSAGE(what + ": the scan message was not applied", applied);

            std::vector<radial_geometry> expected(nradials);
            for (std::size_t r = 0; r < nradials; ++r) {
                const double c = centre_pulse(p, r);
                radial_geometry& e = expected[r];
                if (r < K) {
                    e = { wrap_360(100.0 * c * p.processing.prt_s),
                          0.5,
                          c * p.processing.prt_s,
                          0 };
                } else if (by_message) {
                    e = { wrap_360(200.0 +
                                   250.0 * (c - double(K * M)) * p.processing.prt_s),
                          0.5,
                          c * p.processing.prt_s,
                          0 };
                } else {
                    e = {
                        90.0, 1.0, c * p.processing.prt_s, 1
                    }; // elevation 0.5 -> 1: new sweep
                }
            }
            assert_geometry(expected, g, what);
            CPPUNIT_ASSERT_EQUAL(by_message ? 200.0 : 90.0,
                                 g.block->scan_start_azimuth_deg());
            CPPUNIT_ASSERT_EQUAL(by_message ? 0.5 : 1.0, g.block->scan_elevation_deg());
            CPPUNIT_ASSERT_EQUAL(by_message ? 250.0 : 0.0, g.block->scan_rate_deg_s());
            // The clutter filter keeps make()'s antenna rate.
            CPPUNIT_ASSERT_EQUAL(100.0, g.block->antenna_rate_deg_s());
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_polarimetric_products_cf_flowgraph_tags);

} // namespace cudadsp
} // namespace gr
