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
 */

#include "gnss/gnss_nco.h"
#include "gnss/gnss_tracking.h"
#include "gnss/multichannel_correlator_cuda.h"
#include <type_traits>
#if defined(__CUDACC__)
#include <cuda/ptx>
#endif
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

// Loop unrolling is nvcc's business; a host compiler (the emulation) ignores it.
#if defined(__CUDACC__)
#define GNSS_KERNEL_UNROLL _Pragma("unroll")
#define GNSS_KERNEL_UNROLL_2 _Pragma("unroll 2")
#else
#define GNSS_KERNEL_UNROLL
#define GNSS_KERNEL_UNROLL_2
#endif

namespace gr {
namespace cudadsp {
namespace core {
namespace gnss_kernel {

/*
 * The kernel's geometry.
 *
 * A warp walks its channel in groups of group_samples consecutive samples. Lane l takes
 * lane_samples of them: the pairs at group_start + 2 l and group_start + 64 + 2 l, so
 * that each of the warp's two float4 loads per group reads 512 consecutive bytes of
 * shared memory (no bank conflict). The carrier replica is evaluated at a lane's first
 * sample only (carrier_cos_sin) and rotated to the other three by the rule's values at
 * 1, 64 and 65 carrier steps (both factors functions of the integer phases alone; the
 * product differs from the rule at that sample by about 1e-6), which cuts the
 * replica's cost per sample by a factor of about four.
 *
 * Groups are anchored to absolute sample indices (a group starts at a multiple of
 * group_samples), so which lane sums which sample does not depend on how the stream is
 * cut into calls, and neither does any float rounding.
 */
constexpr int warp_lanes = 32;
constexpr int lane_samples = 4;
constexpr std::uint32_t group_samples = warp_lanes * lane_samples; // 128
constexpr std::uint32_t half_group = group_samples / 2;

//! Offset of a lane's sample j from its first sample (group_start + 2 lane).
__host__ __device__ constexpr std::uint32_t sample_offset(int j)
{
    return static_cast<std::uint32_t>(j & 1) +
           static_cast<std::uint32_t>(j >> 1) * half_group;
}
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
 * group_samples * lane_samples = 512 float additions per lane and tap (relative error
 * of a correlator value about 1e-6 of its noise scale). A 1 ms GPS epoch at 10 Msps is
 * folded at its end only: every fold point inside an epoch costs a split group and a
 * warp reduction.
 */
constexpr std::uint32_t flush_samples = 16384;

/*!
 * Table entries a tap walker may run past the end of one code period between two
 * wraps (compare-and-subtract), on top of what the lanes' adjacent samples reach: the
 * code tables are stored extended by this much, periodically continued, so that the
 * inner loop needs no modulo.
 */
constexpr std::uint64_t walk_extension_entries = 256;

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
 * (x m) mod period for x < period < 2^63 and m < 256, by doubling: no 64-bit division,
 * which the compiler would make a called subroutine (and a register spill around it).
 */
__device__ __forceinline__ std::uint64_t
mul_mod(std::uint64_t x, std::uint32_t m, std::uint64_t period)
{
    std::uint64_t r = 0;
    GNSS_KERNEL_UNROLL
    for (int bit = 7; bit >= 0; --bit) {
        r = add_mod(r, r, period);
        if ((m >> bit) & 1u)
            r = add_mod(r, x, period);
    }
    return r;
}

/*!
 * The carrier replica of the sample loop, exp(j 2 pi phase / 2^32) as (c, s): the
 * phase as a signed angle in [-pi, pi) and the special function unit's cosine and sine
 * (__sincosf: absolute error below 2^-21 on that range, against below 2^-23 for the
 * polynomials of gnss_carrier_cos_sin(), far under the correlations' tolerance). About
 * 6 instructions where the polynomials took 25, at a lane's first sample of each
 * group; the integer phases, and so every code and carrier phase, stay the rule's.
 * Deterministic: a sample gets the same bits however the stream is split.
 */
__host__ __device__ __forceinline__ void
carrier_cos_sin(std::uint32_t phase, float& c, float& s)
{
    const float x = static_cast<float>(static_cast<std::int32_t>(phase)) *
                    1.46291807926715968e-09f; // 2 pi / 2^32
#if defined(__CUDA_ARCH__)
    __sincosf(x, &s, &c);
#else
    // The emulation (and nvcc's host pass, which never calls it).
    c = std::cos(x);
    s = std::sin(x);
#endif
}

/*!
 * +1.0f or -1.0f from a sign-extended +1 / -1 table entry: a conversion, which on sm_86
 * and later is one full-rate ALU instruction (I2FP), where building the float's bits
 * took two (the two constants do not fit one LOP3).
 */
__device__ __forceinline__ float chip_value(int entry)
{
    return static_cast<float>(entry);
}

/*
 * Tile hand-off without a block barrier (sm_80 and later): a tile's buffer has an
 * mbarrier that completes when the 32 lanes of the warp that loaded it see their
 * copies land (cp.async.mbarrier.arrive), and a count of the warps done with it; the
 * last warp done with tile t loads tile t + 2 into its buffer. Every lane also arrives
 * on the buffer's second mbarrier once it has read the tile, and the last warp
 * waits on it (its phase is then complete) before it refills the buffer: the count
 * picks the warp, the mbarrier orders every warp's reads before the new copies in
 * a way compute-sanitizer's racecheck can follow (it does not model atomics). A warp busy
 * with the tracking rule at an epoch's end then holds up no other warp until they are a
 * whole tile ahead of it, where a barrier per tile made every warp of the block wait for
 * it in nearly every tile. The emulation and older devices keep the block barrier, with
 * plain loads.
 */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GNSS_KERNEL_TILE_MBARRIERS 1
#else
#define GNSS_KERNEL_TILE_MBARRIERS 0
#endif

//! Bytes of shared memory for the tiles' mbarriers (full, read) and done counts (both
//! schemes; a multiple of 16).
constexpr std::size_t tile_sync_bytes = 48;

#if GNSS_KERNEL_TILE_MBARRIERS
__device__ __forceinline__ std::uint32_t shared_address(const void* p)
{
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

/*!
 * One asynchronous 8-byte copy (cp.async.ca) of a sample from global to shared memory,
 * both 8-byte aligned; it lands by the next copy_async_arrive() of this thread. Inline
 * PTX: cuda::ptx has no non-bulk cp.async, and the pipeline primitive that issues it
 * (__pipeline_memcpy_async) declares no memory clobber, with which nvcc allocated this
 * kernel's registers differently (more spills in some instances).
 */
__device__ __forceinline__ void copy_async_8(float2* shared_dst, const float2* global_src)
{
    asm volatile(
        "cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(shared_address(shared_dst)),
        "l"(global_src)
        : "memory");
}

/*!
 * Arrives on \p bar once every cp.async this thread issued before has landed, counting
 * as one of the arrivals the barrier was initialised with (.noinc). Inline PTX:
 * cuda::ptx::cp_async_mbarrier_arrive_noinc of this toolkit names no state space
 * (generic addressing) yet passes a 32-bit shared-window address, and compiles to
 * other machine code; the pipeline primitives offer only the incrementing form, which
 * would need a second arrival per thread.
 */
__device__ __forceinline__ void copy_async_arrive(std::uint64_t* bar)
{
    asm volatile(
        "cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(shared_address(bar))
        : "memory");
}

#if __CUDA_ARCH__ >= 900
#define GNSS_KERNEL_BULK_TILES 1
//! Arrives on \p bar and adds \p bytes to the bytes its phase waits for.
__device__ __forceinline__ void mbarrier_arrive_expect(std::uint64_t* bar,
                                                       std::uint32_t bytes)
{
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release,
                                               cuda::ptx::scope_cta,
                                               cuda::ptx::space_shared,
                                               bar,
                                               bytes);
}

/*!
 * One bulk copy (the tensor memory accelerator) of \p bytes, a multiple of 16, between
 * 16-byte aligned addresses; its bytes count towards \p bar's phase. Inline PTX where
 * cuda::ptx::cp_async_bulk would do: that wrapper first converts the source with
 * cvta.to.global, an identity for global memory on CUDA GPUs, which adds instructions
 * and reshuffles the machine code of every instance of this kernel.
 */
__device__ __forceinline__ void copy_bulk(void* shared_dst,
                                          const void* global_src,
                                          std::uint32_t bytes,
                                          std::uint64_t* bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1], %2, [%3];\n" ::"r"(shared_address(shared_dst)),
                 "l"(global_src),
                 "r"(bytes),
                 "r"(shared_address(bar))
                 : "memory");
}
#else
#define GNSS_KERNEL_BULK_TILES 0
#endif

//! Waits until the phase of \p bar with parity \p parity has completed.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, std::uint32_t parity)
{
#if __CUDA_ARCH__ >= 900
    // try_wait suspends the warp for a while in hardware before it reports failure.
    while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
    }
#else
    while (!cuda::ptx::mbarrier_test_wait_parity(bar, parity)) {
    }
#endif
}
#endif

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
inline __device__ __noinline__ epoch_start
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
    // Filled locally and copied out: with the rule writing through a reference that
    // is either the record (global memory) or a local dummy, nvcc 13.0 dropped every
    // store of the record (the PTX had none), so the host saw zero-filled records.
    gnss_epoch_record r;
    gnss_finish_epoch(*params, s, sums, r);
    if (record) {
        *record = r;
        for (std::uint32_t k = 0; k < taps; ++k)
            correlations[k] = make_float2(static_cast<float>(sums[2 * k]),
                                          static_cast<float>(sums[2 * k + 1]));
    }
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
#if defined(__CUDA_ARCH__)
        // Inline PTX: cuda::ptx's ld covers only the global space, and a generic
        // pointer would cost a 64-bit address per load.
        int value;
        asm volatile("ld.shared.s8 %0, [%1];" : "=r"(value) : "r"(address));
        return value;
#elif defined(CUDADSP_GNSS_KERNEL_EMULATION)
        return gnss_kernel_emulation::shared_s8(address);
#else
        (void)address; // the host pass of nvcc: never called
        return 0;
#endif
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
    return 2 * tile_samples * sizeof(float2) + tile_sync_bytes +
           warps * 2 * taps * sizeof(double) + warps * sizeof(warp_channel) +
           warps * table_stride;
}

