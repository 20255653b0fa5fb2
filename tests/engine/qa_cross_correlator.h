/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_CROSS_CORRELATOR_H
#define INCLUDED_CUDADSP_QA_CROSS_CORRELATOR_H

// The fixture of qa_cross_correlator, its cases in one file per concern, and what
// they share (defined in qa_cross_correlator_support.cc).
//
// Cross-correlator engine, CPU and CUDA backends, against a float64 reference written
// here from the definition in include/gnuradio/cudadsp/core/cross_correlator.h (not
// from the engine's code):
//
//  * r[l] = sum_n x[n] conj(y[n - l]), l = -(N-1) .. N-1, summed directly (O(N^2));
//  * the fine grid r(tau), tau = l0 + j/interp, from the band-limited (DFT)
//    interpolation of the correlation zero-padded to L = transform_len():
//        r(tau) = (1/L) sum_k S[k] e^{+j 2 pi k tau / L},   S = DFT_L(padded r),
//    k over one period of L bins. Written as a sum over the lags,
//        r(tau) = sum_l r[l] D(tau - l),  D(t) = (1/L) sum_k e^{j 2 pi k t / L},
//    with D in closed form; the test reference_self_check checks the closed form
//    against the direct sum over k (and the padded IDFT of X conj(Y) against r).
//    Which side of the spectrum the Nyquist bin k = L/2 sits on (k = -L/2, k = +L/2,
//    or half on each) changes r(tau) between the integer lags by
//    sin(pi tau) S[L/2] / L; the header specifies the split (engine_nyquist).
//  * the lag: the argmax of |r| over the whole grid l0 + j/interp, j = -interp ..
//    interp (the smallest lag on ties, as for l0), "limited to +-max_lag": an argmax
//    beyond +-max_lag (only possible when |l0| = max_lag) becomes l0 itself, with
//    magnitude and phase of r(l0).
//  * the spectrum X conj(Y) from direct float64 DFTs of the zero-padded frames.
//
// Tolerances. Every correlation value (integer or fine grid), cross-spectrum bin and
// correlation output may carry an error of 1e-5 of the frame's peak scale (max |r[l]|
// over all lags for r, max |S[k]| for the spectrum); magnitude and phase carry that
// error through |r| / sqrt(E_x E_y) and arg r. Where the peak is not decided at that
// precision (two integer lags or two grid points within twice the error of each
// other), any of the near-equal candidates is accepted, and the magnitude and phase
// must be those of the candidate the engine returned. The physical truth (delays,
// phases, coherence) is checked as well, with the margins stated at each case.

#include "qa_float_bits.h"
#include "qa_support.h"
#include <gnuradio/cudadsp/core/cross_correlator.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cmath>
#include <complex>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;
using peak_t = cross_correlation_peak;

const double pi = 3.14159265358979323846;
//! Model error of every correlation or spectrum value, relative to its peak scale.
const double tol_rel = 1e-5;

using qa::bits_of;
using qa::poison_nan;
using qa::poisoned;

inline peak_t poison_peak() { return { poison_nan(), poison_nan(), poison_nan() }; }

inline cfloat poison_complex() { return { poison_nan(), poison_nan() }; }

using qa::gaussian_source;

//! A band-limited signal: K complex tones at frequencies in [-B, B] cycles per sample,
//! total mean power 1. Exactly band-limited, so s(t - d) is s delayed by any real d
//! (the frequency-domain shift e^{-j 2 pi f d} of every tone).
struct tone_set {
    std::vector<double> f;
    std::vector<cdouble> a;

    tone_set(gaussian_source& g, std::size_t K, double fmin, double fmax)
    {
        for (std::size_t k = 0; k < K; ++k) {
            f.push_back(g.uniform(fmin, fmax));
            a.push_back(g.complex_normal(1.0 / double(K)));
        }
    }

    cdouble at(double t) const
    {
        cdouble s = 0.0;
        for (std::size_t k = 0; k < f.size(); ++k)
            s += a[k] * std::polar(1.0, 2.0 * pi * f[k] * t);
        return s;
    }
};

//! Frames for one engine call: nframes * N samples of x and of y.
struct frame_data {
    std::size_t N = 0;
    std::vector<cfloat> x, y;
    std::vector<double> truth; //!< per frame: the true delay where one is set

    explicit frame_data(std::size_t n) : N(n) {}
    std::size_t nframes() const { return x.size() / N; }
    cfloat* x_frame(std::size_t k) { return x.data() + k * N; }
    cfloat* y_frame(std::size_t k) { return y.data() + k * N; }
    std::size_t add_frame(double truth_delay = 0.0)
    {
        x.resize(x.size() + N);
        y.resize(y.size() + N);
        truth.push_back(truth_delay);
        return nframes() - 1;
    }
};

