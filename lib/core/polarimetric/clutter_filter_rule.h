/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_CLUTTER_FILTER_RULE_H
#define INCLUDED_CUDADSP_CORE_CLUTTER_FILTER_RULE_H

/*
 * The ground-clutter filters of one gate, shared by the CPU and CUDA backends (both
 * call these functions with the same tables, so they filter identically up to the
 * rounding of their math libraries).
 *
 * A gate's pulses form two series of L samples: a (the H series, which chooses the
 * filter) and b (the V series, filtered the same way). The filter takes two passes
 * over the series: pass 1 (add) gathers what the filter needs, choose() then fixes
 * the filter for the gate, and pass 2 (filtered) returns each filtered sample. All
 * arithmetic is float64. The steps, their sources and the clutter model are in
 * docs/blocks/polarimetric_products_cf.md, "Clutter filtering and I/Q conventions";
 * the tables come from clutter_filter_tables.cc.
 */

#include "polarimetric/polarimetric_estimators.h"
#include "runtime/host_device.h"
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <cmath>

// Full unrolling keeps the per-gate arrays below in registers on the GPU; host
// compilers do not know the pragma.
#ifdef __CUDACC__
#define CUDADSP_UNROLL_FULLY _Pragma("unroll")
#else
#define CUDADSP_UNROLL_FULLY
#endif

namespace gr {
namespace cudadsp {
namespace core {

constexpr unsigned int regression_order_limit =
    static_cast<unsigned int>(clutter_filter_config::regression_order_limit);
constexpr unsigned int gmap_notch_limit =
    static_cast<unsigned int>(clutter_filter_config::gmap_notch_limit);
//! GMAP: the notch and one bin either side of it.
constexpr unsigned int gmap_bins_limit = 2 * gmap_notch_limit + 3;
//! GMAP: the Gaussian refill stops when the refilled power changes by less than
//! this fraction, or after gmap_max_iterations.
constexpr double gmap_convergence = 1e-4;
constexpr int gmap_max_iterations = 20;

/*!
 * What the filter rules need besides the pulses: plain data (passed to kernels by
 * value); the table pointers are host memory on the CPU backend, device memory on the
 * CUDA backend.
 */
struct clutter_filter_constants {
    clutter_filter_kind kind;
    bool only_where_detected;
    double cpa_threshold;
    double noise_h;             //!< H noise power (calibration; may change per call)
    unsigned int series_length; //!< L
    unsigned int max_order;     //!< regression: min(max_regression_order, L - 2)
    unsigned int max_notch;     //!< GMAP: min(gmap_notch_limit, (L - 4) / 2)
    //! Regression: fraction of the model clutter's power an order-p fit leaves.
    double residual_clutter[regression_order_limit + 1];
    //! GMAP: L times the fraction of the model clutter's power in bin +-k.
    double notch_clutter[gmap_notch_limit + 1];
    //! GMAP: mean of w[i + 1] w[i], what the window does to lag-1 correlations.
    double window_lag1_gain;
    //! Regression: orthonormal polynomials, basis[k * L + i], k = 0 .. max_order.
    const double* basis;
    //! GMAP: Blackman window, sum of w^2 = L.
    const double* window;
    /*! GMAP: w[i] e^{-j 2 pi k i / L} for |k| <= max_notch + 1, (re, im) at
     *  2 * ((k + max_notch + 1) * L + i). */
    const double* analysis;
    //! GMAP: e^{+j 2 pi k i / L} / L, same layout.
    const double* synthesis;
};

//! Pass-1 state and chosen filter of one gate; specialised per filter kind.
template <clutter_filter_kind Kind>
struct gate_clutter_filter;

template <>
struct gate_clutter_filter<clutter_filter_kind::none> {
    CUDADSP_HOST_DEVICE void
    add(const clutter_filter_constants&, int, unsigned int, double, double)
    {
    }
    CUDADSP_HOST_DEVICE void choose(const clutter_filter_constants&) {}
    CUDADSP_HOST_DEVICE void
    filtered(const clutter_filter_constants&, int, unsigned int, double&, double&) const
    {
    }
    //! The factor the filter's window puts on lag-1 correlations (1: no window).
    CUDADSP_HOST_DEVICE double lag1_gain(const clutter_filter_constants&) const
    {
        return 1.0;
    }
};

/*!
 * Regression (Torres and Zrnic 1999): the least-squares fit of a polynomial of order p
 * is the projection on the first p + 1 orthonormal polynomials phi_k, coefficients
 * c_k = sum_i phi_k[i] x[i]; the filtered series is x - sum_k c_k phi_k.
 */
template <>
struct gate_clutter_filter<clutter_filter_kind::regression> {
    complex64_sum coefficient[2][regression_order_limit + 1];
    unsigned int order = 0;

    //! Sample \p i of series \p s (0: a, 1: b).
    CUDADSP_HOST_DEVICE void
    add(const clutter_filter_constants& c, int s, unsigned int i, double re, double im)
    {
        const double* phi = c.basis + i;
        CUDADSP_UNROLL_FULLY
        for (unsigned int k = 0; k <= regression_order_limit; ++k) {
            if (k > c.max_order)
                break;
            const double p = phi[k * c.series_length];
            coefficient[s][k].re += p * re;
            coefficient[s][k].im += p * im;
        }
    }

