/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_CROSS_CORRELATION_PEAK_RULE_H
#define INCLUDED_CUDADSP_CORE_CROSS_CORRELATION_PEAK_RULE_H

/*
 * The per-frame peak rule of the cross-correlator, shared by the CPU and CUDA backends
 * so that both make the same decisions from the same numbers: which lags compete, how
 * ties break, how a fine-grid point is evaluated (the phase of every term and the
 * Nyquist bin), how the lag is limited and how magnitude and phase are formed.
 *
 * Notation: L = transform_len (a power of two >= 4), M = effective max_lag, I = interp.
 * The padded correlation c (L samples, c[l mod L] = L r[l]) and the cross-spectrum
 * S = X conj(Y) (L bins) are the unnormalised transforms of both backends.
 *
 * Band-limited interpolation. r(t) is the trigonometric interpolant of the L-periodic
 * sequence r, with the Nyquist bin split evenly between +L/2 and -L/2:
 *
 *     r(t) = (1/L) [ sum_{k=-(L/2-1)}^{L/2-1} S[k mod L] e^{2 pi i k t / L}
 *                    + S[L/2] cos(pi t) ].
 *
 * It passes through every r[l] and equals zero-padding the cross-spectrum interp-fold
 * with S[L/2] halved into bins +L/2 and -L/2 (the split keeps the interpolant of a
 * real correlation real, and is the least-energy interpolant). The sums are float64
 * over the float32 bins; each term's phase k t / L is reduced exactly, in integers, to
 * a fraction q / (I L) of a turn before its single rounding, so no phase error grows
 * with k or t.
 *
 * Non-finite input: |r|^2 of NaN ranks below every number, so a NaN never wins a
 * search and both backends rank the same values the same way. A frame with a
 * non-finite sample (a non-finite energy) gives NaN lag, magnitude and phase.
 */

#include "host_device.h"
#include <gnuradio/cudadsp/core/cross_correlator.h>
#include <cmath>
#include <limits>

