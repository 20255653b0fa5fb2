/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BENCH_GNSS_PAPER_BASELINE_H
#define INCLUDED_CUDADSP_BENCH_GNSS_PAPER_BASELINE_H

// The baseline of the correlator section: the GPU correlator of Xu et al. 2016 (GPS
// Solutions, "GPU-based correlator architecture for GNSS software receivers"), written
// from the paper's description so that our engine is measured against its design on
// the same GPU in the same run.

#include <cuda_runtime_api.h>

namespace gr {
namespace cudadsp {
namespace bench {

//! One channel's correlation over [sample_base, sample_base + sample_count).
struct paper_channel {
    const float* code = nullptr; //!< device memory, +-1 chips
    int code_length = 0;
    float code_phase_chips = 0;  //!< at sample_base
    float code_rate_cps = 0;     //!< chips per second
    float carrier_hz = 0;        //!< IF + Doppler
    float carrier_phase_rad = 0; //!< at sample_base
    int sample_base = 0;
    int sample_count = 0;
};

//! Threads per block and reduction-array length: the paper's choice (P_n = M = 512).
constexpr int paper_block_threads = 512;
//! Blocks in the grid, looping over the channels: the paper's P_m = 256.
constexpr int paper_grid_blocks = 256;

/*!
 * The paper's kernel, one launch for \p channels channels: blockIdx strides over
 * channels, threadIdx over the channel's samples; each sample gets its own carrier
 * replica from sincosf() of a float phase and its code chips from a float code index
 * (early, prompt, late at -+\p half_spacing_chips); six shared-memory arrays of 512
 * floats are summed by the tree reduction the paper adopts (Harris 2007, version 3).
 * \p out receives 6 floats per channel: I_E, Q_E, I_P, Q_P, I_L, Q_L.
 */
void launch_paper_correlator(const float2* d_if,
                             const paper_channel* d_channels,
                             int channels,
                             float sample_rate_hz,
                             float half_spacing_chips,
                             float* d_out,
                             cudaStream_t stream);

} // namespace bench
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BENCH_GNSS_PAPER_BASELINE_H */
