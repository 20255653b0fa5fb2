/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Patch correlator engine (GMTSAR xcorr's frequency method), CPU and CUDA backends,
// against a float64 reference written here from docs/design/gmtsar_xcorr.md (sections
// 5.2 - 5.11; not from the engine's code):
//
//  * range interpolation: per row X = DFT_N (qa_fft_reference.h's FFT), the bins
//    0 .. N/2-1 at frequencies 0 .. N/2-1 and N/2 .. N-1 at -N/2 .. -1 (the Nyquist bin
//    on the negative side only), w[m] = (1/N) sum_f X_f e^{2 pi i f m / (ri N)}, the
//    samples m = N/2 .. 3N/2 - 1 kept;
//  * amplitudes hypot, the mean over the whole patch, the aligned patch masked after
//    the mean removal, integer copies by truncation;
//  * the surface |sum a1[p + ly][q + lx] a2[p][q]| over the central block (a float64
//    FFT correlation; reference_self_check compares it with the direct sum);
//  * first maximum, row-major; gamma from the integer copies in 64-bit sums;
//  * the 8 x 8 neighbourhood of (gamma corr / cmax)^(1/4), zeros outside the surface,
//    interpolated rows then columns by the same DFT interpolation (Nyquist bin on the
//    negative side), first maximum of the real part above -1.
//
// The engine works in float32, the reference in float64. Where the reference's peak
// (integer or interpolated) is not decided at float32 precision (another candidate
// within tie_rel of the maximum), the engine may choose any of the near-equal
// candidates: the reference then continues from the engine's choice and the patch
// counts as a tie. Every other disagreement is an error. The paper's metric (Romano et
// al. 2021, Table 2), eta_2 = ||x_hat - x||_2 / ||x||_2 over the patches, is computed
// on dx, dy (rshift = ashift = 0, so nothing inflates ||x||) and corr, both raw (the
// reference's own choices) and tie-aware; the tie-aware values must be < 1e-4.

#include "qa_patch_correlator.h"
#include <algorithm>
#include <cmath>
#include <complex>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

struct geometry {
    int xs, ys, npx, npy, ri, ifc;
    bool highres;
    int nxc() const { return 2 * xs; }
    int nyc() const { return 2 * ys; }
    int H() const { return 8 * ifc; }
};

geometry geometry_of(const patch_correlator_config& c)
{
    return {
        c.xsearch, c.ysearch, c.npx(), c.npy(), c.range_interp, c.interp, c.highres
    };
}

//! Signed frequency of bin k of an n-point spectrum, Nyquist bin on the negative side.
long signed_bin(long k, long n) { return k < n / 2 ? k : k - n; }

/*! fft_interpolate_1d of one row of n (power of two) by factor f: the f n samples
 *  w[m] = (1/n) sum_k X_k e^{2 pi i signed_bin(k) m / (f n)}, X = DFT_n(x), evaluated
 *  as a zero-padded inverse FFT (interpolate_row_direct() is the sum itself). */
std::vector<cdouble> interpolate_row(const cdouble* x, long n, long f)
{
    std::vector<cdouble> X(x, x + n);
    fft(X.data(), n, false);
    std::vector<cdouble> w(n * f, 0.0);
    for (long k = 0; k < n; ++k)
        w[(signed_bin(k, n) + n * f) % (n * f)] = X[k];
    fft(w.data(), n * f, true);
    for (auto& v : w)
        v /= double(n);
    return w;
}

std::vector<cdouble> interpolate_row_direct(const cdouble* x, long n, long f)
{
    std::vector<cdouble> X(n, 0.0);
    for (long k = 0; k < n; ++k)
        for (long j = 0; j < n; ++j)
            X[k] += x[j] * std::polar(1.0, -2.0 * pi * double(k * j % n) / double(n));
    std::vector<cdouble> w(n * f);
    for (long m = 0; m < n * f; ++m) {
        cdouble sum = 0.0;
        for (long k = 0; k < n; ++k)
            sum +=
                X[k] *
                std::polar(1.0, 2.0 * pi * double(signed_bin(k, n) * m) / double(n * f));
        w[m] = sum / double(n);
    }
    return w;
}

struct reference_patch {
    geometry g;
    std::vector<double> a1, a2;  //!< demeaned amplitudes (a2 masked)
    std::vector<double> surface; //!< nyc x nxc
    std::vector<double> direct;  //!< the direct sum (only when asked for)
    int best_cell = -1;          //!< first maximum of the surface
    double cmax = 0.0;
    // From a chosen integer peak:
    int cell = -1;
    double gamma = 0.0;
    std::vector<double> E; //!< H x H real parts of the interpolated neighbourhood
    int best_e = -1;
    double xfrac = 0.0, yfrac = 0.0;
    bool no_number = false;

    int ipeak() const { return cell / g.nxc() - g.ys; }
    int jpeak() const { return cell % g.nxc() - g.xs; }
    double dx() const { return -(double(jpeak()) + xfrac) / g.ri; }
    double dy() const { return -(double(ipeak()) + yfrac); }

    //! Steps 5.7 - 5.9 from integer peak \p c.
    void from_peak(int c)
    {
        cell = c;
        const int nxc = g.nxc(), nyc = g.nyc();
        const int ip = ipeak(), jp = jpeak();
        long long num = 0, d1 = 0, d2 = 0;
        for (int p = 0; p < nyc; ++p)
            for (int q = 0; q < nxc; ++q) {
                const long long a = static_cast<long long>(
                    std::trunc(a1[(g.ys + p + ip) * g.npx + q + jp + g.xs]));
                const long long b =
                    static_cast<long long>(std::trunc(a2[(g.ys + p) * g.npx + q + g.xs]));
                num += a * b;
                d1 += a * a;
                d2 += b * b;
            }
        const double den = std::sqrt(double(d1) * double(d2));
        gamma = den == 0.0 ? 0.0 : 100.0 * std::fabs(double(num) / den);
        xfrac = yfrac = 0.0;
        E.clear();
        best_e = -1;
        if (!g.highres)
            return;
        // md: 8 x 8, peak at [4][4], zeros outside the surface.
        const int pr = cell / nxc, pc = cell % nxc;
        std::vector<cdouble> md(64);
        for (int u = 0; u < 8; ++u)
            for (int v = 0; v < 8; ++v) {
                const int r = pr - 4 + u, c2 = pc - 4 + v;
                if (r >= 0 && r < nyc && c2 >= 0 && c2 < nxc)
                    md[u * 8 + v] = std::pow(gamma * surface[r * nxc + c2] / cmax, 0.25);
            }
        const long H = g.H();
        // Rows first, then columns; interpolate_row's 1/8 is GMTSAR's (1/M) ifc.
        std::vector<cdouble> rows(8 * H);
        for (int u = 0; u < 8; ++u) {
            const auto w = interpolate_row(md.data() + u * 8, 8, g.ifc);
            std::copy(w.begin(), w.end(), rows.begin() + u * H);
        }
        E.assign(H * H, 0.0);
        std::vector<cdouble> col(8);
        for (long n = 0; n < H; ++n) {
            for (int u = 0; u < 8; ++u)
                col[u] = rows[u * H + n];
            const auto w = interpolate_row(col.data(), 8, g.ifc);
            for (long m = 0; m < H; ++m)
                E[m * H + n] = w[m].real();
        }
        double best = -1.0;
        for (long i = 0; i < H * H; ++i)
            if (E[i] > best) {
                best = E[i];
                best_e = int(i);
            }
        set_fractions(best_e);
    }

    void set_fractions(int e)
    {
        const long H = g.H();
        if (e < 0) {
            xfrac = yfrac = -1.0 / g.ifc;
            return;
        }
        yfrac = double(e / H - 4 * g.ifc) / g.ifc;
        xfrac = double(e % H - 4 * g.ifc) / g.ifc;
    }
};

/*! The reference for one patch pair (\p direct_check: also the surface as a direct sum,
 *  for the self-check). */
reference_patch reference(const cfloat* master,
                          const cfloat* aligned,
                          const geometry& g,
                          bool direct_check = false)
{
    reference_patch R;
    R.g = g;
    const long npx = g.npx, npy = g.npy;
    for (int img = 0; img < 2; ++img) {
        const cfloat* src = img ? aligned : master;
        std::vector<cdouble> c(npx * npy);
        for (long i = 0; i < npx * npy; ++i)
            c[i] = cdouble(src[i]);
        if (g.ri > 1)
            for (long r = 0; r < npy; ++r) {
                const auto w = interpolate_row(c.data() + r * npx, npx, g.ri);
                // (1/M) ri = 1/N: interpolate_row's scale; keep the middle.
                for (long k = 0; k < npx; ++k)
                    c[r * npx + k] = w[k + npx / 2];
            }
        std::vector<double> a(npx * npy);
        double sum = 0.0;
        for (long i = 0; i < npx * npy; ++i) {
            a[i] = std::hypot(c[i].real(), c[i].imag());
            sum += a[i];
        }
        const double mean = sum / double(npx * npy);
        for (long r = 0; r < npy; ++r)
            for (long k = 0; k < npx; ++k) {
                double& v = a[r * npx + k];
                v -= mean;
                if (img == 1 &&
                    !(r >= g.ys && r < npy - g.ys && k >= g.xs && k < npx - g.xs))
                    v = 0.0;
            }
        (img ? R.a2 : R.a1) = a;
    }
    // Circular correlation R[ly][lx] = sum a1[p + ly][q + lx] a2[p][q] by float64 FFTs.
    std::vector<cdouble> F1(R.a1.begin(), R.a1.end()), F2(R.a2.begin(), R.a2.end());
    fft2(F1, npy, npx, false);
    fft2(F2, npy, npx, false);
    for (long i = 0; i < npx * npy; ++i)
        F1[i] *= std::conj(F2[i]);
    fft2(F1, npy, npx, true);
    const int nxc = g.nxc(), nyc = g.nyc();
    R.surface.resize(nxc * nyc);
    for (int i = 0; i < nyc; ++i)
        for (int j = 0; j < nxc; ++j) {
            const long ly = i - g.ys, lx = j - g.xs;
            const cdouble v =
                F1[((ly + npy) % npy) * npx + (lx + npx) % npx] / double(npx * npy);
            R.surface[i * nxc + j] = std::abs(v);
        }
    if (direct_check) {
        R.direct.resize(nxc * nyc);
        for (int i = 0; i < nyc; ++i)
            for (int j = 0; j < nxc; ++j) {
                const int ly = i - g.ys, lx = j - g.xs;
                double s = 0.0;
                for (int p = g.ys; p < 3 * g.ys; ++p)
                    for (int q = g.xs; q < 3 * g.xs; ++q)
                        s += R.a1[(p + ly) * npx + q + lx] * R.a2[p * npx + q];
                R.direct[i * nxc + j] = std::fabs(s);
            }
    }
    double best = -1.0;
    for (int i = 0; i < nxc * nyc; ++i)
        if (R.surface[i] > best) {
            best = R.surface[i];
            R.best_cell = i;
        }
    if (R.best_cell < 0) {
        R.no_number = true;
        return R;
    }
    R.cmax = best;
    R.from_peak(R.best_cell);
    return R;
}

//! eta_2 and eta_inf accumulators (Romano et al. 2021, eq. 4 and 5).
struct eta {
    double err2 = 0.0, ref2 = 0.0, err_inf = 0.0, ref_inf = 0.0;
    void add(double x_hat, double x)
    {
        err2 += (x_hat - x) * (x_hat - x);
        ref2 += x * x;
        err_inf = std::max(err_inf, std::fabs(x_hat - x));
        ref_inf = std::max(ref_inf, std::fabs(x));
    }
    double two() const { return ref2 > 0.0 ? std::sqrt(err2 / ref2) : std::sqrt(err2); }
    double inf() const { return ref_inf > 0.0 ? err_inf / ref_inf : err_inf; }
};

struct comparison {
    std::size_t patches = 0, integer_ties = 0, highres_ties = 0;
    eta raw_dx, raw_dy, raw_corr, dx, dy, corr;
    double worst_corr = 0.0; //!< largest |corr - gamma|, percent
};

/*!
 * Engine result \p e against reference \p R (possibly continued from the engine's
 * integer peak on a tie). Asserts that every disagreement is a float32 tie.
 */
void compare_patch(const patch_result& e,
                   reference_patch R,
                   comparison& cmp,
                   const std::string& what)
{
    const geometry& g = R.g;
    std::ostringstream msg;
    msg << what << ": engine " << str(e) << ", reference {jpeak " << R.jpeak()
        << ", ipeak " << R.ipeak() << ", xfrac " << R.xfrac << ", yfrac " << R.yfrac
        << ", corr " << R.gamma << "}";
    CPPUNIT_ASSERT_MESSAGE(msg.str(), !R.no_number);
    const double raw_dx = R.dx(), raw_dy = R.dy(), raw_corr = R.gamma;
    const int engine_cell = (e.ipeak + g.ys) * g.nxc() + e.jpeak + g.xs;
    if (engine_cell != R.cell) {
        CPPUNIT_ASSERT_MESSAGE(msg.str() + " (integer peak outside the surface)",
                               engine_cell >= 0 && engine_cell < g.nxc() * g.nyc());
        CPPUNIT_ASSERT_MESSAGE(msg.str() + " (integer peak not a tie)",
                               R.surface[engine_cell] >= R.cmax * (1.0 - tie_rel));
        R.from_peak(engine_cell);
        ++cmp.integer_ties;
    }
    if (g.highres) {
        const long H = g.H();
        const long m = std::lround(double(e.yfrac) * g.ifc) + 4 * g.ifc;
        const long n = std::lround(double(e.xfrac) * g.ifc) + 4 * g.ifc;
        const bool exact =
            double(e.yfrac) * g.ifc == std::round(double(e.yfrac) * g.ifc) &&
            double(e.xfrac) * g.ifc == std::round(double(e.xfrac) * g.ifc);
        CPPUNIT_ASSERT_MESSAGE(msg.str() + " (fractions off the grid)",
                               exact && m >= 0 && m < H && n >= 0 && n < H);
        const int engine_e = int(m * H + n);
        if (engine_e != R.best_e) {
            const double best = R.E[R.best_e];
            CPPUNIT_ASSERT_MESSAGE(msg.str() + " (high-resolution peak not a tie)",
                                   R.E[engine_e] >= best - tie_rel * std::fabs(best));
            R.set_fractions(engine_e);
            ++cmp.highres_ties;
        }
    } else {
        CPPUNIT_ASSERT_MESSAGE(msg.str(), e.xfrac == 0.0f && e.yfrac == 0.0f);
    }
    const double dx = patch_offset_dx(e, g.ri, 0), dy = patch_offset_dy(e, 0, 0);
    CPPUNIT_ASSERT_MESSAGE(msg.str(), dx == R.dx() && dy == R.dy());
    // corr: float32 of gamma; the integer copies may differ where a float32 amplitude
    // and its float64 value straddle an integer.
    const double corr_err = std::fabs(double(e.corr) - R.gamma);
    CPPUNIT_ASSERT_MESSAGE(msg.str() + " (corr)", corr_err <= 1e-3 + 1e-5 * R.gamma);
    cmp.worst_corr = std::max(cmp.worst_corr, corr_err);
    ++cmp.patches;
    cmp.raw_dx.add(dx, raw_dx);
    cmp.raw_dy.add(dy, raw_dy);
    cmp.raw_corr.add(e.corr, raw_corr);
    cmp.dx.add(dx, R.dx());
    cmp.dy.add(dy, R.dy());
    cmp.corr.add(e.corr, R.gamma);
}

void report(const std::string& what, const comparison& c)
{
    std::cout << std::setprecision(3) << "qa_patch_correlator: " << what << ": "
              << c.patches << " patches, " << c.integer_ties << " integer and "
              << c.highres_ties << " high-resolution float32 ties; eta_2 dx "
              << c.dx.two() << " dy " << c.dy.two() << " corr " << c.corr.two()
              << " (raw: dx " << c.raw_dx.two() << " dy " << c.raw_dy.two() << " corr "
              << c.raw_corr.two() << "); eta_inf dx " << c.dx.inf() << " dy "
              << c.dy.inf() << " corr " << c.corr.inf() << "; max |corr err| "
              << c.worst_corr << std::endl;
}

void assert_eta(const std::string& what, const comparison& c)
{
    CPPUNIT_ASSERT_MESSAGE(what + ": eta_2 dx", c.dx.two() < 1e-4);
    CPPUNIT_ASSERT_MESSAGE(what + ": eta_2 dy", c.dy.two() < 1e-4);
    CPPUNIT_ASSERT_MESSAGE(what + ": eta_2 corr", c.corr.two() < 1e-4);
}

std::vector<reference_patch> references(const patch_set& s, const geometry& g)
{
    std::vector<reference_patch> out;
    for (std::size_t k = 0; k < s.count(); ++k)
        out.push_back(reference(s.m(k), s.a(k), g));
    return out;
}

} // namespace

