#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""kdp: specific differential phase and processed PhiDP of radials (the engine of
kdp_ff, docs/blocks/kdp_ff.md), on the CPU or a CUDA device."""

import functools
import typing

import numpy

from .._engines import kdp_processor


class kdp_result(typing.NamedTuple):
    """What kdp returns, each array of phidp_deg's shape (float32).

    processed_phidp_deg: the unfolded, filtered PhiDP (deg), continuous along the
        radial (it may leave (-180, 180]); NaN outside every valid segment.
    kdp_deg_km: one-way specific differential phase (deg/km); NaN where the processed
        PhiDP is.
    """

    processed_phidp_deg: numpy.ndarray
    kdp_deg_km: numpy.ndarray


# Engines keep buffers (on the GPU for CUDA): a few are kept for repeated calls.
@functools.lru_cache(maxsize=4)
def _engine(ngates, gate_spacing_m, window_km, max_gap_km, min_rhohv, min_snr_db, device):
    return kdp_processor(ngates, gate_spacing_m=gate_spacing_m, window_km=window_km,
                         max_gap_km=max_gap_km, min_rhohv=min_rhohv,
                         min_snr_db=min_snr_db, device=device)


def kdp(phidp_deg, gate_spacing_m=150.0, window_km=3.0, max_gap_km=1.0, rhohv=None,
        min_rhohv=0.8, snr_db=None, min_snr_db=3.0, device="auto"):
    """KDP and processed PhiDP of radials.

    Args:
        phidp_deg: real array whose last axis is range (gates); any leading axes
            (azimuth, sweep) are radials. Wrapped in (-180, 180] deg or not.
        gate_spacing_m: range gate spacing (> 0).
        window_km: length of the least-squares range filter (at least two gates).
        max_gap_km: masked runs up to this long are interpolated over.
        rhohv, snr_db: None, or arrays of phidp_deg's shape; gates with RhoHV below
            min_rhohv or SNR below min_snr_db (dB), or NaN there, are masked.
        device: "auto", "cpu", "cuda" or "cuda:N".

    Returns:
        kdp_result(processed_phidp_deg, kdp_deg_km). The CPU and CUDA backends give the
        same bits.

    Raises:
        ValueError: a parameter out of range (named), or an array whose shape differs.
        TypeError: a complex, boolean or object array.
    """
    phidp = numpy.asarray(phidp_deg)
    if phidp.ndim == 0 or phidp.shape[-1] == 0:
        raise ValueError("phidp_deg: must have a last axis of at least one gate, got "
                         f"shape {phidp.shape}")
    engine = _engine(phidp.shape[-1], float(gate_spacing_m), float(window_km),
                     float(max_gap_km), float(min_rhohv), float(min_snr_db), device)
    if phidp.size == 0:
        empty = numpy.empty(phidp.shape, dtype=numpy.float32)
        return kdp_result(empty, empty.copy())
    return kdp_result(*engine.process(phidp, rhohv, snr_db))
