/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cross_correlation/dense_offsets_cuda.h"
#include "cross_correlation/dense_offsets_kernels.cuh"
#include "cross_correlation/dense_offsets_rule.h"
#include "cross_correlation/dense_offsets_workspace.cuh"
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

std::string size_text(int rows, int cols)
{
    return std::to_string(rows) + "x" + std::to_string(cols);
}

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
