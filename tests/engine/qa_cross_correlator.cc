/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_cross_correlator: the reference itself, and both backends against it and
// against the physical truth (delays, phases, coherence, dynamic range) with the
// tolerances stated in qa_cross_correlator.h.

#include "qa_cross_correlator.h"
#include <algorithm>
#include <cmath>
#include <complex>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

/*!
 * A white burst b of M samples: y holds it from \p offset_y, x holds gain b from
 * offset_y + d, zeros elsewhere. The cross-spectrum is gain |B|^2 e^{-j 2 pi k d / L},
 * so |r(tau)| <= |r(d)| for every tau: lag d, phase arg(gain) and magnitude 1, exactly.
 */
void add_burst_delay(
    frame_data& f, long d, cdouble gain, long offset_y, long M, gaussian_source& g)
{
    const std::size_t k = f.add_frame(double(d));
    std::fill(f.x_frame(k), f.x_frame(k) + f.N, cfloat(0.0f));
    std::fill(f.y_frame(k), f.y_frame(k) + f.N, cfloat(0.0f));
    for (long i = 0; i < M; ++i) {
        const cdouble b = g.complex_normal();
        f.y_frame(k)[offset_y + i] = cfloat(b);
        f.x_frame(k)[offset_y + d + i] = cfloat(gain * b);
    }
}

//! The true delay within 1/interp (the fine grid's spacing) plus \p margin.
void check_truth(const result& r,
                 const frame_data& f,
                 const cross_correlator_config& c,
                 const std::string& what,
                 double margin = 0.0)
{
    double worst = 0.0;
    for (std::size_t k = 0; k < f.nframes(); ++k) {
        const double err = std::fabs(double(r.peaks[k].lag) - f.truth[k]);
        worst = std::max(worst, err);
        std::ostringstream msg;
        msg.precision(8);
        msg << frame_name(what, k) << ": true delay " << f.truth[k] << ", lag "
            << r.peaks[k].lag;
        CPPUNIT_ASSERT_MESSAGE(msg.str(), err <= 1.0 / double(c.interp) + margin + 1e-6);
    }
    std::cout << "qa_cross_correlator: " << what << ": lag within " << worst
              << " of the true delay (limit " << 1.0 / double(c.interp) + margin << ")"
              << std::endl;
}

} // namespace

//! Integer delays of white noise (positive and negative, up to +-max_lag), noise
//! at -10 dB: the lag within 1/interp of the delay.
void qa_cross_correlator::integer_delays(const std::string& device)
{
    for (std::size_t max_lag : { std::size_t(600), std::size_t(0) }) {
        const std::size_t N = 1024;
        const long ml = max_lag ? long(max_lag) : 700; // overlap >= 324 samples
        gaussian_source g(11 + max_lag);
        frame_data f(N);
        for (long d : { 0L, 1L, -1L, 2L, -17L, 17L, 300L, -300L, ml - 1, -ml, ml })
            add_white_delay(f, d, std::polar(1.0, g.uniform(-pi, pi)), 0.1, g);
        const auto refs = reference_frames(f);
        for (std::size_t interp : { 1, 4, 16 }) {
            const auto c = make_config(device, N, interp, max_lag);
            const auto r = run(c, f);
            check_result(refs, f, r, c, describe(c, " integer delays"));
            check_truth(r, f, c, describe(c, " integer delays"));
        }
    }
}

/*!
 * Band-limited signals (32 tones within +-0.35 cycles/sample) delayed by fractional
 * amounts, 20 dB SNR: the lag within 1/interp of the delay. At +-(max_lag + 0.4) the
 * peak lies beyond the search: the lag stops at +-max_lag.
 */
