/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cross_correlation/dense_offsets_cuda.h"
#include "cross_correlation/dense_offsets_kernels.cuh"
#include "cross_correlation/dense_offsets_rule.h"
#include "runtime/batch_progress.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/cufft_plan.h"
#include "runtime/cufft_plan_family.h"
#include "runtime/staged_upload.h"
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

using namespace dense_offsets_kernel;

namespace {

//! Batch buffers when the configuration leaves the batch to the engine: at most this,
//! and at most a quarter of the device memory free at construction.
constexpr std::size_t default_batch_bytes = std::size_t(2) << 30;
//! Bound on an automatic batch: beyond a few thousand windows the transforms are as
//! efficient as they get.
constexpr std::size_t max_default_batch = 4096;
//! Plans per transform: the batch and its halves down to an eighth, so the padded last
//! launch of a call wastes less than an eighth of a batch.
constexpr int plan_levels = 4;

//! Device bytes a window of the batch holds.
std::size_t bytes_per_window(const offsets_layout& l)
{
    return 2 * std::size_t(l.corr_dist) * sizeof(float) +
           std::size_t(l.colsum_dist) * sizeof(double) +
           std::size_t(l.sums_dist) * sizeof(double2) + sizeof(double) +
           std::size_t(l.surface_dist) * sizeof(float) + sizeof(coarse_peak) +
           std::size_t(l.ref_window + l.zoom_window) * sizeof(float2) +
           std::size_t(l.big_dist) * sizeof(float2) +
           std::size_t(l.trimmed_dist) * sizeof(float2);
}

//! The padding of the plan families of a batch of \p batch windows.
std::size_t plan_padding(std::size_t batch)
{
    return cufft_plan_family::halving_counts(batch, plan_levels).back() - 1;
}

std::size_t batch_windows_for(const dense_offsets_config& config,
                              const offsets_layout& l,
                              int ordinal)
{
    // cuFFT's plans take int distances: a launch of (batch + padding) windows must
    // stay within INT_MAX elements.
    const long long per = l.largest_dist();
    const long long largest = (static_cast<long long>(INT_MAX) / per) * 8 / 9;
    if (largest < 1)
        throw std::runtime_error(
            "dense offsets (CUDA): the windows are too large for the CUDA backend: one "
            "window's transform spans " +
            std::to_string(per) +
            " elements (window_width, window_height, raw_oversampling, half_search, "
            "zoom_window and corr_oversampling set it); use device \"cpu\"");
    std::size_t batch = config.batch_windows;
    if (batch == 0) {
        std::size_t free_bytes = 0, total_bytes = 0;
        {
            device_guard guard(ordinal);
            CUDADSP_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
        }
        const std::size_t budget = std::min(default_batch_bytes, free_bytes / 4);
        batch = std::clamp<std::size_t>(
            budget / (bytes_per_window(l) + bytes_per_window(l) / 8),
            1,
            max_default_batch);
    }
    return std::min<std::size_t>(batch, static_cast<std::size_t>(largest));
}

//! A real-to-complex (\p forward) or complex-to-real rows x cols plan of the in-place
//! layout: real rows of \p pitch floats, \p real_dist floats a transform.
cufft_plan
real_plan(int rows, int cols, int pitch, long long real_dist, bool forward, int count)
{
    const int n[2] = { rows, cols };
    const int real_embed[2] = { rows, pitch };
    const int complex_embed[2] = { rows, cols / 2 + 1 };
    const int rd = static_cast<int>(real_dist), cd = static_cast<int>(real_dist / 2);
    return forward ? cufft_plan(2,
                                n,
                                real_embed,
                                1,
                                rd,
                                complex_embed,
                                1,
                                cd,
                                CUFFT_R2C,
                                count,
                                cufft_plan::external_work_area{})
                   : cufft_plan(2,
                                n,
                                complex_embed,
                                1,
                                cd,
                                real_embed,
                                1,
                                rd,
                                CUFFT_C2R,
                                count,
                                cufft_plan::external_work_area{});
}

//! A dense complex rows x cols plan, transforms rows x cols apart.
cufft_plan complex_plan(int rows, int cols, int count)
{
    const int n[2] = { rows, cols };
    const int d = rows * cols;
    return cufft_plan(
        2, n, n, 1, d, n, 1, d, CUFFT_C2C, count, cufft_plan::external_work_area{});
}

//! The transforms of a batch, in the order enqueue_batch() runs them.
enum class batch_transform {
    raw_template,      //!< R2C of the raw templates
    raw_search,        //!< R2C of the raw search windows
    raw_inverse,       //!< C2R of the raw cross spectra
    reference_forward, //!< C2C forward of the reference windows
    zoom_forward,      //!< C2C forward of the zoom windows
    reference_inverse, //!< C2C inverse of the padded reference spectra
    zoom_inverse,      //!< C2C inverse of the padded zoom spectra
    over_template,     //!< R2C of the oversampled templates
    over_search,       //!< R2C of the oversampled zoom windows
    over_inverse,      //!< C2R of the oversampled cross spectra
    surface_forward,   //!< R2C of the Z x Z trimmed surfaces
    fine_inverse       //!< C2R of the fine half spectra
};

constexpr batch_transform batch_transforms[] = {
    batch_transform::raw_template,    batch_transform::raw_search,
    batch_transform::raw_inverse,     batch_transform::reference_forward,
    batch_transform::zoom_forward,    batch_transform::reference_inverse,
    batch_transform::zoom_inverse,    batch_transform::over_template,
    batch_transform::over_search,     batch_transform::over_inverse,
    batch_transform::surface_forward, batch_transform::fine_inverse
};

std::string size_text(int rows, int cols)
{
    return std::to_string(rows) + "x" + std::to_string(cols);
}

} // namespace

