/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What the polarimetric engine tests share: the simulated echoes, the float64 reference
// written from the estimator definitions, its tolerance model and the comparisons.

#ifndef INCLUDED_QA_POLARIMETRIC_SUPPORT_H
#define INCLUDED_QA_POLARIMETRIC_SUPPORT_H

#include "qa_float_bits.h"
#include "qa_support.h"
#include "runtime/cuda_resources.h"
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {
namespace qa_polarimetric_cases {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

constexpr int nproducts = polarimetric_product_count;
const double pi = 3.14159265358979323846;
const double inf = std::numeric_limits<double>::infinity();
const double nan = std::numeric_limits<double>::quiet_NaN();

//! Model error of a moment, relative to the scale of its terms (see the file comment).
const double moment_eps = 1e-5;
//! dB per unit relative power error: 10 / ln 10.
const double db_per_neper = 4.3429448190325182;

using qa::bits_of;
using qa::poison_nan;

// ---------------------------------------------------------------------------------
// Simulated echoes
// ---------------------------------------------------------------------------------

using qa::gaussian_source;

struct simulation {
    double noise_h = 0.0; //!< receiver noise actually added
    double noise_v = 0.0;
    double snr_lo_db = -8.0; //!< per-gate SNRh range (power 10^U(-3, 3) without noise)
    double snr_hi_db = 45.0;
    //! Amplitude scale per gate: 10^U(-x, x) (tests that the moments are float64).
    double log10_amplitude_spread = 0.0;
    //! Velocity range as a fraction of the mode's Nyquist velocity.
    double velocity_fraction = 0.95;
};

struct pulses {
    std::vector<cfloat> h; //!< port 0 (co-polar in alternating mode)
    std::vector<cfloat> v; //!< port 1 (cross-polar in alternating mode)
};

/*!
 * Echo series per gate: two unit-power AR(1) processes s1, s2 with coefficient
 * a = |a| e^{j omega} (omega the Doppler phase per PRT, |a| from the spectrum width),
 *   h[n] = sqrt(S_h) s1[n] + noise,
 *   v[n] = sqrt(S_v) (rho e^{-j PhiDP} s1[n] + sqrt(1 - rho^2) s2[n]) + noise,
 * so E[h conj(v)] = rho sqrt(S_h S_v) e^{j PhiDP}. Alternating mode: port 0 takes h on
 * even pulses and v on odd ones, port 1 the other receiver (scaled down, unused).
 */
inline pulses simulate(const polarimetric_config& c,
                       std::size_t nradials,
                       std::uint64_t seed,
                       const simulation& s)
{
    const std::size_t G = c.ngates, M = c.pulses_per_radial;
    const bool alternating = c.mode == polarimetric_mode::alternating;
    const double nyquist =
        c.wavelength_m / ((alternating ? 8.0 : 4.0) * c.prt_s); // written from the spec
    pulses p;
    p.h.resize(nradials * M * G);
    p.v.resize(nradials * M * G);
    gaussian_source rng(seed);
    std::vector<cdouble> h(M), v(M);
    for (std::size_t r = 0; r < nradials; ++r) {
        for (std::size_t g = 0; g < G; ++g) {
            double sh;
            if (s.noise_h > 0.0)
                sh = s.noise_h *
                     std::pow(10.0, rng.uniform(s.snr_lo_db, s.snr_hi_db) / 10);
            else
                sh = std::pow(10.0, rng.uniform(-3.0, 3.0));
            const double zdr_db = rng.uniform(-2.0, 6.0);
            const double sv = sh / std::pow(10.0, zdr_db / 10.0);
            const double rho = rng.uniform(0.8, 0.999);
            const double phidp = rng.uniform(-pi, pi);
            const double velocity =
                rng.uniform(-1.0, 1.0) * s.velocity_fraction * nyquist;
            const double width = rng.uniform(0.2, 4.0);
            const double omega = -4.0 * pi * velocity * c.prt_s / c.wavelength_m;
            const double x = pi * width * c.prt_s / c.wavelength_m;
            const double a_mag = std::exp(-8.0 * x * x);
            const cdouble a = std::polar(a_mag, omega);
            const double innovation = std::sqrt(1.0 - a_mag * a_mag);
            const double scale = s.log10_amplitude_spread > 0.0
                                     ? std::pow(10.0,
                                                rng.uniform(-s.log10_amplitude_spread,
                                                            s.log10_amplitude_spread))
                                     : 1.0;
            const cdouble cross = std::polar(rho, -phidp);
            const double uncorrelated = std::sqrt(1.0 - rho * rho);
            cdouble s1 = rng.complex_normal(), s2 = rng.complex_normal();
            for (std::size_t n = 0; n < M; ++n) {
                if (n > 0) {
                    s1 = a * s1 + innovation * rng.complex_normal();
                    s2 = a * s2 + innovation * rng.complex_normal();
                }
                h[n] = scale * (std::sqrt(sh) * s1 + rng.complex_normal(s.noise_h));
                v[n] = scale * (std::sqrt(sv) * (cross * s1 + uncorrelated * s2) +
                                rng.complex_normal(s.noise_v));
            }
            for (std::size_t n = 0; n < M; ++n) {
                const std::size_t i = (r * M + n) * G + g;
                if (!alternating) {
                    p.h[i] = cfloat(h[n]);
                    p.v[i] = cfloat(v[n]);
                } else {
                    const bool h_pulse = n % 2 == 0;
                    p.h[i] = cfloat(h_pulse ? h[n] : v[n]);
                    p.v[i] = cfloat(0.1 * (h_pulse ? v[n] : h[n]));
                }
            }
        }
    }
    return p;
}

// ---------------------------------------------------------------------------------
// float64 reference, from the spec's formulas
// ---------------------------------------------------------------------------------

//! What one product of one gate must be.
struct expectation {
    double value = 0.0;  //!< NaN, +-inf or finite
    double tol = 0.0;    //!< absolute, for a finite value
    double period = 0.0; //!< > 0: compared modulo this (velocity, PhiDP)
    bool checked = true; //!< false: ill-conditioned, only checked to be written
    bool high_snr = false;
};

using gate_expectation = std::array<expectation, nproducts>;

//! Two float32 ulps of |value|: the engine's rounding and the reference's.
inline double f32_allowance(double value) { return std::fabs(value) * 0x1p-22 + 1e-38; }

inline double wrap_degrees(double d)
{
    double w = std::fmod(d, 360.0);
    if (w <= -180.0)
        w += 360.0;
    else if (w > 180.0)
        w -= 360.0;
    return w;
}

inline cdouble mul_conj(cfloat a, cfloat b) // a conj(b), in float64
{
    const double ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
    return { ar * br + ai * bi, ai * br - ar * bi };
}

inline double power_of(cfloat a)
{
    const double ar = a.real(), ai = a.imag();
    return ar * ar + ai * ai;
}

//! -ln(1 - x): the largest change of ln(P) that a relative error x of P causes.
inline double log_error(double relative) { return -std::log1p(-relative); }

//! What the products of one gate need of its pulses' second moments.
struct gate_moments {
    double Ph = 0.0, Pv = 0.0;
    double width_k = 0.0;
    double psi = 0.0, psi_error = 0.0; // Doppler phase per PRT and its bound
    double phidp_rad = 0.0, phidp_error = 0.0;
    double phidp_period = 360.0;
    bool phases_decided = true;
    double correlation_magnitude = 0.0;                    // |R1| or |R2h| + |R2v|
    double rho_numerator = 0.0, rho_numerator_error = 0.0; // |C| or (|C1| + |C2|) / 2
    bool alternating_rho_t = false;
};

/*!
 * The second moments of a simultaneous-mode gate (pulse n of port 0 at x[n * stride],
 * of port 1 at y[n * stride]) and what the products need of them.
 */
inline gate_moments simultaneous_moments(const polarimetric_config& c,
                                         const cfloat* x,
                                         const cfloat* y,
                                         std::size_t stride)
{
    const std::size_t M = c.pulses_per_radial;
    const double lambda = c.wavelength_m, T = c.prt_s;
    gate_moments m;
    cdouble R1h = 0.0, R1v = 0.0, C = 0.0;
    for (std::size_t n = 0; n < M; ++n) {
        m.Ph += power_of(x[n * stride]);
        m.Pv += power_of(y[n * stride]);
        C += mul_conj(x[n * stride], y[n * stride]);
    }
    for (std::size_t n = 0; n + 1 < M; ++n) {
        R1h += mul_conj(x[(n + 1) * stride], x[n * stride]);
        R1v += mul_conj(y[(n + 1) * stride], y[n * stride]);
    }
    m.Ph /= double(M);
    m.Pv /= double(M);
    C /= double(M);
    R1h /= double(M - 1);
    R1v /= double(M - 1);
    const cdouble R1 = R1h + R1v;
    const double eR = moment_eps * (m.Ph + m.Pv),
                 eC = moment_eps * std::sqrt(m.Ph * m.Pv);
    m.psi = std::arg(R1);
    m.phases_decided = eR < 0.5 * std::abs(R1) && eC < 0.5 * std::abs(C);
    if (m.phases_decided) {
        m.psi_error = std::asin(eR / std::abs(R1));
        m.phidp_error = std::asin(eC / std::abs(C));
    }
    m.phidp_rad = std::arg(C);
    m.correlation_magnitude = std::abs(R1);
    m.rho_numerator = std::abs(C);
    m.rho_numerator_error = eC;
    m.width_k = lambda / (2.0 * std::sqrt(2.0) * pi * T);
    return m;
}

/*!
 * The same for an alternating-mode gate: H pulses at even n, V pulses at odd n, all
 * at x[n * stride].
 */
inline gate_moments
alternating_moments(const polarimetric_config& c, const cfloat* x, std::size_t stride)
{
    const std::size_t K = c.pulses_per_radial / 2;
    const double lambda = c.wavelength_m, T = c.prt_s;
    gate_moments m;
    cdouble C1 = 0.0, C2 = 0.0, R2h = 0.0, R2v = 0.0;
    for (std::size_t n = 0; n < K; ++n) {
        m.Ph += power_of(x[2 * n * stride]);
        m.Pv += power_of(x[(2 * n + 1) * stride]);
        C1 += mul_conj(x[2 * n * stride], x[(2 * n + 1) * stride]);
    }
    for (std::size_t n = 0; n + 1 < K; ++n) {
        C2 += mul_conj(x[(2 * n + 2) * stride], x[(2 * n + 1) * stride]);
        R2h += mul_conj(x[(2 * n + 2) * stride], x[2 * n * stride]);
        R2v += mul_conj(x[(2 * n + 3) * stride], x[(2 * n + 1) * stride]);
    }
    m.Ph /= double(K);
    m.Pv /= double(K);
    C1 /= double(K);
    C2 /= double(K - 1);
    R2h /= double(K - 1);
    R2v /= double(K - 1);
    const double eC = moment_eps * std::sqrt(m.Ph * m.Pv);
    const double twice_psi = std::arg(C2 * std::conj(C1));
    m.psi = 0.5 * twice_psi;
    const cdouble A = C1 * std::polar(1.0, m.psi) + C2 * std::polar(1.0, -m.psi);
    m.phases_decided = eC < 0.5 * std::abs(C1) && eC < 0.5 * std::abs(C2);
    if (m.phases_decided) {
        m.psi_error = 0.5 * (std::asin(eC / std::abs(C1)) + std::asin(eC / std::abs(C2)));
        const double eA = 2.0 * eC + (std::abs(C1) + std::abs(C2)) * m.psi_error;
        m.phases_decided = eA < 0.5 * std::abs(A);
        if (m.phases_decided)
            m.phidp_error = std::asin(eA / std::abs(A));
        // arg(C2 conj C1) within its error of +-pi: psi may land on the other
        // branch, which turns A by 180 degrees.
        if (std::fabs(twice_psi) > pi - 2.0 * m.psi_error - 1e-12)
            m.phidp_period = 180.0;
    }
    m.phidp_rad = std::arg(A);
    m.correlation_magnitude = std::abs(R2h) + std::abs(R2v);
    m.rho_numerator = 0.5 * (std::abs(C1) + std::abs(C2));
    m.rho_numerator_error = eC;
    m.width_k = lambda / (4.0 * std::sqrt(2.0) * pi * T);
    m.alternating_rho_t = true;
    return m;
}

/*!
 * Products of the gate whose pulse n is x[n * stride] (port 0) and y[n * stride]
 * (port 1, simultaneous mode only).
 */
inline gate_expectation reference_gate(const polarimetric_config& c,
                                       const polarimetric_calibration& cal,
                                       const cfloat* x,
                                       const cfloat* y,
                                       std::size_t stride,
                                       std::size_t gate)
{
    const bool alternating = c.mode == polarimetric_mode::alternating;
    const gate_moments m = alternating ? alternating_moments(c, x, stride)
                                       : simultaneous_moments(c, x, y, stride);
    const double velocity_per_radian = c.wavelength_m / (4.0 * pi * c.prt_s);

    gate_expectation e;
    const double Sh = m.Ph - cal.noise_h, Sv = m.Pv - cal.noise_v, S = Sh + Sv;
    const double rel_h = Sh != 0.0 ? moment_eps * m.Ph / std::fabs(Sh) : inf;
    const double rel_v = Sv != 0.0 ? moment_eps * m.Pv / std::fabs(Sv) : inf;
    const double rel_s = S != 0.0 ? moment_eps * (m.Ph + m.Pv) / std::fabs(S) : inf;
    const bool h_decided = rel_h < 0.5, v_decided = rel_v < 0.5;

    // SNRh and censoring.
    expectation& snr = e[product_snr_h];
    snr.value = Sh <= 0.0            ? -inf
                : cal.noise_h == 0.0 ? inf
                                     : 10.0 * std::log10(Sh / cal.noise_h);
    snr.checked = h_decided;
    if (h_decided)
        snr.tol = db_per_neper * log_error(rel_h) + f32_allowance(snr.value);
    const bool censored = !(snr.value >= cal.snr_threshold_db);
    const bool censoring_decided =
        h_decided && (!std::isfinite(snr.value) ||
                      std::fabs(snr.value - cal.snr_threshold_db) > snr.tol);
    const double snr_v_db = Sv > 0.0 && cal.noise_v > 0.0
                                ? 10.0 * std::log10(Sv / cal.noise_v)
                                : (Sv > 0.0 ? inf : -inf);
    const bool high_snr = snr.value >= 20.0 && snr_v_db >= 20.0;

    // Zh
    expectation& zh = e[product_zh];
    const double r_km = c.gate_range_m(gate) / 1000.0;
    zh.value = 10.0 * std::log10(Sh) + cal.zcal_db + 20.0 * std::log10(r_km);
    zh.checked = h_decided;
    zh.tol = db_per_neper * log_error(std::min(rel_h, 0.49)) + f32_allowance(zh.value);

    // ZDR
    expectation& zdr = e[product_zdr];
    // NaN where S_v <= 0 (documented), though S_h / S_v > 0 when both are negative.
    zdr.value = Sv > 0.0 ? 10.0 * std::log10(Sh / Sv) + cal.zdr_cal_db : nan;
    zdr.checked = h_decided && v_decided;
    zdr.tol = db_per_neper *
                  (log_error(std::min(rel_h, 0.49)) + log_error(std::min(rel_v, 0.49))) +
              f32_allowance(zdr.value);

    // Velocity: compared modulo the unambiguous interval 2 v_N.
    expectation& vel = e[product_velocity];
    vel.value = -velocity_per_radian * m.psi;
    vel.period = 2.0 * c.wavelength_m / ((alternating ? 8.0 : 4.0) * c.prt_s);
    vel.checked = m.phases_decided;
    vel.tol = velocity_per_radian * m.psi_error + f32_allowance(vel.period);

    // Width: ratio = S / |R|, width = k sqrt(ln ratio) above 1, else 0.
    expectation& width = e[product_width];
    const double ratio = S / m.correlation_magnitude;
    const double rel_r = moment_eps * (m.Ph + m.Pv) / m.correlation_magnitude;
    const double L = std::log(ratio); // NaN for ratio < 0: width 0 then
    auto width_of = [&](double l) { return l > 0.0 ? m.width_k * std::sqrt(l) : 0.0; };
    width.value = ratio > 1.0 ? m.width_k * std::sqrt(L) : 0.0;
    double dL = 0.0;
    if (rel_s < 0.5 && rel_r < 0.5) {
        dL = log_error(rel_s) + log_error(rel_r);
        if (ratio > 0.0) {
            width.tol =
                std::max(width_of(L + dL) - width.value, width.value - width_of(L - dL)) +
                f32_allowance(width.value);
        } else {
            width.tol = 0.0;
        }
    } else {
        width.checked = false;
    }

    // PhiDP, wrapped to (-180, 180].
    expectation& phidp = e[product_phidp];
    phidp.value = wrap_degrees(m.phidp_rad * 180.0 / pi - cal.phidp_offset_deg);
    phidp.period = m.phidp_period;
    phidp.checked = m.phases_decided;
    phidp.tol = m.phidp_error * 180.0 / pi + f32_allowance(180.0);
    if (high_snr)
        phidp.tol = std::min(phidp.tol, 1e-3);
    phidp.high_snr = high_snr;

    // RhoHV
    expectation& rho = e[product_rhohv];
    double rho_t = 1.0;
    if (m.alternating_rho_t && ratio > 1.0)
        rho_t = std::pow(ratio, -0.25);
    rho.value = m.rho_numerator / (std::sqrt(Sh * Sv) * rho_t);
    double rel_rho =
        0.5 * (log_error(std::min(rel_h, 0.49)) + log_error(std::min(rel_v, 0.49)));
    rel_rho += m.rho_numerator_error / m.rho_numerator;
    if (m.alternating_rho_t)
        rel_rho += 0.25 * dL;
    rho.checked = h_decided && v_decided && rel_rho < 0.5 &&
                  (!m.alternating_rho_t || width.checked);
    rho.tol = std::fabs(rho.value) * 2.0 * rel_rho + f32_allowance(rho.value);

    // Clutter products without a filter: CLUT exactly 0; CPA = |sum h| / sum |h| over
    // the H pulses, scale-free, its error relative to sum |h| (the CPA scale, 1).
    e[product_clutter_removed_db].value = 0.0;
    expectation& cpa = e[product_cpa];
    cdouble h_sum = 0.0;
    double h_magnitude_sum = 0.0;
    const std::size_t h_step = alternating ? 2 : 1;
    for (std::size_t n = 0; n < c.pulses_per_radial; n += h_step) {
        const cdouble x_n(x[n * stride].real(), x[n * stride].imag());
        h_sum += x_n;
        h_magnitude_sum += std::abs(x_n);
    }
    cpa.value = h_magnitude_sum > 0.0 ? std::abs(h_sum) / h_magnitude_sum : 0.0;
    cpa.tol = moment_eps + f32_allowance(cpa.value);

    for (int p = 0; p < nproducts; ++p)
        e[p].high_snr = high_snr;

    if (!censoring_decided) {
        for (int p = 0; p < product_snr_h; ++p)
            e[p].checked = false;
    } else if (censored) {
        for (int p = 0; p < product_snr_h; ++p) {
            e[p].value = nan;
            e[p].checked = true;
        }
    }
    return e;
}

//! Reference expectations for nradials radials: [radial * ngates + gate].
inline std::vector<gate_expectation> reference(const polarimetric_config& c,
                                               const polarimetric_calibration& cal,
                                               const cfloat* h,
                                               const cfloat* v,
                                               std::size_t nradials)
{
    const std::size_t G = c.ngates, M = c.pulses_per_radial;
    std::vector<gate_expectation> out(nradials * G);
    for (std::size_t r = 0; r < nradials; ++r)
        for (std::size_t g = 0; g < G; ++g)
            out[r * G + g] =
                reference_gate(c, cal, h + r * M * G + g, v + r * M * G + g, G, g);
    return out;
}

// ---------------------------------------------------------------------------------
// Running the engine, comparing
// ---------------------------------------------------------------------------------

//! Seven product arrays, poisoned before the engine writes them.
struct product_set {
    std::vector<float> p[nproducts];

    explicit product_set(std::size_t n = 0)
    {
        for (auto& a : p)
            a.assign(n, poison_nan());
    }
    std::size_t size() const { return p[0].size(); }
    std::array<float*, nproducts> pointers()
    {
        std::array<float*, nproducts> ptr;
        for (int i = 0; i < nproducts; ++i)
            ptr[i] = p[i].data();
        return ptr;
    }
};

inline product_set run(polarimetric_processor& engine,
                       const cfloat* h,
                       const cfloat* v,
                       std::size_t nradials)
{
    product_set out(nradials * engine.config().ngates);
    auto ptr = out.pointers();
    engine.process(h, v, nradials, ptr.data());
    return out;
}

inline product_set
run(polarimetric_processor& engine, const pulses& p, std::size_t nradials)
{
    return run(engine, p.h.data(), p.v.data(), nradials);
}

//! Largest error seen per product, as a fraction of its tolerance and absolute.
struct error_stats {
    double worst_fraction[nproducts] = {};
    double worst_abs[nproducts] = {};
    std::size_t compared[nproducts] = {};
    std::size_t nan_expected = 0;
    std::size_t unchecked = 0;

    void print(const std::string& what) const
    {
        std::ostringstream s;
        s << "qa_polarimetric: " << what << ": max |error| (fraction of tolerance):";
        s << std::setprecision(2);
        for (int p = 0; p < nproducts; ++p)
            s << " " << product_name(p) << " " << worst_abs[p] << " ("
              << worst_fraction[p] << ")";
        s << "; " << nan_expected << " NaN expected, " << unchecked
          << " ill-conditioned values not compared";
        std::cout << s.str() << std::endl;
    }
};

inline std::string
describe(const std::string& what, int p, std::size_t index, std::size_t ngates)
{
    std::ostringstream s;
    s << what << ": " << product_name(p) << " radial " << index / ngates << " gate "
      << index % ngates;
    return s.str();
}

inline void check_products(const std::vector<gate_expectation>& expected,
                           const product_set& actual,
                           const polarimetric_config& c,
                           const std::string& what,
                           error_stats* stats = nullptr)
{
    CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": size", expected.size(), actual.size());
    const double nyquist = c.nyquist_velocity();
    for (std::size_t i = 0; i < expected.size(); ++i) {
        for (int p = 0; p < nproducts; ++p) {
            const expectation& e = expected[i][p];
            const float got = actual.p[p][i];
            auto fail = [&](const char* why) {
                std::ostringstream msg;
                msg.precision(10);
                msg << describe(what, p, i, c.ngates) << ": expected " << e.value
                    << " +- " << e.tol << (e.checked ? "" : " (not compared)") << ", got "
                    << got << ": " << why;
                CPPUNIT_FAIL(msg.str());
            };
            if (bits_of(got) == qa::poison_nan_bits)
                fail("never written");
            // Ranges, whatever the reference says.
            if (std::isfinite(got)) {
                if (p == product_phidp && !(got >= -180.0f && got <= 180.0f))
                    fail("PhiDP outside [-180, 180]");
                if (p == product_velocity && !(std::fabs(got) <= nyquist * (1 + 1e-6)))
                    fail("velocity beyond the Nyquist velocity");
                if ((p == product_width || p == product_rhohv) && got < 0.0f)
                    fail("negative");
            }
            if (!e.checked) {
                if (stats)
                    ++stats->unchecked;
                continue;
            }
            if (std::isnan(e.value)) {
                if (stats)
                    ++stats->nan_expected;
                if (!std::isnan(got))
                    fail("NaN expected");
                continue;
            }
            if (std::isinf(e.value)) {
                if (double(got) != e.value)
                    fail("infinity expected");
                continue;
            }
            if (!std::isfinite(got))
                fail("finite value expected");
            double d = double(got) - e.value;
            if (e.period > 0.0)
                d -= e.period * std::round(d / e.period);
            d = std::fabs(d);
            if (!(d <= e.tol))
                fail("outside the tolerance");
            if (stats) {
                stats->worst_abs[p] = std::max(stats->worst_abs[p], d);
                if (e.tol > 0.0)
                    stats->worst_fraction[p] =
                        std::max(stats->worst_fraction[p], d / e.tol);
                ++stats->compared[p];
            }
        }
    }
}

//! Same bits, any NaN matching any NaN (never the poison).
inline void assert_identical(const product_set& expected,
                             const product_set& actual,
                             std::size_t ngates,
                             const std::string& what)
{
    CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": size", expected.size(), actual.size());
    for (int p = 0; p < nproducts; ++p) {
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const float a = expected.p[p][i], b = actual.p[p][i];
            if (bits_of(b) == qa::poison_nan_bits)
                CPPUNIT_FAIL(describe(what, p, i, ngates) + ": never written");
            if (std::isnan(a) && std::isnan(b))
                continue;
            if (bits_of(a) != bits_of(b)) {
                std::ostringstream msg;
                msg.precision(10);
                msg << describe(what, p, i, ngates) << ": expected " << a << ", got "
                    << b;
                CPPUNIT_FAIL(msg.str());
            }
        }
    }
}

