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
 * real correlation real, and is the least-energy interpolant).
 *
 * How the fine grid t = l0 + j / I, j = -I .. I, is evaluated (both backends):
 *
 *  1. Bins +k and -k are taken together, k = 0 .. L/2 (bin_pair()):
 *         P_k = S[k] + S[-k],  Q_k = S[k] - S[-k]   (0 < k < L/2),
 *         P_k = S[k],          Q_k = 0              (k = 0 and k = L/2),
 *     so that L r(t) = sum_k P_k cos(phi_k) + i Q_k sin(phi_k), phi_k = 2 pi k t / L
 *     (the Nyquist term is P_{L/2} cos(pi t)).
 *  2. The phase splits as phi_k = alpha_k + j beta_k, alpha_k = 2 pi k l0 / L,
 *     beta_k = 2 pi k / (I L) (pair_rotation()):
 *         U_k = P_k cos(alpha_k) + i Q_k sin(alpha_k),
 *         V_k = i Q_k cos(alpha_k) - P_k sin(alpha_k),
 *         L r(l0 +- j / I) = sum_k U_k cos(j beta_k) +- sum_k V_k sin(j beta_k),
 *     so the points j and -j share one pair of real-weighted sums
 *     (fine_pair_points()), and j = 0 is sum_k U_k.
 *  3. cos(j beta_k) + i sin(j beta_k) = (e^{i beta_k})^j: powers by repeated complex
 *     multiplication in float64, from 1 or from an exact anchor e^{i j0 beta_k}.
 *
 * Per bin pair and pair of points that is 4 multiply-adds for the sums and 4 for the
 * next power, against a complex twiddle update and a complex multiply-add per bin and
 * point of the direct sum: a quarter of the arithmetic, and the twiddles
 * e^{i alpha_k}, e^{i beta_k} are made once per bin pair, not once per point.
 *
 * Accuracy. The sums are float64 over the float32 bins. Every exactly computed twiddle
 * (fine_twiddle()) has its phase reduced exactly, in integers, to a fraction
 * q / (I L) of a turn before its single rounding, so no phase error grows with k or
 * t. The backends advance twiddles from such exact values by complex multiplication
 * (over k, restarting from an exact value every so many steps, and over j, at most I
 * steps): each step adds about one float64 rounding, so a twiddle carries an error of
 * some hundreds of units in the last place of float64 at worst (around 1e-13),
 * orders of magnitude under the float32 rounding of the bins. The backends differ only
 * in the order of the float64 sums and in where their recurrences restart.
 *
 * Non-finite input: |r|^2 of NaN ranks below every number, so a NaN never wins a
 * search and both backends rank the same values the same way. A frame with a
 * non-finite sample (a non-finite energy) gives NaN lag, magnitude and phase.
 *
 * Range (frame_range()): the transforms are float32, so a frame must neither overflow
 * nor underflow them, and that is decided from the float64 energies E_x, E_y before
 * any result is read. Every value of the forward transforms is at most
 * sum |x| <= sqrt(L E_x), and every value of the cross-spectrum and of the inverse
 * transform at most sum_k |X_k Y_k| <= L sqrt(E_x E_y) (Cauchy-Schwarz, Parseval).
 * With L E_x, L E_y and L^2 E_x E_y at most max_transform_energy = 2^250 they all stay
 * below 2^125, under float32's 2^128 with room for rounding; a frame beyond that
 * (samples near FLT_MAX) is a bad frame, as one with a NaN. Below min_frame_energy =
 * 2^-200 in E_x, E_y or E_x E_y the bins are denormal or zero (samples of 1e-40
 * multiply to 0 in float32), so the frame is a zero frame. In between the bins are
 * normal float32 values at least 2^-100, and the result is that of the scaled frame.
 * The backends sum the energies in different orders, so for a frame within a float64
 * rounding of either bound they may decide differently.
 */