void qa_patch_correlator::reference_self_check()
{
    gaussian_source g(3);
    const auto c = make_config("cpu", 8, 8, 2);
    patch_set s;
    s.npx = c.npx();
    s.npy = c.npy();
    add_shifted_patch(s, 1.3, -0.7, 0.8, g);
    const auto R = reference(s.m(0), s.a(0), geometry_of(c), true);
    double worst = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < R.surface.size(); ++i) {
        worst = std::max(worst, std::fabs(R.surface[i] - R.direct[i]));
        scale = std::max(scale, R.direct[i]);
    }
    CPPUNIT_ASSERT(worst <= 1e-10 * scale);
    // The interpolation passes through the samples: at even m for factor 2 and
    // at multiples of interp for the neighbourhood.
    std::vector<cdouble> row(32);
    for (auto& v : row)
        v = g.complex_normal();
    const auto w = interpolate_row(row.data(), 32, 2);
    const auto wd = interpolate_row_direct(row.data(), 32, 2);
    for (int k = 0; k < 32; ++k)
        CPPUNIT_ASSERT(std::abs(w[2 * k] - row[k]) < 1e-12);
    for (int m = 0; m < 64; ++m)
        CPPUNIT_ASSERT(std::abs(w[m] - wd[m]) < 1e-12);
    // E at (ifc u, ifc v) is md[u][v].
    const long H = R.g.H();
    const int pr = R.cell / R.g.nxc(), pc = R.cell % R.g.nxc();
    for (int u = 0; u < 8; ++u)
        for (int v = 0; v < 8; ++v) {
            const int r = pr - 4 + u, cc = pc - 4 + v;
            const bool in = r >= 0 && r < R.g.nyc() && cc >= 0 && cc < R.g.nxc();
            const double md =
                in ? std::pow(R.gamma * R.surface[r * R.g.nxc() + cc] / R.cmax, 0.25)
                   : 0.0;
            CPPUNIT_ASSERT(std::fabs(R.E[(u * R.g.ifc) * H + v * R.g.ifc] - md) < 1e-12);
        }
    // The neighbourhood's centre is the peak: md[4][4] = gamma^(1/4).
    CPPUNIT_ASSERT(std::fabs(R.E[(4 * R.g.ifc) * H + 4 * R.g.ifc] -
                             std::pow(R.gamma, 0.25)) < 1e-12);
}

