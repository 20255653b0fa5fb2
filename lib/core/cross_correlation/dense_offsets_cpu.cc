/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cross_correlation/dense_offsets_cpu.h"
#include "cross_correlation/dense_offsets_rule.h"
#include "runtime/fftw_support.h"
#include "runtime/parallel_ranges.h"
#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using cx = fftwf_complex;

std::size_t area(int rows, int cols) { return std::size_t(rows) * std::size_t(cols); }

//! Size of the half spectrum of a real rows x cols transform.
std::size_t half_area(int rows, int cols) { return std::size_t(rows) * (cols / 2 + 1); }

/*!
 * The plans of one FFT oversampling (section 4.9) of an n0 x n1 complex window by f:
 * the forward n0 x n1 transform in place; the inverse pruned to the spectrum's
 * columns: n1 columns of m0 = f n0 points in a compact m0 x n1 array, in place, then
 * m0 rows of m1 = f n1 points out of place from the padded m0 x m1 array (whose
 * columns without bins stay zero: c2c out of place preserves its input).
 */
struct oversampler_plans {
    int n0 = 0, n1 = 0, m0 = 0, m1 = 0;
    fftwf_plan forward = nullptr;
    fftwf_plan columns = nullptr;
    fftwf_plan rows = nullptr;

    void make(int rows_in, int cols_in, int factor)
    {
        n0 = rows_in;
        n1 = cols_in;
        m0 = factor * n0;
        m1 = factor * n1;
        auto window = fftw_allocate<cx>(area(n0, n1));
        auto compact = fftw_allocate<cx>(area(m0, n1));
        auto padded = fftw_allocate<cx>(area(m0, m1));
        auto out = fftw_allocate<cx>(area(m0, m1));
        forward = fftwf_plan_dft_2d(
            n0, n1, window.get(), window.get(), FFTW_FORWARD, FFTW_ESTIMATE);
        columns = fftwf_plan_many_dft(1,
                                      &m0,
                                      n1,
                                      compact.get(),
                                      nullptr,
                                      n1,
                                      1,
                                      compact.get(),
                                      nullptr,
                                      n1,
                                      1,
                                      FFTW_BACKWARD,
                                      FFTW_ESTIMATE);
        this->rows = fftwf_plan_many_dft(1,
                                         &m1,
                                         m0,
                                         padded.get(),
                                         nullptr,
                                         1,
                                         m1,
                                         out.get(),
                                         nullptr,
                                         1,
                                         m1,
                                         FFTW_BACKWARD,
                                         FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
    }
    bool complete() const { return forward && columns && rows; }
    void destroy()
    {
        for (fftwf_plan* p : { &forward, &columns, &rows }) {
            if (*p)
                fftwf_destroy_plan(*p);
            *p = nullptr;
        }
    }
};

//! The real forward and inverse transforms of one normalised correlation (4.3).
struct correlation_plans {
    int rows = 0, cols = 0;
    fftwf_plan forward = nullptr; //!< real rows x cols to its half spectrum, out of place
    fftwf_plan inverse = nullptr; //!< half spectrum to real, out of place

    void make(int rows_in, int cols_in)
    {
        rows = rows_in;
        cols = cols_in;
        auto real = fftw_allocate<float>(area(rows, cols));
        auto spectrum = fftw_allocate<cx>(half_area(rows, cols));
        forward =
            fftwf_plan_dft_r2c_2d(rows, cols, real.get(), spectrum.get(), FFTW_ESTIMATE);
        inverse =
            fftwf_plan_dft_c2r_2d(rows, cols, spectrum.get(), real.get(), FFTW_ESTIMATE);
    }
    bool complete() const { return forward && inverse; }
    void destroy()
    {
        for (fftwf_plan* p : { &forward, &inverse }) {
            if (*p)
                fftwf_destroy_plan(*p);
            *p = nullptr;
        }
    }
};

} // namespace

