/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss_paper_baseline.h"
#include "runtime/cuda_check.h"

namespace gr {
namespace cudadsp {
namespace bench {

namespace {

constexpr int accumulators = 6; // I and Q of early, prompt, late

__device__ float paper_chip(const paper_channel& ch, float index)
{
    // The paper's float code index, floored and wrapped into the code period.
    int i = int(floorf(index)) % ch.code_length;
    if (i < 0)
        i += ch.code_length;
    return ch.code[i];
}

__global__ void __launch_bounds__(paper_block_threads)
    paper_correlator_kernel(const float2* __restrict__ samples,
                            const paper_channel* __restrict__ channels,
                            int nch,
                            float sample_rate_hz,
                            float half_spacing_chips,
                            float* __restrict__ out)
{
    __shared__ float sums[accumulators][paper_block_threads];
    constexpr float two_pi = 6.283185307179586f;

    for (int ich = blockIdx.x; ich < nch; ich += gridDim.x) {
        const paper_channel ch = channels[ich];
        float acc[accumulators] = {};
        for (int pos = threadIdx.x; pos < ch.sample_count; pos += blockDim.x) {
            const float t = float(pos) / sample_rate_hz;
            float s, c;
            sincosf(ch.carrier_phase_rad + two_pi * ch.carrier_hz * t, &s, &c);
            const float2 x = samples[ch.sample_base + pos];
            // Carrier wipe-off: x * exp(-j phase).
            const float i_bb = x.x * c + x.y * s;
            const float q_bb = x.y * c - x.x * s;
            const float index = ch.code_phase_chips + ch.code_rate_cps * t;
            const float early = paper_chip(ch, index - half_spacing_chips);
            const float prompt = paper_chip(ch, index);
            const float late = paper_chip(ch, index + half_spacing_chips);
            acc[0] += i_bb * early;
            acc[1] += q_bb * early;
            acc[2] += i_bb * prompt;
            acc[3] += q_bb * prompt;
            acc[4] += i_bb * late;
            acc[5] += q_bb * late;
        }
        for (int a = 0; a < accumulators; ++a)
            sums[a][threadIdx.x] = acc[a];
        __syncthreads();
        // Harris' reduction #3: sequential addressing, no bank conflicts.
        for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
            if (threadIdx.x < stride)
                for (int a = 0; a < accumulators; ++a)
                    sums[a][threadIdx.x] += sums[a][threadIdx.x + stride];
            __syncthreads();
        }
        if (threadIdx.x < accumulators)
            out[ich * accumulators + threadIdx.x] = sums[threadIdx.x][0];
        __syncthreads();
    }
}

} // namespace

void launch_paper_correlator(const float2* d_if,
                             const paper_channel* d_channels,
                             int channels,
                             float sample_rate_hz,
                             float half_spacing_chips,
                             float* d_out,
                             cudaStream_t stream)
{
    paper_correlator_kernel<<<paper_grid_blocks, paper_block_threads, 0, stream>>>(
        d_if, d_channels, channels, sample_rate_hz, half_spacing_chips, d_out);
    CUDADSP_CUDA_LAUNCHED("paper_correlator_kernel");
}

} // namespace bench
} // namespace cudadsp
} // namespace gr
