/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_patch_xcorr_scene.h: the synthetic images and the engine's records on them.

#include "qa_fft_reference.h"
#include "qa_patch_xcorr_scene.h"
#include "qa_support.h"
#include <cmath>
#include <complex>

namespace gr {
namespace cudadsp {
namespace patch_xcorr_qa {

namespace {

using cdouble = std::complex<double>;

using qa::fft;
using qa::gaussian_source;
using qa::pow2_at_least;

/*! Band-limited complex speckle (spectrum flat inside |f| < 0.4 cycles/sample on both
 *  axes, zero outside) of rows x cols (powers of two), unit variance per component. */
std::vector<cdouble> speckle_field(long rows, long cols, gaussian_source& g)
{
    std::vector<cdouble> z(rows * cols);
    auto freq = [](long k, long n) { return double(k < n / 2 ? k : k - n) / double(n); };
    for (long r = 0; r < rows; ++r)
        for (long c = 0; c < cols; ++c)
            z[r * cols + c] =
                std::fabs(freq(r, rows)) < 0.4 && std::fabs(freq(c, cols)) < 0.4
                    ? g.complex_normal()
                    : 0.0;
    for (long r = 0; r < rows; ++r)
        fft(z.data() + r * cols, cols, true);
    for (long c = 0; c < cols; ++c)
        fft(z.data() + c, rows, true, cols);
    double power = 0.0;
    for (const auto& v : z)
        power += std::norm(v);
    const double k = 1.0 / std::sqrt(power / double(2 * z.size()));
    for (auto& v : z)
        v *= k;
    return z;
}

} // namespace

image_pair
make_images(int width, int height, int dy, int dx, double coherence, std::uint64_t seed)
{
    gaussian_source g(seed);
    const long margin = 64;
    const long rows = pow2_at_least(height + 2 * margin);
    const long cols = pow2_at_least(width + 2 * margin);
    const auto common = speckle_field(rows, cols, g);
    const auto own = speckle_field(rows, cols, g);
    const double scale = 300.0;
    const double noise = std::sqrt(std::max(0.0, 1.0 - coherence * coherence));
    auto quantise = [&](cdouble v) {
        float re = float(std::round(scale * v.real()));
        float im = float(std::round(scale * v.imag()));
        re = std::max(-32767.0f, std::min(32767.0f, re));
        im = std::max(-32767.0f, std::min(32767.0f, im));
        if (re == 0.0f && im == 0.0f)
            re = 1.0f; // never a zero sample (a zero is GMTSAR's no-data)
        return gr_complex(re, im);
    };
    image_pair p;
    p.width = width;
    p.height = height;
    p.master.resize(std::size_t(width) * height);
    p.aligned.resize(p.master.size());
    for (long r = 0; r < height; ++r)
        for (long c = 0; c < width; ++c) {
            const long m = (r + margin) * cols + c + margin;
            const long a = (r + margin - dy) * cols + c + margin - dx;
            p.master[r * width + c] = quantise(common[m]);
            p.aligned[r * width + c] = quantise(coherence * common[a] + noise * own[a]);
        }
    return p;
}

expected_records engine_records(const params& p, const image_pair& img, long long nstrips)
{
    auto engine = core::patch_correlator::make(p.engine_config());
    const std::vector<int> columns = p.columns();
    std::vector<core::patch_pair> pairs;
    expected_records e;
    for (long long k = 0; k < nstrips; ++k) {
        const long long y = p.strip_line(k);
        for (int x : columns) {
            pairs.push_back({ x - p.npx() / 2,
                              y - p.npy() / 2,
                              x + p.rshift - p.npx() / 2,
                              y + p.ashift - p.npy() / 2 });
            e.strips.push_back(k);
        }
    }
    std::vector<core::patch_result> results(pairs.size());
    if (!pairs.empty())
        engine->correlate(
            img.view(false), img.view(true), pairs.data(), pairs.size(), results.data());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const core::patch_result& r = results[i];
        const long long y = p.strip_line(e.strips[i]);
        e.records.push_back({ float(columns[i % columns.size()]),
                              core::patch_offset_dx(r, p.range_interp, p.rshift),
                              float(y),
                              core::patch_offset_dy(r, p.ashift, 0),
                              r.corr });
    }
    return e;
}

} // namespace patch_xcorr_qa
} // namespace cudadsp
} // namespace gr