//! Many random patches per geometry against the reference; eta_2 < 1e-4.
void qa_patch_correlator::against_reference(const std::string& device)
{
    struct geometry_case {
        int xs, ys, ri, ifc;
        bool highres;
        std::size_t count;
    };
    // Under a sanitizer a quarter of the patches: every geometry still runs.
    const std::size_t many = qa::scaled<std::size_t>(80, 20);
    const std::size_t some = qa::scaled<std::size_t>(40, 10);
    const geometry_case cases[] = {
        { 16, 16, 1, 16, true, many },  { 16, 16, 2, 16, true, many },
        { 16, 16, 4, 16, true, some },  { 16, 16, 2, 4, true, some },
        { 16, 16, 2, 16, false, some }, { 16, 32, 2, 16, true, some },
        { 32, 16, 1, 16, true, some },  { 8, 8, 2, 16, true, some },
    };
    comparison all;
    for (const auto& gc : cases) {
        const auto c = make_config(device, gc.xs, gc.ys, gc.ri, gc.ifc, gc.highres);
        const auto s =
            random_patches(c, gc.count, 1000 + gc.xs * 7 + gc.ys * 3 + gc.ri + gc.ifc);
        const auto refs = references(s, geometry_of(c));
        const auto r = run_engine(c, s);
        comparison cmp;
        for (std::size_t k = 0; k < r.size(); ++k) {
            compare_patch(r[k], refs[k], cmp, describe(c, " patch " + std::to_string(k)));
            compare_patch(r[k], refs[k], all, describe(c));
        }
        report(describe(c), cmp);
        assert_eta(describe(c), cmp);
    }
    report(device + " all geometries", all);
    assert_eta(device + " all geometries", all);
}

