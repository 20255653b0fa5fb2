#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
How well a two-dimensional unwrapping matches the truth. NumPy only (no GNU Radio), so
that tools/unwrap2d-vs-skimage uses the same definitions on the GPU host.

An unwrapper may add any whole number of periods to a connected field, so the result is
compared with the truth after removing one such constant: the most common value of
round((result - truth) / period) over the pixels scored. A pixel is correct when its own
difference rounds to that same count; the RMS error is taken of result - truth minus the
constant, over the same pixels (it includes the decorrelation noise of the wrapped input,
which no unwrapper removes).
'''

from dataclasses import dataclass

import numpy


@dataclass
class unwrap_score:
    correct_fraction: float   # pixels with the right whole number of periods
    rms_error: float          # after removing the constant, same units as the phase
    scored_pixels: int        # pixels compared (finite result, inside the region)
    offset_periods: int       # the constant removed, in periods


def score_unwrapping(result, truth, region=None, period=2 * numpy.pi):
    '''
    Score \\p result against \\p truth over \\p region (boolean array, True = scored;
    None: everywhere). Pixels where \\p result is not finite count as wrong (an
    unwrapper that gives up on a pixel the region asks for has not unwrapped it).
    '''
    result = numpy.asarray(result, dtype=numpy.float64)
    truth = numpy.asarray(truth, dtype=numpy.float64)
    if result.shape != truth.shape:
        raise ValueError(f'result: shape {result.shape} differs from truth {truth.shape}')
    region = numpy.ones(truth.shape, bool) if region is None else numpy.asarray(region, bool)
    scored = int(region.sum())
    if scored == 0:
        raise ValueError('region: no pixel to score')
    finite = region & numpy.isfinite(result)
    counts = numpy.rint((result[finite] - truth[finite]) / period).astype(numpy.int64)
    if counts.size == 0:
        return unwrap_score(0.0, float('nan'), scored, 0)
    values, occurrences = numpy.unique(counts, return_counts=True)
    offset = int(values[numpy.argmax(occurrences)])
    error = result[finite] - truth[finite] - offset * period
    return unwrap_score(float(numpy.count_nonzero(counts == offset)) / scored,
                        float(numpy.sqrt(numpy.mean(error * error))), scored, offset)
