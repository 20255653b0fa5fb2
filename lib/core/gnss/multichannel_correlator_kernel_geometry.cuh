/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_KERNEL_GEOMETRY_CUH
#define INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_KERNEL_GEOMETRY_CUH

/*
 * The correlation kernel's geometry (groups of samples per warp and lane, block
 * shape, fold and walk limits), its launch arguments, and the host rules that size
 * the code tables it reads. Part of multichannel_correlator_kernel.cuh (see there
 * for the host emulation that also compiles it); the backend's host code includes
 * this part alone where it only sizes tables.
 */

#include "gnss/multichannel_correlator_cuda.h"
#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>

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

#endif /* INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_KERNEL_GEOMETRY_CUH */
