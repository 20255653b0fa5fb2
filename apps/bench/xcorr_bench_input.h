/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BENCH_XCORR_BENCH_INPUT_H
#define INCLUDED_CUDADSP_BENCH_XCORR_BENCH_INPUT_H

// The input of cudadsp_bench's section xcorr (bench_cross_correlator.cc): frames of
// band-limited noise, y, and x, the same delayed by a planted fractional delay per frame.

#include <gnuradio/gr_complex.h>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {
namespace xcorr_bench {

constexpr double pi = 3.14159265358979323846264338327950;

// Frames of 4096 samples, the flowgraph target's.
constexpr std::size_t fft_len = 4096;

// Input: y band-limited complex noise (|f| < 0.4 cycles/sample), x the same delayed by
// a fractional delay per frame (uniform in +-max_delay_samples) and rotated by a
// random phase, each with white noise at snr_db.
constexpr double bandwidth_cycles = 0.4;
constexpr double max_delay_samples = 40.0;
constexpr double snr_db = 10.0;
constexpr std::uint64_t input_seed = 20260601;

//! \p frames frames of x and y, and the delay planted in each frame (samples).
void make_pattern(std::size_t frames,
                  std::vector<gr_complex>& x,
                  std::vector<gr_complex>& y,
                  std::vector<double>& delays);
//! \p frames frames of the pattern, repeated, into \p out.
void tile(const std::vector<gr_complex>& pattern, std::size_t frames, gr_complex* out);

} // namespace xcorr_bench
} // namespace bench
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BENCH_XCORR_BENCH_INPUT_H */