struct dense_offsets_cpu::fftw_plans {
    explicit fftw_plans(const offsets_geometry& g)
    {
        const auto lock = fftw_planner_lock();
        // ESTIMATE plans do not touch the arrays; they only fix their alignment, which
        // fftwf_malloc gives every buffer the plans later run on.
        raw.make(g.search_rows(), g.search_cols());
        over.make(g.over_zoom_rows(), g.over_zoom_cols());
        reference.make(g.h, g.w, g.r);
        zoom.make(g.zoom_rows(), g.zoom_cols(), g.r);
        const int Z = g.zoom, m = g.fine_side(), half = m / 2 + 1;
        auto surface = fftw_allocate<float>(area(Z, Z));
        auto surface_spectrum = fftw_allocate<cx>(half_area(Z, Z));
        auto fine_spectrum = fftw_allocate<cx>(area(m, half));
        auto fine = fftw_allocate<float>(area(m, m));
        surface_forward = fftwf_plan_dft_r2c_2d(
            Z, Z, surface.get(), surface_spectrum.get(), FFTW_ESTIMATE);
        const int bin_columns = Z / 2 + 1;
        fine_columns = fftwf_plan_many_dft(1,
                                           &m,
                                           bin_columns,
                                           fine_spectrum.get(),
                                           nullptr,
                                           half,
                                           1,
                                           fine_spectrum.get(),
                                           nullptr,
                                           half,
                                           1,
                                           FFTW_BACKWARD,
                                           FFTW_ESTIMATE);
        fine_rows = fftwf_plan_many_dft_c2r(1,
                                            &m,
                                            m,
                                            fine_spectrum.get(),
                                            nullptr,
                                            1,
                                            half,
                                            fine.get(),
                                            nullptr,
                                            1,
                                            m,
                                            FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
        if (!raw.complete() || !over.complete() || !reference.complete() ||
            !zoom.complete() || !surface_forward || !fine_columns || !fine_rows) {
            destroy();
            throw std::runtime_error(
                "dense offsets: FFTW could not plan the transforms of "
                "a " +
                std::to_string(g.h) + " x " + std::to_string(g.w) + " window");
        }
    }
    ~fftw_plans()
    {
        const auto lock = fftw_planner_lock();
        destroy();
    }
    void destroy()
    {
        raw.destroy();
        over.destroy();
        reference.destroy();
        zoom.destroy();
        for (fftwf_plan* p : { &surface_forward, &fine_columns, &fine_rows }) {
            if (*p)
                fftwf_destroy_plan(*p);
            *p = nullptr;
        }
    }

    correlation_plans raw;                //!< the raw search window
    correlation_plans over;               //!< the oversampled zoom window
    oversampler_plans reference;          //!< the reference window by r
    oversampler_plans zoom;               //!< the zoom window by r
    fftwf_plan surface_forward = nullptr; //!< Z x Z real trimmed surface
    fftwf_plan fine_columns = nullptr;    //!< the Z/2 + 1 columns of bins, q Z points
    fftwf_plan fine_rows = nullptr;       //!< q Z rows, half spectrum to real
};

/*!
 * One worker's buffers, sized for the engine's geometry; the zero regions of the
 * padded arrays (template padding, spectrum columns without bins) are written once
 * here and never again.
 */
struct dense_offsets_cpu::workspace {
    explicit workspace(const offsets_geometry& g)
        : reference(fftw_allocate<cx>(area(g.h, g.w))),
          search(fftw_allocate<cx>(area(g.search_rows(), g.search_cols()))),
          search_amplitude(fftw_allocate<float>(area(g.search_rows(), g.search_cols()))),
          raw_template(fftw_allocate<float>(area(g.search_rows(), g.search_cols()))),
          over_template(
              fftw_allocate<float>(area(g.over_zoom_rows(), g.over_zoom_cols()))),
          over_search(fftw_allocate<float>(area(g.over_zoom_rows(), g.over_zoom_cols()))),
          correlation(fftw_allocate<float>(
              std::max(area(g.search_rows(), g.search_cols()),
                       area(g.over_zoom_rows(), g.over_zoom_cols())))),
          spectrum_a(fftw_allocate<cx>(
              std::max(half_area(g.search_rows(), g.search_cols()),
                       half_area(g.over_zoom_rows(), g.over_zoom_cols())))),
          spectrum_b(fftw_allocate<cx>(
              std::max(half_area(g.search_rows(), g.search_cols()),
                       half_area(g.over_zoom_rows(), g.over_zoom_cols())))),
          sums(std::max(area(g.search_rows() + 1, g.search_cols() + 1),
                        area(g.over_zoom_rows() + 1, g.over_zoom_cols() + 1))),
          squares(sums.size()),
          surface(area(g.surface_rows(), g.surface_cols())),
          window(fftw_allocate<cx>(
              std::max(area(g.h, g.w), area(g.zoom_rows(), g.zoom_cols())))),
          compact(fftw_allocate<cx>(std::max(area(g.over_ref_rows(), g.w),
                                             area(g.over_zoom_rows(), g.zoom_cols())))),
          padded_reference(fftw_allocate<cx>(area(g.over_ref_rows(), g.over_ref_cols()))),
          padded_zoom(fftw_allocate<cx>(area(g.over_zoom_rows(), g.over_zoom_cols()))),
          oversampled(
              fftw_allocate<cx>(std::max(area(g.over_ref_rows(), g.over_ref_cols()),
                                         area(g.over_zoom_rows(), g.over_zoom_cols())))),
          trimmed(fftw_allocate<float>(area(g.zoom, g.zoom))),
          trimmed_spectrum(fftw_allocate<cx>(half_area(g.zoom, g.zoom))),
          fine_spectrum(fftw_allocate<cx>(area(g.fine_side(), g.fine_side() / 2 + 1))),
          fine(fftw_allocate<float>(area(g.fine_side(), g.fine_side())))
    {
        auto zero = [](auto& a, std::size_t n) {
            std::memset(static_cast<void*>(a.get()), 0, n * sizeof(a[0]));
        };
        zero(raw_template, area(g.search_rows(), g.search_cols()));
        zero(over_template, area(g.over_zoom_rows(), g.over_zoom_cols()));
        zero(padded_reference, area(g.over_ref_rows(), g.over_ref_cols()));
        zero(padded_zoom, area(g.over_zoom_rows(), g.over_zoom_cols()));
        zero(trimmed, area(g.zoom, g.zoom));
        zero(fine_spectrum, area(g.fine_side(), g.fine_side() / 2 + 1));
    }
    fftw_array<cx> reference;           //!< h x w complex (amplitudes with deramp 0)
    fftw_array<cx> search;              //!< raw search window, complex
    fftw_array<float> search_amplitude; //!< |search|
    fftw_array<float> raw_template;     //!< A zero-padded to the search size
    fftw_array<float> over_template;    //!< A' zero-padded to the oversampled zoom size
    fftw_array<float> over_search;      //!< B'
    fftw_array<float> correlation;      //!< unnormalised correlation (either size)
    fftw_array<cx> spectrum_a, spectrum_b;
    std::vector<double> sums, squares;            //!< summed-area tables of B and B^2
    std::vector<float> surface;                   //!< raw normalised surface
    fftw_array<cx> window;                        //!< a window being oversampled
    fftw_array<cx> compact;                       //!< its column stage
    fftw_array<cx> padded_reference, padded_zoom; //!< the row stages' inputs
    fftw_array<cx> oversampled;                   //!< an oversampled window
    fftw_array<float> trimmed;                    //!< Z x Z trimmed surface (zero-padded)
    fftw_array<cx> trimmed_spectrum;
    fftw_array<cx> fine_spectrum; //!< q Z x (q Z / 2 + 1) half spectrum
    fftw_array<float> fine;       //!< q Z x q Z fine surface (unscaled)
};

namespace {

using plans_t = dense_offsets_cpu::fftw_plans;
using workspace_t = dense_offsets_cpu::workspace;

//! rows x cols complex samples of \p im from (row, col) as complex float.
void load_window(
    const image_view& im, std::int64_t row, std::int64_t col, int rows, int cols, cx* out)
{
    for (int r = 0; r < rows; ++r) {
        const std::size_t first = (std::size_t(row) + r) * im.width + std::size_t(col);
        cx* o = out + std::size_t(r) * cols;
        if (im.type == slc_sample_type::complex_int16) {
            const std::int16_t* s = static_cast<const std::int16_t*>(im.data) + 2 * first;
            for (int c = 0; c < cols; ++c) { // exact: every int16 is a float
                o[c][0] = s[2 * c];
                o[c][1] = s[2 * c + 1];
            }
        } else {
            std::memcpy(static_cast<void*>(o),
                        static_cast<const float*>(im.data) + 2 * first,
                        sizeof(cx) * std::size_t(cols));
        }
    }
}

//! Section 4.1, deramp 0: the samples replaced by their amplitudes.
void to_amplitude(cx* z, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i) {
        z[i][0] = amplitude(z[i][0], z[i][1]);
        z[i][1] = 0.0f;
    }
}

//! Section 4.9, deramp 1, in place on a contiguous rows x cols window.
void deramp(cx* z, int rows, int cols, const offsets_geometry& g)
{
    double down_re = 0.0, down_im = 0.0, across_re = 0.0, across_im = 0.0;
    for (int a = 0; a < rows; ++a)
        for (int b = 0; b < cols; ++b) {
            const double xr = z[a * cols + b][0], xi = z[a * cols + b][1];
            if (b + 1 < cols) { // z[a][b] conj(z[a][b+1])
                const double yr = z[a * cols + b + 1][0], yi = z[a * cols + b + 1][1];
                across_re += xr * yr + xi * yi;
                across_im += xi * yr - xr * yi;
            }
            if (a + 1 < rows) { // z[a][b] conj(z[a+1][b])
                const double yr = z[(a + 1) * cols + b][0], yi = z[(a + 1) * cols + b][1];
                down_re += xr * yr + xi * yi;
                down_im += xi * yr - xr * yi;
            }
        }
    const deramp_phases phi =
        measured_deramp_phases(down_re, down_im, across_re, across_im, g.deramp_axis);
    for (int a = 0; a < rows; ++a)
        for (int b = 0; b < cols; ++b)
            deramp_sample(z[a * cols + b][0],
                          z[a * cols + b][1],
                          a,
                          b,
                          phi.down,
                          phi.across,
                          g.isce2_deramp);
}

/*!
 * Section 4.9: FFT-oversample the window in ws.window (n0 x n1, destroyed) with \p p
 * and write the amplitudes of the result (m0 x m1) to \p amplitudes.
 */
void oversample_amplitude(const oversampler_plans& p,
                          workspace_t& ws,
                          cx* padded,
                          float* amplitudes)
{
    cx* window = ws.window.get();
    cx* compact = ws.compact.get();
    fftwf_execute_dft(p.forward, window, window);
    std::memset(static_cast<void*>(compact), 0, sizeof(cx) * area(p.m0, p.n1));
    for (int k0 = 0; k0 < p.n0; ++k0) {
        const int row = oversample_bin(k0, p.n0, p.m0);
        if (row < 0)
            continue;
        std::memcpy(static_cast<void*>(compact + std::size_t(row) * p.n1),
                    window + std::size_t(k0) * p.n1,
                    sizeof(cx) * p.n1);
    }
    fftwf_execute_dft(p.columns, compact, compact);
    for (int row = 0; row < p.m0; ++row)
        for (int k1 = 0; k1 < p.n1; ++k1) {
            const int col = oversample_bin(k1, p.n1, p.m1);
            if (col < 0)
                continue; // that column stays zero
            cx& d = padded[std::size_t(row) * p.m1 + col];
            d[0] = compact[std::size_t(row) * p.n1 + k1][0];
            d[1] = compact[std::size_t(row) * p.n1 + k1][1];
        }
    cx* out = ws.oversampled.get();
    fftwf_execute_dft(p.rows, padded, out);
    const int n = p.n0 * p.n1;
    for (std::size_t i = 0; i < area(p.m0, p.m1); ++i)
        amplitudes[i] = oversampled_amplitude(out[i][0], out[i][1], n);
}

//! Subtracts the mean from the rows x cols amplitudes (row stride \p stride); returns
//! the float64 sum of squares of the result (T2 of section 4.4).
double remove_mean(float* a, int rows, int cols, int stride)
{
    double sum = 0.0;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            sum += a[std::size_t(r) * stride + c];
    const float mean = window_mean(sum, rows * cols);
    double t2 = 0.0;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            float& v = a[std::size_t(r) * stride + c];
            v -= mean;
            t2 += double(v) * double(v);
        }
    return t2;
}

