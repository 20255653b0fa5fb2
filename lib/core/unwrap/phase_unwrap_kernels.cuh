/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_KERNELS_CUH
#define INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_KERNELS_CUH

/*
 * The phase unwrapper's scan kernel (unwrap_scan_kernel), its segment summaries, the
 * decoupled look-back and the staging of samples through shared memory, with the launch
 * shape they are tuned for. phase_unwrap_cuda.cu, which owns the look-back workspace and
 * launches the kernel, alone includes this file; the kernel keeps the internal linkage
 * (anonymous namespace) it had there.
 *
 * Phase unwrapping as one scan over the data.
 *
 * The wrap count K[i] is a prefix "sum" of per-sample corrections, but a correction
 * depends on the previous sample that is a phase (finite, in range: the rule), and
 * vectors (vector mode) restart the count. Both fit one associative operator over segment
 * summaries (unwrap_summary, below), so the whole problem is a single scan: each block
 * reduces its tile, publishes the tile aggregate, looks back over its predecessors'
 * published aggregates / inclusive prefixes (decoupled look-back, Merrill & Garland
 * 2016), then writes its outputs. Each sample is read once and written once; no atomics
 * touch the data.
 */

#include "unwrap/phase_unwrap_cuda.h"
#include "unwrap/phase_unwrap_rule.h"
#include <cuda_runtime.h>
#include <math_constants.h>
#include <cstdint>
#include <limits>

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

// Large tiles amortise the block scan and the look-back. Measured on an H100, 64M
// samples: 512 threads x 16 samples 0.36 ms, 256 x 16 (4 blocks per SM) 0.385 ms; see
// docs/performance.md. Two resident blocks per SM cap registers at 64 a thread.
constexpr int block_threads = 512;
constexpr int items_per_thread = 16;
constexpr int warps_per_block = block_threads / 32;
constexpr int blocks_per_sm = 2;
constexpr std::size_t tile_samples = std::size_t(block_threads) * items_per_thread;
// Bounds the look-back workspace; longer calls are split into launches chained
// through the device-side state.
constexpr std::size_t max_launch_samples = std::size_t(1) << 28;
constexpr std::size_t max_launch_tiles = max_launch_samples / tile_samples;

// Look-back descriptors carry the launch epoch, so the workspace needs no clearing
// between launches (a descriptor from an older launch never matches the epoch). The
// low bits of the same word hold the summary flags.
constexpr unsigned int flag_bits = 3;
constexpr unsigned int max_epoch = (1u << (32 - flag_bits)) - 1;
// Predecessor tiles each look-back step examines: one per lane. Wider windows (2 or 4
// per lane) spill registers in the main path and measured slower (0.45, 0.58 ms).
constexpr int lookback_tiles_per_lane = 1;

__device__ __forceinline__ unwrap_summary empty_summary()
{
    return { 0, 0.0f, 0.0f, 0u };
}

/*!
 * Summary of one thread's samples, folded in order (the sequential form of combining
 * one-sample summaries). \p starts has bit j set where x[j] begins a vector.
 */
template <int N>
__device__ __forceinline__ unwrap_summary fold_samples(const float (&x)[N],
                                                       unsigned int starts,
                                                       const unwrap_period& p)
{
    unwrap_summary s = empty_summary();
#pragma unroll
    for (int j = 0; j < N; ++j) {
        if ((starts >> j) & 1u)
            s = { 0, s.head_first, s.tail_last, (s.flags & head_finite) | has_reset };
        if (!is_phase_sample(x[j], p))
            continue;
        if (!(s.flags & (head_finite | has_reset))) {
            s.head_first = x[j];
            s.flags |= head_finite;
        }
        if (s.flags & tail_finite)
            s.wraps += unwrap_step(s.tail_last, x[j], p);
        s.tail_last = x[j];
        s.flags |= tail_finite;
    }
    return s;
}

/*!
 * The common case: every sample of the thread a phase and no vector start among them.
 * The fold records each step's correction as two bit masks (+1, -1) so that the replay
 * does not decide the steps again; \p all_unit is false when some |k| > 1.
 */
template <int N>
struct clean_steps {
    unsigned int plus = 0u;
    unsigned int minus = 0u;
    bool all_unit = true;
};

