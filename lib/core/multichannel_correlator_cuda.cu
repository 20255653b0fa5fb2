/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda_check.h"
#include "gnss_nco.h"
#include "gnss_tracking.h"
#include "multichannel_correlator_cuda.h"
#include "parallel_copy.h"
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

/*
 * The kernel's geometry.
 *
 * A warp walks its channel in groups of group_samples consecutive samples: lane l takes
 * the lane_samples adjacent samples group_start + lane_samples l + j, j < lane_samples.
 * Groups are anchored to absolute sample indices (a group starts at a multiple of
 * group_samples), so which lane sums which sample does not depend on how the stream is
 * cut into calls, and neither does any float rounding.
 */
constexpr int warp_lanes = 32;
constexpr int lane_samples = 2;
constexpr std::uint32_t group_samples = warp_lanes * lane_samples; // 64
constexpr unsigned full_mask = 0xffffffffu;

//! Taps one walk over the samples carries in registers; more taps take more passes.
constexpr int max_pass_taps = 8;
constexpr int max_block_warps = 8;
constexpr int max_block_threads = max_block_warps * warp_lanes;
/*!
 * Three blocks of 8 warps per multiprocessor: at most 80 registers per thread, which
 * the sample loop (about 62 with 3 taps) and the tracking rule at an epoch's end
 * (about 48 plus what stays live around it) both fit; 24 resident warps hide the
 * latency of a loop body with this much independent work.
 */
constexpr int min_blocks_per_sm = 3;

/*!
 * Float sums per lane are folded into the float64 epoch sums every flush_samples
 * samples counted from the epoch's start (and at its end): at most flush_samples /
 * group_samples * lane_samples = 128 float additions per lane and tap.
 */
constexpr std::uint32_t flush_samples = 4096;

/*!
 * Table entries a tap walker may run past the end of one code period between two
 * wraps (compare-and-subtract), on top of what the lanes' adjacent samples reach: the
 * code tables are stored extended by this much, periodically continued, so that the
 * inner loop needs no modulo.
 */
constexpr std::uint64_t walk_extension_entries = 64;

//! Largest input chunk one launch takes (virtual sample indices stay below 2^31).
constexpr std::size_t max_chunk_samples = std::size_t(1) << 22;
//! Record slots (channels x capacity) the device keeps for one chunk.
constexpr std::size_t max_record_slots = std::size_t(1) << 23;

static_assert(sizeof(gnss_epoch_record) % sizeof(std::uint32_t) == 0,
              "records are copied as 32-bit words");
static_assert(sizeof(std::complex<float>) == sizeof(float2),
              "correlations are float2 on the device");

//! What one launch of the correlation kernel needs.
struct kernel_args {
    const float2* samples;  //!< samples[i] is absolute sample first + i
    std::uint32_t nsamples; //!< in this chunk
    std::uint32_t align;    //!< first mod group_samples: virtual index = i + align
    std::uint64_t first;
    std::uint32_t tile_samples; //!< multiple of group_samples
    std::uint32_t ranks;        //!< channels, in ascending id
    const std::uint32_t* order; //!< rank -> slot
    std::uint32_t taps;
    const gnss_channel_params* params; //!< [slot]
    gnss_channel_state* states;        //!< [slot]
    const gnss_cuda_code* codes;       //!< [slot]
    const std::uint64_t* shifts;       //!< [slot * taps + k], in [0, period)
    const std::int8_t* tables;         //!< extended tables
    std::uint32_t table_stride;        //!< bytes per table in shared memory
    double* epoch_sums;                //!< [slot * 2 taps + c]
    float* lane_partials;              //!< [(slot * 2 taps + c) * 32 + lane]
    gnss_epoch_record* records;        //!< [rank * capacity + i]
    float2* correlations;              //!< [(rank * capacity + i) * taps + k]
    std::uint32_t* record_counts;      //!< [rank]
    std::uint32_t capacity;
    std::uint32_t* overflow; //!< set to 1 when a channel completes more epochs
};

// ---------------------------------------------------------------------------------
// Device helpers
// ---------------------------------------------------------------------------------

__device__ __forceinline__ std::uint64_t
add_mod(std::uint64_t a, std::uint64_t b, std::uint64_t period)
{
    const std::uint64_t s = a + b; // both below period < 2^63: no wrap
    return s >= period ? s - period : s;
}

__device__ __forceinline__ std::uint64_t
sub_mod(std::uint64_t a, std::uint64_t b, std::uint64_t period)
{
    return a >= b ? a - b : a + (period - b);
}

/*!
 * (x m) mod period for x < period < 2^63 and m < 128, by doubling: no 64-bit division,
 * which the compiler would make a called subroutine (and a register spill around it).
 */
__device__ __forceinline__ std::uint64_t
mul_mod(std::uint64_t x, std::uint32_t m, std::uint64_t period)
{
    std::uint64_t r = 0;
#pragma unroll
    for (int bit = 6; bit >= 0; --bit) {
        r = add_mod(r, r, period);
        if ((m >> bit) & 1u)
            r = add_mod(r, x, period);
    }
    return r;
}

//! +1.0f or -1.0f from a sign-extended +1 / -1 table entry, without a conversion.
__device__ __forceinline__ float chip_value(int entry)
{
    return __int_as_float((entry & int(0x80000000)) | 0x3f800000);
}

__device__ __forceinline__ void copy_async_8(void* shared_dst, const void* global_src)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(dst), "l"(global_src)
                 : "memory");
#else
    *static_cast<float2*>(shared_dst) = __ldg(static_cast<const float2*>(global_src));
#endif
}

__device__ __forceinline__ void copy_async_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

//! Waits until at most \p Pending committed groups of this thread are in flight.
template <int Pending>
__device__ __forceinline__ void copy_async_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
#endif
}

//! The NCO values of a new epoch, from lane 0 to the warp.
struct epoch_start {
    std::uint64_t code_phase;
    std::uint64_t code_step;
    std::uint32_t carrier_phase;
    std::uint32_t carrier_step;
    std::uint32_t epoch_samples;
};

/*!
 * The end of one epoch, by one thread: the shared rule (gnss_finish_epoch) on the
 * channel's state in device memory, the record and its correlations written when
 * \p record is not null. \p code_phase and \p carrier_phase are the NCOs after the
 * epoch's last sample. Out of line: it runs once per epoch, and its float64 work must
 * not weigh on the registers of the sample loop.
 */
__device__ __noinline__ epoch_start
finish_epoch(const gnss_channel_params* __restrict__ params,
             gnss_channel_state* __restrict__ state,
             const double* sums,
             std::uint64_t code_phase,
             std::uint32_t carrier_phase,
             gnss_epoch_record* record,
             float2* correlations,
             std::uint32_t taps)
{
    gnss_channel_state& s = *state;
    s.code_phase = code_phase;
    s.carrier_phase = carrier_phase;
    s.samples_done = s.epoch_samples;
    gnss_epoch_record dropped;
    gnss_finish_epoch(*params, s, sums, record ? *record : dropped);
    if (record)
        for (std::uint32_t k = 0; k < taps; ++k)
            correlations[k] = make_float2(static_cast<float>(sums[2 * k]),
                                          static_cast<float>(sums[2 * k + 1]));
    return { s.code_phase,
             s.code_step,
             s.carrier_phase,
             static_cast<std::uint32_t>(s.carrier_step),
             s.epoch_samples };
}

/*!
 * Reads a channel's table entry at the high word of a walker: a shared-memory address
 * (the walker is offset by the table's place in shared memory, so the load needs no
 * address arithmetic), or an index into the channel's table in global memory.
 */
