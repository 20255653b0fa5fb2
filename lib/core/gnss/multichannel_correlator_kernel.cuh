/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_KERNEL_CUH
#define INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_KERNEL_CUH

/*
 * The correlation kernel of the multichannel correlator's CUDA backend and the host
 * rules that size its tables, apart from the backend's host code so that a test
 * (tests/engine/qa_multichannel_correlator_kernel.cc) can also compile it as host C++
 * (CUDADSP_GNSS_KERNEL_EMULATION: one thread per CUDA thread, warp shuffles and
 * barriers emulated) and check the kernel's logic on a machine without a GPU. The
 * emulation supplies the CUDA built-ins this file uses and
 * gnss_kernel_emulation::shared_memory() / shared_s8(); it runs the tile hand-off of
 * devices before sm_80 (block barriers, plain loads), so the cp.async, mbarrier and
 * bulk-copy instructions of the sm_80 and sm_90 hand-off are left to the GPU tests.
 *
 * Its parts, each included by the next: multichannel_correlator_kernel_geometry.cuh
 * (geometry, launch arguments, table sizing), multichannel_correlator_kernel_helpers.cuh
 * (device helpers), multichannel_correlator_kernel_lanes.cuh (a warp's steps); this
 * file holds the tile loads and correlate_kernel itself.
 */