// ---------------------------------------------------------------------------------
// Workspace
// ---------------------------------------------------------------------------------

struct dense_offsets_cuda::workspace {
    workspace(const offsets_geometry& geometry, std::size_t batch_windows)
        : g(geometry),
          l(geometry),
          batch(batch_windows),
          capacity(batch_windows + plan_padding(batch_windows)),
          corr(2 * capacity * std::size_t(l.corr_dist)),
          colsums(capacity * std::size_t(l.colsum_dist)),
          sums(capacity * std::size_t(l.sums_dist)),
          t2(capacity),
          surface(capacity * std::size_t(l.surface_dist)),
          coarse(capacity),
          compact(capacity * std::size_t(l.ref_window + l.zoom_window)),
          big(capacity * std::size_t(l.big_dist)),
          trimmed(capacity * std::size_t(l.trimmed_dist))
    {
        // Padded launches transform slots no window wrote, and the zoom stage's kernels
        // (windows without a raw peak leave theirs unwritten too) read zeros, not
        // uninitialised memory. On the engine's stream: it does not wait for the legacy
        // default stream.
        CUDADSP_CUDA(cudaMemsetAsync(corr.get(), 0, corr.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(colsums.get(), 0, colsums.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(sums.get(), 0, sums.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(t2.get(), 0, t2.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(surface.get(), 0, surface.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(coarse.get(), 0, coarse.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(compact.get(), 0, compact.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(big.get(), 0, big.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(trimmed.get(), 0, trimmed.bytes(), stream.get()));

        const std::vector<std::size_t> counts =
            cufft_plan_family::halving_counts(batch, plan_levels);
        raw_forward.make(counts, [&](int count) {
            return real_plan(
                g.search_rows(), g.search_cols(), l.raw_pitch, l.corr_dist, true, count);
        });
        raw_inverse.make(counts, [&](int count) {
            return real_plan(
                g.search_rows(), g.search_cols(), l.raw_pitch, l.corr_dist, false, count);
        });
        ref_forward.make(counts,
                         [&](int count) { return complex_plan(g.h, g.w, count); });
        zoom_forward.make(counts, [&](int count) {
            return complex_plan(g.zoom_rows(), g.zoom_cols(), count);
        });
        ref_inverse.make(counts, [&](int count) {
            return complex_plan(g.over_ref_rows(), g.over_ref_cols(), count);
        });
        zoom_inverse.make(counts, [&](int count) {
            return complex_plan(g.over_zoom_rows(), g.over_zoom_cols(), count);
        });
        over_forward.make(counts, [&](int count) {
            return real_plan(g.over_zoom_rows(),
                             g.over_zoom_cols(),
                             l.over_pitch,
                             l.corr_dist,
                             true,
                             count);
        });
        over_inverse.make(counts, [&](int count) {
            return real_plan(g.over_zoom_rows(),
                             g.over_zoom_cols(),
                             l.over_pitch,
                             l.corr_dist,
                             false,
                             count);
        });
        surface_forward.make(counts, [&](int count) {
            return real_plan(
                g.zoom, g.zoom, l.trimmed_pitch, 2 * l.trimmed_dist, true, count);
        });
        fine_inverse.make(counts, [&](int count) {
            return real_plan(g.fine_side(),
                             g.fine_side(),
                             2 * l.fine_half,
                             2 * l.fine_dist,
                             false,
                             count);
        });
        std::size_t work = 0;
        for (const cufft_plan_family* f : families())
            work = std::max(work, f->work_size());
        fft_work = device_buffer<unsigned char>(work);
        for (const cufft_plan_family* f : families())
            f->set_work_area(fft_work.get());
    }

    std::vector<const cufft_plan_family*> families() const
    {
        return { &raw_forward,     &raw_inverse,  &ref_forward,  &zoom_forward,
                 &ref_inverse,     &zoom_inverse, &over_forward, &over_inverse,
                 &surface_forward, &fine_inverse };
    }

    //! Enqueues transform \p t of the first \p n windows' slots on \p stream.
    void run(batch_transform t, std::size_t n, cudaStream_t stream) const
    {
        auto real = [&](const cufft_plan_family& plans, long long offset, bool forward) {
            float* base = corr.get() + offset;
            const long long dist = l.corr_dist;
            plans.run(n, stream, [=](cufftHandle plan, std::size_t unit) {
                float* p = base + static_cast<long long>(unit) * dist;
                if (forward)
                    CUDADSP_CUFFT(
                        cufftExecR2C(plan, p, reinterpret_cast<cufftComplex*>(p)));
                else
                    CUDADSP_CUFFT(
                        cufftExecC2R(plan, reinterpret_cast<cufftComplex*>(p), p));
            });
        };
        auto complex = [&](const cufft_plan_family& plans,
                           float2* base,
                           long long dist,
                           int direction) {
            plans.run(n, stream, [=](cufftHandle plan, std::size_t unit) {
                cufftComplex* p = reinterpret_cast<cufftComplex*>(
                    base + static_cast<long long>(unit) * dist);
                CUDADSP_CUFFT(cufftExecC2C(plan, p, p, direction));
            });
        };
        switch (t) {
        case batch_transform::raw_template:
            return real(raw_forward, 0, true);
        case batch_transform::raw_search:
            return real(raw_forward, search_offset(), true);
        case batch_transform::raw_inverse:
            return real(raw_inverse, 0, false);
        case batch_transform::reference_forward:
            return complex(ref_forward, ref_windows(), l.ref_window, CUFFT_FORWARD);
        case batch_transform::zoom_forward:
            return complex(zoom_forward, zoom_windows(), l.zoom_window, CUFFT_FORWARD);
        case batch_transform::reference_inverse:
            return complex(ref_inverse, ref_oversampled(), l.ref_over, CUFFT_INVERSE);
        case batch_transform::zoom_inverse:
            return complex(zoom_inverse, zoom_oversampled(), l.zoom_over, CUFFT_INVERSE);
        case batch_transform::over_template:
            return real(over_forward, 0, true);
        case batch_transform::over_search:
            return real(over_forward, search_offset(), true);
        case batch_transform::over_inverse:
            return real(over_inverse, 0, false);
        case batch_transform::surface_forward: {
            float2* base = trimmed.get();
            const long long dist = l.trimmed_dist;
            return surface_forward.run(
                n, stream, [=](cufftHandle plan, std::size_t unit) {
                    float2* p = base + static_cast<long long>(unit) * dist;
                    CUDADSP_CUFFT(cufftExecR2C(plan,
                                               reinterpret_cast<float*>(p),
                                               reinterpret_cast<cufftComplex*>(p)));
                });
        }
        case batch_transform::fine_inverse: {
            float2* base = fine_spectra();
            const long long dist = l.fine_dist;
            return fine_inverse.run(n, stream, [=](cufftHandle plan, std::size_t unit) {
                float2* p = base + static_cast<long long>(unit) * dist;
                CUDADSP_CUFFT(cufftExecC2R(plan,
                                           reinterpret_cast<cufftComplex*>(p),
                                           reinterpret_cast<float*>(p)));
            });
        }
        }
    }

    //! A stage's normalised surface: inverse transforms of rows x cols (rows of \p pitch
    //! floats), sums of \p lag_cols lags a row, a template of \p template_pixels.
    surface_source
    surface_of(int pitch, int rows, int cols, int lag_cols, int template_pixels) const
    {
        return { corr.get(),  l.corr_dist, pitch,    area(rows, cols), sums.get(),
                 l.sums_dist, lag_cols,    t2.get(), template_pixels };
    }

    // Slot addresses (window i of the batch).
    float* template_slots() const { return corr.get(); }
    long long search_offset() const
    {
        return static_cast<long long>(capacity) * l.corr_dist;
    }
    float2* ref_windows() const { return compact.get(); }
    float2* zoom_windows() const { return compact.get() + capacity * l.ref_window; }
    float2* ref_oversampled() const { return big.get(); }
    float2* zoom_oversampled() const { return big.get() + capacity * l.ref_over; }
    float2* fine_spectra() const { return big.get(); }

    const offsets_geometry g;
    const offsets_layout l;
    const std::size_t batch;
    const std::size_t capacity; //!< batch + the plans' padding

    cuda_stream stream;
    cuda_stream upload_stream;

    device_buffer<float> corr;         //!< 2 capacity correlation slots
    device_buffer<double> colsums;     //!< capacity colsum_dist
    device_buffer<double2> sums;       //!< capacity sums_dist
    device_buffer<double> t2;          //!< capacity
    device_buffer<float> surface;      //!< capacity raw surfaces
    device_buffer<coarse_peak> coarse; //!< capacity
    device_buffer<float2> compact;     //!< reference windows, then zoom windows
    device_buffer<float2> big; //!< oversampled reference, then zoom; later fine spectra
    device_buffer<float2> trimmed;         //!< Z x Z surfaces and their spectra
    device_buffer<unsigned char> fft_work; //!< declared before the plans: outlives them
    cufft_plan_family raw_forward, raw_inverse, ref_forward, zoom_forward, ref_inverse,
        zoom_inverse, over_forward, over_inverse, surface_forward, fine_inverse;

    // estimate()'s per-call state, kept (grown) across calls.
    struct image_rows {
        device_buffer<unsigned char> data;
        std::size_t row_bytes = 0;
        long long first = 0, uploaded = 0; //!< rows [first, uploaded) are enqueued
        image_rows_view view{};
    };
    image_rows rows[2]; //!< reference, secondary
    staged_upload upload;
    device_buffer<offset_window> windows;
    pinned_buffer<offset_window> windows_staging;
    device_buffer<offset_result> results;
    pinned_buffer<offset_result> results_staging;
    //! The current call's windows and results on the device.
    const offset_window* call_windows = nullptr;
    offset_result* call_results = nullptr;
    //! Timed events of a batch: its row upload (upload stream) and computation (engine
    //! stream); compute_end also tells progress that the batch's results are known.
    struct batch_events {
        cuda_event upload_begin{ true }, upload_end{ true };
        cuda_event compute_begin{ true }, compute_end{ true };
    };
    std::vector<batch_events> batches; //!< reused across calls, grown as needed
    cuda_event download_begin{ true }, download_end{ true };
};

namespace {

/*!
 * One stage's normalised-correlation steps (4.2 - 4.4) for the first \p n windows: the
 * input kernel on \p src (amplitudes into both slots, T2, the window sums), the real
 * transforms of the templates and the search windows, the cross spectrum, the inverse.
 */
template <typename Source>
void enqueue_correlation(const dense_offsets_cuda::workspace& ws,
                         const Source& src,
                         const correlation_shape& s,
                         batch_transform forward_template,
                         batch_transform forward_search,
                         batch_transform inverse,
                         std::size_t n,
                         cudaStream_t stream)
{
    const offsets_layout& l = ws.l;
    const correlation_buffers buffers{ ws.template_slots(), l.corr_dist,
                                       ws.search_offset(),  ws.colsums.get(),
                                       l.colsum_dist,       ws.sums.get(),
                                       l.sums_dist,         ws.t2.get() };
    const auto count = static_cast<unsigned>(n);
    correlation_input_kernel<<<count, block_threads, 0, stream>>>(src, s, buffers);
    CUDADSP_CUDA_LAUNCHED("correlation_input_kernel");
    ws.run(forward_template, n, stream);
    ws.run(forward_search, n, stream);
    const int cols = s.cols / 2 + 1;
    const element_launch e = launch_over(s.rows, cols, n);
    cross_spectrum_kernel<<<e.grid, e.block, 0, stream>>>(
        reinterpret_cast<float2*>(ws.template_slots()),
        l.corr_dist / 2,
        ws.search_offset() / 2,
        s.rows,
        cols,
        count);
    CUDADSP_CUDA_LAUNCHED("cross_spectrum_kernel");
    ws.run(inverse, n, stream);
}

} // namespace

// ---------------------------------------------------------------------------------
// Engine
// ---------------------------------------------------------------------------------

dense_offsets_cuda::dense_offsets_cuda(const dense_offsets_config& config,
                                       const device_selection& device)
    : dense_offsets_estimator(config, device)
{
    const offsets_geometry g = make_offsets_geometry(config);
    const std::size_t batch =
        batch_windows_for(config, offsets_layout(g), device.cuda_ordinal);
    device_guard guard(d_device.cuda_ordinal);
    d_ws = std::make_unique<workspace>(g, batch);
}

dense_offsets_cuda::~dense_offsets_cuda()
{
    try {
        device_guard guard(d_device.cuda_ordinal);
        d_ws.reset();
    } catch (...) {
        // Destructors must not throw; the device is already in an error state.
    }
}

std::size_t dense_offsets_cuda::batch_windows() const { return d_ws->batch; }

cudaStream_t dense_offsets_cuda::stream() const { return d_ws->stream.get(); }

std::string dense_offsets_cuda::transform_summary() const
{
    const offsets_geometry& g = d_ws->g;
    return "R2C " + size_text(g.search_rows(), g.search_cols()) + " x2, C2R " +
           size_text(g.search_rows(), g.search_cols()) + ", C2C " + size_text(g.h, g.w) +
           " + " + size_text(g.zoom_rows(), g.zoom_cols()) + " forward, C2C " +
           size_text(g.over_ref_rows(), g.over_ref_cols()) + " + " +
           size_text(g.over_zoom_rows(), g.over_zoom_cols()) + " inverse, R2C " +
           size_text(g.over_zoom_rows(), g.over_zoom_cols()) + " x2, C2R " +
           size_text(g.over_zoom_rows(), g.over_zoom_cols()) + ", R2C " +
           size_text(g.zoom, g.zoom) + ", C2R " +
           size_text(g.fine_side(), g.fine_side()) + " (each per window)";
}

void dense_offsets_cuda::enqueue_batch(std::size_t first, std::size_t n)
{
    workspace& ws = *d_ws;
    const offsets_geometry& g = ws.g;
    const offsets_layout& l = ws.l;
    cudaStream_t stream = ws.stream.get();
    const auto count = static_cast<unsigned>(n);
    const offset_window* windows = ws.call_windows + first;
    const long long search_offset = ws.search_offset();

    // 4.1 - 4.4: the raw correlation.
    const raw_source raw{ ws.rows[0].view, ws.rows[1].view, windows, g.hd, g.ha };
    const correlation_shape raw_shape{
        g.search_rows(),  g.search_cols(), l.raw_pitch, g.h, g.w,
        g.surface_rows(), g.surface_cols()
    };
    enqueue_correlation(ws,
                        raw,
                        raw_shape,
                        batch_transform::raw_template,
                        batch_transform::raw_search,
                        batch_transform::raw_inverse,
                        n,
                        stream);

    // 4.4 - 4.8: the raw surface's peak and statistics.
    raw_peak_args peak;
    peak.src = ws.surface_of(
        l.raw_pitch, g.search_rows(), g.search_cols(), g.surface_cols(), g.h * g.w);
    peak.surface = ws.surface.get();
    peak.surface_dist = l.surface_dist;
    peak.coarse = ws.coarse.get();
    peak.g = g;
    raw_peak_kernel<<<count, block_threads, 0, stream>>>(peak);
    CUDADSP_CUDA_LAUNCHED("raw_peak_kernel");

    // 4.9: the reference and zoom windows, oversampled.
    zoom_load_args zoom;
    zoom.ref = ws.rows[0].view;
    zoom.sec = ws.rows[1].view;
    zoom.windows = windows;
    zoom.coarse = ws.coarse.get();
    zoom.ref_out = ws.ref_windows();
    zoom.zoom_out = ws.zoom_windows();
    zoom.ref_dist = l.ref_window;
    zoom.zoom_dist = l.zoom_window;
    zoom.g = g;
    zoom_load_kernel<<<count, block_threads, 0, stream>>>(zoom);
    CUDADSP_CUDA_LAUNCHED("zoom_load_kernel");
    ws.run(batch_transform::reference_forward, n, stream);
    ws.run(batch_transform::zoom_forward, n, stream);
    {
        const element_launch e = launch_over(g.over_ref_rows(), g.over_ref_cols(), n);
        oversample_spread_kernel<<<e.grid, e.block, 0, stream>>>(ws.ref_windows(),
                                                                 l.ref_window,
                                                                 g.h,
                                                                 g.w,
                                                                 ws.ref_oversampled(),
                                                                 l.ref_over,
                                                                 g.over_ref_rows(),
                                                                 g.over_ref_cols(),
                                                                 count);
        CUDADSP_CUDA_LAUNCHED("oversample_spread_kernel (reference)");
    }
    {
        const element_launch e = launch_over(g.over_zoom_rows(), g.over_zoom_cols(), n);
        oversample_spread_kernel<<<e.grid, e.block, 0, stream>>>(ws.zoom_windows(),
                                                                 l.zoom_window,
                                                                 g.zoom_rows(),
                                                                 g.zoom_cols(),
                                                                 ws.zoom_oversampled(),
                                                                 l.zoom_over,
                                                                 g.over_zoom_rows(),
                                                                 g.over_zoom_cols(),
                                                                 count);
        CUDADSP_CUDA_LAUNCHED("oversample_spread_kernel (zoom)");
    }
    ws.run(batch_transform::reference_inverse, n, stream);
    ws.run(batch_transform::zoom_inverse, n, stream);

    // 4.10: the oversampled correlation, at the trimmed lags only.
    const over_source over{ ws.ref_oversampled(),
                            ws.zoom_oversampled(),
                            l.ref_over,
                            l.zoom_over,
                            g.over_ref_cols(),
                            g.over_zoom_cols(),
                            g.h * g.w,
                            g.zoom_rows() * g.zoom_cols(),
                            ws.coarse.get() };
    const correlation_shape over_shape{ g.over_zoom_rows(), g.over_zoom_cols(),
                                        l.over_pitch,       g.over_ref_rows(),
                                        g.over_ref_cols(),  g.trimmed_side(),
                                        g.trimmed_side() };
    enqueue_correlation(ws,
                        over,
                        over_shape,
                        batch_transform::over_template,
                        batch_transform::over_search,
                        batch_transform::over_inverse,
                        n,
                        stream);

    // 4.11: the trimmed surface, its real transform, the fine half spectrum, the fine
    // surface.
    {
        trimmed_args t;
        t.src = ws.surface_of(l.over_pitch,
                              g.over_zoom_rows(),
                              g.over_zoom_cols(),
                              g.trimmed_side(),
                              g.over_ref_rows() * g.over_ref_cols());
        t.side = g.trimmed_side();
        t.zoom = g.zoom;
        t.out = reinterpret_cast<float*>(ws.trimmed.get());
        t.out_pitch = l.trimmed_pitch;
        t.out_dist = 2 * l.trimmed_dist;
        t.n = count;
        const element_launch e = launch_over(g.zoom, g.zoom, n);
        trimmed_surface_kernel<<<e.grid, e.block, 0, stream>>>(t);
        CUDADSP_CUDA_LAUNCHED("trimmed_surface_kernel");
    }
    ws.run(batch_transform::surface_forward, n, stream);
    {
        const element_launch e = launch_over(g.fine_side(), l.fine_half, n);
        fine_spectrum_kernel<<<e.grid, e.block, 0, stream>>>(ws.trimmed.get(),
                                                             l.trimmed_dist,
                                                             g.zoom,
                                                             ws.fine_spectra(),
                                                             l.fine_dist,
                                                             g.fine_side(),
                                                             l.fine_half,
                                                             count);
        CUDADSP_CUDA_LAUNCHED("fine_spectrum_kernel");
    }
    ws.run(batch_transform::fine_inverse, n, stream);

    // 4.12
    fine_peak_args fine;
    fine.fine = reinterpret_cast<const float*>(ws.fine_spectra());
    fine.fine_dist = 2 * l.fine_dist;
    fine.side = g.fine_side();
    fine.pitch = 2 * l.fine_half;
    fine.coarse = ws.coarse.get();
    fine.windows = windows;
    fine.results = ws.call_results + first;
    fine.g = g;
    fine_peak_kernel<<<count, block_threads, 0, stream>>>(fine);
    CUDADSP_CUDA_LAUNCHED("fine_peak_kernel");
}

void dense_offsets_cuda::enqueue_transforms(std::size_t nwindows)
{
    device_guard guard(d_device.cuda_ordinal);
    const workspace& ws = *d_ws;
    for (std::size_t first = 0; first < nwindows; first += ws.batch) {
        const std::size_t n = std::min(ws.batch, nwindows - first);
        for (const batch_transform t : batch_transforms)
            ws.run(t, n, ws.stream.get());
    }
}

void dense_offsets_cuda::estimate(const image_view& reference,
                                  const image_view& secondary,
                                  const offset_window* windows,
                                  std::size_t nwindows,
                                  offset_result* results)
{
    check_windows(reference, secondary, windows, nwindows);
    d_timing = offsets_timing{};
    if (nwindows == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    workspace& ws = *d_ws;
    try {
        run_call(reference, secondary, windows, nwindows, results);
    } catch (...) {
        // Work already enqueued may still read the staging buffers and the rows: let
        // it finish (or fail) before the engine is used again.
        cudaStreamSynchronize(ws.upload_stream.get());
        cudaStreamSynchronize(ws.stream.get());
        cudaGetLastError();
        throw;
    }
}

void dense_offsets_cuda::run_call(const image_view& reference,
                                  const image_view& secondary,
                                  const offset_window* windows,
                                  std::size_t nwindows,
                                  offset_result* results)
{
    workspace& ws = *d_ws;
    const offsets_geometry& g = ws.g;
    cudaStream_t stream = ws.stream.get();
    cudaStream_t upload_stream = ws.upload_stream.get();

    // The rows each image's windows need, and each image's device copy of them.
    const image_view views[2] = { reference, secondary };
    long long lo[2] = { LLONG_MAX, LLONG_MAX }, hi[2] = { LLONG_MIN, LLONG_MIN };
    auto window_rows = [&](const offset_window& w, int img, long long& first) {
        first = img == 0 ? w.reference_down : w.reference_down + w.gross_down - g.hd;
        return first + (img == 0 ? g.h : g.search_rows());
    };
    for (std::size_t k = 0; k < nwindows; ++k)
        for (int img = 0; img < 2; ++img) {
            long long first = 0;
            const long long end = window_rows(windows[k], img, first);
            lo[img] = std::min(lo[img], first);
            hi[img] = std::max(hi[img], end);
        }
    bool pinned[2];
    for (int img = 0; img < 2; ++img) {
        workspace::image_rows& r = ws.rows[img];
        const bool int16 = views[img].type == slc_sample_type::complex_int16;
        r.row_bytes =
            views[img].width * (int16 ? 2 * sizeof(std::int16_t) : 2 * sizeof(float));
        const std::size_t bytes = std::size_t(hi[img] - lo[img]) * r.row_bytes;
        if (r.data.bytes() < bytes)
            r.data = device_buffer<unsigned char>(bytes);
        r.first = r.uploaded = lo[img];
        r.view = {
            r.data.get(), static_cast<long long>(views[img].width), lo[img], int16
        };
        pinned[img] = is_pinned_host_pointer(views[img].data);
    }

    // The windows go to the device once, ahead of the first batch.
    if (ws.windows.size() < nwindows) {
        ws.windows = device_buffer<offset_window>(nwindows);
        ws.windows_staging = pinned_buffer<offset_window>(nwindows);
        ws.results = device_buffer<offset_result>(nwindows);
        ws.results_staging = pinned_buffer<offset_result>(nwindows);
    }
    std::memcpy(ws.windows_staging.get(), windows, nwindows * sizeof(offset_window));
    CUDADSP_CUDA(cudaMemcpyAsync(ws.windows.get(),
                                 ws.windows_staging.get(),
                                 nwindows * sizeof(offset_window),
                                 cudaMemcpyHostToDevice,
                                 stream));
    ws.call_windows = ws.windows.get();
    ws.call_results = ws.results.get();

    // Progress as the batches complete (the callback on this thread).
    batch_progress progress(d_progress, nwindows);
    std::size_t nbatches = 0;

    long long need[2] = { lo[0], lo[1] }; // rows the batches so far need, per image
    std::vector<bool> uploaded;           // whether a batch uploaded rows
    for (std::size_t first = 0; first < nwindows; first += ws.batch) {
        const std::size_t n = std::min(ws.batch, nwindows - first);
        for (std::size_t k = first; k < first + n; ++k)
            for (int img = 0; img < 2; ++img) {
                long long row = 0;
                need[img] = std::max(need[img], window_rows(windows[k], img, row));
            }
        if (ws.batches.size() <= nbatches)
            ws.batches.emplace_back();
        const workspace::batch_events& ev = ws.batches[nbatches];

        // The rows this batch needs that earlier batches did not: rows are only ever
        // appended during a call, so earlier batches still computing never see them
        // change.
        const bool more = need[0] > ws.rows[0].uploaded || need[1] > ws.rows[1].uploaded;
        if (more) {
            ev.upload_begin.record(upload_stream);
            for (int img = 0; img < 2; ++img) {
                workspace::image_rows& r = ws.rows[img];
                if (need[img] <= r.uploaded)
                    continue;
                ws.upload.copy(r.data.get() +
                                   std::size_t(r.uploaded - r.first) * r.row_bytes,
                               static_cast<const unsigned char*>(views[img].data) +
                                   std::size_t(r.uploaded) * r.row_bytes,
                               std::size_t(need[img] - r.uploaded) * r.row_bytes,
                               pinned[img],
                               upload_stream);
                r.uploaded = need[img];
            }
            ev.upload_end.record(upload_stream);
            ev.upload_end.wait_on(stream);
        }
        uploaded.push_back(more);

        ev.compute_begin.record(stream);
        enqueue_batch(first, n);
        ev.compute_end.record(stream);
        progress.add(ev.compute_end.get(), first + n);
        ++nbatches;
        progress.poll();
    }
    ws.download_begin.record(stream);
    CUDADSP_CUDA(cudaMemcpyAsync(ws.results_staging.get(),
                                 ws.results.get(),
                                 nwindows * sizeof(offset_result),
                                 cudaMemcpyDeviceToHost,
                                 stream));
    ws.download_end.record(stream);
    progress.finish();
    CUDADSP_CUDA(cudaStreamSynchronize(stream));
    std::memcpy(results, ws.results_staging.get(), nwindows * sizeof(offset_result));

    // Every event above has completed: the stream waited for each upload.
    for (std::size_t b = 0; b < nbatches; ++b) {
        const workspace::batch_events& ev = ws.batches[b];
        if (uploaded[b])
            d_timing.upload_ms += ev.upload_end.elapsed_ms_since(ev.upload_begin);
        d_timing.compute_ms += ev.compute_end.elapsed_ms_since(ev.compute_begin);
    }
    d_timing.download_ms = ws.download_end.elapsed_ms_since(ws.download_begin);
}

void dense_offsets_cuda::synchronize()
{
    device_guard guard(d_device.cuda_ordinal);
    CUDADSP_CUDA(cudaStreamSynchronize(d_ws->stream.get()));
}

} // namespace core
} // namespace cudadsp
} // namespace gr
