/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of phase_unwrap_2d_ff (written by hand; used as the
  docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff = R"doc(Unwrap the phase of two-dimensional frames (interferograms, phase images).

Input 0: one wrapped frame per item, width * height floats, row major. Input 1 (only
with weight_input=True): a weight frame per item (coherence, quality). Output 0: the
unwrapped frame, wrapped + period * K with an integer K per pixel. Frames are
unwrapped independently.

A pixel is valid when its phase is finite and (with weights) its weight is finite and
> 0; invalid pixels give NaN.

method "reliability": reliability-guided unwrapping (Herraez et al. 2002, as
scikit-image's unwrap_phase); each connected group of valid pixels keeps its first
pixel in row-major order as it is. The whole periods between two joined neighbours
follow the mean phase gradient of the gradient_window x gradient_window pixels about
them (1: the pair alone, as scikit-image). CPU and CUDA give bit-identical frames.
method "least_squares": weighted least squares (Ghiglia and Romero 1994), a DCT
Poisson solve or preconditioned conjugate gradients.

Each output item carries a tag "unwrap_2d", a dict with valid_pixels, components,
iterations (uint64) and relative_residual (double).

For NumPy arrays, use gnuradio.cudadsp.unwrap_phase_2d.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_phase_unwrap_2d_ff = R"doc()doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_make = R"doc(Make a two-dimensional phase unwrapper.

Args:
    width, height: frame size in pixels (>= 1 each, width * height <= 536870911).
    method: "reliability", "least_squares" or "mcf".
    period: period of the phase: 2*pi radians, 360 degrees, 1 cycle
        (1e-30 to 1e30: float32 samples resolve no phase of a period outside).
    wrap_around_x, wrap_around_y: reliability only: the first and last column (row)
        are neighbours; needs width (height) >= 3.
    gradient_window: reliability only: side of the window whose mean phase gradient
        decides the whole periods between two neighbours; odd, 1 to 15 (default 5;
        1: Herraez's and scikit-image's rule).
    congruent: least squares: output congruent to the input (True) or the smooth
        least-squares solution (False).
    max_iterations: least squares with weights or invalid pixels: most
        conjugate-gradient iterations per frame (1 to 100000).
    tolerance: least squares: stop when the residual norm has fallen by this factor,
        in (0, 1).
    weight_input: add input 1, one weight frame per item.
    device: "auto", "cpu", "cuda" or "cuda:N".
    tile_size: MCF only: side of the square tiles a frame is solved in, in parallel,
        then joined through their overlaps; 0 (automatic): frames up to 512 on their
        longer side whole, larger ones in tiles of about 512; else 64 to 32768.
    tile_overlap: MCF only: pixels that neighbouring tiles share, at least; 16 to
        tile_size / 2 (to 256 with tile_size 0).
    looks: MCF only: looks averaged into each pixel, 1 to 1000; with the coherence
        (input 1) it sets the spread of the phase noise in the arc costs.

Raises:
    ValueError: a parameter is out of range (the message names it).
    RuntimeError: CUDA was asked for but no such device exists.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_width = R"doc(Columns of a frame.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_height = R"doc(Rows of a frame.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_method = R"doc("reliability", "least_squares" or "mcf".)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_period = R"doc(The period of the phase.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_wrap_around_x = R"doc(Whether the first and last columns are neighbours.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_wrap_around_y = R"doc(Whether the first and last rows are neighbours.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_gradient_window = R"doc(Reliability and MCF: side of the window whose mean phase gradient decides each edge.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_congruent = R"doc(Least squares: whether the output is congruent to the input.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_max_iterations = R"doc(Least squares: most conjugate-gradient iterations per frame.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_tolerance = R"doc(Least squares: the factor by which the residual norm must fall.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_weight_input = R"doc(Whether input 1 (weights) exists.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_tile_size = R"doc(MCF: side of the tiles as configured (0: automatic).)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_tile_overlap = R"doc(MCF: pixels that neighbouring tiles share, at least.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_looks = R"doc(MCF: looks averaged into each pixel.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_2d_ff_backend = R"doc(The backend in use: "cpu" or "cuda:N".)doc";