//! Distance in float32 ulps (finite values of either sign).
inline std::int64_t ulp_distance(float a, float b)
{
    auto ordered = [](float f) {
        std::int32_t i;
        std::memcpy(&i, &f, sizeof i);
        return i < 0 ? std::int64_t(std::numeric_limits<std::int32_t>::min()) - i
                     : std::int64_t(i);
    };
    return std::llabs(ordered(a) - ordered(b));
}

/*!
 * CUDA against the CPU engine. Both form the same float64 sums in the same order, so the
 * moments agree up to fused multiply-adds (nvcc contracts, the host compiler here does
 * not); the products then differ only where CUDA's and the host libm's log10, atan2,
 * sqrt, pow differ by an ulp of float64, which float32 rounding almost always hides.
 * Allowed: 4 float32 ulps, or 1e-7 of the product's scale (|value| near 0 after
 * cancellation, or width 0 against a tiny width at the ratio = 1 threshold).
 */
inline void assert_close_to_cpu(const product_set& cpu,
                                const product_set& cuda,
                                const polarimetric_config& c,
                                const std::string& what)
{
    CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": size", cpu.size(), cuda.size());
    const double scale[nproducts] = {
        100.0, 10.0, c.nyquist_velocity(), c.nyquist_velocity(), 180.0, 1.0, 100.0,
        10.0,  1.0
    };
    std::int64_t worst_ulps = 0;
    std::size_t differing = 0;
    for (int p = 0; p < nproducts; ++p) {
        for (std::size_t i = 0; i < cpu.size(); ++i) {
            const float a = cpu.p[p][i], b = cuda.p[p][i];
            if (bits_of(b) == qa::poison_nan_bits)
                CPPUNIT_FAIL(describe(what, p, i, c.ngates) + ": never written");
            if ((std::isnan(a) && std::isnan(b)) || bits_of(a) == bits_of(b))
                continue;
            ++differing;
            std::ostringstream msg;
            msg.precision(10);
            msg << describe(what, p, i, c.ngates) << ": cpu " << a << ", cuda " << b;
            CPPUNIT_ASSERT_MESSAGE(msg.str(), std::isfinite(a) && std::isfinite(b));
            double d = std::fabs(double(a) - double(b));
            if (p == product_velocity) // +-v_N are the same velocity
                d = std::min(d, std::fabs(d - 2.0 * c.nyquist_velocity()));
            if (p == product_phidp)
                d = std::min(d, std::fabs(d - 360.0));
            const std::int64_t ulps = ulp_distance(a, b);
            worst_ulps = std::max(worst_ulps, ulps);
            CPPUNIT_ASSERT_MESSAGE(msg.str(), ulps <= 4 || d <= 1e-7 * scale[p]);
        }
    }
    std::cout << "qa_polarimetric: " << what << ": " << differing << " of "
              << nproducts * cpu.size()
              << " values differ from the CPU engine, by at most " << worst_ulps
              << " float32 ulps" << std::endl;
}

