/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Polarimetric product engine, CPU and CUDA backends, against a float64 reference
// written here from the estimator definitions in docs/blocks/polarimetric_products_cf.md
// (not from the engine's polarimetric_estimators.h). Inputs are simulated
// dual-polarisation weather echoes: per gate, correlated complex Gaussian pulse series
// with a chosen Doppler shift, spectrum width, ZDR, PhiDP and RhoHV, plus receiver
// noise, from fixed seeds.
//
// Tolerances. The engine and the reference both form the moments in float64 from the
// same float32 samples, so in practice they agree to the float32 rounding of the
// outputs (the log lines print the largest error, as a fraction of its tolerance). The
// test allows more, by a stated error model: every moment may carry an error of
// eps = 1e-5 relative to the scale of the terms it sums (P_h for sums of h times h, P_v
// for v times v, sqrt(P_h P_v) for h times v; by Cauchy-Schwarz no term of a lag or
// cross sum is larger on average, while the sum itself may cancel). Each product's
// tolerance is that error carried through its formula to first order (through asin for
// phases, and the exact square-root bound for the width near its ratio = 1 threshold),
// plus two float32 ulps of the value. In particular: Zh, SNRh and ZDR within
// 4.343e-5 dB (10 log10(1 + 1e-5)) per power at high SNR, growing as P/S where the
// noise subtraction S = P - N cancels; PhiDP within 1e-3 degrees wherever both
// channels' SNR is >= 20 dB. Where the model cannot decide (|S| within a few eps of 0, a
// correlation no larger than its error, SNRh within its tolerance of the threshold) the
// value is only checked to have been written. A float32 accumulation over a few dozen
// pulses stays inside 1e-5, so the dynamic-range case (powers 1e-36 to 1e36, beyond
// float32's range once squared and summed) is the one that shows the sums are float64.

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