template <bool SharedTables>
struct table_reader;

template <>
struct table_reader<true> {
    __device__ __forceinline__ int operator()(std::uint32_t address) const
    {
        int value;
        asm volatile("ld.shared.s8 %0, [%1];" : "=r"(value) : "r"(address));
        return value;
    }
};

template <>
struct table_reader<false> {
    const signed char* base;
    __device__ __forceinline__ int operator()(std::uint32_t index) const
    {
        return __ldg(base + index);
    }
};

/*!
 * The epoch in progress of a warp's channel, kept in shared memory rather than in
 * registers: the sample loop needs none of it. The NCOs hold base_phase (code, epoch
 * relative) and base_theta (carrier) at virtual index v_base, where base_done samples
 * of the epoch were done; v_cur is the next sample to take.
 */
struct warp_channel {
    std::uint64_t base_phase;
    std::uint64_t code_step;
    std::uint32_t v_cur, v_base, base_done, epoch_samples;
    std::uint32_t base_theta, carrier_step, records_done, takes_samples;
};

//! Shared memory of a block of \p warps warps (see correlate_kernel).
__host__ __device__ constexpr std::size_t shared_layout_bytes(std::size_t tile_samples,
                                                              std::size_t warps,
                                                              std::size_t taps,
                                                              std::size_t table_stride)
{
    return 2 * tile_samples * sizeof(float2) + warps * 2 * taps * sizeof(double) +
           warps * sizeof(warp_channel) + warps * table_stride;
}

