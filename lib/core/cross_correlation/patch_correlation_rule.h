/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PATCH_CORRELATION_RULE_H
#define INCLUDED_CUDADSP_CORE_PATCH_CORRELATION_RULE_H

/*
 * The per-patch rules of the patch correlator (GMTSAR xcorr's frequency method,
 * docs/design/gmtsar_xcorr.md section 5), shared by the CPU and CUDA backends so that
 * both make the same decisions from the same numbers: amplitudes, the patch mean's
 * summation order, mean removal and mask, the integer copies, the first-maximum rule of
 * both peak searches, the correlation value, the scaled fourth-root neighbourhood, the
 * spectrum placement of the FFT interpolations, the high-resolution fractions and the
 * degenerate cases. The transforms themselves are each backend's own (float32).
 *
 * Arithmetic that could be contracted into fused multiply-adds is either exact (the
 * float64 squares of float32 values) or written with explicit rounding on the device,
 * so both compilers give the same bits.
 */

#include "runtime/host_device.h"
#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <cmath>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace core {

//! The configuration as the rules use it (plain data, passed to kernels by value).
struct patch_geometry {
    int xsearch; //!< xs
    int ysearch; //!< ys
    int npx;     //!< 4 xs
    int npy;     //!< 4 ys
    int ri;      //!< range interpolation factor
    int interp;  //!< high-resolution factor (ifc)
    bool highres;

    CUDADSP_HOST_DEVICE int surface_cols() const { return 2 * xsearch; } //!< nxc
    CUDADSP_HOST_DEVICE int surface_rows() const { return 2 * ysearch; } //!< nyc
    //! M of the range interpolation: ri npx.
    CUDADSP_HOST_DEVICE int range_len() const { return ri * npx; }
    //! nx2 = ny2 of the high-resolution step: 8 interp.
    CUDADSP_HOST_DEVICE int highres_len() const { return 8 * interp; }
};

inline patch_geometry make_patch_geometry(const patch_correlator_config& c)
{
    return {
        c.xsearch, c.ysearch, c.npx(), c.npy(), c.range_interp, c.interp, c.highres
    };
}

//! Side of the high-resolution neighbourhood (GMTSAR's n2x = n2y).
constexpr int highres_window = 8;

// ---------------------------------------------------------------------------------
// FFT interpolation (fft_interpolate_1d): spectrum placement
// ---------------------------------------------------------------------------------

/*!
 * Where bin \p k (0 .. N-1) of an N-point spectrum goes in the M-point padded spectrum
 * (M = factor N): bins below N/2 stay, bins N/2 .. N-1 (the Nyquist bin N/2 among them,
 * so it lands on the negative side only, unsplit) go to the top: M - N + k.
 */
CUDADSP_HOST_DEVICE int padded_bin(int k, int N, int M)
{
    return k < N / 2 ? k : M - N + k;
}

/*! The float32 scale of an interpolated sample: GMT's inverse normalisation 1/M, then
 *  GMTSAR's factor, in that order (both powers of two: exact). */
CUDADSP_HOST_DEVICE float interpolation_scale(float v, int M, int factor)
{
    return (v * (1.0f / static_cast<float>(M))) * static_cast<float>(factor);
}

// ---------------------------------------------------------------------------------
// Amplitudes, mean, mask, integer copies
// ---------------------------------------------------------------------------------

/*!
 * |z| as GMTSAR's Cabs: float32 of the float64 hypot. The squares of float32 values
 * are exact in float64, the sum and the square root are rounded once each (equal to a
 * correctly rounded hypot except in float64-to-float32 double-rounding cases).
 */
CUDADSP_HOST_DEVICE float patch_amplitude(float re, float im)
{
    const double r = re, i = im;
#ifdef __CUDA_ARCH__
    return __double2float_rn(__dsqrt_rn(__dadd_rn(__dmul_rn(r, r), __dmul_rn(i, i))));
#else
    return static_cast<float>(std::sqrt(r * r + i * i));
#endif
}

//! Interleaved float64 partial sums of a row (the CUDA backend's warp lanes).
constexpr int mean_lanes = 32;

/*!
 * Sum of \p n values (n a multiple of mean_lanes) in the shared order: partial sum l
 * takes v[l], v[l + 32], ... in turn (float64, from 0.0); then pairs are added with
 * strides 16, 8, 4, 2, 1 (s[l] += s[l + stride], l < stride). The CUDA backend does
 * exactly this with one warp (a row's amplitudes, then a patch's row sums). Host only.
 */
template <typename T>
inline double sum_in_lane_order(const T* v, int n)
{
    double s[mean_lanes];
    for (int l = 0; l < mean_lanes; ++l)
        s[l] = 0.0;
    for (int i = 0; i < n; ++i)
        s[i % mean_lanes] += static_cast<double>(v[i]);
    for (int stride = mean_lanes / 2; stride > 0; stride /= 2)
        for (int l = 0; l < stride; ++l)
            s[l] += s[l + stride];
    return s[0];
}