/*!
 * One lane's share of a warp's channel: the code table, the tap walkers, the carrier
 * and the float sums of the current pass of TG taps (see correlate_kernel for the
 * walkers). Every member function is called by the whole warp (warp-uniform control
 * flow); they are steps of the kernel, inlined into it, the lane state kept in
 * registers.
 */
template <int TG, bool SharedTables>
struct lane_correlator {
    const kernel_args& a;
    warp_channel& ch;
    double* sums; //!< the warp's 2 taps float64 epoch sums (shared)
    std::uint32_t lane, slot, T;
    std::uint32_t entries, wrap_groups, table_address;
    table_reader<SharedTables> table;
    std::uint32_t wrap_at;
    std::uint64_t period;

    // Lane state of the current pass.
    std::uint64_t walker[TG];
    float acc_re[TG], acc_im[TG];
    std::uint64_t walker_advance;
    // Code phase and carrier rotation from a lane's first sample to its sample j + 1.
    std::uint64_t step_offset[lane_samples - 1];
    float rot_c[lane_samples - 1], rot_s[lane_samples - 1];
    std::uint32_t theta, theta_advance;

    __device__ __forceinline__ void clear()
    {
        walker_advance = 0;
        theta = 0;
        theta_advance = 0;
        GNSS_KERNEL_UNROLL
        for (int j = 0; j < lane_samples - 1; ++j) {
            step_offset[j] = 0;
            rot_c[j] = 1.0f;
            rot_s[j] = 0.0f;
        }
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k) {
            walker[k] = 0;
            acc_re[k] = acc_im[k] = 0.0f;
        }
    }

    // Walkers and carrier of the lanes for the group holding virtual index b, taps
    // [k0, k0 + TG) (taps past T walk with shift 0 and are never summed).
    __device__ __forceinline__ void rebase(std::uint32_t b, std::uint32_t k0)
    {
        const std::uint64_t code_step = ch.code_step;
        const std::uint32_t carrier_step = ch.carrier_step;
        const std::uint32_t n = b - ch.v_base;
        const std::uint64_t pb =
            ch.base_phase + static_cast<std::uint64_t>(n) * code_step;
        const std::uint32_t thb = ch.base_theta + n * carrier_step;
        const std::uint64_t pin =
            (static_cast<std::uint64_t>(static_cast<std::uint32_t>(pb >> 32) % entries)
             << 32) |
            (pb & 0xffffffffull);
        const int d = static_cast<int>((b / group_samples) * group_samples + 2 * lane) -
                      static_cast<int>(b);
        const std::uint64_t m =
            mul_mod(code_step, static_cast<std::uint32_t>(d < 0 ? -d : d), period);
        const std::uint64_t lane_phase =
            d >= 0 ? add_mod(pin, m, period) : sub_mod(pin, m, period);
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k) {
            const std::uint32_t tap = k0 + k;
            const std::uint64_t shift = tap < T ? a.shifts[slot * T + tap] : 0;
            walker[k] = add_mod(lane_phase, shift, period) +
                        (static_cast<std::uint64_t>(table_address) << 32);
        }
        theta = thb + static_cast<std::uint32_t>(d) * carrier_step;
        theta_advance = group_samples * carrier_step;
        GNSS_KERNEL_UNROLL
        for (int j = 0; j < lane_samples - 1; ++j)
            gnss_carrier_cos_sin(sample_offset(j + 1) * carrier_step, rot_c[j], rot_s[j]);
        // Offsets 1, 64 and 65 steps (each reduced to one period); the advance, 128.
        static_assert(lane_samples == 4 && half_group == 64, "offsets 1, 64, 65");
        step_offset[0] = code_step;
        step_offset[1] = mul_mod(code_step, half_group, period);
        step_offset[2] = add_mod(step_offset[1], code_step, period);
        walker_advance = add_mod(step_offset[1], step_offset[1], period);
    }

    // One group of a lane: its pairs at x[0] and x[half_group / 2] (float4 = 2
    // samples); with Masked, sample j is summed only where on[j] is set.
    template <bool Masked>
    __device__ __forceinline__ void group(const float4* x, const bool* on)
    {
        const float4 pair0 = x[0];
        const float4 pair1 = x[half_group / 2];
        const float xr[lane_samples] = { pair0.x, pair0.z, pair1.x, pair1.z };
        const float xi[lane_samples] = { pair0.y, pair0.w, pair1.y, pair1.w };
        float c[lane_samples], s[lane_samples];
        carrier_cos_sin(theta, c[0], s[0]);
        GNSS_KERNEL_UNROLL
        for (int j = 1; j < lane_samples; ++j) {
            // exp(-j (theta + o step)) = (c0 - j s0)(rot_c - j rot_s)
            c[j] = fmaf(c[0], rot_c[j - 1], -(s[0] * rot_s[j - 1]));
            s[j] = fmaf(s[0], rot_c[j - 1], c[0] * rot_s[j - 1]);
        }
        float wr[lane_samples], wi[lane_samples];
        GNSS_KERNEL_UNROLL
        for (int j = 0; j < lane_samples; ++j) {
            // x exp(-j theta) = (xr + j xi)(c - j s)
            wr[j] = fmaf(xr[j], c[j], xi[j] * s[j]);
            wi[j] = fmaf(xi[j], c[j], -(xr[j] * s[j]));
        }
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k) {
            float chip[lane_samples];
            chip[0] = chip_value(table(static_cast<std::uint32_t>(walker[k] >> 32)));
            GNSS_KERNEL_UNROLL
            for (int j = 1; j < lane_samples; ++j)
                chip[j] = chip_value(table(
                    static_cast<std::uint32_t>((walker[k] + step_offset[j - 1]) >> 32)));
            GNSS_KERNEL_UNROLL
            for (int j = 0; j < lane_samples; ++j) {
                if (!Masked || on[j]) {
                    acc_re[k] = fmaf(wr[j], chip[j], acc_re[k]);
                    acc_im[k] = fmaf(wi[j], chip[j], acc_im[k]);
                }
            }
        }
    }

    __device__ __forceinline__ void advance()
    {
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k)
            walker[k] += walker_advance;
        theta += theta_advance;
    }

    __device__ __forceinline__ void wrap_walkers()
    {
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k)
            if (static_cast<std::uint32_t>(walker[k] >> 32) >= wrap_at)
                walker[k] -= period;
    }

    // Sums the samples at virtual indices [lo, hi) of the tile that starts at virtual
    // index tile_v; the walkers are at the group holding lo.
    __device__ __forceinline__ void
    walk(const float2* tile, std::uint32_t tile_v, std::uint32_t lo, std::uint32_t hi)
    {
        std::uint32_t g = lo / group_samples;
        const std::uint32_t g_stop = (hi + group_samples - 1) / group_samples;
        const float4* x = reinterpret_cast<const float4*>(tile) +
                          (g - tile_v / group_samples) * (group_samples / 2) + lane;
        while (g < g_stop) {
            wrap_walkers();
            const std::uint32_t gs = g * group_samples;
            if (gs < lo || gs + group_samples > hi) {
                const std::uint32_t v0 = gs + 2 * lane;
                bool on[lane_samples];
                GNSS_KERNEL_UNROLL
                for (int j = 0; j < lane_samples; ++j)
                    on[j] = v0 + sample_offset(j) >= lo && v0 + sample_offset(j) < hi;
                group<true>(x, on);
                // A group cut by hi goes on in the next piece with these walkers.
                if (gs + group_samples <= hi)
                    advance();
                ++g;
                x += group_samples / 2;
                continue;
            }
            const std::uint32_t full_stop = min(hi / group_samples, g + wrap_groups);
            GNSS_KERNEL_UNROLL_2
            for (; g < full_stop; ++g) {
                group<false>(x, nullptr);
                advance();
                x += group_samples / 2;
            }
        }
    }

    // Folds the lanes' float sums of taps [k0, k0 + TG) into the float64 epoch sums:
    // a butterfly leaves every total in every lane; lane c keeps component c.
    __device__ __forceinline__ void flush(std::uint32_t k0)
    {
        float mine = 0.0f;
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k) {
            float re = acc_re[k], im = acc_im[k];
            GNSS_KERNEL_UNROLL
            for (int o = warp_lanes / 2; o > 0; o /= 2) {
                re += __shfl_xor_sync(full_mask, re, o);
                im += __shfl_xor_sync(full_mask, im, o);
            }
            if (lane == 2u * k)
                mine = re;
            if (lane == 2u * k + 1u)
                mine = im;
            acc_re[k] = acc_im[k] = 0.0f;
        }
        const std::uint32_t valid = min(static_cast<std::uint32_t>(TG), T - k0);
        if (lane < 2 * valid)
            sums[2 * k0 + lane] += static_cast<double>(mine);
        __syncwarp();
    }

    __device__ __forceinline__ void load_partials(std::uint32_t k0)
    {
        const std::uint32_t C = 2 * T;
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k) {
            const std::uint32_t tap = k0 + k;
            if (tap < T) {
                acc_re[k] = a.lane_partials[(slot * C + 2 * tap) * warp_lanes + lane];
                acc_im[k] = a.lane_partials[(slot * C + 2 * tap + 1) * warp_lanes + lane];
            } else {
                acc_re[k] = acc_im[k] = 0.0f;
            }
        }
    }

    __device__ __forceinline__ void store_partials(std::uint32_t k0)
    {
        const std::uint32_t C = 2 * T;
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k) {
            const std::uint32_t tap = k0 + k;
            if (tap < T) {
                a.lane_partials[(slot * C + 2 * tap) * warp_lanes + lane] = acc_re[k];
                a.lane_partials[(slot * C + 2 * tap + 1) * warp_lanes + lane] = acc_im[k];
            }
        }
    }
};

