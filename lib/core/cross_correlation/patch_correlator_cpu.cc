/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cross_correlation/patch_correlation_rule.h"
#include "cross_correlation/patch_correlator_cpu.h"
#include "runtime/fftw_support.h"
#include "runtime/parallel_ranges.h"
#include <volk/volk.h>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! \p howmany contiguous in-place transforms of \p n points.
fftwf_plan plan_rows(int n, int howmany, fftwf_complex* data, int sign)
{
    return fftwf_plan_many_dft(
        1, &n, howmany, data, nullptr, 1, n, data, nullptr, 1, n, sign, FFTW_ESTIMATE);
}

} // namespace

struct patch_correlator_cpu::fftw_plans {
    explicit fftw_plans(const patch_geometry& g)
    {
        const auto lock = fftw_planner_lock();
        // ESTIMATE plans do not touch the arrays; they only fix their alignment, which
        // fftwf_malloc gives every buffer the plans later run on.
        const int npx = g.npx, npy = g.npy, M = g.range_len(), H = g.highres_len();
        auto patch = fftw_allocate<fftwf_complex>(std::size_t(npy) * npx);
        auto rows = fftw_allocate<fftwf_complex>(std::size_t(npy) * M);
        auto small = fftw_allocate<fftwf_complex>(std::size_t(H) * std::max(H, 8));
        if (g.ri > 1) {
            range_forward = plan_rows(npx, npy, patch.get(), FFTW_FORWARD);
            range_inverse = plan_rows(M, npy, rows.get(), FFTW_BACKWARD);
        }
        corr_forward = fftwf_plan_dft_2d(
            npy, npx, patch.get(), patch.get(), FFTW_FORWARD, FFTW_ESTIMATE);
        corr_inverse = fftwf_plan_dft_2d(
            npy, npx, patch.get(), patch.get(), FFTW_BACKWARD, FFTW_ESTIMATE);
        if (g.highres) {
            highres_rows_forward = plan_rows(8, 8, small.get(), FFTW_FORWARD);
            highres_rows_inverse = plan_rows(H, 8, small.get(), FFTW_BACKWARD);
            highres_cols_forward = plan_rows(8, H, small.get(), FFTW_FORWARD);
            highres_cols_inverse = plan_rows(H, H, small.get(), FFTW_BACKWARD);
        }
        const bool missing =
            (g.ri > 1 && (!range_forward || !range_inverse)) || !corr_forward ||
            !corr_inverse ||
            (g.highres && (!highres_rows_forward || !highres_rows_inverse ||
                           !highres_cols_forward || !highres_cols_inverse));
        if (missing) {
            destroy();
            throw std::runtime_error("patch_correlator: FFTW could not plan the "
                                     "transforms of a " +
                                     std::to_string(npy) + " x " + std::to_string(npx) +
                                     " patch");
        }
    }
    ~fftw_plans()
    {
        const auto lock = fftw_planner_lock();
        destroy();
    }
    void destroy()
    {
        for (fftwf_plan* p : { &range_forward,
                               &range_inverse,
                               &corr_forward,
                               &corr_inverse,
                               &highres_rows_forward,
                               &highres_rows_inverse,
                               &highres_cols_forward,
                               &highres_cols_inverse }) {
            if (*p)
                fftwf_destroy_plan(*p);
            *p = nullptr;
        }
    }

    fftwf_plan range_forward = nullptr;        //!< npy rows of npx, in place
    fftwf_plan range_inverse = nullptr;        //!< npy rows of ri npx, in place
    fftwf_plan corr_forward = nullptr;         //!< npy x npx, in place
    fftwf_plan corr_inverse = nullptr;         //!< npy x npx, in place
    fftwf_plan highres_rows_forward = nullptr; //!< 8 rows of 8
    fftwf_plan highres_rows_inverse = nullptr; //!< 8 rows of 8 interp
    fftwf_plan highres_cols_forward = nullptr; //!< 8 interp columns of 8 (transposed)
    fftwf_plan highres_cols_inverse = nullptr; //!< 8 interp columns of 8 interp
};

/*!
 * One worker's buffers: c[0], c[1] the master and aligned patch (complex, then the
 * correlation's spectra, then the correlation in c[0]); rows the padded range spectra;
 * a[0], a[1] the demeaned (aligned: masked) amplitudes, kept for the integer copies;
 * md, t1, t2, t3 the high-resolution step's matrices.
 */
