/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cross_correlation/patch_correlation_rule.h"
#include "cross_correlation/patch_correlator_cuda.h"
#include "cross_correlation/patch_correlator_kernels.cuh"
#include "runtime/batch_progress.h"
#include "runtime/cuda_check.h"
#include "runtime/cufft_plan.h"
#include "runtime/cufft_plan_family.h"
#include "runtime/grid_size.h"
#include "runtime/kernel_shared_memory.h"
#include "runtime/staged_upload.h"
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Batch buffers when the configuration leaves the batch size to the engine: at most
//! this, and at most a quarter of the device memory free at construction.
constexpr std::size_t default_batch_bytes = std::size_t(1) << 30;
//! Bound on an automatic batch.
constexpr std::size_t max_default_batch = 4096;

//! Rows of the image ring per patch height: the largest row span of a batch.
constexpr long long ring_rows_per_npy = 4;

//! Bytes of batch buffers per patch.
std::size_t bytes_per_patch(const patch_geometry& g)
{
    const std::size_t samples = std::size_t(g.npy) * g.npx;
    std::size_t bytes = 2 * samples * sizeof(float);               // amplitudes
    bytes += 2 * std::size_t(g.npy) * (g.npx + 2) * sizeof(float); // 2D transforms
    bytes += 2 * std::size_t(g.npy) * sizeof(double);              // row sums
    if (g.ri > 1)
        bytes += 2 * std::size_t(g.npy) * g.range_len() * sizeof(float2); // range rows
    return bytes;
}

std::size_t batch_patches_for(const patch_correlator_config& config, int ordinal)
{
    if (config.batch_patches > 0)
        return config.batch_patches;
    const patch_geometry g = make_patch_geometry(config);
    std::size_t free_bytes = 0, total_bytes = 0;
    {
        device_guard guard(ordinal);
        CUDADSP_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    }
    const std::size_t budget = std::min(default_batch_bytes, free_bytes / 4);
    // validate()'s bound on explicit choices.
    const std::size_t largest = static_cast<std::size_t>(
        ((1LL << 31) - 1) / (2LL * g.npy * static_cast<long long>(g.npx) * g.ri));
    return std::clamp<std::size_t>(
        budget / bytes_per_patch(g), 1, std::min(max_default_batch, largest));
}

} // namespace

// ---------------------------------------------------------------------------------
// Workspace
// ---------------------------------------------------------------------------------

