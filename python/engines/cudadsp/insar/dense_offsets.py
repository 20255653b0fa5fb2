#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Dense offsets between two complex images, as ISCE2's PyCuAmpcor computes them:
dense_offsets() for one pair, dense_offsets_engine for a stack of pairs.

The engine (dense_offsets_estimator, CPU or CUDA) does the per-window work; this module
lays out the window grid as PyCuAmpcor and its script cuDenseOffsets.py do, checks that
every window lies inside its image (naming the parameter that put it outside), applies
the gross offsets and gathers the results into arrays. The definitions of every step
and every output are in docs/design/pycuampcor_dense_offsets.md.
"""

import dataclasses
import time
import types

import numpy

from .._engines import dense_offsets_estimator
from .raster_io import raw_band

# What one engine is made for (dense_offsets_engine's arguments); the other arguments
# of dense_offsets() may change from pair to pair.
ENGINE_PARAMETERS = ("window_width", "window_height", "half_search_across",
                     "half_search_down", "raw_oversampling", "corr_oversampling",
                     "zoom_window", "corr_stat_window", "deramp", "deramp_pairing",
                     "deramp_axis", "peak",
                     "merge_gross_offset", "device")
LAYOUT_PARAMETERS = ("skip_across", "skip_down", "start_across", "start_down",
                     "number_across", "number_down")

# The defaults of every argument above that has one: the engine's (its configuration
# and window grid, core::dense_offsets_config and core::offset_grid), read from it rather
# than written here; the tool's options (offset_stack) read them from here.
DEFAULTS = types.SimpleNamespace(**dense_offsets_estimator.defaults,
                                 **dense_offsets_estimator.grid_defaults)

# The engine's result columns, in the order of dense_offsets_estimator.result_fields.
RESULT_FIELDS = ("offset_down", "offset_across", "snr", "cov_down", "cov_across",
                 "cov_cross", "peak")


@dataclasses.dataclass(frozen=True)
class dense_offsets_grid:
    """The windows of a run, as PyCuAmpcor lays them out.

    Window (i, j) has its reference window's top-left pixel at (reference_down[i],
    reference_across[j]) = (start_down + i skip_down, start_across + j skip_across) and
    covers window_height rows and window_width columns from there; centre_down and
    centre_across give its centre pixel, top-left + size // 2 (for an even size the
    pixel just below or right of the exact centre).
    """

    start_down: int
    start_across: int
    skip_down: int
    skip_across: int
    number_down: int
    number_across: int
    window_height: int
    window_width: int

    @property
    def reference_down(self):
        return self.start_down + self.skip_down * numpy.arange(self.number_down,
                                                               dtype=numpy.int64)

    @property
    def reference_across(self):
        return self.start_across + self.skip_across * numpy.arange(self.number_across,
                                                                   dtype=numpy.int64)

    @property
    def centre_down(self):
        return self.reference_down + self.window_height // 2

    @property
    def centre_across(self):
        return self.reference_across + self.window_width // 2

    @property
    def shape(self):
        return (self.number_down, self.number_across)


@dataclasses.dataclass
class dense_offsets_result:
    """What dense_offsets() returns. Every array is float32 of shape
    (number_down, number_across), row i, column j for window (i, j) of grid.

    offset_down, offset_across: offset of the secondary relative to the reference,
        pixels (positive: the feature sits further down / right in the secondary);
        the gross offset is included when merge_gross_offset was set (PyCuAmpcor's
        mergeGrossOffset), else the offset is relative to it.
    snr: peak^2 over the mean square of the rest of the correlation surface within
        corr_stat_window (section 4.7 of the design note).
    cov_down, cov_across, cov_cross: covariance of the offset estimate (down-down,
        across-across, down-across), raw pixels squared; 99 where PyCuAmpcor cannot
        estimate it (peak on the surface border, flat curvature).
    peak: the normalised correlation's maximum: by default (peak "oversampled") of
        the fine surface, at the fine peak (ISCE3's correlation_peak); with peak
        "raw" of the raw surface, at the integer peak (PyCuAmpcor v2's peakValue).
    gross_down, gross_across: the gross offsets used, pixels (whole numbers).
    grid: the window layout (dense_offsets_grid).
    report: dict: backend, windows, invalid_windows (all-NaN surfaces: NaN in every
        array but the gross offsets), merge_gross_offset, seconds, timing (the
        engine's upload_ms, compute_ms, download_ms).
    """

    offset_down: numpy.ndarray
    offset_across: numpy.ndarray
    snr: numpy.ndarray
    cov_down: numpy.ndarray
    cov_across: numpy.ndarray
    cov_cross: numpy.ndarray
    peak: numpy.ndarray
    gross_down: numpy.ndarray
    gross_across: numpy.ndarray
    grid: dense_offsets_grid
    report: dict


# The engine's integers are C ints; no image is as many pixels across.
_INT_MAX = 2**31 - 1
# The largest gross offset taken, pixels, either way: beyond any image.
GROSS_OFFSET_LIMIT = 2**30


def _integer(value, name, low, high=_INT_MAX):
    """\\p value as an int, from \\p low to \\p high (None: no bound), else a ValueError
    naming \\p name. Python integers of any size are compared, never converted to C."""
    whole = isinstance(value, (int, numpy.integer)) or (
        isinstance(value, (float, numpy.floating)) and numpy.isfinite(value)
        and int(value) == value)
    if isinstance(value, (bool, numpy.bool_)) or not whole:
        raise ValueError(f"{name}: must be an integer, got {value!r}")
    if value < low:
        raise ValueError(f"{name}: must be >= {low}, got {int(value)}")
    if high is not None and value > high:
        raise ValueError(f"{name}: {int(value)} is too large (at most {high})")
    return int(value)


def gross_offset_array(value, name, shape):
    """
    A gross offset checked by the one rule for every source (a number, an array, a
    raster): whole pixels, finite, at most GROSS_OFFSET_LIMIT either way; \\p value a
    number or an array of \\p shape (None: a number only). Returns an int32 array of
    \\p shape (or a 0-d one); raises ValueError naming \\p name.
    """
    array = numpy.asarray(value)
    if array.ndim != 0 and (shape is None or array.shape != shape):
        raise ValueError(f"{name}: shape {array.shape} differs from the window grid's "
                         f"(number_down, number_across) = {shape}")
    if array.dtype.kind not in "iuf":
        raise ValueError(f"{name}: must be whole numbers, got dtype {array.dtype}")
    if array.dtype.kind == "f" and not (numpy.isfinite(array).all()
                                        and (array == numpy.rint(array)).all()):
        raise ValueError(f"{name}: must be whole numbers of pixels, finite (PyCuAmpcor's "
                         "gross offsets are integers)")
    # Compared before any conversion: 1e30 or -2**63 cast to int32 first would wrap.
    beyond = (array < -GROSS_OFFSET_LIMIT) | (array > GROSS_OFFSET_LIMIT)
    if beyond.any():
        raise ValueError(f"{name}: {array[beyond].flat[0]!s} pixels is beyond any image "
                         f"(at most {GROSS_OFFSET_LIMIT} either way)")
    array = array.astype(numpy.int32)
    return array if shape is None else numpy.broadcast_to(array, shape)


class dense_offsets_engine:
    """A dense-offset engine for one configuration, reused for any number of pairs
    (the device context, FFT plans and buffers are made once): build it once, call
    estimate() per pair. Arguments as dense_offsets() (PyCuAmpcor's names in
    docs/apps/cudadsp_offsets.md); deramp is PyCuAmpcor's derampMethod, 0, 1 or 2,
    deramp_pairing "isce3" or "isce2", deramp_axis "both", "down" or "across", peak
    "oversampled" or "raw".
    """

    def __init__(self, *, window_width=DEFAULTS.window_width,
                 window_height=DEFAULTS.window_height,
                 half_search_across=DEFAULTS.half_search_across,
                 half_search_down=DEFAULTS.half_search_down,
                 raw_oversampling=DEFAULTS.raw_oversampling,
                 corr_oversampling=DEFAULTS.corr_oversampling,
                 zoom_window=DEFAULTS.zoom_window,
                 corr_stat_window=DEFAULTS.corr_stat_window, deramp=DEFAULTS.deramp,
                 deramp_pairing=DEFAULTS.deramp_pairing,
                 deramp_axis=DEFAULTS.deramp_axis, peak=DEFAULTS.peak,
                 merge_gross_offset=DEFAULTS.merge_gross_offset, device=DEFAULTS.device):
        if isinstance(deramp, bool) or deramp not in (0, 1, 2):
            raise ValueError(f"deramp: must be 0, 1 or 2 (PyCuAmpcor's derampMethod), "
                             f"got {deramp!r}")
        if deramp_pairing not in ("isce3", "isce2"):
            raise ValueError(f'deramp_pairing: must be "isce3" or "isce2", '
                             f"got {deramp_pairing!r}")
        if deramp_axis not in ("both", "down", "across"):
            raise ValueError(f'deramp_axis: must be "both", "down" or "across", '
                             f"got {deramp_axis!r}")
        if peak not in ("oversampled", "raw"):
            raise ValueError(f'peak: must be "oversampled" or "raw", got {peak!r}')
        # Python integers of any size: what a C int cannot hold is refused here, by
        # name; the engine's own rules (its ranges) follow.
        sizes = dict(window_width=window_width, window_height=window_height,
                     half_search_across=half_search_across,
                     half_search_down=half_search_down, raw_oversampling=raw_oversampling,
                     corr_oversampling=corr_oversampling, zoom_window=zoom_window,
                     corr_stat_window=corr_stat_window)
        sizes = {name: _integer(value, name, -_INT_MAX) for name, value in sizes.items()}
        self._engine = dense_offsets_estimator(
            **sizes, deramp=deramp, deramp_pairing=deramp_pairing,
            deramp_axis=deramp_axis, peak=peak,
            merge_gross_offset=bool(merge_gross_offset), device=device)

    def configuration(self):
        """The engine's parameters as dense_offsets() names them."""
        return {name: getattr(self._engine, name) for name in ENGINE_PARAMETERS}

    def backend(self):
        """"cpu" or "cuda:N"."""
        return self._engine.backend()

    def layout(self, image_shape, *, skip_across=DEFAULTS.skip_across,
               skip_down=DEFAULTS.skip_down, start_across=None, start_down=None,
               number_across=None, number_down=None, margin=0):
        """The window grid for an image of image_shape (rows, columns), as PyCuAmpcor's
        script lays it out: start = margin + half search, number = (size - 2 margin -
        2 half search - window) // skip (section 1 of the design note; a start given
        counts in place of margin + half search)."""
        e = self._engine
        height, width = image_shape
        skip_down = _integer(skip_down, "skip_down", 1)
        skip_across = _integer(skip_across, "skip_across", 1)
        start_down = (margin + e.half_search_down if start_down is None
                      else _integer(start_down, "start_down", 0))
        start_across = (margin + e.half_search_across if start_across is None
                        else _integer(start_across, "start_across", 0))
        counts = {}
        for axis, given, size, start, half, window, skip in (
                ("down", number_down, height, start_down, e.half_search_down,
                 e.window_height, skip_down),
                ("across", number_across, width, start_across, e.half_search_across,
                 e.window_width, skip_across)):
            name = f"number_{axis}"
            size_name = "window_height" if axis == "down" else "window_width"
            if given is not None:
                # Bounded by the image, here, rather than by a C type.
                counts[name] = _integer(given, name, 1, None)
                # Checked before the grid is made: its arrays have a value a window.
                room = max((size - start - window) // skip + 1, 0)
                if counts[name] > room:
                    raise ValueError(
                        f"{name}: {counts[name]} windows do not fit {axis} the image's "
                        f"{size} pixels: from start_{axis} {start} every skip_{axis} "
                        f"{skip}, reference windows of {size_name} {window} leave room "
                        f"for {room}")
                continue
            counts[name] = (size - start - half - margin - window) // skip
            if counts[name] < 1:
                raise ValueError(
                    f"{name}: no window fits {axis} the image's {size} pixels: start_{axis} "
                    f"{start}, {size_name} {window}, half_search_{axis} {half}, margin "
                    f"(constant gross offset) {margin} and skip_{axis} {skip} leave "
                    f"room for {counts[name]}")
        return dense_offsets_grid(start_down, start_across, skip_down, skip_across,
                                  counts["number_down"], counts["number_across"],
                                  e.window_height, e.window_width)

    def estimate(self, reference, secondary, *, skip_across=DEFAULTS.skip_across,
                 skip_down=DEFAULTS.skip_down, start_across=None, start_down=None,
                 number_across=None, number_down=None, gross_offset_down=0,
                 gross_offset_across=0, progress=None):
        """Dense offsets of one pair with this engine's configuration; the per-pair
        arguments (layout, gross offsets, progress) and the result as dense_offsets()."""
        started = time.monotonic()
        reference = _image(reference, "reference")
        secondary = _image(secondary, "secondary")
        if (reference.shape != secondary.shape
                or reference.dtype.newbyteorder("=") != secondary.dtype.newbyteorder("=")):
            raise ValueError(
                f"reference and secondary: must have one size and sample type, got "
                f"{_describe(reference)} and {_describe(secondary)}")
        scalar = numpy.ndim(gross_offset_down) == 0 and numpy.ndim(gross_offset_across) == 0
        # The script's margin: the largest constant gross offset (none for arrays).
        margin = (max(abs(int(gross_offset_array(gross_offset_down, "gross_offset_down",
                                                 None))),
                      abs(int(gross_offset_array(gross_offset_across,
                                                 "gross_offset_across", None))))
                  if scalar else 0)
        grid = self.layout(reference.shape[:2], skip_across=skip_across,
                           skip_down=skip_down, start_across=start_across,
                           start_down=start_down, number_across=number_across,
                           number_down=number_down, margin=margin)
        gross_down = gross_offset_array(gross_offset_down, "gross_offset_down", grid.shape)
        gross_across = gross_offset_array(gross_offset_across, "gross_offset_across",
                                          grid.shape)
        reference_down = numpy.repeat(grid.reference_down, grid.number_across)
        reference_across = numpy.tile(grid.reference_across, grid.number_down)
        self._check_windows(grid, reference.shape, reference_down, reference_across,
                            gross_down.ravel(), gross_across.ravel())
        if not (_engine_ready(reference) and _engine_ready(secondary)):
            reference, secondary, reference_down, reference_across = self._windows_only(
                reference, secondary, reference_down, reference_across,
                gross_down.ravel(), gross_across.ravel())
        results, timing = self._engine.estimate(
            reference, secondary, reference_down, reference_across,
            numpy.ascontiguousarray(gross_down.ravel()),
            numpy.ascontiguousarray(gross_across.ravel()), progress)
        fields = {name: results[:, column].reshape(grid.shape).copy()
                  for column, name in enumerate(RESULT_FIELDS)}
        report = dict(backend=self.backend(), windows=int(results.shape[0]),
                      invalid_windows=int(numpy.isnan(fields["peak"]).sum()),
                      merge_gross_offset=self._engine.merge_gross_offset,
                      seconds=time.monotonic() - started, timing=timing)
        return dense_offsets_result(gross_down=gross_down.astype(numpy.float32),
                                    gross_across=gross_across.astype(numpy.float32),
                                    grid=grid, report=report, **fields)

    def _check_windows(self, grid, image_shape, reference_down, reference_across,
                       gross_down, gross_across):
        """Every window inside its image (section 2.5), else a ValueError naming the
        first window outside, the image, the direction and the parameters to look at."""
        e = self._engine
        secondary_down = reference_down + gross_down - e.half_search_down
        secondary_across = reference_across + gross_across - e.half_search_across
        checks = (
            ("reference", "down", reference_down, e.window_height, image_shape[0],
             "start_down, skip_down, number_down, window_height"),
            ("reference", "across", reference_across, e.window_width, image_shape[1],
             "start_across, skip_across, number_across, window_width"),
            ("secondary", "down", secondary_down, e.window_height + 2 * e.half_search_down,
             image_shape[0], "start_down, skip_down, number_down, window_height, "
             "half_search_down, gross_offset_down"),
            ("secondary", "across", secondary_across,
             e.window_width + 2 * e.half_search_across, image_shape[1],
             "start_across, skip_across, number_across, window_width, "
             "half_search_across, gross_offset_across"))
        for image, direction, start, size, extent, cause in checks:
            outside = numpy.flatnonzero((start < 0) | (start + size > extent))
            if outside.size:
                k = int(outside[0])
                i, j = divmod(k, grid.number_across)
                raise ValueError(
                    f"window ({i}, {j}): {image} pixels {direction} {int(start[k])}.."
                    f"{int(start[k]) + size - 1} leave the image ({extent} pixels "
                    f"{direction}); {outside.size} windows do; check {cause}")

    def _windows_only(self, reference, secondary, reference_down, reference_across,
                      gross_down, gross_across):
        """
        The images cut down to the pixels the windows cover, read once and converted
        (a raw_band reads only those; a strided or byte-swapped array is copied only
        there), and the windows' reference positions in them. The kept rows are the
        union of each window's reference and search rows as one span, the columns
        likewise, so a window's reference and search windows move together and its
        gross offset stays what it was: the engine sees the same pixels and gives the
        same results, merged gross offsets included.
        """
        e = self._engine
        spans = []
        for start, gross, half, window in (
                (reference_down, gross_down, e.half_search_down, e.window_height),
                (reference_across, gross_across, e.half_search_across, e.window_width)):
            search = start + gross - half
            spans.append(_merged_spans(numpy.minimum(start, search),
                                       numpy.maximum(start + window,
                                                     search + window + 2 * half)))
        rows, columns = spans
        return (_gather(reference, rows, columns), _gather(secondary, rows, columns),
                _compacted(reference_down, rows), _compacted(reference_across, columns))


def _engine_ready(image):
    """Whether the engine takes \\p image as it is, without a copy."""
    return (isinstance(image, numpy.ndarray) and image.flags.c_contiguous
            and image.dtype.isnative)


def _merged_spans(first, end):
    """The union of the intervals [first[k], end[k]) as ascending, disjoint (first,
    end) pairs."""
    order = numpy.argsort(first, kind="stable")
    first, end = first[order], end[order]
    reach = numpy.maximum.accumulate(end)
    starts = numpy.flatnonzero(numpy.r_[True, first[1:] > reach[:-1]])
    ends = numpy.r_[starts[1:], first.size] - 1
    return list(zip(first[starts].tolist(), reach[ends].tolist()))


def _compacted(positions, spans):
    """\\p positions (each inside one of \\p spans) counted in the spans side by side."""
    starts = numpy.array([first for first, _ in spans], numpy.int64)
    placed = numpy.cumsum([0] + [end - first for first, end in spans])[:-1]
    k = numpy.searchsorted(starts, positions, side="right") - 1
    return positions - starts[k] + placed[k]


def _gather(image, rows, columns):
    """The blocks rows x columns (spans) of \\p image side by side, as the engine takes
    an image: C-contiguous, native complex64 or int16 I, Q pairs."""
    dtype = numpy.int16 if image.ndim == 3 else numpy.complex64
    out = numpy.empty((sum(end - first for first, end in rows),
                       sum(end - first for first, end in columns)) + image.shape[2:], dtype)
    down = 0
    for top, bottom in rows:
        part = out[down:down + bottom - top]
        if isinstance(image, raw_band):
            image.read_block((top, bottom), columns, part)
        else:
            across = 0
            for left, right in columns:
                part[:, across:across + right - left] = image[top:bottom, left:right]
                across += right - left
        down += bottom - top
    return out


def _image(array, name):
    """An image as the engine takes it: complex64 (rows, columns) or int16 I, Q pairs
    (rows, columns, 2), or a raw_band of either (read later, window by window); other
    complex types are converted to complex64, a copy."""
    if isinstance(array, raw_band):
        if not (array.dtype == numpy.complex64 and array.ndim == 2
                or array.dtype == numpy.int16 and array.ndim == 3):
            raise TypeError(f"{name}: a raw_band must be read as complex64 or int16 I, "
                            f"Q pairs, got {_describe(array)}")
        return array
    if isinstance(array, numpy.ndarray) and array.dtype.kind == "i" and array.ndim == 3:
        if array.dtype.itemsize != 2 or array.shape[2] != 2:
            raise TypeError(f"{name}: integer images must be int16 I, Q pairs of shape "
                            f"(rows, columns, 2), got {_describe(array)}")
        return array
    array = numpy.asarray(array)
    if array.ndim != 2 or array.dtype.kind != "c":
        raise TypeError(f"{name}: must be a complex array (rows, columns) or int16 I, Q "
                        f"pairs (rows, columns, 2), got {_describe(array)}")
    if array.dtype.itemsize != 8:
        array = array.astype(numpy.complex64)
    return array


def _describe(array):
    return f"{array.dtype} {array.shape}"


def dense_offsets(reference, secondary, *, window_width=DEFAULTS.window_width,
                  window_height=DEFAULTS.window_height,
                  half_search_across=DEFAULTS.half_search_across,
                  half_search_down=DEFAULTS.half_search_down,
                  skip_across=DEFAULTS.skip_across, skip_down=DEFAULTS.skip_down,
                  start_across=None, start_down=None, number_across=None,
                  number_down=None, raw_oversampling=DEFAULTS.raw_oversampling,
                  corr_oversampling=DEFAULTS.corr_oversampling,
                  zoom_window=DEFAULTS.zoom_window,
                  corr_stat_window=DEFAULTS.corr_stat_window, deramp=DEFAULTS.deramp,
                  deramp_pairing=DEFAULTS.deramp_pairing,
                  deramp_axis=DEFAULTS.deramp_axis, peak=DEFAULTS.peak,
                  gross_offset_down=0, gross_offset_across=0,
                  merge_gross_offset=DEFAULTS.merge_gross_offset,
                  device=DEFAULTS.device, engine=None, progress=None):
    """Dense offsets of a secondary image relative to a reference, by PyCuAmpcor's
    frequency-domain amplitude cross-correlation (ISCE2 2.6 and ISCE3, ROIPAC one-pass
    workflow; docs/design/pycuampcor_dense_offsets.md defines every step and where
    the two differ). PyCuAmpcor's names in brackets; the defaults are its class
    defaults, ISCE3's where the two differ.

    Args:
        reference, secondary: complex arrays (rows, columns) (complex64 used in place,
            other complex types converted), or int16 arrays (rows, columns, 2) of I, Q
            pairs (CInt16 SLCs); one size and sample type; or raster_io.raw_band
            images (what raster_io.read_slc() gives for raw files), of which only the
            pixels the windows cover are read. An image that is strided or not in
            native byte order is copied only where the windows lie.
        window_width, window_height: reference window, pixels across (columns) and
            down (rows) (windowSizeWidth, windowSizeHeight).
        half_search_across, half_search_down: half search ranges, pixels
            (halfSearchRangeAcross, halfSearchRangeDown).
        skip_across, skip_down: window spacing (skipSampleAcross, skipSampleDown).
        start_across, start_down: first reference window's top-left pixel
            (referenceStartPixelAcrossStatic, ...DownStatic); None: margin + the half
            search, margin being the larger constant gross offset (cuDenseOffsets.py).
        number_across, number_down: windows per row and column (numberWindowAcross,
            numberWindowDown); None: (size - 2 margin - 2 half search - window) // skip,
            cuDenseOffsets.py's count, counted from start when start is given.
        raw_oversampling: raw-data oversampling factor (rawDataOversamplingFactor).
        corr_oversampling: correlation-surface oversampling factor
            (corrSurfaceOverSamplingFactor).
        zoom_window: correlation-surface zoom-in window, oversampled correlation
            pixels (corrSurfaceZoomInWindow).
        corr_stat_window: SNR window on the raw surface (corrStatWindowSize).
        deramp: derampMethod: 0 amplitudes only, 1 (default) PyCuAmpcor's phase
            gradient removal, 2 complex oversampling without deramping.
        deramp_pairing: with deramp 1, which index multiplies which measured phase:
            "isce3" (default; ISCE3's PyCuAmpcor: the row index the phase measured
            down, the column index the phase measured across, so that a linear ramp
            is removed) or "isce2" (ISCE2 2.6's PyCuAmpcor: the two swapped).
        deramp_axis: with deramp 1, the measured phases removed: "both" (default),
            "down" or "across" only (ISCE3's derampAxis 2, 0, 1; NISAR's
            deramping_axis both, azimuth, range).
        peak: the surface whose maximum the result's peak holds: "oversampled"
            (default; ISCE3's correlation_peak: the fine surface, at the fine peak) or
            "raw" (PyCuAmpcor v2's peakValue: the raw surface, at the integer peak).
        gross_offset_down, gross_offset_across: whole pixels, one number or an array
            (number_down, number_across) per window (setConstantGrossOffset,
            setVaryingGrossOffset).
        merge_gross_offset: add the gross offsets to the offsets (mergeGrossOffset).
        device: "auto", "cpu", "cuda" or "cuda:N".
        engine: None, or a dense_offsets_engine to reuse (a stack of pairs); its
            configuration must be the one the arguments above give.
        progress: None, or progress(windows_done, windows), called during the run.

    Returns:
        dense_offsets_result; see its docstring.

    Raises:
        ValueError: a parameter out of range, images of different sizes or types, a
            gross offset of the wrong shape, a window leaving its image; the message
            names the parameter (and the window).
        TypeError: an image that is not complex nor int16 I, Q pairs.
        RuntimeError: CUDA asked for but absent, or failing.
    """
    arguments = locals()
    configuration = {name: arguments[name] for name in ENGINE_PARAMETERS}
    if engine is None:
        engine = dense_offsets_engine(**configuration)
    else:
        held = engine.configuration()
        for name, value in configuration.items():
            if held[name] != value:
                raise ValueError(f"{name}: {value!r} differs from the engine's "
                                 f"{held[name]!r}")
    return engine.estimate(reference, secondary,
                           **{name: arguments[name] for name in LAYOUT_PARAMETERS},
                           gross_offset_down=gross_offset_down,
                           gross_offset_across=gross_offset_across, progress=progress)
