#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""track_before_detect: the spatio-temporal track-before-detect filter over a stack of
frames (the engine of st_tbd_ff, docs/blocks/st_tbd_ff.md), on the CPU or a CUDA
device."""

import typing

import numpy

from .._engines import st_tbd


class tbd_result(typing.NamedTuple):
    """What track_before_detect returns.

    detection_map: float32 (frames, height, width): D = max over hypotheses of the state.
    argmax: int32 (frames, height, width): the hypothesis of D (smallest on ties).
    detections: structured array (frame, x, y, vx, vy, value) of the local maxima of D
        above the threshold, at most max_detections_per_frame a frame, sorted by
        (frame, y, x).
    """

    detection_map: numpy.ndarray
    argmax: numpy.ndarray
    detections: numpy.ndarray


def track_before_detect(frames, hypotheses, alpha=0.9, threshold=1.0,
                        max_detections_per_frame=1024, device="auto"):
    """Run a fresh filter (state 0) over frames in time order.

    Args:
        frames: real array (frames, height, width); NaN or +-Inf counts as 0.
        hypotheses: the motion hypotheses, as tbd_velocity_grid(vmax, step, spread)
            gives them: [(vx, vy, [(source, dx, dy, weight), ...]), ...] in pixels per
            frame.
        alpha: forgetting factor, 0 < alpha < 1.
        threshold: detection threshold on the detection map.
        device: "auto", "cpu", "cuda" or "cuda:N".

    For a stream cut into calls (state carried), keep an engine:
    cudadsp.tbd.st_tbd(width, height, hypotheses, ...).process(frames).

    Raises:
        ValueError: frames not 3-D, or a parameter or hypothesis out of range (named).
        TypeError: a complex, boolean or object array.
    """
    frames = numpy.asarray(frames)
    if frames.ndim != 3:
        raise ValueError(f"frames: must be (frames, height, width), got shape {frames.shape}")
    engine = st_tbd(frames.shape[2], frames.shape[1], hypotheses, alpha=alpha,
                    threshold=threshold, max_detections_per_frame=max_detections_per_frame,
                    device=device)
    return tbd_result(*engine.process(frames))
