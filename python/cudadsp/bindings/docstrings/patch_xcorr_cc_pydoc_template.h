/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of patch_xcorr_cc (written by hand; used as the
  docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_patch_xcorr_cc = R"doc(InSAR coregistration offsets (GMTSAR xcorr's frequency method) on streams of image lines.

Inputs: port 0 master, port 1 aligned image; one line (vector of width complex samples)
per item. Strip k of nx patches is centred on line first_line + k*line_step, its patches
on GMTSAR's columns for that width. Output: one vector of 5 floats per patch,
(x, dx, y, dy, corr) as in freq_xcorr.dat (dx, dy: aligned minus master position,
rshift/ashift included; corr in percent); the same record as a dict on the message
port "patches" (keys x, dx, y, dy, corr, strip). Docs: docs/blocks/patch_xcorr_cc.md.)doc";


static const char* __doc_gr_cudadsp_patch_xcorr_cc_patch_xcorr_cc = R"doc()doc";


static const char* __doc_gr_cudadsp_patch_xcorr_cc_make = R"doc(Make a streaming patch cross-correlator.

Args:
    width: samples a line.
    nx: patches per strip (>= 1).
    first_line: centre line of strip 0; < 0 for the first line where every window fits.
    line_step: lines between strips (>= 1).
    xsearch, ysearch: search half-widths (powers of two, 8 .. 1024).
    range_interp: range interpolation factor (power of two, 1 .. 16).
    interp: high-resolution factor (power of two, 1 .. 64); 0: no high-resolution step.
    rshift, ashift: integer range and azimuth shifts of the aligned image.
    device: "auto", "cpu", "cuda" or "cuda:N".

Raises:
    ValueError: a parameter is out of range (the message names it).
    RuntimeError: CUDA was asked for but no such device exists.)doc";


static const char* __doc_gr_cudadsp_patch_xcorr_cc_patch_column = R"doc(Centre column of patch i (0 .. nx-1) of every strip.)doc";


static const char* __doc_gr_cudadsp_patch_xcorr_cc_strip_line = R"doc(Centre line of strip k.)doc";


static const char* __doc_gr_cudadsp_patch_xcorr_cc_backend = R"doc(The backend in use: "cpu" or "cuda:N".)doc";