struct patch_correlator_cpu::workspace {
    explicit workspace(const patch_geometry& g)
        : c{ fftw_allocate<fftwf_complex>(std::size_t(g.npy) * g.npx),
             fftw_allocate<fftwf_complex>(std::size_t(g.npy) * g.npx) },
          rows(fftw_allocate<fftwf_complex>(g.ri > 1 ? std::size_t(g.npy) * g.range_len()
                                                     : 1)),
          a{ fftw_allocate<float>(std::size_t(g.npy) * g.npx),
             fftw_allocate<float>(std::size_t(g.npy) * g.npx) },
          row_sums(fftw_allocate<double>(g.npy)),
          md(fftw_allocate<fftwf_complex>(64)),
          t1(fftw_allocate<fftwf_complex>(std::size_t(8) * g.highres_len())),
          t2(fftw_allocate<fftwf_complex>(std::size_t(8) * g.highres_len())),
          t3(fftw_allocate<fftwf_complex>(std::size_t(g.highres_len()) * g.highres_len()))
    {
    }
    fftw_array<fftwf_complex> c[2];
    fftw_array<fftwf_complex> rows;
    fftw_array<float> a[2];
    fftw_array<double> row_sums;
    fftw_array<fftwf_complex> md, t1, t2, t3;
};

