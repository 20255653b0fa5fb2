/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Phase unwrapping as one scan over the data.
//
// The wrap count K[i] is a prefix "sum" of per-sample corrections, but a correction
// depends on the previous *finite* sample, and vectors (vector mode) restart the count.
// Both fit one associative operator over segment summaries (unwrap_summary, below), so
// the whole problem is a single scan: each block reduces its tile, publishes the tile
// aggregate, looks back over its predecessors' published aggregates / inclusive
// prefixes (decoupled look-back, Merrill & Garland 2016), then writes its outputs. Each
// sample is read once and written once; no atomics touch the data.

#include "phase_unwrap_cuda.h"
#include <cuda_runtime.h>
#include <math_constants.h>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * Summary of a run of samples, enough to combine it with the runs around it.
 * "head": the samples before the run's first vector start; "tail": the samples after
 * its last vector start (the whole run when it holds no start).
 */
struct unwrap_summary {
    long long wraps;  //!< K accumulated over the tail
    float head_first; //!< first finite sample of the head
    float tail_last;  //!< last finite sample of the tail
    unsigned int flags;
};

namespace {

constexpr unsigned int head_finite = 1u; // the head holds a finite sample
constexpr unsigned int tail_finite = 2u; // the tail holds a finite sample
constexpr unsigned int has_reset = 4u;   // the run holds a vector start

constexpr int block_threads = 256;
constexpr int items_per_thread = 16;
constexpr int warps_per_block = block_threads / 32;
constexpr std::size_t tile_samples = std::size_t(block_threads) * items_per_thread;
// Bounds the look-back workspace; longer calls are split into launches chained
// through the device-side state.
constexpr std::size_t max_launch_samples = std::size_t(1) << 28;
constexpr std::size_t max_launch_tiles = max_launch_samples / tile_samples;

// Tile status word: launch epoch << 2 | kind, so the workspace needs no clearing
// between launches (a word from an older launch never matches the epoch).
constexpr unsigned int status_aggregate = 1u;
constexpr unsigned int status_inclusive = 2u;
constexpr unsigned int max_epoch = (1u << 30) - 1;

__device__ __forceinline__ unwrap_summary empty_summary() { return { 0, 0.0f, 0.0f, 0u }; }

__device__ __forceinline__ unwrap_summary sample_summary(float x, bool vector_start)
{
    const bool finite = is_finite_sample(x);
    unwrap_summary s{ 0, x, x, 0u };
    if (vector_start)
        s.flags = has_reset | (finite ? tail_finite : 0u);
    else if (finite)
        s.flags = head_finite | tail_finite;
    return s;
}

//! The scan operator: \p a followed by \p b. Associative, with empty_summary() as identity.
__device__ __forceinline__ unwrap_summary combine(const unwrap_summary& a,
                                                  const unwrap_summary& b,
                                                  const unwrap_period& p)
{
    unwrap_summary r;
    unsigned int flags = (a.flags | b.flags) & has_reset;
    if (b.flags & has_reset) {
        r.wraps = b.wraps;
        r.tail_last = b.tail_last;
        flags |= b.flags & tail_finite;
    } else {
        r.wraps = a.wraps + b.wraps;
        if ((a.flags & tail_finite) && (b.flags & head_finite))
            r.wraps += unwrap_step(a.tail_last, b.head_first, p);
        r.tail_last = (b.flags & tail_finite) ? b.tail_last : a.tail_last;
        flags |= (a.flags | b.flags) & tail_finite;
    }
    if (a.flags & has_reset) {
        r.head_first = a.head_first;
        flags |= a.flags & head_finite;
    } else {
        r.head_first = (a.flags & head_finite) ? a.head_first : b.head_first;
        flags |= (a.flags | b.flags) & head_finite;
    }
    r.flags = flags;
    return r;
}

__device__ __forceinline__ unwrap_summary shuffle_up(const unwrap_summary& s, int delta)
{
    constexpr unsigned int all_lanes = 0xffffffffu;
    return { __shfl_up_sync(all_lanes, s.wraps, delta),
             __shfl_up_sync(all_lanes, s.head_first, delta),
             __shfl_up_sync(all_lanes, s.tail_last, delta),
             __shfl_up_sync(all_lanes, s.flags, delta) };
}

__device__ __forceinline__ unwrap_summary warp_inclusive_scan(unwrap_summary s,
                                                              const unwrap_period& p)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int delta = 1; delta < 32; delta <<= 1) {
        const unwrap_summary before = shuffle_up(s, delta);
        if (lane >= delta)
            s = combine(before, s, p);
    }
    return s;
}