//! GMTSAR's default geometry (xs = ys = 64, ri 2, interp 16) on a few patches.
void qa_patch_correlator::default_geometry(const std::string& device)
{
    const auto c = make_config(device, 64, 64, 2);
    const auto s = random_patches(c, 8, 64064);
    const auto refs = references(s, geometry_of(c));
    const auto r = run_engine(c, s);
    comparison cmp;
    for (std::size_t k = 0; k < r.size(); ++k)
        compare_patch(r[k], refs[k], cmp, describe(c, " patch " + std::to_string(k)));
    report(describe(c), cmp);
    assert_eta(describe(c), cmp);
}

/*!
 * Integer content offsets at coherence 1: without the high-resolution step dx and
 * dy are exactly the offset (ri 1 and 2); with it, within one interpolation step
 * (1/interp: the masked surface is not symmetric about its peak, so GMTSAR's
 * sub-pixel estimate of an integer offset need not be 0), and equal to the
 * reference. Reports how many are exact.
 */
void qa_patch_correlator::integer_shifts(const std::string& device)
{
    gaussian_source g(77);
    for (int ri : { 1, 2 }) {
        for (bool highres : { true, false }) {
            const auto c = make_config(device, 32, 32, ri, 16, highres);
            patch_set s;
            s.npx = c.npx();
            s.npy = c.npy();
            const int lim_x = c.xsearch / (2 * ri);
            for (int dy : { 0, 1, -1, 3, -5, 7 })
                for (int dx : { 0, 2, -3 })
                    add_shifted_patch(
                        s, dy, std::max(-lim_x, std::min(lim_x, dx)), 1.0, g);
            const auto r = run_engine(c, s);
            const auto refs = references(s, geometry_of(c));
            comparison cmp;
            std::size_t exact = 0;
            double worst_x = 0.0, worst_y = 0.0;
            for (std::size_t k = 0; k < r.size(); ++k) {
                const std::string what =
                    describe(c, " integer offset patch " + std::to_string(k));
                compare_patch(r[k], refs[k], cmp, what);
                const double dx = patch_offset_dx(r[k], ri, 0);
                const double dy = patch_offset_dy(r[k], 0, 0);
                // With ri 2 the range patch covers npx/2 original columns and
                // its periodic interpolation has edge effects: GMTSAR's dx may be
                // off by a few 1/32 pixels even here (the reference agrees).
                const double step = highres ? 1.0 / 16 : 0.0;
                const double step_x = highres && ri > 1 ? 0.25 : step;
                CPPUNIT_ASSERT_MESSAGE(what + ": dy " + std::to_string(dy),
                                       std::fabs(dy - s.truth_dy[k]) <= step);
                CPPUNIT_ASSERT_MESSAGE(what + ": dx " + std::to_string(dx),
                                       std::fabs(dx - s.truth_dx[k]) <= step_x);
                worst_x = std::max(worst_x, std::fabs(dx - s.truth_dx[k]));
                worst_y = std::max(worst_y, std::fabs(dy - s.truth_dy[k]));
                CPPUNIT_ASSERT_MESSAGE(what + ": corr", r[k].corr > 99.0f);
                exact += dx == s.truth_dx[k] && dy == s.truth_dy[k];
            }
            std::cout << "qa_patch_correlator: " << describe(c, " integer offsets")
                      << ": " << exact << " of " << r.size()
                      << " patches exactly the offset; largest error dx " << worst_x
                      << " dy " << worst_y << std::endl;
        }
    }
}

