/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The soak flowgraphs of the InSAR family: phase_unwrap_2d_ff and patch_xcorr_cc.

#include "qa_fft_reference.h"
#include "runtime/splitmix64.h"
#include "soak_case_builders.h"
#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <gnuradio/cudadsp/patch_xcorr_cc.h>
#include <gnuradio/cudadsp/phase_unwrap_2d_ff.h>
#include <algorithm>
#include <cmath>
#include <complex>

namespace gr {
namespace cudadsp {
namespace soak {

// ---------------------------------------------------------------- phase_unwrap_2d_ff
// Frame f: a wrapped plane a_f x + b_f y (a_f, b_f from f, below pi per pixel). The
// reliability method recovers the plane up to one constant number of periods.
soak_flowgraph phase_unwrap_2d_ff_soak(const std::string& device, double seconds)
{
    constexpr int width = 64, height = 48, pixels = width * height;
    const auto plane = [](std::uint64_t f, int p) {
        const double a = 0.4 + 0.05 * double(f % 11), b = -0.3 + 0.07 * double(f % 5);
        return a * (p % width) + b * (p / width);
    };
    auto fill = [plane](std::uint64_t first, int n, gr_vector_void_star& out) {
        auto* o = static_cast<float*>(out[0]);
        for (int i = 0; i < n; ++i)
            for (int p = 0; p < pixels; ++p)
                o[std::size_t(i) * pixels + p] =
                    static_cast<float>(std::remainder(plane(first + i, p), two_pi));
    };
    const pmt::pmt_t key = pmt::mp("soak_item");
    auto tag = [key](counted_source& s, std::uint64_t first, int n) {
        for (int i = 0; i < n; ++i)
            s.tag(first + i, key, pmt::from_uint64(first + i));
    };
    auto check = [plane, key](std::uint64_t first,
                              int n,
                              const gr_vector_const_void_star& in,
                              const std::vector<gr::tag_t>& tags) {
        const auto* x = static_cast<const float*>(in[0]);
        std::uint64_t bad = check_item_tags(
            tags, key, first, n, [](std::uint64_t i) { return double(i); });
        for (int i = 0; i < n; ++i) {
            const float* frame = x + std::size_t(i) * pixels;
            const double offset = frame[0] - plane(first + i, 0);
            const double periods = offset / two_pi;
            bool ok = std::abs(periods - std::round(periods)) < 1e-4;
            for (int p = 37; p < pixels; p += 397)
                ok = ok && std::abs(frame[p] - plane(first + i, p) - offset) < 1e-3;
            bad += ok ? 0 : 1;
        }
        return bad;
    };
    auto source = counted_source::make({ sizeof(float) * pixels }, seconds, fill, tag);
    phase_unwrap_2d_ff_config config;
    config.unwrapping.width = width;
    config.unwrapping.height = height;
    config.unwrapping.device = device;
    auto blk = phase_unwrap_2d_ff::make(config);
    auto sink = counted_sink::make({ sizeof(float) * pixels }, check);
    auto tb = gr::make_top_block("soak_phase_unwrap_2d_ff");
    tb->connect(source, 0, blk, 0);
    tb->connect(blk, 0, sink, 0);
    return finish(tb, source, sink, [](std::uint64_t in) { return in; });
}

// ---------------------------------------------------------------- patch_xcorr_cc
// A band-limited speckle image (periodic, 512 x 512: the lines repeat every 512, far
// beyond the search) and the same image moved by 2 columns and 1 line: every patch has
// dx = 2, dy = 1 (to GMTSAR's scatter), at the block's grid positions, strip after strip.
namespace {

constexpr long speckle_size = 512;

//! Complex speckle with a spectrum flat inside |f| < 0.4 cycles/sample on both axes and
//! zero outside, as GMTSAR's range interpolation assumes; periodic on both axes.
std::shared_ptr<std::vector<gr_complex>> periodic_speckle()
{
    const long n = speckle_size;
    std::vector<std::complex<double>> z(std::size_t(n * n));
    core::splitmix64 random(0x5bec);
    auto freq = [n](long k) { return double(k < n / 2 ? k : k - n) / double(n); };
    for (long r = 0; r < n; ++r)
        for (long c = 0; c < n; ++c)
            z[r * n + c] = std::abs(freq(r)) < 0.4 && std::abs(freq(c)) < 0.4
                               ? random.complex_normal()
                               : 0.0;
    qa::fft2(z, n, n, true);
    auto out = std::make_shared<std::vector<gr_complex>>(z.size());
    const double scale = 1.0 / std::sqrt(double(z.size()));
    for (std::size_t i = 0; i < z.size(); ++i)
        (*out)[i] = gr_complex(z[i] * scale);
    return out;
}

} // namespace

soak_flowgraph patch_xcorr_cc_soak(const std::string& device, double seconds)
{
    constexpr int width = 256, nx = 4, line_step = 32, search = 16;
    auto image = periodic_speckle();
    auto fill = [image](std::uint64_t first, int n, gr_vector_void_star& out) {
        auto* master = static_cast<gr_complex*>(out[0]);
        auto* aligned = static_cast<gr_complex*>(out[1]);
        const long size = speckle_size;
        for (int i = 0; i < n; ++i) {
            const long y = long((first + i) % size), y_before = (y + size - 1) % size;
            for (int x = 0; x < width; ++x) {
                master[std::size_t(i) * width + x] = (*image)[y * size + x];
                aligned[std::size_t(i) * width + x] =
                    (*image)[y_before * size + (x + size - 2) % size];
            }
        }
    };
    patch_xcorr_cc_config block_config;
    block_config.width = width;
    block_config.nx = nx;
    block_config.line_step = line_step;
    block_config.xsearch = search;
    block_config.ysearch = search;
    block_config.device = device;
    auto blk = patch_xcorr_cc::make(block_config);
    core::patch_correlator_config config;
    config.xsearch = search;
    config.ysearch = search;
    const std::uint64_t npy = config.npy();
    auto check = [blk](std::uint64_t first,
                       int n,
                       const gr_vector_const_void_star& in,
                       const std::vector<gr::tag_t>&) {
        const auto* r = static_cast<const float*>(in[0]);
        std::uint64_t bad = 0;
        for (int i = 0; i < n; ++i) {
            const float* rec = r + 5 * std::size_t(i);
            const std::uint64_t k = (first + i) / nx;
            const int column = blk->patch_column(int((first + i) % nx));
            // GMTSAR's estimate on 64-pixel patches of speckle scatters by about 0.2
            // pixel; a line lost on one input would move dy by a whole line.
            if (!(rec[0] == column && std::abs(rec[1] - 2.0f) < 0.5f &&
                  rec[2] == float(blk->strip_line(k)) && std::abs(rec[3] - 1.0f) < 0.5f &&
                  rec[4] > 50.0f))
                ++bad;
        }
        return bad;
    };
    const int line = sizeof(gr_complex) * width;
    auto source = counted_source::make({ line, line }, seconds, fill);
    auto sink = counted_sink::make({ 5 * sizeof(float) }, check);
    auto patches = message_counter::make();
    auto tb = gr::make_top_block("soak_patch_xcorr_cc");
    tb->connect(source, 0, blk, 0);
    tb->connect(source, 1, blk, 1);
    tb->connect(blk, 0, sink, 0);
    tb->msg_connect(blk, "patches", patches, "in");
    // Strip k is centred on npy / 2 + k line_step and runs once npy / 2 lines past it
    // have arrived.
    soak_flowgraph f = finish(tb, source, sink, [npy](std::uint64_t lines) {
        return lines < npy ? 0 : ((lines - npy) / line_step + 1) * nx;
    });
    count_messages(f, patches);
    return f;
}

} // namespace soak
} // namespace cudadsp
} // namespace gr
