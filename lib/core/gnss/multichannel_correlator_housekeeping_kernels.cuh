/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_HOUSEKEEPING_KERNELS_CUH
#define INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_HOUSEKEEPING_KERNELS_CUH

/*
 * The multichannel correlator's small kernels around the correlation kernel: integer
 * samples to float2, new channels' parameters and states into their slots, and the
 * records gathered in rank order. multichannel_correlator_cuda.cu, which launches
 * them, alone includes this file; they keep the internal linkage (anonymous
 * namespace) they had there.
 */

#include "gnss/multichannel_correlator_kernel_geometry.cuh"
#include <cstddef>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using namespace gnss_kernel;

// ---------------------------------------------------------------------------------
// Housekeeping kernels
// ---------------------------------------------------------------------------------

/*!
 * Integer I/Q pairs to float2, as they are (no scaling): in[0, n) to out[0, n), two
 * buffers that do not overlap; any grid (grid-stride loop).
 */
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
 * exclusive scan of the counts); one warp per rank, blocks of whole warps. Rank r's
 * counts[r] records (at most capacity) and their taps correlations come from slots
 * r * capacity of records and correlations and go to out_records and
 * out_correlations at offsets[r], buffers that do not overlap the sources. \p total
 * receives the sum.
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

} // namespace
} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_HOUSEKEEPING_KERNELS_CUH */