inline polarimetric_config make_config(const std::string& device,
                                       polarimetric_mode mode,
                                       std::size_t ngates,
                                       std::size_t M)
{
    polarimetric_config c;
    c.device = device;
    c.mode = mode;
    c.ngates = ngates;
    c.pulses_per_radial = M;
    c.wavelength_m = 0.0531;
    c.prt_s = 1e-3;
    c.first_gate_m = 0.0;
    c.gate_spacing_m = 150.0;
    c.calibration.zcal_db = -33.0;
    c.calibration.zdr_cal_db = 0.25;
    c.calibration.phidp_offset_deg = 17.0;
    c.calibration.noise_h = 0.02;
    c.calibration.noise_v = 0.025;
    return c;
}

inline simulation noise_of(const polarimetric_config& c)
{
    simulation s;
    s.noise_h = c.calibration.noise_h;
    s.noise_v = c.calibration.noise_v;
    return s;
}

inline std::string mode_name(polarimetric_mode m) { return to_string(m); }

//! The shapes of the brief: every mode's M, gate counts 1, 7, 2242, radials 1, 3, 50.
struct shape {
    polarimetric_mode mode;
    std::size_t M, ngates, nradials;
};

inline std::vector<shape> shapes()
{
    std::vector<shape> out;
    for (auto mode :
         { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
        const std::vector<std::size_t> Ms = mode == polarimetric_mode::simultaneous
                                                ? std::vector<std::size_t>{ 2, 3, 36 }
                                                : std::vector<std::size_t>{ 4, 6, 36 };
        for (std::size_t M : Ms)
            for (std::size_t G : { 1, 7, 2242 })
                // Under a sanitizer 11 radials instead of 50: the kernel's grid
                // still ends in a partial block at 2242 gates.
                for (std::size_t R :
                     { std::size_t(1), std::size_t(3), qa::scaled<std::size_t>(50, 11) })
                    out.push_back({ mode, M, G, R });
    }
    return out;
}


} // namespace qa_polarimetric_cases
} // namespace core
} // namespace cudadsp
} // namespace gr

#endif // INCLUDED_QA_POLARIMETRIC_SUPPORT_H