namespace gr {
namespace cudadsp {
namespace core {

//! The configuration as the peak rule uses it (plain data, passed to kernels by value).
struct peak_grid {
    long long transform_len; //!< L
    int max_lag;             //!< M, the effective max_lag
    int interp;              //!< I
};

inline peak_grid make_peak_grid(const cross_correlator_config& config)
{
    return { static_cast<long long>(config.transform_len()),
             static_cast<int>(config.effective_max_lag()),
             static_cast<int>(config.interp) };
}

//! Index in the padded correlation (0 .. L-1) of lag \p lag, |lag| < L/2.
CUDADSP_HOST_DEVICE long long padded_index_of_lag(long long lag, long long L)
{
    return lag < 0 ? lag + L : lag;
}

//! Bin (0 .. L-1) of signed frequency \p k, -L/2 < k <= L/2.
CUDADSP_HOST_DEVICE long long bin_of_frequency(long long k, long long L)
{
    return k < 0 ? k + L : k;
}

//! First and last signed frequency of the interpolation sum (the Nyquist bin apart).
CUDADSP_HOST_DEVICE long long first_sum_frequency(long long L) { return -(L / 2 - 1); }
CUDADSP_HOST_DEVICE long long sum_frequency_count(long long L) { return L - 1; }

/*!
 * Search key of a correlation value: |r|^2 in float64, or -1 for NaN, so that NaN
 * ranks below every number. Products are rounded explicitly on the device, so that
 * contraction into a fused multiply-add cannot make the two backends rank differently
 * (for float32 inputs the products are exact in float64 either way).
 */
CUDADSP_HOST_DEVICE double peak_key(double re, double im)
{
#ifdef __CUDA_ARCH__
    const double m = __dadd_rn(__dmul_rn(re, re), __dmul_rn(im, im));
#else
    const double m = re * re + im * im;
#endif
    return m == m ? m : -1.0;
}

/*!
 * True when the candidate (key_a, position_a) beats (key_b, position_b): the larger
 * |r|, and on a tie the smaller lag. Positions are lags (integer search) or lags in
 * units of 1/I (fine search). A total order, so any reduction tree picks the same
 * winner.
 */
CUDADSP_HOST_DEVICE bool
peak_beats(double key_a, long long position_a, double key_b, long long position_b)
{
    return key_a > key_b || (key_a == key_b && position_a < position_b);
}

//! Key and position no candidate loses to (the start of a search).
constexpr double no_peak_key = -2.0;
constexpr long long no_peak_position = std::numeric_limits<long long>::max();

/*!
 * The factor e^{2 pi i k t / L} of signed frequency \p k at the fine-grid point
 * t = l0 + j / I, as (\p c, \p s) = (cos, sin). The phase k t / L = k (l0 I + j) / (I L)
 * turns is reduced modulo one turn exactly, in integers, to q / (I L) with
 * -I L / 2 < q <= I L / 2, and only then rounded. Requires |k| <= L, |l0| < L,
 * |j| <= I, L <= 2^25 and I <= 2^16 (cross_correlator_config::validate() ensures the
 * last two), so that no intermediate product leaves 64 bits.
 */
CUDADSP_HOST_DEVICE void fine_twiddle(
    long long k, long long l0, long long j, const peak_grid& g, double& c, double& s)
{
    const long long L = g.transform_len;
    const long long IL = g.interp * L;
    long long q = (k * l0) % L;      // k l0 / L turns, modulo one
    q = (q * g.interp + k * j) % IL; // + k j / (I L) turns
    if (q < 0)
        q += IL;
    if (2 * q > IL)
        q -= IL;
    // The angle is pi x, |x| <= 1: no argument reduction (sincospi on the device).
    const double x = 2.0 * (static_cast<double>(q) / static_cast<double>(IL));
#ifdef __CUDA_ARCH__
    sincospi(x, &s, &c);
#else
    constexpr double pi = 3.14159265358979323846264338327950288;
    s = std::sin(pi * x);
    c = std::cos(pi * x);
#endif
}

//! The Nyquist bin's factor at t = l0 + j / I: cos(pi t).
CUDADSP_HOST_DEVICE double nyquist_factor(long long l0, long long j, const peak_grid& g)
{
    double c, s;
    fine_twiddle(g.transform_len / 2, l0, j, g, c, s);
    return c;
}

/*!
 * The fine-grid search of one frame, fed r(l0 + j / I) for j = -I .. I in increasing
 * order (the values already divided by L).
 */
struct fine_peak {
    double key = no_peak_key;
    int j = 0;
    double re = 0.0, im = 0.0;   //!< r at the best point so far
    double re0 = 0.0, im0 = 0.0; //!< r(l0), the value a limited lag falls back to
};

CUDADSP_HOST_DEVICE void add_fine_point(fine_peak& p, int j, double re, double im)
{
    // Points come in increasing j, so a strict > keeps the smallest lag of a tie.
    const double key = peak_key(re, im);
    if (key > p.key) {
        p.key = key;
        p.j = j;
        p.re = re;
        p.im = im;
    }
    if (j == 0) {
        p.re0 = re;
        p.im0 = im;
    }
}

/*!
 * The frame's result from its integer peak \p l0, its fine-grid search and its
 * energies \p energy_x, \p energy_y (float64 sums of |x|^2, |y|^2).
 *
 * The lag is the fine argmax l0 + j / I; if that lies beyond +-M (possible only when
 * |l0| = M), it is limited to l0 itself, and magnitude and phase are those of r(l0).
 * magnitude = |r(lag)| / sqrt(E_x E_y), 0 when an energy is 0, and at most 1 (only
 * rounding could take it above); phase = arg r(lag) in (-pi, pi].
 */
CUDADSP_HOST_DEVICE cross_correlation_peak finish_peak(const fine_peak& p,
                                                       long long l0,
                                                       double energy_x,
                                                       double energy_y,
                                                       const peak_grid& g)
{
    constexpr double pi = 3.14159265358979323846264338327950288;
    if (!std::isfinite(energy_x) || !std::isfinite(energy_y)) {
        return { NAN, NAN, NAN };
    }
    // A frame of zeros correlates with nothing: r is 0 at every lag, so no lag is
    // preferred; report lag 0 rather than the first of the tied lags.
    if (energy_x == 0.0 || energy_y == 0.0)
        return { 0.0f, 0.0f, 0.0f };
    int j = p.j;
    double re = p.re, im = p.im;
    const long long position = l0 * g.interp + j;
    const long long limit = static_cast<long long>(g.max_lag) * g.interp;
    if (position > limit || position < -limit) {
        j = 0;
        re = p.re0;
        im = p.im0;
    }
    const double lag = static_cast<double>(l0) + static_cast<double>(j) / g.interp;
    double magnitude = 0.0;
    if (energy_x > 0.0 && energy_y > 0.0) {
        // A NaN r (from a transform that overflowed) has key -1: magnitude NaN.
        magnitude = std::sqrt(peak_key(re, im)) / std::sqrt(energy_x * energy_y);
        if (magnitude > 1.0)
            magnitude = 1.0;
    }
    double phase = std::atan2(im, re);
    if (phase <= -pi) // -pi, or a value rounded to it: the interval is (-pi, pi]
        phase = pi;
    return { static_cast<float>(lag),
             static_cast<float>(magnitude),
             static_cast<float>(phase) };
}

//! S = X conj(Y) of one bin, float32, rounded the same way on both backends.
CUDADSP_HOST_DEVICE void
cross_spectrum_bin(float xr, float xi, float yr, float yi, float& sr, float& si)
{
#ifdef __CUDA_ARCH__
    sr = __fadd_rn(__fmul_rn(xr, yr), __fmul_rn(xi, yi));
    si = __fsub_rn(__fmul_rn(xi, yr), __fmul_rn(xr, yi));
#else
    sr = xr * yr + xi * yi;
    si = xi * yr - xr * yi;
#endif
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_CROSS_CORRELATION_PEAK_RULE_H */