    /*!
     * The order: the CNR is the power the order-1 fit of series a captures (order 0
     * where max_order is 0), less the noise such a fit captures, over the noise; the
     * order is the smallest that leaves at most the noise power of model clutter.
     */
    CUDADSP_HOST_DEVICE void choose(const clutter_filter_constants& c)
    {
        order = c.max_order;
        if (!(c.noise_h > 0.0))
            return;
        const unsigned int captured = c.max_order < 1 ? 0 : 1;
        double fit_power = 0.0;
        for (unsigned int k = 0; k <= captured; ++k)
            fit_power += coefficient[0][k].re * coefficient[0][k].re +
                         coefficient[0][k].im * coefficient[0][k].im;
        const double length = static_cast<double>(c.series_length);
        const double clutter = fit_power / length - (captured + 1) * c.noise_h / length;
        const double cnr = clutter > 0.0 ? clutter / c.noise_h : 0.0;
        for (unsigned int p = 0; p < c.max_order; ++p) {
            if (cnr * c.residual_clutter[p] <= 1.0) {
                order = p;
                return;
            }
        }
    }

    CUDADSP_HOST_DEVICE void filtered(const clutter_filter_constants& c,
                                      int s,
                                      unsigned int i,
                                      double& re,
                                      double& im) const
    {
        const double* phi = c.basis + i;
        CUDADSP_UNROLL_FULLY
        for (unsigned int k = 0; k <= regression_order_limit; ++k) {
            if (k > order)
                break;
            const double p = phi[k * c.series_length];
            re -= coefficient[s][k].re * p;
            im -= coefficient[s][k].im * p;
        }
    }

    CUDADSP_HOST_DEVICE double lag1_gain(const clutter_filter_constants&) const
    {
        return 1.0;
    }
};

//! The standard normal cumulative distribution.
CUDADSP_HOST_DEVICE double normal_cdf(double x)
{
    constexpr double sqrt_half = 0.70710678118654752440084436210485;
    return 0.5 * erfc(-x * sqrt_half);
}

/*!
 * GMAP (Siggia and Passarelli 2004) on the windowed series u[i] = w[i] x[i] with
 * spectrum X(k) = sum_i u[i] e^{-j 2 pi k i / L}, bin power S(k) = |X(k)|^2 / L^2
 * (the S(k) sum to the mean of |u|^2). Only the bins |k| <= max_notch + 1 are formed
 * (a direct DFT of those bins in pass 1), with the windowed power and lag-1
 * correlation of series a, which give the whole spectrum's power and first moment.
 */
template <>
struct gate_clutter_filter<clutter_filter_kind::gmap> {
    //! X(k) of series a and b, k = -max_notch - 1 .. max_notch + 1.
    complex64_sum bin[2][gmap_bins_limit];
    double power = 0.0;                  // sum |u_a|^2
    complex64_sum lag1;                  // sum u_a[i + 1] conj(u_a[i])
    double last_re = 0.0, last_im = 0.0; // u_a[i - 1]
    double gain[gmap_bins_limit];        // filtered X(k) / X(k) on the notch
    unsigned int notch = 0;              // half-width, bins

    CUDADSP_HOST_DEVICE void
    add(const clutter_filter_constants& c, int s, unsigned int i, double re, double im)
    {
        const unsigned int L = c.series_length;
        const unsigned int bins = 2 * c.max_notch + 3;
        CUDADSP_UNROLL_FULLY
        for (unsigned int k = 0; k < gmap_bins_limit; ++k) {
            if (k >= bins)
                break;
            const double* t = c.analysis + 2 * (k * L + i);
            bin[s][k].re += t[0] * re - t[1] * im;
            bin[s][k].im += t[0] * im + t[1] * re;
        }
        if (s == 0) {
            const double w = c.window[i];
            const double u_re = w * re, u_im = w * im;
            power += u_re * u_re + u_im * u_im;
            if (i > 0)
                add_product_conj(lag1, u_re, u_im, last_re, last_im);
            last_re = u_re;
            last_im = u_im;
        }
    }

    CUDADSP_HOST_DEVICE double bin_power(const clutter_filter_constants& c, int k) const
    {
        const complex64_sum& x = bin[0][k + static_cast<int>(c.max_notch) + 1];
        const double L = static_cast<double>(c.series_length);
        return (x.re * x.re + x.im * x.im) / (L * L);
    }