namespace {

using plans_t = patch_correlator_cpu::fftw_plans;
using workspace_t = patch_correlator_cpu::workspace;

/*!
 * fft_interpolate_1d on \p count rows already transformed forward (N points each, at
 * \p spectra with stride N): spread into \p padded (count rows of M, stride M), the
 * Nyquist bin to the negative side, and transform back in place with \p inverse. The
 * caller applies interpolation_scale() to what it reads.
 */
void spread_rows(
    const fftwf_complex* spectra, int N, int M, int count, fftwf_complex* padded)
{
    std::memset(
        static_cast<void*>(padded), 0, sizeof(fftwf_complex) * std::size_t(count) * M);
    for (int r = 0; r < count; ++r)
        for (int k = 0; k < N; ++k) {
            fftwf_complex& z = padded[std::size_t(r) * M + padded_bin(k, N, M)];
            z[0] = spectra[std::size_t(r) * N + k][0];
            z[1] = spectra[std::size_t(r) * N + k][1];
        }
}

/*! Range interpolation of one patch in place (do_range_interpolate on every row):
 *  the middle npx of the ri npx interpolated samples. */
void range_interpolate(const plans_t& plans,
                       fftwf_complex* patch,
                       fftwf_complex* rows,
                       const patch_geometry& g)
{
    const int N = g.npx, M = g.range_len();
    fftwf_execute_dft(plans.range_forward, patch, patch);
    spread_rows(patch, N, M, g.npy, rows);
    fftwf_execute_dft(plans.range_inverse, rows, rows);
    for (int r = 0; r < g.npy; ++r)
        for (int c = 0; c < N; ++c) {
            const fftwf_complex& w = rows[std::size_t(r) * M + c + N / 2];
            fftwf_complex& out = patch[std::size_t(r) * N + c];
            out[0] = interpolation_scale(w[0], M, g.ri);
            out[1] = interpolation_scale(w[1], M, g.ri);
        }
}

/*! Amplitudes, mean removal and (aligned) mask: a receives the float values, the patch
 *  becomes real (imaginary parts 0) with the same values. */
void amplitudes(fftwf_complex* patch,
                float* a,
                double* row_sums,
                bool aligned,
                const patch_geometry& g)
{
    const std::size_t n = std::size_t(g.npy) * g.npx;
    for (std::size_t i = 0; i < n; ++i)
        a[i] = patch_amplitude(patch[i][0], patch[i][1]);
    for (int r = 0; r < g.npy; ++r)
        row_sums[r] = sum_in_lane_order(a + std::size_t(r) * g.npx, g.npx);
    const float mean = patch_mean(sum_in_lane_order(row_sums, g.npy), g.npy, g.npx);
    for (int r = 0; r < g.npy; ++r)
        for (int c = 0; c < g.npx; ++c) {
            const std::size_t i = std::size_t(r) * g.npx + c;
            a[i] = demeaned_amplitude(a[i], mean, aligned, r, c, g);
            patch[i][0] = a[i];
            patch[i][1] = 0.0f;
        }
}

/*! The high-resolution search: md (8 x 8, real) interpolated by interp in both
 *  directions, rows first (fft_interpolate_2d), argmax of the real part. */
first_max highres_search(const plans_t& plans, workspace_t& ws, const patch_geometry& g)
{
    const int H = g.highres_len();
    fftwf_complex* md = ws.md.get();
    fftwf_complex* t1 = ws.t1.get();
    fftwf_complex* t2 = ws.t2.get();
    fftwf_complex* t3 = ws.t3.get();
    // Rows: 8 x FFT8, spread, 8 x IFFT_H.
    fftwf_execute_dft(plans.highres_rows_forward, md, md);
    spread_rows(md, 8, H, 8, t1);
    fftwf_execute_dft(plans.highres_rows_inverse, t1, t1);
    // Columns, transposed into H rows of 8.
    for (int u = 0; u < 8; ++u)
        for (int n = 0; n < H; ++n) {
            const fftwf_complex& v = t1[std::size_t(u) * H + n];
            t2[std::size_t(n) * 8 + u][0] = interpolation_scale(v[0], H, g.interp);
            t2[std::size_t(n) * 8 + u][1] = interpolation_scale(v[1], H, g.interp);
        }
    fftwf_execute_dft(plans.highres_cols_forward, t2, t2);
    spread_rows(t2, 8, H, H, t3);
    fftwf_execute_dft(plans.highres_cols_inverse, t3, t3);
    first_max best;
    for (int n = 0; n < H; ++n)     // column n of the interpolated grid
        for (int m = 0; m < H; ++m) // row m
            offer(best,
                  interpolation_scale(t3[std::size_t(n) * H + m][0], H, g.interp),
                  m * H + n);
    return best;
}

//! Steps 5.2 - 5.9 for the patch pair in ws.c[0], ws.c[1].
patch_result
correlate_loaded(const plans_t& plans, workspace_t& ws, const patch_geometry& g)
{
    const int npx = g.npx;
    for (int img = 0; img < 2; ++img) {
        if (g.ri > 1)
            range_interpolate(plans, ws.c[img].get(), ws.rows.get(), g);
        amplitudes(ws.c[img].get(), ws.a[img].get(), ws.row_sums.get(), img == 1, g);
    }

    // fft_multiply: F1 conj(F2) (-1)^(r+c), complex float32 as GMTSAR's Cmul. VOLK's
    // product is not rounded as the CUDA backend's (it may fuse multiply-adds): the
    // transforms already differ between the backends, and the rules decide from the
    // correlation surface, not from these bits.
    fftwf_complex* c1 = ws.c[0].get();
    fftwf_complex* c2 = ws.c[1].get();
    fftwf_execute_dft(plans.corr_forward, c1, c1);
    fftwf_execute_dft(plans.corr_forward, c2, c2);
    auto* spectrum = reinterpret_cast<lv_32fc_t*>(c1);
    volk_32fc_x2_multiply_conjugate_32fc(spectrum,
                                         spectrum,
                                         reinterpret_cast<const lv_32fc_t*>(c2),
                                         std::size_t(g.npy) * npx);
    // npx is even: (-1)^(r+c) is -1 at the odd columns of even rows and the even
    // columns of odd rows.
    for (int r = 0; r < g.npy; ++r)
        for (int c = (r % 2 == 0) ? 1 : 0; c < npx; c += 2)
            spectrum[std::size_t(r) * npx + c] = -spectrum[std::size_t(r) * npx + c];
    fftwf_execute_dft(plans.corr_inverse, c1, c1);

    // Integer peak over the 2 ys x 2 xs surface: |C[i + ys][j + xs]|.
    const int nyc = g.surface_rows(), nxc = g.surface_cols();
    auto surface = [&](int cell) {
        const int i = cell / nxc, j = cell % nxc;
        const fftwf_complex& v = c1[std::size_t(i + g.ysearch) * npx + j + g.xsearch];
        return surface_value_complex(v[0], v[1], g);
    };
    first_max best;
    for (int cell = 0; cell < nyc * nxc; ++cell)
        offer(best, surface(cell), cell);
    first_max highres_best;
    if (best.index < 0)
        return finish_patch(best, 0.0, highres_best, g);

    // Normalised time-domain correlation on the integer copies at the peak.
    const int ipeak = best.index / nxc - g.ysearch;
    const int jpeak = best.index % nxc - g.xsearch;
    const float* a1 = ws.a[0].get();
    const float* a2 = ws.a[1].get();
    time_sums sums;
    for (int p = 0; p < nyc; ++p)
        for (int q = 0; q < nxc; ++q)
            add_time_term(
                sums,
                integer_copy(
                    a1[std::size_t(g.ysearch + p + ipeak) * npx + q + jpeak + g.xsearch]),
                integer_copy(a2[std::size_t(g.ysearch + p) * npx + q + g.xsearch]));
    const double gamma = time_correlation_percent(sums);

    if (g.highres) {
        const int peak_row = best.index / nxc, peak_col = best.index % nxc;
        for (int u = 0; u < 8; ++u)
            for (int v = 0; v < 8; ++v) {
                const int cell = neighbourhood_cell(u, v, peak_row, peak_col, g);
                ws.md[u * 8 + v][0] =
                    cell < 0 ? 0.0f : highres_cell(gamma, surface(cell), best.value);
                ws.md[u * 8 + v][1] = 0.0f;
            }
        highres_best = highres_search(plans, ws, g);
    }
    return finish_patch(best, gamma, highres_best, g);
}

//! Patch rows from an image: int16 or float32 I/Q pairs to complex float.
void load_window(const image_view& im,
                 std::int64_t col,
                 std::int64_t row,
                 const patch_geometry& g,
                 fftwf_complex* out)
{
    for (int r = 0; r < g.npy; ++r) {
        const std::size_t first = (std::size_t(row) + r) * im.width + std::size_t(col);
        fftwf_complex* o = out + std::size_t(r) * g.npx;
        if (im.type == slc_sample_type::complex_int16) {
            // Exact: every int16 is a float.
            volk_16i_s32f_convert_32f(reinterpret_cast<float*>(o),
                                      static_cast<const std::int16_t*>(im.data) +
                                          2 * first,
                                      1.0f,
                                      2 * static_cast<unsigned int>(g.npx));
        } else {
            const float* s = static_cast<const float*>(im.data) + 2 * first;
            std::memcpy(static_cast<void*>(o), s, sizeof(fftwf_complex) * g.npx);
        }
    }
}

} // namespace