/*!
 * White Gaussian s on integers (unit power); x[n] = gain s[n - d] + noise,
 * y[n] = s[n] + noise, noise white of power \p noise_power on each.
 */
void add_white_delay(
    frame_data& f, long d, cdouble gain, double noise_power, gaussian_source& g);

/*!
 * Band-limited s (\p ntones tones in [-bandwidth, bandwidth]); x[n] = gain s(n - d)
 * + noise, y[n] = s(n) + noise.
 */
void add_band_delay(frame_data& f,
                    double d,
                    cdouble gain,
                    double noise_power,
                    gaussian_source& g,
                    std::size_t ntones = 32,
                    double bandwidth = 0.35);

//! x and y independent white noise.
void add_independent(frame_data& f, gaussian_source& g);

//! A mix of frames of every kind (delays within +-max_lag where one is set).
frame_data
mixed_frames(std::size_t N, std::size_t nframes, long max_lag, std::uint64_t seed);

//! Where the Nyquist bin k = L/2 goes in the interpolation r(tau) (see the file comment).
enum class nyquist_convention { negative, positive, split };

//! The convention the header states: the Nyquist bin split evenly between +L/2 and -L/2.
const nyquist_convention engine_nyquist = nyquist_convention::split;

long pow2_at_least(long n);

struct frame_reference {
    long N = 0, L = 0;
    std::vector<cdouble> r; //!< r[l + N - 1], l = -(N-1) .. N-1
    double ex = 0.0, ey = 0.0;
    double scale = 0.0; //!< max |r[l]| over all lags

    cdouble at(long l) const { return (l <= -N || l >= N) ? 0.0 : r[l + N - 1]; }

    /*! r(l0 + j / interp): the sum over the lags of r[l] D(tau - l). At integer tau the
     *  kernel is 1 at 0 and 0 elsewhere, so r(tau) = r[tau] there. */
    cdouble
    fine(long l0, long j, long interp, nyquist_convention c = engine_nyquist) const
    {
        if (j % interp == 0)
            return at(l0 + j / interp);
        const long base = l0 + j / interp; // tau = base + frac, 0 < |frac| < 1
        const double frac = double(j % interp) / double(interp);
        const double sin_frac = std::sin(pi * frac);
        cdouble sum = 0.0;
        for (long l = -(N - 1); l <= N - 1; ++l) {
            const long m = base - l; // t = tau - l = m + frac
            const double t = double(m) + frac;
            const double sin_t = (m % 2 == 0) ? sin_frac : -sin_frac; // sin(pi t)
            cdouble D = std::polar(sin_t / (double(L) * std::sin(pi * t / double(L))),
                                   -pi * t / double(L));
            if (c == nyquist_convention::split)
                D += cdouble(0.0, sin_t / double(L));
            else if (c == nyquist_convention::positive)
                D += cdouble(0.0, 2.0 * sin_t / double(L));
            sum += r[l + N - 1] * D;
        }
        return sum;
    }
};

frame_reference reference_frame(const cfloat* x, const cfloat* y, std::size_t n);

std::vector<frame_reference> reference_frames(const frame_data& f);

//! DFT of length L of the zero-padded frame, float64, direct.
std::vector<cdouble> reference_dft(const cfloat* x, std::size_t n, long L);

//! X conj(Y), FFT order.
std::vector<cdouble> reference_spectrum(const cfloat* x, const cfloat* y, std::size_t n);

struct grid_point {
    long l0 = 0, j = 0; //!< tau = l0 + j / interp
    cdouble value;
    double tau(long interp) const { return double(l0) + double(j) / double(interp); }
};

struct frame_expectation {
    bool zero = false;                  //!< E_x E_y == 0: magnitude 0, r identically 0
    double eps = 0.0;                   //!< model error of any r value
    double norm = 0.0;                  //!< sqrt(E_x E_y)
    grid_point best;                    //!< the reference's choice (smallest lag on ties)
    std::vector<grid_point> acceptable; //!< every choice within the model error
    bool decided() const { return acceptable.size() == 1; }
};

frame_expectation expect_peak(const frame_reference& ref,
                              const cross_correlator_config& c);

//! Largest errors seen, absolute and as a fraction of their tolerance.
struct error_stats {
    double mag_abs = 0, mag_fraction = 0, phase_abs = 0, phase_fraction = 0;
    double vector_fraction = 0;
    std::size_t frames = 0, undecided = 0;

