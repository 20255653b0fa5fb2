#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""polarimetric_moments: weather-radar moments and polarimetric products of
dual-polarisation I/Q (the engine of polarimetric_products_cf,
docs/blocks/polarimetric_products_cf.md), on the CPU or a CUDA device."""

import functools

import numpy

from .._engines import polarimetric_processor

#: The products, in the engine's order, with their units.
PRODUCTS = {"Zh": "dBZ", "ZDR": "dB", "V": "m/s", "W": "m/s", "PhiDP": "deg", "RhoHV": "",
            "SNRh": "dB", "CLUT": "dB", "CPA": ""}


# Engines keep buffers (on the GPU for CUDA): a few are kept for repeated calls.
@functools.lru_cache(maxsize=4)
def _engine(ngates, pulses_per_radial, settings):
    return polarimetric_processor(ngates, pulses_per_radial=pulses_per_radial,
                                  **dict(settings))


def polarimetric_moments(h, v, **settings):
    """The nine products of every radial and gate of dual-polarisation I/Q.

    Args:
        h, v: complex arrays of shape (..., pulses_per_radial, ngates): the pulses of
            each radial in time order, each a range profile of ngates gates; any leading
            axes are radials. Simultaneous mode: the H and V receivers; alternating
            mode: h the co-polar input (H and V pulses alternating), v the cross-polar.
        settings: by keyword, the block's parameters: wavelength_m (0.0531), prt_s
            (1e-3), mode ("simultaneous" or "alternating"), first_gate_m, gate_spacing_m
            (150), zcal_db, zdr_cal_db, phidp_offset_deg, noise_h, noise_v,
            snr_threshold_db, clutter_filter ("none", "regression", "gmap"),
            clutter_only_where_detected, cpa_threshold, antenna_rate_deg_s,
            beamwidth_deg, max_regression_order, invert_velocity, invert_phidp,
            device ("auto", "cpu", "cuda", "cuda:N").

    Returns:
        A dict of float32 arrays of shape (..., ngates), keyed by PRODUCTS (Zh dBZ, ZDR
        dB, V m/s positive away from the radar, W m/s, PhiDP deg, RhoHV, SNRh dB, CLUT dB
        removed, CPA).

    Raises:
        ValueError: a setting out of its physical bounds (named), or h and v not whole
            radials of the same shape. TypeError: an unknown setting, a boolean array.
    """
    h, v = numpy.asarray(h), numpy.asarray(v)
    if h.ndim < 2:
        raise ValueError(f"h: must have shape (..., pulses_per_radial, ngates), got {h.shape}")
    if v.shape != h.shape:
        raise ValueError(f"v: must have h's shape {h.shape}, got {v.shape}")
    pulses, ngates = h.shape[-2], h.shape[-1]
    engine = _engine(ngates, pulses, tuple(sorted(settings.items())))
    products = engine.process(h, v)
    leading = h.shape[:-2]
    return {name: products[name].reshape(leading + (ngates,)) for name in PRODUCTS}