/*!
 * Degenerate patches, GMTSAR's values (design note 5.11): a constant patch (zeros:
 * no data; or a non-zero constant, ri 1) gives jpeak = -xs, ipeak = -ys, corr 0 and
 * fractions -1/interp (0 without the high-resolution step); amplitudes all within 1
 * of their mean give corr 0 and fractions -4 at the surface's own peak; a NaN sample
 * gives NaN fractions and corr.
 */
void qa_patch_correlator::degenerate_patches(const std::string& device)
{
    gaussian_source g(5);
    for (int ri : { 1, 2 })
        for (int ifc : { 16, 4 })
            for (bool highres : { true, false }) {
                const auto c = make_config(device, 16, 16, ri, ifc, highres);
                patch_set s;
                s.npx = c.npx();
                s.npy = c.npy();
                const std::size_t n = std::size_t(s.npx) * s.npy;
                add_shifted_patch(s, 1.0, 0.5, 0.9, g); // 0: aligned zero
                std::fill(s.aligned.begin(), s.aligned.begin() + n, cfloat(0));
                add_shifted_patch(s, 1.0, 0.5, 0.9, g); // 1: master zero
                std::fill(s.master.begin() + n, s.master.begin() + 2 * n, cfloat(0));
                add_shifted_patch(s, 1.0, 0.5, 0.9, g); // 2: both zero
                std::fill(s.master.begin() + 2 * n, s.master.begin() + 3 * n, cfloat(0));
                std::fill(
                    s.aligned.begin() + 2 * n, s.aligned.begin() + 3 * n, cfloat(0));
                add_shifted_patch(s, 1.0, 0.5, 0.9, g); // 3: aligned constant (ri 1)
                if (ri == 1)
                    std::fill(s.aligned.begin() + 3 * n,
                              s.aligned.begin() + 4 * n,
                              cfloat(300.0f, -125.0f));
                add_shifted_patch(s, 2.0, -1.0, 0.9, g); // 4: tiny amplitudes
                for (std::size_t i = 4 * n; i < 5 * n; ++i) {
                    s.master[i] *= 1e-4f;
                    s.aligned[i] *= 1e-4f;
                }
                add_shifted_patch(s, 1.0, 0.5, 0.9, g); // 5: NaN sample
                s.aligned[5 * n + 77] = cfloat(std::nanf(""), 0.0f);
                const auto r = run_engine(c, s);
                const std::string what = describe(c, " degenerate");
                const float frac = highres ? -1.0f / float(ifc) : 0.0f;
                for (std::size_t k = 0; k < (ri == 1 ? 4u : 3u); ++k) {
                    const std::string m =
                        what + " patch " + std::to_string(k) + " " + str(r[k]);
                    CPPUNIT_ASSERT_MESSAGE(
                        m, r[k].jpeak == -c.xsearch && r[k].ipeak == -c.ysearch);
                    CPPUNIT_ASSERT_MESSAGE(m, r[k].corr == 0.0f);
                    CPPUNIT_ASSERT_MESSAGE(m, r[k].xfrac == frac && r[k].yfrac == frac);
                }
                {
                    const auto ref = reference(s.m(4), s.a(4), geometry_of(c));
                    const std::string m = what + " tiny amplitudes " + str(r[4]);
                    CPPUNIT_ASSERT_MESSAGE(m + " (reference gamma " +
                                               std::to_string(ref.gamma) + ")",
                                           ref.gamma == 0.0);
                    CPPUNIT_ASSERT_MESSAGE(m, r[4].corr == 0.0f);
                    CPPUNIT_ASSERT_MESSAGE(
                        m, r[4].jpeak == ref.jpeak() && r[4].ipeak == ref.ipeak());
                    const float f4 = highres ? -4.0f : 0.0f;
                    CPPUNIT_ASSERT_MESSAGE(m, r[4].xfrac == f4 && r[4].yfrac == f4);
                }
                {
                    const std::string m = what + " NaN sample " + str(r[5]);
                    CPPUNIT_ASSERT_MESSAGE(m, r[5].jpeak == 0 && r[5].ipeak == 0);
                    CPPUNIT_ASSERT_MESSAGE(m,
                                           std::isnan(r[5].corr) &&
                                               std::isnan(r[5].xfrac) &&
                                               std::isnan(r[5].yfrac));
                }
                // GMTSAR's printed line for the zero patch, default-like numbers.
                if (highres && ri == 1) {
                    CPPUNIT_ASSERT_EQUAL(float(c.xsearch) + 1.0f / float(ifc),
                                         patch_offset_dx(r[0], ri, 0));
                    CPPUNIT_ASSERT_EQUAL(float(c.ysearch) + 1.0f / float(ifc),
                                         patch_offset_dy(r[0], 0, 0));
                }
            }
}