// Summaries another block publishes are read and written through L2 only (.cg): a line
// this SM cached earlier in the launch may hold a neighbour's slot from before it was
// written.
__device__ __forceinline__ void store_summary(unwrap_summary* slot, const unwrap_summary& s)
{
    __stcg(&slot->wraps, s.wraps);
    __stcg(&slot->head_first, s.head_first);
    __stcg(&slot->tail_last, s.tail_last);
    __stcg(&slot->flags, s.flags);
}

__device__ __forceinline__ unwrap_summary load_summary(const unwrap_summary* slot)
{
    return { __ldcg(&slot->wraps),
             __ldcg(&slot->head_first),
             __ldcg(&slot->tail_last),
             __ldcg(&slot->flags) };
}

__device__ __forceinline__ void
publish(unwrap_summary* slot, unsigned int* status, const unwrap_summary& s, unsigned int word)
{
    store_summary(slot, s);
    __threadfence(); // the summary is visible before the status that announces it
    atomicExch(status, word);
}

struct lookback_workspace {
    unsigned int* status;
    unwrap_summary* aggregate;
    unwrap_summary* inclusive;
    unsigned int* ticket;
};

/*!
 * Unwraps in[0, n) into out[0, n) (may alias).
 * - segment_length: 0 for one stream, else the vector length; segment_phase is the
 *   position of in[0] within its vector.
 * - state_in: summary of everything before in[0]; the last tile writes the summary of
 *   everything up to in[n-1] to state_out (a different buffer).
 * - ALIGNED: in and out are 16-byte aligned, so full tiles move as float4.
 * Grid: one block per tile of tile_samples, at most max_launch_tiles. Tiles are taken
 * in launch order from a ticket counter, so a block only ever waits for blocks that are
 * already running (forward progress without co-residency assumptions).
 */