/*!
 * Correlation and tracking of every channel over one chunk of float2 samples.
 *
 * Block: W = blockDim.x / 32 warps, one channel (rank) each. Shared memory: two tiles of
 * tile_samples float2 (cp.async double buffer) | W x 2 taps float64 epoch sums | W
 * warp_channel | W x table_stride bytes of code tables (SharedTables; table_stride 0
 * otherwise). Tiles cover virtual indices [t S, (t + 1) S), virtual index = chunk
 * index + align, so tiles and groups start at absolute multiples of group_samples.
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
    extern __shared__ __align__(16) unsigned char smem[];
    const std::uint32_t warps = blockDim.x / warp_lanes;
    const std::uint32_t warp = threadIdx.x / warp_lanes;
    const std::uint32_t lane = threadIdx.x % warp_lanes;
    const std::uint32_t T = a.taps;
    const std::uint32_t C = 2 * T;
    const std::uint32_t S = a.tile_samples;
    const std::uint32_t passes = (T + TG - 1) / TG;

    float2* tiles = reinterpret_cast<float2*>(smem);
    unsigned char* after_tiles = smem + 2 * S * sizeof(float2);
    double* sums = reinterpret_cast<double*>(after_tiles) + warp * C;
    warp_channel& ch =
        reinterpret_cast<warp_channel*>(after_tiles + warps * C * sizeof(double))[warp];
    unsigned char* table_smem = after_tiles + warps * C * sizeof(double) +
                                warps * sizeof(warp_channel) + warp * a.table_stride;

    const std::uint32_t rank = blockIdx.x * warps + warp;
    const bool live = rank < a.ranks;
    const std::uint32_t slot = live ? a.order[rank] : 0;
    const std::uint32_t v_chunk_end = a.align + a.nsamples;

    std::uint32_t entries = 1, wrap_groups = 1, table_address = 0;
    table_reader<SharedTables> table{};
    if (live) {
        const gnss_cuda_code code = a.codes[slot];
        entries = code.entries;
        wrap_groups = code.wrap_groups;
        if constexpr (SharedTables) {
            table_address =
                static_cast<std::uint32_t>(__cvta_generic_to_shared(table_smem));
            const auto* src =
                reinterpret_cast<const std::uint32_t*>(a.tables + code.table_offset);
            auto* dst = reinterpret_cast<std::uint32_t*>(table_smem);
            for (std::uint32_t i = lane; i < a.table_stride / 4; i += warp_lanes)
                dst[i] = __ldg(src + i);
        } else {
            table.base =
                reinterpret_cast<const signed char*>(a.tables + code.table_offset);
        }
        for (std::uint32_t c = lane; c < C; c += warp_lanes)
            sums[c] = a.epoch_sums[slot * C + c];
        if (lane == 0) {
            const gnss_channel_state& s = a.states[slot];
            const std::uint64_t next = s.epoch_start_sample + s.samples_done;
            ch.takes_samples = next < a.first + a.nsamples;
            ch.v_cur = ch.takes_samples
                           ? static_cast<std::uint32_t>(next - a.first) + a.align
                           : v_chunk_end;
            ch.v_base = ch.v_cur;
            ch.base_done = s.samples_done;
            ch.epoch_samples = s.epoch_samples;
            ch.base_phase = s.code_phase;
            ch.code_step = s.code_step;
            ch.base_theta = s.carrier_phase;
            ch.carrier_step = static_cast<std::uint32_t>(s.carrier_step);
            ch.records_done = 0;
        }
    } else if (lane == 0) {
        ch.takes_samples = 0;
        ch.v_cur = v_chunk_end;
    }
    __syncwarp();
    const std::uint32_t wrap_at = table_address + entries;
    const std::uint64_t period = static_cast<std::uint64_t>(entries) << 32;

    // Lane state of the current pass.
    std::uint64_t walker[TG];
    float acc_re[TG], acc_im[TG];
    std::uint64_t code_step = 1, walker_advance = 0;
    std::uint32_t theta = 0, theta_advance = 0;
    float rot_c = 1.0f, rot_s = 0.0f; // carrier rotation from a lane's sample 0 to 1
#pragma unroll
    for (int k = 0; k < TG; ++k) {
        walker[k] = 0;
        acc_re[k] = acc_im[k] = 0.0f;
    }

    // Walkers and carrier of the lanes for the group holding virtual index b, taps
    // [k0, k0 + TG) (taps past T walk with shift 0 and are never summed).
    auto rebase = [&](std::uint32_t b, std::uint32_t k0) {
        code_step = ch.code_step;
        const std::uint32_t carrier_step = ch.carrier_step;
        const std::uint32_t n = b - ch.v_base;
        const std::uint64_t pb =
            ch.base_phase + static_cast<std::uint64_t>(n) * code_step;
        const std::uint32_t thb = ch.base_theta + n * carrier_step;
        const std::uint64_t pin =
            (static_cast<std::uint64_t>(static_cast<std::uint32_t>(pb >> 32) % entries)
             << 32) |
            (pb & 0xffffffffull);
        const int d =
            static_cast<int>((b / group_samples) * group_samples + lane * lane_samples) -
            static_cast<int>(b);
        const std::uint64_t m =
            mul_mod(code_step, static_cast<std::uint32_t>(d < 0 ? -d : d), period);
        const std::uint64_t lane_phase =
            d >= 0 ? add_mod(pin, m, period) : sub_mod(pin, m, period);
#pragma unroll
        for (int k = 0; k < TG; ++k) {
            const std::uint32_t tap = k0 + k;
            const std::uint64_t shift = tap < T ? a.shifts[slot * T + tap] : 0;
            walker[k] = add_mod(lane_phase, shift, period) +
                        (static_cast<std::uint64_t>(table_address) << 32);
        }
        theta = thb + static_cast<std::uint32_t>(d) * carrier_step;
        walker_advance = mul_mod(code_step, group_samples, period);
        theta_advance = group_samples * carrier_step;
        gnss_carrier_cos_sin(carrier_step, rot_c, rot_s);
    };

    // One group of a lane: samples x.xy and x.zw; with Masked, a sample is summed only
    // where its on flag is set.
    auto group = [&](const float4& x, auto masked, bool on0, bool on1) {
        constexpr bool Masked = decltype(masked)::value;
        float c0, s0;
        gnss_carrier_cos_sin(theta, c0, s0);
        // exp(-j (theta + step)) = (c0 - j s0)(rot_c - j rot_s): both factors from the
        // integer phases by the shared rule.
        const float c1 = fmaf(c0, rot_c, -(s0 * rot_s));
        const float s1 = fmaf(s0, rot_c, c0 * rot_s);
        // x exp(-j theta) = (xr + j xi)(c - j s)
        const float wr0 = fmaf(x.x, c0, x.y * s0);
        const float wi0 = fmaf(x.y, c0, -(x.x * s0));
        const float wr1 = fmaf(x.z, c1, x.w * s1);
        const float wi1 = fmaf(x.w, c1, -(x.z * s1));
#pragma unroll
        for (int k = 0; k < TG; ++k) {
            const std::uint64_t w1 = walker[k] + code_step;
            const float chip0 =
                chip_value(table(static_cast<std::uint32_t>(walker[k] >> 32)));
            const float chip1 = chip_value(table(static_cast<std::uint32_t>(w1 >> 32)));
            if (!Masked || on0) {
                acc_re[k] = fmaf(wr0, chip0, acc_re[k]);
                acc_im[k] = fmaf(wi0, chip0, acc_im[k]);
            }
            if (!Masked || on1) {
                acc_re[k] = fmaf(wr1, chip1, acc_re[k]);
                acc_im[k] = fmaf(wi1, chip1, acc_im[k]);
            }
        }
    };
    auto advance = [&]() {
#pragma unroll
        for (int k = 0; k < TG; ++k)
            walker[k] += walker_advance;
        theta += theta_advance;
    };
    auto wrap_walkers = [&]() {
#pragma unroll
        for (int k = 0; k < TG; ++k)
            if (static_cast<std::uint32_t>(walker[k] >> 32) >= wrap_at)
                walker[k] -= period;
    };

    // Sums the samples at virtual indices [lo, hi) of the tile that starts at virtual
    // index tile_v; the walkers are at the group holding lo.
    auto walk = [&](const float2* tile,
                    std::uint32_t tile_v,
                    std::uint32_t lo,
                    std::uint32_t hi) {
        std::uint32_t g = lo / group_samples;
        const std::uint32_t g_stop = (hi + group_samples - 1) / group_samples;
        const float4* x = reinterpret_cast<const float4*>(tile) +
                          (g - tile_v / group_samples) * warp_lanes + lane;
        while (g < g_stop) {
            wrap_walkers();
            const std::uint32_t gs = g * group_samples;
            if (gs < lo || gs + group_samples > hi) {
                const std::uint32_t v0 = gs + lane * lane_samples;
                group(*x,
                      std::true_type{},
                      v0 >= lo && v0 < hi,
                      v0 + 1 >= lo && v0 + 1 < hi);
                // A group cut by hi goes on in the next piece with these walkers.
                if (gs + group_samples <= hi)
                    advance();
                ++g;
                x += warp_lanes;
                continue;
            }
            const std::uint32_t full_stop = min(hi / group_samples, g + wrap_groups);
#pragma unroll 2
            for (; g < full_stop; ++g) {
                group(*x, std::false_type{}, true, true);
                advance();
                x += warp_lanes;
            }
        }
    };

    // Folds the lanes' float sums of taps [k0, k0 + TG) into the float64 epoch sums:
    // a butterfly leaves every total in every lane; lane c keeps component c.
    auto flush = [&](std::uint32_t k0) {
        float mine = 0.0f;
#pragma unroll
        for (int k = 0; k < TG; ++k) {
            float re = acc_re[k], im = acc_im[k];
#pragma unroll
            for (int o = warp_lanes / 2; o > 0; o /= 2) {
                re += __shfl_xor_sync(full_mask, re, o);
                im += __shfl_xor_sync(full_mask, im, o);
            }
            if (lane == 2 * k)
                mine = re;
            if (lane == 2 * k + 1)
                mine = im;
            acc_re[k] = acc_im[k] = 0.0f;
        }
        const std::uint32_t valid = min(static_cast<std::uint32_t>(TG), T - k0);
        if (lane < 2 * valid)
            sums[2 * k0 + lane] += static_cast<double>(mine);
        __syncwarp();
    };

    auto load_partials = [&](std::uint32_t k0) {
#pragma unroll
        for (int k = 0; k < TG; ++k) {
            const std::uint32_t tap = k0 + k;
            if (tap < T) {
                acc_re[k] = a.lane_partials[(slot * C + 2 * tap) * warp_lanes + lane];
                acc_im[k] = a.lane_partials[(slot * C + 2 * tap + 1) * warp_lanes + lane];
            } else {
                acc_re[k] = acc_im[k] = 0.0f;
            }
        }
    };
    auto store_partials = [&](std::uint32_t k0) {
#pragma unroll
        for (int k = 0; k < TG; ++k) {
            const std::uint32_t tap = k0 + k;
            if (tap < T) {
                a.lane_partials[(slot * C + 2 * tap) * warp_lanes + lane] = acc_re[k];
                a.lane_partials[(slot * C + 2 * tap + 1) * warp_lanes + lane] = acc_im[k];
            }
        }
    };

    if (ch.takes_samples && passes == 1) {
        rebase(ch.v_cur, 0);
        load_partials(0);
    }

    const std::uint32_t ntiles = (v_chunk_end + S - 1) / S;
    auto load_tile = [&](std::uint32_t t) {
        float2* dst = tiles + (t & 1) * S;
        const std::uint32_t v0 = t * S;
        for (std::uint32_t i = threadIdx.x; i < S; i += blockDim.x) {
            const std::uint32_t v = v0 + i;
            if (v >= a.align && v < v_chunk_end)
                copy_async_8(dst + i, a.samples + (v - a.align));
        }
        copy_async_commit();
    };
    load_tile(0);

    for (std::uint32_t t = 0; t < ntiles; ++t) {
        if (t + 1 < ntiles) {
            load_tile(t + 1);
            copy_async_wait<1>();
        } else {
            copy_async_wait<0>();
        }
        __syncthreads();
        const float2* tile = tiles + (t & 1) * S;
        const std::uint32_t tile_v = t * S;
        const std::uint32_t tile_end = min(tile_v + S, v_chunk_end);
        for (;;) {
            const std::uint32_t v_cur = ch.v_cur;
            if (v_cur >= tile_end)
                break;
            // The piece [v_cur, e): up to the epoch's end, the next fold of the float
            // sums (every flush_samples from the epoch's start) or the tile's end.
            const std::uint32_t done = ch.base_done + (v_cur - ch.v_base);
            const std::uint32_t v_epoch_end = v_cur + (ch.epoch_samples - done);
            const std::uint32_t v_flush =
                v_cur + ((done / flush_samples + 1) * flush_samples - done);
            const std::uint32_t e = min(min(v_epoch_end, v_flush), tile_end);
            const bool folds = e == v_epoch_end || e == v_flush;
            for (std::uint32_t pass = 0; pass < passes; ++pass) {
                const std::uint32_t k0 = pass * TG;
                if (passes > 1) {
                    rebase(v_cur, k0);
                    load_partials(k0);
                }
                walk(tile, tile_v, v_cur, e);
                if (folds)
                    flush(k0);
                if (passes > 1)
                    store_partials(k0);
            }
            __syncwarp();
            if (e != v_epoch_end) {
                if (lane == 0)
                    ch.v_cur = e;
                __syncwarp();
                continue;
            }
            // The epoch's end: the loops by lane 0, then the warp goes on with the new
            // NCO rates from e.
            if (lane == 0) {
                const std::uint32_t n = ch.epoch_samples - ch.base_done;
                const std::uint64_t code_end =
                    ch.base_phase + static_cast<std::uint64_t>(n) * ch.code_step;
                const std::uint32_t theta_end = ch.base_theta + n * ch.carrier_step;
                gnss_epoch_record* record = nullptr;
                float2* correlations = nullptr;
                if (ch.records_done < a.capacity) {
                    const std::size_t i =
                        static_cast<std::size_t>(rank) * a.capacity + ch.records_done;
                    record = a.records + i;
                    correlations = a.correlations + i * T;
                } else {
                    *a.overflow = 1;
                }
                const epoch_start next = finish_epoch(a.params + slot,
                                                      a.states + slot,
                                                      sums,
                                                      code_end,
                                                      theta_end,
                                                      record,
                                                      correlations,
                                                      T);
                ch.records_done += 1;
                ch.base_phase = next.code_phase;
                ch.code_step = next.code_step;
                ch.base_theta = next.carrier_phase;
                ch.carrier_step = next.carrier_step;
                ch.epoch_samples = next.epoch_samples;
                ch.v_base = e;
                ch.base_done = 0;
                ch.v_cur = e;
            }
            __syncwarp();
            for (std::uint32_t c = lane; c < C; c += warp_lanes)
                sums[c] = 0.0;
            __syncwarp();
            // Also at the chunk's end, where it is not needed: the walkers are then
            // rebuilt on every path out of the epoch's end, and nothing of the sample
            // loop stays live (in registers) across the tracking rule.
            if (passes == 1)
                rebase(e, 0);
        }
        __syncthreads(); // the tile's buffer is refilled two tiles on
    }

    if (!live)
        return;
    if (ch.takes_samples) {
        // The epoch in progress goes on in the next call from these NCOs and sums.
        if (passes == 1)
            store_partials(0);
        if (lane == 0) {
            gnss_channel_state& s = a.states[slot];
            const std::uint32_t n = ch.v_cur - ch.v_base;
            s.code_phase = ch.base_phase + static_cast<std::uint64_t>(n) * ch.code_step;
            s.carrier_phase = ch.base_theta + n * ch.carrier_step;
            s.samples_done = ch.base_done + n;
        }
        for (std::uint32_t c = lane; c < C; c += warp_lanes)
            a.epoch_sums[slot * C + c] = sums[c];
    }
    if (lane == 0)
        a.record_counts[rank] = min(ch.records_done, a.capacity);
}

// ---------------------------------------------------------------------------------
// Housekeeping kernels
// ---------------------------------------------------------------------------------

//! Integer I/Q pairs to float2, as they are (no scaling).
template <typename Pair>
__global__ void
to_float2_kernel(const Pair* __restrict__ in, float2* __restrict__ out, std::size_t n)
{
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const Pair p = in[i];
        out[i] = make_float2(static_cast<float>(p.x), static_cast<float>(p.y));
    }
}

/*!
 * Installs staged channels: parameters, state and tap shifts into their slots, the
 * carried sums zeroed. One block per staged channel.
 */
