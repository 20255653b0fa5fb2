#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of cudadsp.simulate_interferogram, the synthetic-interferogram generator's
binding (the model itself is tested in C++, tests/engine/qa_interferogram_simulator.cc).

Checked here with NumPy alone: the arrays' shapes, dtypes and read-only views; a
noise-free call's wrapped phase equals numpy.angle(exp(1j * truth)) up to float32
rounding (modulo 2 pi: angle gives (-pi, pi], the generator [-pi, pi)); the aliased
flags against the truth's neighbour differences; the lake's mask and coherence; the
same seed gives the same arrays, another seed others; bad arguments raise ValueError
naming the argument.
"""

import gc
import math

import unittest

import numpy as np

import cudadsp
from cudadsp.common import data_files

FIELDS = {
    "true_phase": np.float64,
    "wrapped": np.float32,
    "coherence": np.float32,
    "mask": np.bool_,
    "aliased": np.bool_,
}


def aliased_reference(truth):
    """True where a pixel's truth differs from a 4-neighbour's by more than pi."""
    flags = np.zeros(truth.shape, dtype=bool)
    across = np.abs(np.diff(truth, axis=1)) > math.pi
    down = np.abs(np.diff(truth, axis=0)) > math.pi
    flags[:, :-1] |= across
    flags[:, 1:] |= across
    flags[:-1, :] |= down
    flags[1:, :] |= down
    return flags


class qa_interferogram_simulator(unittest.TestCase):
    def test_001_shapes_and_dtypes(self):
        scene = cudadsp.simulate_interferogram(width=96, height=64, seed=3)
        self.assertEqual((scene.width, scene.height), (96, 64))
        for name, dtype in FIELDS.items():
            array = getattr(scene, name)
            self.assertEqual(array.shape, (64, 96), name)
            self.assertEqual(array.dtype, dtype, name)
            self.assertFalse(array.flags.writeable, name)
        self.assertTrue(np.all(np.isfinite(scene.true_phase)))
        self.assertTrue(np.all(scene.wrapped >= -math.pi))
        self.assertTrue(np.all(scene.wrapped < math.pi))
        self.assertIn("width=96", repr(scene))

    def test_002_defaults(self):
        scene = cudadsp.simulate_interferogram()
        self.assertEqual(scene.wrapped.shape, (512, 512))
        land = scene.coherence[scene.mask]
        self.assertAlmostEqual(float(land.max()), 0.9, places=6)
        self.assertTrue(np.all(scene.coherence[~scene.mask] == np.float32(0.05)))
        self.assertGreater(int(np.count_nonzero(~scene.mask)), 512 * 512 // 100)
        self.assertGreater(int(np.count_nonzero(scene.aliased)), 0)

    def test_003_noise_free_is_wrapped_truth(self):
        scene = cudadsp.simulate_interferogram(
            width=200, height=150, seed=5, coherence=1.0, water=False
        )
        truth = scene.true_phase
        expected = np.angle(np.exp(1j * truth))
        difference = scene.wrapped.astype(np.float64) - expected
        # The same angle modulo 2 pi, within float32 rounding (2.4e-7 near pi).
        error = np.abs((difference + math.pi) % (2 * math.pi) - math.pi)
        self.assertLess(float(error.max()), 1e-6)
        self.assertTrue(np.all(scene.coherence == 1.0))
        self.assertTrue(np.all(scene.mask))
        # The truth spans many cycles, so the test crosses the wrap boundaries.
        self.assertGreater(float(np.ptp(truth)), 10 * 2 * math.pi)

    def test_004_aliased_flags(self):
        steep = cudadsp.simulate_interferogram(width=300, height=300, seed=2)
        expected = aliased_reference(steep.true_phase)
        np.testing.assert_array_equal(steep.aliased, expected)
        self.assertGreater(int(np.count_nonzero(steep.aliased)), 0)
        smooth = cudadsp.simulate_interferogram(seed=2, steep=False)
        self.assertFalse(np.any(smooth.aliased))
        self.assertFalse(np.any(aliased_reference(smooth.true_phase)))

    def test_005_determinism(self):
        a = cudadsp.simulate_interferogram(width=128, height=100, seed=9)
        b = cudadsp.simulate_interferogram(width=128, height=100, seed=9)
        c = cudadsp.simulate_interferogram(width=128, height=100, seed=10)
        for name in FIELDS:
            first, second = getattr(a, name), getattr(b, name)
            self.assertEqual(first.tobytes(), second.tobytes(), name)
        self.assertNotEqual(a.true_phase.tobytes(), c.true_phase.tobytes())
        self.assertNotEqual(a.wrapped.tobytes(), c.wrapped.tobytes())

    def test_006_views_keep_the_scene_alive(self):
        wrapped = cudadsp.simulate_interferogram(width=64, height=64, seed=4).wrapped
        gc.collect()
        again = cudadsp.simulate_interferogram(width=64, height=64, seed=4).wrapped
        np.testing.assert_array_equal(wrapped, again)

    def test_007_bad_arguments_name_the_argument(self):
        for kwargs, name in (
            (dict(width=1), "width"),
            (dict(width=-3), "width"),
            (dict(height=0), "height"),
            (dict(coherence=0.0), "coherence"),
            (dict(coherence=1.5), "coherence"),
            (dict(coherence=float("nan")), "coherence"),
            (dict(topography_cycles=-1.0), "topography_cycles"),
            (dict(deformation_cycles=float("inf")), "deformation_cycles"),
            (dict(atmosphere_rad=-0.1), "atmosphere_rad"),
        ):
            with self.assertRaises(ValueError, msg=name) as raised:
                cudadsp.simulate_interferogram(**kwargs)
            message = str(raised.exception)
            self.assertTrue(message.startswith(name + ":"), message)


if __name__ == "__main__":
    data_files.run_tests()
