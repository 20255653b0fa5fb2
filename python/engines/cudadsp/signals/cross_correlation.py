#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""cross_correlate: the delay, coherence and phase between two complex signals, frame
by frame (the engine of cross_correlator_cc, docs/blocks/cross_correlator_cc.md), on
the CPU or a CUDA device."""

import functools
import typing

import numpy

from .._engines import cross_correlator


class cross_correlation_result(typing.NamedTuple):
    """What cross_correlate returns, one entry a frame (float32 unless said).

    lag: samples at 1/interp resolution; x[n] ~ y[n - lag].
    magnitude: |r(lag)| / sqrt(E_x E_y), in [0, 1].
    phase: arg r(lag), radians in (-pi, pi].
    spectrum: None, or complex64 (frames, transform_len): X conj(Y) in FFT order.
    correlation: None, or complex64 (frames, 2 max_lag + 1): r[-max_lag .. max_lag].
    """

    lag: numpy.ndarray
    magnitude: numpy.ndarray
    phase: numpy.ndarray
    spectrum: typing.Optional[numpy.ndarray]
    correlation: typing.Optional[numpy.ndarray]


# Engines keep FFT plans and buffers (on the GPU for CUDA): a few are kept.
@functools.lru_cache(maxsize=4)
def _engine(fft_len, interp, max_lag, device):
    return cross_correlator(fft_len, interp=interp, max_lag=max_lag, device=device)


def cross_correlate(x, y, fft_len=None, interp=16, max_lag=None, spectrum=False,
                    correlation=False, device="auto"):
    """Cross-correlate x and y frame by frame and locate each frame's peak.

    Args:
        x, y: complex (or real) arrays of the same size. Frames are consecutive runs
            of fft_len samples of the flattened arrays; by default fft_len is the
            length of the last axis, so each row is a frame.
        fft_len: samples a frame (>= 2), when not the last axis.
        interp: the lag's resolution is 1/interp sample (>= 1).
        max_lag: the largest |lag| searched (default fft_len - 1).
        spectrum, correlation: also return the cross-spectra / correlation vectors.
        device: "auto", "cpu", "cuda" or "cuda:N".

    Returns:
        cross_correlation_result(lag, magnitude, phase, spectrum, correlation). A frame
        with no energy in x or y gives lag 0, magnitude 0, phase 0; one with a
        non-finite sample gives NaN.

    Raises:
        ValueError: sizes that are not whole, equal frames, or a parameter out of range
            (named). TypeError: a boolean or object array.
    """
    x, y = numpy.asarray(x), numpy.asarray(y)
    if fft_len is None:
        if x.ndim == 0:
            raise ValueError("x: must have at least one axis")
        fft_len = x.shape[-1]
    engine = _engine(int(fft_len), int(interp), 0 if max_lag is None else int(max_lag),
                     device)
    found = engine.process(x, y, spectrum=spectrum, correlation=correlation)
    return cross_correlation_result(found["lag"], found["magnitude"], found["phase"],
                                    found.get("spectrum"), found.get("correlation"))