__global__ void install_channels_kernel(const std::uint32_t* __restrict__ slots,
                                        const gnss_channel_params* __restrict__ params,
                                        const gnss_channel_state* __restrict__ states,
                                        const std::uint64_t* __restrict__ shifts,
                                        std::uint32_t taps,
                                        gnss_channel_params* __restrict__ d_params,
                                        gnss_channel_state* __restrict__ d_states,
                                        std::uint64_t* __restrict__ d_shifts,
                                        double* __restrict__ epoch_sums,
                                        float* __restrict__ lane_partials)
{
    const std::uint32_t i = blockIdx.x;
    const std::uint32_t slot = slots[i];
    const std::uint32_t C = 2 * taps;
    if (threadIdx.x == 0) {
        d_params[slot] = params[i];
        d_states[slot] = states[i];
    }
    for (std::uint32_t k = threadIdx.x; k < taps; k += blockDim.x)
        d_shifts[std::size_t(slot) * taps + k] = shifts[std::size_t(i) * taps + k];
    for (std::uint32_t c = threadIdx.x; c < C; c += blockDim.x)
        epoch_sums[std::size_t(slot) * C + c] = 0.0;
    for (std::uint32_t c = threadIdx.x; c < C * warp_lanes; c += blockDim.x)
        lane_partials[std::size_t(slot) * C * warp_lanes + c] = 0.0f;
}

/*!
 * Gathers the records of every rank into one array in rank order (offsets from an
 * exclusive scan of the counts); one warp per rank. \p total receives the sum.
 */
__global__ void gather_records_kernel(const gnss_epoch_record* __restrict__ records,
                                      const float2* __restrict__ correlations,
                                      const std::uint32_t* __restrict__ counts,
                                      const std::uint32_t* __restrict__ offsets,
                                      std::uint32_t ranks,
                                      std::uint32_t capacity,
                                      std::uint32_t taps,
                                      gnss_epoch_record* __restrict__ out_records,
                                      float2* __restrict__ out_correlations,
                                      std::uint32_t* __restrict__ total)
{
    constexpr std::uint32_t words = sizeof(gnss_epoch_record) / sizeof(std::uint32_t);
    const std::uint32_t rank = (blockIdx.x * blockDim.x + threadIdx.x) / warp_lanes;
    const std::uint32_t lane = threadIdx.x % warp_lanes;
    if (rank >= ranks)
        return;
    const std::uint32_t count = counts[rank];
    const std::uint32_t offset = offsets[rank];
    const auto* src = reinterpret_cast<const std::uint32_t*>(records) +
                      std::size_t(rank) * capacity * words;
    auto* dst =
        reinterpret_cast<std::uint32_t*>(out_records) + std::size_t(offset) * words;
    for (std::uint32_t w = lane; w < count * words; w += warp_lanes)
        dst[w] = src[w];
    const float2* csrc = correlations + std::size_t(rank) * capacity * taps;
    float2* cdst = out_correlations + std::size_t(offset) * taps;
    for (std::uint32_t i = lane; i < count * taps; i += warp_lanes)
        cdst[i] = csrc[i];
    if (rank == ranks - 1 && lane == 0)
        *total = offset + count;
}

using correlate_fn = void (*)(kernel_args);

template <bool SharedTables>
correlate_fn correlate_kernel_for(std::size_t pass_taps)
{
    switch (pass_taps) {
    case 1:
        return correlate_kernel<1, SharedTables>;
    case 2:
        return correlate_kernel<2, SharedTables>;
    case 3:
        return correlate_kernel<3, SharedTables>;
    case 4:
        return correlate_kernel<4, SharedTables>;
    case 5:
        return correlate_kernel<5, SharedTables>;
    case 6:
        return correlate_kernel<6, SharedTables>;
    case 7:
        return correlate_kernel<7, SharedTables>;
    default:
        return correlate_kernel<8, SharedTables>;
    }
}

correlate_fn correlate_kernel_for(std::size_t taps, bool shared_tables)
{
    const std::size_t pass_taps = std::min<std::size_t>(taps, max_pass_taps);
    return shared_tables ? correlate_kernel_for<true>(pass_taps)
                         : correlate_kernel_for<false>(pass_taps);
}