struct patch_correlator_cuda::workspace {
    workspace(const patch_geometry& geometry, std::size_t batch)
        : g(geometry),
          batch(batch),
          rows(g.ri > 1 ? 2 * batch * g.npy * std::size_t(g.range_len()) : 0),
          amp(2 * batch * std::size_t(g.npy) * g.npx),
          transform(2 * batch * std::size_t(g.npy) * (g.npx / 2 + 1)),
          row_sums(2 * batch * std::size_t(g.npy)),
          means(2 * batch)
    {
        const int N = g.npx, M = g.range_len(), npy = g.npy;
        if (g.ri > 1) {
            range_forward.make(cufft_plan_family::power_of_two_counts(2 * batch),
                               [&](int count) {
                                   const int n[1] = { N }, embed[1] = { M };
                                   return cufft_plan(1,
                                                     n,
                                                     embed,
                                                     1,
                                                     M,
                                                     embed,
                                                     1,
                                                     M,
                                                     CUFFT_C2C,
                                                     count * npy,
                                                     cufft_plan::external_work_area{});
                               });
            // The caller's patches, rows of npx, transformed out of place into the
            // first npx samples of rows of M.
            range_forward_patches.make(
                cufft_plan_family::power_of_two_counts(batch), [&](int count) {
                    const int n[1] = { N }, in_embed[1] = { N }, out_embed[1] = { M };
                    return cufft_plan(1,
                                      n,
                                      in_embed,
                                      1,
                                      N,
                                      out_embed,
                                      1,
                                      M,
                                      CUFFT_C2C,
                                      count * npy,
                                      cufft_plan::external_work_area{});
                });
            range_inverse.make(cufft_plan_family::power_of_two_counts(2 * batch),
                               [&](int count) {
                                   const int n[1] = { M };
                                   return cufft_plan(1,
                                                     n,
                                                     n,
                                                     1,
                                                     M,
                                                     n,
                                                     1,
                                                     M,
                                                     CUFFT_C2C,
                                                     count * npy,
                                                     cufft_plan::external_work_area{});
                               });
        }
        const int n2[2] = { npy, N };
        const int real_embed[2] = { npy, N + 2 };
        const int complex_embed[2] = { npy, N / 2 + 1 };
        const int real_dist = npy * (N + 2), complex_dist = npy * (N / 2 + 1);
        forward_2d.make(cufft_plan_family::power_of_two_counts(2 * batch),
                        [&](int count) {
                            return cufft_plan(2,
                                              n2,
                                              real_embed,
                                              1,
                                              real_dist,
                                              complex_embed,
                                              1,
                                              complex_dist,
                                              CUFFT_R2C,
                                              count,
                                              cufft_plan::external_work_area{});
                        });
        inverse_2d.make(cufft_plan_family::power_of_two_counts(batch), [&](int count) {
            return cufft_plan(2,
                              n2,
                              complex_embed,
                              1,
                              complex_dist,
                              real_embed,
                              1,
                              real_dist,
                              CUFFT_C2R,
                              count,
                              cufft_plan::external_work_area{});
        });
        const std::size_t work = std::max({ range_forward.work_size(),
                                            range_forward_patches.work_size(),
                                            range_inverse.work_size(),
                                            forward_2d.work_size(),
                                            inverse_2d.work_size() });
        fft_work = device_buffer<unsigned char>(work);
        for (const cufft_plan_family* f : { &range_forward,
                                            &range_forward_patches,
                                            &range_inverse,
                                            &forward_2d,
                                            &inverse_2d })
            f->set_work_area(fft_work.get());
        // The peak kernel's shared memory grows with the search ranges: up to the
        // device's limit, whatever the default.
        allow_dynamic_shared_memory(reinterpret_cast<const void*>(peak_kernel));
    }

    const patch_geometry g;
    const std::size_t batch;
    cuda_stream stream;
    device_buffer<float2> rows;            //!< 2 batch npy rows of ri npx (ri > 1)
    device_buffer<float> amp;              //!< 2 batch patches of npy x npx
    device_buffer<float2> transform;       //!< 2 batch patches of npy x (npx/2 + 1) bins
    device_buffer<double> row_sums;        //!< 2 batch npy
    device_buffer<float> means;            //!< 2 batch
    device_buffer<unsigned char> fft_work; //!< declared before the plans: outlives them
    cufft_plan_family range_forward, range_forward_patches, range_inverse, forward_2d,
        inverse_2d;
};

//! Where a batch's samples come from: the caller's patches or the image rings.
struct patch_correlator_cuda::source {
    bool from_rings = false;
    patch_source patches{};
    ring_source rings{};
};

// ---------------------------------------------------------------------------------
// Image rings (correlate())
// ---------------------------------------------------------------------------------

struct patch_correlator_cuda::image_rings {
    struct ring {
        device_buffer<unsigned char> data;
        long long capacity = 0; //!< rows
        std::size_t row_bytes = 0;
        long long lo = 0, hi = 0; //!< resident rows [lo, hi)
    };
    ring rings[2];
    cuda_stream upload_stream;
    cuda_event uploaded, extracted;
    staged_upload upload;
    device_buffer<patch_pair> pairs;
    pinned_buffer<patch_pair> pairs_staging;
    device_buffer<patch_result> results;
    pinned_buffer<patch_result> results_staging;
    //! Timed events of a batch: its upload (upload stream) and computation (engine
    //! stream); compute_end also tells progress that the batch's results are known.
    struct batch_events {
        cuda_event upload_begin{ true }, upload_end{ true };
        cuda_event compute_begin{ true }, compute_end{ true };
    };
    std::vector<batch_events> batches; //!< reused across calls, grown as needed
    cuda_event download_begin{ true }, download_end{ true };