    /*!
     * The notch from the CNR (the power of bins -1, 0, 1 of series a less their noise,
     * over the noise), then the Gaussian refill: the spectrum outside the notch plus
     * the current refill gives power P and lag-1 correlation R (circular, from which
     * the notch bins' own terms are taken out and the refill's put in); the model is
     * noise N / L per bin plus a Gaussian of power P - N, mean frequency arg(R) / 2 pi
     * and width sqrt(ln((P - N) / |R|) / (2 pi^2)) cycles per sample, integrated over
     * each bin (with its aliases one period either side); the refill of bin k is the
     * model's value there. Repeat until the refilled power converges.
     */
    CUDADSP_HOST_DEVICE void choose(const clutter_filter_constants& c)
    {
        constexpr double two_pi = 6.283185307179586476925286766559;
        constexpr double two_pi_squared = 19.739208802178717237668981999752;
        const double L = static_cast<double>(c.series_length);
        const double noise = c.noise_h;
        const double noise_bin = noise / L;
        const int max_notch = static_cast<int>(c.max_notch);
        notch = c.max_notch;
        if (noise > 0.0) {
            const int central = max_notch < 1 ? 0 : 1;
            double centre = 0.0;
            for (int k = -central; k <= central; ++k)
                centre += bin_power(c, k);
            const double clutter = centre - (2 * central + 1) * noise_bin;
            const double cnr = clutter > 0.0 ? clutter / noise : 0.0;
            notch = static_cast<unsigned int>(central);
            for (int k = max_notch; k > central; --k) {
                if (cnr * c.notch_clutter[k] > 1.0) {
                    notch = static_cast<unsigned int>(k);
                    break;
                }
            }
        }
        const int n = static_cast<int>(notch);

        // The spectrum outside the notch: whole-spectrum sums less the notch bins.
        double rest_power = power / L;
        double rest_re = lag1.re / L, rest_im = lag1.im / L;
        double measured[gmap_bins_limit], refill[gmap_bins_limit];
        for (int k = -n; k <= n; ++k) {
            const double s = bin_power(c, k);
            measured[k + n] = s;
            refill[k + n] = noise_bin;
            rest_power -= s;
            rest_re -= s * cos(two_pi * k / L);
            rest_im -= s * sin(two_pi * k / L);
        }
        double refilled = (2 * n + 1) * noise_bin;
        for (int iteration = 0; iteration < gmap_max_iterations; ++iteration) {
            double total = rest_power, r_re = rest_re, r_im = rest_im;
            for (int k = -n; k <= n; ++k) {
                total += refill[k + n];
                r_re += refill[k + n] * cos(two_pi * k / L);
                r_im += refill[k + n] * sin(two_pi * k / L);
            }
            const double signal = total - noise;
            const double r = hypot(r_re, r_im);
            double next = 0.0;
            if (!(signal > 0.0) || !(r > 0.0)) {
                for (int k = -n; k <= n; ++k)
                    refill[k + n] = noise_bin;
                break;
            }
            const double mean = atan2(r_im, r_re) / two_pi;
            const double ratio = signal / r;
            // A Gaussian narrower than a tenth of a bin puts its power in one bin.
            const double width = fmax(
                ratio > 1.0 ? sqrt(2.0 * log(ratio) / two_pi_squared) : 0.0, 0.1 / L);
            for (int k = -n; k <= n; ++k) {
                double mass = 0.0;
                for (int alias = -1; alias <= 1; ++alias) {
                    const double centre = k / L - mean + alias;
                    mass += normal_cdf((centre + 0.5 / L) / width) -
                            normal_cdf((centre - 0.5 / L) / width);
                }
                refill[k + n] = noise_bin + signal * mass;
                next += refill[k + n];
            }
            const bool converged = fabs(next - refilled) <= gmap_convergence * next;
            refilled = next;
            if (converged)
                break;
        }
        // The refill extrapolates a Gaussian fitted to a few dozen noisy spectral
        // points; where the weather lies a few widths from the notch, errors in its
        // width raise the refill far above the weather's tail. Bound it by the
        // spectrum itself: a bin is never raised above what was measured in it (clutter
        // only adds power) nor above the larger of the two bins beside the notch.
        const double edge = fmax(bin_power(c, -n - 1), bin_power(c, n + 1));
        for (int k = -n; k <= n; ++k) {
            const double kept = fmin(refill[k + n], fmin(measured[k + n], edge));
            gain[k + n] = measured[k + n] > 0.0 ? sqrt(kept / measured[k + n]) : 0.0;
        }
    }

    //! u[i] + sum over the notch of (gain - 1) X(k) e^{j 2 pi k i / L} / L.
    CUDADSP_HOST_DEVICE void filtered(const clutter_filter_constants& c,
                                      int s,
                                      unsigned int i,
                                      double& re,
                                      double& im) const
    {
        const unsigned int L = c.series_length;
        const double w = c.window[i];
        double out_re = w * re, out_im = w * im;
        const unsigned int first = c.max_notch + 1 - notch;
        for (unsigned int j = 0; j <= 2 * notch; ++j) {
            const unsigned int k = first + j;
            const double g = gain[j] - 1.0;
            const double x_re = g * bin[s][k].re, x_im = g * bin[s][k].im;
            const double* t = c.synthesis + 2 * (k * L + i);
            out_re += x_re * t[0] - x_im * t[1];
            out_im += x_re * t[1] + x_im * t[0];
        }
        re = out_re;
        im = out_im;
    }

    CUDADSP_HOST_DEVICE double lag1_gain(const clutter_filter_constants& c) const
    {
        return c.window_lag1_gain;
    }
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_CLUTTER_FILTER_RULE_H */