template <int N>
__device__ __forceinline__ unwrap_summary fold_clean_samples(const float (&x)[N],
                                                             clean_steps<N>& steps,
                                                             const unwrap_period& p)
{
    int wraps = 0; // below 2 * max_sample_periods + N / 2 (the rule): fits 32 bits
#pragma unroll
    for (int j = 1; j < N; ++j) {
        const int k = unwrap_step(x[j - 1], x[j], p);
        wraps += k;
        steps.plus |= static_cast<unsigned int>(k == 1) << j;
        steps.minus |= static_cast<unsigned int>(k == -1) << j;
        steps.all_unit &= k >= -1 && k <= 1;
    }
    return { wraps, x[0], x[N - 1], head_finite | tail_finite };
}

//! The scan operator: \p a followed by \p b. Associative, with empty_summary() as
//! identity.
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

__device__ __forceinline__ unwrap_summary shuffle_from(const unwrap_summary& s, int lane)
{
    constexpr unsigned int all_lanes = 0xffffffffu;
    return { __shfl_sync(all_lanes, s.wraps, lane),
             __shfl_sync(all_lanes, s.head_first, lane),
             __shfl_sync(all_lanes, s.tail_last, lane),
             __shfl_sync(all_lanes, s.flags, lane) };
}

//! The scan operator as a callable, for the scans below.
struct general_combine {
    unwrap_period p;
    __device__ unwrap_summary operator()(const unwrap_summary& a,
                                         const unwrap_summary& b) const
    {
        return combine(a, b, p);
    }
};

/*!
 * combine() for two runs that are all phases and hold no vector start (a clean tile's
 * threads): a quarter of the general operator's work. It has no identity, so scans
 * with it never combine with a missing neighbour.
 */
struct clean_combine {
    unwrap_period p;
    __device__ unwrap_summary operator()(const unwrap_summary& a,
                                         const unwrap_summary& b) const
    {
        return { a.wraps + b.wraps + unwrap_step(a.tail_last, b.head_first, p),
                 a.head_first,
                 b.tail_last,
                 head_finite | tail_finite };
    }
};

template <class Combine>
__device__ __forceinline__ unwrap_summary warp_inclusive_scan(unwrap_summary s,
                                                              const Combine& op)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int delta = 1; delta < 32; delta <<= 1) {
        const unwrap_summary before = shuffle_up(s, delta);
        if (lane >= delta)
            s = op(before, s);
    }
    return s;
}

/*!
 * Block-wide exclusive scan of the threads' summaries: returns what comes before this
 * thread within the tile (empty for thread 0) and leaves the tile's total in
 * warp_totals[warps_per_block - 1]. Only lanes that have a predecessor combine, so an
 * operator without an identity (clean_combine) is fine.
 */
template <class Combine>
__device__ __forceinline__ unwrap_summary block_exclusive_scan(
    const unwrap_summary& thread_total, unwrap_summary* warp_totals, const Combine& op)
{
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const unwrap_summary warp_inclusive = warp_inclusive_scan(thread_total, op);
    if (lane == 31)
        warp_totals[warp] = warp_inclusive;
    __syncthreads();
    if (warp == 0) {
        // Lanes past the last warp scan a copy of it; their results are not stored.
        const unwrap_summary total =
            warp_totals[lane < warps_per_block ? lane : warps_per_block - 1];
        // Every lane has read before any lane writes: shuffles do not order shared
        // memory accesses (compute-sanitizer racecheck reports the hazard without it).
        __syncwarp();
        const unwrap_summary w = warp_inclusive_scan(total, op);
        if (lane < warps_per_block)
            warp_totals[lane] = w;
    }
    __syncthreads();
    const unwrap_summary lane_before = shuffle_up(warp_inclusive, 1);
    if (warp > 0 && lane > 0)
        return op(warp_totals[warp - 1], lane_before);
    if (warp > 0)
        return warp_totals[warp - 1];
    return lane > 0 ? lane_before : empty_summary();
}

/*!
 * What a tile publishes for the tiles after it, each in one 16-byte word written and
 * read with single 16-byte accesses (one transaction on every CUDA GPU; CUB's look-back
 * relies on the same), so a reader sees a descriptor whole or not at all and needs no
 * fence. The aggregate (the tile alone) fits its wrap count in 32 bits: the steps
 * between samples of at most max_sample_periods telescope to below
 * 2 * max_sample_periods + tile_samples / 2 (phase_unwrap_rule.h); the inclusive
 * prefix (everything up to the tile) needs 64 bits but no head.
 */
