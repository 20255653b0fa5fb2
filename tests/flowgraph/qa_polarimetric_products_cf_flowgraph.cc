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
// calls, with 7, 8 or 9 outputs connected, tags where the block documents them,
// setters applied from the next radial. The scan geometry tags are checked against
// the antenna's true position and time, computed here in float64 from the scan that
// the input tags describe.

#include "qa_float_bits.h"
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

namespace {

using qa::run_or_die;

constexpr int nproducts = core::polarimetric_product_count;
//! Outputs 0 to 6 are mandatory; 7 (CLUT) and 8 (CPA) optional.
constexpr int mandatory_outputs = 7;

//! The block's parameters, in make()'s order.
struct params {
    int ngates = 37;
    int pulses_per_radial = 36;
    double wavelength_m = 0.0531;
    double prt_s = 1e-3;
    double first_gate_m = 0.0;
    double gate_spacing_m = 150.0;
    double zcal_db = -30.0;
    double zdr_cal_db = 0.5;
    double phidp_offset_deg = 25.0;
    double noise_h = 0.02;
    double noise_v = 0.03;
    double snr_threshold_db = 3.0;
    std::string mode = "simultaneous";
    std::string device = "cpu";
    std::string clutter_filter = "none";
    bool clutter_only_where_detected = false;
    double cpa_threshold = 0.5;
    double antenna_rate_deg_s = 0.0;
    double beamwidth_deg = 1.0;
    bool invert_velocity = false;
    bool invert_phidp = false;
    double scan_start_azimuth_deg = 0.0;
    double scan_elevation_deg = 0.5;

    polarimetric_products_cf::sptr make_block() const
    {
        return polarimetric_products_cf::make(ngates,
                                              pulses_per_radial,
                                              wavelength_m,
                                              prt_s,
                                              first_gate_m,
                                              gate_spacing_m,
                                              zcal_db,
                                              zdr_cal_db,
                                              phidp_offset_deg,
                                              noise_h,
                                              noise_v,
                                              snr_threshold_db,
                                              mode,
                                              device,
                                              clutter_filter,
                                              clutter_only_where_detected,
                                              cpa_threshold,
                                              antenna_rate_deg_s,
                                              beamwidth_deg,
                                              invert_velocity,
                                              invert_phidp,
                                              scan_start_azimuth_deg,
                                              scan_elevation_deg);
    }

    core::polarimetric_config engine_config() const
    {
        core::polarimetric_config c;
        c.ngates = ngates;
        c.pulses_per_radial = pulses_per_radial;
        c.wavelength_m = wavelength_m;
        c.prt_s = prt_s;
        c.first_gate_m = first_gate_m;
        c.gate_spacing_m = gate_spacing_m;
        c.calibration.zcal_db = zcal_db;
        c.calibration.zdr_cal_db = zdr_cal_db;
        c.calibration.phidp_offset_deg = phidp_offset_deg;
        c.calibration.noise_h = noise_h;
        c.calibration.noise_v = noise_v;
        c.calibration.snr_threshold_db = snr_threshold_db;
        c.mode = core::parse_polarimetric_mode(mode);
        c.device = device;
        c.clutter.kind = core::parse_clutter_filter(clutter_filter);
        c.clutter.only_where_detected = clutter_only_where_detected;
        c.clutter.cpa_threshold = cpa_threshold;
        c.clutter.antenna_rate_deg_s = antenna_rate_deg_s;
        c.clutter.beamwidth_deg = beamwidth_deg;
        c.invert_velocity = invert_velocity;
        c.invert_phidp = invert_phidp;
        return c;
    }