std::size_t round_up(std::size_t x, std::size_t m) { return (x + m - 1) / m * m; }

//! Table bytes a channel needs: one period plus what its walkers reach past it.
std::size_t extended_table_length(std::uint32_t entries, std::uint64_t max_step)
{
    const std::uint64_t adjacent = (lane_samples - 1) * max_step;
    const std::uint64_t reach =
        walk_extension_entries + ((adjacent + 0xffffffffull) >> 32) + 1;
    return round_up(static_cast<std::size_t>(entries + reach), 16);
}

/*!
 * Groups between two walker wraps for a channel whose code step never exceeds
 * \p max_step: r with (r - 1) advances within walk_extension_entries and r advances
 * within one period, where an advance is group_samples steps reduced to one period.
 * When a group spans a period or more the reduced advance is not bounded by max_step,
 * and every group is wrapped (r = 1).
 */
std::uint32_t wrap_groups_for(std::uint32_t entries, std::uint64_t max_step)
{
    const std::uint64_t period = static_cast<std::uint64_t>(entries) << 32;
    const unsigned __int128 span =
        static_cast<unsigned __int128>(max_step) * group_samples;
    if (span >= period || span == 0)
        return 1;
    const std::uint64_t advance = static_cast<std::uint64_t>(span);
    const std::uint64_t by_extension = (walk_extension_entries << 32) / advance + 1;
    const std::uint64_t by_period = period / advance;
    return static_cast<std::uint32_t>(std::max<std::uint64_t>(
        1, std::min<std::uint64_t>({ by_extension, by_period, 1u << 20 })));
}

double elapsed_ms(const cuda_event& from, const cuda_event& to)
{
    return static_cast<double>(to.elapsed_ms_since(from));
}

template <typename T>
void grow(device_buffer<T>& buffer, std::size_t count)
{
    if (buffer.size() < count)
        buffer = device_buffer<T>(std::max(count, buffer.size() + buffer.size() / 2));
}

template <typename T>
void grow(pinned_buffer<T>& buffer, std::size_t count)
{
    if (buffer.size() < count)
        buffer = pinned_buffer<T>(std::max(count, buffer.size() + buffer.size() / 2));
}

//! Replaces \p buffer by one of \p count elements that starts with its contents.
template <typename T>
void regrow_keeping(device_buffer<T>& buffer, std::size_t count, cudaStream_t stream)
{
    device_buffer<T> bigger(count);
    if (buffer.size())
        CUDADSP_CUDA(cudaMemcpyAsync(bigger.get(),
                                     buffer.get(),
                                     buffer.bytes(),
                                     cudaMemcpyDeviceToDevice,
                                     stream));
    // The old buffer is freed below: cudaFree waits for the copy.
    buffer = std::move(bigger);
}

//! Appends \p count elements to \p out, on several threads when the block is large.
template <typename T, typename U>
void append(std::vector<T>& out, const U* src, std::size_t count)
{
    static_assert(sizeof(T) == sizeof(U), "same layout");
    if (count == 0)
        return;
    const std::size_t old = out.size();
    const std::size_t bytes = count * sizeof(T);
    if (bytes < (std::size_t(4) << 20)) {
        const T* first = reinterpret_cast<const T*>(src);
        out.insert(out.end(), first, first + count);
        return;
    }
    out.resize(old + count);
    parallel_memcpy(out.data() + old, src, bytes);
}

} // namespace

// ------------------------------------------------------------------------------------
// Engine
// ------------------------------------------------------------------------------------

multichannel_correlator_cuda::multichannel_correlator_cuda(
    const multichannel_correlator_config& config, const device_selection& device)
    : multichannel_correlator(config, device), d_taps(config.taps)
{
    device_guard guard(d_device.cuda_ordinal);
    d_stream = std::make_unique<cuda_stream>();
    d_upload_stream = std::make_unique<cuda_stream>();
    d_flags = device_buffer<std::uint32_t>(2);
    d_host_flags = pinned_buffer<std::uint32_t>(2);
}

multichannel_correlator_cuda::~multichannel_correlator_cuda()
{
    try {
        device_guard guard(d_device.cuda_ordinal);
        d_stream.reset();
        d_upload_stream.reset();
        // Device and pinned buffers release themselves (never throwing).
    } catch (...) {
        // Destructors must not throw; the device is already in an error state.
    }
}

std::uint32_t multichannel_correlator_cuda::allocate_slot()
{
    if (!d_free_slots.empty()) {
        // Lowest free slot first keeps the used range compact.
        auto it = std::min_element(d_free_slots.begin(), d_free_slots.end());
        const std::uint32_t slot = *it;
        d_free_slots.erase(it);
        return slot;
    }
    d_slots.emplace_back();
    return static_cast<std::uint32_t>(d_slots.size() - 1);
}

void multichannel_correlator_cuda::stage_channel(std::uint32_t slot,
                                                 const gnss_channel_setup& setup)
{
    const gnss_channel_params& p = setup.params;
    channel_slot& s = d_slots[slot];
    s.id = p.channel_id;
    s.used = true;
    if (s.code != setup.code)
        d_tables_dirty = true;
    s.code = setup.code;
    s.entries = p.entries;
    s.max_step = std::max(p.code_step_max, setup.state.code_step);
    const std::uint64_t shortest = (p.epoch_length + s.max_step - 1) / s.max_step;
    s.epoch_samples_min = shortest > 1 ? shortest - 1 : 1;
    d_launch_dirty = true;

    // A slot staged twice before an upload keeps its latest setup.
    std::size_t i = 0;
    while (i < d_staged_slots.size() && d_staged_slots[i] != slot)
        ++i;
    if (i == d_staged_slots.size()) {
        d_staged_slots.push_back(slot);
        d_staged_params.push_back(p);
        d_staged_states.push_back(setup.state);
        d_staged_shifts.resize(d_staged_shifts.size() + d_taps);
    } else {
        d_staged_params[i] = p;
        d_staged_states[i] = setup.state;
    }
    // Tap shifts reduced to one period, [0, L 2^32): adding a whole period does not
    // change the entry (gnss_code_entry), and the walkers then start inside the table.
    const std::uint64_t period = static_cast<std::uint64_t>(p.entries) << 32;
    for (std::size_t k = 0; k < d_taps; ++k) {
        const std::int64_t shift = setup.tap_shifts[k];
        const std::int64_t m = static_cast<std::int64_t>(period);
        std::int64_t r = shift % m;
        if (r < 0)
            r += m;
        d_staged_shifts[i * d_taps + k] = static_cast<std::uint64_t>(r);
    }
}

void multichannel_correlator_cuda::do_add_channel(const gnss_channel_setup& setup)
{
    const std::uint32_t slot = allocate_slot();
    stage_channel(slot, setup);
    d_slot_of_id[setup.params.channel_id] = slot;
    d_order_dirty = true;
}

void multichannel_correlator_cuda::do_reinit_channel(const gnss_channel_setup& setup)
{
    stage_channel(d_slot_of_id.at(setup.params.channel_id), setup);
}

void multichannel_correlator_cuda::do_remove_channel(std::uint32_t id)
{
    const auto it = d_slot_of_id.find(id);
    channel_slot& s = d_slots[it->second];
    s.used = false;
    s.code.reset();
    d_free_slots.push_back(it->second);
    // Its staged setup, if any, is harmless: a free slot is in no rank.
    d_slot_of_id.erase(it);
    d_order_dirty = true;
    d_launch_dirty = true;
}

