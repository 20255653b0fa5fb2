/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_ST_TBD_INTERNAL_H
#define INCLUDED_CUDADSP_CORE_ST_TBD_INTERNAL_H

// Host-side pieces of the track-before-detect engine that both backends use: the state
// layout, the resolved transition table and the selection of the detections.

#include "tbd/st_tbd_rule.h"
#include <gnuradio/cudadsp/core/st_tbd.h>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * Where the state lives: M planes, each a zero-guarded copy of the grid. Cell (x, y)
 * of plane m is at m * plane_stride + (y0 + y) * pitch + x0 + x. Every cell outside
 * the grid within \p guard cells of it is 0 and is never written, so a transition's
 * four bilinear reads (|d| <= guard - 1) need no bounds check and read 0 outside the
 * grid: the border rule. x0 is a multiple of 32 floats so that a warp's 32 cells of a
 * row are one aligned 128-byte line; the plane stride is a multiple of 512 bytes (the
 * texture base alignment).
 */
struct tbd_layout {
    std::size_t width = 0;
    std::size_t height = 0;
    std::size_t planes = 0;
    std::size_t guard = 0;
    std::size_t x0 = 0;
    std::size_t y0 = 0;
    std::size_t pitch = 0; //!< floats per row
    std::size_t rows = 0;  //!< rows per plane
    std::size_t plane_stride = 0;

    std::size_t total() const { return planes * plane_stride; }
    std::size_t offset(std::size_t m, std::size_t x, std::size_t y) const
    {
        return m * plane_stride + (y0 + y) * pitch + x0 + x;
    }
};

//! The layout for \p config (which must be valid).
tbd_layout make_tbd_layout(const st_tbd_config& config);

//! The checks of st_tbd_config::validate() that st_tbd::set_alpha() and
//! st_tbd::set_threshold() repeat: std::invalid_argument naming the field.
void validate_tbd_alpha(float alpha);
void validate_tbd_threshold(float threshold);

/*! The transitions resolved into taps, hypothesis-major (the order of
 *  st_tbd::lines()); \p first[m] .. first[m + 1] are hypothesis m's. */
struct tbd_table {
    std::vector<tbd_tap> taps;
    std::vector<int> first;
};

tbd_table make_tbd_table(const st_tbd_config& config);
tbd_tap make_tbd_tap(const tbd_transition& transition);

//! A cell that passed the detection rule, before the per-frame limit.
struct tbd_candidate {
    std::uint32_t x;
    std::uint32_t y;
    float value;
    std::int32_t hypothesis;
};

/*!
 * The detection rule (tbd_is_detection) over rows [y_begin, y_end) of a finished
 * detection map of width x height; appends the cells that pass, row-major.
 */
void find_tbd_candidates(const float* map,
                         const std::int32_t* argmax,
                         std::size_t width,
                         std::size_t height,
                         float threshold,
                         std::size_t y_begin,
                         std::size_t y_end,
                         std::vector<tbd_candidate>& out);

/*! Most cells of a width x height map that the detection rule can pass: no two
 *  neighbours both pass (the later would have to be larger and not larger). */
inline std::size_t tbd_max_local_maxima(std::size_t width, std::size_t height)
{
    return ((width + 1) / 2) * ((height + 1) / 2);
}

/*!
 * Appends one frame's detections: the \p max_detections largest candidates (ties by
 * y, then x), sorted by (y, x). \p candidates may be in any order and is reordered.
 */
void append_tbd_detections(std::vector<tbd_candidate>& candidates,
                           std::size_t max_detections,
                           std::uint64_t frame,
                           const std::vector<tbd_hypothesis>& hypotheses,
                           std::vector<tbd_detection>& detections);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_ST_TBD_INTERNAL_H */