    //! Rings for \p view with \p capacity rows (reallocated when too small).
    void prepare(int img, const image_view& view, long long capacity)
    {
        ring& r = rings[img];
        const std::size_t sample_bytes = view.type == slc_sample_type::complex_int16
                                             ? 2 * sizeof(std::int16_t)
                                             : 2 * sizeof(float);
        r.row_bytes = view.width * sample_bytes;
        r.capacity = capacity;
        const std::size_t bytes = r.row_bytes * std::size_t(capacity);
        if (r.data.bytes() < bytes)
            r.data = device_buffer<unsigned char>(bytes);
        r.lo = r.hi = 0;
    }

    //! Image rows [u0, u1) into their ring rows (at most two contiguous pieces).
    void
    upload_rows(int img, const image_view& view, long long u0, long long u1, bool pinned)
    {
        ring& r = rings[img];
        const auto* host = static_cast<const unsigned char*>(view.data);
        while (u0 < u1) {
            const long long slot = u0 % r.capacity;
            const long long count = std::min(u1 - u0, r.capacity - slot);
            upload.copy(r.data.get() + std::size_t(slot) * r.row_bytes,
                        host + std::size_t(u0) * r.row_bytes,
                        std::size_t(count) * r.row_bytes,
                        pinned,
                        upload_stream.get());
            u0 += count;
        }
    }

    //! Makes rows [a, b) resident (b - a <= capacity), uploading what is missing.
    void
    ensure_rows(int img, const image_view& view, long long a, long long b, bool pinned)
    {
        ring& r = rings[img];
        if (r.hi > r.lo && a >= r.lo && b <= r.hi)
            return;
        if (r.hi > r.lo && a >= r.lo && a <= r.hi) {
            // Moving forward: rows [hi, b) replace the oldest ones, none of [a, b).
            upload_rows(img, view, r.hi, b, pinned);
            r.hi = b;
            r.lo = std::max(r.lo, b - r.capacity);
            return;
        }
        upload_rows(img, view, a, b, pinned);
        r.lo = a;
        r.hi = b;
    }

    ring_view view_of(int img, const image_view& view) const
    {
        return { rings[img].data.get(),
                 static_cast<long long>(view.width),
                 rings[img].capacity,
                 view.type == slc_sample_type::complex_int16 };
    }
};

// ---------------------------------------------------------------------------------
// Engine
// ---------------------------------------------------------------------------------

patch_correlator_cuda::patch_correlator_cuda(const patch_correlator_config& config,
                                             const device_selection& device)
    : patch_correlator(config, device),
      d_batch_patches(batch_patches_for(config, device.cuda_ordinal))
{
    device_guard guard(d_device.cuda_ordinal);
    d_ws = std::make_unique<workspace>(make_patch_geometry(config), d_batch_patches);
    d_order = stream_order(d_ws->stream.get());
}

patch_correlator_cuda::~patch_correlator_cuda()
{
    try {
        device_guard guard(d_device.cuda_ordinal);
        d_pipeline.reset();
        d_rings.reset();
        d_ws.reset();
    } catch (...) {
        // Destructors must not throw; the device is already in an error state.
    }
}

