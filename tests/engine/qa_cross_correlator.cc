/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

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
#include "runtime/cuda_resources.h"
#include <gnuradio/cudadsp/core/cross_correlator.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
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
using peak_t = cross_correlation_peak;

const double pi = 3.14159265358979323846;
//! Model error of every correlation or spectrum value, relative to its peak scale.
const double tol_rel = 1e-5;

using qa::bits_of;
using qa::poison_nan;
using qa::poisoned;

peak_t poison_peak() { return { poison_nan(), poison_nan(), poison_nan() }; }

cfloat poison_complex() { return { poison_nan(), poison_nan() }; }

// ---------------------------------------------------------------------------------
// Signals
// ---------------------------------------------------------------------------------

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
    frame_data& f, long d, cdouble gain, double noise_power, gaussian_source& g)
{
    const long N = long(f.N);
    const std::size_t k = f.add_frame(double(d));
    std::vector<cdouble> s(3 * N + 1);
    for (auto& v : s)
        v = g.complex_normal();
    auto s_at = [&](long n) { return s[std::size_t(n + N)]; }; // n in [-N, 2N]
    for (long n = 0; n < N; ++n) {
        f.x_frame(k)[n] = cfloat(gain * s_at(n - d) + g.complex_normal(noise_power));
        f.y_frame(k)[n] = cfloat(s_at(n) + g.complex_normal(noise_power));
    }
}

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
                    double bandwidth = 0.35)
{
    const std::size_t k = f.add_frame(d);
    const tone_set s(g, ntones, -bandwidth, bandwidth);
    for (std::size_t n = 0; n < f.N; ++n) {
        f.x_frame(k)[n] =
            cfloat(gain * s.at(double(n) - d) + g.complex_normal(noise_power));
        f.y_frame(k)[n] = cfloat(s.at(double(n)) + g.complex_normal(noise_power));
    }
}

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

//! x and y independent white noise.
void add_independent(frame_data& f, gaussian_source& g)
{
    const std::size_t k = f.add_frame();
    for (std::size_t n = 0; n < f.N; ++n) {
        f.x_frame(k)[n] = cfloat(g.complex_normal());
        f.y_frame(k)[n] = cfloat(g.complex_normal());
    }
}

//! A mix of frames of every kind (delays within +-max_lag where one is set).
frame_data
mixed_frames(std::size_t N, std::size_t nframes, long max_lag, std::uint64_t seed)
{
    gaussian_source g(seed);
    frame_data f(N);
    for (std::size_t i = 0; i < nframes; ++i) {
        const cdouble gain = std::polar(g.uniform(0.2, 3.0), g.uniform(-pi, pi));
        switch (i % 4) {
        case 0:
            add_white_delay(f, g.integer(-max_lag, max_lag), gain, 0.05, g);
            break;
        case 1:
            add_band_delay(f,
                           g.uniform(-0.9, 0.9) * double(max_lag),
                           gain,
                           0.01,
                           g,
                           N < 64 ? 4 : 32);
            break;
        case 2:
            add_independent(f, g);
            break;
        default: // identical frames up to a complex gain
            add_white_delay(f, 0, gain, 0.0, g);
            break;
        }
    }
    return f;
}

// ---------------------------------------------------------------------------------
// float64 reference, from the header's definition
// ---------------------------------------------------------------------------------

//! Where the Nyquist bin k = L/2 goes in the interpolation r(tau) (see the file comment).
enum class nyquist_convention { negative, positive, split };

//! The convention the header states: the Nyquist bin split evenly between +L/2 and -L/2.
const nyquist_convention engine_nyquist = nyquist_convention::split;

long pow2_at_least(long n)
{
    long L = 1;
    while (L < n)
        L *= 2;
    return L;
}

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

frame_reference reference_frame(const cfloat* x, const cfloat* y, std::size_t n)
{
    frame_reference f;
    f.N = long(n);
    f.L = pow2_at_least(2 * f.N);
    const long N = f.N;
    std::vector<double> xr(n), xi(n), yr(n), yi(n);
    for (std::size_t i = 0; i < n; ++i) {
        xr[i] = x[i].real();
        xi[i] = x[i].imag();
        yr[i] = y[i].real();
        yi[i] = y[i].imag();
        f.ex += xr[i] * xr[i] + xi[i] * xi[i];
        f.ey += yr[i] * yr[i] + yi[i] * yi[i];
    }
    f.r.resize(2 * n - 1);
    for (long l = -(N - 1); l <= N - 1; ++l) {
        double re = 0.0, im = 0.0;
        for (long i = std::max(0L, l); i <= std::min(N - 1, N - 1 + l); ++i) {
            const long k = i - l; // x[i] conj(y[i - l])
            re += xr[i] * yr[k] + xi[i] * yi[k];
            im += xi[i] * yr[k] - xr[i] * yi[k];
        }
        f.r[l + N - 1] = { re, im };
        f.scale = std::max(f.scale, std::abs(f.r[l + N - 1]));
    }
    return f;
}

std::vector<frame_reference> reference_frames(const frame_data& f)
{
    std::vector<frame_reference> out;
    for (std::size_t k = 0; k < f.nframes(); ++k)
        out.push_back(reference_frame(f.x.data() + k * f.N, f.y.data() + k * f.N, f.N));
    return out;
}

//! DFT of length L of the zero-padded frame, float64, direct.
std::vector<cdouble> reference_dft(const cfloat* x, std::size_t n, long L)
{
    std::vector<double> c(L), s(L);
    for (long i = 0; i < L; ++i) {
        c[i] = std::cos(2.0 * pi * double(i) / double(L));
        s[i] = -std::sin(2.0 * pi * double(i) / double(L));
    }
    std::vector<cdouble> X(L);
    for (long k = 0; k < L; ++k) {
        double re = 0.0, im = 0.0;
        long idx = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double ar = x[i].real(), ai = x[i].imag();
            re += ar * c[idx] - ai * s[idx];
            im += ar * s[idx] + ai * c[idx];
            idx += k;
            if (idx >= L)
                idx -= L;
        }
        X[k] = { re, im };
    }
    return X;
}