    std::size_t pulse_samples() const { return std::size_t(ngates); }
    std::size_t radial_samples() const { return std::size_t(ngates) * pulses_per_radial; }
};

struct pulses {
    std::vector<gr_complex> h, v;
};

using pulse_source = qa::stream_source<gr_complex>;

/*!
 * \p npulses pulses of \p ngates gates: per gate a correlated pair of AR(1) series with
 * its own Doppler phase, H/V correlation and SNR around the noise of \p p (some gates
 * fall below the censoring threshold). Fixed seed.
 */
pulses echoes(const params& p, std::size_t npulses, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, std::sqrt(0.5));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    auto cn = [&](double power) {
        const double s = std::sqrt(power);
        return std::complex<double>(s * normal(rng), s * normal(rng));
    };
    const std::size_t G = p.ngates;
    pulses out;
    out.h.resize(npulses * G);
    out.v.resize(npulses * G);
    for (std::size_t g = 0; g < G; ++g) {
        const double snr = std::pow(10.0, (-5.0 + 35.0 * u(rng)) / 10.0);
        const double sh = p.noise_h * snr, sv = sh / (0.5 + 2.0 * u(rng));
        const std::complex<double> a = std::polar(0.6 + 0.39 * u(rng), 6.28 * u(rng));
        const std::complex<double> cross = std::polar(0.9 + 0.09 * u(rng), 6.28 * u(rng));
        const double innovation = std::sqrt(1.0 - std::norm(a));
        std::complex<double> s1 = cn(1.0), s2 = cn(1.0);
        for (std::size_t n = 0; n < npulses; ++n) {
            s1 = a * s1 + innovation * cn(1.0);
            s2 = a * s2 + innovation * cn(1.0);
            const std::complex<double> h = std::sqrt(sh) * s1 + cn(p.noise_h);
            const std::complex<double> v =
                std::sqrt(sv) * (cross * s1 + std::sqrt(1.0 - std::norm(cross)) * s2) +
                cn(p.noise_v);
            out.h[n * G + g] = gr_complex(h);
            out.v[n * G + g] = gr_complex(v);
        }
    }
    return out;
}

using product_vectors = std::array<std::vector<float>, nproducts>;

//! The keys of the block's own per-radial tags besides "radial_index".
bool is_geometry_key(const std::string& key)
{
    return key == "azimuth_deg" || key == "elevation_deg" || key == "time_s" ||
           key == "sweep_index";
}

//! The engine run directly on the first \p nradials radials, calibration changing to
//! \p after (if given) from radial \p change_at on.
product_vectors engine_products(const params& p,
                                const pulses& x,
                                std::size_t nradials,
                                const core::polarimetric_calibration* after = nullptr,
                                std::size_t change_at = 0)
{
    auto engine = core::polarimetric_processor::make(p.engine_config());
    product_vectors out;
    for (auto& v : out)
        v.assign(nradials * p.ngates, qa::poison_value);
    auto process = [&](std::size_t first, std::size_t count) {
        float* ptr[nproducts];
        for (int q = 0; q < nproducts; ++q)
            ptr[q] = out[q].data() + first * p.ngates;
        const std::size_t at = first * p.radial_samples();
        engine->process(x.h.data() + at, x.v.data() + at, count, ptr);
    };
    if (after) {
        process(0, change_at);
        engine->set_calibration(*after);
        process(change_at, nradials - change_at);
    } else {
        process(0, nradials);
    }
    return out;
}

//! Bit equality (NaN matching NaN) of every connected output port's stream.
void assert_same_products(const product_vectors& expected,
                          const std::vector<gr::blocks::vector_sink_f::sptr>& sinks,
                          std::size_t ngates,
                          const std::string& what)
{
    for (std::size_t q = 0; q < sinks.size(); ++q) {
        const std::vector<float> got = sinks[q]->data();
        const std::string port = what + ": output " + std::to_string(q) + " (" +
                                 core::product_name(int(q)) + ")";
        qa::assert_same_floats(expected[q], got, ngates, port, "radial", "gate");
    }
}

//! The block between two pulse streams and vector sinks on its first outputs.
struct graph {
    gr::top_block_sptr tb;
    polarimetric_products_cf::sptr block;
    std::vector<gr::blocks::vector_sink_f::sptr> sinks;
};

graph make_graph(const params& p,
                 gr::basic_block_sptr h_source,
                 int h_port,
                 gr::basic_block_sptr v_source,
                 int v_port,
                 int outputs = nproducts)
{
    graph g;
    g.tb = gr::make_top_block("polarimetric_products");
    g.block = p.make_block();
    g.tb->connect(h_source, h_port, g.block, 0);
    g.tb->connect(v_source, v_port, g.block, 1);
    for (int q = 0; q < outputs; ++q) {
        g.sinks.push_back(gr::blocks::vector_sink_f::make(p.ngates));
        g.tb->connect(g.block, q, g.sinks.back(), 0);
    }
    return g;
}

