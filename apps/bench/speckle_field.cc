/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "speckle_field.h"
#include <algorithm>
#include <cmath>
#include <random>
#include <thread>

namespace gr {
namespace cudadsp {
namespace bench {

namespace {
constexpr double pi = 3.14159265358979323846264338327950;
} // namespace

double lowpass(double t, double b, int half)
{
    if (std::fabs(t) >= half)
        return 0.0;
    const double w =
        0.42 + 0.5 * std::cos(pi * t / half) + 0.08 * std::cos(2 * pi * t / half);
    const double a = pi * b * t;
    const double s = std::fabs(a) < 1e-12 ? b : std::sin(a) / (pi * t);
    return s * w;
}

std::vector<double> taps_at(double f)
{
    std::vector<double> taps(2 * speckle_kernel_half + 1);
    for (int j = -speckle_kernel_half; j <= speckle_kernel_half; ++j)
        taps[std::size_t(j + speckle_kernel_half)] =
            lowpass(j + f, speckle_bandwidth, speckle_kernel_half);
    return taps;
}

double kernel_energy()
{
    double e = 0;
    for (const double h : taps_at(0.0))
        e += h * h;
    return e;
}

noise_field::noise_field(int r, int c, std::uint64_t seed)
    : rows(r), cols(c), w(std::size_t(r) * c)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    for (auto& v : w)
        v = { normal(rng), normal(rng) };
}

void render(const noise_field& W,
            long long oy,
            long long ox,
            double dy,
            double dx,
            int out_rows,
            int out_cols,
            double scale,
            double signal,
            double decorrelation,
            std::uint64_t noise_seed,
            std::complex<float>* out,
            std::size_t stride)
{
    const double y0 = double(oy) - dy, x0 = double(ox) - dx;
    const long long by = (long long)std::floor(y0), bx = (long long)std::floor(x0);
    const std::vector<double> ty = taps_at(y0 - double(by));
    const std::vector<double> tx = taps_at(x0 - double(bx));
    const int H = speckle_kernel_half;
    // Range pass over the rows the azimuth pass needs: T[m][c] = sum_i W[by - H + m]
    // [bx + c - i] tx[i + H].
    const int trows = out_rows + 2 * H;
    std::vector<std::complex<double>> T(std::size_t(trows) * out_cols);
    for (int m = 0; m < trows; ++m) {
        const long long wr = by - H + m;
        for (int c = 0; c < out_cols; ++c) {
            std::complex<double> acc = 0;
            for (int i = -H; i <= H; ++i)
                acc += W.at(wr, bx + c - i) * tx[std::size_t(i + H)];
            T[std::size_t(m) * out_cols + c] = acc;
        }
    }
    std::mt19937_64 rng(noise_seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    // Azimuth pass: out[r][c] = sum_j T[r - j + H][c] ty[j + H].
    std::vector<std::complex<double>> acc(out_cols);
    for (int r = 0; r < out_rows; ++r) {
        std::fill(acc.begin(), acc.end(), std::complex<double>(0));
        for (int j = -H; j <= H; ++j) {
            const double t = ty[std::size_t(j + H)];
            if (t == 0.0)
                continue;
            const std::complex<double>* row = &T[std::size_t(r - j + H) * out_cols];
            for (int c = 0; c < out_cols; ++c)
                acc[c] += row[c] * t;
        }
        for (int c = 0; c < out_cols; ++c) {
            std::complex<double> v = signal * acc[c];
            if (decorrelation > 0) {
                const double re = normal(rng), im = normal(rng);
                v += decorrelation * std::complex<double>(re, im);
            }
            const auto quantise = [&](double x) {
                return float(std::clamp(std::nearbyint(x * scale), -32768.0, 32767.0));
            };
            out[std::size_t(r) * stride + c] = { quantise(v.real()), quantise(v.imag()) };
        }
    }
}

double field_scale(double component_std) { return component_std / kernel_energy(); }

double decorrelation_std(double g) { return std::sqrt(1 - g * g) * kernel_energy(); }

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& work)
{
    const std::size_t threads =
        std::min<std::size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (std::size_t i = t; i < n; i += threads)
                work(i);
        });
    for (auto& th : pool)
        th.join();
}


std::array<std::vector<std::complex<float>>, 2>
speckle_tile_pair(int period,
                  std::uint64_t field_seed,
                  std::uint64_t noise_seed,
                  double component_std,
                  double dy,
                  double dx,
                  double coherence)
{
    const int P = period;
    const noise_field W(P, P, field_seed);
    std::array<std::vector<std::complex<float>>, 2> tiles = {
        std::vector<std::complex<float>>(std::size_t(P) * P),
        std::vector<std::complex<float>>(std::size_t(P) * P)
    };
    const double scale = field_scale(component_std);
    const int strip = 128;
    parallel_for(2 * std::size_t(P / strip), [&](std::size_t i) {
        const int img = int(i % 2);
        const int r0 = int(i / 2) * strip;
        std::complex<float>* out = tiles[img].data() + std::size_t(r0) * P;
        if (img == 0)
            render(W, r0, 0, 0, 0, strip, P, scale, 1.0, 0.0, 0, out, P);
        else
            render(W,
                   r0,
                   0,
                   dy,
                   dx,
                   strip,
                   P,
                   scale,
                   coherence,
                   decorrelation_std(coherence),
                   noise_seed + i,
                   out,
                   P);
    });
    return tiles;
}

} // namespace bench
} // namespace cudadsp
} // namespace gr
