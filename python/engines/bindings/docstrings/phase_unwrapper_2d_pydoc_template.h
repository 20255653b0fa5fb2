/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of the two-dimensional phase unwrapper engine
  (written by hand; used as the docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_core_phase_unwrapper_2d = R"doc(Two-dimensional phase unwrapper engine for frames of one shape (no GNU Radio).

Most users want gnuradio.cudadsp.unwrap_phase_2d, which takes any 2-D array (or a
complex one) and keeps engines for repeated shapes. This class is the engine itself:
make one for a frame shape and configuration, then call unwrap() per frame. One engine
may be shared by threads; its calls take turns and release the GIL while computing.

Read-only attributes mirror the configuration: width, height, method, period,
wrap_around_x, wrap_around_y, congruent, max_iterations, tolerance, device (as asked
for; backend() tells what was chosen), mcf_solver.)doc";


static const char* __doc_gr_cudadsp_core_phase_unwrapper_2d_phase_unwrapper_2d = R"doc(Make an engine for frames of height rows and width columns.

Args:
    width, height: frame size (>= 1 each, at most 2^30 pixels).
    method: "reliability" (Herraez et al. 2002), "least_squares" (Ghiglia and
        Romero 1994) or "mcf" (minimum-cost flow, Costantini 1998, with statistical
        costs after Chen and Zebker 2001).
    period: period of the phase (1e-30 to 1e30).
    wrap_around_x, wrap_around_y: reliability only: the first and last column (row)
        are neighbours; needs width (height) >= 3.
    congruent: least squares: output congruent to the input, or the smooth solution.
    max_iterations: least squares: most conjugate-gradient iterations (1 to 100000).
    tolerance: least squares: relative residual at which to stop, in (0, 1).
    looks: MCF: looks averaged into each pixel (1 to 1000).
    tile_size: MCF: side of the overlapping tiles solved in parallel and joined
        (64 to 32768), or 0: automatic (512-pixel tiles for frames with a side
        longer than 1024, else the whole frame at once).
    tile_overlap: MCF: pixels neighbouring tiles share, at least (16 to
        tile_size / 2, or to 256 when tile_size is 0).
    device: "auto", "cpu", "cuda" or "cuda:N".
    mcf_solver: MCF: "shortest_paths" (successive shortest paths on the frame's
        grid, the fast default) or "network_simplex" (LEMON's, the reference); both
        find a flow of the least total cost.

Raises:
    ValueError: a parameter is out of range (the message names it).
    RuntimeError: CUDA was asked for but no such device exists, or the memory the
        engine's workspace needs is not available (the message names the frame, the
        bytes needed and the bytes available).)doc";


static const char* __doc_gr_cudadsp_core_phase_unwrapper_2d_unwrap = R"doc(Unwrap one frame.

Args:
    wrapped: real array of shape (height, width) (converted to C-contiguous float32).
    weight: None, or a real array of that shape; a pixel whose weight is not finite
        and > 0 is not valid. Least squares weights each difference by the smaller
        squared weight of its two pixels, relative to the largest valid weight (any
        positive scale of the weights gives the same result).
    mask: None, or a bool (or integer) array of that shape, True (nonzero) where valid.

Returns:
    (unwrapped, cycles, components, report): unwrapped float32 (NaN where not valid),
    cycles int32 with unwrapped = wrapped + period * cycles (0 where not valid),
    components int32 numbered 1..C in row-major order of each component's first pixel
    (0 where not valid; None for least squares), report a dict with valid_pixels,
    components, residues and flow (MCF), iterations and relative_residual.

Raises:
    ValueError: an array has the wrong shape (the message names it).
    TypeError: an array has a dtype not accepted (complex wrapped, float mask).)doc";


static const char* __doc_gr_cudadsp_core_phase_unwrapper_2d_backend = R"doc(The backend in use: "cpu" or "cuda:N".)doc";