#include "runtime/host_device.h"
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
 * t = l0 + j / I, as (\p c, \p s) = (cos, sin), rounded once from the exact phase.
 * The phase k t / L = k (l0 I + j) / (I L) turns is reduced modulo one turn exactly, in
 * integers, to q / (I L) with -I L / 2 < q <= I L / 2, and only then rounded.
 * Requires |k|, |l0| < 2^25 and |j| <= I <= 2^16 (cross_correlator_config::validate()
 * bounds L by 2^25 and I by 2^16), so that no intermediate product leaves 64 bits.
 */
CUDADSP_HOST_DEVICE void fine_twiddle(
    long long k, long long l0, long long j, const peak_grid& g, double& c, double& s)
{
    const long long L = g.transform_len;
    const long long IL = g.interp * L;
    // k l0 / L turns, modulo one: L is a power of two, and the mask of a two's
    // complement value is its residue in [0, L).
    long long q = (k * l0) & (L - 1);
    q = q * g.interp + k * j; // + k j / (I L) turns
    if (q < 0 || q >= IL) {   // only when |k j| is beyond I L
        q %= IL;
        if (q < 0)
            q += IL;
    }
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

//! Bin pairs of the fine-grid sums: k = 0 .. L/2 (bin_pair()).
CUDADSP_HOST_DEVICE long long bin_pair_count(long long L) { return L / 2 + 1; }

//! True for the pairs that hold one bin alone: k = 0 and the Nyquist bin k = L/2.
CUDADSP_HOST_DEVICE bool single_bin_pair(long long k, long long L)
{
    return k == 0 || 2 * k == L;
}

/*!
 * P = S[k] + S[-k] and Q = S[k] - S[-k] of bin pair k, from (\p a_re, \p a_im) =
 * S[k] and (\p b_re, \p b_im) = S[L - k]; for a single bin (single_bin_pair()) P =
 * S[k], Q = 0, and b is not read. float64 sums of float32 values.
 */
CUDADSP_HOST_DEVICE void bin_pair(bool single,
                                  float a_re,
                                  float a_im,
                                  float b_re,
                                  float b_im,
                                  double& p_re,
                                  double& p_im,
                                  double& q_re,
                                  double& q_im)
{
    if (single) {
        p_re = a_re;
        p_im = a_im;
        q_re = 0.0;
        q_im = 0.0;
        return;
    }
    p_re = static_cast<double>(a_re) + static_cast<double>(b_re);
    p_im = static_cast<double>(a_im) + static_cast<double>(b_im);
    q_re = static_cast<double>(a_re) - static_cast<double>(b_re);
    q_im = static_cast<double>(a_im) - static_cast<double>(b_im);
}

/*!
 * U = P cos(alpha) + i Q sin(alpha) and V = i Q cos(alpha) - P sin(alpha) of a bin
 * pair, from (\p c, \p s) = e^{i alpha}, alpha = 2 pi k l0 / L: the pair's terms at
 * l0 +- j / I are U cos(j beta) +- V sin(j beta).
 */
CUDADSP_HOST_DEVICE void pair_rotation(double p_re,
                                       double p_im,
                                       double q_re,
                                       double q_im,
                                       double c,
                                       double s,
                                       double& u_re,
                                       double& u_im,
                                       double& v_re,
                                       double& v_im)
{
    u_re = p_re * c - q_im * s;
    u_im = p_im * c + q_re * s;
    v_re = -(q_im * c) - p_re * s;
    v_im = q_re * c - p_im * s;
}

/*!
 * r(l0 + j / I) (\p plus) and r(l0 - j / I) (\p minus), divided by L, from the sums
 * over all bin pairs of U cos(j beta) (\p uc_re, \p uc_im) and of V sin(j beta)
 * (\p vs_re, \p vs_im).
 */
CUDADSP_HOST_DEVICE void fine_pair_points(double uc_re,
                                          double uc_im,
                                          double vs_re,
                                          double vs_im,
                                          const peak_grid& g,
                                          double& plus_re,
                                          double& plus_im,
                                          double& minus_re,
                                          double& minus_im)
{
    const double scale = 1.0 / static_cast<double>(g.transform_len); // a power of two
    plus_re = (uc_re + vs_re) * scale;
    plus_im = (uc_im + vs_im) * scale;
    minus_re = (uc_re - vs_re) * scale;
    minus_im = (uc_im - vs_im) * scale;
}

/*!
 * The fine-grid search of one frame, fed r(l0 + j / I) for j = -I .. I in any order
 * (the values already divided by L), each point once.
 */
struct fine_peak {
    double key = no_peak_key;
    int j = 0;
    double re = 0.0, im = 0.0;   //!< r at the best point so far
    double re0 = 0.0, im0 = 0.0; //!< r(l0), the value a limited lag falls back to
};

CUDADSP_HOST_DEVICE void add_fine_point(fine_peak& p, int j, double re, double im)
{
    // peak_beats() is a total order (the larger |r|, the smaller j on a tie), so the
    // order in which the points come does not matter; every key beats no_peak_key.
    const double key = peak_key(re, im);
    if (peak_beats(key, j, p.key, p.j)) {
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

//! Bounds of the range rule (see the top of this file).
constexpr double max_transform_energy = 0x1p250;
constexpr double min_frame_energy = 0x1p-200;

//! What the range rule makes of a frame.
enum class frame_kind { bad, zero, normal };

/*!
 * The frame's kind from its energies \p energy_x, \p energy_y (float64 sums of |x|^2,
 * |y|^2) and the transform length: bad when an energy is not finite or the
 * transforms could overflow, zero when they would underflow (or an energy is 0).
 */
CUDADSP_HOST_DEVICE frame_kind frame_range(double energy_x,
                                           double energy_y,
                                           const peak_grid& g)
{
    // Multiplying by L (a power of two) is exact; no sum to contract on the device.
    const double L = static_cast<double>(g.transform_len);
    const double scaled_x = L * energy_x;
    const double scaled_y = L * energy_y;
    const double product = energy_x * energy_y;
    // Written so that NaN fails the test.
    if (!(scaled_x <= max_transform_energy && scaled_y <= max_transform_energy &&
          scaled_x * scaled_y <= max_transform_energy))
        return frame_kind::bad;
    if (energy_x < min_frame_energy || energy_y < min_frame_energy ||
        product < min_frame_energy)
        return frame_kind::zero;
    return frame_kind::normal;
}

/*!
 * The frame's result from its integer peak \p l0, its fine-grid search and its
 * energies \p energy_x, \p energy_y (float64 sums of |x|^2, |y|^2).
 *
 * The lag is the fine argmax l0 + j / I; if that lies beyond +-M (possible only when
 * |l0| = M), it is limited to l0 itself, and magnitude and phase are those of r(l0).
 * magnitude = |r(lag)| / sqrt(E_x E_y), at most 1 (only rounding could take it above);
 * phase = arg r(lag) in (-pi, pi]. A bad frame (frame_range()) gives NaN for all
 * three, a zero frame 0 for all three.
 */
CUDADSP_HOST_DEVICE cross_correlation_peak finish_peak(const fine_peak& p,
                                                       long long l0,
                                                       double energy_x,
                                                       double energy_y,
                                                       const peak_grid& g)
{
    constexpr double pi = 3.14159265358979323846264338327950288;
    const frame_kind kind = frame_range(energy_x, energy_y, g);
    if (kind == frame_kind::bad)
        return { NAN, NAN, NAN };
    // A frame of zeros correlates with nothing: r is 0 at every lag, so no lag is
    // preferred; report lag 0 rather than the first of the tied lags.
    if (kind == frame_kind::zero)
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
    // In range, the transforms cannot overflow, so r is finite and the energies > 0.
    double magnitude = std::sqrt(peak_key(re, im)) / std::sqrt(energy_x * energy_y);
    if (magnitude > 1.0)
        magnitude = 1.0;
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