void patch_correlator_cuda::enqueue_batch(const source& src,
                                          std::size_t npatches,
                                          patch_result* d_results,
                                          cudaStream_t stream,
                                          cudaEvent_t source_read)
{
    workspace& ws = *d_ws;
    const patch_geometry& g = ws.g;
    const auto n = static_cast<unsigned int>(npatches);
    const unsigned int blocks = row_blocks(npatches, g);
    const std::size_t images = 2 * npatches;

    if (g.ri > 1) {
        float2* rows = ws.rows.get();
        const std::size_t row_elements = std::size_t(g.npy) * g.range_len();
        if (src.from_rings) {
            // Extraction (and int16 conversion) into the rows, then the forward
            // transforms in place.
            load_rows_kernel<<<blocks, row_threads, 0, stream>>>(src.rings, rows, n, g);
            CUDADSP_CUDA_LAUNCHED("load_rows_kernel");
            if (source_read)
                CUDADSP_CUDA(cudaEventRecord(source_read, stream));
            ws.range_forward.run(
                images, stream, [&](cufftHandle plan, std::size_t offset) {
                    cufftComplex* p =
                        reinterpret_cast<cufftComplex*>(rows + offset * row_elements);
                    CUDADSP_CUFFT(cufftExecC2C(plan, p, p, CUFFT_FORWARD));
                });
        } else {
            // The caller's patches are transformed straight into the rows (an
            // out-of-place C2C transform leaves its input intact).
            const std::size_t patch_elements = std::size_t(g.npy) * g.npx;
            for (int img = 0; img < 2; ++img) {
                const float2* in = src.patches.image[img];
                float2* out = rows + std::size_t(img) * npatches * row_elements;
                ws.range_forward_patches.run(
                    npatches, stream, [&](cufftHandle plan, std::size_t offset) {
                        CUDADSP_CUFFT(cufftExecC2C(
                            plan,
                            const_cast<cufftComplex*>(
                                reinterpret_cast<const cufftComplex*>(
                                    in + offset * patch_elements)),
                            reinterpret_cast<cufftComplex*>(out + offset * row_elements),
                            CUFFT_FORWARD));
                    });
            }
        }
        spread_kernel<<<blocks, row_threads, 0, stream>>>(rows, n, g);
        CUDADSP_CUDA_LAUNCHED("spread_kernel");
        ws.range_inverse.run(images, stream, [&](cufftHandle plan, std::size_t offset) {
            cufftComplex* p =
                reinterpret_cast<cufftComplex*>(rows + offset * row_elements);
            CUDADSP_CUFFT(cufftExecC2C(plan, p, p, CUFFT_INVERSE));
        });
        const interpolated_source interpolated{
            rows, n, g.npx, g.npy, g.range_len(), g.ri
        };
        amplitude_kernel<<<blocks, row_threads, 0, stream>>>(
            interpolated, ws.amp.get(), ws.row_sums.get(), n, g);
    } else if (src.from_rings) {
        amplitude_kernel<<<blocks, row_threads, 0, stream>>>(
            src.rings, ws.amp.get(), ws.row_sums.get(), n, g);
    } else {
        amplitude_kernel<<<blocks, row_threads, 0, stream>>>(
            src.patches, ws.amp.get(), ws.row_sums.get(), n, g);
    }
    CUDADSP_CUDA_LAUNCHED("amplitude_kernel");
    if (g.ri == 1 && source_read)
        CUDADSP_CUDA(cudaEventRecord(source_read, stream));

    mean_kernel<<<blocks_for(images, row_warps), row_threads, 0, stream>>>(
        ws.row_sums.get(), ws.means.get(), static_cast<unsigned int>(images), g);
    CUDADSP_CUDA_LAUNCHED("mean_kernel");

    float* transform_real = reinterpret_cast<float*>(ws.transform.get());
    demean_kernel<<<blocks, row_threads, 0, stream>>>(
        ws.amp.get(), ws.means.get(), transform_real, n, g);
    CUDADSP_CUDA_LAUNCHED("demean_kernel");

    const std::size_t bins = std::size_t(g.npy) * (g.npx / 2 + 1); // per patch image
    ws.forward_2d.run(images, stream, [&](cufftHandle plan, std::size_t offset) {
        cufftComplex* p =
            reinterpret_cast<cufftComplex*>(ws.transform.get() + offset * bins);
        CUDADSP_CUFFT(cufftExecR2C(plan, reinterpret_cast<cufftReal*>(p), p));
    });
    const std::size_t half = npatches * bins;
    cross_spectrum_kernel<<<static_cast<unsigned int>((half + spectrum_threads - 1) /
                                                      spectrum_threads),
                            spectrum_threads,
                            0,
                            stream>>>(ws.transform.get(), half);
    CUDADSP_CUDA_LAUNCHED("cross_spectrum_kernel");
    ws.inverse_2d.run(npatches, stream, [&](cufftHandle plan, std::size_t offset) {
        cufftComplex* p =
            reinterpret_cast<cufftComplex*>(ws.transform.get() + offset * bins);
        CUDADSP_CUFFT(cufftExecC2R(plan, p, reinterpret_cast<cufftReal*>(p)));
    });

    peak_args args;
    args.correlation = transform_real;
    args.amp = ws.amp.get();
    args.means = ws.means.get();
    args.npatches = n;
    args.g = g;
    args.results = d_results;
    peak_kernel<<<n, peak_threads, peak_shared_bytes(g), stream>>>(args);
    CUDADSP_CUDA_LAUNCHED("peak_kernel");
}