graph make_vector_source_graph(const params& p, const pulses& x, int outputs = nproducts)
{
    auto h = gr::blocks::vector_source_c::make(x.h, false, p.ngates);
    auto v = gr::blocks::vector_source_c::make(x.v, false, p.ngates);
    return make_graph(p, h, 0, v, 0, outputs);
}

std::string describe(const params& p, const std::string& extra = "")
{
    std::ostringstream s;
    s << p.device << " " << p.mode << " ngates=" << p.ngates
      << " M=" << p.pulses_per_radial << extra;
    return s.str();
}

//! Where and when a radial was observed: what the block's tags must say.
struct radial_geometry {
    double azimuth_deg = 0.0;
    double elevation_deg = 0.0;
    double time_s = 0.0;
    std::uint64_t sweep_index = 0;
};

//! Degrees in [0, 360).
double wrap_360(double degrees)
{
    const double wrapped = std::fmod(degrees, 360.0);
    return wrapped < 0.0 ? wrapped + 360.0 : wrapped;
}

//! The centre pulse of radial \p r: r M + (M - 1) / 2.
double centre_pulse(const params& p, std::size_t r)
{
    return double(r) * p.pulses_per_radial + 0.5 * (p.pulses_per_radial - 1);
}

/*!
 * The block's own tags on one output: per radial exactly one each of "radial_index"
 * (uint64, its offset), "azimuth_deg", "elevation_deg", "time_s" (double) and
 * "sweep_index" (uint64), nothing beyond the last radial.
 */
std::vector<radial_geometry> tagged_geometry(const std::vector<gr::tag_t>& tags,
                                             std::size_t nradials,
                                             const std::string& what)
{
    std::vector<radial_geometry> out(nradials);
    std::vector<int> count(nradials * 5, 0);
    for (const gr::tag_t& t : tags) {
        const std::string key = pmt::symbol_to_string(t.key);
        const int k = key == "radial_index"    ? 0
                      : key == "azimuth_deg"   ? 1
                      : key == "elevation_deg" ? 2
                      : key == "time_s"        ? 3
                      : key == "sweep_index"   ? 4
                                               : -1;
        if (k < 0)
            continue;
        const std::string where = what + ": " + key + " at " + std::to_string(t.offset);
        CPPUNIT_ASSERT_MESSAGE(where + ": beyond the last radial", t.offset < nradials);
        ++count[t.offset * 5 + k];
        radial_geometry& g = out[t.offset];
        if (k == 0 || k == 4) {
            CPPUNIT_ASSERT_MESSAGE(where + ": not a uint64", pmt::is_uint64(t.value));
            if (k == 0)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(where, t.offset, pmt::to_uint64(t.value));
            else
                g.sweep_index = pmt::to_uint64(t.value);
            continue;
        }
        CPPUNIT_ASSERT_MESSAGE(where + ": not a double", pmt::is_real(t.value));
        const double v = pmt::to_double(t.value);
        (k == 1 ? g.azimuth_deg : k == 2 ? g.elevation_deg : g.time_s) = v;
    }
    for (std::size_t i = 0; i < count.size(); ++i)
        CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": radial " + std::to_string(i / 5) +
                                         ": tags of key #" + std::to_string(i % 5),
                                     1,
                                     count[i]);
    return out;
}

//! The geometry tags of every sink of \p g against \p expected; returns port 0's.
std::vector<radial_geometry> assert_geometry(const std::vector<radial_geometry>& expected,
                                             const graph& g,
                                             const std::string& what)
{
    std::vector<radial_geometry> first;
    for (std::size_t q = 0; q < g.sinks.size(); ++q) {
        const std::string port = what + ": output " + std::to_string(q);
        const auto got = tagged_geometry(g.sinks[q]->tags(), expected.size(), port);
        for (std::size_t r = 0; r < expected.size(); ++r) {
            const radial_geometry& e = expected[r];
            const std::string radial = port + ": radial " + std::to_string(r);
            const double azimuth_error =
                std::abs(wrap_360(got[r].azimuth_deg - e.azimuth_deg + 180.0) - 180.0);
            CPPUNIT_ASSERT_MESSAGE(radial + ": azimuth " +
                                       std::to_string(got[r].azimuth_deg) +
                                       ", expected " + std::to_string(e.azimuth_deg),
                                   azimuth_error < 1e-9);
            CPPUNIT_ASSERT_MESSAGE(radial + ": azimuth in [0, 360)",
                                   got[r].azimuth_deg >= 0.0 &&
                                       got[r].azimuth_deg < 360.0);
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(
                radial + ": elevation", e.elevation_deg, got[r].elevation_deg, 1e-12);
            // Seconds since 1970 in float64: a few 1e-7 s of rounding.
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(
                radial + ": time", e.time_s, got[r].time_s, 1e-6);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                radial + ": sweep", e.sweep_index, got[r].sweep_index);
        }
        if (q == 0)
            first = got;
    }
    return first;
}

