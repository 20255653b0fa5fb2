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
//  * range interpolation: per row X = DFT_N (a radix-2 FFT of this file), the bins
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

#include "qa_fft_reference.h"
#include "qa_float_bits.h"
#include "qa_support.h"
#include "runtime/cuda_resources.h"
#include <gnuradio/cudadsp/core/patch_correlator.h>
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
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

const double pi = 3.14159265358979323846;
//! Relative difference below which two candidate peaks are a float32 tie.
const double tie_rel = 2e-5;

using qa::poison_nan;
using qa::poisoned;

const std::int32_t poison_int = -2109876543;

patch_result poison_result()
{
    return { poison_int, poison_int, poison_nan(), poison_nan(), poison_nan() };
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool identical(const patch_result& a, const patch_result& b)
{
    return a.jpeak == b.jpeak && a.ipeak == b.ipeak && same_bits(a.xfrac, b.xfrac) &&
           same_bits(a.yfrac, b.yfrac) && same_bits(a.corr, b.corr);
}

std::string str(const patch_result& r)
{
    std::ostringstream s;
    s << "{jpeak " << r.jpeak << ", ipeak " << r.ipeak << ", xfrac " << r.xfrac
      << ", yfrac " << r.yfrac << ", corr " << r.corr << "}";
    return s.str();
}

// ---------------------------------------------------------------------------------
// Random numbers and the float64 FFT (qa_fft_reference.h)
// ---------------------------------------------------------------------------------

using qa::fft;
using qa::fft2;
using qa::gaussian_source;
using qa::pow2_at_least;

// ---------------------------------------------------------------------------------
// Synthetic patch pairs
// ---------------------------------------------------------------------------------

//! Patches for one engine call: npatches * npy * npx complex samples per image.
struct patch_set {
    int npx = 0, npy = 0;
    std::vector<cfloat> master, aligned;
    std::vector<double> truth_dx, truth_dy; //!< content offset (aligned - master), pixels
    std::size_t count() const { return master.size() / (std::size_t(npx) * npy); }
    const cfloat* m(std::size_t k) const { return master.data() + k * npx * npy; }
    const cfloat* a(std::size_t k) const { return aligned.data() + k * npx * npy; }
    std::size_t add()
    {
        master.resize(master.size() + std::size_t(npx) * npy);
        aligned.resize(aligned.size() + std::size_t(npx) * npy);
        truth_dx.push_back(0.0);
        truth_dy.push_back(0.0);
        return count() - 1;
    }
};

/*!
 * A pair of band-limited complex speckle fields (bandwidth 0.8 of each axis) of
 * rows x cols (powers of two): the aligned one has its content moved by (dy, dx)
 * (aligned[n] = master[n - d], exact Fourier shift) and decorrelated to coherence
 * \p coh. Both quantised to integers (std about \p scale per component).
 */
void speckle_pair(long rows,
                  long cols,
                  double dy,
                  double dx,
                  double coh,
                  double scale,
                  gaussian_source& g,
                  std::vector<cdouble>& master,
                  std::vector<cdouble>& aligned)
{
    std::vector<cdouble> Z(rows * cols), N(rows * cols);
    auto freq = [](long k, long n) { return double(k < n / 2 ? k : k - n) / double(n); };
    for (long r = 0; r < rows; ++r)
        for (long c = 0; c < cols; ++c) {
            const double fy = freq(r, rows), fx = freq(c, cols);
            const bool in = std::fabs(fy) < 0.4 && std::fabs(fx) < 0.4;
            Z[r * cols + c] = in ? g.complex_normal() : 0.0;
            N[r * cols + c] = in ? g.complex_normal() : 0.0;
        }
    master = Z;
    fft2(master, rows, cols, true);
    aligned.assign(rows * cols, 0.0);
    for (long r = 0; r < rows; ++r)
        for (long c = 0; c < cols; ++c) {
            const double fy = freq(r, rows), fx = freq(c, cols);
            const cdouble shift = std::polar(1.0, -2.0 * pi * (fy * dy + fx * dx));
            aligned[r * cols + c] =
                (coh * Z[r * cols + c] +
                 std::sqrt(std::max(0.0, 1.0 - coh * coh)) * N[r * cols + c]) *
                shift;
        }
    fft2(aligned, rows, cols, true);
    double power = 0.0;
    for (const auto& v : master)
        power += std::norm(v);
    const double k = scale / std::sqrt(power / double(2 * master.size()));
    for (auto* img : { &master, &aligned })
        for (auto& v : *img)
            v = { std::round(v.real() * k), std::round(v.imag() * k) };
}

/*! Adds a patch pair whose aligned content is moved by (dy, dx) pixels, cut from the
 *  middle of speckle fields twice the patch size. */
void add_shifted_patch(patch_set& s,
                       double dy,
                       double dx,
                       double coh,
                       gaussian_source& g,
                       double scale = 1000)
{
    const long rows = pow2_at_least(2 * s.npy), cols = pow2_at_least(2 * s.npx);
    std::vector<cdouble> m, a;
    speckle_pair(rows, cols, dy, dx, coh, scale, g, m, a);
    const std::size_t k = s.add();
    s.truth_dx[k] = dx;
    s.truth_dy[k] = dy;
    const long r0 = (rows - s.npy) / 2, c0 = (cols - s.npx) / 2;
    for (long r = 0; r < s.npy; ++r)
        for (long c = 0; c < s.npx; ++c) {
            const std::size_t i = k * s.npx * s.npy + r * s.npx + c;
            s.master[i] = cfloat(m[(r0 + r) * cols + c0 + c]);
            s.aligned[i] = cfloat(a[(r0 + r) * cols + c0 + c]);
        }
}

// ---------------------------------------------------------------------------------
// float64 reference, from the design note
// ---------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------
// Running the engine, comparing
// ---------------------------------------------------------------------------------

patch_correlator_config make_config(const std::string& device,
                                    int xs,
                                    int ys,
                                    int ri,
                                    int ifc = 16,
                                    bool highres = true,
                                    std::size_t batch = 0)
{
    patch_correlator_config c;
    c.xsearch = xs;
    c.ysearch = ys;
    c.range_interp = ri;
    c.interp = ifc;
    c.highres = highres;
    c.device = device;
    c.batch_patches = batch;
    return c;
}

std::string describe(const patch_correlator_config& c, const std::string& what = "")
{
    std::ostringstream s;
    s << c.device << " xs " << c.xsearch << " ys " << c.ysearch << " ri "
      << c.range_interp << " interp " << c.interp << (c.highres ? "" : " nointerp");
    if (c.batch_patches)
        s << " batch " << c.batch_patches;
    return s.str() + what;
}

void check_written(const std::vector<patch_result>& r, const std::string& what)
{
    for (std::size_t k = 0; k < r.size(); ++k) {
        const bool written = r[k].jpeak != poison_int && r[k].ipeak != poison_int &&
                             !poisoned(r[k].xfrac) && !poisoned(r[k].yfrac) &&
                             !poisoned(r[k].corr);
        CPPUNIT_ASSERT_MESSAGE(what + ": patch " + std::to_string(k) + " not written",
                               written);
    }
}

std::vector<patch_result>
run_engine(patch_correlator& e, const patch_set& s, const std::string& what)
{
    std::vector<patch_result> r(s.count(), poison_result());
    e.correlate_patches(s.master.data(), s.aligned.data(), s.count(), r.data());
    check_written(r, what);
    return r;
}

std::vector<patch_result> run_engine(const patch_correlator_config& c, const patch_set& s)
{
    auto e = patch_correlator::make(c);
    return run_engine(*e, s, describe(c));
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

/*! Random patch pairs for geometry \p c: offsets within half the search range,
 *  coherence 0.6 .. 0.95 (a few at 1). */
patch_set
random_patches(const patch_correlator_config& c, std::size_t count, std::uint64_t seed)
{
    gaussian_source g(seed);
    patch_set s;
    s.npx = c.npx();
    s.npy = c.npy();
    const double max_dy = c.ysearch / 2.0, max_dx = c.xsearch / (2.0 * c.range_interp);
    for (std::size_t k = 0; k < count; ++k) {
        const double coh = k % 8 == 7 ? 1.0 : g.uniform(0.6, 0.95);
        add_shifted_patch(
            s, g.uniform(-max_dy, max_dy), g.uniform(-max_dx, max_dx), coh, g);
    }
    return s;
}

std::vector<reference_patch> references(const patch_set& s, const geometry& g)
{
    std::vector<reference_patch> out;
    for (std::size_t k = 0; k < s.count(); ++k)
        out.push_back(reference(s.m(k), s.a(k), g));
    return out;
}

//! Window rows of \p image (width W) at (col, row): npy x npx complex floats.
template <typename T>
void cut(const std::vector<T>& image,
         long W,
         long col,
         long row,
         int npx,
         int npy,
         cfloat* out)
{
    for (int r = 0; r < npy; ++r)
        for (int c = 0; c < npx; ++c) {
            const std::size_t i = 2 * ((row + r) * W + col + c);
            out[r * npx + c] = cfloat(float(image[i]), float(image[i + 1]));
        }
}

//! An image pair (int16 I/Q) with patch pairs on a GMTSAR-like grid.
struct image_pair {
    long W = 0, H = 0;
    std::vector<std::int16_t> master, aligned;
    std::vector<patch_pair> pairs;

    image_view view(bool is_aligned) const
    {
        return { is_aligned ? aligned.data() : master.data(),
                 slc_sample_type::complex_int16,
                 std::size_t(W),
                 std::size_t(H) };
    }
    //! The pairs' windows as a patch set (what correlate() must extract).
    patch_set patches(int npx, int npy) const
    {
        patch_set s;
        s.npx = npx;
        s.npy = npy;
        for (const auto& p : pairs) {
            const std::size_t k = s.add();
            cut(master,
                W,
                long(p.master_col),
                long(p.master_row),
                npx,
                npy,
                s.master.data() + k * npx * npy);
            cut(aligned,
                W,
                long(p.aligned_col),
                long(p.aligned_row),
                npx,
                npy,
                s.aligned.data() + k * npx * npy);
        }
        return s;
    }
};

/*!
 * A W x H pair with content offset (dy, dx) at coherence 0.9, built from tiles of
 * speckle fields; patches of \p c on nx x ny grid positions in strip order (GMTSAR's
 * get_locations), the aligned windows moved by (ashift, rshift).
 */
image_pair make_image_pair(const patch_correlator_config& c,
                           long W,
                           long H,
                           int nx,
                           int ny,
                           int rshift,
                           int ashift,
                           std::uint64_t seed)
{
    gaussian_source g(seed);
    image_pair p;
    p.W = W;
    p.H = H;
    std::vector<cdouble> m, a;
    speckle_pair(pow2_at_least(H),
                 pow2_at_least(W),
                 2.3 + ashift,
                 -1.4 + rshift,
                 0.9,
                 1500,
                 g,
                 m,
                 a);
    const long fw = pow2_at_least(W);
    p.master.resize(2 * W * H);
    p.aligned.resize(2 * W * H);
    for (long r = 0; r < H; ++r)
        for (long k = 0; k < W; ++k) {
            const cdouble vm = m[r * fw + k], va = a[r * fw + k];
            auto clip = [](double v) {
                return std::int16_t(std::max(-32767.0, std::min(32767.0, v)));
            };
            p.master[2 * (r * W + k)] = clip(vm.real());
            p.master[2 * (r * W + k) + 1] = clip(vm.imag());
            p.aligned[2 * (r * W + k)] = clip(va.real());
            p.aligned[2 * (r * W + k) + 1] = clip(va.imag());
        }
    const int npx = c.npx(), npy = c.npy();
    const long x_inc = (W - 2 * (c.xsearch + 2 * c.xsearch)) / (nx + 3);
    const long y_inc = (H - 2 * (c.ysearch + 2 * c.ysearch)) / (ny + 1);
    for (int j = 1; j <= ny; ++j)
        for (int i = 2; i <= nx + 1; ++i) {
            const long x = npx + i * x_inc, y = npy + j * y_inc;
            p.pairs.push_back(
                { x - npx / 2, y - npy / 2, x + rshift - npx / 2, y + ashift - npy / 2 });
        }
    return p;
}

} // namespace

class qa_patch_correlator : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_patch_correlator);
    CPPUNIT_TEST(reference_self_check);
    CPPUNIT_TEST(config_validation);
    CPPUNIT_TEST(cpu_engine_has_no_device_entry);
    QA_BACKEND_TEST(against_reference);
    QA_BACKEND_TEST(default_geometry);
    QA_BACKEND_TEST(integer_shifts);
    QA_BACKEND_TEST(degenerate_patches);
    QA_BACKEND_TEST(images);
    QA_BACKEND_TEST(windows_leaving_the_image);
    QA_BACKEND_TEST(progress_and_timing);
    QA_CUDA_TEST(pinned_and_pageable);
    QA_CUDA_TEST(batch_invariance);
    QA_CUDA_TEST(device_entry);
    QA_CUDA_TEST(matches_cpu);
    CPPUNIT_TEST_SUITE_END();

