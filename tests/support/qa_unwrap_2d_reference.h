/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_UNWRAP_2D_REFERENCE_H
#define INCLUDED_CUDADSP_QA_UNWRAP_2D_REFERENCE_H

// References of the two-dimensional phase unwrapper tests, written from the documented
// behaviour (core/phase_unwrap_2d.h and the rules' documentation), not from the
// engine's code: Herraez's group merging as the paper and scikit-image do it, and a
// float64 least-squares solve by plain conjugate gradients.

#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

//! A frame and its optional inputs; an empty weight or mask means none.
struct unwrap_2d_frame {
    std::size_t width = 0;
    std::size_t height = 0;
    std::vector<float> wrapped;
    std::vector<float> weight;
    std::vector<std::uint8_t> mask;
};

//! What one unwrap() gave; components empty where not asked for.
struct unwrap_2d_outputs {
    std::vector<float> unwrapped;
    std::vector<std::int32_t> cycles;
    std::vector<std::int32_t> components;
    core::unwrap_2d_report report;
};

//! 1 where the pixel is valid: mask nonzero, weight finite and > 0, wrapped finite.
std::vector<std::uint8_t> reference_valid_pixels(const unwrap_2d_frame& frame);

struct reliability_reference {
    std::vector<std::int64_t> cycles;     //!< K; 0 where not valid
    std::vector<std::int32_t> components; //!< 1..C in row-major order; 0 where not valid
    std::size_t component_count = 0;
    std::vector<float> reliability; //!< pixel keys (meaningful where valid)
    /*! Joins (forest edges) that a window > 1 decided within 1e-6 periods of half a
     *  period, or from a window whose phasor sum nearly vanishes: there float64
     *  trigonometry and the engine's float32 phasors may choose differently. */
    std::size_t near_half_period_joins = 0;
};

/*!
 * The reliability method, sequentially: a valid pixel's key is the sum of its four
 * squared second differences, +infinity ("unranked") unless all four exist with valid
 * neighbours; every valid pixel starts as a group of its own; edges between
 * 4-neighbours (through the wrap-around edges where asked) are taken in the order
 * (number of unranked ends, float32 sum of the ranked ends' keys without its lowest
 * bit, edge index: 2 * pixel + 0 for the right neighbour, + 1 for the lower one); an
 * edge between two groups adds the whole periods it implies to every member of the
 * smaller group and moves them into the larger one. Finally each group is shifted so
 * that its first pixel in row-major order has K = 0.
 *
 * The whole periods across an edge: with \p gradient_window 1 numpy.unwrap's rule
 * between its two pixels; with a larger (odd) window the k that brings the pair's
 * difference nearest to the angle of the mean unit phasor step over the window
 * centred on the edge's first pixel, in float64 with std::polar and std::atan2.
 */
reliability_reference reference_reliability_unwrap(const unwrap_2d_frame& frame,
                                                   double period,
                                                   bool wrap_x,
                                                   bool wrap_y,
                                                   std::size_t gradient_window);

struct least_squares_reference {
    //! The least-squares solution plus the documented constant; NaN where not valid.
    std::vector<double> solution;
    //! round((solution - wrapped) / period), halves up; 0 where not valid.
    std::vector<std::int64_t> cycles;
    //! Conjugate-gradient iterations the float64 solve took.
    std::size_t iterations = 0;
};

/*!
 * The least-squares method in float64: conjugate gradients (unpreconditioned) on the
 * weighted normal equations until the residual has fallen by 1e-12, U = min(w^2) per
 * difference between two valid pixels (w = 1 without a weight input), then the
 * constant that makes the circular mean of wrapped - solution zero. For small frames.
 */
least_squares_reference reference_least_squares_unwrap(const unwrap_2d_frame& frame,
                                                       double period);

//! float32(wrapped + period * cycles) in float64: the output a K gives.
float reference_apply_cycles(float wrapped, std::int64_t cycles, double period);

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_UNWRAP_2D_REFERENCE_H */