/*!
 * CUDA (real-to-complex transforms, direct-DFT high-resolution step) against CPU
 * (GMTSAR's complex FFTW path): the same decisions on every patch that is not a
 * float32 tie in the reference, corr within float32 rounding.
 */
void qa_patch_correlator::matches_cpu(const std::string&)
{
    for (int ri : { 1, 2, 4 }) {
        const auto cc = make_config("cuda", 16, 16, ri);
        const auto cp = make_config("cpu", 16, 16, ri);
        const auto s = random_patches(cc, qa::scaled<std::size_t>(120, 30), 808 + ri);
        const auto rc = run_engine(cc, s);
        const auto rp = run_engine(cp, s);
        const auto refs = references(s, geometry_of(cc));
        std::size_t differ = 0;
        eta dx, dy, corr;
        double worst_corr = 0.0;
        for (std::size_t k = 0; k < rc.size(); ++k) {
            const float cdx = patch_offset_dx(rc[k], ri, 0),
                        pdx = patch_offset_dx(rp[k], ri, 0);
            const float cdy = patch_offset_dy(rc[k], 0, 0),
                        pdy = patch_offset_dy(rp[k], 0, 0);
            dx.add(cdx, pdx);
            dy.add(cdy, pdy);
            corr.add(rc[k].corr, rp[k].corr);
            if (cdx != pdx || cdy != pdy) {
                ++differ;
                // Both must be ties of the reference (compare_patch asserts it).
                comparison dummy;
                compare_patch(rc[k], refs[k], dummy, describe(cc, " vs cpu"));
                compare_patch(rp[k], refs[k], dummy, describe(cp, " vs cuda"));
            } else if (rc[k].jpeak == rp[k].jpeak && rc[k].ipeak == rp[k].ipeak) {
                worst_corr =
                    std::max(worst_corr, std::fabs(double(rc[k].corr) - rp[k].corr));
            }
        }
        std::cout << std::setprecision(3) << "qa_patch_correlator: cuda vs cpu ri " << ri
                  << ": " << differ << " of " << rc.size()
                  << " patches differ in dx or dy (float32 ties); eta_2 dx " << dx.two()
                  << " dy " << dy.two() << " corr " << corr.two() << "; max |corr diff| "
                  << worst_corr << std::endl;
        CPPUNIT_ASSERT(worst_corr <= 1e-3);
    }
}

CPPUNIT_TEST_SUITE_REGISTRATION(qa_patch_correlator);

} // namespace core
} // namespace cudadsp
} // namespace gr
