#
# Copyright 2026 gr-cudadsp authors.
#
# This file is part of gr-cudadsp
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Float64 NumPy reference of PyCuAmpcor's dense offsets (the test oracle).

Implements docs/design/pycuampcor_dense_offsets.md step by step (section numbers in the
comments refer to it): PyCuAmpcor's ROIPAC one-pass chunk workflow, frequency-domain
correlation, FFT oversampling, as ISCE3 ships it (the deramp's axes, the correlation peak of
the fine surface), or as ISCE2 2.6 does (deramp_pairing="isce2", peak="raw"). Written for clarity, one window at a time; complex128/float64
throughout. Directions: "down" = rows, "across" = columns; pairs are (down, across).
"""

from dataclasses import dataclass

import numpy as np

# float32 machine epsilon, added inside the normalisation's square root (section 4.4)
FLT_EPSILON = float(np.finfo(np.float32).eps)
# Threads per block of PyCuAmpcor's max-location reduction; it decides ties (section 4.5)
MAXLOC_THREADS = 512
# Covariance value PyCuAmpcor writes when it cannot estimate it (section 4.6)
COVARIANCE_SENTINEL = 99.0


@dataclass
class DenseOffsets:
    """Per-window results, each float64 of shape (number_down, number_across)."""

    offset_down: np.ndarray
    offset_across: np.ndarray
    snr: np.ndarray
    cov_down: np.ndarray
    cov_across: np.ndarray
    cov_cross: np.ndarray
    peak: np.ndarray
    gross_down: np.ndarray
    gross_across: np.ndarray


def fft_oversample(z, factor):
    """Section 4.9: spectrum zero-padding as PyCuAmpcor 2.6 does it.

    Per axis of n points keeps the frequencies -(n//2 - 1) .. n//2 (Nyquist on the positive
    side, for odd n the frequency -(n//2) is dropped); output samples factor*a interpolate
    input sample a (amplitude scale 1).
    """
    n0, n1 = z.shape
    m0, m1 = n0 * factor, n1 * factor
    spectrum = np.fft.fft2(z)
    j0 = np.arange(-(n0 // 2 - 1), n0 // 2 + 1)
    j1 = np.arange(-(n1 // 2 - 1), n1 // 2 + 1)
    padded = np.zeros((m0, m1), dtype=np.complex128)
    padded[np.ix_(j0 % m0, j1 % m1)] = spectrum[np.ix_(j0 % n0, j1 % n1)]
    return np.fft.ifft2(padded) * (m0 * m1) / (n0 * n1)


def deramp_method1(z, pairing="isce3", axis="both"):
    """Section 4.9: PyCuAmpcor's phase-gradient removal.

    pairing "isce3": each sample turned by its row index times the phase measured down plus
    its column index times the phase measured across, which cancels a linear phase ramp
    (ISCE3's cuDeramp). "isce2": the column index with the phase measured down and the row
    index with the one measured across, what ISCE2 2.6's cuDeramp.cu does.
    axis (ISCE3's derampAxis): "both", or "down" / "across" to measure and remove only
    that phase (the other taken as 0).
    """
    along_across = np.sum(z[:, :-1] * np.conj(z[:, 1:]))
    along_down = np.sum(z[:-1, :] * np.conj(z[1:, :]))
    phi_across = 0.0 if axis == "down" else np.arctan2(along_across.imag, along_across.real)
    phi_down = 0.0 if axis == "across" else np.arctan2(along_down.imag, along_down.real)
    rows, cols = np.indices(z.shape)
    if pairing == "isce2":
        rows, cols = cols, rows
    return z * np.exp(1j * (rows * phi_down + cols * phi_across))


def _window_sums(image, height, width):
    """Sums of image over every height x width block, shape (H-height+1, W-width+1)."""
    table = np.zeros((image.shape[0] + 1, image.shape[1] + 1))
    table[1:, 1:] = np.cumsum(np.cumsum(image, axis=0), axis=1)
    return (table[height:, width:] - table[:-height, width:] - table[height:, :-width] +
            table[:-height, :-width])


def normalized_correlation(template, search):
    """Sections 4.3-4.4: valid-lag cross-correlation normalised as PyCuAmpcor does.

    template: zero-mean amplitudes (h x w); search: amplitudes (Hs x Ws). Lag (u, v) puts the
    template at row u, column v of the search window.
    """
    h, w = template.shape
    search_h, search_w = search.shape
    padded = np.zeros((search_h, search_w))
    padded[:h, :w] = template
    raw = np.fft.ifft2(np.conj(np.fft.fft2(padded)) * np.fft.fft2(search)).real
    raw = raw[:search_h - h + 1, :search_w - w + 1]
    s1 = _window_sums(search, h, w)
    s2 = _window_sums(search * search, h, w)
    t2 = np.sum(template * template)
    return raw / np.sqrt((s2 - s1 * s1 / (h * w)) * t2 + FLT_EPSILON)


def max_location(surface):
    """Section 4.5: location and value of the maximum with PyCuAmpcor's tie rule.

    Returns None when every value is NaN.
    """
    flat = surface.ravel()
    if np.all(np.isnan(flat)):
        return None
    tied = np.flatnonzero(flat == np.nanmax(flat))
    best = min(tied, key=lambda g: (g % MAXLOC_THREADS, g))
    row, col = divmod(int(best), surface.shape[1])
    return row, col, float(flat[best])


def covariance(surface, row, col, peak, template_pixels):
    """Section 4.6: (cov_down, cov_across, cov_cross) from the raw surface, raw pixels^2."""
    sentinel = (COVARIANCE_SENTINEL,) * 3
    if (row - 1 < 0 or col - 1 < 0 or row + 1 >= surface.shape[0] or
            col + 1 >= surface.shape[1]):
        return sentinel
    c = surface
    dxx = -(c[row + 1, col] + c[row - 1, col] - 2.0 * c[row, col]) * template_pixels
    dyy = -(c[row, col + 1] + c[row, col - 1] - 2.0 * c[row, col]) * template_pixels
    dxy = (c[row + 1, col + 1] + c[row - 1, col - 1] - c[row + 1, col - 1] -
           c[row - 1, col + 1]) * 0.25 * template_pixels
    n2 = max(1.0 - peak, 0.0)
    n4 = n2 * n2 * 0.5 * template_pixels
    n2 = 2.0 * n2
    u = dxy * dxy - dxx * dyy
    if abs(u) < 1e-2:
        return sentinel
    u2 = u * u
    return ((-n2 * u * dyy + n4 * (dyy * dyy + dxy * dxy)) / u2,
            (-n2 * u * dxx + n4 * (dxx * dxx + dxy * dxy)) / u2,
            (n2 * u * dxy - n4 * (dxx + dyy) * dxy) / u2)


def snr(surface, row, col, peak, stat_window):
    """Section 4.7: peak^2 over the mean square of the rest of the neighbourhood."""
    size_d = min(stat_window, surface.shape[0])
    size_a = min(stat_window, surface.shape[1])
    r0, c0 = row - size_d // 2, col - size_a // 2
    rows = np.arange(r0, r0 + size_d)
    cols = np.arange(c0, c0 + size_a)
    rows = rows[(rows >= 0) & (rows < surface.shape[0])]
    cols = cols[(cols >= 0) & (cols < surface.shape[1])]
    block = surface[np.ix_(rows, cols)]
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (np.sum(block * block) - peak * peak) / (block.size - 1)
        return float(np.float64(peak * peak) / mean)


def zoom_start(peak_index, half_search, half_zoom):
    """Section 4.8: start of the zoom window in the raw search window (clamped)."""
    return min(max(peak_index - half_zoom, 0), 2 * (half_search - half_zoom))


def _per_window(value, shape, name):
    """Gross offsets: an int scalar or an int array shaped like the output grid."""
    array = np.asarray(value)
    if array.ndim == 0:
        array = np.full(shape, array)
    if array.shape != shape:
        raise ValueError(f"{name}: shape {array.shape}, expected (number_down, number_across) "
                         f"= {shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{name}: gross offsets must be integers, got {array.dtype}")
    return array.astype(np.int64)


def _check_window(image_name, image_shape, start, size, window, cause):
    for axis, direction in enumerate(("down", "across")):
        if start[axis] < 0 or start[axis] + size[axis] > image_shape[axis]:
            raise ValueError(
                f"window {window}: {image_name} pixels {direction} {start[axis]}.."
                f"{start[axis] + size[axis] - 1} leave the image (size {image_shape[axis]}); "
                f"check {cause}")


def dense_offsets_reference(reference, secondary, *, window_width=64, window_height=64,
                            half_search_across=20, half_search_down=20, skip_across=64,
                            skip_down=64, start_across=None, start_down=None,
                            number_across=None, number_down=None, raw_oversampling=2,
                            corr_oversampling=16, zoom_window=16, corr_stat_window=21,
                            deramp=1, deramp_pairing="isce3", deramp_axis="both",
                            peak="oversampled",
                            gross_offset_across=0, gross_offset_down=0,
                            merge_gross_offset=False):
    """PyCuAmpcor dense offsets of a reference/secondary pair (2-D arrays, complex or real).

    Defaults are PyCuAmpcor's (class defaults; deramp=1 is the class default, its script
    cuDenseOffsets.py defaults to 0; deramp_pairing and peak as ISCE3, "isce2" and "raw" for
    ISCE2's PyCuAmpcor v2 peak output; deramp_axis ISCE3's derampAxis: "both", "down",
    "across"). start_* default to margin + half search and number_* to
    cuDenseOffsets.py's count, margin being the largest constant gross offset (0 for arrays).
    Returns a DenseOffsets of float64 arrays shaped (number_down, number_across).
    """
    reference = np.asarray(reference)
    secondary = np.asarray(secondary)
    if reference.ndim != 2 or secondary.ndim != 2:
        raise ValueError("reference and secondary must be 2-D images")
    for name, value, low in (("window_width", window_width, 2),
                             ("window_height", window_height, 2),
                             ("half_search_across", half_search_across, 1),
                             ("half_search_down", half_search_down, 1),
                             ("skip_across", skip_across, 1), ("skip_down", skip_down, 1),
                             ("raw_oversampling", raw_oversampling, 1),
                             ("corr_oversampling", corr_oversampling, 1),
                             ("corr_stat_window", corr_stat_window, 3)):
        if int(value) != value or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value}")
    if deramp not in (0, 1, 2):
        raise ValueError(f"deramp must be 0, 1 or 2, got {deramp}")
    if deramp_pairing not in ("isce3", "isce2"):
        raise ValueError(f"deramp_pairing must be 'isce3' or 'isce2', got {deramp_pairing!r}")
    if deramp_axis not in ("both", "down", "across"):
        raise ValueError(f"deramp_axis must be 'both', 'down' or 'across', "
                         f"got {deramp_axis!r}")
    if peak not in ("oversampled", "raw"):
        raise ValueError(f"peak must be 'oversampled' or 'raw', got {peak!r}")

    h, w = window_height, window_width
    hd, ha = half_search_down, half_search_across
    r, q = raw_oversampling, corr_oversampling
    # Section 2.1
    zoom = min(zoom_window, 2 * r * min(ha, hd))
    hz = zoom // (2 * r)
    if hz < 1:
        raise ValueError(f"zoom_window must be >= 2 * raw_oversampling = {2 * r} (and the half "
                         f"searches >= 1), got {zoom_window}")

    scalar_gross = np.ndim(gross_offset_down) == 0 and np.ndim(gross_offset_across) == 0
    margin = max(abs(int(gross_offset_down)), abs(int(gross_offset_across))) if scalar_gross else 0
    if start_down is None:
        start_down = margin + hd
    if start_across is None:
        start_across = margin + ha
    if number_down is None:
        number_down = (reference.shape[0] - 2 * margin - 2 * hd - h) // skip_down
    if number_across is None:
        number_across = (reference.shape[1] - 2 * margin - 2 * ha - w) // skip_across
    if number_down < 1 or number_across < 1:
        raise ValueError(f"number_down and number_across must be >= 1, got {number_down}, "
                         f"{number_across} (image {reference.shape} too small for the windows?)")
    grid = (number_down, number_across)
    gross_d = _per_window(gross_offset_down, grid, "gross_offset_down")
    gross_a = _per_window(gross_offset_across, grid, "gross_offset_across")

    out = {name: np.full(grid, np.nan) for name in
           ("offset_down", "offset_across", "snr", "cov_down", "cov_across", "cov_cross",
            "peak")}
    search_size = (h + 2 * hd, w + 2 * ha)
    zoom_size = (h + 2 * hz, w + 2 * hz)
    for j in range(number_down):
        for k in range(number_across):
            # Section 2.4
            ref_start = (start_down + j * skip_down, start_across + k * skip_across)
            sec_start = (ref_start[0] + gross_d[j, k] - hd, ref_start[1] + gross_a[j, k] - ha)
            _check_window("reference", reference.shape, ref_start, (h, w), (j, k),
                          "start_down/start_across, skip, number, window size")
            _check_window("secondary", secondary.shape, sec_start, search_size, (j, k),
                          "start, skip, number, window size, half search, gross offset")
            # Section 4.1
            ref_c = reference[ref_start[0]:ref_start[0] + h,
                              ref_start[1]:ref_start[1] + w].astype(np.complex128)
            sec_c = secondary[sec_start[0]:sec_start[0] + search_size[0],
                              sec_start[1]:sec_start[1] + search_size[1]].astype(np.complex128)
            if deramp == 0:
                ref_c = np.abs(ref_c).astype(np.complex128)
                sec_c = np.abs(sec_c).astype(np.complex128)
            # Sections 4.2-4.5
            ref_a = np.abs(ref_c)
            raw_surface = normalized_correlation(ref_a - ref_a.mean(), np.abs(sec_c))
            found = max_location(raw_surface)
            if found is None:  # section 6
                continue
            p_d, p_a, raw_peak = found
            # Sections 4.6-4.8
            cov = covariance(raw_surface, p_d, p_a, raw_peak, h * w)
            window_snr = snr(raw_surface, p_d, p_a, raw_peak, corr_stat_window)
            s_d, s_a = zoom_start(p_d, hd, hz), zoom_start(p_a, ha, hz)
            # Section 4.9
            ref_o = (ref_c if deramp != 1
                     else deramp_method1(ref_c, deramp_pairing, deramp_axis))
            ref_oa = np.abs(fft_oversample(ref_o, r))
            sec_z = sec_c[s_d:s_d + zoom_size[0], s_a:s_a + zoom_size[1]]
            if deramp == 1:
                sec_z = deramp_method1(sec_z, deramp_pairing, deramp_axis)
            sec_oa = np.abs(fft_oversample(sec_z, r))
            # Section 4.10
            fine_in = normalized_correlation(ref_oa - ref_oa.mean(), sec_oa)[:-1, :-1]
            # Section 4.11
            padded = np.zeros((zoom, zoom))
            padded[:fine_in.shape[0], :fine_in.shape[1]] = fine_in
            fine = fft_oversample(padded.astype(np.complex128), q).real
            # Section 4.12
            k_d, k_a, fine_peak = max_location(fine)
            out["offset_down"][j, k] = s_d - hd + k_d / (q * r)
            out["offset_across"][j, k] = s_a - ha + k_a / (q * r)
            out["snr"][j, k] = window_snr
            out["cov_down"][j, k], out["cov_across"][j, k], out["cov_cross"][j, k] = cov
            # ISCE3 writes the fine surface's maximum (at the scale of the normalised
            # correlation: fft_oversample interpolates), PyCuAmpcor v2 the raw one's.
            out["peak"][j, k] = fine_peak if peak == "oversampled" else raw_peak

    if merge_gross_offset:
        out["offset_down"] += gross_d
        out["offset_across"] += gross_a
    return DenseOffsets(gross_down=gross_d.astype(np.float64),
                        gross_across=gross_a.astype(np.float64), **out)
