/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_RULE_H
#define INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_RULE_H

/*
 * The per-window rules of the dense-offset estimator (PyCuAmpcor's frequency-domain
 * method, docs/design/pycuampcor_dense_offsets.md; section numbers below refer to it),
 * shared by the CPU (FFTW) and CUDA (cuFFT) backends so that both make the same
 * decisions from the same numbers: the derived sizes, amplitudes, the deramp phase,
 * where each spectrum bin goes in the FFT oversampling, the normalisation, the peak
 * tie rule, the covariance, the SNR neighbourhood and formula, the zoom start, the
 * final offset and the invalid-window values. The transforms and the float64 sums
 * (window means, the summed-area tables of the normalisation, the deramp gradients,
 * the SNR energy) are each backend's own; their order may differ, so the backends
 * agree to float32 rounding, not bit for bit (the engine test states the tolerances).
 *
 * Formulas that take float64 operands are written with explicit rounding on the
 * device, so that nvcc cannot contract them into fused multiply-adds and both
 * compilers round the same way.
 */

#include "runtime/host_device.h"
#include <gnuradio/cudadsp/core/dense_offsets.h>
#include <cmath>

namespace gr {
namespace cudadsp {
namespace core {

// ---------------------------------------------------------------------------------
// Sizes (sections 2.1, 2.2)
// ---------------------------------------------------------------------------------

/*!
 * The configuration as the rules use it (plain data, passed to kernels by value), with
 * every derived size. Directions: "rows" = down, "cols" = across.
 */
struct offsets_geometry {
    int h;             //!< reference window rows (window_height)
    int w;             //!< reference window columns (window_width)
    int hd;            //!< half search down
    int ha;            //!< half search across
    int r;             //!< raw-data oversampling factor
    int q;             //!< correlation-surface oversampling factor
    int zoom;          //!< Z = min(zoom_window, 2 r min(hd, ha))
    int hz;            //!< half zoom window in raw pixels: Z / (2 r)
    int stat;          //!< corr_stat_window
    int deramp;        //!< deramp_method as its integer (0 amplitude, 1 average, 2 none)
    bool isce2_deramp; //!< deramp_pairing isce2: ISCE2 2.6's axis pairing (4.9)
    int deramp_axis;   //!< deramp_direction as its integer (0 down, 1 across, 2 both)
    bool raw_peak;     //!< peak raw: the raw surface's maximum, else the fine one's
    bool merge;        //!< merge_gross_offset