struct __align__(16) aggregate_descriptor
{
    int wraps;
    float head_first;
    float tail_last;
    unsigned int epoch_flags;
};
struct __align__(16) inclusive_descriptor
{
    long long wraps;
    float tail_last;
    unsigned int epoch_flags;
};
static_assert(2.0 * max_sample_periods + tile_samples < 2147483648.0,
              "a tile's wrap count must fit the aggregate descriptor");

/*
 * Inline PTX for the descriptors' 16-byte volatile accesses: cuda::ptx's ld and st have
 * no .volatile (nor .relaxed) form, and CUB's ThreadLoad<LOAD_VOLATILE> and
 * ThreadStore<STORE_VOLATILE> split a 16-byte word into two 8-byte accesses, which
 * would let a reader see half of a descriptor.
 */
__device__ __forceinline__ int4 load_volatile(const void* p)
{
    int4 v;
    asm volatile("ld.volatile.global.v4.s32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p)
                 : "memory");
    return v;
}

__device__ __forceinline__ void store_volatile(void* p, int4 v)
{
    asm volatile("st.volatile.global.v4.s32 [%0], {%1, %2, %3, %4};" ::"l"(p),
                 "r"(v.x),
                 "r"(v.y),
                 "r"(v.z),
                 "r"(v.w)
                 : "memory");
}

__device__ __forceinline__ void
publish_aggregate(aggregate_descriptor* slot, const unwrap_summary& s, unsigned int epoch)
{
    store_volatile(slot,
                   make_int4(static_cast<int>(s.wraps),
                             __float_as_int(s.head_first),
                             __float_as_int(s.tail_last),
                             static_cast<int>(epoch << flag_bits | s.flags)));
}

__device__ __forceinline__ void
publish_inclusive(inclusive_descriptor* slot, const unwrap_summary& s, unsigned int epoch)
{
    const unsigned long long wraps = static_cast<unsigned long long>(s.wraps);
    store_volatile(slot,
                   make_int4(static_cast<int>(wraps & 0xffffffffu),
                             static_cast<int>(wraps >> 32),
                             __float_as_int(s.tail_last),
                             static_cast<int>(epoch << flag_bits | s.flags)));
}

struct lookback_workspace {
    aggregate_descriptor* aggregate;
    inclusive_descriptor* inclusive;
    unsigned int* ticket;
};

/*!
 * Decoupled look-back, run by one whole warp of tile \p tile (> 0) after it published
 * its aggregate: returns the summary of all tiles before it. Each step examines the
 * 32 * lookback_tiles_per_lane tiles before the window's end (in order across the
 * lanes), waits until each has published an aggregate or an inclusive prefix, combines
 * everything from the nearest inclusive prefix on, and stops there; without one it
 * moves a window further back. Tile 0 always publishes an inclusive prefix, so the walk
 * ends.
 */