namespace {

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
pulses simulate(const polarimetric_config& c,
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
double f32_allowance(double value) { return std::fabs(value) * 0x1p-22 + 1e-38; }

double wrap_degrees(double d)
{
    double w = std::fmod(d, 360.0);
    if (w <= -180.0)
        w += 360.0;
    else if (w > 180.0)
        w -= 360.0;
    return w;
}

cdouble mul_conj(cfloat a, cfloat b) // a conj(b), in float64
{
    const double ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
    return { ar * br + ai * bi, ai * br - ar * bi };
}

double power_of(cfloat a)
{
    const double ar = a.real(), ai = a.imag();
    return ar * ar + ai * ai;
}

//! -ln(1 - x): the largest change of ln(P) that a relative error x of P causes.
double log_error(double relative) { return -std::log1p(-relative); }

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
gate_moments simultaneous_moments(const polarimetric_config& c,
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
gate_moments
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
gate_expectation reference_gate(const polarimetric_config& c,
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
std::vector<gate_expectation> reference(const polarimetric_config& c,
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

product_set run(polarimetric_processor& engine,
                const cfloat* h,
                const cfloat* v,
                std::size_t nradials)
{
    product_set out(nradials * engine.config().ngates);
    auto ptr = out.pointers();
    engine.process(h, v, nradials, ptr.data());
    return out;
}

product_set run(polarimetric_processor& engine, const pulses& p, std::size_t nradials)
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

std::string
describe(const std::string& what, int p, std::size_t index, std::size_t ngates)
{
    std::ostringstream s;
    s << what << ": " << product_name(p) << " radial " << index / ngates << " gate "
      << index % ngates;
    return s.str();
}

void check_products(const std::vector<gate_expectation>& expected,
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
void assert_identical(const product_set& expected,
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
std::int64_t ulp_distance(float a, float b)
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
void assert_close_to_cpu(const product_set& cpu,
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

polarimetric_config make_config(const std::string& device,
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

simulation noise_of(const polarimetric_config& c)
{
    simulation s;
    s.noise_h = c.calibration.noise_h;
    s.noise_v = c.calibration.noise_v;
    return s;
}

std::string mode_name(polarimetric_mode m) { return to_string(m); }

//! The shapes of the brief: every mode's M, gate counts 1, 7, 2242, radials 1, 3, 50.
struct shape {
    polarimetric_mode mode;
    std::size_t M, ngates, nradials;
};

std::vector<shape> shapes()
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

} // namespace

class qa_polarimetric : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_polarimetric);
    CPPUNIT_TEST(names_modes_and_nyquist);
    CPPUNIT_TEST(reference_matches_known_values);
    CPPUNIT_TEST(bad_configuration_names_the_field);
    QA_BACKEND_TEST(shapes_against_float64);
    QA_BACKEND_TEST(known_tones);
    QA_BACKEND_TEST(dynamic_range_needs_float64_sums);
    QA_BACKEND_TEST(censoring_and_infinities);
    QA_BACKEND_TEST(calibration_changes);
    QA_BACKEND_TEST(alternating_ignores_cross_polar);
    QA_BACKEND_TEST(zero_radials);
    QA_BACKEND_TEST(unaligned_pointers_and_split_calls);
    CPPUNIT_TEST(cpu_engine_has_no_device_entry);
    QA_CUDA_TEST(pinned_host_buffers);
    QA_CUDA_TEST(device_pointers_and_streams);
    QA_CUDA_TEST(chunking_invariance);
    QA_CUDA_TEST(many_radials_match_cpu);
    CPPUNIT_TEST_SUITE_END();

public:
    void shapes_against_float64(const std::string& device)
    {
        error_stats stats[2];
        std::uint64_t seed = 1000;
        for (const shape& s : shapes()) {
            auto c = make_config(device, s.mode, s.ngates, s.M);
            c.first_gate_m = s.ngates == 7 ? 0.0 : 1234.5;
            const auto p = simulate(c, s.nradials, ++seed, noise_of(c));
            auto engine = polarimetric_processor::make(c);
            std::ostringstream what;
            what << device << " " << mode_name(s.mode) << " M=" << s.M
                 << " ngates=" << s.ngates << " nradials=" << s.nradials;
            check_products(
                reference(c, c.calibration, p.h.data(), p.v.data(), s.nradials),
                run(*engine, p, s.nradials),
                c,
                what.str(),
                &stats[s.mode == polarimetric_mode::alternating]);
        }
        stats[0].print(device + " simultaneous shapes");
        stats[1].print(device + " alternating shapes");
        // High SNR: every PhiDP compared was within 1e-3 degrees (enforced per gate).
    }

    void known_tones(const std::string& device)
    {
        // Noise-free tones: h[n] = A e^{j w n}, v[n] = B e^{j (w n - Phi)}. Then
        // R1 = (A^2 + B^2) e^{jw}, C = A B e^{j Phi}, ratio = 1: velocity -lambda w/(4 pi
        // T), width 0, PhiDP Phi - offset, RhoHV 1, ZDR 20 log10(A/B), SNRh +inf (no
        // noise).
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            const bool alt = mode == polarimetric_mode::alternating;
            const std::size_t G = 5, M = 36;
            auto c = make_config(device, mode, G, M);
            c.calibration.noise_h = c.calibration.noise_v = 0.0;
            c.calibration.zcal_db = 0.0;
            c.calibration.zdr_cal_db = 0.0;
            c.calibration.phidp_offset_deg = 10.0;
            c.first_gate_m = 1000.0;
            c.gate_spacing_m = 1000.0;
            const double A = 2.0, B = 1.25, phi_deg = 60.0;
            const double w[G] = {
                0.0, 0.5, -1.0, 1.2, -0.3
            }; // rad per PRT (alt: < pi/2)
            pulses p;
            p.h.resize(M * G);
            p.v.resize(M * G);
            for (std::size_t n = 0; n < M; ++n) {
                for (std::size_t g = 0; g < G; ++g) {
                    const cdouble hv = std::polar(A, w[g] * double(n));
                    const cdouble vv =
                        std::polar(B, w[g] * double(n) - phi_deg * pi / 180);
                    p.h[n * G + g] = cfloat(alt && n % 2 ? vv : hv);
                    p.v[n * G + g] = cfloat(alt && n % 2 ? hv : vv);
                }
            }
            auto engine = polarimetric_processor::make(c);
            const auto out = run(*engine, p, 1);
            for (std::size_t g = 0; g < G; ++g) {
                const std::string what =
                    device + " " + mode_name(mode) + " tone gate " + std::to_string(g);
                const double zh = 20.0 * std::log10(A) + 20.0 * std::log10(double(g + 1));
                CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(
                    what, zh, out.p[product_zh][g], 1e-4);
                CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(
                    what, 20.0 * std::log10(A / B), out.p[product_zdr][g], 1e-4);
                CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(what,
                                                     -c.wavelength_m * w[g] /
                                                         (4.0 * pi * c.prt_s),
                                                     out.p[product_velocity][g],
                                                     1e-4);
                CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(
                    what, 0.0, out.p[product_width][g], 0.02);
                CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(
                    what, phi_deg - 10.0, out.p[product_phidp][g], 1e-3);
                CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(
                    what, 1.0, out.p[product_rhohv][g], 1e-5);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, float(inf), out.p[product_snr_h][g]);
            }
            check_products(reference(c, c.calibration, p.h.data(), p.v.data(), 1),
                           out,
                           c,
                           device + " " + mode_name(mode) + " tones");
        }
    }

    void dynamic_range_needs_float64_sums(const std::string& device)
    {
        // Gate amplitudes from 1e-18 to 1e18 (powers 1e-36 to 1e36, no noise): |x|^2
        // or their sums would underflow or overflow in float32; in float64 every
        // product but Zh is scale-free and Zh is just 10 log10 of the power.
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            auto c = make_config(device, mode, 301, 36);
            c.calibration.noise_h = c.calibration.noise_v = 0.0;
            simulation s;
            s.log10_amplitude_spread = 18.0;
            const auto p = simulate(c, 4, 77, s);
            auto engine = polarimetric_processor::make(c);
            error_stats stats;
            check_products(reference(c, c.calibration, p.h.data(), p.v.data(), 4),
                           run(*engine, p, 4),
                           c,
                           device + " " + mode_name(mode) + " dynamic range",
                           &stats);
        }
    }

    void censoring_and_infinities(const std::string& device)
    {
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            const std::string what = device + " " + mode_name(mode);
            const std::size_t G = 333, R = 6;
            auto c = make_config(device, mode, G, 36);
            c.calibration.snr_threshold_db = 6.0;
            auto s = noise_of(c);
            s.snr_lo_db = -10.0;
            s.snr_hi_db = 25.0;
            const auto p = simulate(c, R, 4242, s);
            {
                // Threshold: outputs 0..5 NaN below 6 dB, SNRh always given.
                auto engine = polarimetric_processor::make(c);
                const auto out = run(*engine, p, R);
                check_products(reference(c, c.calibration, p.h.data(), p.v.data(), R),
                               out,
                               c,
                               what + " censoring");
                std::size_t censored = 0, kept = 0;
                for (std::size_t i = 0; i < G * R; ++i) {
                    const float snr = out.p[product_snr_h][i];
                    // float32 rounding keeps the order to 6 dB: these are decided.
                    if (snr < 6.0f) {
                        ++censored;
                        for (int q = 0; q < product_snr_h; ++q)
                            CPPUNIT_ASSERT_MESSAGE(what, std::isnan(out.p[q][i]));
                    } else if (snr > 6.0f) {
                        ++kept;
                        CPPUNIT_ASSERT_MESSAGE(what, !std::isnan(out.p[product_zh][i]));
                    }
                    CPPUNIT_ASSERT_MESSAGE(what + ": SNRh NaN", !std::isnan(snr));
                }
                CPPUNIT_ASSERT_MESSAGE(what, censored > G && kept > G);
            }
            {
                // Zero noise: SNRh +inf everywhere, nothing censored even at a huge
                // threshold; gate 0 at range 0 has Zh -inf.
                auto c0 = c;
                c0.calibration.noise_h = c0.calibration.noise_v = 0.0;
                c0.calibration.snr_threshold_db = 1e30;
                c0.first_gate_m = 0.0;
                auto engine = polarimetric_processor::make(c0);
                const auto out = run(*engine, p, R);
                check_products(reference(c0, c0.calibration, p.h.data(), p.v.data(), R),
                               out,
                               c0,
                               what + " zero noise");
                for (std::size_t r = 0; r < R; ++r) {
                    for (std::size_t g = 0; g < G; ++g) {
                        CPPUNIT_ASSERT_EQUAL(float(inf), out.p[product_snr_h][r * G + g]);
                        if (g == 0)
                            CPPUNIT_ASSERT_EQUAL(float(-inf), out.p[product_zh][r * G]);
                        else
                            CPPUNIT_ASSERT(std::isfinite(out.p[product_zh][r * G + g]));
                    }
                }
            }
            for (double threshold : { -inf, inf }) {
                // -inf keeps every gate, S_h <= 0 included (its products follow the
                // formulas: NaN from a logarithm or root of a negative number); +inf
                // censors every gate with finite SNRh.
                auto ci = c;
                ci.calibration.snr_threshold_db = threshold;
                auto engine = polarimetric_processor::make(ci);
                const auto out = run(*engine, p, R);
                check_products(reference(ci, ci.calibration, p.h.data(), p.v.data(), R),
                               out,
                               ci,
                               what + " threshold " + std::to_string(threshold));
                if (threshold > 0)
                    for (std::size_t i = 0; i < G * R; ++i)
                        CPPUNIT_ASSERT(std::isnan(out.p[product_zh][i]));
            }
            {
                // Noise above every gate's power: S_h < 0, SNRh -inf, all censored.
                auto cn = c;
                cn.calibration.noise_h = 1e9;
                cn.calibration.snr_threshold_db = -1e9;
                auto engine = polarimetric_processor::make(cn);
                const auto out = run(*engine, p, R);
                check_products(reference(cn, cn.calibration, p.h.data(), p.v.data(), R),
                               out,
                               cn,
                               what + " noise above signal");
                for (std::size_t i = 0; i < G * R; ++i) {
                    CPPUNIT_ASSERT_EQUAL(float(-inf), out.p[product_snr_h][i]);
                    for (int q = 0; q < product_snr_h; ++q)
                        CPPUNIT_ASSERT(std::isnan(out.p[q][i]));
                }
            }
        }
    }

    void calibration_changes(const std::string& device)
    {
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            const std::string what = device + " " + mode_name(mode) + " calibration";
            const std::size_t G = 97, R = 8;
            auto c = make_config(device, mode, G, 36);
            const auto p = simulate(c, R, 99, noise_of(c));
            auto engine = polarimetric_processor::make(c);
            const std::size_t half = R / 2 * c.samples_per_radial();
            const auto first = run(*engine, p.h.data(), p.v.data(), R / 2);
            check_products(reference(c, c.calibration, p.h.data(), p.v.data(), R / 2),
                           first,
                           c,
                           what + " before");

            polarimetric_calibration b;
            b.zcal_db = 12.5;
            b.zdr_cal_db = -1.5;
            b.phidp_offset_deg = -120.0;
            b.noise_h = 0.01;
            b.noise_v = 0.04;
            b.snr_threshold_db = 3.0;
            engine->set_calibration(b);
            CPPUNIT_ASSERT_EQUAL(12.5, engine->calibration().zcal_db);
            CPPUNIT_ASSERT_EQUAL(0.04, engine->config().calibration.noise_v);
            const auto second = run(*engine, p.h.data() + half, p.v.data() + half, R / 2);
            check_products(reference(c, b, p.h.data() + half, p.v.data() + half, R / 2),
                           second,
                           c,
                           what + " after set_calibration");

            // Invalid calibrations throw, naming the field, and change nothing.
            const std::pair<const char*, double polarimetric_calibration::*> fields[] = {
                { "noise_h", &polarimetric_calibration::noise_h },
                { "noise_v", &polarimetric_calibration::noise_v },
            };
            for (const auto& field : fields) {
                for (double bad : { -1.0, nan, inf, -inf }) {
                    polarimetric_calibration worse = b;
                    worse.*field.second = bad;
                    try {
                        engine->set_calibration(worse);
                        CPPUNIT_FAIL(what + ": no exception for " + field.first + " = " +
                                     std::to_string(bad));
                    } catch (const std::invalid_argument& e) {
                        CPPUNIT_ASSERT_MESSAGE(e.what(),
                                               std::string(e.what()).find(field.first) !=
                                                   std::string::npos);
                    }
                }
            }
            const std::pair<const char*, double polarimetric_calibration::*> finite[] = {
                { "zcal_db", &polarimetric_calibration::zcal_db },
                { "zdr_cal_db", &polarimetric_calibration::zdr_cal_db },
                { "phidp_offset_deg", &polarimetric_calibration::phidp_offset_deg },
                { "snr_threshold_db", &polarimetric_calibration::snr_threshold_db },
            };
            for (const auto& field : finite) {
                for (double bad : { nan, inf, -inf }) {
                    // An infinite threshold is documented as meaningful.
                    if (std::string(field.first) == "snr_threshold_db" && std::isinf(bad))
                        continue;
                    polarimetric_calibration worse = b;
                    worse.*field.second = bad;
                    try {
                        engine->set_calibration(worse);
                        CPPUNIT_FAIL(what + ": no exception for " + field.first + " = " +
                                     std::to_string(bad));
                    } catch (const std::invalid_argument& e) {
                        CPPUNIT_ASSERT_MESSAGE(e.what(),
                                               std::string(e.what()).find(field.first) !=
                                                   std::string::npos);
                    }
                }
            }
            CPPUNIT_ASSERT_EQUAL(b.zcal_db, engine->calibration().zcal_db);
            CPPUNIT_ASSERT_EQUAL(b.snr_threshold_db,
                                 engine->calibration().snr_threshold_db);
            CPPUNIT_ASSERT_EQUAL(b.noise_h, engine->calibration().noise_h);
            CPPUNIT_ASSERT_EQUAL(b.noise_v, engine->calibration().noise_v);
            assert_identical(second,
                             run(*engine, p.h.data() + half, p.v.data() + half, R / 2),
                             G,
                             what + " after rejected calibrations");
        }
    }

    void alternating_ignores_cross_polar(const std::string& device)
    {
        // Alternating mode: the seven products come from port 0 alone.
        const std::size_t G = 211, R = 5;
        auto c = make_config(device, polarimetric_mode::alternating, G, 36);
        const auto p = simulate(c, R, 5150, noise_of(c));
        auto engine = polarimetric_processor::make(c);
        const auto base = run(*engine, p, R);
        check_products(reference(c, c.calibration, p.h.data(), p.v.data(), R),
                       base,
                       c,
                       device + " alternating");
        std::vector<cfloat> other(p.v.size());
        gaussian_source rng(6);
        for (auto& x : other)
            x = cfloat(rng.complex_normal(1e6));
        assert_identical(base,
                         run(*engine, p.h.data(), other.data(), R),
                         G,
                         device + " alternating, strong cross-polar");
        std::fill(other.begin(), other.end(), cfloat(0.0f, 0.0f));
        assert_identical(base,
                         run(*engine, p.h.data(), other.data(), R),
                         G,
                         device + " alternating, zero cross-polar");
    }

    void zero_radials(const std::string& device)
    {
        auto c = make_config(device, polarimetric_mode::simultaneous, 16, 36);
        auto engine = polarimetric_processor::make(c);
        product_set out(4);
        auto ptr = out.pointers();
        const cfloat dummy[1] = {};
        engine->process(dummy, dummy, 0, ptr.data());
        engine->process(nullptr, nullptr, 0, ptr.data());
        engine->synchronize();
        for (int p = 0; p < nproducts; ++p)
            for (float f : out.p[p])
                CPPUNIT_ASSERT_EQUAL(qa::poison_nan_bits, bits_of(f));
    }

    void unaligned_pointers_and_split_calls(const std::string& device)
    {
        // Inputs one complex sample off any vector alignment, outputs one float off,
        // and the radials given over several calls of different sizes.
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            const std::size_t G = 130, R = 23, M = 12;
            auto c = make_config(device, mode, G, M);
            const auto p = simulate(c, R, 31337, noise_of(c));
            std::vector<cfloat> h(p.h.size() + 1), v(p.v.size() + 1);
            std::copy(p.h.begin(), p.h.end(), h.begin() + 1);
            std::copy(p.v.begin(), p.v.end(), v.begin() + 1);
            auto engine = polarimetric_processor::make(c);
            product_set shifted(R * G + 1), out(R * G);
            std::array<float*, nproducts> ptr;
            for (int q = 0; q < nproducts; ++q)
                ptr[q] = shifted.p[q].data() + 1;
            engine->process(h.data() + 1, v.data() + 1, R, ptr.data());
            for (int q = 0; q < nproducts; ++q)
                std::copy(shifted.p[q].begin() + 1, shifted.p[q].end(), out.p[q].begin());
            const auto expected = reference(c, c.calibration, p.h.data(), p.v.data(), R);
            check_products(
                expected, out, c, device + " " + mode_name(mode) + " unaligned");

            product_set split(R * G);
            std::size_t done = 0;
            for (std::size_t n : { 1, 5, 0, 10, 7 }) {
                for (int q = 0; q < nproducts; ++q)
                    ptr[q] = split.p[q].data() + done * G;
                const std::size_t at = done * c.samples_per_radial();
                engine->process(p.h.data() + at, p.v.data() + at, n, ptr.data());
                done += n;
            }
            CPPUNIT_ASSERT_EQUAL(R, done);
            assert_identical(
                out, split, G, device + " " + mode_name(mode) + " split calls");
        }
    }

private:
    std::unique_ptr<polarimetric_processor> cuda_engine(polarimetric_config c,
                                                        std::size_t chunk_radials = 0)
    {
        c.device = "cuda";
        c.chunk_radials = chunk_radials;
        return polarimetric_processor::make(c);
    }

public:
    void names_modes_and_nyquist()
    {
        const char* names[] = { "Zh",    "ZDR",  "V",    "W",  "PhiDP",
                                "RhoHV", "SNRh", "CLUT", "CPA" };
        const char* units[] = { "dBZ", "dB", "m/s", "m/s", "deg", "", "dB", "dB", "" };
        CPPUNIT_ASSERT_EQUAL(9, nproducts);
        CPPUNIT_ASSERT_THROW(product_name(nproducts), std::out_of_range);
        CPPUNIT_ASSERT_THROW(product_unit(-1), std::out_of_range);
        for (int p = 0; p < nproducts; ++p) {
            CPPUNIT_ASSERT_EQUAL(std::string(names[p]), std::string(product_name(p)));
            CPPUNIT_ASSERT_EQUAL(std::string(units[p]), std::string(product_unit(p)));
        }
        CPPUNIT_ASSERT(parse_polarimetric_mode("simultaneous") ==
                       polarimetric_mode::simultaneous);
        CPPUNIT_ASSERT(parse_polarimetric_mode("alternating") ==
                       polarimetric_mode::alternating);
        CPPUNIT_ASSERT_EQUAL(std::string("alternating"),
                             to_string(polarimetric_mode::alternating));
        CPPUNIT_ASSERT_EQUAL(std::string("simultaneous"),
                             to_string(polarimetric_mode::simultaneous));
        polarimetric_config c;
        c.ngates = 3;
        c.wavelength_m = 0.1;
        c.prt_s = 1e-3;
        CPPUNIT_ASSERT_DOUBLES_EQUAL(25.0, c.nyquist_velocity(), 1e-12);
        c.mode = polarimetric_mode::alternating;
        CPPUNIT_ASSERT_DOUBLES_EQUAL(12.5, c.nyquist_velocity(), 1e-12);
        c.first_gate_m = 100.0;
        CPPUNIT_ASSERT_DOUBLES_EQUAL(400.0, c.gate_range_m(2), 1e-12);
        CPPUNIT_ASSERT_EQUAL(std::size_t(108), c.samples_per_radial());
        c.device = "cpu";
        auto engine = polarimetric_processor::make(c);
        CPPUNIT_ASSERT_EQUAL(std::string("cpu"), engine->device().to_string());
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), engine->config().ngates);
    }

    void reference_matches_known_values()
    {
        // The reference itself on hand-computable series (simultaneous, M = 2, 1 gate):
        // h = [1, j], v = [1, 1]: P_h = 1, P_v = 1, R1_h = j, R1_v = 1, C = (1 + j)/2.
        polarimetric_config c = make_config("cpu", polarimetric_mode::simultaneous, 1, 2);
        polarimetric_calibration cal;
        cal.noise_h = 0.5;
        cal.noise_v = 0.25;
        c.first_gate_m = 10000.0;
        const cfloat h[2] = { { 1, 0 }, { 0, 1 } }, v[2] = { { 1, 0 }, { 1, 0 } };
        const auto e = reference_gate(c, cal, h, v, 1, 0);
        // S_h = 0.5, S_v = 0.75, S = 1.25, R1 = 1 + j (|R1| = sqrt 2, psi = pi/4).
        CPPUNIT_ASSERT_DOUBLES_EQUAL(
            10 * std::log10(0.5) + 20.0, e[product_zh].value, 1e-12);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(
            10 * std::log10(0.5 / 0.75), e[product_zdr].value, 1e-12);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(
            -0.0531 / (4 * pi * 1e-3) * pi / 4, e[product_velocity].value, 1e-12);
        CPPUNIT_ASSERT_EQUAL(0.0, e[product_width].value); // ratio 1.25 / sqrt 2 < 1
        CPPUNIT_ASSERT_DOUBLES_EQUAL(45.0, e[product_phidp].value, 1e-12);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(
            std::sqrt(0.5) / std::sqrt(0.5 * 0.75), e[product_rhohv].value, 1e-12);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.0, e[product_snr_h].value, 1e-12);
        // Alternating, M = 4, x = [1, 1, j, j]: P_h = 1, P_v = 1, C1 = 1, C2 = j,
        // psi = pi/4, A = 2 e^{j pi/4}, R2_h = j, R2_v = j: ratio 2 / 2 = 1.
        c = make_config("cpu", polarimetric_mode::alternating, 1, 4);
        cal = polarimetric_calibration();
        cal.phidp_offset_deg = -150.0;
        const cfloat x[4] = { { 1, 0 }, { 1, 0 }, { 0, 1 }, { 0, 1 } };
        const auto a = reference_gate(c, cal, x, x, 1, 0);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(
            -0.0531 / (4 * pi * 1e-3) * pi / 4, a[product_velocity].value, 1e-12);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(
            -165.0, a[product_phidp].value, 1e-12); // 195 wrapped
        CPPUNIT_ASSERT_EQUAL(0.0, a[product_width].value);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0, a[product_rhohv].value, 1e-12);
        CPPUNIT_ASSERT_EQUAL(inf, a[product_snr_h].value);
        CPPUNIT_ASSERT_EQUAL(-inf, a[product_zh].value); // range 0
    }

    void bad_configuration_names_the_field()
    {
        const polarimetric_config good =
            make_config("cpu", polarimetric_mode::simultaneous, 8, 36);
        auto expect_error = [&](const polarimetric_config& c, const std::string& field) {
            try {
                polarimetric_processor::make(c);
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(field + ": " + e.what(),
                                       std::string(e.what()).find(field) !=
                                           std::string::npos);
                return;
            }
            CPPUNIT_FAIL("no std::invalid_argument for a bad " + field);
        };
        polarimetric_processor::make(good); // the baseline is valid
        good.validate();
        good.calibration.validate();
        polarimetric_calibration bad_cal;
        bad_cal.noise_v = -0.5;
        CPPUNIT_ASSERT_THROW(bad_cal.validate(), std::invalid_argument);
        auto c = good;
        c.ngates = 0;
        expect_error(c, "ngates");
        for (std::size_t M : { 0, 1 }) {
            c = good;
            c.pulses_per_radial = M;
            expect_error(c, "pulses_per_radial");
        }
        for (std::size_t M : { 2, 3, 5, 37 }) {
            c = good;
            c.mode = polarimetric_mode::alternating;
            c.pulses_per_radial = M;
            expect_error(c, "pulses_per_radial");
        }
        c = good;
        c.mode = polarimetric_mode::alternating;
        c.pulses_per_radial = 4;
        polarimetric_processor::make(c);
        for (double bad : { 0.0, -1.0, nan, inf, -inf }) {
            c = good;
            c.wavelength_m = bad;
            expect_error(c, "wavelength_m");
            c = good;
            c.prt_s = bad;
            expect_error(c, "prt_s");
            c = good;
            c.gate_spacing_m = bad;
            expect_error(c, "gate_spacing_m");
        }
        for (double bad : { nan, inf, -inf }) {
            c = good;
            c.calibration.zcal_db = bad;
            expect_error(c, "zcal_db");
            c = good;
            c.calibration.zdr_cal_db = bad;
            expect_error(c, "zdr_cal_db");
            c = good;
            c.calibration.phidp_offset_deg = bad;
            expect_error(c, "phidp_offset_deg");
        }
        c = good;
        c.calibration.snr_threshold_db = nan;
        expect_error(c, "snr_threshold_db");
        // Physical bounds (issue 16 item 9): finite but absurd values are refused, the
        // bounds themselves accepted.
        const struct {
            const char* field;
            double polarimetric_config::*config_field;
            double polarimetric_calibration::*calibration_field;
            double lo, hi;
        } bounded[] = {
            { "wavelength_m", &polarimetric_config::wavelength_m, nullptr, 1e-4, 1e3 },
            { "prt_s", &polarimetric_config::prt_s, nullptr, 1e-7, 10.0 },
            { "zcal_db", nullptr, &polarimetric_calibration::zcal_db, -1000.0, 1000.0 },
            { "zdr_cal_db",
              nullptr,
              &polarimetric_calibration::zdr_cal_db,
              -100.0,
              100.0 },
            { "phidp_offset_deg",
              nullptr,
              &polarimetric_calibration::phidp_offset_deg,
              -360.0,
              360.0 },
            { "noise_h",
              nullptr,
              &polarimetric_calibration::noise_h,
              0.0,
              max_noise_power },
            { "noise_v",
              nullptr,
              &polarimetric_calibration::noise_v,
              0.0,
              max_noise_power },
        };
        for (const auto& b : bounded) {
            auto with = [&](double value) {
                polarimetric_config v = good;
                if (b.config_field)
                    v.*b.config_field = value;
                else
                    v.calibration.*b.calibration_field = value;
                return v;
            };
            for (double bad : { b.lo - std::max(1e-9, std::fabs(b.lo) * 1e-6),
                                b.hi * (1.0 + 1e-6),
                                -1e300,
                                1e300 })
                expect_error(with(bad), b.field);
            for (double ok : { b.lo, b.hi })
                polarimetric_processor::make(with(ok));
        }
        for (double bad : { -1.0, nan, inf }) {
            c = good;
            c.first_gate_m = bad;
            expect_error(c, "first_gate_m");
            c = good;
            c.calibration.noise_h = bad;
            expect_error(c, "noise_h");
            c = good;
            c.calibration.noise_v = bad;
            expect_error(c, "noise_v");
        }
        c = good;
        c.device = "gpu";
        expect_error(c, "device");
        try {
            parse_polarimetric_mode("dual");
            CPPUNIT_FAIL("no std::invalid_argument for mode \"dual\"");
        } catch (const std::invalid_argument& e) {
            CPPUNIT_ASSERT_MESSAGE(
                e.what(), std::string(e.what()).find("mode") != std::string::npos);
        }
        try {
            parse_polarimetric_mode("Simultaneous ", "scan_mode");
            CPPUNIT_FAIL("no std::invalid_argument for mode \"Simultaneous \"");
        } catch (const std::invalid_argument& e) {
            CPPUNIT_ASSERT_MESSAGE(
                e.what(), std::string(e.what()).find("scan_mode") != std::string::npos);
        }
        // A forced CUDA backend is an error only where no device exists.
        if (!qa::cuda_present()) {
            c = good;
            c.device = "cuda";
            CPPUNIT_ASSERT_THROW(polarimetric_processor::make(c), std::runtime_error);
        }
    }

    void cpu_engine_has_no_device_entry()
    {
        auto engine = polarimetric_processor::make(
            make_config("cpu", polarimetric_mode::simultaneous, 4, 8));
        std::vector<cfloat> x(32);
        product_set out(4);
        auto ptr = out.pointers();
        CPPUNIT_ASSERT_THROW(engine->process_device(x.data(), x.data(), 1, ptr.data()),
                             std::logic_error);
        engine->synchronize(); // a no-op on the CPU
    }

    void pinned_host_buffers(const std::string&)
    {
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            const std::size_t G = 2242, R = 37;
            auto c = make_config("cuda", mode, G, 36);
            const auto p = simulate(c, R, 8080, noise_of(c));
            const auto expected = reference(c, c.calibration, p.h.data(), p.v.data(), R);
            const std::string what = "cuda " + mode_name(mode);
            const std::size_t n = p.h.size(), nout = R * G;
            pinned_buffer<cfloat> h(n), v(n);
            pinned_buffer<float> products(nproducts * nout);
            std::copy(p.h.begin(), p.h.end(), h.get());
            std::copy(p.v.begin(), p.v.end(), v.get());
            for (std::size_t chunk : { std::size_t(0), std::size_t(5) }) {
                std::fill(products.get(), products.get() + products.size(), poison_nan());
                float* ptr[nproducts];
                for (int q = 0; q < nproducts; ++q)
                    ptr[q] = products.get() + q * nout;
                cuda_engine(c, chunk)->process(h.get(), v.get(), R, ptr);
                product_set out(nout);
                for (int q = 0; q < nproducts; ++q)
                    std::copy(ptr[q], ptr[q] + nout, out.p[q].begin());
                check_products(expected,
                               out,
                               c,
                               what + " pinned in and out, chunk " +
                                   std::to_string(chunk));
                // Pinned inputs, pageable outputs.
                check_products(expected,
                               run(*cuda_engine(c, chunk), h.get(), v.get(), R),
                               c,
                               what + " pinned in, pageable out");
            }
            // Pageable inputs, pinned outputs.
            std::fill(products.get(), products.get() + products.size(), poison_nan());
            float* ptr[nproducts];
            for (int q = 0; q < nproducts; ++q)
                ptr[q] = products.get() + q * nout;
            cuda_engine(c, 3)->process(p.h.data(), p.v.data(), R, ptr);
            product_set out(nout);
            for (int q = 0; q < nproducts; ++q)
                std::copy(ptr[q], ptr[q] + nout, out.p[q].begin());
            check_products(expected, out, c, what + " pageable in, pinned out");
        }
    }

    void device_pointers_and_streams(const std::string&)
    {
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            const std::size_t G = 1001, R = 20;
            auto c = make_config("cuda", mode, G, 36);
            const auto p = simulate(c, R, 2718, noise_of(c));
            const std::string what = "cuda " + mode_name(mode) + " device pointers";
            const std::size_t n = p.h.size(), nout = R * G;
            device_buffer<cfloat> d_h(n), d_v(n);
            device_buffer<float> d_out(nproducts * nout);
            CUDADSP_CUDA(
                cudaMemcpy(d_h.get(), p.h.data(), d_h.bytes(), cudaMemcpyHostToDevice));
            CUDADSP_CUDA(
                cudaMemcpy(d_v.get(), p.v.data(), d_v.bytes(), cudaMemcpyHostToDevice));
            const std::vector<float> poisoned(nproducts * nout, poison_nan());
            auto fetch = [&]() {
                product_set out(nout);
                for (int q = 0; q < nproducts; ++q)
                    CUDADSP_CUDA(cudaMemcpy(out.p[q].data(),
                                            d_out.get() + q * nout,
                                            nout * sizeof(float),
                                            cudaMemcpyDeviceToHost));
                return out;
            };
            auto poison_device = [&]() {
                CUDADSP_CUDA(cudaMemcpy(
                    d_out.get(), poisoned.data(), d_out.bytes(), cudaMemcpyHostToDevice));
            };
            float* ptr[nproducts];
            auto point_at = [&](std::size_t radial) {
                for (int q = 0; q < nproducts; ++q)
                    ptr[q] = d_out.get() + q * nout + radial * G;
            };
            const auto expected = reference(c, c.calibration, p.h.data(), p.v.data(), R);

            // The engine's own stream, then synchronize().
            auto engine = cuda_engine(c);
            poison_device();
            point_at(0);
            engine->process_device(d_h.get(), d_v.get(), R, ptr);
            engine->synchronize();
            const auto own = fetch();
            check_products(expected, own, c, what + ", engine stream");

            // A caller's stream, two calls.
            cuda_stream stream;
            poison_device();
            point_at(0);
            engine->process_device(d_h.get(), d_v.get(), 7, ptr, stream.get());
            point_at(7);
            const std::size_t at = 7 * c.samples_per_radial();
            engine->process_device(
                d_h.get() + at, d_v.get() + at, R - 7, ptr, stream.get());
            stream.synchronize();
            assert_identical(own, fetch(), G, what + ", caller stream");

            // A calibration change between two enqueued calls applies to the second only.
            polarimetric_calibration b = c.calibration;
            b.zcal_db += 7.0;
            b.phidp_offset_deg = 90.0;
            b.noise_h *= 2.0;
            b.snr_threshold_db = 10.0;
            poison_device();
            point_at(0);
            engine->process_device(d_h.get(), d_v.get(), 7, ptr, stream.get());
            engine->set_calibration(b);
            point_at(7);
            engine->process_device(
                d_h.get() + at, d_v.get() + at, R - 7, ptr, stream.get());
            stream.synchronize();
            const auto mixed = fetch();
            product_set head(7 * G), tail((R - 7) * G);
            for (int q = 0; q < nproducts; ++q) {
                std::copy(
                    mixed.p[q].begin(), mixed.p[q].begin() + 7 * G, head.p[q].begin());
                std::copy(
                    mixed.p[q].begin() + 7 * G, mixed.p[q].end(), tail.p[q].begin());
            }
            check_products(reference(c, c.calibration, p.h.data(), p.v.data(), 7),
                           head,
                           c,
                           what + ", enqueued before set_calibration");
            check_products(reference(c, b, p.h.data() + at, p.v.data() + at, R - 7),
                           tail,
                           c,
                           what + ", enqueued after set_calibration");
        }
    }

    void chunking_invariance(const std::string&)
    {
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            const std::size_t G = 2242, R = 50;
            auto c = make_config("cuda", mode, G, 36);
            const auto p = simulate(c, R, 1618, noise_of(c));
            const auto whole = run(*cuda_engine(c, 0), p, R);
            check_products(reference(c, c.calibration, p.h.data(), p.v.data(), R),
                           whole,
                           c,
                           "cuda " + mode_name(mode) + " default chunks");
            for (std::size_t chunk : { 1, 7, 49, 50, 64 })
                assert_identical(whole,
                                 run(*cuda_engine(c, chunk), p, R),
                                 G,
                                 "cuda " + mode_name(mode) + " chunk_radials " +
                                     std::to_string(chunk));
        }
    }

    void many_radials_match_cpu(const std::string&)
    {
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            // Under a sanitizer 40 radials, still several of the engine's default
            // chunks at 36 pulses.
            const std::size_t G = 2242, R = qa::scaled<std::size_t>(400, 40);
            auto c = make_config("cuda", mode, G, 36);
            const auto p = simulate(c, R, 4000 + int(mode), noise_of(c));
            auto cpu_config = c;
            cpu_config.device = "cpu";
            const auto cpu = run(*polarimetric_processor::make(cpu_config), p, R);
            const auto cuda = run(*cuda_engine(c), p, R);
            assert_close_to_cpu(cpu,
                                cuda,
                                c,
                                "cuda " + mode_name(mode) + " " + std::to_string(R) +
                                    " radials");
            // And the float64 reference on the first and last radials.
            const std::size_t last = (R - 2) * c.samples_per_radial();
            product_set head(2 * G), tail(2 * G);
            for (int q = 0; q < nproducts; ++q) {
                std::copy(
                    cuda.p[q].begin(), cuda.p[q].begin() + 2 * G, head.p[q].begin());
                std::copy(cuda.p[q].end() - 2 * G, cuda.p[q].end(), tail.p[q].begin());
            }
            check_products(reference(c, c.calibration, p.h.data(), p.v.data(), 2),
                           head,
                           c,
                           "cuda " + mode_name(mode) + " first radials");
            check_products(
                reference(c, c.calibration, p.h.data() + last, p.v.data() + last, 2),
                tail,
                c,
                "cuda " + mode_name(mode) + " last radials");
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_polarimetric);

} // namespace core
} // namespace cudadsp
} // namespace gr
