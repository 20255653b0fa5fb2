#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
The fields on which the two-dimensional unwrappers are judged, each with its truth:

* simulated interferograms (cudadsp.simulate_interferogram): noise-free; decorrelation
  noise at coherence 0.9 and 0.7; a masked water body; a steep, aliased slope; all of
  them together;
* the ISCE3 pair of data/insar (real speckle at correlation 0.8), at one look and
  multilooked 2 x 2: its own interferogram, whose truth is flat (the pair was made
  without a phase difference), and the same pair with a known deformation bowl put
  into the second image, so that real decorrelation noise lies on a field of many
  fringes.

Used by examples/phase_unwrap_2d.py (the accuracy table of docs/blocks/
phase_unwrap_2d_ff.md) and by the tests.
'''

from dataclasses import dataclass

import numpy

from ..common import data_files


@dataclass
class unwrap_case:
    name: str
    wrapped: numpy.ndarray     # float32 wrapped phase, radians
    truth: numpy.ndarray       # float64 unwrapped truth (up to a constant)
    coherence: numpy.ndarray   # float32 weight for weighted least squares
    mask: numpy.ndarray        # bool, True where the pixel is valid (scored)


# (name, simulate_interferogram keywords beyond the size and seed)
SIMULATED_FIELDS = (
    ('noise-free', dict(coherence=1.0, atmosphere_rad=0.0, water=False, steep=False)),
    ('coherence 0.9', dict(coherence=0.9, water=False, steep=False)),
    ('coherence 0.7', dict(coherence=0.7, water=False, steep=False)),
    ('water, masked', dict(coherence=0.9, water=True, steep=False)),
    ('steep, aliased', dict(coherence=0.9, water=False, steep=True)),
    ('full scene', dict(coherence=0.9, water=True, steep=True)),
)

ISCE3_PAIR = ('insar/img1_WN_512x512_1x1_128', 'insar/img2_WN_512x512_1x1_128')


def simulated_cases(size=512, seed=7):
    '''The simulated fields at size x size.'''
    from .._engines import simulate_interferogram
    cases = []
    for number, (name, keywords) in enumerate(SIMULATED_FIELDS):
        scene = simulate_interferogram(width=size, height=size, seed=seed + number,
                                       **keywords)
        cases.append(unwrap_case(name, scene.wrapped, scene.true_phase,
                                 scene.coherence, scene.mask.astype(bool)))
    return cases


def isce3_pair_available():
    return all(data_files.data_file(path) is not None for path in ISCE3_PAIR)


def isce3_cases(looks=2, bowl_cycles=6.0, window=5):
    '''
    The real pair's cases ([] when data/insar is absent), multilooked looks x looks
    (a processor's usual step before unwrapping: at one look, coherence 0.8 leaves
    0.9 rad of phase noise per pixel). Coherence is estimated over window x window
    pixels of the multilooked interferogram, as a processor would.
    '''
    if not isce3_pair_available():
        return []
    first, second = (numpy.fromfile(data_files.data_file(path), numpy.complex64)
                     .reshape(512, 512) for path in ISCE3_PAIR)
    rows, cols = numpy.mgrid[0:512, 0:512]
    radius2 = ((rows - 300.0) ** 2 + (cols - 220.0) ** 2) / 110.0 ** 2
    bowl = -2 * numpy.pi * bowl_cycles * numpy.exp(-radius2)
    side = 512 // looks

    def multilook(values, reduce=numpy.sum):
        return reduce(values[:side * looks, :side * looks].reshape(
            side, looks, side, looks), axis=(1, 3))

    cases = []
    name = 'ISCE3 pair' if looks == 1 else f'ISCE3 pair, {looks}x{looks} looks'
    for suffix, truth in ((', flat', numpy.zeros((512, 512))), (' + bowl', bowl)):
        # The bowl goes into the second image so that first * conj(second) carries it.
        shifted = (second * numpy.exp(-1j * truth)).astype(numpy.complex64)
        interferogram = multilook(first * numpy.conj(shifted))
        power = _box_sum(multilook(numpy.abs(first) ** 2), window) * _box_sum(
            multilook(numpy.abs(shifted) ** 2), window)
        truth = multilook(truth, numpy.mean)
        # Coherence of the flattened interferogram (the truth removed, as a processor
        # removes its topography model), so that the fringes do not lower it.
        flattened = interferogram * numpy.exp(-1j * truth)
        coherence = numpy.abs(_box_sum(flattened, window)) / numpy.sqrt(power)
        cases.append(unwrap_case(name + suffix,
                                 numpy.angle(interferogram).astype(numpy.float32),
                                 truth, coherence.astype(numpy.float32),
                                 numpy.ones((side, side), bool)))
    return cases


def _box_sum(values, window):
    '''Sum over window x window pixels centred on each pixel (edges: the part inside).'''
    half = window // 2
    padded = numpy.pad(values, half, mode='constant')
    total = numpy.zeros_like(values)
    for dr in range(window):
        for dc in range(window):
            total = total + padded[dr:dr + values.shape[0], dc:dc + values.shape[1]]
    return total
