/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "xcorr_bench_input.h"
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <random>

namespace gr {
namespace cudadsp {
namespace bench {
namespace xcorr_bench {

namespace {

//! Blackman-windowed sinc, \p half taps either side of 0, at offset \p u samples.
double windowed_sinc(double u, double cutoff_cycles, int half)
{
    if (std::fabs(u) >= half)
        return 0.0;
    const double w =
        0.42 + 0.5 * std::cos(pi * u / half) + 0.08 * std::cos(2 * pi * u / half);
    const double a = 2 * pi * cutoff_cycles * u;
    const double s = std::fabs(a) < 1e-12 ? 2 * cutoff_cycles : std::sin(a) / (pi * u);
    return s * w;
}

} // namespace

/*
 * The pattern: \p frames frames of x and y. y is white complex Gaussian noise through
 * a windowed-sinc low-pass; x[n] = exp(j theta_k) y(n - d_k) in frame k, y evaluated
 * between samples by windowed-sinc interpolation (accurate to well under the noise for
 * a signal of this bandwidth); both get white noise at snr_db. Deterministic for a
 * given build (the C++ library defines how normal_distribution draws).
 */
void make_pattern(std::size_t frames,
                  std::vector<gr_complex>& x,
                  std::vector<gr_complex>& y,
                  std::vector<double>& delays)
{
    constexpr int filter_half = 32;
    constexpr int interp_half = 32;
    const std::size_t n = frames * fft_len;
    // Margins so that every delayed sample of the pattern has its neighbours.
    const std::size_t margin = std::size_t(max_delay_samples) + interp_half + 2;

    std::mt19937_64 rng(input_seed);
    std::normal_distribution<double> normal(0.0, std::sqrt(0.5));
    std::uniform_real_distribution<double> uniform(0.0, 1.0);

    std::vector<std::complex<double>> white(n + 2 * margin + 2 * filter_half);
    for (auto& w : white)
        w = { normal(rng), normal(rng) };
    std::vector<double> lowpass(2 * filter_half + 1);
    double gain = 0;
    for (int k = -filter_half; k <= filter_half; ++k) {
        lowpass[k + filter_half] = windowed_sinc(k, bandwidth_cycles, filter_half);
        gain += lowpass[k + filter_half] * lowpass[k + filter_half];
    }
    // Unit power: white noise of unit power through a filter of energy `gain`.
    for (auto& h : lowpass)
        h /= std::sqrt(gain);
    // clean[i] is the noiseless y at sample i - margin of the pattern.
    std::vector<std::complex<double>> clean(n + 2 * margin);
    for (std::size_t i = 0; i < clean.size(); ++i) {
        std::complex<double> acc = 0;
        for (int k = 0; k <= 2 * filter_half; ++k)
            acc += lowpass[k] * white[i + std::size_t(k)];
        clean[i] = acc;
    }

    const double noise = std::pow(10.0, -snr_db / 20.0);
    x.resize(n);
    y.resize(n);
    delays.resize(frames);
    for (std::size_t f = 0; f < frames; ++f) {
        const double d = max_delay_samples * (2 * uniform(rng) - 1);
        const std::complex<double> rotation = std::polar(1.0, 2 * pi * uniform(rng));
        delays[f] = d;
        const double floor_d = std::floor(d);
        const double frac = d - floor_d;
        std::vector<double> taps(2 * interp_half);
        // y(t - d) = sum_m clean[t - floor_d - m] h(m - frac), m = -interp_half + 1 ..
        // interp_half.
        for (int m = -interp_half + 1; m <= interp_half; ++m)
            taps[std::size_t(m + interp_half - 1)] =
                windowed_sinc(double(m) - frac, 0.5, interp_half);
        for (std::size_t i = 0; i < fft_len; ++i) {
            const std::size_t t = f * fft_len + i;
            std::complex<double> acc = 0;
            for (int m = -interp_half + 1; m <= interp_half; ++m)
                acc += clean[std::size_t(std::ptrdiff_t(t + margin) -
                                         std::ptrdiff_t(floor_d) - m)] *
                       taps[std::size_t(m + interp_half - 1)];
            const std::complex<double> nx(normal(rng), normal(rng));
            const std::complex<double> ny(normal(rng), normal(rng));
            x[t] = gr_complex(rotation * acc + noise * nx);
            y[t] = gr_complex(clean[t + margin] + noise * ny);
        }
    }
}

void tile(const std::vector<gr_complex>& pattern, std::size_t frames, gr_complex* out)
{
    const std::size_t n = frames * fft_len;
    for (std::size_t done = 0; done < n;) {
        const std::size_t m = std::min(n - done, pattern.size());
        std::memcpy(out + done, pattern.data(), m * sizeof(gr_complex));
        done += m;
    }
}

} // namespace xcorr_bench
} // namespace bench
} // namespace cudadsp
} // namespace gr
