/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_XCORR_XCORR_GRID_H
#define INCLUDED_CUDADSP_XCORR_XCORR_GRID_H

// GMTSAR xcorr's patch grid (get_locations) and the master/aligned window pairs.

#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace xcorr {

struct grid_config {
    std::int64_t width = 0;  //!< master num_rng_bins
    std::int64_t height = 0; //!< master num_patches * num_valid_az
    int nx = 16;             //!< patches per strip (-nx)
    int ny = 32;             //!< strips (-ny)
    int xsearch = 64;
    int ysearch = 64;
};

//! One patch: its master centre (x column, y row) as GMTSAR prints it.
struct patch_location {
    int x;
    int y;
    int strip; //!< j - 1 (0-based strip)
    int index; //!< i - 2 (0-based patch within the strip)
};

/*!
 * GMTSAR's get_locations: x_inc = (W - 6 xsearch)/(nx + 3), y_inc = (H - 6 ysearch)/(ny
 * + 1) (C integer division); x = 4 xsearch + i x_inc for i = 2..nx+1, y = 4 ysearch + j
 * y_inc for j = 1..ny, strip-major (j outer).
 */
struct xcorr_grid {
    int x_inc = 0;
    int y_inc = 0;
    std::vector<patch_location> locations;
};

//! Throws input_error when nx or ny < 1 or the image is too small for the grid
//! (x_inc < 1 or y_inc < 1; GMTSAR does not check and prints a degenerate grid).
xcorr_grid make_grid(const grid_config& config);


/*!
 * The master and aligned window corners of every location (core::gmtsar_patch_pair()):
 * master (x - npx/2, y - npy/2), aligned (x + rshift - npx/2, y + ashift +
 * core::gmtsar_stretch_shift(y) - npy/2).
 */
std::vector<core::patch_pair> make_pairs(const xcorr_grid& grid,
                                         int xsearch,
                                         int ysearch,
                                         int rshift,
                                         int ashift,
                                         double stretch);

/*!
 * Throws input_error naming the first patch (strip, index, x, y) whose master or
 * aligned npy x npx window leaves its image, and by how much.
 */
void check_pairs_inside(const xcorr_grid& grid,
                        const std::vector<core::patch_pair>& pairs,
                        int xsearch,
                        int ysearch,
                        std::int64_t master_width,
                        std::int64_t master_height,
                        std::int64_t aligned_width,
                        std::int64_t aligned_height);

} // namespace xcorr
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_XCORR_XCORR_GRID_H */
