#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""patch_offsets: range and azimuth offsets of image patches as GMTSAR's xcorr
computes them (docs/design/gmtsar_xcorr.md; the engine of cudadsp_xcorr and
patch_xcorr_cc), on the CPU or a CUDA device."""

import functools

import numpy

from .._engines import patch_correlator


# Engines keep FFT plans (on the GPU for CUDA): a few are kept.
@functools.lru_cache(maxsize=4)
def _engine(xsearch, ysearch, range_interp, highres, interp, device):
    return patch_correlator(xsearch=xsearch, ysearch=ysearch, range_interp=range_interp,
                            highres=highres, interp=interp, device=device)


def patch_offsets(master, aligned, x, y, xsearch=64, ysearch=64, range_interp=2,
                  highres=True, interp=16, rshift=0, ashift=0, stretch=0.0,
                  device="auto"):
    """Offsets of the aligned image against the master at patch centres.

    Args:
        master, aligned: SLCs, complex (rows, columns) or int16 (rows, columns, 2)
            interleaved I/Q as GMTSAR stores them.
        x, y: the patches' centres in the master (columns, rows), integers.
        xsearch, ysearch: search half-widths (range-interpolated samples, rows), powers
            of two from 8 to 1024; each patch is 4 xsearch x 4 ysearch samples.
        range_interp: range interpolation factor (GMTSAR -range_interp; 1: -norange).
        highres, interp: the high-resolution step and its factor (GMTSAR -nointerp,
            -interp).
        rshift, ashift, stretch: the aligned patch's a-priori shift: column x + rshift,
            row y + ashift + int(y * stretch) (GMTSAR's PRM rshift, ashift and PRF
            stretch).
        device: "auto", "cpu", "cuda" or "cuda:N".

    Returns:
        A dict of NumPy arrays, one value per patch: x, y, dx, dy (GMTSAR's offsets,
        the columns and rows to add to a master position to reach the same feature in
        the aligned image), corr (the normalised correlation, percent), and the raw
        results jpeak, ipeak, xfrac, yfrac; plus backend.

    Raises:
        ValueError or TypeError naming the argument at fault, or the first patch whose
        window leaves its image.
    """
    engine = _engine(int(xsearch), int(ysearch), int(range_interp), bool(highres),
                     int(interp), str(device))
    x = numpy.asarray(x)
    y = numpy.asarray(y)
    results, dx, dy = engine.correlate(numpy.asarray(master), numpy.asarray(aligned),
                                       x, y, rshift, ashift, stretch)
    out = {"x": x, "y": y, "dx": dx, "dy": dy, "backend": engine.backend()}
    for field in results.dtype.names:
        out[field] = results[field]
    return out