void multichannel_correlator_cuda::ensure_slot_capacity(std::size_t slots)
{
    if (slots <= d_slot_capacity)
        return;
    const std::size_t capacity = std::max(slots, d_slot_capacity + d_slot_capacity / 2);
    const std::size_t C = 2 * d_taps;
    cudaStream_t stream = d_stream->get();
    regrow_keeping(d_params, capacity, stream);
    regrow_keeping(d_states, capacity, stream);
    regrow_keeping(d_shifts, capacity * d_taps, stream);
    regrow_keeping(d_epoch_sums, capacity * C, stream);
    regrow_keeping(d_lane_partials, capacity * C * warp_lanes, stream);
    d_slot_capacity = capacity;
}

void multichannel_correlator_cuda::rebuild_tables()
{
    // Distinct tables among the channels in use, each extended for the fastest walker
    // of any channel, 16-byte aligned so that the kernel copies them in words.
    std::uint64_t max_step = 1;
    for (const auto& s : d_slots)
        if (s.used)
            max_step = std::max(max_step, s.max_step);
    std::map<const std::vector<std::int8_t>*, std::uint32_t> offsets;
    std::vector<std::int8_t> pool;
    std::size_t stride = 16;
    for (const auto& s : d_slots) {
        if (!s.used || offsets.count(s.code.get()))
            continue;
        const std::vector<std::int8_t>& code = *s.code;
        const std::size_t length = extended_table_length(s.entries, max_step);
        if (pool.size() + length > std::numeric_limits<std::uint32_t>::max())
            throw std::invalid_argument(
                "code: the code tables of all channels exceed 4 GB on the device");
        offsets[s.code.get()] = static_cast<std::uint32_t>(pool.size());
        for (std::size_t i = 0; i < length; ++i)
            pool.push_back(code[i % code.size()]);
        stride = std::max(stride, length);
    }
    d_host_codes.assign(d_slots.size(), gnss_cuda_code{ 0, 1, 1, 0 });
    for (std::size_t i = 0; i < d_slots.size(); ++i) {
        const auto& s = d_slots[i];
        if (!s.used)
            continue;
        d_host_codes[i] = gnss_cuda_code{
            offsets.at(s.code.get()), s.entries, wrap_groups_for(s.entries, s.max_step), 0
        };
    }
    d_table_stride = stride;
    d_tables = device_buffer<std::int8_t>(std::max<std::size_t>(pool.size(), 16));
    if (!pool.empty())
        CUDADSP_CUDA(cudaMemcpyAsync(d_tables.get(),
                                     pool.data(),
                                     pool.size(),
                                     cudaMemcpyHostToDevice,
                                     d_stream->get()));
    d_codes =
        device_buffer<gnss_cuda_code>(std::max<std::size_t>(d_host_codes.size(), 1));
    if (!d_host_codes.empty())
        CUDADSP_CUDA(cudaMemcpyAsync(d_codes.get(),
                                     d_host_codes.data(),
                                     d_host_codes.size() * sizeof(gnss_cuda_code),
                                     cudaMemcpyHostToDevice,
                                     d_stream->get()));
    // The host copies above read pageable vectors: cudaMemcpyAsync returns once they are
    // staged, so the vectors may go.
    d_tables_dirty = false;
}

void multichannel_correlator_cuda::apply_channel_changes()
{
    const bool changed = !d_staged_slots.empty() || d_order_dirty;
    if (!changed && !d_tables_dirty)
        return;
    cudaStream_t stream = d_stream->get();
    ensure_slot_capacity(d_slots.size());
    if (!d_staged_slots.empty()) {
        const std::size_t n = d_staged_slots.size();
        grow(d_upload_slots, n);
        grow(d_upload_params, n);
        grow(d_upload_states, n);
        grow(d_upload_shifts, n * d_taps);
        CUDADSP_CUDA(cudaMemcpyAsync(d_upload_slots.get(),
                                     d_staged_slots.data(),
                                     n * sizeof(std::uint32_t),
                                     cudaMemcpyHostToDevice,
                                     stream));
        CUDADSP_CUDA(cudaMemcpyAsync(d_upload_params.get(),
                                     d_staged_params.data(),
                                     n * sizeof(gnss_channel_params),
                                     cudaMemcpyHostToDevice,
                                     stream));
        CUDADSP_CUDA(cudaMemcpyAsync(d_upload_states.get(),
                                     d_staged_states.data(),
                                     n * sizeof(gnss_channel_state),
                                     cudaMemcpyHostToDevice,
                                     stream));
        CUDADSP_CUDA(cudaMemcpyAsync(d_upload_shifts.get(),
                                     d_staged_shifts.data(),
                                     n * d_taps * sizeof(std::uint64_t),
                                     cudaMemcpyHostToDevice,
                                     stream));
        install_channels_kernel<<<static_cast<unsigned>(n), 128, 0, stream>>>(
            d_upload_slots.get(),
            d_upload_params.get(),
            d_upload_states.get(),
            d_upload_shifts.get(),
            static_cast<std::uint32_t>(d_taps),
            d_params.get(),
            d_states.get(),
            d_shifts.get(),
            d_epoch_sums.get(),
            d_lane_partials.get());
        CUDADSP_CUDA_LAUNCHED("install_channels_kernel");
        d_staged_slots.clear();
        d_staged_params.clear();
        d_staged_states.clear();
        d_staged_shifts.clear();
    }
    // Wrap counts and table places are per slot and follow every change of channels.
    rebuild_tables();
    if (d_order_dirty) {
        std::vector<std::uint32_t> order;
        order.reserve(d_slot_of_id.size());
        for (const auto& [id, slot] : d_slot_of_id)
            order.push_back(slot);
        d_ranks = order.size();
        d_order = device_buffer<std::uint32_t>(std::max<std::size_t>(d_ranks, 1));
        if (d_ranks)
            CUDADSP_CUDA(cudaMemcpyAsync(d_order.get(),
                                         order.data(),
                                         d_ranks * sizeof(std::uint32_t),
                                         cudaMemcpyHostToDevice,
                                         stream));
        d_order_dirty = false;
    }
    // The staged vectors above are pageable: finish their copies before they change.
    d_stream->synchronize();
}

void multichannel_correlator_cuda::choose_launch_shape()
{
    // The largest block (most channels sharing each tile) whose shared memory leaves
    // the most warps resident per multiprocessor; tables move to global memory only
    // when even one channel per block cannot hold its table in shared memory.
    int optin = 0;
    CUDADSP_CUDA(cudaDeviceGetAttribute(
        &optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, d_device.cuda_ordinal));
    launch_shape best;
    int best_warps = -1;
    for (const bool shared_tables : { true, false }) {
        for (const std::size_t warps : { 8, 4, 2, 1 }) {
            for (const std::size_t tile : { 2048, 1024, 512 }) {
                const std::size_t bytes = shared_layout_bytes(
                    tile, warps, d_taps, shared_tables ? d_table_stride : 0);
                if (bytes > static_cast<std::size_t>(optin))
                    continue;
                const correlate_fn kernel = correlate_kernel_for(d_taps, shared_tables);
                CUDADSP_CUDA(
                    cudaFuncSetAttribute(kernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(bytes)));
                int blocks = 0;
                CUDADSP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &blocks, kernel, static_cast<int>(warps * warp_lanes), bytes));
                const int resident = blocks * static_cast<int>(warps);
                if (resident > best_warps) {
                    best_warps = resident;
                    best = launch_shape{ warps, tile, bytes, shared_tables };
                }
            }
        }
        // Global tables only as the last resort.
        if (best_warps > 0)
            break;
    }
    if (best_warps <= 0)
        throw cuda_error("multichannel correlator: no launch configuration fits the "
                         "device's shared memory (" +
                         std::to_string(optin) + " bytes per block)");
    d_launch = best;
    d_launch_dirty = false;
}

