/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_LAYOUT_CUH
#define INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_LAYOUT_CUH

/*
 * What the dense-offset kernels and their host code agree on: launch shapes and where
 * each per-window array of a batch lives. Included by dense_offsets_kernels.cuh and
 * dense_offsets_cuda.cu only (one translation unit).
 */

#include "cross_correlation/dense_offsets_rule.h"
#include <algorithm>

namespace gr {
namespace cudadsp {
namespace core {
namespace dense_offsets_kernel {

//! Threads of the kernels that work a window per block.
constexpr int block_threads = 256;
//! Threads of the element-wise kernels (a 2D block, rows x columns of an array).
constexpr int element_threads = 256;

//! Lags of a lag row that one thread sums by running differences (4.4).
constexpr int row_segment = 16;
//! Bound of a launch's grid in y and z.
constexpr unsigned grid_yz_max = 65535;

inline __host__ __device__ long long area(int rows, int cols)
{
    return static_cast<long long>(rows) * cols;
}

/*!
 * Where each per-window array lives and how large it is (elements; "slots" hold one
 * window each). The correlations of both stages share one buffer of two slots a window
 * (template, then search at the slot capacity further), in the in-place real-transform
 * layout: rows of 2 (cols / 2 + 1) floats.
 */
struct offsets_layout {
    int raw_pitch = 0;          //!< floats a row, raw correlation
    int over_pitch = 0;         //!< floats a row, oversampled correlation
    long long corr_dist = 0;    //!< floats a correlation slot (either stage)
    long long colsum_dist = 0;  //!< doubles a window: column sums of B, then of B^2
    long long sums_dist = 0;    //!< double2 a window: (S1, S2) of each lag
    long long surface_dist = 0; //!< floats a window: the raw normalised surface
    long long ref_window = 0;   //!< complex: the h x w reference window
    long long zoom_window = 0;  //!< complex: the zoom window
    long long ref_over = 0;     //!< complex: the oversampled reference window
    long long zoom_over = 0;    //!< complex: the oversampled zoom window
    long long big_dist = 0;     //!< complex a window of the oversampling / fine buffer
    int trimmed_pitch = 0;      //!< floats a row of the Z x Z real surface
    long long trimmed_dist = 0; //!< complex a window: Z (Z / 2 + 1)
    int fine_half = 0;          //!< q Z / 2 + 1
    long long fine_dist = 0;    //!< complex a window: q Z (q Z / 2 + 1)

    explicit offsets_layout(const offsets_geometry& g)
    {
        raw_pitch = 2 * (g.search_cols() / 2 + 1);
        over_pitch = 2 * (g.over_zoom_cols() / 2 + 1);
        corr_dist = std::max(area(g.search_rows(), raw_pitch),
                             area(g.over_zoom_rows(), over_pitch));
        colsum_dist = 2 * std::max(area(g.surface_rows(), g.search_cols()),
                                   area(g.trimmed_side(), g.over_zoom_cols()));
        sums_dist = std::max(area(g.surface_rows(), g.surface_cols()),
                             area(g.trimmed_side(), g.trimmed_side()));
        surface_dist = area(g.surface_rows(), g.surface_cols());
        ref_window = area(g.h, g.w);
        zoom_window = area(g.zoom_rows(), g.zoom_cols());
        ref_over = area(g.over_ref_rows(), g.over_ref_cols());
        zoom_over = area(g.over_zoom_rows(), g.over_zoom_cols());
        trimmed_pitch = 2 * (g.zoom / 2 + 1);
        trimmed_dist = area(g.zoom, g.zoom / 2 + 1);
        fine_half = g.fine_side() / 2 + 1;
        fine_dist = area(g.fine_side(), fine_half);
        big_dist = std::max(ref_over + zoom_over, fine_dist);
    }

    //! The largest element count one transform of a plan spans (cuFFT's int layout).
    long long largest_dist() const
    {
        return std::max({ corr_dist,
                          ref_window,
                          zoom_window,
                          ref_over,
                          zoom_over,
                          2 * trimmed_dist,
                          2 * fine_dist });
    }
};

//! The results of the raw surface that the zoom stage needs (4.5 - 4.8).
struct coarse_peak {
    surface_max raw; //!< index < 0: the surface has no number
    float snr;
    offset_covariance cov;
    int s_down, s_across;
};

} // namespace dense_offsets_kernel
} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_LAYOUT_CUH */
