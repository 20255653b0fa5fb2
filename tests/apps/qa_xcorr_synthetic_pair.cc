/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_xcorr_synthetic_pair.h: band-limited speckle, the pair made of it.

#include "qa_xcorr_synthetic_pair.h"
#include <algorithm>
#include <cmath>
#include <complex>
#include <random>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace xcorr_tool_qa {

namespace {

std::vector<float> lowpass_taps()
{
    const int taps = 16;
    const double B = 0.8, beta = 6.0;
    auto i0 = [](double x) { // modified Bessel function of order 0 (series)
        double sum = 1.0, term = 1.0;
        for (int k = 1; k < 40; ++k) {
            term *= (x / (2.0 * k)) * (x / (2.0 * k));
            sum += term;
        }
        return sum;
    };
    std::vector<float> h(taps);
    for (int k = 0; k < taps; ++k) {
        const double t = k - (taps / 2 - 1) - 0.5; // symmetric about the middle
        const double u = 2.0 * t / taps;
        const double x = M_PI * B * t;
        const double sinc = x == 0.0 ? 1.0 : std::sin(x) / x;
        h[k] =
            static_cast<float>(B * sinc * i0(beta * std::sqrt(1.0 - u * u)) / i0(beta));
    }
    return h;
}

} // namespace

synthetic_pair make_pair(long width, long height, int drow, int dcol, unsigned seed)
{
    const long pad = 32;
    const long bw = width + 2 * pad, bh = height + 2 * pad;
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::vector<std::complex<float>> white(static_cast<std::size_t>(bw * bh));
    for (auto& z : white) {
        const float re = g(rng);
        z = { re, g(rng) };
    }
    // Separable FIR, rows then columns (the borders, pad wide, are never used).
    const auto h = lowpass_taps();
    const long t = static_cast<long>(h.size());
    std::vector<std::complex<float>> tmp(white.size()), base(white.size());
    for (long y = 0; y < bh; ++y)
        for (long x = 0; x + t <= bw; ++x) {
            std::complex<float> acc = 0;
            for (long k = 0; k < t; ++k)
                acc += h[k] * white[static_cast<std::size_t>(y * bw + x + k)];
            tmp[static_cast<std::size_t>(y * bw + x + t / 2)] = acc;
        }
    for (long y = 0; y + t <= bh; ++y)
        for (long x = 0; x < bw; ++x) {
            std::complex<float> acc = 0;
            for (long k = 0; k < t; ++k)
                acc += h[k] * tmp[static_cast<std::size_t>((y + k) * bw + x)];
            base[static_cast<std::size_t>((y + t / 2) * bw + x)] = acc;
        }
    double energy = 0;
    for (long k = 0; k < t; ++k)
        energy += double(h[k]) * h[k];
    const float scale = static_cast<float>(800.0 / energy); // std per component ~800
    auto q = [&](float v) {
        return static_cast<std::int16_t>(
            std::max(-32767.0f, std::min(32767.0f, std::round(v * scale))));
    };
    synthetic_pair p{ width, height, {}, {} };
    p.master.resize(static_cast<std::size_t>(2 * width * height));
    p.aligned.resize(p.master.size());
    for (long y = 0; y < height; ++y)
        for (long x = 0; x < width; ++x) {
            const std::size_t o = static_cast<std::size_t>(2 * (y * width + x));
            const auto m = base[static_cast<std::size_t>((y + pad) * bw + x + pad)];
            const auto a =
                base[static_cast<std::size_t>((y + pad - drow) * bw + x + pad - dcol)];
            p.master[o] = q(m.real());
            p.master[o + 1] = q(m.imag());
            p.aligned[o] = q(a.real());
            p.aligned[o + 1] = q(a.imag());
        }
    return p;
}

std::vector<float> to_float(const std::vector<std::int16_t>& v)
{
    return std::vector<float>(v.begin(), v.end());
}

} // namespace xcorr_tool_qa

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