//! X conj(Y), FFT order.
std::vector<cdouble> reference_spectrum(const cfloat* x, const cfloat* y, std::size_t n)
{
    const long L = pow2_at_least(2 * long(n));
    auto X = reference_dft(x, n, L);
    const auto Y = reference_dft(y, n, L);
    for (long k = 0; k < L; ++k)
        X[k] *= std::conj(Y[k]);
    return X;
}

// ---------------------------------------------------------------------------------
// What the engine may return for one frame
// ---------------------------------------------------------------------------------

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
                              const cross_correlator_config& c)
{
    frame_expectation e;
    const long ml = long(c.effective_max_lag()), interp = long(c.interp);
    e.norm = std::sqrt(ref.ex) * std::sqrt(ref.ey);
    e.zero = ref.ex == 0.0 || ref.ey == 0.0;
    e.eps = tol_rel * ref.scale;
    if (e.zero)
        return e;
    double top = -1.0;
    long l0 = 0;
    for (long l = -ml; l <= ml; ++l)
        if (std::abs(ref.at(l)) > top) {
            top = std::abs(ref.at(l));
            l0 = l;
        }
    // The whole grid l0 + j / interp, j = -interp .. interp, competes; an argmax
    // beyond +-max_lag (possible only when |l0| = max_lag) is limited to l0 itself.
    auto grid = [&](long center) {
        std::vector<grid_point> g;
        for (long j = -interp; j <= interp; ++j)
            g.push_back({ center, j, ref.fine(center, j, interp) });
        return g;
    };
    auto limited = [&](const grid_point& p) {
        if (std::labs(p.l0 * interp + p.j) <= ml * interp)
            return p;
        return grid_point{ p.l0, 0, ref.at(p.l0) };
    };
    auto argmax = [](const std::vector<grid_point>& g) {
        std::size_t b = 0; // the first (smallest lag) of a tie
        for (std::size_t i = 1; i < g.size(); ++i)
            if (std::abs(g[i].value) > std::abs(g[b].value))
                b = i;
        return b;
    };
    const auto g0 = grid(l0);
    e.best = limited(g0[argmax(g0)]);
    for (long l = -ml; l <= ml; ++l) {
        if (std::abs(ref.at(l)) < top - 2.0 * e.eps)
            continue;
        const auto g = l == l0 ? g0 : grid(l);
        const double gmax = std::abs(g[argmax(g)].value);
        for (const grid_point& p : g) {
            if (std::abs(p.value) < gmax - 2.0 * e.eps)
                continue;
            const grid_point q = limited(p);
            bool seen = false;
            for (const grid_point& a : e.acceptable)
                seen = seen || (a.l0 * interp + a.j == q.l0 * interp + q.j);
            if (!seen)
                e.acceptable.push_back(q);
        }
    }
    return e;
}

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

double wrap_pi(double a)
{
    a = std::fmod(a, 2.0 * pi);
    if (a > pi)
        a -= 2.0 * pi;
    else if (a <= -pi)
        a += 2.0 * pi;
    return a;
}

std::string frame_name(const std::string& what, std::size_t k)
{
    return what + ": frame " + std::to_string(k);
}

void check_peak(const frame_expectation& e,
                const peak_t& got,
                const cross_correlator_config& c,
                const std::string& what,
                error_stats* stats = nullptr)
{
    const long interp = long(c.interp);
    const double ml = double(c.effective_max_lag());
    auto fail = [&](const std::string& why) {
        std::ostringstream msg;
        msg.precision(10);
        msg << what << ": got lag " << got.lag << " magnitude " << got.magnitude
            << " phase " << got.phase << "; reference lag " << e.best.tau(interp)
            << " magnitude " << std::abs(e.best.value) / e.norm << " phase "
            << std::arg(e.best.value) << " (" << e.acceptable.size()
            << " acceptable grid points): " << why;
        CPPUNIT_FAIL(msg.str());
    };
    if (poisoned(got.lag) || poisoned(got.magnitude) || poisoned(got.phase))
        fail("never written");
    if (!std::isfinite(got.lag) || !std::isfinite(got.magnitude) ||
        !std::isfinite(got.phase))
        fail("not finite");
    if (!(std::fabs(got.lag) <= ml))
        fail("|lag| beyond max_lag");
    if (!(got.magnitude >= 0.0f && got.magnitude <= 1.0f))
        fail("magnitude outside [0, 1]");
    if (!(std::fabs(got.phase) <= float(pi)))
        fail("phase outside [-pi, pi]");
    if (stats)
        ++stats->frames;
    if (e.zero) {
        // r is identically 0: no lag is preferred, the documented answer is lag 0.
        if (got.magnitude != 0.0f)
            fail("magnitude of a zero-energy frame must be 0");
        if (got.lag != 0.0f)
            fail("zero-energy frame: the lag must be 0");
        if (got.phase != 0.0f) // arg 0: the block's documentation says 0
            fail("phase of a zero-energy frame must be 0");
        return;
    }
    const grid_point* match = nullptr;
    for (const grid_point& p : e.acceptable) {
        const double tau = p.tau(interp);
        if (std::fabs(double(got.lag) - tau) <=
            4.0 * 0x1p-24 * std::max(1.0, std::fabs(tau)))
            match = &p;
    }
    if (!match)
        fail("lag is not the fine-grid argmax");
    if (stats && !e.decided())
        ++stats->undecided;
    const double m = std::abs(match->value);
    const double mag_tol = (e.eps + tol_rel * m) / e.norm + 0x1p-23;
    const double mag_err = std::fabs(double(got.magnitude) - m / e.norm);
    if (!(mag_err <= mag_tol))
        fail("magnitude outside the tolerance " + std::to_string(mag_tol));
    if (stats) {
        stats->mag_abs = std::max(stats->mag_abs, mag_err);
        stats->mag_fraction = std::max(stats->mag_fraction, mag_err / mag_tol);
    }
    if (m > 2.0 * e.eps) {
        const double phase_tol = std::asin(e.eps / m) + 4e-7;
        const double phase_err =
            std::fabs(wrap_pi(double(got.phase) - std::arg(match->value)));
        if (!(phase_err <= phase_tol))
            fail("phase outside the tolerance " + std::to_string(phase_tol));
        if (stats) {
            stats->phase_abs = std::max(stats->phase_abs, phase_err);
            stats->phase_fraction =
                std::max(stats->phase_fraction, phase_err / phase_tol);
        }
    }
}

