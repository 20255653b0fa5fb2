/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BENCH_PATCH_BENCH_CASE_H
#define INCLUDED_CUDADSP_BENCH_PATCH_BENCH_CASE_H

// The cases of cudadsp_bench's section patch (bench_patch_correlator.cc): the speed
// case's grid and search, the int16 image pair's size, pre-shifts, planted offset and
// speckle, the CPU samples, the target and the check's tolerance; shared by the section
// and its inputs and checks (patch_bench_checks.cc).

#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>

namespace gr {
namespace cudadsp {
namespace bench {
namespace patch_bench {

using cfloat = std::complex<float>;
using core::patch_result;

// The speed case: 1000 patches (nx 20, ny 50), xsearch = ysearch = 64, ri 2,
// interp 16, patches in device memory.
constexpr int grid_nx = 20;
constexpr int grid_ny = 50;
constexpr std::size_t default_patches = std::size_t(grid_nx) * grid_ny;
constexpr int search = 64;
constexpr int range_interp = 2;
constexpr int interp = 16;

// cudadsp_xcorr's speed case: the paper's largest ALOS-1 pair, -xsearch 128 -ysearch
// 128 on the same -nx 20 -ny 50 grid, windows placed as GMTSAR's get_locations.
constexpr std::int64_t image_width = 11304;
constexpr std::int64_t image_height = 9216;
constexpr int image_search = 128;
// PRM pre-shifts of the aligned image and the image's true offset (the example of
// tests/support/make_synthetic_slc.py): the engine sees the residual (0.25, -0.5).
constexpr int image_rshift = 2;
constexpr int image_ashift = -1;
constexpr double image_dx = 2.25;
constexpr double image_dy = -1.5;
// The image pair tiles a periodic speckle field of this period (rows and columns):
// far longer than a patch and its search, so no patch sees the repetition.
constexpr int image_tile = 2048;

// The CPU engine: a sample of patches spread over the run (first and last included),
// whose results are the check column's reference.
constexpr std::size_t cpu_patches_max = 64;
constexpr std::size_t cpu_image_patches_max = 32;
constexpr int slow_repeats_max = 3;
constexpr int image_repeats_max = 10;

// Input: band-limited complex speckle (a Blackman-windowed sinc low-pass of bandwidth
// 0.8 of the sample rate in both directions, applied to white complex Gaussian noise,
// evaluated at any real position), scaled to int16-like amplitudes and rounded to
// integers. The aligned patch is the same field moved by (dy, dx), uniform in
// +-max_shift pixels per patch, plus white decorrelation noise at coherence 0.9.
constexpr double component_std = 800.0;
constexpr double coherence = 0.9;
constexpr double max_shift = 6.0;
constexpr std::uint64_t input_seed = 20260606;

// Target: the device-resident engine at most 2x the bare cuFFT transforms.
constexpr double target_cufft_ratio = 2.0;
// The check: dx and dy equal, corr (percent) within this.
constexpr double corr_tolerance = 1e-3;

// Outputs are poisoned with all-ones bytes before a checked run: a result the engine
// did not write keeps NaN fractions and correlation.
constexpr int poison_byte = 0xff;

inline core::patch_correlator_config make_config(int s, const std::string& device)
{
    core::patch_correlator_config config;
    config.xsearch = s;
    config.ysearch = s;
    config.range_interp = range_interp;
    config.highres = true;
    config.interp = interp;
    config.device = device;
    return config;
}

} // namespace patch_bench
} // namespace bench
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BENCH_PATCH_BENCH_CASE_H */