template <bool ALIGNED>
__global__ void __launch_bounds__(block_threads)
    unwrap_scan_kernel(const float* __restrict__ in,
                       float* out,
                       unsigned long long n,
                       unsigned long long segment_length,
                       unsigned long long segment_phase,
                       unwrap_period period,
                       lookback_workspace ws,
                       const unwrap_summary* state_in,
                       unwrap_summary* state_out,
                       unsigned int epoch,
                       unsigned int num_tiles)
{
    __shared__ unsigned int tile_ticket;
    __shared__ unwrap_summary warp_totals[warps_per_block];
    __shared__ unwrap_summary tile_prefix;

    if (threadIdx.x == 0) {
        tile_ticket = atomicAdd(ws.ticket, 1u);
        // The last ticket is handed out after all others, so the counter can be
        // rewound for the next launch on this stream.
        if (tile_ticket == num_tiles - 1)
            *ws.ticket = 0u;
    }
    __syncthreads();
    const unsigned int tile = tile_ticket;
    const unsigned long long first = tile * tile_samples + threadIdx.x * items_per_thread;
    const bool full_tile = (tile + 1ull) * tile_samples <= n;

    float x[items_per_thread];
    if (ALIGNED && full_tile) {
        const float4* src = reinterpret_cast<const float4*>(in + first);
#pragma unroll
        for (int v = 0; v < items_per_thread / 4; ++v) {
            const float4 q = src[v];
            x[4 * v] = q.x;
            x[4 * v + 1] = q.y;
            x[4 * v + 2] = q.z;
            x[4 * v + 3] = q.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < items_per_thread; ++j)
            x[j] = first + j < n ? in[first + j] : CUDART_NAN_F;
    }

    // Vector starts as a bit mask; beyond n nothing starts, so padding is neutral.
    unsigned int starts = 0u;
    if (segment_length != 0) {
        unsigned long long position = (segment_phase + first) % segment_length;
#pragma unroll
        for (int j = 0; j < items_per_thread; ++j) {
            if (position == 0 && first + j < n)
                starts |= 1u << j;
            position = position + 1 == segment_length ? 0 : position + 1;
        }
    }

    unwrap_summary thread_total = empty_summary();
#pragma unroll
    for (int j = 0; j < items_per_thread; ++j)
        thread_total = combine(thread_total, sample_summary(x[j], (starts >> j) & 1u), period);

    // Block-wide exclusive scan of the thread totals.
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const unwrap_summary warp_inclusive = warp_inclusive_scan(thread_total, period);
    if (lane == 31)
        warp_totals[warp] = warp_inclusive;
    __syncthreads();
    if (warp == 0) {
        unwrap_summary w = lane < warps_per_block ? warp_totals[lane] : empty_summary();
        w = warp_inclusive_scan(w, period);
        if (lane < warps_per_block)
            warp_totals[lane] = w;
    }
    __syncthreads();
    const unwrap_summary lane_before = shuffle_up(warp_inclusive, 1);
    unwrap_summary thread_prefix = warp > 0 ? warp_totals[warp - 1] : empty_summary();
    if (lane > 0)
        thread_prefix = combine(thread_prefix, lane_before, period);

    if (threadIdx.x == 0) {
        const unwrap_summary aggregate = warp_totals[warps_per_block - 1];
        unwrap_summary prefix;
        if (tile == 0) {
            prefix = *state_in;
        } else {
            publish(&ws.aggregate[tile], &ws.status[tile], aggregate, epoch << 2 | status_aggregate);
            prefix = empty_summary();
            for (unsigned int j = tile - 1;; --j) {
                unsigned int word;
                while (((word = *reinterpret_cast<volatile unsigned int*>(&ws.status[j])) >> 2) !=
                       epoch)
                    __nanosleep(32);
                __threadfence(); // read the summary only after its status
                if ((word & 3u) == status_inclusive) {
                    prefix = combine(load_summary(&ws.inclusive[j]), prefix, period);
                    break;
                }
                prefix = combine(load_summary(&ws.aggregate[j]), prefix, period);
            }
        }
        const unwrap_summary inclusive = combine(prefix, aggregate, period);
        publish(&ws.inclusive[tile], &ws.status[tile], inclusive, epoch << 2 | status_inclusive);
        if (tile == num_tiles - 1)
            *state_out = inclusive;
        tile_prefix = prefix;
    }
    __syncthreads();

    // Replay this thread's samples from the state just before them.
    const unwrap_summary before = combine(tile_prefix, thread_prefix, period);
    long long wraps = before.wraps;
    float last = before.tail_last;
    bool has_last = (before.flags & tail_finite) != 0;
    float y[items_per_thread];
#pragma unroll
    for (int j = 0; j < items_per_thread; ++j) {
        if ((starts >> j) & 1u) {
            wraps = 0;
            has_last = false;
        }
        if (is_finite_sample(x[j])) {
            if (has_last)
                wraps += unwrap_step(last, x[j], period);
            last = x[j];
            has_last = true;
            y[j] = unwrapped_value(x[j], wraps, period);
        } else {
            y[j] = CUDART_NAN_F;
        }
    }

    if (ALIGNED && full_tile) {
        float4* dst = reinterpret_cast<float4*>(out + first);
#pragma unroll
        for (int v = 0; v < items_per_thread / 4; ++v)
            dst[v] = make_float4(y[4 * v], y[4 * v + 1], y[4 * v + 2], y[4 * v + 3]);
    } else {
#pragma unroll
        for (int j = 0; j < items_per_thread; ++j)
            if (first + j < n)
                out[first + j] = y[j];
    }
}

} // namespace

