#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""What could ISCE3's golden correlation peaks and offsets of its test pair be?

Usage: /usr/bin/python3 tools/isce3_golden_candidates.py      (NumPy; about 30 s)

Issue 24 measured, outside the project, ISCE3's golden files for its PyCuAmpcor test
(data/insar, window 64 across x 32 down, half search 20, skip 32, raw oversampling 2,
correlation oversampling 64, zoom 8, deramp 1) against ours: SNR and covariance within
ISCE3's tolerances, the correlation peak 0.184 away from our raw surface's maximum on
average (every window beyond 1/64), the offsets 0.0176 pixel on average and one window
0.109 pixel away. The golden files stay outside the project; this script measures, on
the pair, the statistics those numbers could belong to:

  1. per window, our raw and fine correlation maxima and the magnitude of the pair's
     complex correlation at lag 0 (the coherence the data set is named after, rho0.8),
     each as the mean distance from our raw maximum;
  2. the oversampled stage (design note 4.9-4.12) with other detections of the
     oversampled windows: amplitude (ours and PyCuAmpcor's), intensity, the real part
     and the complex correlation magnitude (the last two without deramping; with it,
     each window's own rotation decorrelates the pair), against our offsets;
  3. ISCE3's derampAxis (deramp_axis "down" and "across") against both axes.
"""

import numpy as np

from isce3_pair import (CONFIG, GRID, H, HALF, HALF_ZOOM, ORACLE, Q, R, SKIP, START, W, ZOOM,
                        load_pair)

ISSUE = "issue 24's golden: peak 0.184 from our raw; offsets max 0.109, mean 0.0176, 1 > 0.1"


def complex_correlation(template, search):
    """|sum conj(t) s| / sqrt(sum |t|^2 sum |s|^2) at every lag of template in search."""
    h, w = template.shape
    lags = (search.shape[0] - h + 1, search.shape[1] - w + 1)
    energy = np.sum(np.abs(template) ** 2)
    out = np.empty(lags)
    for u in range(lags[0]):
        for v in range(lags[1]):
            block = search[u:u + h, v:v + w]
            out[u, v] = (np.abs(np.vdot(template, block)) /
                         np.sqrt(energy * np.sum(np.abs(block) ** 2)))
    return out


def fine_offsets(reference, secondary, detect, deramp):
    """PyCuAmpcor's two passes with the oversampled windows detected by `detect`
    (None: the complex correlation magnitude); offsets (down, across) and fine peaks."""
    down, across, peak = (np.empty(GRID) for _ in range(3))
    for j in range(GRID[0]):
        for k in range(GRID[1]):
            rd, ra = START + j * SKIP, START + k * SKIP
            ref_c = reference[rd:rd + H, ra:ra + W].astype(complex)
            sec_c = secondary[rd - HALF:rd + H + HALF, ra - HALF:ra + W + HALF].astype(complex)
            amp = np.abs(ref_c)
            raw = ORACLE.normalized_correlation(amp - amp.mean(), np.abs(sec_c))
            p_d, p_a, _ = ORACLE.max_location(raw)
            s_d = ORACLE.zoom_start(p_d, HALF, HALF_ZOOM)
            s_a = ORACLE.zoom_start(p_a, HALF, HALF_ZOOM)
            zoom = sec_c[s_d:s_d + H + 2 * HALF_ZOOM, s_a:s_a + W + 2 * HALF_ZOOM]
            if deramp:
                ref_c, zoom = ORACLE.deramp_method1(ref_c), ORACLE.deramp_method1(zoom)
            x = ORACLE.fft_oversample(ref_c, R)
            y = ORACLE.fft_oversample(zoom, R)
            if detect is None:
                surface = complex_correlation(x, y)
            else:
                x, y = detect(x), detect(y)
                surface = ORACLE.normalized_correlation(x - x.mean(), y)
            padded = np.zeros((ZOOM, ZOOM), complex)
            padded[:ZOOM, :ZOOM] = surface[:-1, :-1]
            k_d, k_a, peak[j, k] = ORACLE.max_location(ORACLE.fft_oversample(padded, Q).real)
            down[j, k] = s_d - HALF + k_d / (Q * R)
            across[j, k] = s_a - HALF + k_a / (Q * R)
    return down, across, peak


def lag_zero_coherence(reference, secondary):
    """|complex correlation| of each reference window with the secondary at lag 0."""
    out = np.empty(GRID)
    for j in range(GRID[0]):
        for k in range(GRID[1]):
            rd, ra = START + j * SKIP, START + k * SKIP
            x = reference[rd:rd + H, ra:ra + W].astype(complex)
            y = secondary[rd:rd + H, ra:ra + W].astype(complex)
            out[j, k] = complex_correlation(x, y)[0, 0]
    return out


def offset_differences(down, across, ours):
    d = np.concatenate([np.abs(down - ours.offset_down).ravel(),
                        np.abs(across - ours.offset_across).ravel()])
    return f"max {d.max():.4f}  mean {d.mean():.4f}  beyond 0.1: {np.sum(d > 0.1)}"


def main():
    reference, secondary = load_pair()
    ours = ORACLE.dense_offsets_reference(reference, secondary, **CONFIG)
    raw = ORACLE.dense_offsets_reference(reference, secondary, peak="raw", **CONFIG).peak
    print(ISSUE)
    print("\n1. per-window statistics: mean, and mean |x - our raw maximum|")
    for name, values in (("raw maximum (ours, v2)", raw),
                         ("fine maximum (ours, ISCE3's corrMaxValue)", ours.peak),
                         ("|complex correlation| at lag 0", lag_zero_coherence(reference,
                                                                               secondary))):
        print(f"   {name:44s} {values.mean():.4f}  {np.abs(values - raw).mean():.4f}")
    print("\n2. oversampled stage, other detections: fine peak mean, |peak - raw| mean; "
          "offsets against ours")
    for name, detect, deramp in (("amplitude, deramp 1 (ours)", np.abs, True),
                                 ("intensity, deramp 1", lambda z: np.abs(z) ** 2, True),
                                 ("real part, no deramp", np.real, False),
                                 ("complex magnitude, no deramp", None, False)):
        down, across, peak = fine_offsets(reference, secondary, detect, deramp)
        print(f"   {name:30s} {peak.mean():.4f}  {np.abs(peak - raw).mean():.4f}   "
              f"{offset_differences(down, across, ours)}")
    print("\n3. ISCE3's derampAxis against both axes (offsets; fine peaks mean |diff|)")
    for axis in ("down", "across"):
        result = ORACLE.dense_offsets_reference(reference, secondary, deramp_axis=axis,
                                                **CONFIG)
        print(f"   deramp_axis {axis:7s} "
              f"{offset_differences(result.offset_down, result.offset_across, ours)}   "
              f"peak {np.abs(result.peak - ours.peak).mean():.4f}")


if __name__ == "__main__":
    main()