/*! The patch mean as GMTSAR subtracts it: float32 of (the sum of the npy row sums, in
 *  the lane order) / (npy npx), float64. */
CUDADSP_HOST_DEVICE float patch_mean(double total, int npy, int npx)
{
    return static_cast<float>(total / static_cast<double>(npy * npx));
}

//! True when (row, col) lies in the aligned patch's central 2 ys x 2 xs block.
CUDADSP_HOST_DEVICE bool in_mask(int row, int col, const patch_geometry& g)
{
    return row >= g.ysearch && row < g.npy - g.ysearch && col >= g.xsearch &&
           col < g.npx - g.xsearch;
}

/*! Mean removal, then (aligned only) GMTSAR's multiplication by the 0/1 mask: a NaN
 *  stays NaN outside the mask, as there. */
CUDADSP_HOST_DEVICE float demeaned_amplitude(
    float a, float mean, bool aligned, int row, int col, const patch_geometry& g)
{
    const float v = a - mean;
    if (!aligned)
        return v;
#ifdef __CUDA_ARCH__
    return __fmul_rn(v, in_mask(row, col, g) ? 1.0f : 0.0f);
#else
    return v * (in_mask(row, col, g) ? 1.0f : 0.0f);
#endif
}

/*!
 * GMTSAR's integer copy (int)a: truncation toward zero. Where C leaves it undefined
 * (NaN, beyond int32) both backends saturate, NaN giving 0 (the CUDA conversion's rule).
 */
CUDADSP_HOST_DEVICE std::int32_t integer_copy(float a)
{
    if (!(a == a))
        return 0;
    if (a >= 2147483648.0f)
        return INT32_MAX;
    if (a <= -2147483648.0f)
        return INT32_MIN;
    return static_cast<std::int32_t>(a);
}

/*!
 * The three integer sums of calc_time_corr(): sum A B, sum A^2, sum B^2. Accumulated in
 * unsigned 64-bit arithmetic (wrapping, never undefined; exact, in any order, whenever
 * GMTSAR's long long sums do not overflow, which int16 data never makes them do).
 */
struct time_sums {
    std::uint64_t ab = 0, aa = 0, bb = 0;
};

CUDADSP_HOST_DEVICE void add_time_term(time_sums& s, std::int32_t a, std::int32_t b)
{
    const std::int64_t la = a, lb = b;
    s.ab += static_cast<std::uint64_t>(la * lb);
    s.aa += static_cast<std::uint64_t>(la * la);
    s.bb += static_cast<std::uint64_t>(lb * lb);
}

CUDADSP_HOST_DEVICE void add_time_sums(time_sums& s, const time_sums& o)
{
    s.ab += o.ab;
    s.aa += o.aa;
    s.bb += o.bb;
}

/*! gamma = 100 |num / sqrt(1.0 d1 d2)| in percent, 0 when the denominator is 0
 *  (calc_time_corr(), float64). */
CUDADSP_HOST_DEVICE double time_correlation_percent(const time_sums& s)
{
    const double num = static_cast<double>(static_cast<std::int64_t>(s.ab));
    const double d1 = static_cast<double>(static_cast<std::int64_t>(s.aa));
    const double d2 = static_cast<double>(static_cast<std::int64_t>(s.bb));
#ifdef __CUDA_ARCH__
    const double den = __dsqrt_rn(__dmul_rn(__dmul_rn(1.0, d1), d2));
    return den == 0.0 ? 0.0 : __dmul_rn(100.0, fabs(__ddiv_rn(num, den)));
#else
    const double den = std::sqrt(1.0 * d1 * d2);
    return den == 0.0 ? 0.0 : 100.0 * std::fabs(num / den);
#endif
}

// ---------------------------------------------------------------------------------
// Peak searches
// ---------------------------------------------------------------------------------

/*!
 * A running first-maximum search, as GMTSAR's scans (max initialised to -1, strict >):
 * only values above -1 compete (NaN never does), the largest wins, and on a tie the
 * smallest index (row-major position). A total order, so any reduction tree gives
 * the serial scan's answer. index < 0: no candidate yet.
 */
struct first_max {
    float value = -1.0f;
    int index = -1;
};

CUDADSP_HOST_DEVICE bool first_max_beats(float value, int index, const first_max& best)
{
    if (!(value > -1.0f))
        return false;
    if (best.index < 0)
        return true;
    return value > best.value || (value == best.value && index < best.index);
}

CUDADSP_HOST_DEVICE void offer(first_max& best, float value, int index)
{
    if (first_max_beats(value, index, best)) {
        best.value = value;
        best.index = index;
    }
}

