#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Two-dimensional phase unwrapping of NumPy arrays: unwrap_phase_2d().

The engine is the one the block phase_unwrap_2d_ff runs (CPU or CUDA); this module only
checks and converts the arrays, keeps engines for repeated shapes and gathers the
outputs.
"""

import functools
import math
import numbers
import typing

import numpy

from .._engines import phase_unwrapper_2d

METHODS = ("reliability", "least_squares", "mcf")
MCF_SOLVERS = ("shortest_paths", "network_simplex")


class unwrap_2d_result(typing.NamedTuple):
    """What unwrap_phase_2d returns.

    unwrapped: float32 array, the unwrapped phase (NaN where a pixel is not valid).
    cycles: int32 array K with unwrapped = wrapped + period * K (0 where not valid).
    components: int32 array numbering the connected groups of valid pixels 1..C in
        row-major order of each group's first pixel, 0 where not valid (reliability
        and MCF); None for least squares.
    report: dict with valid_pixels, components, residues and flow (MCF: residues of
        the wrapped field and the units of flow that cancelled them), iterations
        (conjugate-gradient iterations; 0 for the direct solve and the other methods),
        relative_residual
        (final residual norm over the initial one), converged (False only when the
        conjugate gradients stopped at max_iterations with relative_residual above
        tolerance) and backend (the engine's device: "cpu" or "cuda:N").
    """

    unwrapped: numpy.ndarray
    cycles: numpy.ndarray
    components: typing.Optional[numpy.ndarray]
    report: dict


# Engines keep workspace for their frame shape: repeated calls of one shape and
# configuration reuse one. A few are kept, so alternating shapes do not rebuild each
# call; each holds memory (on the GPU for CUDA) until it drops out.
@functools.lru_cache(maxsize=4)
def _engine(height, width, method, period, wrap_x, wrap_y, window, congruent, iterations, tol,
            looks, tile_size, tile_overlap, device, mcf_solver):
    return phase_unwrapper_2d(
        width=width,
        height=height,
        method=method,
        period=period,
        wrap_around_x=wrap_x,
        wrap_around_y=wrap_y,
        gradient_window=window,
        congruent=congruent,
        max_iterations=iterations,
        tolerance=tol,
        looks=looks,
        tile_size=tile_size,
        tile_overlap=tile_overlap,
        device=device,
        mcf_solver=mcf_solver,
    )


def _frame(array, name):
    """array as a 2-D NumPy array with at least one pixel; errors name the argument."""
    if isinstance(array, numpy.ma.MaskedArray):
        # numpy.asarray would drop the mask silently, and numpy.ma's True means
        # invalid, the opposite of mask= here.
        raise TypeError(
            f"{name}: a numpy.ma masked array is not accepted; pass its data and "
            f"mask=~numpy.ma.getmaskarray({name})"
        )
    array = numpy.asarray(array)
    if array.ndim != 2:
        raise ValueError(f"{name}: must be a 2-D array, got shape {array.shape}")
    if array.size == 0:
        raise ValueError(
            f"{name}: must have at least one row and one column, got shape {array.shape}"
        )
    return array


def _one_of(value, names, name):
    """value when it is one of names; otherwise a ValueError naming the argument."""
    if value not in names:
        choices = ", ".join(f'"{n}"' for n in names[:-1]) + f' or "{names[-1]}"'
        raise ValueError(f"{name}: must be {choices}, got {value!r}")
    return value


def _whole_number(value, name):
    """value as an int; errors name the argument (int() of NaN or infinity names none,
    and would turn 7.5 into 7 unsaid)."""
    if isinstance(value, numbers.Integral):
        return int(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: must be a whole number, got {value!r}") from None
    if not (math.isfinite(number) and number == math.floor(number)):
        raise ValueError(f"{name}: must be a whole number, got {value!r}")
    return int(number)


def unwrap_phase_2d(
    wrapped,
    method="reliability",
    weight=None,
    mask=None,
    period=2 * numpy.pi,
    wrap_around=(False, False),
    gradient_window=7,
    congruent=True,
    max_iterations=100,
    tolerance=1e-5,
    looks=1,
    tile_size=0,
    tile_overlap=128,
    device="auto",
    mcf_solver="shortest_paths",
):
    """Unwrap a two-dimensional phase array.

    Args:
        wrapped: 2-D real array of wrapped phase (converted to C-contiguous float32),
            or a 2-D complex array, whose angle is unwrapped (period must then be
            2*pi). Rows are the first index.
        method: "reliability" (reliability-guided, Herraez et al. 2002, as
            skimage.restoration.unwrap_phase), "least_squares" (weighted least
            squares, Ghiglia and Romero 1994) or "mcf" (minimum-cost flow with
            statistical costs, Costantini 1998 and Chen and Zebker 2001: the method
            for single-look and noisy interferograms; docs/design/mcf_unwrapping.md).
        weight: None, or a 2-D real array like wrapped (coherence, quality). A pixel
            whose weight is not finite and > 0 is not valid. Least squares weights
            each difference by the smaller squared weight of its two pixels, relative
            to the largest valid weight (any positive scale gives the same result);
            MCF takes it as the coherence (in (0, 1]) of the noise model of its costs;
            the reliability method uses it only to exclude pixels.
        mask: None, or a 2-D bool array like wrapped, True where the pixel is valid
            (the opposite of numpy.ma's convention).
        period: period of the phase: 2*pi radians, 360 degrees, 1 cycle.
        wrap_around: (x, y): reliability only: whether the first and last columns (x)
            and the first and last rows (y) are neighbours.
        gradient_window: reliability and MCF: odd side (1 to 15) of the window whose
            mean phase gradient decides the whole periods across each edge
            (reliability; 1 is Herraez et al.'s and scikit-image's rule, the edge's two
            pixels alone) or, in MCF, is each difference's expected value in its cost
            (the gradient of the phase filtered over the same window).
        congruent: least squares: the output is the input plus whole periods (True),
            or the smooth least-squares solution (False).
        max_iterations, tolerance: least squares with weights, a mask or non-finite
            input: conjugate-gradient limits.
        looks: MCF: independent looks averaged into each pixel (1 to 1000), which
            with the coherence sets the spread of the phase noise.
        tile_size: MCF: side of the square tiles solved independently, in parallel
            (one per CPU thread at a time), and joined through their overlaps (64 to
            32768), or 0: automatic, the whole frame up to 512 pixels on its longer
            side and tiles of about 512 beyond. Tiles are what makes large frames
            fast and possible (docs/design/mcf_unwrapping.md, "Tiles").
        tile_overlap: MCF: pixels neighbouring tiles share, at least (16 to
            tile_size / 2, or to 256 when tile_size is 0).
        device: "auto", "cpu", "cuda" or "cuda:N".
        mcf_solver: MCF: "shortest_paths" (successive shortest paths on the frame's
            grid, the fast default) or "network_simplex" (LEMON's network simplex, the
            reference); both find a flow of the least total cost
            (docs/design/mcf_unwrapping.md, "Solver").

    Returns:
        unwrap_2d_result(unwrapped, cycles, components, report); see its docstring.
        Pixels that are not valid (mask False, weight not > 0, wrapped not finite)
        give NaN and K = 0.

    Raises:
        ValueError: an array is not 2-D or its shape differs from wrapped's, a
            complex input comes with a period other than 2*pi, a parameter is out of
            range or not finite, or gradient_window, max_iterations, looks,
            tile_size or tile_overlap is not a whole number; the message names the
            argument.
        TypeError: an argument has the wrong type (complex weight, non-bool mask).
        RuntimeError: the memory the engine's workspace needs for this frame is not
            available (the message names the frame, the bytes needed and available).

    Example:
        >>> import numpy as np
        >>> from cudadsp import unwrap_phase_2d
        >>> y, x = np.mgrid[0:128, 0:160]
        >>> truth = 40 * np.exp(-((x - 80) ** 2 + (y - 64) ** 2) / 900) + 0.05 * x
        >>> result = unwrap_phase_2d(np.angle(np.exp(1j * truth)))
        >>> step = result.unwrapped - truth  # one constant multiple of 2*pi
        >>> bool(np.allclose(step, step[0, 0], atol=1e-4))
        True
    """
    wrapped = _frame(wrapped, "wrapped")
    method = _one_of(method, METHODS, "method")
    mcf_solver = _one_of(mcf_solver, MCF_SOLVERS, "mcf_solver")
    if numpy.iscomplexobj(wrapped):
        if not math.isclose(float(period), 2 * math.pi, rel_tol=1e-7):
            raise ValueError(
                f"period: a complex input's angle is in radians, so the period must be "
                f"2*pi, got {period!r}"
            )
        wrapped = numpy.angle(wrapped)
    elif not (numpy.issubdtype(wrapped.dtype, numpy.floating)
              or numpy.issubdtype(wrapped.dtype, numpy.integer)):
        raise TypeError(
            f"wrapped: must be a real or complex numeric array, got dtype {wrapped.dtype}"
        )
    wrapped = numpy.ascontiguousarray(wrapped, dtype=numpy.float32)

    if weight is not None:
        weight = _frame(weight, "weight")
        if not (numpy.issubdtype(weight.dtype, numpy.floating)
                or numpy.issubdtype(weight.dtype, numpy.integer)):
            raise TypeError(f"weight: must be a real array, got dtype {weight.dtype}")
        if weight.shape != wrapped.shape:
            raise ValueError(f"weight: shape {weight.shape} differs from wrapped's {wrapped.shape}")
        weight = numpy.ascontiguousarray(weight, dtype=numpy.float32)
    if mask is not None:
        mask = _frame(mask, "mask")
        if mask.dtype != numpy.bool_:
            raise TypeError(f"mask: must be a bool array (True = valid), got dtype {mask.dtype}")
        if mask.shape != wrapped.shape:
            raise ValueError(f"mask: shape {mask.shape} differs from wrapped's {wrapped.shape}")
        mask = numpy.ascontiguousarray(mask)

    try:
        wrap_x, wrap_y = (bool(w) for w in wrap_around)
    except (TypeError, ValueError):
        raise ValueError(
            f"wrap_around: must be a pair (x, y) of booleans, got {wrap_around!r}"
        ) from None

    engine = _engine(
        wrapped.shape[0],
        wrapped.shape[1],
        method,
        float(period),
        wrap_x,
        wrap_y,
        _whole_number(gradient_window, "gradient_window"),
        bool(congruent),
        _whole_number(max_iterations, "max_iterations"),
        float(tolerance),
        _whole_number(looks, "looks"),
        _whole_number(tile_size, "tile_size"),
        _whole_number(tile_overlap, "tile_overlap"),
        str(device),
        mcf_solver,
    )
    unwrapped, cycles, components, report = engine.unwrap(wrapped, weight, mask)
    report["converged"] = not (report["iterations"] > 0
                               and report["relative_residual"] > engine.tolerance)
    report["backend"] = engine.backend()
    return unwrap_2d_result(unwrapped, cycles, components, report)