//! Every tag of every output as text: runs that must agree exactly compare these.
std::vector<std::string> tag_text(const graph& g)
{
    std::vector<std::string> out;
    for (std::size_t q = 0; q < g.sinks.size(); ++q) {
        std::vector<std::string> port;
        for (const gr::tag_t& t : g.sinks[q]->tags()) {
            std::ostringstream s;
            s.precision(17);
            s << q << " " << t.offset << " " << pmt::symbol_to_string(t.key) << " ";
            if (pmt::is_real(t.value))
                s << pmt::to_double(t.value);
            else
                s << pmt::write_string(t.value);
            port.push_back(s.str());
        }
        std::sort(port.begin(), port.end());
        out.insert(out.end(), port.begin(), port.end());
    }
    return out;
}

pmt::pmt_t scan_message(std::initializer_list<std::pair<const char*, pmt::pmt_t>> items)
{
    pmt::pmt_t dict = pmt::make_dict();
    for (const auto& [key, value] : items)
        dict = pmt::dict_add(dict, pmt::intern(key), value);
    return dict;
}

} // namespace

class qa_polarimetric_products_cf_flowgraph : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_polarimetric_products_cf_flowgraph);
    QA_BACKEND_TEST(stream_matches_engine);
    QA_BACKEND_TEST(no_radial_lost_with_small_work_calls);
    QA_BACKEND_TEST(partial_final_radial_is_not_emitted);
    QA_BACKEND_TEST(radial_index_and_input_tags);
    QA_BACKEND_TEST(setters_apply_to_following_radials);
    QA_BACKEND_TEST(slow_source_within_the_wait_bound);
    QA_BACKEND_TEST(backend_getters_and_nyquist);
    QA_BACKEND_TEST(optional_outputs);
    QA_BACKEND_TEST(scan_tags_from_tagged_pulses);
    QA_BACKEND_TEST(scan_tags_of_the_simple_scan);
    QA_BACKEND_TEST(scan_changes_apply_from_the_next_radial);
    CPPUNIT_TEST(auto_device_prefers_cuda);
    CPPUNIT_TEST(bad_parameters);
    CPPUNIT_TEST_SUITE_END();

