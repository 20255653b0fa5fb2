/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// polarimetric_products_cf's controls in a flowgraph: setters applied from the next
// radial, the getters and the backend, and parameters refused by name.

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

class qa_polarimetric_products_cf_flowgraph_control : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_polarimetric_products_cf_flowgraph_control);
    QA_BACKEND_TEST(setters_apply_to_following_radials);
    QA_BACKEND_TEST(backend_getters_and_nyquist);
    CPPUNIT_TEST(auto_device_prefers_cuda);
    CPPUNIT_TEST(bad_parameters);
    CPPUNIT_TEST_SUITE_END();

public:
    void setters_apply_to_following_radials(const std::string& device)
    {
        // The source stops before the pulses of radial K until all seven sinks hold K
        // radials, calls every setter, then sends the rest: radials 0..K-1 must carry
        // the old calibration and K.. the new one.
        for (const std::string mode : { "simultaneous", "alternating" }) {
            params p;
            p.processing.device = device;
            p.processing.mode = core::parse_polarimetric_mode(mode);
            p.processing.ngates = 50;
            const std::size_t nradials = 60, K = 23;
            const auto x = echoes(p, nradials * p.processing.pulses_per_radial, 13);
            core::polarimetric_calibration after;
            after.zcal_db = 10.0;
            after.zdr_cal_db = -2.0;
            after.phidp_offset_deg = -170.0;
            after.noise_h = 0.05;
            after.noise_v = 0.01;
            after.snr_threshold_db = 8.0;

            std::vector<gr::blocks::vector_sink_f::sptr> sinks;
            polarimetric_products_cf* block = nullptr;
            auto ready = [&]() {
                for (const auto& s : sinks)
                    if (s->data().size() < K * p.processing.ngates)
                        return false;
                return true;
            };
            auto change = [&]() {
                block->set_zcal_db(after.zcal_db);
                block->set_zdr_cal_db(after.zdr_cal_db);
                block->set_phidp_offset_deg(after.phidp_offset_deg);
                block->set_noise_h(after.noise_h);
                block->set_noise_v(after.noise_v);
                block->set_snr_threshold_db(after.snr_threshold_db);
            };
            auto src = pulse_source::make(p.processing.ngates,
                                          { x.h, x.v },
                                          {},
                                          K * p.processing.pulses_per_radial,
                                          ready,
                                          change);
            graph g = make_graph(p, src, 0, src, 1);
            sinks = g.sinks;
            block = g.block.get();
            const std::string what = describe(p, " setters");
            run_or_die(g.tb, what);
            CPPUNIT_ASSERT_MESSAGE(what + ": the first radials never arrived",
                                   !src->pause_timed_out());
            assert_same_products(engine_products(p, x, nradials, &after, K),
                                 g.sinks,
                                 p.processing.ngates,
                                 what);
            CPPUNIT_ASSERT_EQUAL(after.zcal_db, g.block->zcal_db());
            CPPUNIT_ASSERT_EQUAL(after.zdr_cal_db, g.block->zdr_cal_db());
            CPPUNIT_ASSERT_EQUAL(after.phidp_offset_deg, g.block->phidp_offset_deg());
            CPPUNIT_ASSERT_EQUAL(after.noise_h, g.block->noise_h());
            CPPUNIT_ASSERT_EQUAL(after.noise_v, g.block->noise_v());
            CPPUNIT_ASSERT_EQUAL(after.snr_threshold_db, g.block->snr_threshold_db());
        }
    }

    void backend_getters_and_nyquist(const std::string& device)
    {
        for (const std::string mode : { "simultaneous", "alternating" }) {
            params p;
            p.processing.device = device;
            p.processing.mode = core::parse_polarimetric_mode(mode);
            p.processing.wavelength_m = 0.1;
            p.processing.prt_s = 1e-3;
            auto block = p.make_block();
            CPPUNIT_ASSERT_EQUAL(device == "cpu" ? std::string("cpu")
                                                 : std::string("cuda:0"),
                                 block->backend());
            CPPUNIT_ASSERT_DOUBLES_EQUAL(
                mode == "simultaneous" ? 25.0 : 12.5, block->nyquist_velocity(), 1e-12);
            CPPUNIT_ASSERT_EQUAL(unsigned(p.processing.pulses_per_radial),
                                 block->decimation());
            CPPUNIT_ASSERT_EQUAL(p.processing.calibration.zcal_db, block->zcal_db());
            CPPUNIT_ASSERT_EQUAL(p.processing.calibration.zdr_cal_db,
                                 block->zdr_cal_db());
            CPPUNIT_ASSERT_EQUAL(p.processing.calibration.phidp_offset_deg,
                                 block->phidp_offset_deg());
            CPPUNIT_ASSERT_EQUAL(p.processing.calibration.noise_h, block->noise_h());
            CPPUNIT_ASSERT_EQUAL(p.processing.calibration.noise_v, block->noise_v());
            CPPUNIT_ASSERT_EQUAL(p.processing.calibration.snr_threshold_db,
                                 block->snr_threshold_db());
            CPPUNIT_ASSERT_EQUAL(std::string("none"), block->clutter_filter());
            CPPUNIT_ASSERT_EQUAL(false, block->clutter_only_where_detected());
            CPPUNIT_ASSERT_EQUAL(0.5, block->cpa_threshold());
            CPPUNIT_ASSERT_EQUAL(0.0, block->antenna_rate_deg_s());
            CPPUNIT_ASSERT_EQUAL(1.0, block->beamwidth_deg());
            CPPUNIT_ASSERT_EQUAL(false, block->invert_velocity());
            CPPUNIT_ASSERT_EQUAL(false, block->invert_phidp());
            CPPUNIT_ASSERT_EQUAL(0.0, block->scan_start_azimuth_deg());
            CPPUNIT_ASSERT_EQUAL(0.5, block->scan_elevation_deg());
            CPPUNIT_ASSERT_EQUAL(0.0, block->scan_rate_deg_s());

            params q = p;
            q.processing.clutter.kind = core::clutter_filter_kind::gmap;
            q.processing.clutter.only_where_detected = true;
            q.processing.clutter.cpa_threshold = 0.8;
            q.processing.clutter.antenna_rate_deg_s = 18.0;
            q.processing.clutter.beamwidth_deg = 0.95;
            q.processing.invert_velocity = true;
            q.processing.invert_phidp = true;
            q.scan_start_azimuth_deg = 123.0;
            q.scan_elevation_deg = -0.5;
            auto other = q.make_block();
            CPPUNIT_ASSERT_EQUAL(std::string("gmap"), other->clutter_filter());
            CPPUNIT_ASSERT_EQUAL(true, other->clutter_only_where_detected());
            CPPUNIT_ASSERT_EQUAL(0.8, other->cpa_threshold());
            CPPUNIT_ASSERT_EQUAL(18.0, other->antenna_rate_deg_s());
            CPPUNIT_ASSERT_EQUAL(0.95, other->beamwidth_deg());
            CPPUNIT_ASSERT_EQUAL(true, other->invert_velocity());
            CPPUNIT_ASSERT_EQUAL(true, other->invert_phidp());
            CPPUNIT_ASSERT_EQUAL(123.0, other->scan_start_azimuth_deg());
            CPPUNIT_ASSERT_EQUAL(-0.5, other->scan_elevation_deg());
            CPPUNIT_ASSERT_EQUAL(18.0, other->scan_rate_deg_s());
            CPPUNIT_ASSERT_EQUAL(2, block->input_signature()->max_streams());
            CPPUNIT_ASSERT_EQUAL(mandatory_outputs,
                                 block->output_signature()->min_streams());
            CPPUNIT_ASSERT_EQUAL(nproducts, block->output_signature()->max_streams());
            CPPUNIT_ASSERT_EQUAL(int(sizeof(gr_complex) * p.processing.ngates),
                                 block->input_signature()->sizeof_stream_item(0));
            CPPUNIT_ASSERT_EQUAL(int(sizeof(float) * p.processing.ngates),
                                 block->output_signature()->sizeof_stream_item(0));
        }
    }

    void auto_device_prefers_cuda()
    {
        params p;
        p.processing.device = "auto";
        const std::string expected = qa::cuda_present() ? "cuda:0" : "cpu";
        CPPUNIT_ASSERT_EQUAL(expected, p.make_block()->backend());
    }

    void bad_parameters()
    {
        auto expect_thrown = [](const std::function<void()>& action,
                                const std::string& name) {
            try {
                action();
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(name + ": " + e.what(),
                                       std::string(e.what()).find(name) !=
                                           std::string::npos);
                return;
            }
            CPPUNIT_FAIL("no std::invalid_argument for a bad " + name);
        };
        auto expect_error = [&expect_thrown](const params& p, const std::string& name) {
            expect_thrown([&p] { p.make_block(); }, name);
        };
        const double nan = std::numeric_limits<double>::quiet_NaN();
        params p;
        p.processing.ngates = 0;
        expect_error(p, "ngates");
        p.processing.ngates = 1 << 28; // 2^31 bytes an item: beyond GNU Radio's item size
        expect_error(p, "ngates: must be 1 to 268435455");
        for (std::size_t M : { 0, 1 }) {
            p = params();
            p.processing.pulses_per_radial = M;
            expect_error(p, "pulses_per_radial");
        }
        for (std::size_t M : { 2, 5 }) {
            p = params();
            p.processing.mode = core::polarimetric_mode::alternating;
            p.processing.pulses_per_radial = M;
            expect_error(p, "pulses_per_radial");
        }
        for (double bad : { 0.0, -1.0, nan }) {
            p = params();
            p.processing.wavelength_m = bad;
            expect_error(p, "wavelength_m");
            p = params();
            p.processing.prt_s = bad;
            expect_error(p, "prt_s");
            p = params();
            p.processing.gate_spacing_m = bad;
            expect_error(p, "gate_spacing_m");
        }
        for (double bad : { -1.0, nan }) {
            p = params();
            p.processing.first_gate_m = bad;
            expect_error(p, "first_gate_m");
            p = params();
            p.processing.calibration.noise_h = bad;
            expect_error(p, "noise_h");
            p = params();
            p.processing.calibration.noise_v = bad;
            expect_error(p, "noise_v");
        }
        // Mode and clutter filter come by name from Python and GRC: the parsers they go
        // through name the keyword.
        expect_thrown([] { core::parse_polarimetric_mode("dual", "mode"); }, "mode");
        p = params();
        p.processing.device = "gpu";
        expect_error(p, "device");
        for (const std::string bad : { "", "Regression", "iir", "none " })
            expect_thrown([&bad] { core::parse_clutter_filter(bad, "clutter_filter"); },
                          "clutter_filter");
        const double inf = std::numeric_limits<double>::infinity();
        for (double bad : { 0.0, -0.1, 1.01, nan }) {
            p = params();
            p.processing.clutter.cpa_threshold = bad;
            expect_error(p, "cpa_threshold");
        }
        for (double bad : { -1.0, nan, inf }) {
            p = params();
            p.processing.clutter.antenna_rate_deg_s = bad;
            expect_error(p, "antenna_rate_deg_s");
        }
        for (double bad : { 0.0, -1.0, nan }) {
            p = params();
            p.processing.clutter.beamwidth_deg = bad;
            expect_error(p, "beamwidth_deg");
        }
        for (double bad : { nan, inf, -inf }) {
            p = params();
            p.scan_start_azimuth_deg = bad;
            expect_error(p, "scan_start_azimuth_deg");
        }
        for (double bad : { 90.5, -91.0, nan }) {
            p = params();
            p.scan_elevation_deg = bad;
            expect_error(p, "scan_elevation_deg");
        }

        // A rejected setter keeps the old value.
        auto block = params().make_block();
        CPPUNIT_ASSERT_THROW(block->set_noise_h(-1.0), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(block->set_noise_v(nan), std::invalid_argument);
        CPPUNIT_ASSERT_EQUAL(params().processing.calibration.noise_h, block->noise_h());
        CPPUNIT_ASSERT_EQUAL(params().processing.calibration.noise_v, block->noise_v());

        auto expect_scan_error = [&block](double azimuth,
                                          double elevation,
                                          double rate,
                                          const std::string& name) {
            try {
                block->set_scan(azimuth, elevation, rate);
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(name + ": " + e.what(),
                                       std::string(e.what()).find(name) !=
                                           std::string::npos);
                return;
            }
            CPPUNIT_FAIL("set_scan: no std::invalid_argument for a bad " + name);
        };
        block->set_scan(10.0, 1.0, 6.0);
        expect_scan_error(nan, 1.0, 6.0, "start_azimuth_deg");
        expect_scan_error(20.0, 91.0, 6.0, "elevation_deg");
        expect_scan_error(20.0, 1.0, -6.0, "rate_deg_s");
        expect_scan_error(20.0, 1.0, inf, "rate_deg_s");
        CPPUNIT_ASSERT_EQUAL(10.0, block->scan_start_azimuth_deg());
        CPPUNIT_ASSERT_EQUAL(1.0, block->scan_elevation_deg());
        CPPUNIT_ASSERT_EQUAL(6.0, block->scan_rate_deg_s());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_polarimetric_products_cf_flowgraph_control);

} // namespace cudadsp
} // namespace gr
