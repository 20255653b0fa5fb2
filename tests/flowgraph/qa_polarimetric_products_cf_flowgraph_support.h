/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What the polarimetric_products_cf flowgraph tests share: the block's test
// configuration, the pulses, the engine run directly, the graphs and the tag checks.

#ifndef INCLUDED_QA_POLARIMETRIC_PRODUCTS_CF_FLOWGRAPH_SUPPORT_H
#define INCLUDED_QA_POLARIMETRIC_PRODUCTS_CF_FLOWGRAPH_SUPPORT_H

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
namespace qa_polarimetric_flowgraph {

using qa::run_or_die;

constexpr int nproducts = core::polarimetric_product_count;
//! Outputs 0 to 6 are mandatory; 7 (CLUT) and 8 (CPA) optional.
constexpr int mandatory_outputs = 7;

/*!
 * The block's configuration in these tests: the defaults but for gate 0's range, a
 * calibration and noise whose threshold censors some gates, a clutter threshold, and
 * the CPU; engine_config() is what the block runs (its chunk size aside).
 */
struct params : polarimetric_products_cf_config {
    params()
    {
        processing.ngates = 37;
        processing.calibration.zcal_db = -30.0;
        processing.calibration.zdr_cal_db = 0.5;
        processing.calibration.phidp_offset_deg = 25.0;
        processing.calibration.noise_h = 0.02;
        processing.calibration.noise_v = 0.03;
        processing.calibration.snr_threshold_db = 3.0;
        processing.device = "cpu";
        processing.clutter.cpa_threshold = 0.5;
    }

    polarimetric_products_cf::sptr make_block() const
    {
        return polarimetric_products_cf::make(*this);
    }

    const core::polarimetric_config& engine_config() const { return processing; }

    std::size_t pulse_samples() const { return processing.ngates; }
    std::size_t radial_samples() const { return processing.samples_per_radial(); }
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
inline pulses echoes(const params& p, std::size_t npulses, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, std::sqrt(0.5));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    auto cn = [&](double power) {
        const double s = std::sqrt(power);
        return std::complex<double>(s * normal(rng), s * normal(rng));
    };
    const std::size_t G = p.processing.ngates;
    pulses out;
    out.h.resize(npulses * G);
    out.v.resize(npulses * G);
    for (std::size_t g = 0; g < G; ++g) {
        const double snr = std::pow(10.0, (-5.0 + 35.0 * u(rng)) / 10.0);
        const double sh = p.processing.calibration.noise_h * snr,
                     sv = sh / (0.5 + 2.0 * u(rng));
        const std::complex<double> a = std::polar(0.6 + 0.39 * u(rng), 6.28 * u(rng));
        const std::complex<double> cross = std::polar(0.9 + 0.09 * u(rng), 6.28 * u(rng));
        const double innovation = std::sqrt(1.0 - std::norm(a));
        std::complex<double> s1 = cn(1.0), s2 = cn(1.0);
        for (std::size_t n = 0; n < npulses; ++n) {
            s1 = a * s1 + innovation * cn(1.0);
            s2 = a * s2 + innovation * cn(1.0);
            const std::complex<double> h =
                std::sqrt(sh) * s1 + cn(p.processing.calibration.noise_h);
            const std::complex<double> v =
                std::sqrt(sv) * (cross * s1 + std::sqrt(1.0 - std::norm(cross)) * s2) +
                cn(p.processing.calibration.noise_v);
            out.h[n * G + g] = gr_complex(h);
            out.v[n * G + g] = gr_complex(v);
        }
    }
    return out;
}

using product_vectors = std::array<std::vector<float>, nproducts>;

//! The keys of the block's own per-radial tags besides "radial_index".
inline bool is_geometry_key(const std::string& key)
{
    return key == "azimuth_deg" || key == "elevation_deg" || key == "time_s" ||
           key == "sweep_index";
}

//! The engine run directly on the first \p nradials radials, calibration changing to
//! \p after (if given) from radial \p change_at on.
inline product_vectors
engine_products(const params& p,
                const pulses& x,
                std::size_t nradials,
                const core::polarimetric_calibration* after = nullptr,
                std::size_t change_at = 0)
{
    auto engine = core::polarimetric_processor::make(p.engine_config());
    product_vectors out;
    for (auto& v : out)
        v.assign(nradials * p.processing.ngates, qa::poison_value);
    auto process = [&](std::size_t first, std::size_t count) {
        float* ptr[nproducts];
        for (int q = 0; q < nproducts; ++q)
            ptr[q] = out[q].data() + first * p.processing.ngates;
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
inline void
assert_same_products(const product_vectors& expected,
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

inline graph make_graph(const params& p,
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
        g.sinks.push_back(gr::blocks::vector_sink_f::make(p.processing.ngates));
        g.tb->connect(g.block, q, g.sinks.back(), 0);
    }
    return g;
}

inline graph
make_vector_source_graph(const params& p, const pulses& x, int outputs = nproducts)
{
    auto h = gr::blocks::vector_source_c::make(x.h, false, p.processing.ngates);
    auto v = gr::blocks::vector_source_c::make(x.v, false, p.processing.ngates);
    return make_graph(p, h, 0, v, 0, outputs);
}

inline std::string describe(const params& p, const std::string& extra = "")
{
    std::ostringstream s;
    s << p.processing.device << " " << core::to_string(p.processing.mode)
      << " ngates=" << p.processing.ngates << " M=" << p.processing.pulses_per_radial
      << extra;
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
inline double wrap_360(double degrees)
{
    const double wrapped = std::fmod(degrees, 360.0);
    return wrapped < 0.0 ? wrapped + 360.0 : wrapped;
}

//! The centre pulse of radial \p r: r M + (M - 1) / 2.
inline double centre_pulse(const params& p, std::size_t r)
{
    return double(r) * p.processing.pulses_per_radial +
           0.5 * (p.processing.pulses_per_radial - 1);
}

/*!
 * The block's own tags on one output: per radial exactly one each of "radial_index"
 * (uint64, its offset), "azimuth_deg", "elevation_deg", "time_s" (double) and
 * "sweep_index" (uint64), nothing beyond the last radial.
 */
inline std::vector<radial_geometry> tagged_geometry(const std::vector<gr::tag_t>& tags,
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
inline std::vector<radial_geometry> assert_geometry(
    const std::vector<radial_geometry>& expected, const graph& g, const std::string& what)
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
inline std::vector<std::string> tag_text(const graph& g)
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

inline pmt::pmt_t
scan_message(std::initializer_list<std::pair<const char*, pmt::pmt_t>> items)
{
    pmt::pmt_t dict = pmt::make_dict();
    for (const auto& [key, value] : items)
        dict = pmt::dict_add(dict, pmt::intern(key), value);
    return dict;
}


} // namespace qa_polarimetric_flowgraph
} // namespace cudadsp
} // namespace gr

#endif // INCLUDED_QA_POLARIMETRIC_PRODUCTS_CF_FLOWGRAPH_SUPPORT_H