public:
    void stream_matches_engine(const std::string& device)
    {
        for (const std::string mode : { "simultaneous", "alternating" }) {
            for (int ngates : { 1, 37, 2242 }) {
                params p;
                p.device = device;
                p.mode = mode;
                p.ngates = ngates;
                p.first_gate_m = 500.0;
                // Under a sanitizer a fifth of the radials: still several batches.
                const std::size_t nradials = ngates == 2242
                                                 ? qa::scaled<std::size_t>(40, 12)
                                                 : qa::scaled<std::size_t>(300, 60);
                const auto x = echoes(p, nradials * p.pulses_per_radial, 3 + ngates);
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
            p.device = device;
            p.mode = mode;
            p.ngates = 61;
            p.pulses_per_radial = mode == "alternating" ? 16 : 15;
            const std::size_t nradials = qa::scaled<std::size_t>(500, 100);
            const auto x = echoes(p, nradials * p.pulses_per_radial, 77);
            const auto expected = engine_products(p, x, nradials);
            for (int max_items : { 1, 3, 17, 0 }) {
                graph g = make_vector_source_graph(p, x);
                if (max_items > 0)
                    g.block->set_max_noutput_items(max_items);
                const std::string what =
                    describe(p, " max_noutput_items=" + std::to_string(max_items));
                run_or_die(g.tb, what);
                assert_same_products(expected, g.sinks, p.ngates, what);
            }
        }
    }

    void partial_final_radial_is_not_emitted(const std::string& device)
    {
        params p;
        p.device = device;
        p.ngates = 20;
        const std::size_t nradials = 10;
        for (std::size_t extra : { 1, 17, 35 }) {
            const auto x = echoes(p, nradials * p.pulses_per_radial + extra, 5);
            graph g = make_vector_source_graph(p, x);
            const std::string what =
                describe(p, " + " + std::to_string(extra) + " pulses");
            run_or_die(g.tb, what);
            assert_same_products(
                engine_products(p, x, nradials), g.sinks, p.ngates, what);
        }
    }

    void radial_index_and_input_tags(const std::string& device)
    {
        for (int max_items : { 0, 2 }) {
            params p;
            p.device = device;
            p.ngates = 8;
            p.pulses_per_radial = 12;
            const std::size_t M = p.pulses_per_radial, nradials = 40;
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
            auto src = pulse_source::make(p.ngates, { x.h, x.v }, tags);
            graph g = make_graph(p, src, 0, src, 1);
            if (max_items > 0)
                g.block->set_max_noutput_items(max_items);
            const std::string what =
                describe(p, " tags, max_noutput_items=" + std::to_string(max_items));
            run_or_die(g.tb, what);
            assert_same_products(
                engine_products(p, x, nradials), g.sinks, p.ngates, what);

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

    void setters_apply_to_following_radials(const std::string& device)
    {
        // The source stops before the pulses of radial K until all seven sinks hold K
        // radials, calls every setter, then sends the rest: radials 0..K-1 must carry
        // the old calibration and K.. the new one.
        for (const std::string mode : { "simultaneous", "alternating" }) {
            params p;
            p.device = device;
            p.mode = mode;
            p.ngates = 50;
            const std::size_t nradials = 60, K = 23;
            const auto x = echoes(p, nradials * p.pulses_per_radial, 13);
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
                    if (s->data().size() < K * p.ngates)
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
            auto src = pulse_source::make(
                p.ngates, { x.h, x.v }, {}, K * p.pulses_per_radial, ready, change);
            graph g = make_graph(p, src, 0, src, 1);
            sinks = g.sinks;
            block = g.block.get();
            const std::string what = describe(p, " setters");
            run_or_die(g.tb, what);
            CPPUNIT_ASSERT_MESSAGE(what + ": the first radials never arrived",
                                   !src->pause_timed_out());
            assert_same_products(
                engine_products(p, x, nradials, &after, K), g.sinks, p.ngates, what);
            CPPUNIT_ASSERT_EQUAL(after.zcal_db, g.block->zcal_db());
            CPPUNIT_ASSERT_EQUAL(after.zdr_cal_db, g.block->zdr_cal_db());
            CPPUNIT_ASSERT_EQUAL(after.phidp_offset_deg, g.block->phidp_offset_deg());
            CPPUNIT_ASSERT_EQUAL(after.noise_h, g.block->noise_h());
            CPPUNIT_ASSERT_EQUAL(after.noise_v, g.block->noise_v());
            CPPUNIT_ASSERT_EQUAL(after.snr_threshold_db, g.block->snr_threshold_db());
        }
    }

    void slow_source_within_the_wait_bound(const std::string& device)
    {
        // Throttled pulses with room for many radials upstream: on CUDA the block waits
        // for a batch that never fills in time, so it must process what it has after
        // its wait bound (20 ms), lose nothing, and finish when the source does.
        params p;
        p.device = device;
        p.ngates = 100;
        const std::size_t nradials = 150;
        const double pulses_per_second = 36000.0;
        const auto x = echoes(p, nradials * p.pulses_per_radial, 21);
        auto tb = gr::make_top_block("polarimetric_slow_source");
        auto src_h = gr::blocks::vector_source_c::make(x.h, false, p.ngates);
        auto src_v = gr::blocks::vector_source_c::make(x.v, false, p.ngates);
        const std::size_t item = sizeof(gr_complex) * p.ngates;
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
                             p.ngates,
                             describe(p, " slow source"));
        // Under a sanitizer the path above ran and was checked; its wall time means
        // nothing there.
        qa::skip_under_sanitizer("the wait bound's wall time");
        // 0.15 s of pulses: no batch-sized stall on top of that.
        CPPUNIT_ASSERT_MESSAGE(describe(p, " slow source took ") +
                                   std::to_string(seconds) + " s",
                               seconds < 1.0);
    }

    void backend_getters_and_nyquist(const std::string& device)
    {
        for (const std::string mode : { "simultaneous", "alternating" }) {
            params p;
            p.device = device;
            p.mode = mode;
            p.wavelength_m = 0.1;
            p.prt_s = 1e-3;
            auto block = p.make_block();
            CPPUNIT_ASSERT_EQUAL(device == "cpu" ? std::string("cpu")
                                                 : std::string("cuda:0"),
                                 block->backend());
            CPPUNIT_ASSERT_DOUBLES_EQUAL(
                mode == "simultaneous" ? 25.0 : 12.5, block->nyquist_velocity(), 1e-12);
            CPPUNIT_ASSERT_EQUAL(unsigned(p.pulses_per_radial), block->decimation());
            CPPUNIT_ASSERT_EQUAL(p.zcal_db, block->zcal_db());
            CPPUNIT_ASSERT_EQUAL(p.zdr_cal_db, block->zdr_cal_db());
            CPPUNIT_ASSERT_EQUAL(p.phidp_offset_deg, block->phidp_offset_deg());
            CPPUNIT_ASSERT_EQUAL(p.noise_h, block->noise_h());
            CPPUNIT_ASSERT_EQUAL(p.noise_v, block->noise_v());
            CPPUNIT_ASSERT_EQUAL(p.snr_threshold_db, block->snr_threshold_db());
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
            q.clutter_filter = "gmap";
            q.clutter_only_where_detected = true;
            q.cpa_threshold = 0.8;
            q.antenna_rate_deg_s = 18.0;
            q.beamwidth_deg = 0.95;
            q.invert_velocity = true;
            q.invert_phidp = true;
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
            CPPUNIT_ASSERT_EQUAL(int(sizeof(gr_complex) * p.ngates),
                                 block->input_signature()->sizeof_stream_item(0));
            CPPUNIT_ASSERT_EQUAL(int(sizeof(float) * p.ngates),
                                 block->output_signature()->sizeof_stream_item(0));
        }
    }

    void optional_outputs(const std::string& device)
    {
        // 7, 8 or 9 outputs connected: each connected one the engine's product (the
        // engine computes all nine), each with the block's tags; the clutter and
        // convention settings reach the engine.
        for (bool clutter_settings : { false, true }) {
            params p;
            p.device = device;
            p.ngates = 37;
            if (clutter_settings) {
                p.clutter_filter = "regression";
                p.clutter_only_where_detected = true;
                p.cpa_threshold = 0.3;
                p.antenna_rate_deg_s = 12.0;
                p.beamwidth_deg = 0.9;
                p.invert_velocity = true;
                p.invert_phidp = true;
            }
            const std::size_t nradials = 90;
            const auto x = echoes(p, nradials * p.pulses_per_radial, 31);
            const auto expected = engine_products(p, x, nradials);
            for (int outputs : { mandatory_outputs, mandatory_outputs + 1, nproducts }) {
                graph g = make_vector_source_graph(p, x, outputs);
                const std::string what =
                    describe(p,
                             " outputs=" + std::to_string(outputs) +
                                 (clutter_settings ? " clutter settings" : ""));
                run_or_die(g.tb, what);
                assert_same_products(expected, g.sinks, p.ngates, what);
                for (std::size_t q = 0; q < g.sinks.size(); ++q)
                    tagged_geometry(g.sinks[q]->tags(),
                                    nradials,
                                    what + ": output " + std::to_string(q));
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
        p.device = device;
        p.ngates = 4;
        p.pulses_per_radial = 12;
        p.antenna_rate_deg_s = 500.0;
        const double T = p.prt_s, a0 = 355.0;
        const std::size_t M = p.pulses_per_radial, nradials = 100;
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
                  pmt::from_double(wrap_360(a0 + p.antenna_rate_deg_s * k * T)) });
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
            e.azimuth_deg = wrap_360(a0 + p.antenna_rate_deg_s * c * T);
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
            auto src = pulse_source::make(p.ngates, { x.h, x.v }, tags);
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
                engine_products(p, x, nradials), g.sinks, p.ngates, what);
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
        p.device = device;
        p.ngates = 3;
        p.pulses_per_radial = 10;
        p.antenna_rate_deg_s = 1000.0;
        p.scan_start_azimuth_deg = 350.0;
        p.scan_elevation_deg = 2.0;
        const std::size_t nradials = 80;
        const auto x = echoes(p, nradials * p.pulses_per_radial + 3, 43);
        std::vector<radial_geometry> expected(nradials);
        for (std::size_t r = 0; r < nradials; ++r) {
            const double t = centre_pulse(p, r) * p.prt_s;
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
        p.device = device;
        p.ngates = 5;
        p.pulses_per_radial = 10;
        p.antenna_rate_deg_s = 100.0;
        const std::size_t M = p.pulses_per_radial, nradials = 60, K = 20;
        const auto x = echoes(p, nradials * M, 47);
        const double inf = std::numeric_limits<double>::infinity();
        for (bool by_message : { true, false }) {
            std::vector<gr::blocks::vector_sink_f::sptr> sinks;
            polarimetric_products_cf* block = nullptr;
            bool applied = true;
            auto ready = [&]() {
                for (const auto& s : sinks)
                    if (s->data().size() < K * p.ngates)
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
            auto src =
                pulse_source::make(p.ngates, { x.h, x.v }, {}, K * M, ready, change);
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
                    e = { wrap_360(100.0 * c * p.prt_s), 0.5, c * p.prt_s, 0 };
                } else if (by_message) {
                    e = { wrap_360(200.0 + 250.0 * (c - double(K * M)) * p.prt_s),
                          0.5,
                          c * p.prt_s,
                          0 };
                } else {
                    e = { 90.0, 1.0, c * p.prt_s, 1 }; // elevation 0.5 -> 1: new sweep
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

    void auto_device_prefers_cuda()
    {
        params p;
        p.device = "auto";
        const std::string expected = qa::cuda_present() ? "cuda:0" : "cpu";
        CPPUNIT_ASSERT_EQUAL(expected, p.make_block()->backend());
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
        const double nan = std::numeric_limits<double>::quiet_NaN();
        params p;
        p.ngates = 0;
        expect_error(p, "ngates");
        p.ngates = -3;
        expect_error(p, "ngates");
        p.ngates = 1 << 28; // 2^31 bytes an item: beyond GNU Radio's item size
        expect_error(p, "ngates: must be 1 to 268435455");
        for (int M : { -1, 0, 1 }) {
            p = params();
            p.pulses_per_radial = M;
            expect_error(p, "pulses_per_radial");
        }
        for (int M : { 2, 5 }) {
            p = params();
            p.mode = "alternating";
            p.pulses_per_radial = M;
            expect_error(p, "pulses_per_radial");
        }
        for (double bad : { 0.0, -1.0, nan }) {
            p = params();
            p.wavelength_m = bad;
            expect_error(p, "wavelength_m");
            p = params();
            p.prt_s = bad;
            expect_error(p, "prt_s");
            p = params();
            p.gate_spacing_m = bad;
            expect_error(p, "gate_spacing_m");
        }
        for (double bad : { -1.0, nan }) {
            p = params();
            p.first_gate_m = bad;
            expect_error(p, "first_gate_m");
            p = params();
            p.noise_h = bad;
            expect_error(p, "noise_h");
            p = params();
            p.noise_v = bad;
            expect_error(p, "noise_v");
        }
        p = params();
        p.mode = "dual";
        expect_error(p, "mode");
        p = params();
        p.device = "gpu";
        expect_error(p, "device");
        for (const std::string bad : { "", "Regression", "iir", "none " }) {
            p = params();
            p.clutter_filter = bad;
            expect_error(p, "clutter_filter");
        }
        const double inf = std::numeric_limits<double>::infinity();
        for (double bad : { 0.0, -0.1, 1.01, nan }) {
            p = params();
            p.cpa_threshold = bad;
            expect_error(p, "cpa_threshold");
        }
        for (double bad : { -1.0, nan, inf }) {
            p = params();
            p.antenna_rate_deg_s = bad;
            expect_error(p, "antenna_rate_deg_s");
        }
        for (double bad : { 0.0, -1.0, nan }) {
            p = params();
            p.beamwidth_deg = bad;
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
        CPPUNIT_ASSERT_EQUAL(params().noise_h, block->noise_h());
        CPPUNIT_ASSERT_EQUAL(params().noise_v, block->noise_v());

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

CPPUNIT_TEST_SUITE_REGISTRATION(qa_polarimetric_products_cf_flowgraph);

} // namespace cudadsp
} // namespace gr