/*!
 * Sections 4.3, 4.4: the normalised correlation of the zero-padded template
 * (\p tmpl, rows x cols, its h x w block set) with \p search (rows x cols), at the
 * lags 0 .. out_rows-1, 0 .. out_cols-1, into \p out (row stride out_cols).
 */
void normalized_surface(const correlation_plans& p,
                        workspace_t& ws,
                        float* tmpl,
                        float* search,
                        int h,
                        int w,
                        double t2,
                        int out_rows,
                        int out_cols,
                        float* out)
{
    const int rows = p.rows, cols = p.cols;
    cx* fa = ws.spectrum_a.get();
    cx* fb = ws.spectrum_b.get();
    fftwf_execute_dft_r2c(p.forward, tmpl, fa);
    fftwf_execute_dft_r2c(p.forward, search, fb);
    for (std::size_t i = 0; i < half_area(rows, cols); ++i) { // conj(fa) fb
        const float ar = fa[i][0], ai = fa[i][1], br = fb[i][0], bi = fb[i][1];
        fa[i][0] = ar * br + ai * bi;
        fa[i][1] = ar * bi - ai * br;
    }
    float* corr = ws.correlation.get();
    fftwf_execute_dft_c2r(p.inverse, fa, corr);

    // Summed-area tables of the search amplitudes and their squares.
    const int tc = cols + 1;
    double* s1 = ws.sums.data();
    double* s2 = ws.squares.data();
    for (int c = 0; c <= cols; ++c)
        s1[c] = s2[c] = 0.0;
    for (int r = 0; r < rows; ++r) {
        double row1 = 0.0, row2 = 0.0;
        s1[std::size_t(r + 1) * tc] = s2[std::size_t(r + 1) * tc] = 0.0;
        for (int c = 0; c < cols; ++c) {
            const double v = search[std::size_t(r) * cols + c];
            row1 += v;
            row2 += v * v;
            s1[std::size_t(r + 1) * tc + c + 1] = s1[std::size_t(r) * tc + c + 1] + row1;
            s2[std::size_t(r + 1) * tc + c + 1] = s2[std::size_t(r) * tc + c + 1] + row2;
        }
    }
    auto block = [&](const double* t, int u, int v) {
        return t[std::size_t(u + h) * tc + v + w] - t[std::size_t(u) * tc + v + w] -
               t[std::size_t(u + h) * tc + v] + t[std::size_t(u) * tc + v];
    };
    const long long size = static_cast<long long>(rows) * cols;
    for (int u = 0; u < out_rows; ++u)
        for (int v = 0; v < out_cols; ++v)
            out[std::size_t(u) * out_cols + v] =
                normalized_correlation(corr[std::size_t(u) * cols + v],
                                       size,
                                       block(s1, u, v),
                                       block(s2, u, v),
                                       t2,
                                       h * w);
}