    void print(const std::string& what) const
    {
        std::ostringstream s;
        s << std::setprecision(2) << "qa_cross_correlator: " << what << ": " << frames
          << " frames; max |error| (fraction of tolerance): magnitude " << mag_abs << " ("
          << mag_fraction << "), phase " << phase_abs << " rad (" << phase_fraction
          << ")";
        if (vector_fraction > 0)
            s << ", spectrum/correlation " << vector_fraction << " of tolerance";
        s << "; " << undecided << " peaks undecided at the model precision";
        std::cout << s.str() << std::endl;
    }
};

double wrap_pi(double a);

std::string frame_name(const std::string& what, std::size_t k);

void check_peak(const frame_expectation& e,
                const peak_t& got,
                const cross_correlator_config& c,
                const std::string& what,
                error_stats* stats = nullptr);

//! |got - ref| <= tol_rel * scale for every element (exact 0 where scale is 0).
void check_vector(const std::vector<cdouble>& ref,
                  const cfloat* got,
                  double scale,
                  const std::string& what,
                  error_stats* stats = nullptr);

cross_correlator_config make_config(const std::string& device,
                                    std::size_t N,
                                    std::size_t interp,
                                    std::size_t max_lag = 0,
                                    std::size_t batch_frames = 0);

struct result {
    std::vector<peak_t> peaks;
    std::vector<cfloat> spectrum, correlation; //!< empty when not asked for
};

result run(cross_correlator& engine,
           const cfloat* x,
           const cfloat* y,
           std::size_t nframes,
           bool spectrum = false,
           bool correlation = false);

result run(const cross_correlator_config& c,
           const frame_data& f,
           bool spectrum = false,
           bool correlation = false);

std::string describe(const cross_correlator_config& c, const std::string& extra = "");

/*! Peaks (and the optional outputs present in \p r) of every frame against the
 *  reference. */
void check_result(const std::vector<frame_reference>& refs,
                  const frame_data& f,
                  const result& r,
                  const cross_correlator_config& c,
                  const std::string& what,
                  bool print = true,
                  const std::vector<std::vector<cdouble>>* spectra = nullptr);

//! Bit equality of two results, output by output.
void assert_identical(const result& a, const result& b, const std::string& what);

class qa_cross_correlator : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_cross_correlator);
    CPPUNIT_TEST(reference_self_check);
    CPPUNIT_TEST(config_validation);
    QA_BACKEND_TEST(integer_delays);
    QA_BACKEND_TEST(fractional_delays);
    QA_BACKEND_TEST(phase_offset);
    QA_BACKEND_TEST(identical_and_coherence);
    QA_BACKEND_TEST(max_lag_limits_the_search);
    QA_BACKEND_TEST(ties_and_zero_energy);
    QA_BACKEND_TEST(dynamic_range);
    QA_BACKEND_TEST(outputs_against_reference);
    QA_BACKEND_TEST(linear_not_circular);
    QA_BACKEND_TEST(frames_and_calls);
    QA_BACKEND_TEST(non_finite_frames);
    QA_BACKEND_TEST(frames_beyond_float32_range);
    CPPUNIT_TEST(cpu_engine_has_no_device_entry);
    QA_CUDA_TEST(pinned_and_pageable_buffers);
    QA_CUDA_TEST(device_pointers_and_streams);
    QA_CUDA_TEST(batch_frames_invariance);
    QA_CUDA_TEST(matches_cpu);
    CPPUNIT_TEST_SUITE_END();

public:
    // qa_cross_correlator.cc: the reference, the engines against it and the truth
    void integer_delays(const std::string& device);
    void fractional_delays(const std::string& device);
    void phase_offset(const std::string& device);
    void identical_and_coherence(const std::string& device);
    void max_lag_limits_the_search(const std::string& device);
    void ties_and_zero_energy(const std::string& device);
    void dynamic_range(const std::string& device);
    void outputs_against_reference(const std::string& device);
    void linear_not_circular(const std::string& device);
    void reference_self_check();

    // qa_cross_correlator_streaming.cc: frames over calls
    void frames_and_calls(const std::string& device);

    // qa_cross_correlator_bad_input.cc: bad configurations and frames
    void config_validation();
    void non_finite_frames(const std::string& device);
    void frames_beyond_float32_range(const std::string& device);

    // qa_cross_correlator_device.cc: device entry points, the CUDA backend alone
    void cpu_engine_has_no_device_entry();
    void pinned_and_pageable_buffers(const std::string&);
    void device_pointers_and_streams(const std::string&);
    void batch_frames_invariance(const std::string&);
    void matches_cpu(const std::string&);
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_CROSS_CORRELATOR_H */
