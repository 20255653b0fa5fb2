/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_cross_correlator: the synthetic frames, the float64 reference, the engine
// runs and the checks its cases share (declared in qa_cross_correlator.h).

#include "qa_cross_correlator.h"
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

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

void add_band_delay(frame_data& f,
                    double d,
                    cdouble gain,
                    double noise_power,
                    gaussian_source& g,
                    std::size_t ntones,
                    double bandwidth)
{
    const std::size_t k = f.add_frame(d);
    const tone_set s(g, ntones, -bandwidth, bandwidth);
    for (std::size_t n = 0; n < f.N; ++n) {
        f.x_frame(k)[n] =
            cfloat(gain * s.at(double(n) - d) + g.complex_normal(noise_power));
        f.y_frame(k)[n] = cfloat(s.at(double(n)) + g.complex_normal(noise_power));
    }
}

void add_independent(frame_data& f, gaussian_source& g)
{
    const std::size_t k = f.add_frame();
    for (std::size_t n = 0; n < f.N; ++n) {
        f.x_frame(k)[n] = cfloat(g.complex_normal());
        f.y_frame(k)[n] = cfloat(g.complex_normal());
    }
}

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

long pow2_at_least(long n)
{
    long L = 1;
    while (L < n)
        L *= 2;
    return L;
}

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

std::vector<cdouble> reference_spectrum(const cfloat* x, const cfloat* y, std::size_t n)
{
    const long L = pow2_at_least(2 * long(n));
    auto X = reference_dft(x, n, L);
    const auto Y = reference_dft(y, n, L);
    for (long k = 0; k < L; ++k)
        X[k] *= std::conj(Y[k]);
    return X;
}

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
                error_stats* stats)
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

void check_vector(const std::vector<cdouble>& ref,
                  const cfloat* got,
                  double scale,
                  const std::string& what,
                  error_stats* stats)
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

cross_correlator_config make_config(const std::string& device,
                                    std::size_t N,
                                    std::size_t interp,
                                    std::size_t max_lag,
                                    std::size_t batch_frames)
{
    cross_correlator_config c;
    c.fft_len = N;
    c.interp = interp;
    c.max_lag = max_lag;
    c.device = device;
    c.batch_frames = batch_frames;
    return c;
}

result run(cross_correlator& engine,
           const cfloat* x,
           const cfloat* y,
           std::size_t nframes,
           bool spectrum,
           bool correlation)
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
           bool spectrum,
           bool correlation)
{
    auto engine = cross_correlator::make(c);
    return run(*engine, f.x.data(), f.y.data(), f.nframes(), spectrum, correlation);
}

std::string describe(const cross_correlator_config& c, const std::string& extra)
{
    std::ostringstream s;
    s << c.device << " N=" << c.fft_len << " interp=" << c.interp
      << " max_lag=" << c.effective_max_lag();
    if (c.batch_frames)
        s << " batch_frames=" << c.batch_frames;
    s << extra;
    return s.str();
}

void check_result(const std::vector<frame_reference>& refs,
                  const frame_data& f,
                  const result& r,
                  const cross_correlator_config& c,
                  const std::string& what,
                  bool print,
                  const std::vector<std::vector<cdouble>>* spectra)
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

} // namespace core
} // namespace cudadsp
} // namespace gr