//! Section 4.5 (4.12) on \p n values: the winner of offer() over all of them (a total
//! order), found by a plain maximum scan and then the tie rule among the values equal
//! to it, which is the same winner at a fraction of the comparisons.
surface_max surface_argmax(const float* v, int n)
{
    bool any = false;
    float top = 0.0f;
    for (int i = 0; i < n; ++i)
        if (v[i] > top || (!any && v[i] == v[i])) {
            top = v[i];
            any = true;
        }
    surface_max best;
    if (!any)
        return best;
    for (int i = 0; i < n; ++i)
        if (v[i] == top)
            offer(best, v[i], i);
    return best;
}

//! One window, sections 4.1 - 4.12.
offset_result estimate_window(const plans_t& plans,
                              workspace_t& ws,
                              const offsets_geometry& g,
                              const image_view& reference,
                              const image_view& secondary,
                              const offset_window& win)
{
    const int Hs = g.search_rows(), Ws = g.search_cols();
    cx* ref = ws.reference.get();
    cx* sec = ws.search.get();
    load_window(reference, win.reference_down, win.reference_across, g.h, g.w, ref);
    load_window(secondary,
                win.reference_down + win.gross_down - g.hd,
                win.reference_across + win.gross_across - g.ha,
                Hs,
                Ws,
                sec);
    if (g.deramp == static_cast<int>(deramp_method::amplitude)) {
        to_amplitude(ref, area(g.h, g.w));
        to_amplitude(sec, area(Hs, Ws));
    }

    // 4.2 - 4.4: A = |R| - mean in the padded template, B = |Q|.
    float* tmpl = ws.raw_template.get();
    for (int a = 0; a < g.h; ++a)
        for (int b = 0; b < g.w; ++b) {
            const cx& z = ref[a * g.w + b];
            tmpl[std::size_t(a) * Ws + b] = amplitude(z[0], z[1]);
        }
    const double t2 = remove_mean(tmpl, g.h, g.w, Ws);
    float* b_amp = ws.search_amplitude.get();
    for (std::size_t i = 0; i < area(Hs, Ws); ++i)
        b_amp[i] = amplitude(sec[i][0], sec[i][1]);
    const int rows = g.surface_rows(), cols = g.surface_cols();
    float* surface = ws.surface.data();
    normalized_surface(plans.raw, ws, tmpl, b_amp, g.h, g.w, t2, rows, cols, surface);

    // 4.5 - 4.8
    const surface_max raw = surface_argmax(surface, rows * cols);
    if (raw.index < 0)
        return invalid_offset_result();
    const int p_d = raw.index / cols, p_a = raw.index % cols;
    const offset_covariance cov =
        raw_covariance(surface, rows, cols, p_d, p_a, raw.value, g.h * g.w);
    const index_range sd = snr_range(p_d, g.stat, rows);
    const index_range sa = snr_range(p_a, g.stat, cols);
    double energy = 0.0;
    for (int i = sd.first; i < sd.end; ++i)
        for (int j = sa.first; j < sa.end; ++j)
            energy += snr_term(surface[i * cols + j]);
    const float snr =
        snr_value(raw.value, energy, (sd.end - sd.first) * (sa.end - sa.first));
    const int s_d = zoom_start(p_d, g.hd, g.hz);
    const int s_a = zoom_start(p_a, g.ha, g.hz);

    // 4.9: the reference window, then the zoom window, oversampled.
    const bool deramp_average = g.deramp == static_cast<int>(deramp_method::average);
    std::memcpy(static_cast<void*>(ws.window.get()), ref, sizeof(cx) * area(g.h, g.w));
    if (deramp_average)
        deramp(ws.window.get(), g.h, g.w, g);
    const int Os = g.over_zoom_cols();
    float* over_tmpl = ws.over_template.get();
    {
        // Oversampled rows r h x r w land in the padded template with row stride Os.
        float* a = ws.over_search.get(); // scratch until the zoom window needs it
        oversample_amplitude(plans.reference, ws, ws.padded_reference.get(), a);
        const int orr = g.over_ref_rows(), orc = g.over_ref_cols();
        for (int r = 0; r < orr; ++r)
            std::memcpy(over_tmpl + std::size_t(r) * Os,
                        a + std::size_t(r) * orc,
                        sizeof(float) * orc);
    }
    const double over_t2 =
        remove_mean(over_tmpl, g.over_ref_rows(), g.over_ref_cols(), Os);
    const int zr = g.zoom_rows(), zc = g.zoom_cols();
    for (int a = 0; a < zr; ++a)
        std::memcpy(static_cast<void*>(ws.window.get() + std::size_t(a) * zc),
                    sec + std::size_t(s_d + a) * Ws + s_a,
                    sizeof(cx) * zc);
    if (deramp_average)
        deramp(ws.window.get(), zr, zc, g);
    oversample_amplitude(plans.zoom, ws, ws.padded_zoom.get(), ws.over_search.get());

    // 4.10: the trimmed oversampled surface (lags 0 .. 2 r hz - 1) into the Z x Z
    // zero-padded trimmed array.
    const int t = g.trimmed_side(), Z = g.zoom;
    float* trimmed = ws.trimmed.get();
    std::vector<float>& scratch = ws.surface; // the raw surface is no longer needed
    if (scratch.size() < area(t, t))
        scratch.resize(area(t, t));
    normalized_surface(plans.over,
                       ws,
                       over_tmpl,
                       ws.over_search.get(),
                       g.over_ref_rows(),
                       g.over_ref_cols(),
                       over_t2,
                       t,
                       t,
                       scratch.data());
    for (int r = 0; r < t; ++r)
        std::memcpy(trimmed + std::size_t(r) * Z,
                    scratch.data() + std::size_t(r) * t,
                    sizeof(float) * t);

    // 4.11: real transform, weighted bins into the fine half spectrum, pruned inverse.
    cx* xs = ws.trimmed_spectrum.get();
    fftwf_execute_dft_r2c(plans.surface_forward, trimmed, xs);
    const int m = g.fine_side(), half = m / 2 + 1, zhalf = Z / 2 + 1, pz = Z / 2;
    cx* fs = ws.fine_spectrum.get();
    for (int row = 0; row < m; ++row)
        for (int col = 0; col < zhalf; ++col)
            fs[std::size_t(row) * half + col][0] = fs[std::size_t(row) * half + col][1] =
                0.0f;
    for (int j0 = -pz; j0 <= pz; ++j0)
        for (int j1 = -pz; j1 <= pz; ++j1) {
            const float weight = surface_bin_weight(j0, j1, Z);
            const int col = ((j1 % m) + m) % m;
            if (weight == 0.0f || col >= half)
                continue;
            // X(j0, j1) from the real transform's half spectrum (Hermitian symmetry
            // for negative j1).
            float re, im;
            if (j1 >= 0) {
                const cx& x = xs[std::size_t(((j0 % Z) + Z) % Z) * zhalf + j1];
                re = x[0];
                im = x[1];
            } else {
                const cx& x = xs[std::size_t(((-j0 % Z) + Z) % Z) * zhalf - j1];
                re = x[0];
                im = -x[1];
            }
            cx& d = fs[std::size_t(((j0 % m) + m) % m) * half + col];
            d[0] += weight * re;
            d[1] += weight * im;
        }
    fftwf_execute_dft(plans.fine_columns, fs, fs);
    float* fine = ws.fine.get();
    fftwf_execute_dft_c2r(plans.fine_rows, fs, fine);

    // 4.12
    const surface_max best = surface_argmax(fine, m * m);
    return finish_window(
        raw, snr, cov, s_d, s_a, best, win.gross_down, win.gross_across, g);
}

} // namespace

