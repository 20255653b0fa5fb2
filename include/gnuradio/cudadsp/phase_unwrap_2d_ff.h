/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_PHASE_UNWRAP_2D_FF_H
#define INCLUDED_CUDADSP_PHASE_UNWRAP_2D_FF_H

#include <gnuradio/cudadsp/api.h>
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <gnuradio/sync_block.h>
#include <string>

namespace gr {
namespace cudadsp {

/*!
 * \brief The parameters of phase_unwrap_2d_ff: the engine's, with its defaults, and
 * the weight input.
 * \ingroup cudadsp
 *
 * \details Python and GRC take the same values as keyword arguments (width, height,
 * method, period, wrap_around_x, wrap_around_y, gradient_window, congruent,
 * max_iterations, tolerance, weight_input, device, tile_size, tile_overlap, looks),
 * each the field of the same name: docs/blocks/phase_unwrap_2d_ff.md.
 */
struct CUDADSP_API phase_unwrap_2d_ff_config {
    /*!
     * Frame size (width, height >= 1, required; width * height at most 536870911, the
     * largest frame whose item size in bytes fits GNU Radio's int), method
     * (reliability, least squares or MCF), period, wrap-around (reliability), gradient
     * window, congruence, iterations and tolerance (least squares), tiles and looks
     * (MCF) and device: see core::phase_unwrap_2d_config.
     */
    core::phase_unwrap_2d_config unwrapping;
    //! Adds input 1, a weight frame per item (e.g. coherence): MCF takes it as the
    //! coherence of its noise model, least squares as weights.
    bool weight_input = false;
};

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
 * method "mcf": minimum-cost flow with statistical costs (Costantini 1998, after Chen
 * and Zebker's smooth model), for single-look and noisy frames: the weight input is the
 * coherence, looks the looks averaged into each pixel; large frames are solved in
 * overlapping tiles (tile_size, tile_overlap) on the host's threads.
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
     * Validates \p config (std::invalid_argument naming the field by its keyword
     * name) and selects the backend. Python and GRC:
     * phase_unwrap_2d_ff(width, height, method="reliability", ...), keyword for
     * keyword the fields of phase_unwrap_2d_ff_config.
     */
    static sptr make(const phase_unwrap_2d_ff_config& config);

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
