#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Can ISCE3's float32 arithmetic move a dense offset of the ISCE3 pair by 0.1 pixel?

Usage: /usr/bin/python3 tools/isce3_float32_offsets.py      (NumPy and SciPy; about a minute)

Runs PyCuAmpcor's method on data/insar (ISCE3's test configuration: window 64 across x 32
down, half search 20, skip 32, raw oversampling 2, correlation oversampling 64, zoom 8,
deramp 1, 13 x 12 windows) with the steps of the float64 oracle
(python/engines/cudadsp/insar/dense_offsets_reference.py) and, in turn, with float32
emulations of what ISCE3's CUDA PyCuAmpcor does in single precision:

  isce3-norm      the reference mean (512-thread strided sums and tree reduction) and the
                  normaliser of both correlations (cuNormalizeFixed<N>, N = 128 for the
                  104-wide raw search window, 256 for the 136-wide oversampled one: per row
                  a Hillis-Steele inclusive scan over N lanes of the value and its square,
                  window row sums as differences of two scan entries, the window sums
                  carried down the rows by adding the new row and subtracting the old,
                  template sum of squares by N-thread strided sums and a tree, rsqrt of
                  (S2 - S1^2 * (1/(h w))) * T2 + FLT_EPSILON), everything else float64;
  isce3-norm-fma  the same with S2 - S1^2 * (1/(h w)) fused (nvcc contracts by default);
  float32         every step in float32: amplitudes, both correlations (single-precision
                  FFTs), the normaliser as above, deramping and both FFT oversamplings;
  isce3-sinc      as isce3-norm, and the surface oversampled as ISCE3's
                  corrSurfaceOverSamplingMethod = 1 does (cuSincOverSamplerR2R), which its
                  test holds to the same
                  golden: 8 taps of sinc(0.75 x) under a Hann window, 4096 phases per sample,
                  weights divided by their sum, only within 2 surface samples of the zoom
                  centre (moved by the clamped peak's shift), zero elsewhere.

It prints, per variant, how far the raw surfaces and the fine surfaces' maxima (ISCE3's
correlation peak) move, how many windows change their integer peak or zoom start and the
differences of the offsets from the oracle (max, mean, the windows beyond 0.02 px), then
how far each window is from such a change: the gap of the raw surface's maximum to its
runner-up, the fine surface's gap to its best value 0.1 px or more away, and the offset
each window would get if its integer peak moved to its best neighbouring lag, and last the
oracle's offsets under other readings of the configuration (deramp, zoom, oversampling, the
window grid one pixel further) against ISCE3's reading.
"""

import numpy as np
import scipy.fft

from isce3_pair import (CONFIG, GRID, H, HALF, HALF_ZOOM, ORACLE, Q, R, SKIP, START, W, ZOOM,
                        load_pair)

F32 = np.float32
# ISCE3's sinc surface oversampler (cuSincOverSampler.h): taps, kernel phases per sample,
# pass band (fraction of Nyquist) and the half width, in input samples, it interpolates
SINC_TAPS, SINC_PHASES, SINC_BAND, SINC_WINDOW = 8, 4096, 0.75, 2
MEAN_THREADS = 512  # PyCuAmpcor's NTHREADS: the block of its mean-subtraction kernel


def block_sum(values, threads):
    """A CUDA block's float32 sum: strided per-thread sums, then a halving tree."""
    flat = np.asarray(values, F32).ravel()
    partial = np.zeros(threads, F32)
    for start in range(0, flat.size, threads):
        chunk = flat[start:start + threads]
        partial[:chunk.size] += chunk
    width = threads
    while width > 1:
        width //= 2
        partial[:width] = partial[:width] + partial[width:2 * width]
    return partial[0]


def subtract_mean(amplitude, precision):
    if precision == "float64":
        return amplitude - amplitude.mean()
    amplitude = amplitude.astype(F32)
    mean = F32(block_sum(amplitude, MEAN_THREADS) * F32(1.0 / amplitude.size))
    return amplitude - mean


def inclusive_scan_rows(rows, lanes):
    """Hillis-Steele inclusive scan of each row over `lanes` float32 lanes (zeros beyond)."""
    scan = np.zeros((rows.shape[0], lanes), F32)
    scan[:, :rows.shape[1]] = rows
    offset = 1
    while offset < lanes:
        scan[:, offset:] = scan[:, offset:] + scan[:, :-offset]
        offset *= 2
    return scan


def row_window_sums(rows, width, lanes):
    """Per row, the sums over `width` consecutive columns: two scan entries subtracted."""
    scan = np.concatenate([np.zeros((rows.shape[0], 1), F32), inclusive_scan_rows(rows, lanes)],
                          axis=1)
    count = rows.shape[1] - width + 1
    return scan[:, width:width + count] - scan[:, :count]


