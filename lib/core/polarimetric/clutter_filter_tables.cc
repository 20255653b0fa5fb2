/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "polarimetric/clutter_filter_tables.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr double pi = 3.14159265358979323846264338327950288;

/*!
 * Normalised autocorrelation of the model clutter at lag m samples: a zero-mean
 * Gaussian spectrum of width sigma_c, exp(-8 (pi sigma_c m Ts / lambda)^2).
 */
std::vector<double> clutter_correlation(const polarimetric_config& config,
                                        std::size_t length)
{
    const double sample_s =
        config.mode == polarimetric_mode::alternating ? 2.0 * config.prt_s : config.prt_s;
    const double x = pi * config.clutter.clutter_width_m_s(config.wavelength_m) *
                     sample_s / config.wavelength_m;
    std::vector<double> rho(length);
    for (std::size_t m = 0; m < length; ++m)
        rho[m] = std::exp(-8.0 * x * x * double(m) * double(m));
    return rho;
}

/*!
 * The first \p count orthonormal polynomials on L equally spaced points in [-1, 1]:
 * monomials orthonormalised by modified Gram-Schmidt, applied twice so that the
 * columns stay orthogonal to rounding even where the monomials are nearly dependent.
 */
std::vector<double> orthonormal_polynomials(std::size_t length, std::size_t count)
{
    std::vector<double> basis(count * length);
    const double half = 0.5 * double(length - 1);
    for (std::size_t k = 0; k < count; ++k) {
        double* phi = basis.data() + k * length;
        for (std::size_t i = 0; i < length; ++i)
            phi[i] = std::pow((double(i) - half) / half, double(k));
        for (int pass = 0; pass < 2; ++pass) {
            for (std::size_t j = 0; j < k; ++j) {
                const double* q = basis.data() + j * length;
                double dot = 0.0;
                for (std::size_t i = 0; i < length; ++i)
                    dot += q[i] * phi[i];
                for (std::size_t i = 0; i < length; ++i)
                    phi[i] -= dot * q[i];
            }
            double norm = 0.0;
            for (std::size_t i = 0; i < length; ++i)
                norm += phi[i] * phi[i];
            norm = std::sqrt(norm);
            for (std::size_t i = 0; i < length; ++i)
                phi[i] /= norm;
        }
    }
    return basis;
}

} // namespace

clutter_filter_tables::clutter_filter_tables(const polarimetric_config& config)
{
    const clutter_filter_config& cc = config.clutter;
    const std::size_t L = config.mode == polarimetric_mode::alternating
                              ? config.pulses_per_radial / 2
                              : config.pulses_per_radial;
    clutter_filter_constants& k = constants;
    k.kind = cc.kind;
    k.only_where_detected = cc.only_where_detected;
    k.cpa_threshold = cc.cpa_threshold;
    k.series_length = static_cast<unsigned int>(L);
    k.window_lag1_gain = 1.0;
    const std::vector<double> rho = clutter_correlation(config, L);

    if (cc.kind == clutter_filter_kind::regression) {
        // An order-(L - 1) fit reproduces every series; L - 2 leaves one degree of
        // freedom for the moments.
        const std::size_t max_order = std::min(cc.max_regression_order, L - 2);
        k.max_order = static_cast<unsigned int>(max_order);
        basis = orthonormal_polynomials(L, max_order + 1);
        // Model clutter of unit power left by an order-p fit: 1 - sum over k <= p of
        // phi_k' R phi_k / L, R the clutter's Toeplitz covariance.
        double captured = 0.0;
        for (std::size_t p = 0; p <= max_order; ++p) {
            const double* phi = basis.data() + p * L;
            for (std::size_t i = 0; i < L; ++i)
                for (std::size_t j = 0; j < L; ++j)
                    captured += phi[i] * rho[i > j ? i - j : j - i] * phi[j];
            k.residual_clutter[p] = std::max(0.0, 1.0 - captured / double(L));
        }
    }

    if (cc.kind == clutter_filter_kind::gmap) {
        const std::size_t max_notch =
            std::min<std::size_t>(clutter_filter_config::gmap_notch_limit, (L - 4) / 2);
        k.max_notch = static_cast<unsigned int>(max_notch);
        // Blackman window (sidelobes 58 dB down: clutter 50 dB over the noise leaks
        // below it), scaled to mean square 1 so that windowed powers need no
        // correction.
        window.resize(L);
        double square_sum = 0.0;
        for (std::size_t i = 0; i < L; ++i) {
            const double x = 2.0 * pi * double(i) / double(L - 1);
            window[i] = 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2.0 * x);
            square_sum += window[i] * window[i];
        }
        const double scale = std::sqrt(double(L) / square_sum);
        for (double& w : window)
            w *= scale;
        double lag1 = 0.0;
        for (std::size_t i = 0; i + 1 < L; ++i)
            lag1 += window[i + 1] * window[i];
        k.window_lag1_gain = lag1 / double(L - 1);

        // The notch's bins and one either side (the refill's bound).
        const std::size_t bins = 2 * max_notch + 3;
        analysis.resize(2 * bins * L);
        synthesis.resize(2 * bins * L);
        for (std::size_t b = 0; b < bins; ++b) {
            const double bin = double(b) - double(max_notch + 1);
            for (std::size_t i = 0; i < L; ++i) {
                // The phase reduced modulo L before scaling keeps it exact.
                const double turns = std::fmod(bin * double(i), double(L)) / double(L);
                const double c = std::cos(2.0 * pi * turns),
                             s = std::sin(2.0 * pi * turns);
                analysis[2 * (b * L + i)] = window[i] * c;
                analysis[2 * (b * L + i) + 1] = -window[i] * s;
                synthesis[2 * (b * L + i)] = c / double(L);
                synthesis[2 * (b * L + i) + 1] = s / double(L);
            }
        }
        // L times the model clutter's share of bin k: sum over i, j of w_i w_j
        // rho(i - j) cos(2 pi k (i - j) / L) / L.
        for (std::size_t b = 0; b <= max_notch; ++b) {
            double share = 0.0;
            for (std::size_t i = 0; i < L; ++i)
                for (std::size_t j = 0; j < L; ++j) {
                    const double lag = double(i) - double(j);
                    share += window[i] * window[j] * rho[i > j ? i - j : j - i] *
                             std::cos(2.0 * pi * double(b) * lag / double(L));
                }
            k.notch_clutter[b] = share / double(L);
        }
    }
}

clutter_filter_constants clutter_filter_tables::for_call(double noise_h,
                                                         const double* basis_at,
                                                         const double* window_at,
                                                         const double* analysis_at,
                                                         const double* synthesis_at) const
{
    clutter_filter_constants k = constants;
    k.noise_h = noise_h;
    k.basis = basis_at;
    k.window = window_at;
    k.analysis = analysis_at;
    k.synthesis = synthesis_at;
    return k;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