public:
    // -----------------------------------------------------------------------------
    // Cases run on either backend
    // -----------------------------------------------------------------------------

    //! Many random patches per geometry against the reference; eta_2 < 1e-4.
    void against_reference(const std::string& device)
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
            const auto s = random_patches(
                c, gc.count, 1000 + gc.xs * 7 + gc.ys * 3 + gc.ri + gc.ifc);
            const auto refs = references(s, geometry_of(c));
            const auto r = run_engine(c, s);
            comparison cmp;
            for (std::size_t k = 0; k < r.size(); ++k) {
                compare_patch(
                    r[k], refs[k], cmp, describe(c, " patch " + std::to_string(k)));
                compare_patch(r[k], refs[k], all, describe(c));
            }
            report(describe(c), cmp);
            assert_eta(describe(c), cmp);
        }
        report(device + " all geometries", all);
        assert_eta(device + " all geometries", all);
    }

    //! GMTSAR's default geometry (xs = ys = 64, ri 2, interp 16) on a few patches.
    void default_geometry(const std::string& device)
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
    void integer_shifts(const std::string& device)
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
    void degenerate_patches(const std::string& device)
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
                    std::fill(
                        s.master.begin() + 2 * n, s.master.begin() + 3 * n, cfloat(0));
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
                        CPPUNIT_ASSERT_MESSAGE(m,
                                               r[k].xfrac == frac && r[k].yfrac == frac);
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
     * correlate() on images: int16 and float32 rasters of the same samples give the
     * same results as correlate_patches() on the extracted windows (bitwise), over a
     * grid of strips (GMTSAR's order) taller than the CUDA backend's row ring, with PRM
     * shifts, then the same pairs in reverse order.
     */
    void images(const std::string& device)
    {
        for (int ri : { 1, 2 }) {
            const auto c = make_config(device, 16, 16, ri, 16, true, 7);
            const auto p = make_image_pair(c, 700, 900, 6, 9, -3, 5, 31 + ri);
            const auto s = p.patches(c.npx(), c.npy());
            auto e = patch_correlator::make(c);
            const auto expected = run_engine(*e, s, describe(c, " extracted windows"));
            std::vector<float> mf(p.master.begin(), p.master.end());
            std::vector<float> af(p.aligned.begin(), p.aligned.end());
            const image_view fm{ mf.data(),
                                 slc_sample_type::complex_float32,
                                 std::size_t(p.W),
                                 std::size_t(p.H) };
            const image_view fa{ af.data(),
                                 slc_sample_type::complex_float32,
                                 std::size_t(p.W),
                                 std::size_t(p.H) };
            struct variant {
                const char* name;
                image_view m, a;
            };
            for (const variant& v :
                 { variant{ "int16", p.view(false), p.view(true) },
                   variant{ "float32", fm, fa },
                   variant{ "int16 master, float32 aligned", p.view(false), fa } }) {
                std::vector<patch_result> r(p.pairs.size(), poison_result());
                e->correlate(v.m, v.a, p.pairs.data(), p.pairs.size(), r.data());
                const std::string what = describe(c, std::string(" images ") + v.name);
                check_written(r, what);
                for (std::size_t k = 0; k < r.size(); ++k)
                    CPPUNIT_ASSERT_MESSAGE(what + " patch " + std::to_string(k) + ": " +
                                               str(r[k]) + " vs " + str(expected[k]),
                                           identical(r[k], expected[k]));
            }
            // Reverse order: the rows go backwards.
            std::vector<patch_pair> rev(p.pairs.rbegin(), p.pairs.rend());
            std::vector<patch_result> r(rev.size(), poison_result());
            e->correlate(p.view(false), p.view(true), rev.data(), rev.size(), r.data());
            check_written(r, describe(c, " reversed pairs"));
            for (std::size_t k = 0; k < r.size(); ++k)
                CPPUNIT_ASSERT_MESSAGE(describe(c, " reversed pairs patch ") +
                                           std::to_string(k),
                                       identical(r[k], expected[rev.size() - 1 - k]));
            // The physical truth: content offset (2.3 + ashift, -1.4 + rshift).
            double mean_dx = 0.0, mean_dy = 0.0;
            for (const auto& x : expected) {
                mean_dx += patch_offset_dx(x, ri, -3);
                mean_dy += patch_offset_dy(x, 5, 0);
            }
            mean_dx /= double(expected.size());
            mean_dy /= double(expected.size());
            std::cout << "qa_patch_correlator: " << describe(c, " images") << ": mean dx "
                      << mean_dx << " (truth -4.4), mean dy " << mean_dy << " (truth 7.3)"
                      << std::endl;
            // ri 2: half-width range patches, biased towards half pixels (design note
            // section 10).
            CPPUNIT_ASSERT(std::fabs(mean_dx + 4.4) < (ri == 1 ? 0.1 : 0.25));
            CPPUNIT_ASSERT(std::fabs(mean_dy - 7.3) < 0.1);
        }
    }

    //! Windows leaving an image: invalid_argument naming the patch, before any work.
    void windows_leaving_the_image(const std::string& device)
    {
        const auto c = make_config(device, 8, 8, 2);
        const long W = 200, H = 150;
        std::vector<std::int16_t> img(2 * W * H, 7);
        const image_view v{
            img.data(), slc_sample_type::complex_int16, std::size_t(W), std::size_t(H)
        };
        auto e = patch_correlator::make(c);
        const patch_pair good{ 10, 10, 12, 9 };
        struct bad_case {
            patch_pair p;
            const char* image;
        };
        const bad_case bad[] = {
            { { -1, 10, 10, 10 }, "master" },      { { 10, -1, 10, 10 }, "master" },
            { { W - 31, 10, 10, 10 }, "master" },  { { 10, H - 31, 10, 10 }, "master" },
            { { 10, 10, -5, 10 }, "aligned" },     { { 10, 10, 10, -40 }, "aligned" },
            { { 10, 10, W - 31, 10 }, "aligned" }, { { 10, 10, 10, H - 31 }, "aligned" },
        };
        for (const auto& b : bad) {
            std::vector<patch_pair> pairs{ good, good, b.p, good };
            std::vector<patch_result> r(pairs.size(), poison_result());
            bool thrown = false;
            try {
                e->correlate(v, v, pairs.data(), pairs.size(), r.data());
            } catch (const std::invalid_argument& ex) {
                thrown = true;
                const std::string m = ex.what();
                CPPUNIT_ASSERT_MESSAGE(m, m.find("patch 2") != std::string::npos);
                CPPUNIT_ASSERT_MESSAGE(m, m.find(b.image) != std::string::npos);
            }
            CPPUNIT_ASSERT_MESSAGE(describe(c, " window leaving the image"), thrown);
            for (const auto& x : r)
                CPPUNIT_ASSERT(poisoned(x.corr));
        }
        // The last rows and columns are inside.
        std::vector<patch_pair> edge{ { W - 32, H - 32, 0, 0 } };
        std::vector<patch_result> r(1, poison_result());
        e->correlate(v, v, edge.data(), 1, r.data());
        check_written(r, describe(c, " window at the image corner"));
        const image_view empty{ nullptr, slc_sample_type::complex_int16, 0, 0 };
        CPPUNIT_ASSERT_THROW(e->correlate(empty, v, edge.data(), 1, r.data()),
                             std::invalid_argument);
    }

    /*!
     * correlate()'s progress callback: on the calling thread, increasing counts, the
     * last npatches; the results identical to a call without it; last_timing()'s fields
     * finite and >= 0 (the transfers 0 on the CPU).
     */
    void progress_and_timing(const std::string& device)
    {
        const auto c = make_config(device, 16, 16, 2, 16, true, 3);
        const auto p = make_image_pair(c, 500, 700, 5, 7, 2, -4, 77);
        auto e = patch_correlator::make(c);
        const std::string what = describe(c, " progress");
        std::vector<patch_result> plain(p.pairs.size(), poison_result());
        e->correlate(
            p.view(false), p.view(true), p.pairs.data(), p.pairs.size(), plain.data());
        std::vector<std::size_t> counts;
        const std::thread::id caller = std::this_thread::get_id();
        bool same_thread = true;
        e->set_progress([&](std::size_t done, std::size_t total) {
            same_thread = same_thread && std::this_thread::get_id() == caller;
            CPPUNIT_ASSERT_EQUAL(p.pairs.size(), total);
            counts.push_back(done);
        });
        std::vector<patch_result> r(p.pairs.size(), poison_result());
        e->correlate(
            p.view(false), p.view(true), p.pairs.data(), p.pairs.size(), r.data());
        CPPUNIT_ASSERT_MESSAGE(what + ": on the calling thread", same_thread);
        CPPUNIT_ASSERT_MESSAGE(what + ": called", !counts.empty());
        for (std::size_t i = 0; i < counts.size(); ++i)
            CPPUNIT_ASSERT_MESSAGE(what + ": increasing",
                                   counts[i] > (i ? counts[i - 1] : 0));
        CPPUNIT_ASSERT_EQUAL(p.pairs.size(), counts.back());
        for (std::size_t k = 0; k < r.size(); ++k)
            CPPUNIT_ASSERT_MESSAGE(what + " patch " + std::to_string(k),
                                   identical(r[k], plain[k]));
        const patch_correlator_timing t = e->last_timing();
        for (double ms : { t.upload_ms, t.compute_ms, t.download_ms })
            CPPUNIT_ASSERT_MESSAGE(what + ": timing", std::isfinite(ms) && ms >= 0.0);
        if (device == "cpu")
            CPPUNIT_ASSERT(t.upload_ms == 0.0 && t.download_ms == 0.0);
        std::cout << "qa_patch_correlator: " << what << ": " << counts.size()
                  << " callbacks; upload " << t.upload_ms << " ms, compute "
                  << t.compute_ms << " ms, download " << t.download_ms << " ms"
                  << std::endl;
        // Cleared: no more calls.
        e->set_progress(nullptr);
        counts.clear();
        e->correlate(
            p.view(false), p.view(true), p.pairs.data(), p.pairs.size(), r.data());
        CPPUNIT_ASSERT(counts.empty());
    }

    // -----------------------------------------------------------------------------
    // Backend-free cases: the reference itself, the configuration, the CPU engine
    // -----------------------------------------------------------------------------

    void reference_self_check()
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
                CPPUNIT_ASSERT(std::fabs(R.E[(u * R.g.ifc) * H + v * R.g.ifc] - md) <
                               1e-12);
            }
        // The neighbourhood's centre is the peak: md[4][4] = gamma^(1/4).
        CPPUNIT_ASSERT(std::fabs(R.E[(4 * R.g.ifc) * H + 4 * R.g.ifc] -
                                 std::pow(R.gamma, 0.25)) < 1e-12);
    }

    void config_validation()
    {
        auto bad = [](patch_correlator_config c, const std::string& field) {
            try {
                c.validate();
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(e.what(), std::string(e.what()).find(field) == 0);
                return;
            }
            CPPUNIT_FAIL("no exception for " + field);
        };
        patch_correlator_config c;
        c.validate();
        for (int v : { 0, 4, 12, 2048, -8 }) {
            auto x = c;
            x.xsearch = v;
            bad(x, "xsearch");
            auto y = c;
            y.ysearch = v;
            bad(y, "ysearch");
        }
        for (int v : { 0, 3, 32 }) {
            auto x = c;
            x.range_interp = v;
            bad(x, "range_interp");
        }
        for (int v : { 0, 3, 128 }) {
            auto x = c;
            x.interp = v;
            bad(x, "interp");
        }
        auto x = c;
        x.batch_patches = std::size_t(1) << 20;
        bad(x, "batch_patches");
        x = c;
        x.device = "gpu";
        CPPUNIT_ASSERT_THROW(patch_correlator::make(x), std::invalid_argument);
        x = c;
        x.xsearch = 8;
        x.ysearch = 1024;
        x.range_interp = 16;
        x.interp = 64;
        x.validate();
    }

    void cpu_engine_has_no_device_entry()
    {
        auto e = patch_correlator::make(make_config("cpu", 8, 8, 1));
        CPPUNIT_ASSERT_THROW(e->correlate_patches_device(nullptr, nullptr, 1, nullptr),
                             std::logic_error);
    }

    // -----------------------------------------------------------------------------
    // Cases of the CUDA backend alone
    // -----------------------------------------------------------------------------

    //! Pinned and pageable host images and patches give identical results.
    void pinned_and_pageable(const std::string&)
    {
        const auto c = make_config("cuda", 16, 16, 2, 16, true, 5);
        const auto p = make_image_pair(c, 500, 700, 5, 7, 2, -4, 99);
        auto e = patch_correlator::make(c);
        std::vector<patch_result> pageable(p.pairs.size(), poison_result());
        e->correlate(
            p.view(false), p.view(true), p.pairs.data(), p.pairs.size(), pageable.data());
        check_written(pageable, "pageable images");
        const std::size_t bytes = p.master.size() * sizeof(std::int16_t);
        pinned_buffer<std::int16_t> pm(p.master.size()), pa(p.aligned.size());
        std::memcpy(pm.get(), p.master.data(), bytes);
        std::memcpy(pa.get(), p.aligned.data(), bytes);
        pinned_buffer<patch_result> pr(p.pairs.size());
        std::fill(pr.get(), pr.get() + p.pairs.size(), poison_result());
        const image_view vm{
            pm.get(), slc_sample_type::complex_int16, std::size_t(p.W), std::size_t(p.H)
        };
        const image_view va{
            pa.get(), slc_sample_type::complex_int16, std::size_t(p.W), std::size_t(p.H)
        };
        e->correlate(vm, va, p.pairs.data(), p.pairs.size(), pr.get());
        for (std::size_t k = 0; k < p.pairs.size(); ++k)
            CPPUNIT_ASSERT_MESSAGE("pinned images patch " + std::to_string(k),
                                   identical(pr.get()[k], pageable[k]));
        // Patches: pinned and pageable buffers.
        const auto s = p.patches(c.npx(), c.npy());
        const auto r_pageable = run_engine(*e, s, "pageable patches");
        pinned_buffer<cfloat> sm(s.master.size()), sa(s.aligned.size());
        std::copy(s.master.begin(), s.master.end(), sm.get());
        std::copy(s.aligned.begin(), s.aligned.end(), sa.get());
        std::fill(pr.get(), pr.get() + s.count(), poison_result());
        e->correlate_patches(sm.get(), sa.get(), s.count(), pr.get());
        for (std::size_t k = 0; k < s.count(); ++k) {
            CPPUNIT_ASSERT_MESSAGE("pinned patches patch " + std::to_string(k),
                                   identical(pr.get()[k], r_pageable[k]));
            CPPUNIT_ASSERT_MESSAGE("images vs patches patch " + std::to_string(k),
                                   identical(r_pageable[k], pageable[k]));
        }
    }

    //! Batch sizes 1, 3, 7, 64 and the default give identical results.
    void batch_invariance(const std::string&)
    {
        for (int ri : { 1, 2 }) {
            const auto c0 = make_config("cuda", 16, 16, ri);
            const auto s = random_patches(c0, 50, 4242 + ri);
            const auto whole = run_engine(c0, s);
            for (std::size_t batch : { 1, 3, 7, 64 }) {
                const auto c = make_config("cuda", 16, 16, ri, 16, true, batch);
                const auto r = run_engine(c, s);
                for (std::size_t k = 0; k < r.size(); ++k)
                    CPPUNIT_ASSERT_MESSAGE(describe(c, " patch " + std::to_string(k)) +
                                               ": " + str(r[k]) + " vs " + str(whole[k]),
                                           identical(r[k], whole[k]));
            }
        }
    }

    //! correlate_patches_device on a caller's stream equals correlate_patches.
    void device_entry(const std::string&)
    {
        const auto c = make_config("cuda", 16, 32, 2, 16, true, 6);
        const auto s = random_patches(c, 20, 555);
        auto e = patch_correlator::make(c);
        const auto expected = run_engine(*e, s, "host patches");
        device_buffer<cfloat> dm(s.master.size()), da(s.aligned.size());
        device_buffer<patch_result> dr(s.count());
        cuda_stream stream;
        CUDADSP_CUDA(
            cudaMemcpy(dm.get(), s.master.data(), dm.bytes(), cudaMemcpyHostToDevice));
        CUDADSP_CUDA(
            cudaMemcpy(da.get(), s.aligned.data(), da.bytes(), cudaMemcpyHostToDevice));
        std::vector<patch_result> r(s.count(), poison_result());
        CUDADSP_CUDA(cudaMemcpy(dr.get(), r.data(), dr.bytes(), cudaMemcpyHostToDevice));
        e->correlate_patches_device(
            dm.get(), da.get(), s.count(), dr.get(), stream.get());
        stream.synchronize();
        CUDADSP_CUDA(cudaMemcpy(r.data(), dr.get(), dr.bytes(), cudaMemcpyDeviceToHost));
        check_written(r, "device entry");
        for (std::size_t k = 0; k < r.size(); ++k)
            CPPUNIT_ASSERT_MESSAGE("device entry patch " + std::to_string(k),
                                   identical(r[k], expected[k]));
        // The caller's patches are left intact.
        std::vector<cfloat> back(s.master.size());
        for (int img = 0; img < 2; ++img) {
            CUDADSP_CUDA(cudaMemcpy(back.data(),
                                    img ? da.get() : dm.get(),
                                    dm.bytes(),
                                    cudaMemcpyDeviceToHost));
            CPPUNIT_ASSERT_MESSAGE("device entry: input overwritten",
                                   std::memcmp(back.data(),
                                               img ? s.aligned.data() : s.master.data(),
                                               dm.bytes()) == 0);
        }
        // The engine's own stream, then the host entry again: ordered.
        e->correlate_patches_device(dm.get(), da.get(), s.count(), dr.get());
        const auto again = run_engine(*e, s, "host patches again");
        for (std::size_t k = 0; k < r.size(); ++k)
            CPPUNIT_ASSERT(identical(again[k], expected[k]));
    }

    /*!
     * CUDA (real-to-complex transforms, direct-DFT high-resolution step) against CPU
     * (GMTSAR's complex FFTW path): the same decisions on every patch that is not a
     * float32 tie in the reference, corr within float32 rounding.
     */
    void matches_cpu(const std::string&)
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
            std::cout << std::setprecision(3) << "qa_patch_correlator: cuda vs cpu ri "
                      << ri << ": " << differ << " of " << rc.size()
                      << " patches differ in dx or dy (float32 ties); eta_2 dx "
                      << dx.two() << " dy " << dy.two() << " corr " << corr.two()
                      << "; max |corr diff| " << worst_corr << std::endl;
            CPPUNIT_ASSERT(worst_corr <= 1e-3);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_patch_correlator);

} // namespace core
} // namespace cudadsp
} // namespace gr
