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
//
// The engine's calls, configuration and calibration: qa_polarimetric_calls.cc; the CUDA
// backend's memory paths: qa_polarimetric_cuda_memory.cc (one ctest entry,
// qa_polarimetric).

#include "qa_float_bits.h"
#include "qa_polarimetric_support.h"
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

using namespace qa_polarimetric_cases;

class qa_polarimetric : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_polarimetric);
    CPPUNIT_TEST(reference_matches_known_values);
    QA_BACKEND_TEST(shapes_against_float64);
    QA_BACKEND_TEST(known_tones);
    QA_BACKEND_TEST(dynamic_range_needs_float64_sums);
    QA_BACKEND_TEST(censoring_and_infinities);
    CPPUNIT_TEST_SUITE_END();

public:
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
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_polarimetric);

} // namespace core
} // namespace cudadsp
} // namespace gr
