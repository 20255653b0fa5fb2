/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The soak flowgraphs of the signals family: phase_unwrap_ff and cross_correlator_cc.

#include "soak_case_builders.h"
#include <gnuradio/cudadsp/cross_correlator_cc.h>
#include <gnuradio/cudadsp/phase_unwrap_ff.h>
#include <algorithm>
#include <cmath>
#include <complex>

namespace gr {
namespace cudadsp {
namespace soak {

// ---------------------------------------------------------------- phase_unwrap_ff
// Input: a wrapped phase 20 sin(2 pi n / 1000) + 0.3 (steps below pi). Whatever the
// resets, the output is the input plus whole periods; a missing item breaks that.
soak_flowgraph phase_unwrap_ff_soak(const std::string& device, double seconds)
{
    auto table = std::make_shared<std::vector<float>>(1000);
    for (int k = 0; k < 1000; ++k)
        (*table)[k] = static_cast<float>(
            std::remainder(20.0 * std::sin(two_pi * k / 1000.0) + 0.3, two_pi));
    auto fill = [table](std::uint64_t first, int n, gr_vector_void_star& out) {
        auto* o = static_cast<float*>(out[0]);
        for (int i = 0; i < n; ++i)
            o[i] = (*table)[(first + i) % 1000];
    };
    const pmt::pmt_t reset_key = pmt::mp("unwrap_reset");
    auto tag = [reset_key](counted_source& s, std::uint64_t first, int n) {
        constexpr std::uint64_t every = 1 << 18;
        for (std::uint64_t k = (first + every - 1) / every * every; k < first + n;
             k += every)
            s.tag(k, reset_key, pmt::PMT_T);
    };
    auto check = [table](std::uint64_t first,
                         int n,
                         const gr_vector_const_void_star& in,
                         const std::vector<gr::tag_t>&) {
        const auto* x = static_cast<const float*>(in[0]);
        std::uint64_t bad = 0;
        for (int i = 0; i < n; ++i) {
            const double periods = (double(x[i]) - (*table)[(first + i) % 1000]) / two_pi;
            if (!(std::abs(periods - std::round(periods)) < 1e-4))
                ++bad;
        }
        return bad;
    };
    auto source = counted_source::make({ sizeof(float) }, seconds, fill, tag);
    auto blk = phase_unwrap_ff::make(1, two_pi, device);
    auto sink = counted_sink::make({ sizeof(float) }, check);
    auto tb = gr::make_top_block("soak_phase_unwrap_ff");
    tb->connect(source, 0, blk, 0);
    tb->connect(blk, 0, sink, 0);
    soak_flowgraph f = finish(tb, source, sink, [](std::uint64_t in) { return in; });
    f.churn = [blk](std::mt19937_64&) { blk->_post(pmt::mp("reset"), pmt::PMT_T); };
    return f;
}

// ---------------------------------------------------------------- cross_correlator_cc
// Frame f: y a random sequence, x the same sequence delayed by d_f = f mod 21 - 10
// samples; the peak lag is d_f, its normalised magnitude (L - |d_f|) / L.
soak_flowgraph cross_correlator_cc_soak(const std::string& device, double seconds)
{
    constexpr int frame = 512;
    const auto delay = [](std::uint64_t f) { return int(f % 21) - 10; };
    auto fill = [delay](std::uint64_t first, int n, gr_vector_void_star& out) {
        auto* x = static_cast<gr_complex*>(out[0]);
        auto* y = static_cast<gr_complex*>(out[1]);
        for (int i = 0; i < n; ++i) {
            const std::uint64_t s = first + i, f = s / frame;
            const int m = int(s % frame) + 16;
            y[i] = hashed_complex(f * 4096 + m);
            x[i] = hashed_complex(f * 4096 + (m - delay(f)));
        }
    };
    auto check = [delay](std::uint64_t first,
                         int n,
                         const gr_vector_const_void_star& in,
                         const std::vector<gr::tag_t>&) {
        const auto* lag = static_cast<const float*>(in[0]);
        const auto* magnitude = static_cast<const float*>(in[1]);
        std::uint64_t bad = 0;
        for (int i = 0; i < n; ++i)
            if (!(std::abs(lag[i] - delay(first + i)) <= 1.0 / 16 + 1e-4 &&
                  magnitude[i] > 0.9f && magnitude[i] <= 1.0f))
                ++bad;
        return bad;
    };
    auto source =
        counted_source::make({ sizeof(gr_complex), sizeof(gr_complex) }, seconds, fill);
    auto blk = cross_correlator_cc::make(frame, 16, 0, false, false, device);
    auto sink =
        counted_sink::make({ sizeof(float), sizeof(float), sizeof(float) }, check);
    auto tb = gr::make_top_block("soak_cross_correlator_cc");
    tb->connect(source, 0, blk, 0);
    tb->connect(source, 1, blk, 1);
    for (int p = 0; p < 3; ++p)
        tb->connect(blk, p, sink, p);
    return finish(tb, source, sink, [](std::uint64_t in) { return in / frame; });
}

} // namespace soak
} // namespace cudadsp
} // namespace gr