dense_offsets_cpu::dense_offsets_cpu(const dense_offsets_config& config,
                                     const device_selection& device)
    : dense_offsets_estimator(config, device),
      d_plans(std::make_unique<fftw_plans>(make_offsets_geometry(config)))
{
}

dense_offsets_cpu::~dense_offsets_cpu() = default;

std::unique_ptr<dense_offsets_cpu::workspace> dense_offsets_cpu::acquire()
{
    {
        std::lock_guard<std::mutex> lock(d_pool_mutex);
        if (!d_pool.empty()) {
            auto ws = std::move(d_pool.back());
            d_pool.pop_back();
            return ws;
        }
    }
    return std::make_unique<workspace>(make_offsets_geometry(d_config));
}

void dense_offsets_cpu::release(std::unique_ptr<workspace> ws)
{
    std::lock_guard<std::mutex> lock(d_pool_mutex);
    d_pool.push_back(std::move(ws));
}

void dense_offsets_cpu::estimate(const image_view& reference,
                                 const image_view& secondary,
                                 const offset_window* windows,
                                 std::size_t nwindows,
                                 offset_result* results)
{
    check_windows(reference, secondary, windows, nwindows);
    const auto t0 = std::chrono::steady_clock::now();
    d_timing = offsets_timing{};
    const offsets_geometry g = make_offsets_geometry(d_config);
    const std::size_t cores = std::max<unsigned>(1, std::thread::hardware_concurrency());
    // With a progress callback, chunks of about a twentieth of the windows (at least
    // one per core), each shared among the workers, the callback after each.
    const std::size_t chunk = d_progress
                                  ? std::max<std::size_t>((nwindows + 19) / 20, cores)
                                  : std::max<std::size_t>(nwindows, 1);
    for (std::size_t first = 0; first < nwindows; first += chunk) {
        const std::size_t n = std::min(chunk, nwindows - first);
        // A window costs far more than starting a thread: one window is worth one.
        parallel_ranges(n, n, [&](std::size_t begin, std::size_t end) {
            std::unique_ptr<workspace> ws = acquire();
            for (std::size_t i = begin; i < end; ++i) {
                const std::size_t k = first + i;
                results[k] =
                    estimate_window(*d_plans, *ws, g, reference, secondary, windows[k]);
            }
            release(std::move(ws));
        });
        if (d_progress)
            d_progress(first + n, nwindows);
    }
    d_timing.compute_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
            .count();
}

} // namespace core
} // namespace cudadsp
} // namespace gr
