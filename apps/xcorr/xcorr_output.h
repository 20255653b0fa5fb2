/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_XCORR_XCORR_OUTPUT_H
#define INCLUDED_CUDADSP_XCORR_XCORR_OUTPUT_H

// GMTSAR xcorr's freq_xcorr.dat lines (print_results).

#include "xcorr_grid.h"
#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace xcorr {

/*!
 * One line, GMTSAR's fprintf(" %d %6.3f %d %6.3f %6.2f \n", x, dx, y, dy, corr) with
 * the float values promoted to double as printf does (C printf rounds the exact binary
 * value, so decimal ties go to even: 0.0625 prints "0.062").
 */
std::string format_line(int x, float dx, int y, float dy, float corr);

//! The offsets of print_results(): what the engine measured plus the pre-shifts.
struct patch_offset {
    float dx;
    float dy;
    float corr;
};

patch_offset combine(const core::patch_result& r,
                     int range_interp,
                     int rshift,
                     int ashift,
                     int stretch_shift);

/*!
 * All lines of a run, in the grid's (strip-major) order. \p stretch is GMTSAR's
 * astretcha; rshift and ashift are 0 under -noshift.
 */
std::string format_results(const xcorr_grid& grid,
                           const std::vector<core::patch_result>& results,
                           int range_interp,
                           int rshift,
                           int ashift,
                           double stretch);

} // namespace xcorr
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_XCORR_XCORR_OUTPUT_H */
