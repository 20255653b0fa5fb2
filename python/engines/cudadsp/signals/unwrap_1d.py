#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""unwrap_phase: numpy.unwrap's rule on the CPU or a CUDA device (the engine of
phase_unwrap_ff, docs/blocks/phase_unwrap_ff.md)."""

import functools
import math

import numpy

from .._engines import phase_unwrapper


# Engines keep buffers (on the GPU for CUDA): a few are kept for repeated calls.
@functools.lru_cache(maxsize=4)
def _engine(period, vlen, device):
    return phase_unwrapper(period=period, vlen=vlen, device=device)


def unwrap_phase(wrapped, period=2 * math.pi, device="auto"):
    """Unwrap phase along the last axis, as numpy.unwrap(wrapped, period=period).

    Args:
        wrapped: real array of any shape (converted to float32); each vector along its
            last axis is unwrapped on its own.
        period: 2*pi for radians, 360 for degrees, 1 for cycles (1e-30 to 1e30).
        device: "auto", "cpu", "cuda" or "cuda:N".

    Returns:
        float32 array of wrapped's shape. The correction is kept as an integer count of
        periods and applied in float64, so the output is the float32 nearest to
        wrapped + period * K. NaN or +-Inf gives NaN at that sample only (numpy.unwrap
        spreads it to the rest of the vector); a finite sample of magnitude 2^24
        periods or more is not a phase and gives NaN too.

    Raises:
        ValueError: a bad period or device, or an empty array with no last axis.
        TypeError: a complex, boolean or object array.

    For a stream cut into calls (state carried from one to the next), use the engine,
    cudadsp.signals.phase_unwrapper(period, device=...).unwrap(chunk).
    """
    array = numpy.asarray(wrapped)
    if array.ndim == 0:
        raise ValueError("wrapped: must have at least one axis")
    if array.size == 0:
        return numpy.empty(array.shape, dtype=numpy.float32)
    vlen = array.shape[-1]
    engine = _engine(float(period), vlen, device)
    return engine.unwrap(array, fresh=True)