#include "gnss/multichannel_correlator_kernel_lanes.cuh"
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace core {
namespace gnss_kernel {

#if GNSS_KERNEL_TILE_MBARRIERS
/*!
 * Tile \p t of the chunk into its buffer (t mod 2) by one warp, completing the
 * buffer's mbarrier \p tile_full[t mod 2]: one bulk copy when the tile lies wholly
 * inside the chunk at a 16-byte aligned address (sm_90), else 8-byte copies by the 32
 * lanes, samples outside the chunk left as they are.
 */
__device__ __forceinline__ void load_tile(const kernel_args& a,
                                          float2* tiles,
                                          std::uint64_t* tile_full,
                                          std::uint32_t t,
                                          std::uint32_t v_chunk_end,
                                          std::uint32_t lane)
{
    const std::uint32_t S = a.tile_samples;
    float2* dst = tiles + (t & 1) * S;
    const std::uint32_t v0 = t * S;
#if GNSS_KERNEL_BULK_TILES
    // The usual case by one bulk copy, where 8-byte copies take the warp about 800
    // instructions per tile of 4096 samples.
    const float2* src = a.samples + (v0 >= a.align ? v0 - a.align : 0u);
    if (v0 >= a.align && v0 + S <= v_chunk_end &&
        (reinterpret_cast<std::uintptr_t>(src) & 15u) == 0) {
        if (lane == 0) {
            const unsigned bytes = S * static_cast<unsigned>(sizeof(float2));
            mbarrier_arrive_expect(tile_full + (t & 1), bytes);
            // The warps' reads of the buffer (generic proxy) before the bulk copy's
            // writes (async proxy).
            asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
            copy_bulk(dst, src, bytes, tile_full + (t & 1));
        } else {
            (void)cuda::ptx::mbarrier_arrive(tile_full + (t & 1));
        }
        return;
    }
#endif
    for (std::uint32_t i = lane; i < S; i += warp_lanes) {
        const std::uint32_t v = v0 + i;
        if (v >= a.align && v < v_chunk_end)
            copy_async_8(dst + i, a.samples + (v - a.align));
    }
    copy_async_arrive(tile_full + (t & 1));
}
#else
//! Tile \p t of the chunk into its buffer (t mod 2) by the whole block, plain loads.
__device__ __forceinline__ void
load_tile(const kernel_args& a, float2* tiles, std::uint32_t t, std::uint32_t v_chunk_end)
{
    const std::uint32_t S = a.tile_samples;
    float2* dst = tiles + (t & 1) * S;
    const std::uint32_t v0 = t * S;
    for (std::uint32_t i = threadIdx.x; i < S; i += blockDim.x) {
        const std::uint32_t v = v0 + i;
        if (v >= a.align && v < v_chunk_end)
            dst[i] = __ldg(a.samples + (v - a.align));
    }
}
#endif

/*!
 * Correlation and tracking of every channel over one chunk of float2 samples.
 *
 * Launch: ceil(ranks / W) blocks of W = blockDim.x / 32 <= max_block_warps warps, one
 * channel (rank) each; dynamic shared memory shared_layout_bytes(tile_samples, W,
 * taps, table_stride), laid out as two tiles of tile_samples float2 (double buffer) |
 * tile_sync_bytes of tile mbarriers and done counts | W x 2 taps float64 epoch sums |
 * W warp_channel | W x table_stride bytes of code tables (SharedTables; table_stride
 * 0 otherwise). Tiles cover virtual indices [t S, (t + 1) S), virtual index = chunk
 * index + align, so tiles and groups start at absolute multiples of group_samples.
 * a.samples: 8-byte aligned, read only; the channel arrays (states, epoch_sums,
 * lane_partials: slot order) are read and written by the warp of that slot alone; the
 * records, correlations and record_counts (rank order) are written only; no array
 * overlaps another.
 *
 * All control flow is warp-uniform; lanes differ only in their samples, walkers and
 * partial sums. TG taps are walked per pass: one pass when taps <= TG (walkers and
 * partial sums stay in registers for the whole chunk), else ceil(taps / TG) passes per
 * piece of samples, with walkers rebuilt and partial sums kept in lane_partials
 * between pieces.
 *
 * A tap walker is the 64-bit code phase (gnss_nco.h fixed point) of the tap at the
 * lane's first sample of the next group, reduced to one period and offset by the
 * table's address, so that its high word addresses the table entry. It advances by
 * group_samples steps per group (reduced to one period) and is wrapped
 * (compare-and-subtract) before every run of at most wrap_groups groups; the tables
 * are stored extended so that nothing in between reads past them.
 */
template <int TG, bool SharedTables>
__global__ void __launch_bounds__(max_block_threads, min_blocks_per_sm)
    correlate_kernel(const kernel_args a)
{
#ifdef CUDADSP_GNSS_KERNEL_EMULATION
    unsigned char* const smem = gnss_kernel_emulation::shared_memory();
#else
    extern __shared__ __align__(16) unsigned char smem[];
#endif
    const std::uint32_t warps = blockDim.x / warp_lanes;
    const std::uint32_t warp = threadIdx.x / warp_lanes;
    const std::uint32_t lane = threadIdx.x % warp_lanes;
    const std::uint32_t C = 2 * a.taps;
    const std::uint32_t S = a.tile_samples;

    float2* tiles = reinterpret_cast<float2*>(smem);
    unsigned char* const tile_sync = smem + 2 * S * sizeof(float2);
    unsigned char* after_tiles = tile_sync + tile_sync_bytes;
    double* sums = reinterpret_cast<double*>(after_tiles) + warp * C;
    warp_channel& ch =
        reinterpret_cast<warp_channel*>(after_tiles + warps * C * sizeof(double))[warp];
    unsigned char* table_smem = after_tiles + warps * C * sizeof(double) +
                                warps * sizeof(warp_channel) + warp * a.table_stride;

    const std::uint32_t rank = blockIdx.x * warps + warp;
    const bool live = rank < a.ranks;
    const std::uint32_t v_chunk_end = a.align + a.nsamples;

    lane_correlator<TG, SharedTables> lc{ a,     ch, sums, lane, live ? a.order[rank] : 0,
                                          a.taps };
    begin_channel(lc, live, table_smem, v_chunk_end);
    lc.clear();
    if (ch.takes_samples && a.taps <= TG) {
        lc.rebase(ch.v_cur, 0);
        lc.load_partials(0);
    }

    const std::uint32_t ntiles = (v_chunk_end + S - 1) / S;
#if GNSS_KERNEL_TILE_MBARRIERS
    // tile_full[b]: the loads of the tile in buffer b; tile_read[b]: the warps that
    // have read its current tile; tile_done[b]: warps done with the tiles of buffer b
    // so far (tile t is done by all once it reaches (t / 2 + 1) warps).
    auto* const tile_full = reinterpret_cast<std::uint64_t*>(tile_sync);
    auto* const tile_read = reinterpret_cast<std::uint64_t*>(tile_sync + 16);
    auto* const tile_done = reinterpret_cast<unsigned*>(tile_sync + 32);
    if (threadIdx.x == 0) {
        cuda::ptx::mbarrier_init(tile_full, warp_lanes);
        cuda::ptx::mbarrier_init(tile_full + 1, warp_lanes);
        cuda::ptx::mbarrier_init(tile_read, warps * warp_lanes);
        cuda::ptx::mbarrier_init(tile_read + 1, warps * warp_lanes);
        tile_done[0] = 0;
        tile_done[1] = 0;
    }
    __syncthreads();
    if (warp == 0) {
        load_tile(a, tiles, tile_full, 0, v_chunk_end, lane);
        if (ntiles > 1)
            load_tile(a, tiles, tile_full, 1, v_chunk_end, lane);
    }
#else
    load_tile(a, tiles, 0, v_chunk_end);
#endif

    for (std::uint32_t t = 0; t < ntiles; ++t) {
#if GNSS_KERNEL_TILE_MBARRIERS
        mbarrier_wait(tile_full + (t & 1), (t >> 1) & 1u);
#else
        if (t + 1 < ntiles)
            load_tile(a, tiles, t + 1, v_chunk_end);
        __syncthreads();
#endif
        const std::uint32_t tile_v = t * S;
        correlate_tile(
            lc, rank, tiles + (t & 1) * S, tile_v, min(tile_v + S, v_chunk_end));
#if GNSS_KERNEL_TILE_MBARRIERS
        // The last warp done with the tile refills its buffer with tile t + 2.
        // Every lane arrives (release: its own reads of the buffer), then lane 0 counts.
        (void)cuda::ptx::mbarrier_arrive(tile_read + (t & 1));
        __syncwarp();
        unsigned last = 0;
        if (lane == 0) {
            last = atomicAdd(tile_done + (t & 1), 1u) == ((t >> 1) + 1) * warps - 1;
        }
        last = __shfl_sync(full_mask, last, 0);
        if (last && t + 2 < ntiles) {
            // Every warp arrived before its count: the phase is complete.
            mbarrier_wait(tile_read + (t & 1), (t >> 1) & 1u);
            load_tile(a, tiles, tile_full, t + 2, v_chunk_end, lane);
        }
#else
        __syncthreads(); // the tile's buffer is refilled two tiles on
#endif
    }

    if (live)
        save_channel(lc, rank);
}

} // namespace gnss_kernel
} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_KERNEL_CUH */