void qa_cross_correlator::fractional_delays(const std::string& device)
{
    for (std::size_t N : { 256, 4096 }) {
        gaussian_source g(100 + N);
        frame_data f(N);
        const double span = double(N) / 8.0;
        for (double d : { 0.5, -0.5, 2.25, -3.7, 10.01, -0.03, 0.97 })
            add_band_delay(f, d, 1.0, 0.01, g);
        for (int i = 0; i < (N == 4096 ? 4 : 12); ++i)
            add_band_delay(f, g.uniform(-span, span), 1.0, 0.01, g);
        const auto refs = reference_frames(f);
        for (std::size_t interp : { 1, 4, 16 }) {
            const auto c = make_config(device, N, interp);
            const auto r = run(c, f);
            check_result(refs, f, r, c, describe(c, " fractional delays"));
            check_truth(r, f, c, describe(c, " fractional delays"));
        }
        // Peak just beyond max_lag.
        frame_data edge(N);
        const std::size_t max_lag = 20;
        add_band_delay(edge, double(max_lag) + 0.4, 1.0, 0.01, g);
        add_band_delay(edge, -double(max_lag) - 0.4, 1.0, 0.01, g);
        const auto edge_refs = reference_frames(edge);
        for (std::size_t interp : { 1, 4, 16 }) {
            const auto c = make_config(device, N, interp, max_lag);
            const auto r = run(c, edge);
            const std::string what = describe(c, " peak beyond max_lag");
            check_result(edge_refs, edge, r, c, what, false);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, float(max_lag), r.peaks[0].lag);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, -float(max_lag), r.peaks[1].lag);
        }
    }
}

//! x = 1.7 e^{j phi} times y delayed by d (white bursts, no noise): lag d and
//! phase phi at the peak, magnitude 1.
void qa_cross_correlator::phase_offset(const std::string& device)
{
    const std::size_t N = 256;
    gaussian_source g(4242);
    frame_data f(N);
    std::vector<double> phases;
    for (double phi : { 0.0, 0.7, -1.9, 2.9, -3.1, pi / 2, 3.14159 })
        for (long d : { 0L, 5L, -9L, 100L, -100L }) {
            add_burst_delay(f, d, std::polar(1.7, phi), 110, 40, g);
            phases.push_back(phi);
        }
    const auto refs = reference_frames(f);
    for (std::size_t interp : { 1, 4, 16 }) {
        const auto c = make_config(device, N, interp);
        const auto r = run(c, f);
        const std::string what = describe(c, " phase offsets");
        check_result(refs, f, r, c, what);
        double worst = 0.0;
        for (std::size_t k = 0; k < f.nframes(); ++k) {
            const double err = std::fabs(wrap_pi(r.peaks[k].phase - phases[k]));
            worst = std::max(worst, err);
            std::ostringstream msg;
            msg << frame_name(what, k) << ": phase " << r.peaks[k].phase << ", true "
                << phases[k] << ", lag " << r.peaks[k].lag;
            CPPUNIT_ASSERT_MESSAGE(msg.str(), err <= 1e-5);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(msg.str(), float(f.truth[k]), r.peaks[k].lag);
            CPPUNIT_ASSERT_MESSAGE(msg.str(), r.peaks[k].magnitude >= 1.0f - 1e-5f);
        }
        std::cout << "qa_cross_correlator: " << what << ": phase within " << worst
                  << " rad of the true offset" << std::endl;
    }
}

/*!
 * Identical frames (up to a complex gain): lag 0, magnitude 1, phase the gain's.
 * x = s + n1, y = s + n2 (independent noise of power p): magnitude near the
 * coherence 1 / (1 + p) (N = 4096: the estimate's spread is about 0.01).
 */