std::size_t multichannel_correlator_cuda::record_capacity(std::size_t chunk) const
{
    std::uint64_t shortest = std::numeric_limits<std::uint64_t>::max();
    for (const auto& [id, slot] : d_slot_of_id)
        shortest = std::min(shortest, d_slots[slot].epoch_samples_min);
    // The first epoch of a chunk may end after one sample, every later one takes at
    // least `shortest` samples.
    return static_cast<std::size_t>(chunk / shortest) + 2;
}

std::size_t multichannel_correlator_cuda::chunk_samples_for(std::size_t nsamples) const
{
    std::size_t chunk = std::min(nsamples, max_chunk_samples);
    while (chunk > group_samples && d_ranks * record_capacity(chunk) > max_record_slots)
        chunk /= 2;
    return chunk;
}

void multichannel_correlator_cuda::do_process(const void* samples,
                                              std::size_t nsamples,
                                              gnss_correlator_results& results)
{
    run(samples, false, nsamples, results);
}

void multichannel_correlator_cuda::process_device(const void* d_samples,
                                                  std::size_t nsamples,
                                                  gnss_correlator_results& results)
{
    if (!results.records.empty() && results.taps != d_config.taps)
        throw std::invalid_argument(
            "results: holds records of " + std::to_string(results.taps) +
            " taps; this engine has " + std::to_string(d_config.taps));
    results.taps = d_config.taps;
    if (nsamples == 0)
        return;
    if (d_samples == nullptr)
        throw std::invalid_argument("d_samples: must not be null");
    run(d_samples, true, nsamples, results);
    d_samples_processed += nsamples;
}

