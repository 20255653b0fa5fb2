/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_PHASE_UNWRAP_2D_FF_H
#define INCLUDED_CUDADSP_PHASE_UNWRAP_2D_FF_H

#include <gnuradio/cudadsp/api.h>
#include <gnuradio/sync_block.h>
#include <string>

namespace gr {
namespace cudadsp {

/*!
 * \brief Unwrap the phase of two-dimensional frames (interferograms, phase images).
 * \ingroup cudadsp
 *
 * \details
 * Input 0: one wrapped frame per item, width * height floats, row major (the column
 * index varies fastest). Input 1, present only with weight_input: a weight per pixel
 * (coherence, quality), one frame per item of the same size. Output 0: the unwrapped
 * frame, wrapped + period * K with an integer K per pixel. Every frame is unwrapped on
 * its own; nothing carries from one frame to the next.
 *
 * A pixel is valid when its wrapped phase is finite and, with weight_input, its weight
 * is finite and > 0. Invalid pixels give NaN and take no part in the unwrapping.
 *
 * method "reliability": reliability-guided unwrapping (Herraez et al. 2002, as
 * scikit-image's unwrap_phase): the output is congruent to the input, each connected
 * group of valid pixels is unwrapped on its own with its first pixel in row-major order
 * kept as it is (K = 0). CPU and CUDA give bit-identical frames. wrap_around_x (_y)
 * makes the first and last columns (rows) neighbours. The whole periods across each
 * joined pair of pixels follow the mean phase gradient of the gradient_window x
 * gradient_window pixels about it (1: the pair alone, as Herraez and scikit-image),
 * which decides fewer pairs wrongly in noise.
 *
 * method "least_squares": weighted least squares (Ghiglia and Romero 1994): one DCT
 * Poisson solve for a frame without invalid pixels and without weights, else
 * conjugate gradients preconditioned by that solve (at most max_iterations, until the
 * residual has fallen by tolerance). congruent: the output is the input plus the whole
 * periods nearest to the solution; else the smooth solution itself.
 *
 * Every output item carries a tag "unwrap_2d" whose value is a dict: valid_pixels,
 * components (reliability and MCF: groups of connected valid pixels; least squares: 0),
 * iterations (conjugate-gradient iterations; 0 for the direct solve and for
 * reliability) as uint64, and relative_residual (the final residual norm over the
 * initial one; 0 for the direct solve and for reliability) as double. Input tags pass
 * through to the output item they arrived on.
 *
 * The engine is gr::cudadsp::core::phase_unwrapper_2d (core/phase_unwrap_2d.h), which
 * states the methods exactly. Docs: docs/blocks/phase_unwrap_2d_ff.md.
 */
class CUDADSP_API phase_unwrap_2d_ff : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<phase_unwrap_2d_ff> sptr;

    /*!
     * \param width, height frame size in pixels (>= 1 each; width * height at most
     * 536870911, the largest frame whose item size in bytes fits GNU Radio's int).
     * \param method "reliability", "least_squares" or "mcf" (minimum-cost flow with
     * statistical costs, for single-look and noisy frames; the weight input is its
     * coherence, and the block's frames count as single-look).
     * \param period period of the phase (2*pi radians, 360 degrees, 1 cycle); 1e-30
     * to 1e30 (float32 samples resolve no phase outside).
     * \param wrap_around_x, wrap_around_y reliability only: the first and last column
     * (row) are neighbours; needs width (height) >= 3.
     * \param gradient_window reliability: side of the window whose mean phase
     * gradient decides the whole periods between two neighbours; odd, 1 to 15 (1: the
     * two neighbours alone, Herraez's and scikit-image's rule). MCF: side of the
     * phase filter and of the window whose mean filtered gradient is each
     * difference's expected value in its cost.
     * \param congruent least squares: output congruent to the input (true) or the
     * smooth solution (false).
     * \param max_iterations least squares with weights or invalid pixels: most
     * conjugate-gradient iterations per frame, 1 to 100000.
     * \param tolerance least squares: stop when the residual norm has fallen by this
     * factor, in (0, 1).
     * \param weight_input adds input 1, a weight frame per item (e.g. coherence).
     * \param device "auto", "cpu", "cuda" or "cuda:N".
     * \param tile_size MCF only: side of the square tiles a frame is solved in,
     * independently and in parallel, then joined through their overlaps; 0
     * (automatic): frames up to 512 on their longer side whole, larger ones in tiles
     * of about 512; otherwise 64 to 32768.
     * \param tile_overlap MCF only: pixels that neighbouring tiles share, at least;
     * 16 to tile_size / 2 (to 256 with tile_size 0). 64 lost up to 0.012 of the
     * right-cycle fraction at coherence 0.5, 128 none (docs/design/mcf_unwrapping.md,
     * "Tiles").
     * \param looks MCF only: looks (independent samples) averaged into each pixel of
     * the interferogram, 1 to 1000; with the coherence (input 1) it sets the spread of
     * the phase noise in the arc costs (1: single-look data).
     */
    static sptr make(int width,
                     int height,
                     const std::string& method = "reliability",
                     double period = 6.283185307179586476925286766559,
                     bool wrap_around_x = false,
                     bool wrap_around_y = false,
                     int gradient_window = 7,
                     bool congruent = true,
                     int max_iterations = 100,
                     double tolerance = 1e-5,
                     bool weight_input = false,
                     const std::string& device = "auto",
                     int tile_size = 0,
                     int tile_overlap = 128,
                     int looks = 1);

    virtual int width() const = 0;
    virtual int height() const = 0;
    //! "reliability", "least_squares" or "mcf".
    virtual std::string method() const = 0;
    virtual double period() const = 0;
    virtual bool wrap_around_x() const = 0;
    virtual bool wrap_around_y() const = 0;
    virtual int gradient_window() const = 0;
    virtual bool congruent() const = 0;
    virtual int max_iterations() const = 0;
    virtual double tolerance() const = 0;
    //! Whether input 1 (weights) exists.
    virtual bool weight_input() const = 0;
    //! MCF: side of the tiles as configured (0: automatic).
    virtual int tile_size() const = 0;
    //! MCF: pixels that neighbouring tiles share, at least.
    virtual int tile_overlap() const = 0;
    //! MCF: looks averaged into each pixel.
    virtual int looks() const = 0;

    //! The backend in use: "cpu" or "cuda:N".
    virtual std::string backend() const = 0;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_PHASE_UNWRAP_2D_FF_H */
