/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/grid_size.h"
#include "unwrap/phase_unwrap_cuda.h"
#include "unwrap/phase_unwrap_kernels.cuh"
#include <cuda_runtime.h>
#include <math_constants.h>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

struct phase_unwrapper_cuda::workspace {
    explicit workspace(std::size_t chunk_samples)
        : aggregate(max_launch_tiles),
          inclusive(max_launch_tiles),
          ticket(1),
          state(2),
          out_of_range(1),
          pipeline(chunk_samples, { sizeof(float) }, { sizeof(float) })
    {
        clear_descriptors(stream.get());
        CUDADSP_CUDA(cudaMemsetAsync(ticket.get(), 0, ticket.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(state.get(), 0, state.bytes(), stream.get()));
        CUDADSP_CUDA(
            cudaMemsetAsync(out_of_range.get(), 0, out_of_range.bytes(), stream.get()));
        stream.synchronize();
    }
    void clear_descriptors(cudaStream_t on)
    {
        CUDADSP_CUDA(cudaMemsetAsync(aggregate.get(), 0, aggregate.bytes(), on));
        CUDADSP_CUDA(cudaMemsetAsync(inclusive.get(), 0, inclusive.bytes(), on));
    }

    cuda_stream stream;
    device_buffer<aggregate_descriptor> aggregate;
    device_buffer<inclusive_descriptor> inclusive;
    device_buffer<unsigned int> ticket;
    device_buffer<unwrap_summary> state; // all-zero bytes == empty_summary()
    device_buffer<unsigned long long> out_of_range;
    host_pipeline pipeline;
};

phase_unwrapper_cuda::phase_unwrapper_cuda(const phase_unwrap_config& config,
                                           const device_selection& device)
    : phase_unwrapper(config, device), d_period(make_unwrap_period(config.period))
{
    device_guard guard(d_device.cuda_ordinal);
    d_ws = std::make_unique<workspace>(config.chunk_samples);
    d_order = stream_order(d_ws->stream.get());
}

phase_unwrapper_cuda::~phase_unwrapper_cuda()
{
    try {
        device_guard guard(d_device.cuda_ordinal);
        d_ws.reset();
    } catch (...) {
        // Destructors must not throw; the device is already in an error state.
    }
}

void phase_unwrapper_cuda::enqueue_at(const float* d_in,
                                      float* d_out,
                                      std::size_t n,
                                      std::size_t call_offset,
                                      cudaStream_t stream)
{
    const unsigned long long segment_length = d_config.vlen > 1 ? d_config.vlen : 0;
    const lookback_workspace ws{ d_ws->aggregate.get(),
                                 d_ws->inclusive.get(),
                                 d_ws->ticket.get() };
    for (std::size_t offset = 0; offset < n; offset += max_launch_samples) {
        const std::size_t count = std::min(max_launch_samples, n - offset);
        const unsigned int tiles = blocks_for(count, tile_samples);
        if (d_epoch == max_epoch) {
            // Ordered on the launch stream, after every launch that used the old epochs.
            d_ws->clear_descriptors(stream);
            d_epoch = 0;
        }
        ++d_epoch;
        const float* launch_in = d_in + offset;
        float* launch_out = d_out + offset;
        const bool aligned = ((reinterpret_cast<std::uintptr_t>(launch_in) |
                               reinterpret_cast<std::uintptr_t>(launch_out)) &
                              15u) == 0;
        const unwrap_summary* state_in = d_ws->state.get() + d_state_slot;
        unwrap_summary* state_out = d_ws->state.get() + (d_state_slot ^ 1);
        // In vector mode a call holds whole vectors, so its first sample has phase 0.
        const unsigned long long phase =
            segment_length ? (call_offset + offset) % segment_length : 0;
        const auto kernel =
            aligned ? unwrap_scan_kernel<true> : unwrap_scan_kernel<false>;
        kernel<<<tiles, block_threads, 0, stream>>>(launch_in,
                                                    launch_out,
                                                    count,
                                                    segment_length,
                                                    phase,
                                                    d_period,
                                                    ws,
                                                    state_in,
                                                    state_out,
                                                    d_epoch,
                                                    tiles,
                                                    d_ws->out_of_range.get());
        CUDADSP_CUDA_LAUNCHED("unwrap_scan_kernel");
        d_state_slot ^= 1;
    }
}

void phase_unwrapper_cuda::unwrap(const float* in, float* out, std::size_t n)
{
    check_whole_vectors(n);
    if (n == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    cudaStream_t stream = d_ws->stream.get();
    d_order.switch_to(stream);
    // Chunks of a vector-mode call need not hold whole vectors: enqueue_at() derives each
    // launch's phase from its offset, and pipeline chunks are offsets into one call.
    std::size_t done = 0;
    const void* const host_in[] = { in };
    void* const host_out[] = { out };
    d_ws->pipeline.run(host_in,
                       host_out,
                       n,
                       stream,
                       [&](const void* const* d_in,
                           void* const* d_out,
                           std::size_t items,
                           cudaStream_t s) {
                           enqueue_at(static_cast<const float*>(d_in[0]),
                                      static_cast<float*>(d_out[0]),
                                      items,
                                      done,
                                      s);
                           done += items;
                       });
}

void phase_unwrapper_cuda::unwrap_device(const float* d_in,
                                         float* d_out,
                                         std::size_t n,
                                         cuda_stream_t stream)
{
    check_whole_vectors(n);
    if (n == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    cudaStream_t target = stream ? stream : d_ws->stream.get();
    d_order.switch_to(target);
    enqueue_at(d_in, d_out, n, 0, target);
}

void phase_unwrapper_cuda::synchronize()
{
    device_guard guard(d_device.cuda_ordinal);
    CUDADSP_CUDA(cudaStreamSynchronize(d_order.last()));
}

void phase_unwrapper_cuda::reset()
{
    device_guard guard(d_device.cuda_ordinal);
    CUDADSP_CUDA(cudaMemsetAsync(
        d_ws->state.get() + d_state_slot, 0, sizeof(unwrap_summary), d_order.last()));
}

void phase_unwrapper_cuda::period_changed()
{
    d_period = make_unwrap_period(d_config.period);
    reset();
}

std::int64_t phase_unwrapper_cuda::wrap_count()
{
    device_guard guard(d_device.cuda_ordinal);
    unwrap_summary state{};
    CUDADSP_CUDA(cudaMemcpyAsync(&state,
                                 d_ws->state.get() + d_state_slot,
                                 sizeof(state),
                                 cudaMemcpyDeviceToHost,
                                 d_order.last()));
    CUDADSP_CUDA(cudaStreamSynchronize(d_order.last()));
    return state.wraps;
}

std::uint64_t phase_unwrapper_cuda::out_of_range_samples()
{
    device_guard guard(d_device.cuda_ordinal);
    unsigned long long count = 0;
    CUDADSP_CUDA(cudaMemcpyAsync(&count,
                                 d_ws->out_of_range.get(),
                                 sizeof(count),
                                 cudaMemcpyDeviceToHost,
                                 d_order.last()));
    CUDADSP_CUDA(cudaStreamSynchronize(d_order.last()));
    return count;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