def normalise_isce3(raw, template, search, fused):
    """ISCE3's cuNormalizeFixed<N> on a float32 raw correlation surface."""
    h, w = template.shape
    lanes = 64
    while lanes < search.shape[1]:
        lanes *= 2
    search = search.astype(F32)
    sums = row_window_sums(search, w, lanes)
    sums2 = row_window_sums(search * search, w, lanes)
    t2 = block_sum(template.astype(F32) ** 2, lanes)
    coeff = F32(1.0 / (h * w))
    out = raw.astype(F32).copy()
    s1 = np.zeros(sums.shape[1], F32)
    s2 = np.zeros(sums.shape[1], F32)
    for row in range(search.shape[0]):
        if row < h:
            s1 += sums[row]
            s2 += sums2[row]
        else:
            s1 += sums[row] - sums[row - h]
            s2 += sums2[row] - sums2[row - h]
        if row >= h - 1:
            square = s1 * s1
            if fused:  # one rounding of s2 - square * coeff
                centred = (s2.astype(np.float64) - square.astype(np.float64) * coeff).astype(F32)
            else:
                centred = s2 - square * coeff
            norm2 = centred * t2 + F32(ORACLE.FLT_EPSILON)
            out[row - h + 1] *= F32(1.0) / np.sqrt(norm2)
    return out


def correlate(template, search, precision):
    """Valid-lag correlation (section 4.3), float64 or single-precision FFTs."""
    h, w = template.shape
    dtype = np.float64 if precision == "float64" else F32
    padded = np.zeros(search.shape, dtype)
    padded[:h, :w] = template
    product = np.conj(scipy.fft.rfft2(padded)) * scipy.fft.rfft2(search.astype(dtype))
    raw = scipy.fft.irfft2(product, s=search.shape)
    return raw[:search.shape[0] - h + 1, :search.shape[1] - w + 1]


def normalised(template, search, variant):
    if variant == "float64":
        return ORACLE.normalized_correlation(template, search)
    precision = "float32" if variant == "float32" else "float64"
    raw = correlate(template, search, precision)
    return normalise_isce3(raw, template, search, fused=variant == "isce3-norm-fma")