void patch_correlator_cuda::correlate(const image_view& master,
                                      const image_view& aligned,
                                      const patch_pair* pairs,
                                      std::size_t npatches,
                                      patch_result* results)
{
    check_pairs(master, aligned, pairs, npatches);
    if (npatches == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    cudaStream_t stream = d_ws->stream.get();
    d_order.switch_to(stream);
    if (!d_rings)
        d_rings = std::make_unique<image_rings>();
    image_rings& rings = *d_rings;
    const image_view views[2] = { master, aligned };
    const long long npy = d_config.npy();
    long long capacity[2];
    bool pinned[2];
    for (int img = 0; img < 2; ++img) {
        capacity[img] = std::min<long long>(ring_rows_per_npy * npy,
                                            static_cast<long long>(views[img].height));
        rings.prepare(img, views[img], capacity[img]);
        pinned[img] = is_pinned_host_pointer(views[img].data);
    }

    // The pairs go to the device once, ahead of the first batch's rows.
    if (rings.pairs.size() < npatches) {
        rings.pairs = device_buffer<patch_pair>(npatches);
        rings.pairs_staging = pinned_buffer<patch_pair>(npatches);
        rings.results = device_buffer<patch_result>(npatches);
        rings.results_staging = pinned_buffer<patch_result>(npatches);
    }
    // Earlier work of this engine may still read the staging buffers' last contents.
    rings.extracted.wait_on(rings.upload_stream.get());
    CUDADSP_CUDA(cudaStreamSynchronize(rings.upload_stream.get()));
    std::memcpy(rings.pairs_staging.get(), pairs, npatches * sizeof(patch_pair));
    CUDADSP_CUDA(cudaMemcpyAsync(rings.pairs.get(),
                                 rings.pairs_staging.get(),
                                 npatches * sizeof(patch_pair),
                                 cudaMemcpyHostToDevice,
                                 rings.upload_stream.get()));

    auto row_of = [&](int img, std::size_t k) {
        return img == 0 ? pairs[k].master_row : pairs[k].aligned_row;
    };
    // Progress as the batches complete (the callback on this thread).
    batch_progress progress(d_progress, npatches);
    std::size_t nbatches = 0;
    std::size_t first = 0;
    while (first < npatches) {
        // The batch: consecutive pairs whose rows fit each ring.
        long long lo[2], hi[2];
        for (int img = 0; img < 2; ++img) {
            lo[img] = row_of(img, first);
            hi[img] = lo[img] + npy;
        }
        std::size_t end = first + 1;
        while (end < npatches && end - first < d_batch_patches) {
            bool fits = true;
            long long nlo[2], nhi[2];
            for (int img = 0; img < 2; ++img) {
                nlo[img] = std::min<long long>(lo[img], row_of(img, end));
                nhi[img] = std::max<long long>(hi[img], row_of(img, end) + npy);
                fits = fits && nhi[img] - nlo[img] <= capacity[img];
            }
            if (!fits)
                break;
            for (int img = 0; img < 2; ++img) {
                lo[img] = nlo[img];
                hi[img] = nhi[img];
            }
            ++end;
        }

        if (rings.batches.size() <= nbatches)
            rings.batches.emplace_back();
        const image_rings::batch_events& ev = rings.batches[nbatches];

        // Its rows: after the previous batch has read the rings.
        rings.extracted.wait_on(rings.upload_stream.get());
        ev.upload_begin.record(rings.upload_stream.get());
        for (int img = 0; img < 2; ++img)
            rings.ensure_rows(img, views[img], lo[img], hi[img], pinned[img]);
        ev.upload_end.record(rings.upload_stream.get());
        rings.uploaded.record(rings.upload_stream.get());
        rings.uploaded.wait_on(stream);
        ev.compute_begin.record(stream);

        source src;
        src.from_rings = true;
        src.rings.ring[0] = rings.view_of(0, master);
        src.rings.ring[1] = rings.view_of(1, aligned);
        src.rings.pairs = rings.pairs.get() + first;
        enqueue_batch(
            src, end - first, rings.results.get() + first, stream, rings.extracted.get());
        ev.compute_end.record(stream);
        progress.add(ev.compute_end.get(), end);
        ++nbatches;
        progress.poll();
        first = end;
    }
    rings.download_begin.record(stream);
    CUDADSP_CUDA(cudaMemcpyAsync(rings.results_staging.get(),
                                 rings.results.get(),
                                 npatches * sizeof(patch_result),
                                 cudaMemcpyDeviceToHost,
                                 stream));
    rings.download_end.record(stream);
    progress.finish();
    CUDADSP_CUDA(cudaStreamSynchronize(stream));
    std::memcpy(results, rings.results_staging.get(), npatches * sizeof(patch_result));

    // Every event above has completed: each upload is waited for by the stream.
    d_timing = patch_correlator_timing{};
    for (std::size_t b = 0; b < nbatches; ++b) {
        const image_rings::batch_events& ev = rings.batches[b];
        d_timing.upload_ms += ev.upload_end.elapsed_ms_since(ev.upload_begin);
        d_timing.compute_ms += ev.compute_end.elapsed_ms_since(ev.compute_begin);
    }
    d_timing.download_ms = rings.download_end.elapsed_ms_since(rings.download_begin);
}

void patch_correlator_cuda::correlate_patches(const std::complex<float>* master,
                                              const std::complex<float>* aligned,
                                              std::size_t npatches,
                                              patch_result* results)
{
    if (npatches == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    cudaStream_t stream = d_ws->stream.get();
    d_order.switch_to(stream);
    const std::size_t patch_bytes =
        std::size_t(d_config.npy()) * d_config.npx() * sizeof(float2);
    if (!d_pipeline)
        d_pipeline = std::make_unique<host_pipeline>(
            d_batch_patches,
            std::vector<std::size_t>{ patch_bytes, patch_bytes },
            std::vector<std::size_t>{ sizeof(patch_result) });
    const void* const host_in[] = { master, aligned };
    void* const host_out[] = { results };
    d_pipeline->run(host_in,
                    host_out,
                    npatches,
                    stream,
                    [&](const void* const* d_in,
                        void* const* d_out,
                        std::size_t count,
                        cudaStream_t s) {
                        source src;
                        src.patches = { { static_cast<const float2*>(d_in[0]),
                                          static_cast<const float2*>(d_in[1]) },
                                        d_config.npx(),
                                        d_config.npy() };
                        enqueue_batch(
                            src, count, static_cast<patch_result*>(d_out[0]), s, nullptr);
                    });
}

void patch_correlator_cuda::correlate_patches_device(const std::complex<float>* d_master,
                                                     const std::complex<float>* d_aligned,
                                                     std::size_t npatches,
                                                     patch_result* d_results,
                                                     cuda_stream_t stream)
{
    if (npatches == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    cudaStream_t target = stream ? stream : d_ws->stream.get();
    d_order.switch_to(target);
    const std::size_t samples = std::size_t(d_config.npy()) * d_config.npx();
    for (std::size_t f = 0; f < npatches; f += d_batch_patches) {
        const std::size_t n = std::min(d_batch_patches, npatches - f);
        source src;
        src.patches = { { reinterpret_cast<const float2*>(d_master + f * samples),
                          reinterpret_cast<const float2*>(d_aligned + f * samples) },
                        d_config.npx(),
                        d_config.npy() };
        enqueue_batch(src, n, d_results + f, target, nullptr);
    }
}

void patch_correlator_cuda::synchronize()
{
    device_guard guard(d_device.cuda_ordinal);
    CUDADSP_CUDA(cudaStreamSynchronize(d_order.last()));
}

} // namespace core
} // namespace cudadsp
} // namespace gr