__device__ unwrap_summary look_back(const lookback_workspace& ws,
                                    unsigned int tile,
                                    unsigned int epoch,
                                    const unwrap_period& p)
{
    constexpr unsigned int all_lanes = 0xffffffffu;
    constexpr int per_lane = lookback_tiles_per_lane;
    const int lane = threadIdx.x & 31;
    unwrap_summary prefix = empty_summary();
    for (long long window_end = tile;; window_end -= 32 * per_lane) {
        const long long first = window_end - 32 * per_lane + lane * per_lane;
        // All of the lane's descriptor loads go out together, so a window costs one L2
        // round trip, not one per tile; only tiles not yet published are read again.
        unwrap_summary tiles[per_lane];
        bool is_inclusive[per_lane];
        bool ready[per_lane];
#pragma unroll
        for (int q = 0; q < per_lane; ++q) {
            tiles[q] = empty_summary();
            is_inclusive[q] =
                first + q < 0; // before tile 0: nothing, nothing further back
            ready[q] = first + q < 0;
        }
        for (;;) {
            int4 inclusive_words[per_lane], aggregate_words[per_lane];
#pragma unroll
            for (int q = 0; q < per_lane; ++q) {
                if (!ready[q]) {
                    inclusive_words[q] = load_volatile(&ws.inclusive[first + q]);
                    aggregate_words[q] = load_volatile(&ws.aggregate[first + q]);
                }
            }
            bool all_ready = true;
#pragma unroll
            for (int q = 0; q < per_lane; ++q) {
                if (ready[q])
                    continue;
                const int4 in = inclusive_words[q];
                const int4 agg = aggregate_words[q];
                if (static_cast<unsigned int>(in.w) >> flag_bits == epoch) {
                    tiles[q] = {
                        static_cast<long long>(static_cast<unsigned long long>(
                                                   static_cast<unsigned int>(in.x)) |
                                               static_cast<unsigned long long>(
                                                   static_cast<unsigned int>(in.y))
                                                   << 32),
                        0.0f,
                        __int_as_float(in.z),
                        static_cast<unsigned int>(in.w) & ((1u << flag_bits) - 1)
                    };
                    is_inclusive[q] = true;
                    ready[q] = true;
                } else if (static_cast<unsigned int>(agg.w) >> flag_bits == epoch) {
                    tiles[q] = { agg.x,
                                 __int_as_float(agg.y),
                                 __int_as_float(agg.z),
                                 static_cast<unsigned int>(agg.w) &
                                     ((1u << flag_bits) - 1) };
                    ready[q] = true;
                } else {
                    all_ready = false;
                }
            }
            if (all_ready)
                break;
            __nanosleep(20);
        }
        // This lane's share: from its last inclusive prefix on (an inclusive prefix
        // already holds everything before it).
        unwrap_summary mine = empty_summary();
        bool lane_has_inclusive = false;
#pragma unroll
        for (int q = 0; q < per_lane; ++q) {
            if (is_inclusive[q]) {
                mine = tiles[q];
                lane_has_inclusive = true;
            } else {
                mine = combine(mine, tiles[q], p);
            }
        }
        const unsigned int inclusive_lanes = __ballot_sync(all_lanes, lane_has_inclusive);
        const int nearest = inclusive_lanes ? 31 - __clz(inclusive_lanes) : -1;
        if (lane < nearest)
            mine = empty_summary();
        const unwrap_summary window = warp_inclusive_scan(mine, general_combine{ p });
        prefix = combine(shuffle_from(window, 31), prefix, p);
        if (nearest >= 0)
            return prefix;
    }
}

// Per-warp staging of 32 x items_per_thread samples in shared memory, padded by one
// float4 every 32 floats: a lane's float4 reads of its own run (64 bytes apart across
// the lanes) then fall in distinct banks, as do the coalesced writes.
constexpr int warp_samples = 32 * items_per_thread;
constexpr int staged_floats_per_warp = warp_samples + warp_samples / 32 * 4;

__device__ __forceinline__ int staged_index(int sample)
{
    return sample + (sample >> 5) * 4;
}

__device__ __forceinline__ void store_staged(float* stage, int sample, float4 v)
{
    *reinterpret_cast<float4*>(stage + staged_index(sample)) = v;
}

__device__ __forceinline__ float4 load_staged(const float* stage, int sample)
{
    return *reinterpret_cast<const float4*>(stage + staged_index(sample));
}

/*!
 * A thread's items_per_thread samples in[first, first + items_per_thread), NaN past
 * n. A full tile of 16-byte aligned input moves by coalesced float4 loads (the warp
 * reads 512 contiguous bytes per instruction from in + warp_first), transposed through
 * the warp's \p stage into each thread's run of samples. Called by the whole warp.
 */