CUDADSP_HOST_DEVICE void merge(first_max& best, const first_max& other)
{
    if (other.index >= 0)
        offer(best, other.value, other.index);
}

/*! The surface value of a complex correlation sample: Cabs of the sample normalised by
 *  1/(npx npy) (GMT's inverse 2D normalisation; a power of two, so exact). */
CUDADSP_HOST_DEVICE float
surface_value_complex(float re, float im, const patch_geometry& g)
{
    const float scale = 1.0f / static_cast<float>(g.npx * g.npy);
    return patch_amplitude(re * scale, im * scale);
}

//! The same for a real correlation sample (real-to-complex path): |re| normalised.
CUDADSP_HOST_DEVICE float surface_value_real(float re, const patch_geometry& g)
{
    const float scale = 1.0f / static_cast<float>(g.npx * g.npy);
    return fabsf(re * scale);
}

/*!
 * The fourth root of the neighbourhood, float32 of the float64 double square root
 * (GMTSAR: powf of the float32 value; the two agree except in double-rounding cases).
 */
CUDADSP_HOST_DEVICE float fourth_root(float x)
{
#ifdef __CUDA_ARCH__
    return __double2float_rn(__dsqrt_rn(__dsqrt_rn(static_cast<double>(x))));
#else
    return static_cast<float>(std::sqrt(std::sqrt(static_cast<double>(x))));
#endif
}

/*!
 * One cell of the high-resolution neighbourhood: the surface scaled to peak = gamma,
 * (gamma corr) / cmax in float64 (0 / 0 = NaN for a zero surface, as GMTSAR), to
 * float32, fourth root.
 */
CUDADSP_HOST_DEVICE float highres_cell(double gamma, float corr, float cmax)
{
#ifdef __CUDA_ARCH__
    const double scaled =
        __ddiv_rn(__dmul_rn(gamma, static_cast<double>(corr)), static_cast<double>(cmax));
    return fourth_root(__double2float_rn(scaled));
#else
    const double scaled = gamma * static_cast<double>(corr) / static_cast<double>(cmax);
    return fourth_root(static_cast<float>(scaled));
#endif
}

/*!
 * Surface cell of neighbourhood cell (u, v) for the integer peak at surface cell
 * (\p peak_row, \p peak_col): (peak_row - 4 + u, peak_col - 4 + v), or -1 when it
 * lies outside the 2 ys x 2 xs surface (the cell is then 0: the engine's rule, where
 * GMTSAR wraps columns and reads undefined values above the surface).
 */
CUDADSP_HOST_DEVICE int
neighbourhood_cell(int u, int v, int peak_row, int peak_col, const patch_geometry& g)
{
    const int r = peak_row - highres_window / 2 + u;
    const int c = peak_col - highres_window / 2 + v;
    if (r < 0 || r >= g.surface_rows() || c < 0 || c >= g.surface_cols())
        return -1;
    return r * g.surface_cols() + c;
}

/*!
 * A high-resolution fraction from the position \p p (0 .. 8 interp - 1, or -1 when no
 * value exceeded -1) of the argmax along one axis: (p - 4 interp) / interp in float32,
 * as GMTSAR; with no candidate GMTSAR's initial -1 (already relative) gives -1/interp.
 */
CUDADSP_HOST_DEVICE float highres_fraction(int p, int interp)
{
    const int relative = p < 0 ? -1 : p - highres_window / 2 * interp;
    return static_cast<float>(relative) / static_cast<float>(interp);
}

/*!
 * The result of a patch from its integer search (winner cell \p surface_best.index of
 * the 2 ys x 2 xs surface, row-major), its correlation value \p gamma and its
 * high-resolution search (index m 8 interp + n of the interpolated grid).
 */
CUDADSP_HOST_DEVICE patch_result finish_patch(const first_max& surface_best,
                                              double gamma,
                                              const first_max& highres_best,
                                              const patch_geometry& g)
{
    patch_result r;
    if (surface_best.index < 0) {
        // No number on the surface (GMTSAR: "error! jpeak ..." and exit).
        r.jpeak = 0;
        r.ipeak = 0;
        r.xfrac = r.yfrac = r.corr = NAN;
        return r;
    }
    r.ipeak = surface_best.index / g.surface_cols() - g.ysearch;
    r.jpeak = surface_best.index % g.surface_cols() - g.xsearch;
    r.corr = static_cast<float>(gamma);
    if (g.highres) {
        const int n2 = g.highres_len();
        const int m = highres_best.index < 0 ? -1 : highres_best.index / n2;
        const int n = highres_best.index < 0 ? -1 : highres_best.index % n2;
        r.yfrac = highres_fraction(m, g.interp);
        r.xfrac = highres_fraction(n, g.interp);
    } else {
        r.xfrac = r.yfrac = 0.0f;
    }
    return r;
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PATCH_CORRELATION_RULE_H */
