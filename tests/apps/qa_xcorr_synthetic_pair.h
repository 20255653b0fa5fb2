/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_XCORR_SYNTHETIC_PAIR_H
#define INCLUDED_CUDADSP_QA_XCORR_SYNTHETIC_PAIR_H

// qa_xcorr_tool's SLC pairs of a known integer shift.

#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace xcorr_tool_qa {

// A synthetic pair: band-limited complex Gaussian speckle (white noise through a
// separable low-pass of bandwidth 0.8, a Kaiser-windowed sinc of 16 taps, like a
// focused SLC; white noise would make GMTSAR's fourth-root sub-pixel step wander by
// 1/interp), int16 with about 800 per component; the aligned image is the master moved
// by (drow, dcol): aligned[y][x] = master[y - drow][x - dcol], with more of the same
// speckle where that leaves the master.
struct synthetic_pair {
    long width, height;
    std::vector<std::int16_t> master, aligned;
};

synthetic_pair make_pair(long width, long height, int drow, int dcol, unsigned seed);

//! The int16 samples of an SLC as float32 (a complex float32 raster of the same image).
std::vector<float> to_float(const std::vector<std::int16_t>& v);

} // namespace xcorr_tool_qa

} // namespace xcorr
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_XCORR_SYNTHETIC_PAIR_H */
