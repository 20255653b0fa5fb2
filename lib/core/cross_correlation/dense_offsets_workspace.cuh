/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_WORKSPACE_CUH
#define INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_WORKSPACE_CUH

/*
 * The dense-offset engine's workspace: how many windows a batch holds, the device buffers
 * of a batch and of a call's image rows and results, and the cuFFT plan families of the
 * batch's transforms. dense_offsets_cuda.cu, which plans and launches the batches, alone
 * includes this file.
 */

#include "cross_correlation/dense_offsets_cuda.h"
#include "cross_correlation/dense_offsets_kernels.cuh"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/cufft_plan.h"
#include "runtime/cufft_plan_family.h"
#include "runtime/staged_upload.h"
#include <algorithm>
#include <climits>
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

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_WORKSPACE_CUH */