void multichannel_correlator_cuda::run(const void* samples,
                                       bool on_device,
                                       std::size_t nsamples,
                                       gnss_correlator_results& results)
{
    using clock = std::chrono::steady_clock;
    const auto wall_start = clock::now();
    device_guard guard(d_device.cuda_ordinal);
    d_timing = gnss_cuda_timing{};
    apply_channel_changes();
    if (d_ranks == 0)
        return; // nothing to correlate; the caller counts the samples
    if (d_launch_dirty)
        choose_launch_shape();

    const gnss_sample_format format = d_config.input_format;
    const std::size_t in_bytes = bytes_per_sample(format);
    const bool is_float = format == gnss_sample_format::cf32;
    const std::size_t T = d_taps;
    const std::size_t chunk = chunk_samples_for(nsamples);
    const std::size_t nchunks = (nsamples + chunk - 1) / chunk;
    const std::size_t capacity = record_capacity(chunk);
    const std::size_t ranks = d_ranks;
    cudaStream_t stream = d_stream->get();
    cudaStream_t upload = d_upload_stream->get();

    // Buffers for this call's shape: host input goes through two device buffers (the
    // upload of one chunk overlaps the kernel of the other), pageable host input
    // through two pinned staging buffers first.
    const bool direct_input = on_device && is_float;
    const bool host_pinned = !on_device && is_pinned_host_pointer(samples);
    const std::size_t nbuffers = on_device ? 1 : 2;
    for (std::size_t b = 0; b < nbuffers; ++b) {
        if (!direct_input)
            grow(d_input[b], chunk);
        if (!on_device && !is_float)
            grow(d_raw[b], chunk * in_bytes);
        if (!on_device && !host_pinned)
            grow(d_staging[b], chunk * in_bytes);
    }
    grow(d_records, ranks * capacity);
    grow(d_correlations, ranks * capacity * T);
    grow(d_counts, ranks);
    grow(d_offsets, ranks);
    grow(d_compact_records, ranks * capacity);
    grow(d_compact_correlations, ranks * capacity * T);
    grow(d_host_counts, ranks);
    std::size_t scan_bytes = 0;
    CUDADSP_CUDA(cub::DeviceScan::ExclusiveSum(
        nullptr, scan_bytes, d_counts.get(), d_offsets.get(), static_cast<int>(ranks)));
    grow(d_scan_storage, std::max<std::size_t>(scan_bytes, 1));
    CUDADSP_CUDA(cudaMemsetAsync(d_flags.get(), 0, 2 * sizeof(std::uint32_t), stream));

    // Per buffer: its upload done, and the kernel done reading it.
    cuda_event uploaded[2], consumed[2];
    // Timed stages: pairs of events (from, to) summed per kind at the end.
    std::vector<cuda_event> marks;
    enum stage_kind {
        upload_stage,
        convert_stage,
        correlate_stage,
        compact_stage,
        download_stage
    };
    std::vector<std::pair<stage_kind, std::pair<std::size_t, std::size_t>>> stages;
    auto mark = [&](cudaStream_t s) {
        marks.emplace_back(true);
        marks.back().record(s);
        return marks.size() - 1;
    };

    const auto* host_bytes = static_cast<const unsigned char*>(samples);
    auto enqueue_upload = [&](std::size_t c) {
        const std::size_t b = c % 2;
        const std::size_t first = c * chunk;
        const std::size_t m = std::min(chunk, nsamples - first);
        const unsigned char* src = host_bytes + first * in_bytes;
        if (!host_pinned) {
            // The staging buffer's previous upload (chunk c - 2) must be done.
            uploaded[b].synchronize();
            parallel_memcpy(d_staging[b].get(), src, m * in_bytes);
            src = d_staging[b].get();
        }
        consumed[b].wait_on(upload);
        const std::size_t from = mark(upload);
        void* dst = is_float ? static_cast<void*>(d_input[b].get())
                             : static_cast<void*>(d_raw[b].get());
        CUDADSP_CUDA(
            cudaMemcpyAsync(dst, src, m * in_bytes, cudaMemcpyHostToDevice, upload));
        stages.push_back({ upload_stage, { from, mark(upload) } });
        uploaded[b].record(upload);
    };

    // Per chunk when there are several: its counts (rank order), records, correlations.
    std::vector<std::vector<std::uint32_t>> chunk_counts;
    std::vector<std::vector<gnss_epoch_record>> chunk_records;
    std::vector<std::vector<float2>> chunk_correlations;
    double assemble_ms = 0;
    std::size_t total_records = 0;

    if (!on_device)
        enqueue_upload(0);
    for (std::size_t c = 0; c < nchunks; ++c) {
        const std::size_t b = on_device ? 0 : c % 2;
        const std::size_t first = c * chunk;
        const std::size_t m = std::min(chunk, nsamples - first);
        const std::uint64_t first_abs = d_samples_processed + first;

        // The chunk as float2 on the device.
        const float2* input = nullptr;
        if (!on_device)
            uploaded[b].wait_on(stream);
        if (direct_input) {
            input = static_cast<const float2*>(samples) + first;
        } else if (is_float) {
            input = d_input[b].get();
        } else {
            const unsigned char* raw =
                on_device ? static_cast<const unsigned char*>(samples) + first * in_bytes
                          : d_raw[b].get();
            const unsigned blocks =
                static_cast<unsigned>(std::min<std::size_t>((m + 255) / 256, 4096));
            const std::size_t from = mark(stream);
            if (format == gnss_sample_format::ci16)
                to_float2_kernel<<<blocks, 256, 0, stream>>>(
                    reinterpret_cast<const short2*>(raw), d_input[b].get(), m);
            else
                to_float2_kernel<<<blocks, 256, 0, stream>>>(
                    reinterpret_cast<const char2*>(raw), d_input[b].get(), m);
            CUDADSP_CUDA_LAUNCHED("to_float2_kernel");
            stages.push_back({ convert_stage, { from, mark(stream) } });
            input = d_input[b].get();
        }

        kernel_args args{};
        args.samples = input;
        args.nsamples = static_cast<std::uint32_t>(m);
        args.align = static_cast<std::uint32_t>(first_abs % group_samples);
        args.first = first_abs;
        args.tile_samples = static_cast<std::uint32_t>(d_launch.tile_samples);
        args.ranks = static_cast<std::uint32_t>(ranks);
        args.order = d_order.get();
        args.taps = static_cast<std::uint32_t>(T);
        args.params = d_params.get();
        args.states = d_states.get();
        args.codes = d_codes.get();
        args.shifts = d_shifts.get();
        args.tables = d_tables.get();
        args.table_stride =
            static_cast<std::uint32_t>(d_launch.shared_tables ? d_table_stride : 0);
        args.epoch_sums = d_epoch_sums.get();
        args.lane_partials = d_lane_partials.get();
        args.records = d_records.get();
        args.correlations = d_correlations.get();
        args.record_counts = d_counts.get();
        args.capacity = static_cast<std::uint32_t>(capacity);
        args.overflow = d_flags.get();
        const correlate_fn kernel = correlate_kernel_for(T, d_launch.shared_tables);
        CUDADSP_CUDA(cudaFuncSetAttribute(kernel,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(d_launch.shared_bytes)));
        const unsigned blocks =
            static_cast<unsigned>((ranks + d_launch.warps - 1) / d_launch.warps);
        const std::size_t correlate_from = mark(stream);
        kernel<<<blocks,
                 static_cast<unsigned>(d_launch.warps * warp_lanes),
                 d_launch.shared_bytes,
                 stream>>>(args);
        CUDADSP_CUDA_LAUNCHED("correlate_kernel");
        const std::size_t correlate_to = mark(stream);
        stages.push_back({ correlate_stage, { correlate_from, correlate_to } });
        if (!on_device)
            consumed[b].record(stream);

        // Records in rank (channel id) order, then their count and, with several
        // chunks, the counts per rank to merge the chunks by channel.
        CUDADSP_CUDA(cub::DeviceScan::ExclusiveSum(d_scan_storage.get(),
                                                   scan_bytes,
                                                   d_counts.get(),
                                                   d_offsets.get(),
                                                   static_cast<int>(ranks),
                                                   stream));
        const unsigned gather_blocks =
            static_cast<unsigned>((ranks * warp_lanes + 255) / 256);
        gather_records_kernel<<<gather_blocks, 256, 0, stream>>>(
            d_records.get(),
            d_correlations.get(),
            d_counts.get(),
            d_offsets.get(),
            static_cast<std::uint32_t>(ranks),
            static_cast<std::uint32_t>(capacity),
            static_cast<std::uint32_t>(T),
            d_compact_records.get(),
            d_compact_correlations.get(),
            d_flags.get() + 1);
        CUDADSP_CUDA_LAUNCHED("gather_records_kernel");
        const std::size_t compact_to = mark(stream);
        stages.push_back({ compact_stage, { correlate_to, compact_to } });
        CUDADSP_CUDA(cudaMemcpyAsync(d_host_flags.get(),
                                     d_flags.get(),
                                     2 * sizeof(std::uint32_t),
                                     cudaMemcpyDeviceToHost,
                                     stream));
        if (nchunks > 1)
            CUDADSP_CUDA(cudaMemcpyAsync(d_host_counts.get(),
                                         d_counts.get(),
                                         ranks * sizeof(std::uint32_t),
                                         cudaMemcpyDeviceToHost,
                                         stream));
        stages.push_back({ download_stage, { compact_to, mark(stream) } });

        // The next chunk's upload overlaps this chunk's kernel.
        if (!on_device && c + 1 < nchunks)
            enqueue_upload(c + 1);
        d_stream->synchronize();
        if (d_host_flags.get()[0] != 0)
            throw std::logic_error("multichannel correlator (cuda): a channel completed "
                                   "more epochs than its record capacity of " +
                                   std::to_string(capacity));
        const std::size_t total = d_host_flags.get()[1];
        total_records += total;

        grow(d_host_records, std::max<std::size_t>(total, 1));
        grow(d_host_correlations, std::max<std::size_t>(total * T, 1));
        const std::size_t download_from = mark(stream);
        if (total) {
            CUDADSP_CUDA(cudaMemcpyAsync(d_host_records.get(),
                                         d_compact_records.get(),
                                         total * sizeof(gnss_epoch_record),
                                         cudaMemcpyDeviceToHost,
                                         stream));
            CUDADSP_CUDA(cudaMemcpyAsync(d_host_correlations.get(),
                                         d_compact_correlations.get(),
                                         total * T * sizeof(float2),
                                         cudaMemcpyDeviceToHost,
                                         stream));
        }
        stages.push_back({ download_stage, { download_from, mark(stream) } });
        d_stream->synchronize();

        const auto assemble_start = clock::now();
        if (nchunks == 1) {
            append(results.records, d_host_records.get(), total);
            append(results.correlations, d_host_correlations.get(), total * T);
        } else {
            chunk_counts.emplace_back(d_host_counts.get(), d_host_counts.get() + ranks);
            chunk_records.emplace_back(d_host_records.get(),
                                       d_host_records.get() + total);
            chunk_correlations.emplace_back(d_host_correlations.get(),
                                            d_host_correlations.get() + total * T);
        }
        assemble_ms +=
            std::chrono::duration<double, std::milli>(clock::now() - assemble_start)
                .count();
    }

    if (nchunks > 1) {
        // Channel by channel (ascending id), its epochs chunk after chunk.
        const auto assemble_start = clock::now();
        results.records.reserve(results.records.size() + total_records);
        results.correlations.reserve(results.correlations.size() + total_records * T);
        std::vector<std::size_t> offset(nchunks, 0);
        for (std::size_t r = 0; r < ranks; ++r) {
            for (std::size_t c = 0; c < nchunks; ++c) {
                const std::size_t n = chunk_counts[c][r];
                const gnss_epoch_record* rec = chunk_records[c].data() + offset[c];
                results.records.insert(results.records.end(), rec, rec + n);
                const auto* corr = reinterpret_cast<const std::complex<float>*>(
                    chunk_correlations[c].data() + offset[c] * T);
                results.correlations.insert(
                    results.correlations.end(), corr, corr + n * T);
                offset[c] += n;
            }
        }
        assemble_ms +=
            std::chrono::duration<double, std::milli>(clock::now() - assemble_start)
                .count();
    }

    for (const auto& [kind, range] : stages) {
        const double ms = elapsed_ms(marks[range.first], marks[range.second]);
        switch (kind) {
        case upload_stage:
            d_timing.upload_ms += ms;
            break;
        case convert_stage:
            d_timing.convert_ms += ms;
            break;
        case correlate_stage:
            d_timing.correlate_ms += ms;
            break;
        case compact_stage:
            d_timing.compact_ms += ms;
            break;
        case download_stage:
            d_timing.download_ms += ms;
            break;
        }
    }
    d_timing.assemble_ms = assemble_ms;
    d_timing.chunks = nchunks;
    d_timing.records = total_records;
    d_timing.total_ms =
        std::chrono::duration<double, std::milli>(clock::now() - wall_start).count();
}

} // namespace core
} // namespace cudadsp
} // namespace gr