struct phase_unwrapper_cuda::workspace {
    explicit workspace(std::size_t chunk_samples)
        : status(max_launch_tiles),
          aggregate(max_launch_tiles),
          inclusive(max_launch_tiles),
          ticket(1),
          state(2),
          pipeline(chunk_samples, sizeof(float), sizeof(float))
    {
        clear_status();
        CUDADSP_CUDA(cudaMemsetAsync(ticket.get(), 0, ticket.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(state.get(), 0, state.bytes(), stream.get()));
        stream.synchronize();
    }
    void clear_status()
    {
        CUDADSP_CUDA(cudaMemsetAsync(status.get(), 0, status.bytes(), stream.get()));
    }

    cuda_stream stream;
    device_buffer<unsigned int> status;
    device_buffer<unwrap_summary> aggregate;
    device_buffer<unwrap_summary> inclusive;
    device_buffer<unsigned int> ticket;
    device_buffer<unwrap_summary> state; // all-zero bytes == empty_summary()
    host_pipeline pipeline;
};

phase_unwrapper_cuda::phase_unwrapper_cuda(const phase_unwrap_config& config,
                                           const device_selection& device)
    : phase_unwrapper(config, device), d_period(make_unwrap_period(config.period))
{
    device_guard guard(d_device.cuda_ordinal);
    d_ws = std::make_unique<workspace>(config.chunk_samples);
    d_last_stream = d_ws->stream.get();
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

void phase_unwrapper_cuda::check_whole_vectors(std::size_t n) const
{
    if (d_config.vlen > 1 && n % d_config.vlen != 0)
        throw std::invalid_argument("n: " + std::to_string(n) +
                                    " samples is not a whole number of vectors of vlen " +
                                    std::to_string(d_config.vlen));
}

void phase_unwrapper_cuda::enqueue_at(const float* d_in,
                                      float* d_out,
                                      std::size_t n,
                                      std::size_t call_offset,
                                      cudaStream_t stream)
{
    const unsigned long long segment_length = d_config.vlen > 1 ? d_config.vlen : 0;
    const lookback_workspace ws{
        d_ws->status.get(), d_ws->aggregate.get(), d_ws->inclusive.get(), d_ws->ticket.get()
    };
    for (std::size_t offset = 0; offset < n; offset += max_launch_samples) {
        const std::size_t count = std::min(max_launch_samples, n - offset);
        const unsigned int tiles =
            static_cast<unsigned int>((count + tile_samples - 1) / tile_samples);
        if (d_epoch == max_epoch) {
            d_ws->clear_status();
            d_ws->stream.synchronize();
            d_epoch = 0;
        }
        ++d_epoch;
        const float* launch_in = d_in + offset;
        float* launch_out = d_out + offset;
        const bool aligned =
            ((reinterpret_cast<std::uintptr_t>(launch_in) |
              reinterpret_cast<std::uintptr_t>(launch_out)) &
             15u) == 0;
        const unwrap_summary* state_in = d_ws->state.get() + d_state_slot;
        unwrap_summary* state_out = d_ws->state.get() + (d_state_slot ^ 1);
        // In vector mode a call holds whole vectors, so its first sample has phase 0.
        const unsigned long long phase =
            segment_length ? (call_offset + offset) % segment_length : 0;
        if (aligned)
            unwrap_scan_kernel<true><<<tiles, block_threads, 0, stream>>>(
                launch_in, launch_out, count, segment_length, phase, d_period, ws, state_in,
                state_out, d_epoch, tiles);
        else
            unwrap_scan_kernel<false><<<tiles, block_threads, 0, stream>>>(
                launch_in, launch_out, count, segment_length, phase, d_period, ws, state_in,
                state_out, d_epoch, tiles);
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
    if (d_last_stream != stream) {
        // Order after work a caller enqueued through unwrap_device on its own stream.
        cuda_event handoff;
        handoff.record(d_last_stream);
        handoff.wait_on(stream);
        d_last_stream = stream;
    }
    // Chunks of a vector-mode call need not hold whole vectors: enqueue() derives each
    // launch's phase from its offset, and pipeline chunks are offsets into one call.
    std::size_t done = 0;
    d_ws->pipeline.run(in, out, n, stream, [&](const void* d_in, void* d_out, std::size_t items, cudaStream_t s) {
        enqueue_at(static_cast<const float*>(d_in), static_cast<float*>(d_out), items, done, s);
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
    if (target != d_last_stream) {
        cuda_event handoff;
        handoff.record(d_last_stream);
        handoff.wait_on(target);
        d_last_stream = target;
    }
    enqueue_at(d_in, d_out, n, 0, target);
}

void phase_unwrapper_cuda::synchronize()
{
    device_guard guard(d_device.cuda_ordinal);
    CUDADSP_CUDA(cudaStreamSynchronize(d_last_stream));
}

void phase_unwrapper_cuda::reset()
{
    device_guard guard(d_device.cuda_ordinal);
    CUDADSP_CUDA(cudaMemsetAsync(
        d_ws->state.get() + d_state_slot, 0, sizeof(unwrap_summary), d_last_stream));
}

void phase_unwrapper_cuda::set_period(double period)
{
    phase_unwrap_config updated = d_config;
    updated.period = period;
    updated.validate();
    d_config = updated;
    d_period = make_unwrap_period(period);
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
                                 d_last_stream));
    CUDADSP_CUDA(cudaStreamSynchronize(d_last_stream));
    return state.wraps;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
