/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The soak flowgraphs of the radar family: polarimetric_products_cf and kdp_ff.

#include "soak_case_builders.h"
#include <gnuradio/cudadsp/kdp_ff.h>
#include <gnuradio/cudadsp/polarimetric_products_cf.h>
#include <algorithm>
#include <cmath>
#include <complex>

namespace gr {
namespace cudadsp {
namespace soak {

// ----------------------------------------------------------------
// polarimetric_products_cf Radial r: random H pulses and V = a_r H, a_r = 0.5 + 0.1 (r
// mod 5): ZDR = -20 log10 a_r and RhoHV = 1 at every gate; the block's "radial_index" tag
// is the radial's count.
soak_flowgraph polarimetric_products_cf_soak(const std::string& device, double seconds)
{
    constexpr int ngates = 32, pulses = 16;
    const auto ratio = [](std::uint64_t r) { return 0.5 + 0.1 * double(r % 5); };
    auto fill = [ratio](std::uint64_t first, int n, gr_vector_void_star& out) {
        auto* h = static_cast<gr_complex*>(out[0]);
        auto* v = static_cast<gr_complex*>(out[1]);
        for (int i = 0; i < n; ++i) {
            const std::uint64_t p = first + i;
            const float a = static_cast<float>(ratio(p / pulses));
            for (int g = 0; g < ngates; ++g) {
                const gr_complex x = hashed_complex(p * ngates + g);
                h[std::size_t(i) * ngates + g] = x;
                v[std::size_t(i) * ngates + g] = a * x;
            }
        }
    };
    // The antenna's azimuth as the radar would tag it, every 64 pulses.
    const pmt::pmt_t azimuth = pmt::mp("azimuth_deg");
    auto tag = [azimuth](counted_source& s, std::uint64_t first, int n) {
        for (std::uint64_t k = (first + 63) / 64 * 64; k < first + n; k += 64)
            s.tag(k, azimuth, pmt::from_double(double(k / 64 % 3600) * 0.1));
    };
    const pmt::pmt_t radial_index = pmt::mp("radial_index");
    auto check = [ratio, radial_index](std::uint64_t first,
                                       int n,
                                       const gr_vector_const_void_star& in,
                                       const std::vector<gr::tag_t>& tags) {
        const auto* zdr = static_cast<const float*>(in[1]);
        const auto* rhohv = static_cast<const float*>(in[5]);
        std::uint64_t bad = check_item_tags(
            tags, radial_index, first, n, [](std::uint64_t i) { return double(i); });
        for (int i = 0; i < n; ++i) {
            const double expected = -20.0 * std::log10(ratio(first + i));
            bool ok = true;
            for (int g = 0; g < ngates; g += 7)
                ok = ok && std::abs(zdr[std::size_t(i) * ngates + g] - expected) < 1e-3 &&
                     std::abs(rhohv[std::size_t(i) * ngates + g] - 1.0) < 1e-4;
            bad += ok ? 0 : 1;
        }
        return bad;
    };
    const int item = sizeof(gr_complex) * ngates;
    auto source = counted_source::make({ item, item }, seconds, fill, tag);
    polarimetric_products_cf_config config;
    config.processing.ngates = ngates;
    config.processing.pulses_per_radial = pulses;
    config.processing.device = device;
    auto blk = polarimetric_products_cf::make(config);
    auto sink = counted_sink::make(std::vector<int>(7, sizeof(float) * ngates), check);
    auto tb = gr::make_top_block("soak_polarimetric_products_cf");
    tb->connect(source, 0, blk, 0);
    tb->connect(source, 1, blk, 1);
    for (int p = 0; p < 7; ++p)
        tb->connect(blk, p, sink, p);
    soak_flowgraph f =
        finish(tb, source, sink, [](std::uint64_t in) { return in / pulses; });
    f.churn = [blk](std::mt19937_64& rng) {
        pmt::pmt_t scan = pmt::make_dict();
        if (rng() % 8 == 0) { // a malformed one now and then: logged and ignored
            scan = pmt::dict_add(scan, pmt::mp("rate_deg_s"), pmt::mp("fast"));
        } else {
            scan = pmt::dict_add(scan,
                                 pmt::mp("start_azimuth_deg"),
                                 pmt::from_double(double(rng() % 360)));
            scan = pmt::dict_add(
                scan, pmt::mp("rate_deg_s"), pmt::from_double(double(rng() % 30)));
        }
        blk->_post(pmt::mp("scan"), scan);
    };
    return f;
}

// ---------------------------------------------------------------- kdp_ff
// Radial r: PhiDP wrapped from c_r + s_r range (s_r = 2 + r mod 7 deg/km): KDP = s_r / 2
// wherever the window fits; an "azimuth_deg" tag on every radial must come through.
soak_flowgraph kdp_ff_soak(const std::string& device, double seconds)
{
    constexpr int ngates = 200;
    constexpr double spacing_km = 0.15;
    const auto slope = [](std::uint64_t r) { return 2.0 + double(r % 7); };
    auto fill = [slope](std::uint64_t first, int n, gr_vector_void_star& out) {
        auto* o = static_cast<float*>(out[0]);
        for (int i = 0; i < n; ++i) {
            const std::uint64_t r = first + i;
            const double start = -170.0 + 13.0 * double(r % 20);
            for (int g = 0; g < ngates; ++g)
                o[std::size_t(i) * ngates + g] = static_cast<float>(
                    std::remainder(start + slope(r) * g * spacing_km, 360.0));
        }
    };
    const pmt::pmt_t azimuth = pmt::mp("azimuth_deg");
    const auto azimuth_of = [](std::uint64_t r) { return double(r % 3600) * 0.1; };
    auto tag = [azimuth, azimuth_of](counted_source& s, std::uint64_t first, int n) {
        for (int i = 0; i < n; ++i)
            s.tag(first + i, azimuth, pmt::from_double(azimuth_of(first + i)));
    };
    kdp_ff_config config;
    config.kdp.ngates = ngates;
    config.kdp.gate_spacing_m = spacing_km * 1000.0;
    config.kdp.device = device;
    auto blk = kdp_ff::make(config);
    const int h = blk->half_window_gates();
    auto check = [slope, azimuth, azimuth_of, h](std::uint64_t first,
                                                 int n,
                                                 const gr_vector_const_void_star& in,
                                                 const std::vector<gr::tag_t>& tags) {
        const auto* kdp = static_cast<const float*>(in[1]);
        std::uint64_t bad = check_item_tags(tags, azimuth, first, n, azimuth_of);
        for (int i = 0; i < n; ++i) {
            bool ok = true;
            for (int g = h; g < ngates - h; g += 11)
                ok = ok && std::abs(kdp[std::size_t(i) * ngates + g] -
                                    slope(first + i) / 2) < 1e-3;
            bad += ok ? 0 : 1;
        }
        return bad;
    };
    auto source = counted_source::make({ sizeof(float) * ngates }, seconds, fill, tag);
    auto sink =
        counted_sink::make({ sizeof(float) * ngates, sizeof(float) * ngates }, check);
    auto tb = gr::make_top_block("soak_kdp_ff");
    tb->connect(source, 0, blk, 0);
    tb->connect(blk, 0, sink, 0);
    tb->connect(blk, 1, sink, 1);
    return finish(tb, source, sink, [](std::uint64_t in) { return in; });
}

} // namespace soak
} // namespace cudadsp
} // namespace gr