/*!
 * Picks up a warp's channel for the chunk: its code table (into the warp's shared
 * table when SharedTables), its epoch sums, and lane 0 fills \p ch from the channel's
 * state; a warp past the last rank only marks itself done. Called by the whole warp.
 */
template <int TG, bool SharedTables>
__device__ __forceinline__ void begin_channel(lane_correlator<TG, SharedTables>& lc,
                                              bool live,
                                              unsigned char* table_smem,
                                              std::uint32_t v_chunk_end)
{
    const kernel_args& a = lc.a;
    warp_channel& ch = lc.ch;
    const std::uint32_t C = 2 * lc.T;
    lc.entries = 1;
    lc.wrap_groups = 1;
    lc.table_address = 0;
    if (live) {
        const gnss_cuda_code code = a.codes[lc.slot];
        lc.entries = code.entries;
        lc.wrap_groups = code.wrap_groups;
        if constexpr (SharedTables) {
            lc.table_address =
                static_cast<std::uint32_t>(__cvta_generic_to_shared(table_smem));
            const auto* src =
                reinterpret_cast<const std::uint32_t*>(a.tables + code.table_offset);
            auto* dst = reinterpret_cast<std::uint32_t*>(table_smem);
            for (std::uint32_t i = lc.lane; i < code.table_bytes / 4; i += warp_lanes)
                dst[i] = __ldg(src + i);
        } else {
            lc.table.base =
                reinterpret_cast<const signed char*>(a.tables + code.table_offset);
        }
        for (std::uint32_t c = lc.lane; c < C; c += warp_lanes)
            lc.sums[c] = a.epoch_sums[lc.slot * C + c];
        if (lc.lane == 0) {
            const gnss_channel_state& s = a.states[lc.slot];
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
    } else if (lc.lane == 0) {
        ch.takes_samples = 0;
        ch.v_cur = v_chunk_end;
    }
    __syncwarp();
    lc.wrap_at = lc.table_address + lc.entries;
    lc.period = static_cast<std::uint64_t>(lc.entries) << 32;
}

/*!
 * A warp's channel through the samples of one tile, [ch.v_cur, tile_end), in pieces:
 * each up to the epoch's end, the next fold of the float sums (every flush_samples
 * from the epoch's start) or the tile's end; at an epoch's end the tracking rule runs
 * and the warp goes on with the new NCO rates. Called by the whole warp.
 */
template <int TG, bool SharedTables>
__device__ __forceinline__ void correlate_tile(lane_correlator<TG, SharedTables>& lc,
                                               std::uint32_t rank,
                                               const float2* tile,
                                               std::uint32_t tile_v,
                                               std::uint32_t tile_end)
{
    warp_channel& ch = lc.ch;
    const std::uint32_t C = 2 * lc.T;
    const std::uint32_t passes = (lc.T + TG - 1) / TG;
    for (;;) {
        const std::uint32_t v_cur = ch.v_cur;
        if (v_cur >= tile_end)
            break;
        const std::uint32_t done = ch.base_done + (v_cur - ch.v_base);
        const std::uint32_t v_epoch_end = v_cur + (ch.epoch_samples - done);
        const std::uint32_t v_flush =
            v_cur + ((done / flush_samples + 1) * flush_samples - done);
        const std::uint32_t e = min(min(v_epoch_end, v_flush), tile_end);
        const bool folds = e == v_epoch_end || e == v_flush;
        for (std::uint32_t pass = 0; pass < passes; ++pass) {
            const std::uint32_t k0 = pass * TG;
            if (passes > 1) {
                lc.rebase(v_cur, k0);
                lc.load_partials(k0);
            }
            lc.walk(tile, tile_v, v_cur, e);
            if (folds)
                lc.flush(k0);
            if (passes > 1)
                lc.store_partials(k0);
        }
        __syncwarp();
        if (e != v_epoch_end) {
            if (lc.lane == 0)
                ch.v_cur = e;
            __syncwarp();
            continue;
        }
        if (lc.lane == 0) {
            const kernel_args& a = lc.a;
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
                correlations = a.correlations + i * lc.T;
            } else {
                *a.overflow = 1;
            }
            const epoch_start next = finish_epoch(a.params + lc.slot,
                                                  a.states + lc.slot,
                                                  lc.sums,
                                                  code_end,
                                                  theta_end,
                                                  record,
                                                  correlations,
                                                  lc.T);
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
        for (std::uint32_t c = lc.lane; c < C; c += warp_lanes)
            lc.sums[c] = 0.0;
        __syncwarp();
        // Also at the chunk's end, where it is not needed: the walkers are then
        // rebuilt on every path out of the epoch's end, and nothing of the sample
        // loop stays live (in registers) across the tracking rule.
        if (passes == 1)
            lc.rebase(e, 0);
    }
}

/*!
 * Leaves a warp's channel for the next call: the epoch in progress goes on from these
 * NCOs, float sums (lane_partials) and float64 sums; lane 0 writes the rank's record
 * count. Called by the whole warp of a live rank.
 */
template <int TG, bool SharedTables>
__device__ __forceinline__ void save_channel(lane_correlator<TG, SharedTables>& lc,
                                             std::uint32_t rank)
{
    const kernel_args& a = lc.a;
    const warp_channel& ch = lc.ch;
    const std::uint32_t C = 2 * lc.T;
    if (ch.takes_samples) {
        if (lc.T <= TG)
            lc.store_partials(0);
        if (lc.lane == 0) {
            gnss_channel_state& s = a.states[lc.slot];
            const std::uint32_t n = ch.v_cur - ch.v_base;
            s.code_phase = ch.base_phase + static_cast<std::uint64_t>(n) * ch.code_step;
            s.carrier_phase = ch.base_theta + n * ch.carrier_step;
            s.samples_done = ch.base_done + n;
        }
        for (std::uint32_t c = lc.lane; c < C; c += warp_lanes)
            a.epoch_sums[lc.slot * C + c] = lc.sums[c];
    }
    if (lc.lane == 0)
        a.record_counts[rank] = min(ch.records_done, a.capacity);
}

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

inline std::size_t round_up(std::size_t x, std::size_t m) { return (x + m - 1) / m * m; }

//! Table bytes a channel needs: one period plus what its walkers reach past it.
inline std::size_t extended_table_length(std::uint32_t entries, std::uint64_t max_step)
{
    // A lane's later samples sit up to sample_offset(lane_samples - 1) steps past its
    // walker, an offset the kernel reduces to one period when it spans more.
    const unsigned __int128 spread =
        static_cast<unsigned __int128>(max_step) * sample_offset(lane_samples - 1);
    const std::uint64_t spread_entries = static_cast<std::uint64_t>(
        std::min<unsigned __int128>((spread + 0xffffffffull) >> 32, entries));
    const std::uint64_t reach = walk_extension_entries + spread_entries + 1;
    return round_up(static_cast<std::size_t>(entries + reach), 16);
}

/*!
 * Groups between two walker wraps for a channel whose code step never exceeds
 * \p max_step: r with (r - 1) advances within walk_extension_entries and r advances
 * within one period, where an advance is group_samples steps reduced to one period.
 * When a group spans a period or more the reduced advance is not bounded by max_step,
 * and every group is wrapped (r = 1).
 */
inline std::uint32_t wrap_groups_for(std::uint32_t entries, std::uint64_t max_step)
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


/*!
 * A tap shift (gnss_nco.h, |shift| < L 2^32) reduced to one period, [0, L 2^32): adding
 * whole periods does not change the entry a tap takes, and the walkers then start
 * inside the table.
 */
inline std::uint64_t normalized_tap_shift(std::int64_t shift, std::uint32_t entries)
{
    const std::int64_t period = static_cast<std::int64_t>(entries) << 32;
    std::int64_t r = shift % period;
    if (r < 0)
        r += period;
    return static_cast<std::uint64_t>(r);
}

} // namespace gnss_kernel
} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_KERNEL_CUH */
