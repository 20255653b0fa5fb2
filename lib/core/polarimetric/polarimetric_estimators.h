/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_POLARIMETRIC_ESTIMATORS_H
#define INCLUDED_CUDADSP_CORE_POLARIMETRIC_ESTIMATORS_H

/*
 * The polarimetric estimators, shared by the CPU and CUDA backends so that both
 * accumulate the same sums in the same order and derive the products with the same
 * formulas. Everything here is float64; only the products are rounded to float32.
 * The formulas, their sign conventions and references are in
 * docs/blocks/polarimetric_products_cf.md.
 */

#include "runtime/host_device.h"
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <cmath>
#include <cstddef>

namespace gr {
namespace cudadsp {
namespace core {

struct complex64_sum {
    double re = 0.0;
    double im = 0.0;
};

//! a * conj(b) added to \p sum.
CUDADSP_HOST_DEVICE void
add_product_conj(complex64_sum& sum, double a_re, double a_im, double b_re, double b_im)
{
    sum.re += a_re * b_re + a_im * b_im;
    sum.im += a_im * b_re - a_re * b_im;
}

/*!
 * Means over one radial at one gate. Meaning of the correlations by mode:
 *  simultaneous: lag_h = R1_h, lag_v = R1_v (lag T), cross_a = C = <h conj(v)>,
 *                cross_b unused;
 *  alternating:  lag_h = R2_h, lag_v = R2_v (lag 2T), cross_a = C1 = <x[2n] conj
 *                x[2n+1]>, cross_b = C2 = <x[2n+2] conj x[2n+1]>.
 */
struct polarimetric_moments {
    double power_h = 0.0;
    double power_v = 0.0;
    complex64_sum lag_h, lag_v, cross_a, cross_b;
};

/*!
 * Running sums of one gate's pulse series, fed one pulse at a time in time order.
 * \p Mode is the transmission scheme; the sums are divided by their term counts in
 * moments().
 */
template <polarimetric_mode Mode>
struct moment_accumulator;

template <>
struct moment_accumulator<polarimetric_mode::simultaneous> {
    double power_h = 0.0, power_v = 0.0;
    complex64_sum lag_h, lag_v, cross;
    double prev_h_re = 0.0, prev_h_im = 0.0, prev_v_re = 0.0, prev_v_im = 0.0;

    //! Pulse \p n of the radial: H sample (h_re, h_im), V sample (v_re, v_im).
    CUDADSP_HOST_DEVICE void
    add(std::size_t n, double h_re, double h_im, double v_re, double v_im)
    {
        power_h += h_re * h_re + h_im * h_im;
        power_v += v_re * v_re + v_im * v_im;
        add_product_conj(cross, h_re, h_im, v_re, v_im);
        if (n > 0) {
            add_product_conj(lag_h, h_re, h_im, prev_h_re, prev_h_im);
            add_product_conj(lag_v, v_re, v_im, prev_v_re, prev_v_im);
        }
        prev_h_re = h_re;
        prev_h_im = h_im;
        prev_v_re = v_re;
        prev_v_im = v_im;
    }

    CUDADSP_HOST_DEVICE polarimetric_moments moments(std::size_t pulses) const
    {
        const double inv_all = 1.0 / static_cast<double>(pulses);
        const double inv_lag = 1.0 / static_cast<double>(pulses - 1);
        polarimetric_moments m;
        m.power_h = power_h * inv_all;
        m.power_v = power_v * inv_all;
        m.lag_h = { lag_h.re * inv_lag, lag_h.im * inv_lag };
        m.lag_v = { lag_v.re * inv_lag, lag_v.im * inv_lag };
        m.cross_a = { cross.re * inv_all, cross.im * inv_all };
        return m;
    }
};

template <>
struct moment_accumulator<polarimetric_mode::alternating> {
    double power_h = 0.0, power_v = 0.0;
    complex64_sum lag_h, lag_v, cross_a, cross_b;
    // The last H (even) and V (odd) co-polar samples.
    double last_h_re = 0.0, last_h_im = 0.0, last_v_re = 0.0, last_v_im = 0.0;

    //! Pulse \p n of the radial: co-polar sample (x_re, x_im); the cross-polar input
    //! does not enter the products.
    CUDADSP_HOST_DEVICE void
    add(std::size_t n, double x_re, double x_im, double /*cross_re*/, double /*cross_im*/)
    {
        const double power = x_re * x_re + x_im * x_im;
        if (n % 2 == 0) { // H pulse
            power_h += power;
            if (n > 0) {
                add_product_conj(cross_b, x_re, x_im, last_v_re, last_v_im);
                add_product_conj(lag_h, x_re, x_im, last_h_re, last_h_im);
            }
            last_h_re = x_re;
            last_h_im = x_im;
        } else { // V pulse
            power_v += power;
            add_product_conj(cross_a, last_h_re, last_h_im, x_re, x_im);
            if (n > 1)
                add_product_conj(lag_v, x_re, x_im, last_v_re, last_v_im);
            last_v_re = x_re;
            last_v_im = x_im;
        }
    }