//! |got - ref| <= tol_rel * scale for every element (exact 0 where scale is 0).
void check_vector(const std::vector<cdouble>& ref,
                  const cfloat* got,
                  double scale,
                  const std::string& what,
                  error_stats* stats = nullptr)
{
    const double tol = tol_rel * scale;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        if (poisoned(got[i].real()) || poisoned(got[i].imag()))
            CPPUNIT_FAIL(what + ": element " + std::to_string(i) + " never written");
        const double err = std::abs(cdouble(got[i]) - ref[i]);
        if (!(err <= tol)) {
            std::ostringstream msg;
            msg.precision(10);
            msg << what << ": element " << i << ": expected " << ref[i] << ", got "
                << got[i] << " (error " << err << ", tolerance " << tol << ")";
            CPPUNIT_FAIL(msg.str());
        }
        if (stats && tol > 0)
            stats->vector_fraction = std::max(stats->vector_fraction, err / tol);
    }
}

// ---------------------------------------------------------------------------------
// Running the engine
// ---------------------------------------------------------------------------------

cross_correlator_config make_config(const std::string& device,
                                    std::size_t N,
                                    std::size_t interp,
                                    std::size_t max_lag = 0,
                                    std::size_t batch_frames = 0)
{
    cross_correlator_config c;
    c.fft_len = N;
    c.interp = interp;
    c.max_lag = max_lag;
    c.device = device;
    c.batch_frames = batch_frames;
    return c;
}

struct result {
    std::vector<peak_t> peaks;
    std::vector<cfloat> spectrum, correlation; //!< empty when not asked for
};

result run(cross_correlator& engine,
           const cfloat* x,
           const cfloat* y,
           std::size_t nframes,
           bool spectrum = false,
           bool correlation = false)
{
    const auto& c = engine.config();
    result out;
    out.peaks.assign(nframes, poison_peak());
    if (spectrum)
        out.spectrum.assign(nframes * c.transform_len(), poison_complex());
    if (correlation)
        out.correlation.assign(nframes * c.correlation_len(), poison_complex());
    engine.process(x,
                   y,
                   nframes,
                   out.peaks.data(),
                   spectrum ? out.spectrum.data() : nullptr,
                   correlation ? out.correlation.data() : nullptr);
    return out;
}

result run(const cross_correlator_config& c,
           const frame_data& f,
           bool spectrum = false,
           bool correlation = false)
{
    auto engine = cross_correlator::make(c);
    return run(*engine, f.x.data(), f.y.data(), f.nframes(), spectrum, correlation);
}

std::string describe(const cross_correlator_config& c, const std::string& extra = "")
{
    std::ostringstream s;
    s << c.device << " N=" << c.fft_len << " interp=" << c.interp
      << " max_lag=" << c.effective_max_lag();
    if (c.batch_frames)
        s << " batch_frames=" << c.batch_frames;
    s << extra;
    return s.str();
}

/*! Peaks (and the optional outputs present in \p r) of every frame against the
 *  reference. */
void check_result(const std::vector<frame_reference>& refs,
                  const frame_data& f,
                  const result& r,
                  const cross_correlator_config& c,
                  const std::string& what,
                  bool print = true,
                  const std::vector<std::vector<cdouble>>* spectra = nullptr)
{
    error_stats stats;
    CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": frames", refs.size(), r.peaks.size());
    const long ml = long(c.effective_max_lag());
    for (std::size_t k = 0; k < refs.size(); ++k) {
        const std::string name = frame_name(what, k);
        check_peak(expect_peak(refs[k], c), r.peaks[k], c, name, &stats);
        if (!r.correlation.empty()) {
            std::vector<cdouble> ref_r;
            for (long l = -ml; l <= ml; ++l)
                ref_r.push_back(refs[k].at(l));
            check_vector(ref_r,
                         r.correlation.data() + k * c.correlation_len(),
                         refs[k].scale,
                         name + ": correlation",
                         &stats);
        }
        if (!r.spectrum.empty()) {
            const auto S =
                spectra
                    ? (*spectra)[k]
                    : reference_spectrum(f.x.data() + k * f.N, f.y.data() + k * f.N, f.N);
            double scale = 0.0;
            for (const cdouble& s : S)
                scale = std::max(scale, std::abs(s));
            check_vector(S,
                         r.spectrum.data() + k * c.transform_len(),
                         scale,
                         name + ": spectrum",
                         &stats);
        }
    }
    if (print)
        stats.print(what);
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