patch_correlator_cpu::patch_correlator_cpu(const patch_correlator_config& config,
                                           const device_selection& device)
    : patch_correlator(config, device),
      d_plans(std::make_unique<fftw_plans>(make_patch_geometry(config)))
{
}

patch_correlator_cpu::~patch_correlator_cpu() = default;

template <typename Work>
void patch_correlator_cpu::for_each_patch(std::size_t npatches, const Work& work)
{
    if (npatches == 0)
        return;
    // A patch is worth a thread of its own whatever its size.
    const std::size_t workers = parallel_workers(npatches, npatches);
    const patch_geometry g = make_patch_geometry(d_config);
    while (d_workspaces.size() < workers)
        d_workspaces.push_back(std::make_unique<workspace>(g));
    parallel_ranges(
        npatches, npatches, [&](std::size_t worker, std::size_t first, std::size_t end) {
            for (std::size_t k = first; k < end; ++k)
                work(*d_workspaces[worker], k);
        });
}

void patch_correlator_cpu::correlate(const image_view& master,
                                     const image_view& aligned,
                                     const patch_pair* pairs,
                                     std::size_t npatches,
                                     patch_result* results)
{
    check_pairs(master, aligned, pairs, npatches);
    const auto t0 = std::chrono::steady_clock::now();
    d_timing = patch_correlator_timing{};
    const patch_geometry g = make_patch_geometry(d_config);
    // With a progress callback, chunks of about a twentieth of the patches (at least
    // one per core), each shared among the workers, the callback after each.
    const std::size_t chunk =
        d_progress ? std::max<std::size_t>(
                         (npatches + 19) / 20,
                         std::max<unsigned>(1, std::thread::hardware_concurrency()))
                   : std::max<std::size_t>(npatches, 1);
    for (std::size_t first = 0; first < npatches; first += chunk) {
        const std::size_t n = std::min(chunk, npatches - first);
        for_each_patch(n, [&](workspace& ws, std::size_t i) {
            const std::size_t k = first + i;
            load_window(
                master, pairs[k].master_col, pairs[k].master_row, g, ws.c[0].get());
            load_window(
                aligned, pairs[k].aligned_col, pairs[k].aligned_row, g, ws.c[1].get());
            results[k] = correlate_loaded(*d_plans, ws, g);
        });
        if (d_progress)
            d_progress(first + n, npatches);
    }
    d_timing.compute_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
            .count();
}

void patch_correlator_cpu::correlate_patches(const std::complex<float>* master,
                                             const std::complex<float>* aligned,
                                             std::size_t npatches,
                                             patch_result* results)
{
    const patch_geometry g = make_patch_geometry(d_config);
    const std::size_t samples = std::size_t(g.npy) * g.npx;
    for_each_patch(npatches, [&](workspace& ws, std::size_t k) {
        std::memcpy(static_cast<void*>(ws.c[0].get()),
                    master + k * samples,
                    samples * sizeof(fftwf_complex));
        std::memcpy(static_cast<void*>(ws.c[1].get()),
                    aligned + k * samples,
                    samples * sizeof(fftwf_complex));
        results[k] = correlate_loaded(*d_plans, ws, g);
    });
}

void patch_correlator_cpu::correlate_patches_device(const std::complex<float>*,
                                                    const std::complex<float>*,
                                                    std::size_t,
                                                    patch_result*,
                                                    cuda_stream_t)
{
    throw std::logic_error("correlate_patches_device: this patch correlator runs on the "
                           "CPU backend; use correlate_patches() with host buffers");
}

} // namespace core
} // namespace cudadsp
} // namespace gr