void qa_cross_correlator::identical_and_coherence(const std::string& device)
{
    for (std::size_t N : { 2, 3, 100, 4096 }) {
        gaussian_source g(7 + N);
        frame_data f(N);
        std::vector<double> phases;
        for (int i = 0; i < 6; ++i) {
            const double phi = i < 2 ? 0.0 : g.uniform(-3.0, 3.0);
            const double amp = i == 0 ? 1.0 : g.uniform(0.1, 10.0);
            add_white_delay(f, 0, std::polar(amp, phi), 0.0, g);
            phases.push_back(phi);
        }
        const auto refs = reference_frames(f);
        for (std::size_t interp : { 1, 4, 16 }) {
            const auto c = make_config(device, N, interp);
            const auto r = run(c, f);
            const std::string what = describe(c, " identical frames");
            check_result(refs, f, r, c, what, false);
            for (std::size_t k = 0; k < f.nframes(); ++k) {
                std::ostringstream msg;
                msg.precision(9);
                msg << frame_name(what, k) << ": lag " << r.peaks[k].lag << " magnitude "
                    << r.peaks[k].magnitude << " phase " << r.peaks[k].phase;
                CPPUNIT_ASSERT_EQUAL_MESSAGE(msg.str(), 0.0f, r.peaks[k].lag);
                CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                       r.peaks[k].magnitude >= 1.0f - 1e-5f &&
                                           r.peaks[k].magnitude <= 1.0f);
                CPPUNIT_ASSERT_MESSAGE(
                    msg.str(), std::fabs(wrap_pi(r.peaks[k].phase - phases[k])) <= 1e-5);
            }
        }
    }
    for (double noise : { 0.1, 1.0 }) {
        const std::size_t N = 4096;
        const double coherence = 1.0 / (1.0 + noise);
        gaussian_source g(int(noise * 10));
        frame_data f(N);
        for (int i = 0; i < 6; ++i) {
            const std::size_t k = f.add_frame();
            for (std::size_t n = 0; n < N; ++n) {
                const cdouble s = g.complex_normal();
                f.x_frame(k)[n] = cfloat(s + g.complex_normal(noise));
                f.y_frame(k)[n] = cfloat(s + g.complex_normal(noise));
            }
        }
        const auto refs = reference_frames(f);
        const auto c = make_config(device, N, 16);
        const auto r = run(c, f);
        const std::string what = describe(c, " coherence " + std::to_string(coherence));
        check_result(refs, f, r, c, what);
        double mean = 0.0;
        for (std::size_t k = 0; k < f.nframes(); ++k) {
            std::ostringstream msg;
            msg << frame_name(what, k) << ": magnitude " << r.peaks[k].magnitude;
            CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                   std::fabs(r.peaks[k].magnitude - coherence) <= 0.05);
            CPPUNIT_ASSERT_MESSAGE(msg.str(), std::fabs(r.peaks[k].lag) <= 1.0f);
            mean += r.peaks[k].magnitude / double(f.nframes());
        }
        std::cout << "qa_cross_correlator: " << what << ": mean magnitude " << mean
                  << std::endl;
        CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(what, coherence, mean, 0.02);
    }
}

//! A stronger copy at |D| > max_lag and a weaker one at |d| <= max_lag: max_lag
//! makes the weaker one the peak; with the full range the stronger one wins.
void qa_cross_correlator::max_lag_limits_the_search(const std::string& device)
{
    const std::size_t N = 512;
    gaussian_source g(5150);
    frame_data f(N);
    const std::vector<std::pair<long, long>> strong_weak = {
        { 200, 30 }, { -200, 30 }, { 200, -30 }, { -150, -99 }, { 101, 100 }
    };
    for (const auto& sw : strong_weak) {
        const std::size_t k = f.add_frame(double(sw.second));
        std::vector<cdouble> s(3 * N);
        for (auto& v : s)
            v = g.complex_normal();
        const long n0 = long(N);
        for (long n = 0; n < long(N); ++n) {
            f.x_frame(k)[n] = cfloat(s[n0 + n - sw.first] + 0.4 * s[n0 + n - sw.second] +
                                     g.complex_normal(0.01));
            f.y_frame(k)[n] = cfloat(s[n0 + n]);
        }
    }
    const auto refs = reference_frames(f);
    for (std::size_t interp : { 1, 4 }) {
        const auto c = make_config(device, N, interp, 100);
        const auto r = run(c, f, false, true);
        CPPUNIT_ASSERT_EQUAL(std::size_t(201), c.correlation_len());
        CPPUNIT_ASSERT_EQUAL(std::size_t(201) * f.nframes(), r.correlation.size());
        check_result(refs, f, r, c, describe(c, " max_lag limit"));
        check_truth(r, f, c, describe(c, " max_lag limit"));
        const auto full_config = make_config(device, N, interp);
        const auto full = run(full_config, f);
        check_result(
            refs, f, full, full_config, describe(full_config, " max_lag limit"), false);
        for (std::size_t k = 0; k < f.nframes(); ++k)
            CPPUNIT_ASSERT_MESSAGE(
                frame_name(describe(full_config, ""), k),
                std::fabs(full.peaks[k].lag - float(strong_weak[k].first)) <=
                    1.0 / double(interp));
    }
}

/*!
 * Ties. N = 2 (L = 4, every twiddle +-1 or +-j, so the transforms are exact):
 * |r[-1]| = |r[1]| = 1 > |r[0]| = 0, and the smallest lag, -1, must win. Zero-energy
 * frames (x, y or both 0): r is identically 0, so every lag ties and the lag is
 * -max_lag; magnitude 0, no NaN; their neighbours are unaffected.
 */