    CUDADSP_HOST_DEVICE polarimetric_moments moments(std::size_t pulses) const
    {
        const double inv_half = 1.0 / static_cast<double>(pulses / 2);
        const double inv_lag = 1.0 / static_cast<double>(pulses / 2 - 1);
        polarimetric_moments m;
        m.power_h = power_h * inv_half;
        m.power_v = power_v * inv_half;
        m.lag_h = { lag_h.re * inv_lag, lag_h.im * inv_lag };
        m.lag_v = { lag_v.re * inv_lag, lag_v.im * inv_lag };
        m.cross_a = { cross_a.re * inv_half, cross_a.im * inv_half };
        m.cross_b = { cross_b.re * inv_lag, cross_b.im * inv_lag };
        return m;
    }
};

/*!
 * What the product formulas need besides the moments, precomputed once per call in
 * float64 (plain data, passed to kernels by value).
 */
struct product_constants {
    double velocity_per_radian; //!< -lambda / (4 pi T)
    double width_scale;         //!< lambda / (2 sqrt(2) pi T), / 2 when alternating
    double zcal_db, zdr_cal_db, phidp_offset_deg;
    double noise_h, noise_v, snr_threshold_db;
    double first_gate_km, gate_spacing_km;
};

CUDADSP_HOST_DEVICE double magnitude(const complex64_sum& z) { return hypot(z.re, z.im); }

//! Degrees wrapped to (-180, 180].
CUDADSP_HOST_DEVICE double wrap_degrees(double degrees)
{
    double wrapped = fmod(degrees, 360.0);
    if (wrapped > 180.0)
        wrapped -= 360.0;
    else if (wrapped <= -180.0)
        wrapped += 360.0;
    return wrapped;
}

//! The products of one gate, indexed by polarimetric_product.
struct gate_products {
    float value[polarimetric_product_count];
};

//! The seven products of gate \p gate from its moments.
template <polarimetric_mode Mode>
CUDADSP_HOST_DEVICE gate_products compute_products(const polarimetric_moments& m,
                                                   const product_constants& k,
                                                   std::size_t gate)
{
    gate_products out;
    constexpr double degrees_per_radian = 57.295779513082320876798154814105;
    const double signal_h = m.power_h - k.noise_h;
    const double signal_v = m.power_v - k.noise_v;
    const double signal = signal_h + signal_v;

    // SNRh in dB: +inf with no noise configured, -inf with no signal left.
    const double snr_h_db =
        signal_h > 0.0 ? 10.0 * log10(signal_h / k.noise_h) : -INFINITY;
    out.value[product_snr_h] = static_cast<float>(snr_h_db);
    if (!(snr_h_db >= k.snr_threshold_db)) {
        for (int p = 0; p < product_snr_h; ++p)
            out.value[p] = NAN;
        return out;
    }

    const double range_km =
        k.first_gate_km + static_cast<double>(gate) * k.gate_spacing_km;
    const double zh = 10.0 * log10(signal_h) + k.zcal_db + 20.0 * log10(range_km);
    const double zdr = signal_v > 0.0 ? 10.0 * log10(signal_h / signal_v) + k.zdr_cal_db
                                      : static_cast<double>(NAN);

    double doppler_phase, phidp_rad, rhohv, width_ratio;
    const double signal_hv = sqrt(signal_h * signal_v); // NaN when signal_v < 0
    if (Mode == polarimetric_mode::simultaneous) {
        const complex64_sum r1 = { m.lag_h.re + m.lag_v.re, m.lag_h.im + m.lag_v.im };
        doppler_phase = atan2(r1.im, r1.re);
        width_ratio = signal / magnitude(r1);
        phidp_rad = atan2(m.cross_a.im, m.cross_a.re);
        rhohv = magnitude(m.cross_a) / signal_hv;
    } else {
        // C1 has phase PhiDP - psi, C2 has PhiDP + psi (psi: Doppler phase per PRT).
        const complex64_sum& c1 = m.cross_a;
        const complex64_sum& c2 = m.cross_b;
        complex64_sum c2_c1conj;
        add_product_conj(c2_c1conj, c2.re, c2.im, c1.re, c1.im);
        doppler_phase = 0.5 * atan2(c2_c1conj.im, c2_c1conj.re);
        const double cos_psi = cos(doppler_phase), sin_psi = sin(doppler_phase);
        // C1 e^{j psi} + C2 e^{-j psi}: both rotated to the phase PhiDP.
        const double aligned_re =
            c1.re * cos_psi - c1.im * sin_psi + c2.re * cos_psi + c2.im * sin_psi;
        const double aligned_im =
            c1.im * cos_psi + c1.re * sin_psi + c2.im * cos_psi - c2.re * sin_psi;
        phidp_rad = atan2(aligned_im, aligned_re);
        width_ratio = signal / (magnitude(m.lag_h) + magnitude(m.lag_v));
        // Doppler-spectrum correlation at lag T from lag 2T (Gaussian spectrum).
        const double rho_t = width_ratio > 1.0 ? pow(width_ratio, -0.25) : 1.0;
        rhohv = (magnitude(c1) + magnitude(c2)) / (2.0 * signal_hv * rho_t);
    }
    const double width = width_ratio > 1.0 ? k.width_scale * sqrt(log(width_ratio)) : 0.0;

    out.value[product_zh] = static_cast<float>(zh);
    out.value[product_zdr] = static_cast<float>(zdr);
    out.value[product_velocity] =
        static_cast<float>(k.velocity_per_radian * doppler_phase);
    out.value[product_width] = static_cast<float>(width);
    out.value[product_phidp] = static_cast<float>(
        wrap_degrees(phidp_rad * degrees_per_radian - k.phidp_offset_deg));
    out.value[product_rhohv] = static_cast<float>(rhohv);
    return out;
}

//! The constants of compute_products() for \p config.
product_constants make_product_constants(const polarimetric_config& config);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_POLARIMETRIC_ESTIMATORS_H */