template <bool ALIGNED>
__device__ __forceinline__ void load_samples(const float* __restrict__ in,
                                             unsigned long long n,
                                             unsigned long long first,
                                             unsigned long long warp_first,
                                             bool full_tile,
                                             int lane,
                                             float* stage,
                                             float (&x)[items_per_thread])
{
    if (ALIGNED && full_tile) {
        const float4* src = reinterpret_cast<const float4*>(in + warp_first);
#pragma unroll
        for (int v = 0; v < items_per_thread / 4; ++v)
            store_staged(stage, 4 * (v * 32 + lane), src[v * 32 + lane]);
        __syncwarp();
#pragma unroll
        for (int v = 0; v < items_per_thread / 4; ++v) {
            const float4 q = load_staged(stage, lane * items_per_thread + 4 * v);
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
}

/*!
 * The thread's unwrapped samples y out to out[first, first + items_per_thread), none
 * past n: the load's transpose in reverse for a full aligned tile. Every lane read its
 * samples out of the stage before the block barriers that precede this, so it can be
 * overwritten. Called by the whole warp.
 */
template <bool ALIGNED>
__device__ __forceinline__ void store_samples(float* out,
                                              unsigned long long n,
                                              unsigned long long first,
                                              unsigned long long warp_first,
                                              bool full_tile,
                                              int lane,
                                              float* stage,
                                              const float (&y)[items_per_thread])
{
    if (ALIGNED && full_tile) {
#pragma unroll
        for (int v = 0; v < items_per_thread / 4; ++v)
            store_staged(stage,
                         lane * items_per_thread + 4 * v,
                         make_float4(y[4 * v], y[4 * v + 1], y[4 * v + 2], y[4 * v + 3]));
        __syncwarp();
        float4* dst = reinterpret_cast<float4*>(out + warp_first);
#pragma unroll
        for (int v = 0; v < items_per_thread / 4; ++v)
            dst[v * 32 + lane] = load_staged(stage, 4 * (v * 32 + lane));
    } else {
#pragma unroll
        for (int j = 0; j < items_per_thread; ++j)
            if (first + j < n)
                out[first + j] = y[j];
    }
}

/*!
 * Vector starts among the thread's samples as a bit mask (bit j: sample first + j
 * starts a vector of segment_length, 0 for one stream); beyond n nothing starts, so
 * padding is neutral.
 */
__device__ __forceinline__ unsigned int vector_starts(unsigned long long segment_length,
                                                      unsigned long long segment_phase,
                                                      unsigned long long first,
                                                      unsigned long long n)
{
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
    return starts;
}

/*!
 * Run by warp 0 of tile \p tile once warp_totals holds the block's scan: the summary of
 * everything before the tile (state_in for tile 0, else the decoupled look-back after
 * publishing the tile's aggregate), the tile's inclusive prefix published (and written
 * to state_out by the last tile), and the prefix left in \p tile_prefix by lane 0.
 */
__device__ __forceinline__ void resolve_tile_prefix(const lookback_workspace& ws,
                                                    unsigned int tile,
                                                    unsigned int num_tiles,
                                                    unsigned int epoch,
                                                    const unwrap_period& period,
                                                    const unwrap_summary* warp_totals,
                                                    const unwrap_summary* state_in,
                                                    unwrap_summary* state_out,
                                                    unwrap_summary& tile_prefix)
{
    const int lane = threadIdx.x & 31;
    const unwrap_summary aggregate = warp_totals[warps_per_block - 1];
    unwrap_summary prefix;
    if (tile == 0) {
        prefix = *state_in;
    } else {
        if (lane == 0)
            publish_aggregate(&ws.aggregate[tile], aggregate, epoch);
        prefix = look_back(ws, tile, epoch, period);
    }
    if (lane == 0) {
        const unwrap_summary inclusive = combine(prefix, aggregate, period);
        publish_inclusive(&ws.inclusive[tile], inclusive, epoch);
        if (tile == num_tiles - 1)
            *state_out = inclusive;
        tile_prefix = prefix;
    }
}

/*!
 * Replays clean samples (all phases, no vector start) from the state \p before them:
 * the wrap count K as a float64 (exact: |K| < 2^53), stepped by +-1 without an integer
 * conversion per sample, so that P * K is the product wrap_offset() forms.
 */
__device__ __forceinline__ void replay_clean(const float (&x)[items_per_thread],
                                             const clean_steps<items_per_thread>& steps,
                                             const unwrap_summary& before,
                                             const unwrap_period& period,
                                             float (&y)[items_per_thread])
{
    long long wraps = before.wraps;
    if (before.flags & tail_finite)
        wraps += unwrap_step(before.tail_last, x[0], period);
    double wraps_f64 = static_cast<double>(wraps);
    y[0] = unwrapped_value(x[0], __dmul_rn(period.period, wraps_f64));
#pragma unroll
    for (int j = 1; j < items_per_thread; ++j) {
        if (steps.all_unit)
            wraps_f64 += ((steps.plus >> j) & 1u)    ? 1.0
                         : ((steps.minus >> j) & 1u) ? -1.0
                                                     : 0.0;
        else
            wraps_f64 += unwrap_step(x[j - 1], x[j], period);
        y[j] = unwrapped_value(x[j], __dmul_rn(period.period, wraps_f64));
    }
}

/*!
 * Replays samples with values that are not phases (NaN, Inf, out of range) or vector
 * starts from the state \p before; adds the finite samples out of range to
 * \p out_of_range.
 */
__device__ __forceinline__ void replay_general(const float (&x)[items_per_thread],
                                               unsigned int starts,
                                               const unwrap_summary& before,
                                               const unwrap_period& period,
                                               float (&y)[items_per_thread],
                                               unsigned long long* out_of_range)
{
    unsigned int rejected = 0u;
    long long wraps = before.wraps;
    double offset = wrap_offset(wraps, period);
    float last = before.tail_last;
    bool has_last = (before.flags & tail_finite) != 0;
#pragma unroll
    for (int j = 0; j < items_per_thread; ++j) {
        if ((starts >> j) & 1u) {
            wraps = 0;
            offset = 0.0;
            has_last = false;
        }
        if (is_phase_sample(x[j], period)) {
            if (has_last) {
                const int k = unwrap_step(last, x[j], period);
                if (k != 0) {
                    wraps += k;
                    offset = wrap_offset(wraps, period);
                }
            }
            last = x[j];
            has_last = true;
            y[j] = unwrapped_value(x[j], offset);
        } else {
            rejected += isfinite(x[j]) ? 1u : 0u;
            y[j] = CUDART_NAN_F;
        }
    }
    // Glitches are rare: one atomic per thread that saw any, none otherwise.
    if (rejected != 0u)
        atomicAdd(out_of_range, static_cast<unsigned long long>(rejected));
}

/*!
 * Unwraps in[0, n) into out[0, n) (may alias).
 * - segment_length: 0 for one stream, else the vector length; segment_phase is the
 *   position of in[0] within its vector.
 * - state_in: summary of everything before in[0]; the last tile writes the summary of
 *   everything up to in[n-1] to state_out (a different buffer).
 * - out_of_range: counts the finite samples that are not phases (is_phase_sample()).
 * - ALIGNED: in and out are 16-byte aligned, so full tiles move as float4.
 * Grid: one block per tile of tile_samples, at most max_launch_tiles. Tiles are taken
 * in launch order from a ticket counter, so a block only ever waits for blocks that are
 * already running (forward progress without co-residency assumptions).
 */
template <bool ALIGNED>
__global__ void __launch_bounds__(block_threads, blocks_per_sm)
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
                       unsigned int num_tiles,
                       unsigned long long* out_of_range)
{
    __shared__ unsigned int tile_ticket;
    __shared__ __align__(16) float warp_stage[warps_per_block][staged_floats_per_warp];
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

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    float* const stage = warp_stage[warp];
    const unsigned long long warp_first = first - lane * items_per_thread;

    float x[items_per_thread];
    load_samples<ALIGNED>(in, n, first, warp_first, full_tile, lane, stage, x);
    const unsigned int starts = vector_starts(segment_length, segment_phase, first, n);

    bool clean = starts == 0u;
#pragma unroll
    for (int j = 0; j < items_per_thread; ++j)
        clean &= is_phase_sample(x[j], period);
    // One path per block, so the barriers below are reached by all threads alike.
    clean = __syncthreads_and(clean);
    clean_steps<items_per_thread> steps;
    const unwrap_summary thread_total =
        clean ? fold_clean_samples(x, steps, period) : fold_samples(x, starts, period);

    const unwrap_summary thread_prefix =
        clean
            ? block_exclusive_scan(thread_total, warp_totals, clean_combine{ period })
            : block_exclusive_scan(thread_total, warp_totals, general_combine{ period });
    if (warp == 0)
        resolve_tile_prefix(ws,
                            tile,
                            num_tiles,
                            epoch,
                            period,
                            warp_totals,
                            state_in,
                            state_out,
                            tile_prefix);
    __syncthreads();

    // Replay this thread's samples from the state just before them.
    const unwrap_summary before = combine(tile_prefix, thread_prefix, period);
    float y[items_per_thread];
    if (clean)
        replay_clean(x, steps, before, period, y);
    else
        replay_general(x, starts, before, period, y, out_of_range);
    store_samples<ALIGNED>(out, n, first, warp_first, full_tile, lane, stage, y);
}

} // namespace
} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_KERNELS_CUH */