void qa_cross_correlator::ties_and_zero_energy(const std::string& device)
{
    const cfloat one(1.0f, 0.0f), minus(-1.0f, 0.0f), j(0.0f, 1.0f);
    frame_data f(2);
    const std::vector<std::pair<std::vector<cfloat>, std::vector<cfloat>>> ties = {
        { { one, one }, { one, minus } }, // r = (-1, 0, 1) at l = -1, 0, 1
        { { one, minus }, { one, one } }, // r = (1, 0, -1)
        { { j, one }, { one, j } },       // r = (1, 0, 1)
        { { 2.0f * one, -2.0f * j }, { j, minus } },
    };
    for (const auto& t : ties) {
        const std::size_t k = f.add_frame(-1.0);
        std::copy(t.first.begin(), t.first.end(), f.x_frame(k));
        std::copy(t.second.begin(), t.second.end(), f.y_frame(k));
    }
    const auto refs = reference_frames(f);
    for (std::size_t k = 0; k < refs.size(); ++k) {
        CPPUNIT_ASSERT_EQUAL(std::abs(refs[k].at(-1)), std::abs(refs[k].at(1)));
        CPPUNIT_ASSERT(std::abs(refs[k].at(0)) < std::abs(refs[k].at(1)));
    }
    for (std::size_t interp : { 1, 4, 16 }) {
        const auto c = make_config(device, 2, interp);
        const auto r = run(c, f);
        const std::string what = describe(c, " ties");
        check_result(refs, f, r, c, what, false);
        for (std::size_t k = 0; k < f.nframes(); ++k) {
            std::ostringstream msg;
            msg << frame_name(what, k) << ": lag " << r.peaks[k].lag
                << ": the tie of lags -1 and +1 goes to -1";
            CPPUNIT_ASSERT_MESSAGE(msg.str(), r.peaks[k].lag <= 0.0f);
        }
    }

    for (std::size_t N : { 3, 100 }) {
        for (std::size_t max_lag : { std::size_t(0), std::size_t(2) }) {
            gaussian_source g(N + max_lag);
            frame_data z(N);
            for (int kind = 0; kind < 4; ++kind) {
                add_white_delay(z, 1, 1.0, 0.1, g); // a normal neighbour
                const std::size_t k = z.add_frame();
                for (std::size_t n = 0; n < N; ++n) {
                    z.x_frame(k)[n] = kind == 0 || kind == 2 ? cfloat(0.0f)
                                                             : cfloat(g.complex_normal());
                    z.y_frame(k)[n] = kind == 1 || kind == 2 ? cfloat(0.0f)
                                                             : cfloat(g.complex_normal());
                }
                if (kind == 3) // -0.0 everywhere in x
                    for (std::size_t n = 0; n < N; ++n)
                        z.x_frame(k)[n] = cfloat(-0.0f, -0.0f);
            }
            add_white_delay(z, -1, 1.0, 0.1, g);
            const auto zrefs = reference_frames(z);
            for (std::size_t interp : { 1, 4 }) {
                const auto c = make_config(device, N, interp, max_lag);
                const auto r = run(c, z, true, true);
                check_result(zrefs, z, r, c, describe(c, " zero-energy frames"), false);
            }
        }
    }
}

/*!
 * Amplitudes from 1e-15 to 1e15 (energies products from 1e-56 to 1e64, outside
 * float32's range once multiplied): the magnitude is |r| / sqrt(E_x E_y) all the
 * same.
 */
void qa_cross_correlator::dynamic_range(const std::string& device)
{
    const std::size_t N = 100;
    gaussian_source g(31337);
    frame_data f(N);
    const std::vector<std::pair<double, double>> scales = {
        { 1e-15, 1e-15 }, { 1e15, 1e15 }, { 1e-15, 1e15 }, { 1e15, 1e-15 },
        { 1e-12, 1.0 },   { 1.0, 1e12 },  { 1e12, 1e12 },  { 1e-12, 1e-12 },
    };
    for (const auto& s : scales) {
        add_white_delay(f, 3, 1.0, 0.2, g);
        const std::size_t k = f.nframes() - 1;
        for (std::size_t n = 0; n < N; ++n) {
            f.x_frame(k)[n] *= float(s.first);
            f.y_frame(k)[n] *= float(s.second);
        }
    }
    const auto refs = reference_frames(f);
    const auto c = make_config(device, N, 8);
    const auto r = run(c, f);
    check_result(refs, f, r, c, describe(c, " amplitudes 1e-15 to 1e15"));
    check_truth(r, f, c, describe(c, " amplitudes 1e-15 to 1e15"));
}

/*!
 * Spectrum and correlation outputs (and the peaks) against the reference for
 * fft_len 2, 3 (neither a power of 2), 100 and 4096, interp 1, 4, 16, the full and a
 * limited max_lag; asking for fewer outputs changes nothing in the others.
 */