def oversample(z, factor, precision):
    if precision == "float64":
        return ORACLE.fft_oversample(z, factor)
    z = z.astype(np.complex64)
    n0, n1 = z.shape
    m0, m1 = n0 * factor, n1 * factor
    spectrum = scipy.fft.fft2(z)
    j0 = np.arange(-(n0 // 2 - 1), n0 // 2 + 1)
    j1 = np.arange(-(n1 // 2 - 1), n1 // 2 + 1)
    padded = np.zeros((m0, m1), np.complex64)
    padded[np.ix_(j0 % m0, j1 % m1)] = spectrum[np.ix_(j0 % n0, j1 % n1)]
    return scipy.fft.ifft2(padded) * F32(m0 * m1 / (n0 * n1))


def deramp(z, precision):
    if precision == "float64":
        return ORACLE.deramp_method1(z, "isce3")
    z = z.astype(np.complex64)
    along_across = np.sum(z[:, :-1] * np.conj(z[:, 1:]), dtype=np.complex64)
    along_down = np.sum(z[:-1, :] * np.conj(z[1:, :]), dtype=np.complex64)
    phi_across = np.arctan2(F32(along_across.imag), F32(along_across.real))
    phi_down = np.arctan2(F32(along_down.imag), F32(along_down.real))
    rows, cols = np.indices(z.shape).astype(F32)
    phase = rows * phi_down + cols * phi_across
    return z * (np.cos(phase) + 1j * np.sin(phase)).astype(np.complex64)


def sinc_taps():
    """ISCE3's sinc surface kernel: 8 taps at 4096 phases, sinc(0.75 x) times a Hann window."""
    count = SINC_TAPS * SINC_PHASES
    centre = (count - 1) / 2.0
    position = np.arange(count + 1) - centre
    window = 0.5 + 0.5 * np.cos(np.pi * position / centre)
    return np.sinc(position * SINC_BAND / SINC_PHASES) * window


def sinc_axis(size_in, size_out, shift, taps):
    """Interpolation matrix of one axis: the rows within 2 input samples of the zoom centre
    (moved by the clamped peak's shift), each tap weight divided by the row's total, zero
    rows elsewhere; input indices wrap around."""
    matrix = np.zeros((size_out, size_in))
    reach = SINC_WINDOW * Q
    for row in range(2 * reach + 1):
        out = (row + size_out // 2 - reach + shift * Q * R) % size_out
        whole, phase = divmod(out, Q)
        phase = (phase * SINC_PHASES) // Q
        for tap in range(SINC_TAPS):
            matrix[out, (whole - tap + SINC_TAPS // 2) % size_in] = taps[tap * SINC_PHASES + phase]
        matrix[out] /= matrix[out].sum()
    return matrix


def sinc_oversample(surface, shift):
    """ISCE3's corrSurfaceOverSamplingMethod = 1 (cuSincOverSamplerR2R), float64."""
    taps = sinc_taps()
    size_out = ZOOM * Q
    down = sinc_axis(surface.shape[0], size_out, shift[0], taps)
    across = sinc_axis(surface.shape[1], size_out, shift[1], taps)
    return down @ surface @ across.T


def window_offset(ref_c, sec_c, variant, forced_peak=None):
    """One window, sections 4.2-4.12; returns peak, zoom start, offset, both surfaces."""
    precision = "float32" if variant == "float32" else "float64"
    complex_type = np.complex64 if precision == "float32" else np.complex128
    ref_c, sec_c = ref_c.astype(complex_type), sec_c.astype(complex_type)
    raw_surface = normalised(subtract_mean(np.abs(ref_c), variant), np.abs(sec_c), variant)
    p_d, p_a, _ = ORACLE.max_location(raw_surface)
    if forced_peak is not None:
        p_d, p_a = forced_peak
    s_d = ORACLE.zoom_start(p_d, HALF, HALF_ZOOM)
    s_a = ORACLE.zoom_start(p_a, HALF, HALF_ZOOM)
    ref_o = np.abs(oversample(deramp(ref_c, precision), R, precision))
    sec_z = sec_c[s_d:s_d + H + 2 * HALF_ZOOM, s_a:s_a + W + 2 * HALF_ZOOM]
    sec_o = np.abs(oversample(deramp(sec_z, precision), R, precision))
    fine_in = normalised(subtract_mean(ref_o, variant), sec_o, variant)[:-1, :-1]
    if variant == "isce3-sinc":
        fine = sinc_oversample(fine_in, (p_d - HALF_ZOOM - s_d, p_a - HALF_ZOOM - s_a))
    else:
        fine = oversample(fine_in, Q, precision).real
    k_d, k_a, _ = ORACLE.max_location(fine)
    offset = (s_d - HALF + k_d / (Q * R), s_a - HALF + k_a / (Q * R))
    return dict(peak=(p_d, p_a), start=(s_d, s_a), fine_index=(k_d, k_a), offset=offset,
                raw=raw_surface, fine=fine)


def windows(reference, secondary):
    for j in range(GRID[0]):
        for k in range(GRID[1]):
            rd, ra = START + j * SKIP, START + k * SKIP
            yield (j, k), (reference[rd:rd + H, ra:ra + W],
                           secondary[rd - HALF:rd + H + HALF, ra - HALF:ra + W + HALF])


def run_variant(pairs, variant):
    return {index: window_offset(ref, sec, variant) for index, (ref, sec) in pairs.items()}


def compare(name, results, baseline):
    moved = [i for i in results if results[i]["peak"] != baseline[i]["peak"]]
    zoom = [i for i in results if results[i]["start"] != baseline[i]["start"]]
    diff = np.array([np.subtract(results[i]["offset"], baseline[i]["offset"]) for i in results])
    worst = np.unravel_index(np.argmax(np.abs(diff)), diff.shape)
    index = list(results)[worst[0]]
    raw_change = max(np.abs(results[i]["raw"] - baseline[i]["raw"]).max() for i in results)
    peak_change = np.array([results[i]["fine"].max() - baseline[i]["fine"].max()
                            for i in results])
    print(f"{name:15s} raw surfaces moved by at most {raw_change:.1e}; fine maxima by "
          f"{peak_change.min():.1e} .. {peak_change.max():.1e} (mean {peak_change.mean():.1e})")
    print(f"{'':15s} integer peaks changed: {len(moved)}, zoom starts: {len(zoom)}; "
          f"|diff| max {np.abs(diff).max():.4f} px (window {index}, "
          f"{('down', 'across')[worst[1]]}), mean down {np.abs(diff[:, 0]).mean():.5f}, "
          f"across {np.abs(diff[:, 1]).mean():.5f}; windows beyond 0.02 px: "
          f"{[i for i, d in zip(results, diff) if np.abs(d).max() > 0.02]}")


def fine_gap(fine, radius):
    """Fine peak minus the best value at least `radius` fine samples away on an axis."""
    k_d, k_a, top = ORACLE.max_location(fine)
    rows, cols = np.indices(fine.shape)
    far = (np.abs(rows - k_d) >= radius) | (np.abs(cols - k_a) >= radius)
    return top - fine[far].max()


def sensitivity(pairs, baseline):
    """How close each window is to a different integer peak or a 0.1 px fine move."""
    rows = []
    for index, result in baseline.items():
        raw = result["raw"]
        p_d, p_a = result["peak"]
        top = raw[p_d, p_a]
        runner_up = np.sort(raw.ravel())[-2]
        around = raw[max(p_d - 1, 0):p_d + 2, max(p_a - 1, 0):p_a + 2].copy()
        around[min(p_d, 1), min(p_a, 1)] = -np.inf
        neighbour = np.unravel_index(np.argmax(around), around.shape)
        neighbour = (max(p_d - 1, 0) + neighbour[0], max(p_a - 1, 0) + neighbour[1])
        forced = window_offset(*pairs[index], "float64", forced_peak=neighbour)
        moved = np.abs(np.subtract(forced["offset"], result["offset"])).max()
        rows.append((index, top - runner_up, fine_gap(result["fine"], 0.1 * Q * R), moved,
                     top))
    by_raw = sorted(rows, key=lambda row: row[1])
    print("\nsmallest raw-surface gaps (peak - runner-up), with the offset move if the integer"
          " peak went to its best neighbour:")
    for index, gap, _, moved, top in by_raw[:5]:
        print(f"  window {index}: gap {gap:.3e} (peak {top:.3f}), move {moved:.4f} px")
    moves = np.array([row[3] for row in rows])
    print(f"neighbour-peak moves over all windows: max {moves.max():.4f}, median "
          f"{np.median(moves):.4f}, beyond 0.1 px: {int((moves > 0.1).sum())} of {len(rows)}")
    by_fine = sorted(rows, key=lambda row: row[2])
    print("smallest fine-surface gaps to a value 0.1 px or more from the fine peak:")
    for index, _, gap, _, top in by_fine[:5]:
        print(f"  window {index}: gap {gap:.3e} (raw peak {top:.3f})")


def configuration_readings(images, oracle):
    """The oracle's offsets under other readings of ISCE3's configuration, against its own."""
    readings = (("deramp 0", dict(deramp=0)), ("deramp 2", dict(deramp=2)),
                ("ISCE2 deramp pairing", dict(deramp_pairing="isce2")),
                ("zoom 16", dict(zoom_window=16)), ("zoom 32", dict(zoom_window=32)),
                ("correlation oversampling 32", dict(corr_oversampling=32)),
                ("raw oversampling 1", dict(raw_oversampling=1)),
                ("grid one pixel down", dict(start_down=HALF + 1)),
                ("grid one pixel across", dict(start_across=HALF + 1)))
    print("\nthe oracle under other readings of the configuration, against ISCE3's reading:")
    for name, change in readings:
        other = ORACLE.dense_offsets_reference(*images, **{**CONFIG, **change})
        diff = np.abs(np.stack([other.offset_down - oracle.offset_down,
                                other.offset_across - oracle.offset_across]))
        print(f"  {name:28s} |diff| max {diff.max():.4f}, mean down {diff[0].mean():.4f}, "
              f"across {diff[1].mean():.4f}")


def main():
    images = load_pair()
    pairs = dict(windows(*images))
    oracle = ORACLE.dense_offsets_reference(*images, **CONFIG)
    baseline = run_variant(pairs, "float64")
    check = np.array([baseline[(j, k)]["offset"] for j in range(GRID[0]) for k in range(GRID[1])])
    expected = np.stack([oracle.offset_down.ravel(), oracle.offset_across.ravel()], axis=1)
    assert np.array_equal(check, expected), "the float64 steps must reproduce the oracle"
    print(f"{len(pairs)} windows; the float64 steps equal the oracle "
          f"(offsets down {expected[:, 0].min():.4f}..{expected[:, 0].max():.4f}, across "
          f"{expected[:, 1].min():.4f}..{expected[:, 1].max():.4f})")
    for variant in ("isce3-norm", "isce3-norm-fma", "float32", "isce3-sinc"):
        compare(variant, run_variant(pairs, variant), baseline)
    sensitivity(pairs, baseline)
    offsets = np.abs(expected)
    print(f"\noracle offsets: mean |offset| down {offsets[:, 0].mean():.4f}, across "
          f"{offsets[:, 1].mean():.4f}; standard deviation down {expected[:, 0].std():.4f}, "
          f"across {expected[:, 1].std():.4f}")
    configuration_readings(images, oracle)


if __name__ == "__main__":
    main()