    //! Raw search window (h + 2 Hd) x (w + 2 Ha): also the raw correlation's FFT size.
    CUDADSP_HOST_DEVICE int search_rows() const { return h + 2 * hd; }
    CUDADSP_HOST_DEVICE int search_cols() const { return w + 2 * ha; }
    //! Raw surface (2 Hd + 1) x (2 Ha + 1).
    CUDADSP_HOST_DEVICE int surface_rows() const { return 2 * hd + 1; }
    CUDADSP_HOST_DEVICE int surface_cols() const { return 2 * ha + 1; }
    //! Zoom secondary window, raw pixels: (h + 2 hz) x (w + 2 hz).
    CUDADSP_HOST_DEVICE int zoom_rows() const { return h + 2 * hz; }
    CUDADSP_HOST_DEVICE int zoom_cols() const { return w + 2 * hz; }
    //! Oversampled reference window r h x r w.
    CUDADSP_HOST_DEVICE int over_ref_rows() const { return r * h; }
    CUDADSP_HOST_DEVICE int over_ref_cols() const { return r * w; }
    //! Oversampled zoom window r (h + 2 hz) x r (w + 2 hz): the oversampled
    //! correlation's FFT size.
    CUDADSP_HOST_DEVICE int over_zoom_rows() const { return r * zoom_rows(); }
    CUDADSP_HOST_DEVICE int over_zoom_cols() const { return r * zoom_cols(); }
    /*! Side of the trimmed oversampled surface, 2 r hz (<= Z): the lags 0 .. 2 r hz - 1
     *  of the (2 r hz + 1)^2 surface; the last row and column are dropped (4.10). */
    CUDADSP_HOST_DEVICE int trimmed_side() const { return 2 * r * hz; }
    //! Side of the fine surface, q Z.
    CUDADSP_HOST_DEVICE int fine_side() const { return q * zoom; }
};

//! Z and hz of section 2.1.
CUDADSP_HOST_DEVICE int effective_zoom(int zoom_window, int r, int hd, int ha)
{
    const int limit = 2 * r * (hd < ha ? hd : ha);
    return zoom_window < limit ? zoom_window : limit;
}

inline offsets_geometry make_offsets_geometry(const dense_offsets_config& c)
{
    offsets_geometry g;
    g.h = c.window_height;
    g.w = c.window_width;
    g.hd = c.half_search_down;
    g.ha = c.half_search_across;
    g.r = c.raw_oversampling;
    g.q = c.corr_oversampling;
    g.zoom = effective_zoom(c.zoom_window, g.r, g.hd, g.ha);
    g.hz = g.zoom / (2 * g.r);
    g.stat = c.corr_stat_window;
    g.deramp = static_cast<int>(c.deramp);
    g.isce2_deramp = c.deramp_pairing == deramp_axes::isce2;
    g.deramp_axis = static_cast<int>(c.deramp_axis);
    g.raw_peak = c.peak == peak_surface::raw;
    g.merge = c.merge_gross_offset;
    return g;
}

// ---------------------------------------------------------------------------------
// Amplitudes and the deramp (sections 4.1, 4.2, 4.9)
// ---------------------------------------------------------------------------------

/*! |z|: float32 of the float64 square root of re^2 + im^2 (the squares of float32
 *  values are exact in float64; the sum and the root are rounded once each). */
CUDADSP_HOST_DEVICE float amplitude(float re, float im)
{
    const double a = re, b = im;
#ifdef __CUDA_ARCH__
    return __double2float_rn(__dsqrt_rn(__dadd_rn(__dmul_rn(a, a), __dmul_rn(b, b))));
#else
    return static_cast<float>(std::sqrt(a * a + b * b));
#endif
}

/*! The amplitude of an FFT-oversampled sample: |y| / (n0 n1), the unnormalised inverse
 *  transform's scale for \p n = n0 n1 input samples (amplitude scale 1: the output
 *  interpolates the input samples), one rounding from float64. */
CUDADSP_HOST_DEVICE float oversampled_amplitude(float re, float im, int n)
{
    const double a = re, b = im;
#ifdef __CUDA_ARCH__
    return __double2float_rn(__ddiv_rn(
        __dsqrt_rn(__dadd_rn(__dmul_rn(a, a), __dmul_rn(b, b))), static_cast<double>(n)));
#else
    return static_cast<float>(std::sqrt(a * a + b * b) / static_cast<double>(n));
#endif
}

/*! The window mean PyCuAmpcor subtracts from the reference amplitudes: float32 of
 *  (float64 sum of the amplitudes) / count. */
CUDADSP_HOST_DEVICE float window_mean(double sum, int count)
{
#ifdef __CUDA_ARCH__
    return __double2float_rn(__ddiv_rn(sum, static_cast<double>(count)));
#else
    return static_cast<float>(sum / static_cast<double>(count));
#endif
}

//! The phases a deramp removes, in radians per sample (section 4.9).
struct deramp_phases {
    double down;   //!< per row
    double across; //!< per column
};

/*!
 * The deramp's phases from the float64 gradient sums: the phase measured down is that of
 * sum z[a][b] conj(z[a+1][b]), the one measured across that of sum z[a][b]
 * conj(z[a][b+1]) (atan2, 0 for a zero sum). An axis that \p axis (a deramp_direction,
 * ISCE3's derampAxis) leaves out gets 0, as ISCE3's cuDeramp.cpp does.
 */
CUDADSP_HOST_DEVICE deramp_phases measured_deramp_phases(
    double down_re, double down_im, double across_re, double across_im, int axis)
{
    deramp_phases p;
    p.down = axis == static_cast<int>(deramp_direction::across) ? 0.0
                                                                : atan2(down_im, down_re);
    p.across = axis == static_cast<int>(deramp_direction::down)
                   ? 0.0
                   : atan2(across_im, across_re);
    return p;
}

/*!
 * The deramp rotation of sample (row \p a, column \p b), phi_down being the phase of
 * sum z[a][b] conj(z[a+1][b]) and phi_across that of sum z[a][b] conj(z[a][b+1])
 * (section 4.9). ISCE3's PyCuAmpcor multiplies the sample by
 * exp(i (a phi_down + b phi_across)), which removes a linear phase ramp; ISCE2 2.6's
 * (\p isce2_axes) by exp(i (b phi_down + a phi_across)), the column index with the
 * phase measured down, as its cuDeramp.cu does. The two differ whenever the phases
 * differ, and so do the oversampled amplitudes and the offsets. The phase and its
 * cosine and sine are float64, the product rounded to float32 once per component.
 */
CUDADSP_HOST_DEVICE void deramp_sample(float& re,
                                       float& im,
                                       int a,
                                       int b,
                                       double phi_down,
                                       double phi_across,
                                       bool isce2_axes)
{
    const int along_down = isce2_axes ? b : a, along_across = isce2_axes ? a : b;
#ifdef __CUDA_ARCH__
    const double phase =
        __dadd_rn(__dmul_rn(static_cast<double>(along_down), phi_down),
                  __dmul_rn(static_cast<double>(along_across), phi_across));
    double s, c;
    sincos(phase, &s, &c);
    const double x = re, y = im;
    re = __double2float_rn(__dsub_rn(__dmul_rn(x, c), __dmul_rn(y, s)));
    im = __double2float_rn(__dadd_rn(__dmul_rn(x, s), __dmul_rn(y, c)));
#else
    const double phase = static_cast<double>(along_down) * phi_down +
                         static_cast<double>(along_across) * phi_across;
    const double s = std::sin(phase), c = std::cos(phase);
    const double x = re, y = im;
    re = static_cast<float>(x * c - y * s);
    im = static_cast<float>(x * s + y * c);
#endif
}

// ---------------------------------------------------------------------------------
// FFT oversampling: where the spectrum bins go (sections 4.9, 4.11)
// ---------------------------------------------------------------------------------

/*!
 * Raw-data oversampling of an n-point axis to m = f n points: where bin \p k (0 .. n-1)
 * of the n-point forward spectrum goes in the m-point spectrum that is inverse
 * transformed, or -1 when PyCuAmpcor drops it. Kept frequencies are
 * -(n/2 - 1) .. n/2 (integer division): the Nyquist bin of an even n goes to the
 * positive side, unsplit; for an odd n the frequency -(n/2) (bin n/2 + 1) is dropped.
 * Frequency j goes to j mod m.
 */
CUDADSP_HOST_DEVICE int oversample_bin(int k, int n, int m)
{
    const int p = n / 2;
    if (k <= p)
        return k;
    const int j = k - n; // negative frequency
    return j >= 1 - p ? m + j : -1;
}

//! True when frequency \p j (-n/2 .. n/2) of an n-point axis is kept (4.9).
CUDADSP_HOST_DEVICE bool oversample_keeps(int j, int n)
{
    const int p = n / 2;
    return j >= 1 - p && j <= p;
}

/*!
 * Surface oversampling (4.11) keeps the real part of the complex oversampling of the
 * real Z x Z trimmed surface, i.e. the inverse transform of the Hermitian part of the
 * padded spectrum P. Both backends take the real forward transform X of the surface
 * (frequencies j0 = -Z/2 .. Z/2 down, j1 = 0 .. Z/2 across), weight it by
 * surface_bin_weight(j0, j1, Z), place it at (j0 mod qZ, j1) of a qZ x (qZ/2 + 1)
 * half spectrum (zero elsewhere) and transform complex-to-real. The weight of
 * frequency (j0, j1) is ([j0 and j1 kept] + [-j0 and -j1 kept]) / 2: 1 inside the
 * band, 1/2 or 0 on the Nyquist lines (so that, unlike a symmetric split, the corners
 * (+p, +p) and (-p, -p) get 1/2 and the corners (+p, -p), (-p, +p) nothing). For an
 * even Z the row j0 = +-Z/2 is the same bin of X, placed twice. The inverse is left
 * unscaled (the factor 1/Z^2 is positive and only the fine surface's argmax is used).
 */
CUDADSP_HOST_DEVICE float surface_bin_weight(int j0, int j1, int n)
{
    const int both = (oversample_keeps(j0, n) && oversample_keeps(j1, n) ? 1 : 0) +
                     (oversample_keeps(-j0, n) && oversample_keeps(-j1, n) ? 1 : 0);
    return 0.5f * static_cast<float>(both);
}

// ---------------------------------------------------------------------------------
// Normalisation (section 4.4)
// ---------------------------------------------------------------------------------

//! FLT_EPSILON, added to the product under the normalisation's square root (4.4).
constexpr double normalisation_epsilon = 1.1920928955078125e-07;

/*!
 * The normalised correlation of one lag: raw / sqrt((S2 - S1^2 / N) T2 + FLT_EPSILON),
 * float64, one rounding to float32. \p unscaled is the backend's unnormalised inverse
 * transform of conj(F(template)) F(search), so raw = unscaled / \p transform_size
 * (PyCuAmpcor's 1/(Hs Ws)); \p s1, \p s2 are the sum and the sum of squares of the
 * search amplitudes under the template at this lag, \p t2 the template's sum of squares
 * (mean removed), \p n = the template's pixel count.
 */
CUDADSP_HOST_DEVICE float normalized_correlation(
    float unscaled, long long transform_size, double s1, double s2, double t2, int n)
{
    const double raw = static_cast<double>(unscaled);
#ifdef __CUDA_ARCH__
    const double var =
        __dsub_rn(s2, __ddiv_rn(__dmul_rn(s1, s1), static_cast<double>(n)));
    const double den = __dsqrt_rn(__dadd_rn(__dmul_rn(var, t2), normalisation_epsilon));
    return __double2float_rn(
        __ddiv_rn(__ddiv_rn(raw, static_cast<double>(transform_size)), den));
#else
    const double var = s2 - s1 * s1 / static_cast<double>(n);
    const double den = std::sqrt(var * t2 + normalisation_epsilon);
    return static_cast<float>(raw / static_cast<double>(transform_size) / den);
#endif
}

// ---------------------------------------------------------------------------------
// Peaks (sections 4.5, 4.12)
// ---------------------------------------------------------------------------------

//! Threads of PyCuAmpcor's max-location block reduction: they decide its ties (4.5).
constexpr int maxloc_threads = 512;

/*!
 * A running maximum with PyCuAmpcor's tie rule as a total order: a NaN never competes;
 * the larger value wins; among equal values the smaller (index mod 512, index) wins,
 * index being the row-major position on the surface. Any reduction tree gives the same
 * winner. index < 0: no candidate yet.
 */
struct surface_max {
    float value = 0.0f;
    int index = -1;
};

CUDADSP_HOST_DEVICE bool max_beats(float value, int index, const surface_max& best)
{
    if (!(value == value))
        return false;
    if (best.index < 0)
        return true;
    if (value != best.value)
        return value > best.value;
    const int lane = index % maxloc_threads, best_lane = best.index % maxloc_threads;
    return lane < best_lane || (lane == best_lane && index < best.index);
}

CUDADSP_HOST_DEVICE void offer(surface_max& best, float value, int index)
{
    if (max_beats(value, index, best)) {
        best.value = value;
        best.index = index;
    }
}

CUDADSP_HOST_DEVICE void merge(surface_max& best, const surface_max& other)
{
    if (other.index >= 0)
        offer(best, other.value, other.index);
}

// ---------------------------------------------------------------------------------
// Statistics of the raw surface (sections 4.6, 4.7)
// ---------------------------------------------------------------------------------

//! Covariance value where it cannot be estimated (4.6).
constexpr float covariance_sentinel = 99.0f;

struct offset_covariance {
    float down, across, cross;
};

/*!
 * Section 4.6 from the raw normalised surface \p c (rows x cols, row-major) around the
 * peak (\p x, \p y) = (row, column) of value \p peak, T = h w: the second differences
 * and the closed form, float64, one rounding per component; 99 in all three when a
 * neighbour lies outside the surface or |u| < 1e-2.
 */
CUDADSP_HOST_DEVICE offset_covariance raw_covariance(
    const float* c, int rows, int cols, int x, int y, float peak, int template_pixels)
{
    const offset_covariance sentinel = { covariance_sentinel,
                                         covariance_sentinel,
                                         covariance_sentinel };
    if (x - 1 < 0 || y - 1 < 0 || x + 1 >= rows || y + 1 >= cols)
        return sentinel;
    auto at = [&](int i, int j) { return static_cast<double>(c[i * cols + j]); };
    const double t = template_pixels;
    const double p = peak;
    const double c0 = at(x, y);
#ifdef __CUDA_ARCH__
    const double dxx = __dmul_rn(
        -__dsub_rn(__dadd_rn(at(x + 1, y), at(x - 1, y)), __dmul_rn(2.0, c0)), t);
    const double dyy = __dmul_rn(
        -__dsub_rn(__dadd_rn(at(x, y + 1), at(x, y - 1)), __dmul_rn(2.0, c0)), t);
    const double dxy = __dmul_rn(
        __dmul_rn(__dsub_rn(__dsub_rn(__dadd_rn(at(x + 1, y + 1), at(x - 1, y - 1)),
                                      at(x + 1, y - 1)),
                            at(x - 1, y + 1)),
                  0.25),
        t);
    const double m = 1.0 - p > 0.0 ? __dsub_rn(1.0, p) : 0.0;
    const double n4 = __dmul_rn(__dmul_rn(__dmul_rn(m, m), 0.5), t);
    const double n2 = __dmul_rn(2.0, m);
    const double u = __dsub_rn(__dmul_rn(dxy, dxy), __dmul_rn(dxx, dyy));
    if (fabs(u) < 1e-2)
        return sentinel;
    const double u2 = __dmul_rn(u, u);
    const double nu = __dmul_rn(n2, u);
    const double dxy2 = __dmul_rn(dxy, dxy);
    offset_covariance r;
    r.down = __double2float_rn(
        __ddiv_rn(__dadd_rn(-__dmul_rn(nu, dyy),
                            __dmul_rn(n4, __dadd_rn(__dmul_rn(dyy, dyy), dxy2))),
                  u2));
    r.across = __double2float_rn(
        __ddiv_rn(__dadd_rn(-__dmul_rn(nu, dxx),
                            __dmul_rn(n4, __dadd_rn(__dmul_rn(dxx, dxx), dxy2))),
                  u2));
    r.cross = __double2float_rn(__ddiv_rn(
        __dsub_rn(__dmul_rn(nu, dxy), __dmul_rn(__dmul_rn(n4, __dadd_rn(dxx, dyy)), dxy)),
        u2));
    return r;
#else
    const double dxx = -((at(x + 1, y) + at(x - 1, y)) - 2.0 * c0) * t;
    const double dyy = -((at(x, y + 1) + at(x, y - 1)) - 2.0 * c0) * t;
    const double dxy =
        ((((at(x + 1, y + 1) + at(x - 1, y - 1)) - at(x + 1, y - 1)) - at(x - 1, y + 1)) *
         0.25) *
        t;
    const double m = 1.0 - p > 0.0 ? 1.0 - p : 0.0;
    const double n4 = ((m * m) * 0.5) * t;
    const double n2 = 2.0 * m;
    const double u = dxy * dxy - dxx * dyy;
    if (std::fabs(u) < 1e-2)
        return sentinel;
    const double u2 = u * u;
    const double nu = n2 * u;
    const double dxy2 = dxy * dxy;
    offset_covariance r;
    r.down = static_cast<float>((-(nu * dyy) + n4 * (dyy * dyy + dxy2)) / u2);
    r.across = static_cast<float>((-(nu * dxx) + n4 * (dxx * dxx + dxy2)) / u2);
    r.cross = static_cast<float>((nu * dxy - (n4 * (dxx + dyy)) * dxy) / u2);
    return r;
#endif
}

/*! One axis of the SNR neighbourhood (4.7): the half-open index range [first, end) of
 *  the surface axis of \p len cells covered by min(stat, len) cells starting at
 *  p - min(stat, len) / 2, clipped to the surface. */
struct index_range {
    int first, end;
};

CUDADSP_HOST_DEVICE index_range snr_range(int p, int stat, int len)
{
    const int size = stat < len ? stat : len;
    const int start = p - size / 2;
    index_range r;
    r.first = start < 0 ? 0 : start;
    r.end = start + size > len ? len : start + size;
    return r;
}

/*! snr = peak^2 / ((E - peak^2) / (n - 1)), float64, one rounding; E is the float64
 *  sum of c^2 over the \p n cells of the neighbourhood (IEEE: a zero surface gives
 *  NaN). */
CUDADSP_HOST_DEVICE float snr_value(float peak, double energy, int n)
{
    const double p = peak;
#ifdef __CUDA_ARCH__
    const double p2 = __dmul_rn(p, p);
    return __double2float_rn(
        __ddiv_rn(p2, __ddiv_rn(__dsub_rn(energy, p2), static_cast<double>(n - 1))));
#else
    const double p2 = p * p;
    return static_cast<float>(p2 / ((energy - p2) / static_cast<double>(n - 1)));
#endif
}

/*! The square of a surface value as added into the SNR energy (exact in float64). */
CUDADSP_HOST_DEVICE double snr_term(float c)
{
    const double v = c;
#ifdef __CUDA_ARCH__
    return __dmul_rn(v, v);
#else
    return v * v;
#endif
}

// ---------------------------------------------------------------------------------
// Zoom start and the result (sections 4.8, 4.12, 6)
// ---------------------------------------------------------------------------------

/*! Start of the zoom window in the raw search window on one axis (4.8): p - hz clamped
 *  to 0 .. 2 (H - hz). */
CUDADSP_HOST_DEVICE int zoom_start(int peak_index, int half_search, int half_zoom)
{
    const int s = peak_index - half_zoom;
    const int hi = 2 * (half_search - half_zoom);
    return s < 0 ? 0 : (s > hi ? hi : s);
}

/*! One component of the final offset (4.12): s - H + k / (q r) (+ gross with merge),
 *  float64, one rounding. */
CUDADSP_HOST_DEVICE float
final_offset(int zoom_start_index, int half_search, int fine_index, int qr, int gross)
{
    const double whole = static_cast<double>(zoom_start_index - half_search + gross);
#ifdef __CUDA_ARCH__
    return __double2float_rn(__dadd_rn(
        whole, __ddiv_rn(static_cast<double>(fine_index), static_cast<double>(qr))));
#else
    return static_cast<float>(whole +
                              static_cast<double>(fine_index) / static_cast<double>(qr));
#endif
}

/*!
 * ISCE3's correlation peak (4.12): the fine surface's maximum \p fine_max at the scale
 * of the normalised correlation. The backends leave the surface oversampling's inverse
 * transform unscaled (4.11), so their fine surface is Z^2 times PyCuAmpcor's, whose
 * padding multiplies the spectrum by 1 / Z^2 (its interpolation passes through the
 * surface's samples); float64, one rounding.
 */
CUDADSP_HOST_DEVICE float oversampled_peak(float fine_max, int zoom)
{
    const double z2 = static_cast<double>(zoom) * static_cast<double>(zoom);
#ifdef __CUDA_ARCH__
    return __double2float_rn(__ddiv_rn(static_cast<double>(fine_max), z2));
#else
    return static_cast<float>(static_cast<double>(fine_max) / z2);
#endif
}

//! The result of a window whose raw surface or fine surface has no number (section 6).
CUDADSP_HOST_DEVICE offset_result invalid_offset_result()
{
    const float nan = NAN;
    return { nan, nan, nan, nan, nan, nan, nan };
}

/*!
 * Section 4.12: the result from the raw-surface peak \p raw, its statistics, the zoom
 * start (\p s_down, \p s_across) and the fine peak \p fine (row-major on the
 * q Z x q Z unscaled fine surface), with the window's gross offset when merged. The
 * peak is the fine maximum (oversampled_peak()) or, with g.raw_peak, the raw one.
 * Invalid when either peak has no candidate.
 */
CUDADSP_HOST_DEVICE offset_result finish_window(const surface_max& raw,
                                                float snr,
                                                const offset_covariance& cov,
                                                int s_down,
                                                int s_across,
                                                const surface_max& fine,
                                                int gross_down,
                                                int gross_across,
                                                const offsets_geometry& g)
{
    if (raw.index < 0 || fine.index < 0)
        return invalid_offset_result();
    const int side = g.fine_side();
    const int qr = g.q * g.r;
    offset_result res;
    res.offset_down =
        final_offset(s_down, g.hd, fine.index / side, qr, g.merge ? gross_down : 0);
    res.offset_across =
        final_offset(s_across, g.ha, fine.index % side, qr, g.merge ? gross_across : 0);
    res.snr = snr;
    res.cov_down = cov.down;
    res.cov_across = cov.across;
    res.cov_cross = cov.cross;
    res.peak = g.raw_peak ? raw.value : oversampled_peak(fine.value, g.zoom);
    return res;
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_RULE_H */