void qa_cross_correlator::outputs_against_reference(const std::string& device)
{
    for (std::size_t N : { 2, 3, 100, 4096 }) {
        const std::size_t nframes = N == 4096 ? 4 : (N == 100 ? 12 : 40);
        const std::size_t limited = N == 2 ? 1 : (N == 3 ? 1 : N / 3);
        const auto f = mixed_frames(N, nframes, long(limited), 500 + N);
        const auto refs = reference_frames(f);
        std::vector<std::vector<cdouble>> spectra;
        for (std::size_t k = 0; k < nframes; ++k)
            spectra.push_back(
                reference_spectrum(f.x.data() + k * N, f.y.data() + k * N, N));
        for (std::size_t interp : { 1, 4, 16 }) {
            for (std::size_t max_lag : { std::size_t(0), limited }) {
                const auto c = make_config(device, N, interp, max_lag);
                CPPUNIT_ASSERT_EQUAL(std::size_t(pow2_at_least(2 * long(N))),
                                     c.transform_len());
                const auto all = run(c, f, true, true);
                check_result(refs,
                             f,
                             all,
                             c,
                             describe(c, " spectrum and correlation"),
                             true,
                             &spectra);
                if (interp != 4)
                    continue;
                auto engine = cross_correlator::make(c);
                const auto spectrum_only =
                    run(*engine, f.x.data(), f.y.data(), nframes, true, false);
                const auto correlation_only =
                    run(*engine, f.x.data(), f.y.data(), nframes, false, true);
                const auto none = run(*engine, f.x.data(), f.y.data(), nframes);
                result a = all;
                a.correlation.clear();
                assert_identical(a, spectrum_only, describe(c, " spectrum only"));
                a = all;
                a.spectrum.clear();
                assert_identical(a, correlation_only, describe(c, " correlation only"));
                a.correlation.clear();
                assert_identical(a, none, describe(c, " peaks only"));
            }
        }
    }
}

/*!
 * Linear, not circular: a burst at the start of y and at the end of x (delay
 * N - 16, and the reverse) must give +-(N - 16), magnitude 1, as must a single
 * sample at x[N - 1] and y[0] (lag N - 1). x a circular shift of y by 16: the
 * linear correlation keeps only N - 16 samples of the overlap (magnitude
 * (N - 16)/N), where a circular one would give 1.
 */
void qa_cross_correlator::linear_not_circular(const std::string& device)
{
    // Under a sanitizer the longest frame is 1000 samples, zero-padded like 4096's.
    for (std::size_t N :
         { std::size_t(64), std::size_t(100), qa::scaled<std::size_t>(4096, 1000) }) {
        gaussian_source g(N);
        frame_data f(N);
        const long n = long(N), burst = 16;
        for (long sign : { 1L, -1L }) {
            const std::size_t k = f.add_frame(double(sign * (n - burst)));
            std::fill(f.x_frame(k), f.x_frame(k) + N, cfloat(0.0f));
            std::fill(f.y_frame(k), f.y_frame(k) + N, cfloat(0.0f));
            for (long i = 0; i < burst; ++i) {
                const cfloat b(g.complex_normal());
                if (sign > 0) {
                    f.y_frame(k)[i] = b;
                    f.x_frame(k)[n - burst + i] = b;
                } else {
                    f.x_frame(k)[i] = b;
                    f.y_frame(k)[n - burst + i] = b;
                }
            }
        }
        for (long sign : { 1L, -1L }) {
            const std::size_t k = f.add_frame(double(sign * (n - 1)));
            std::fill(f.x_frame(k), f.x_frame(k) + N, cfloat(0.0f));
            std::fill(f.y_frame(k), f.y_frame(k) + N, cfloat(0.0f));
            const cfloat b(0.6f, -0.8f);
            f.x_frame(k)[sign > 0 ? n - 1 : 0] = b;
            f.y_frame(k)[sign > 0 ? 0 : n - 1] = b;
        }
        const std::size_t circular = f.add_frame(16.0);
        for (long i = 0; i < n; ++i)
            f.y_frame(circular)[i] = cfloat(g.complex_normal());
        for (long i = 0; i < n; ++i)
            f.x_frame(circular)[i] = f.y_frame(circular)[(i - 16 + n) % n];
        const auto refs = reference_frames(f);
        for (std::size_t interp : { 1, 16 }) {
            const auto c = make_config(device, N, interp);
            const auto r = run(c, f, false, true);
            const std::string what = describe(c, " linear correlation");
            check_result(refs, f, r, c, what, false);
            for (std::size_t k = 0; k < f.nframes(); ++k) {
                std::ostringstream msg;
                msg << frame_name(what, k) << ": lag " << r.peaks[k].lag << " magnitude "
                    << r.peaks[k].magnitude << ", true delay " << f.truth[k];
                if (k != circular) // exact: |r(tau)| <= |r(d)| as for any burst
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(
                        msg.str(), float(f.truth[k]), r.peaks[k].lag);
                else // white: the other lags may move the peak by one grid step
                    CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                           std::fabs(r.peaks[k].lag - f.truth[k]) <=
                                               1.0 / double(interp));
                if (k != circular)
                    CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                           r.peaks[k].magnitude >= 1.0f - 1e-5f);
                else
                    CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                           r.peaks[k].magnitude < 1.0 - 8.0 / double(N));
            }
        }
    }
}

