/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BENCH_SPECKLE_FIELD_H
#define INCLUDED_CUDADSP_BENCH_SPECKLE_FIELD_H

// Synthetic SLC speckle for the image sections (patch, dense_offsets): band-limited
// complex speckle (a Blackman-windowed sinc low-pass of bandwidth 0.8 of the sample
// rate in both directions, applied to white complex Gaussian noise, evaluated at any
// real position, so that a second image can be the same field moved by a sub-pixel
// offset), quantised like an int16 SLC.

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {

//! The low-pass's bandwidth (cycles/sample) and half support (samples).
constexpr double speckle_bandwidth = 0.8;
constexpr int speckle_kernel_half = 8;

//! Blackman-windowed sinc of bandwidth \p b (cycles/sample), support |t| < half.
double lowpass(double t, double b, int half);

//! Taps h(j + f), j = -half .. half: the kernel between samples at fraction f.
std::vector<double> taps_at(double f);

//! Energy of the kernel's integer taps: the field's variance per unit white variance,
//! per axis.
double kernel_energy();

//! White complex Gaussian noise (unit variance per component), periodic.
struct noise_field {
    int rows = 0, cols = 0;
    std::vector<std::complex<double>> w;

    noise_field(int r, int c, std::uint64_t seed);
    const std::complex<double>& at(long long r, long long c) const
    {
        r %= rows;
        c %= cols;
        if (r < 0)
            r += rows;
        if (c < 0)
            c += cols;
        return w[std::size_t(r) * cols + std::size_t(c)];
    }
};

/*!
 * out[r][c] = S(oy + r - dy, ox + c - dx) for r < out_rows, c < out_cols (rows of
 * \p stride samples), S(Y, X) = sum_{m,n} W[m][n] h(Y - m) h(X - n) the band-limited
 * field of \p W (periodic), scaled by \p scale; with \p decorrelation > 0, plus white
 * Gaussian noise of that standard deviation per component (before scaling, seeded by
 * \p noise_seed), the field weighted by \p signal. Rounded to integers and clipped to
 * int16, like a quantised SLC.
 */
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
            std::size_t stride);

//! The scale that gives the field \p component_std per component.
double field_scale(double component_std);

//! The decorrelation noise's standard deviation (before scaling) for coherence g.
double decorrelation_std(double g);

/*!
 * Two \p period x \p period tiles of one periodic speckle field (white noise seeded by
 * \p field_seed, \p component_std per component): the first is the field, the second
 * the field moved by (\p dy, \p dx) with decorrelation noise at \p coherence (seeded
 * by \p noise_seed + the index of its row strip), so that a feature at (y, x) of the
 * first lies at (y + dy, x + dx) of the second. Rendered in row strips on the host's
 * threads (the field is periodic: the strips join); \p period is a multiple of 128.
 */
std::array<std::vector<std::complex<float>>, 2>
speckle_tile_pair(int period,
                  std::uint64_t field_seed,
                  std::uint64_t noise_seed,
                  double component_std,
                  double dy,
                  double dx,
                  double coherence);

//! Runs \p work(i) for i in [0, n) on the host's hardware threads.
void parallel_for(std::size_t n, const std::function<void(std::size_t)>& work);

} // namespace bench
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BENCH_SPECKLE_FIELD_H */
