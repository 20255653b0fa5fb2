/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_KERNEL_HELPERS_CUH
#define INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_KERNEL_HELPERS_CUH

/*
 * The correlation kernel's device helpers: modular arithmetic of the code walkers,
 * the carrier replica and chip values, the tile hand-off's mbarrier and bulk-copy
 * primitives (sm_80, sm_90), the end of an epoch (the shared tracking rule), the code
 * table readers and the per-warp channel in shared memory. Part of
 * multichannel_correlator_kernel.cuh.
 */

#include "gnss/gnss_nco.h"
#include "gnss/gnss_tracking.h"
#include "gnss/multichannel_correlator_kernel_geometry.cuh"
#if defined(__CUDACC__)
#include <cuda/ptx>
#endif
#include <cmath>
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

} // namespace gnss_kernel
} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_KERNEL_HELPERS_CUH */