/*!
 * The closed-form kernel against the direct sum over one period of bins
 * ((1/L) sum_k S[k] e^{j 2 pi k tau / L}, k = -L/2 .. L/2 - 1, or -L/2 + 1 .. L/2, or
 * the Nyquist bin halved on both sides), and the IDFT of the padded X conj(Y)
 * against the direct correlation sum. The three conventions must differ for white
 * frames, so the test can tell which one the engine follows.
 */
void qa_cross_correlator::reference_self_check()
{
    for (std::size_t N : { 2, 3, 5, 12 }) {
        gaussian_source g(N);
        frame_data f(N);
        add_independent(f, g);
        add_white_delay(f, 1, 1.0, 0.3, g);
        for (std::size_t k = 0; k < f.nframes(); ++k) {
            const auto ref = reference_frame(f.x_frame(k), f.y_frame(k), N);
            const auto S = reference_spectrum(f.x_frame(k), f.y_frame(k), N);
            const long L = ref.L;
            CPPUNIT_ASSERT_EQUAL(long(S.size()), L);
            const double tol = 1e-12 * ref.scale;
            for (long m = 0; m < L; ++m) { // padded circular correlation
                cdouble sum = 0.0;
                for (long q = 0; q < L; ++q)
                    sum += S[q] * std::polar(1.0, 2.0 * pi * double(q * m) / double(L));
                const long l = m < L / 2 ? m : m - L;
                CPPUNIT_ASSERT(std::abs(sum / double(L) - ref.at(l)) <= tol);
            }
            double convention_gap = 0.0;
            for (long interp : { 3L, 4L }) {
                for (long l0 = -long(N) + 1; l0 < long(N); ++l0) {
                    for (long j = -interp; j <= interp; ++j) {
                        const double tau = double(l0) + double(j) / double(interp);
                        cdouble neg = 0.0, nyq = 0.0;
                        for (long q = -L / 2; q < L / 2; ++q)
                            neg +=
                                S[(q + L) % L] *
                                std::polar(1.0, 2.0 * pi * double(q) * tau / double(L));
                        nyq = S[L / 2];
                        const cdouble pos = neg + nyq * (std::polar(1.0, pi * tau) -
                                                         std::polar(1.0, -pi * tau));
                        const cdouble split = neg + 0.5 * nyq *
                                                        (std::polar(1.0, pi * tau) -
                                                         std::polar(1.0, -pi * tau));
                        const std::pair<nyquist_convention, cdouble> expected[] = {
                            { nyquist_convention::negative, neg / double(L) },
                            { nyquist_convention::positive, pos / double(L) },
                            { nyquist_convention::split, split / double(L) },
                        };
                        for (const auto& e : expected) {
                            const cdouble got = ref.fine(l0, j, interp, e.first);
                            std::ostringstream msg;
                            msg << "N=" << N << " tau=" << tau << " convention "
                                << int(e.first) << ": kernel " << got << ", direct "
                                << e.second;
                            CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                                   std::abs(got - e.second) <= tol);
                        }
                        convention_gap =
                            std::max(convention_gap, std::abs(pos - neg) / double(L));
                    }
                }
            }
            CPPUNIT_ASSERT(convention_gap > 1e-3 * ref.scale);
        }
    }
}

CPPUNIT_TEST_SUITE_REGISTRATION(qa_cross_correlator);

} // namespace core
} // namespace cudadsp
} // namespace gr