//! Bit equality of two results, output by output.
void assert_identical(const result& a, const result& b, const std::string& what)
{
    CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": frames", a.peaks.size(), b.peaks.size());
    for (std::size_t k = 0; k < a.peaks.size(); ++k) {
        const peak_t &p = a.peaks[k], &q = b.peaks[k];
        if (poisoned(q.lag) || poisoned(q.magnitude) || poisoned(q.phase))
            CPPUNIT_FAIL(frame_name(what, k) + ": never written");
        if (bits_of(p.lag) != bits_of(q.lag) ||
            bits_of(p.magnitude) != bits_of(q.magnitude) ||
            bits_of(p.phase) != bits_of(q.phase)) {
            std::ostringstream msg;
            msg.precision(10);
            msg << frame_name(what, k) << ": (" << p.lag << ", " << p.magnitude << ", "
                << p.phase << ") against (" << q.lag << ", " << q.magnitude << ", "
                << q.phase << ")";
            CPPUNIT_FAIL(msg.str());
        }
    }
    auto same = [&](const std::vector<cfloat>& u,
                    const std::vector<cfloat>& v,
                    const std::string& name) {
        CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": " + name + " size", u.size(), v.size());
        for (std::size_t i = 0; i < u.size(); ++i)
            if (bits_of(u[i].real()) != bits_of(v[i].real()) ||
                bits_of(u[i].imag()) != bits_of(v[i].imag())) {
                std::ostringstream msg;
                msg.precision(10);
                msg << what << ": " << name << " element " << i << ": " << u[i]
                    << " against " << v[i];
                CPPUNIT_FAIL(msg.str());
            }
    };
    same(a.spectrum, b.spectrum, "spectrum");
    same(a.correlation, b.correlation, "correlation");
}

} // namespace

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
    // -----------------------------------------------------------------------------
    // Cases run on each backend
    // -----------------------------------------------------------------------------

    //! Integer delays of white noise (positive and negative, up to +-max_lag), noise
    //! at -10 dB: the lag within 1/interp of the delay.
    void integer_delays(const std::string& device)
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
    void fractional_delays(const std::string& device)
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
    void phase_offset(const std::string& device)
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
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    msg.str(), float(f.truth[k]), r.peaks[k].lag);
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
    void identical_and_coherence(const std::string& device)
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
                    msg << frame_name(what, k) << ": lag " << r.peaks[k].lag
                        << " magnitude " << r.peaks[k].magnitude << " phase "
                        << r.peaks[k].phase;
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(msg.str(), 0.0f, r.peaks[k].lag);
                    CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                           r.peaks[k].magnitude >= 1.0f - 1e-5f &&
                                               r.peaks[k].magnitude <= 1.0f);
                    CPPUNIT_ASSERT_MESSAGE(
                        msg.str(),
                        std::fabs(wrap_pi(r.peaks[k].phase - phases[k])) <= 1e-5);
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
            const std::string what =
                describe(c, " coherence " + std::to_string(coherence));
            check_result(refs, f, r, c, what);
            double mean = 0.0;
            for (std::size_t k = 0; k < f.nframes(); ++k) {
                std::ostringstream msg;
                msg << frame_name(what, k) << ": magnitude " << r.peaks[k].magnitude;
                CPPUNIT_ASSERT_MESSAGE(
                    msg.str(), std::fabs(r.peaks[k].magnitude - coherence) <= 0.05);
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
    void max_lag_limits_the_search(const std::string& device)
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
                f.x_frame(k)[n] =
                    cfloat(s[n0 + n - sw.first] + 0.4 * s[n0 + n - sw.second] +
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
            check_result(refs,
                         f,
                         full,
                         full_config,
                         describe(full_config, " max_lag limit"),
                         false);
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
    void ties_and_zero_energy(const std::string& device)
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
                        z.x_frame(k)[n] = kind == 0 || kind == 2
                                              ? cfloat(0.0f)
                                              : cfloat(g.complex_normal());
                        z.y_frame(k)[n] = kind == 1 || kind == 2
                                              ? cfloat(0.0f)
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
                    check_result(
                        zrefs, z, r, c, describe(c, " zero-energy frames"), false);
                }
            }
        }
    }

    /*!
     * Amplitudes from 1e-15 to 1e15 (energies products from 1e-56 to 1e64, outside
     * float32's range once multiplied): the magnitude is |r| / sqrt(E_x E_y) all the
     * same.
     */
    void dynamic_range(const std::string& device)
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
    void outputs_against_reference(const std::string& device)
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
                    assert_identical(
                        a, correlation_only, describe(c, " correlation only"));
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
    void linear_not_circular(const std::string& device)
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
                    msg << frame_name(what, k) << ": lag " << r.peaks[k].lag
                        << " magnitude " << r.peaks[k].magnitude << ", true delay "
                        << f.truth[k];
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
                        CPPUNIT_ASSERT_MESSAGE(
                            msg.str(), r.peaks[k].magnitude < 1.0 - 8.0 / double(N));
                }
            }
        }
    }

    /*!
     * A frame with a NaN or an infinite sample (in x or in y) gives NaN lag, magnitude
     * and phase (lib/core/cross_correlation/cross_correlation_peak_rule.h); the frames
     * around it are unaffected.
     */
    void non_finite_frames(const std::string& device)
    {
        const std::size_t N = 100;
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        gaussian_source g(777);
        frame_data f(N);
        const std::vector<std::pair<bool, cfloat>> bad = {
            { true, { nan, 0.0f } },
            { false, { 0.0f, nan } },
            { true, { inf, 1.0f } },
            { false, { -inf, -inf } },
        };
        std::vector<std::size_t> bad_frames;
        for (const auto& b : bad) {
            add_white_delay(f, 4, 1.0, 0.1, g);
            add_white_delay(f, -3, 1.0, 0.1, g);
            const std::size_t k = f.nframes() - 1;
            (b.first ? f.x_frame(k) : f.y_frame(k))[37] = b.second;
            bad_frames.push_back(k);
        }
        add_white_delay(f, 2, 1.0, 0.1, g);
        const auto c = make_config(device, N, 4, 10);
        const auto r = run(c, f);
        const std::string what = describe(c, " non-finite samples");
        for (std::size_t k = 0; k < f.nframes(); ++k) {
            const peak_t& p = r.peaks[k];
            if (std::find(bad_frames.begin(), bad_frames.end(), k) != bad_frames.end()) {
                std::ostringstream msg;
                msg << frame_name(what, k) << ": (" << p.lag << ", " << p.magnitude
                    << ", " << p.phase << ")";
                CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                       !poisoned(p.lag) && !poisoned(p.magnitude) &&
                                           !poisoned(p.phase));
                CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                       std::isnan(p.lag) && std::isnan(p.magnitude) &&
                                           std::isnan(p.phase));
                continue;
            }
            const frame_reference ref =
                reference_frame(f.x.data() + k * N, f.y.data() + k * N, N);
            check_peak(expect_peak(ref, c), p, c, frame_name(what, k));
            CPPUNIT_ASSERT_MESSAGE(frame_name(what, k),
                                   std::fabs(p.lag - f.truth[k]) <= 0.25f);
        }
    }

    /*!
     * Finite frames the float32 transforms cannot hold: samples near FLT_MAX are bad
     * frames (NaN lag, magnitude and phase, as a NaN sample gives), frames of
     * denormals are zero frames (lag 0, magnitude 0, phase 0); the frames around them
     * keep their true lags. Each kind in x, in y and in both.
     */
    void frames_beyond_float32_range(const std::string& device)
    {
        const std::size_t N = 100;
        gaussian_source g(4242);
        frame_data f(N);
        enum class kind { huge, tiny };
        std::vector<std::pair<std::size_t, kind>> marked;
        for (kind k : { kind::huge, kind::tiny }) {
            for (int which = 0; which < 3; ++which) {
                add_white_delay(f, 4, 1.0, 0.1, g);
                add_white_delay(f, -3, 1.0, 0.1, g);
                const std::size_t frame = f.nframes() - 1;
                // 3e38 with random signs (the float32 transforms overflow), or
                // denormals of about 1e-40 (their products underflow to zero).
                const double scale = k == kind::huge ? 3e38 : 1e-40;
                for (std::size_t n = 0; n < N; ++n) {
                    const cdouble z = g.complex_normal();
                    const cfloat v(float(z.real() > 0 ? scale : -scale),
                                   float(z.imag() > 0 ? scale : -scale));
                    if (which != 1)
                        f.x_frame(frame)[n] = v;
                    if (which != 0)
                        f.y_frame(frame)[n] = v;
                }
                marked.push_back({ frame, k });
            }
        }
        add_white_delay(f, 2, 1.0, 0.1, g);
        for (std::size_t interp : { 1, 4 }) {
            const auto c = make_config(device, N, interp, 10);
            const auto r = run(c, f, true, true);
            const std::string what = describe(c, " beyond float32 range");
            for (std::size_t k = 0; k < f.nframes(); ++k) {
                const peak_t& p = r.peaks[k];
                std::ostringstream msg;
                msg << frame_name(what, k) << ": (" << p.lag << ", " << p.magnitude
                    << ", " << p.phase << ")";
                const auto m = std::find_if(
                    marked.begin(), marked.end(), [&](auto& e) { return e.first == k; });
                if (m == marked.end()) {
                    CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                           std::fabs(p.lag - f.truth[k]) <= 0.25f);
                    CPPUNIT_ASSERT_MESSAGE(msg.str(), p.magnitude > 0.5f);
                } else if (m->second == kind::huge) {
                    CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                           std::isnan(p.lag) && std::isnan(p.magnitude) &&
                                               std::isnan(p.phase));
                } else {
                    CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                           p.lag == 0.0f && p.magnitude == 0.0f &&
                                               p.phase == 0.0f);
                }
            }
        }
    }

    //! nframes 0 (nothing written), 1 and many; the frames of one call split over
    //! several calls give the same bits.
    void frames_and_calls(const std::string& device)
    {
        const std::size_t N = 100;
        const auto f = mixed_frames(N, 300, 40, 99);
        const auto c = make_config(device, N, 4, 50);
        auto engine = cross_correlator::make(c);
        std::vector<peak_t> peaks(3, poison_peak());
        std::vector<cfloat> spectrum(c.transform_len(), poison_complex());
        std::vector<cfloat> correlation(c.correlation_len(), poison_complex());
        engine->process(
            f.x.data(), f.y.data(), 0, peaks.data(), spectrum.data(), correlation.data());
        for (const peak_t& p : peaks)
            CPPUNIT_ASSERT(poisoned(p.lag) && poisoned(p.magnitude) && poisoned(p.phase));
        for (const cfloat& s : spectrum)
            CPPUNIT_ASSERT(poisoned(s.real()) && poisoned(s.imag()));
        for (const cfloat& s : correlation)
            CPPUNIT_ASSERT(poisoned(s.real()) && poisoned(s.imag()));

        const auto whole = run(*engine, f.x.data(), f.y.data(), f.nframes(), true, true);
        check_result(reference_frames(f), f, whole, c, describe(c, " 300 frames"));
        // One frame at a time for the first 10, then 7, then the rest.
        result split;
        split.peaks.assign(f.nframes(), poison_peak());
        split.spectrum.assign(f.nframes() * c.transform_len(), poison_complex());
        split.correlation.assign(f.nframes() * c.correlation_len(), poison_complex());
        std::vector<std::size_t> sizes(10, 1);
        sizes.push_back(7);
        sizes.push_back(f.nframes() - 17);
        std::size_t at = 0;
        for (std::size_t n : sizes) {
            engine->process(f.x.data() + at * N,
                            f.y.data() + at * N,
                            n,
                            split.peaks.data() + at,
                            split.spectrum.data() + at * c.transform_len(),
                            split.correlation.data() + at * c.correlation_len());
            at += n;
        }
        assert_identical(whole, split, describe(c, " split calls"));
        // A fresh engine on one frame.
        const auto one = run(c, [&] {
            frame_data last(N);
            last.add_frame();
            std::copy(f.x.end() - N, f.x.end(), last.x.begin());
            std::copy(f.y.end() - N, f.y.end(), last.y.begin());
            return last;
        }());
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), one.peaks.size());
        CPPUNIT_ASSERT_EQUAL(bits_of(whole.peaks.back().lag), bits_of(one.peaks[0].lag));
        CPPUNIT_ASSERT_EQUAL(bits_of(whole.peaks.back().magnitude),
                             bits_of(one.peaks[0].magnitude));
        CPPUNIT_ASSERT_EQUAL(bits_of(whole.peaks.back().phase),
                             bits_of(one.peaks[0].phase));
    }

    // -----------------------------------------------------------------------------
    // The reference itself
    // -----------------------------------------------------------------------------

    /*!
     * The closed-form kernel against the direct sum over one period of bins
     * ((1/L) sum_k S[k] e^{j 2 pi k tau / L}, k = -L/2 .. L/2 - 1, or -L/2 + 1 .. L/2, or
     * the Nyquist bin halved on both sides), and the IDFT of the padded X conj(Y)
     * against the direct correlation sum. The three conventions must differ for white
     * frames, so the test can tell which one the engine follows.
     */
    void reference_self_check()
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
                        sum +=
                            S[q] * std::polar(1.0, 2.0 * pi * double(q * m) / double(L));
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
                                neg += S[(q + L) % L] *
                                       std::polar(1.0,
                                                  2.0 * pi * double(q) * tau / double(L));
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

    void config_validation()
    {
        cross_correlator_config good;
        good.fft_len = 64;
        good.interp = 4;
        good.max_lag = 10;
        good.device = "cpu";
        good.validate();
        cross_correlator::make(good);
        // make() validates; validate() itself checks the sizes (the device string is
        // resolved by make(), as for the other engines).
        auto expect_error = [](cross_correlator_config c,
                               const std::string& field,
                               bool by_validate = true) {
            for (int via_make = by_validate ? 0 : 1; via_make < 2; ++via_make) {
                try {
                    if (via_make)
                        cross_correlator::make(c);
                    else
                        c.validate();
                } catch (const std::invalid_argument& e) {
                    CPPUNIT_ASSERT_MESSAGE(field + ": " + e.what(),
                                           std::string(e.what()).find(field) !=
                                               std::string::npos);
                    continue;
                }
                CPPUNIT_FAIL("no std::invalid_argument for a bad " + field +
                             (via_make ? " (make)" : " (validate)"));
            }
        };
        for (std::size_t N : { 0, 1 }) {
            auto c = good;
            c.fft_len = N;
            c.max_lag = 0;
            expect_error(c, "fft_len");
        }
        auto c = good;
        c.interp = 0;
        expect_error(c, "interp");
        for (std::size_t ml : { 64, 65, 1000 }) {
            c = good;
            c.max_lag = ml;
            expect_error(c, "max_lag");
        }
        for (const char* d : { "gpu", "cuda:-1", "cuda:x", "", "CPU " }) {
            c = good;
            c.device = d;
            expect_error(c, "device", false);
        }
        // Absurd sizes are refused by name, whatever the implementation's bounds.
        c = good;
        c.interp = std::numeric_limits<std::size_t>::max() / 2;
        expect_error(c, "interp");
        c = good;
        c.fft_len = std::numeric_limits<std::size_t>::max() / 4;
        c.max_lag = 0;
        expect_error(c, "fft_len");
        c = good;
        c.batch_frames = std::numeric_limits<std::size_t>::max() / 8;
        expect_error(c, "batch_frames");
        // Valid extremes.
        for (std::size_t ml : { 0, 1, 63 }) {
            c = good;
            c.max_lag = ml;
            cross_correlator::make(c);
        }
        c = good;
        c.fft_len = 2;
        c.max_lag = 1;
        c.interp = 1;
        c.batch_frames = 1;
        cross_correlator::make(c);

        // The derived sizes.
        const std::pair<std::size_t, std::size_t> lengths[] = {
            { 2, 4 },     { 3, 8 },     { 4, 8 },       { 5, 16 },
            { 100, 256 }, { 128, 256 }, { 4096, 8192 }, { 4097, 16384 },
        };
        for (const auto& nl : lengths) {
            c = good;
            c.fft_len = nl.first;
            c.max_lag = 0;
            CPPUNIT_ASSERT_EQUAL(nl.second, c.transform_len());
            CPPUNIT_ASSERT_EQUAL(nl.first - 1, c.effective_max_lag());
            CPPUNIT_ASSERT_EQUAL(2 * nl.first - 1, c.correlation_len());
        }
        CPPUNIT_ASSERT_EQUAL(std::size_t(10), good.effective_max_lag());
        CPPUNIT_ASSERT_EQUAL(std::size_t(21), good.correlation_len());

        auto engine = cross_correlator::make(good);
        CPPUNIT_ASSERT_EQUAL(std::size_t(64), engine->config().fft_len);
        CPPUNIT_ASSERT_EQUAL(std::string("cpu"), engine->device().to_string());
        c = good;
        c.device = "auto";
        const std::string expected = qa::cuda_present() ? "cuda:0" : "cpu";
        CPPUNIT_ASSERT_EQUAL(expected, cross_correlator::make(c)->device().to_string());
        // A forced CUDA backend is an error only where no device exists.
        if (!qa::cuda_present()) {
            c = good;
            c.device = "cuda";
            CPPUNIT_ASSERT_THROW(cross_correlator::make(c), std::runtime_error);
        }
    }

    // -----------------------------------------------------------------------------
    // CPU only
    // -----------------------------------------------------------------------------

    void cpu_engine_has_no_device_entry()
    {
        auto engine = cross_correlator::make(make_config("cpu", 8, 2));
        std::vector<cfloat> x(8);
        std::vector<peak_t> peaks(1);
        CPPUNIT_ASSERT_THROW(engine->process_device(x.data(), x.data(), 1, peaks.data()),
                             std::logic_error);
        engine->synchronize(); // a no-op on the CPU
    }

    // -----------------------------------------------------------------------------
    // CUDA only
    // -----------------------------------------------------------------------------

    void pinned_and_pageable_buffers(const std::string&)
    {
        const std::size_t N = 1000, nframes = 37;
        const auto f = mixed_frames(N, nframes, 300, 8080);
        const auto refs = reference_frames(f);
        for (std::size_t batch : { std::size_t(0), std::size_t(5) }) {
            const auto c = make_config("cuda", N, 8, 300, batch);
            const std::string what = describe(c);
            auto engine = cross_correlator::make(c);
            CPPUNIT_ASSERT_EQUAL(std::string("cuda:0"), engine->device().to_string());
            const auto pageable =
                run(*engine, f.x.data(), f.y.data(), nframes, true, true);
            check_result(refs, f, pageable, c, what + " pageable");

            const std::size_t n = f.x.size();
            pinned_buffer<cfloat> x(n), y(n);
            std::copy(f.x.begin(), f.x.end(), x.get());
            std::copy(f.y.begin(), f.y.end(), y.get());
            pinned_buffer<peak_t> peaks(nframes);
            pinned_buffer<cfloat> spectrum(nframes * c.transform_len());
            pinned_buffer<cfloat> correlation(nframes * c.correlation_len());
            auto poison_pinned = [&]() {
                std::fill(peaks.get(), peaks.get() + nframes, poison_peak());
                std::fill(
                    spectrum.get(), spectrum.get() + spectrum.size(), poison_complex());
                std::fill(correlation.get(),
                          correlation.get() + correlation.size(),
                          poison_complex());
            };
            auto fetch = [&]() {
                result r;
                r.peaks.assign(peaks.get(), peaks.get() + nframes);
                r.spectrum.assign(spectrum.get(), spectrum.get() + spectrum.size());
                r.correlation.assign(correlation.get(),
                                     correlation.get() + correlation.size());
                return r;
            };
            // Pinned in and out.
            poison_pinned();
            engine->process(x.get(),
                            y.get(),
                            nframes,
                            peaks.get(),
                            spectrum.get(),
                            correlation.get());
            assert_identical(pageable, fetch(), what + " pinned in and out");
            // Pinned in, pageable out.
            assert_identical(pageable,
                             run(*engine, x.get(), y.get(), nframes, true, true),
                             what + " pinned in, pageable out");
            // Pageable in, pinned out.
            poison_pinned();
            engine->process(f.x.data(),
                            f.y.data(),
                            nframes,
                            peaks.get(),
                            spectrum.get(),
                            correlation.get());
            assert_identical(pageable, fetch(), what + " pageable in, pinned out");
            // Pinned in and out, no optional outputs.
            std::fill(peaks.get(), peaks.get() + nframes, poison_peak());
            engine->process(x.get(), y.get(), nframes, peaks.get());
            result p = pageable;
            p.spectrum.clear();
            p.correlation.clear();
            result q;
            q.peaks.assign(peaks.get(), peaks.get() + nframes);
            assert_identical(p, q, what + " pinned, peaks only");
        }
    }

    void device_pointers_and_streams(const std::string&)
    {
        const std::size_t N = 512, nframes = 40, split = 7;
        const auto f = mixed_frames(N, nframes, 200, 2718);
        const auto c = make_config("cuda", N, 16, 200, 6);
        const std::string what = describe(c, " device pointers");
        auto engine = cross_correlator::make(c);
        const auto host = run(*engine, f.x.data(), f.y.data(), nframes, true, true);
        check_result(reference_frames(f), f, host, c, describe(c, " host"));

        const std::size_t L = c.transform_len(), C = c.correlation_len();
        device_buffer<cfloat> d_x(f.x.size()), d_y(f.y.size());
        device_buffer<peak_t> d_peaks(nframes);
        device_buffer<cfloat> d_spectrum(nframes * L), d_correlation(nframes * C);
        CUDADSP_CUDA(
            cudaMemcpy(d_x.get(), f.x.data(), d_x.bytes(), cudaMemcpyHostToDevice));
        CUDADSP_CUDA(
            cudaMemcpy(d_y.get(), f.y.data(), d_y.bytes(), cudaMemcpyHostToDevice));
        const std::vector<peak_t> poisoned_peaks(nframes, poison_peak());
        const std::vector<cfloat> poisoned_spectrum(nframes * L, poison_complex());
        const std::vector<cfloat> poisoned_correlation(nframes * C, poison_complex());
        auto poison_device = [&]() {
            CUDADSP_CUDA(cudaMemcpy(d_peaks.get(),
                                    poisoned_peaks.data(),
                                    d_peaks.bytes(),
                                    cudaMemcpyHostToDevice));
            CUDADSP_CUDA(cudaMemcpy(d_spectrum.get(),
                                    poisoned_spectrum.data(),
                                    d_spectrum.bytes(),
                                    cudaMemcpyHostToDevice));
            CUDADSP_CUDA(cudaMemcpy(d_correlation.get(),
                                    poisoned_correlation.data(),
                                    d_correlation.bytes(),
                                    cudaMemcpyHostToDevice));
        };
        auto fetch = [&](bool spectrum, bool correlation) {
            result r;
            r.peaks.resize(nframes);
            CUDADSP_CUDA(cudaMemcpy(
                r.peaks.data(), d_peaks.get(), d_peaks.bytes(), cudaMemcpyDeviceToHost));
            if (spectrum) {
                r.spectrum.resize(nframes * L);
                CUDADSP_CUDA(cudaMemcpy(r.spectrum.data(),
                                        d_spectrum.get(),
                                        d_spectrum.bytes(),
                                        cudaMemcpyDeviceToHost));
            }
            if (correlation) {
                r.correlation.resize(nframes * C);
                CUDADSP_CUDA(cudaMemcpy(r.correlation.data(),
                                        d_correlation.get(),
                                        d_correlation.bytes(),
                                        cudaMemcpyDeviceToHost));
            }
            return r;
        };

        // The engine's own stream, then synchronize().
        poison_device();
        engine->process_device(d_x.get(),
                               d_y.get(),
                               nframes,
                               d_peaks.get(),
                               d_spectrum.get(),
                               d_correlation.get());
        engine->synchronize();
        assert_identical(host, fetch(true, true), what + ", engine stream");

        // A caller's stream, two calls, then the stream's own synchronisation only.
        cuda_stream stream;
        poison_device();
        engine->process_device(d_x.get(),
                               d_y.get(),
                               split,
                               d_peaks.get(),
                               d_spectrum.get(),
                               d_correlation.get(),
                               stream.get());
        engine->process_device(d_x.get() + split * N,
                               d_y.get() + split * N,
                               nframes - split,
                               d_peaks.get() + split,
                               d_spectrum.get() + split * L,
                               d_correlation.get() + split * C,
                               stream.get());
        stream.synchronize();
        assert_identical(host, fetch(true, true), what + ", caller stream");

        // Peaks only, caller stream; a second engine on the same stream.
        poison_device();
        engine->process_device(
            d_x.get(), d_y.get(), nframes, d_peaks.get(), nullptr, nullptr, stream.get());
        stream.synchronize();
        result peaks_only = host;
        peaks_only.spectrum.clear();
        peaks_only.correlation.clear();
        assert_identical(peaks_only, fetch(false, false), what + ", peaks only");
        auto other = cross_correlator::make(make_config("cuda", N, 16, 200, 0));
        poison_device();
        other->process_device(d_x.get(),
                              d_y.get(),
                              nframes,
                              d_peaks.get(),
                              nullptr,
                              d_correlation.get(),
                              stream.get());
        stream.synchronize();
        result correlation_only = host;
        correlation_only.spectrum.clear();
        assert_identical(correlation_only,
                         fetch(false, true),
                         what + ", second engine, correlation only");
    }

    void batch_frames_invariance(const std::string&)
    {
        // Under a sanitizer the long frames are 1000 samples (still 20 of them, so the
        // batches of 7 end in a partial one).
        for (std::size_t N : { std::size_t(100), qa::scaled<std::size_t>(4096, 1000) }) {
            const std::size_t nframes = N == 100 ? 200 : 20;
            const auto f = mixed_frames(N, nframes, long(N / 4), 1618 + N);
            const auto c = make_config("cuda", N, 16, N / 4, 0);
            const auto whole = run(c, f, true, true);
            check_result(reference_frames(f), f, whole, c, describe(c, " default batch"));
            for (std::size_t batch : { 1, 7, 64, 1000 }) {
                const auto cb = make_config("cuda", N, 16, N / 4, batch);
                assert_identical(whole, run(cb, f, true, true), describe(cb));
                assert_identical(
                    [&] {
                        result r = whole;
                        r.spectrum.clear();
                        r.correlation.clear();
                        return r;
                    }(),
                    run(cb, f),
                    describe(cb, " peaks only"));
            }
        }
    }

    /*!
     * CUDA against the CPU engine on 400 frames: both within the reference's tolerance,
     * the same lag wherever the reference decides it, and magnitudes and phases within
     * twice the model error of each other.
     */
    void matches_cpu(const std::string&)
    {
        for (std::size_t interp : { 1, 16 }) {
            // Under a sanitizer 100 frames: several batches still.
            const std::size_t N = 512, nframes = qa::scaled<std::size_t>(400, 100);
            const auto f = mixed_frames(N, nframes, 255, 4000 + interp);
            const auto refs = reference_frames(f);
            const auto cc = make_config("cuda", N, interp, 255);
            auto pc = cc;
            pc.device = "cpu";
            const auto cuda = run(cc, f, true, true);
            const auto cpu = run(pc, f, true, true);
            check_result(refs, f, cuda, cc, describe(cc, " 400 frames"));
            check_result(refs, f, cpu, pc, describe(pc, " 400 frames"));
            std::size_t differing = 0, undecided = 0;
            double worst_mag = 0.0, worst_phase = 0.0;
            for (std::size_t k = 0; k < nframes; ++k) {
                const auto e = expect_peak(refs[k], cc);
                const peak_t &a = cpu.peaks[k], &b = cuda.peaks[k];
                std::ostringstream msg;
                msg.precision(9);
                msg << frame_name(describe(cc, " against cpu"), k) << ": cpu (" << a.lag
                    << ", " << a.magnitude << ", " << a.phase << "), cuda (" << b.lag
                    << ", " << b.magnitude << ", " << b.phase << ")";
                if (!e.decided()) {
                    ++undecided;
                    continue;
                }
                CPPUNIT_ASSERT_EQUAL_MESSAGE(msg.str(), a.lag, b.lag);
                if (bits_of(a.magnitude) != bits_of(b.magnitude) ||
                    bits_of(a.phase) != bits_of(b.phase))
                    ++differing;
                const double mag_err = std::fabs(double(a.magnitude) - b.magnitude);
                const double mag_tol =
                    2.0 * ((e.eps + tol_rel * std::abs(e.best.value)) / e.norm + 0x1p-23);
                CPPUNIT_ASSERT_MESSAGE(msg.str(), mag_err <= mag_tol);
                worst_mag = std::max(worst_mag, mag_err);
                if (std::abs(e.best.value) > 2.0 * e.eps) {
                    const double phase_err =
                        std::fabs(wrap_pi(double(a.phase) - b.phase));
                    CPPUNIT_ASSERT_MESSAGE(
                        msg.str(),
                        phase_err <=
                            2.0 * (std::asin(e.eps / std::abs(e.best.value)) + 4e-7));
                    worst_phase = std::max(worst_phase, phase_err);
                }
            }
            std::cout << "qa_cross_correlator: " << describe(cc) << ": " << differing
                      << " of " << nframes - undecided
                      << " decided frames differ from the CPU engine in magnitude or "
                         "phase, by at most "
                      << worst_mag << " and " << worst_phase << " rad; " << undecided
                      << " undecided" << std::endl;
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_cross_correlator);

} // namespace core
} // namespace cudadsp
} // namespace gr
