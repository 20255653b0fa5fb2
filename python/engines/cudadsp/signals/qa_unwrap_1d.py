#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of cudadsp.unwrap_phase and cudadsp.signals.phase_unwrapper against
numpy.unwrap in float64 (the independent reference): random walks of many jumps,
periods of radians, degrees and cycles, rows of a 2-D array, a stream cut into calls,
NaN, and bad arguments. On the CPU, and on CUDA too where a device is present (the
same assertions)."""

import math
import unittest

import numpy as np

import cudadsp
from cudadsp.common import data_files
from cudadsp.common.testing import backends



def wrapped_walk(rng, n, period, step=0.3, drift=0.1):
    """A random walk rising by about drift cycles a sample, wrapped into one period, in
    float32: every sample differs from the previous by less than half a period."""
    walk = np.cumsum((rng.uniform(-step, step, n) + drift) * period)
    return (np.mod(walk + period / 2, period) - period / 2).astype(np.float32), walk


def reference(wrapped, period, axis=-1):
    """numpy.unwrap in float64, rounded once to float32."""
    return np.unwrap(wrapped.astype(np.float64), period=period, axis=axis).astype(np.float32)


class qa_unwrap_1d(unittest.TestCase):

    def test_matches_numpy_unwrap(self):
        rng = np.random.default_rng(1)
        for device in backends(self):
            for period in (2 * math.pi, 360.0, 1.0):
                with self.subTest(device=device, period=period):
                    wrapped, walk = wrapped_walk(rng, 100_003, period)
                    out = cudadsp.unwrap_phase(wrapped, period=period, device=device)
                    self.assertEqual(out.dtype, np.float32)
                    self.assertEqual(out.shape, wrapped.shape)
                    np.testing.assert_array_equal(out, reference(wrapped, period))
                    # Thousands of cycles, and the walk itself recovered.
                    self.assertGreater(np.ptp(walk) / period, 5000)
                    np.testing.assert_allclose(out, walk - walk[0] + out[0],
                                               atol=1e-3 * period)

    def test_rows_of_a_2d_array_are_unwrapped_on_their_own(self):
        rng = np.random.default_rng(2)
        for device in backends(self):
            with self.subTest(device=device):
                rows = np.stack([wrapped_walk(rng, 513, 2 * math.pi)[0] for _ in range(7)])
                out = cudadsp.unwrap_phase(rows, device=device)
                np.testing.assert_array_equal(out, reference(rows, 2 * math.pi))

    def test_a_stream_cut_into_calls_is_one_stream(self):
        rng = np.random.default_rng(3)
        wrapped, _ = wrapped_walk(rng, 50_000, 2 * math.pi)
        for device in backends(self):
            with self.subTest(device=device):
                engine = cudadsp.signals.phase_unwrapper(device=device)
                cuts = [0, 1, 777, 20_000, 20_001, 50_000]
                parts = [engine.unwrap(wrapped[a:b]) for a, b in zip(cuts, cuts[1:])]
                np.testing.assert_array_equal(np.concatenate(parts),
                                              reference(wrapped, 2 * math.pi))
                expected_k = round((float(np.concatenate(parts)[-1]) - float(wrapped[-1]))
                                   / (2 * math.pi))
                self.assertEqual(engine.wrap_count(), expected_k)
                engine.reset()
                self.assertEqual(engine.wrap_count(), 0)

    def test_nan_is_nan_at_its_sample_only(self):
        rng = np.random.default_rng(4)
        wrapped, _ = wrapped_walk(rng, 1000, 2 * math.pi)
        holed = wrapped.copy()
        holed[[10, 500, 501]] = [np.nan, np.inf, np.nan]
        finite = np.isfinite(holed)
        # The reference: numpy.unwrap over the finite samples alone.
        expected = np.full(holed.shape, np.nan, dtype=np.float32)
        expected[finite] = reference(holed[finite], 2 * math.pi)
        for device in backends(self):
            with self.subTest(device=device):
                out = cudadsp.unwrap_phase(holed, device=device)
                np.testing.assert_array_equal(out, expected)

    def test_bad_arguments_are_named(self):
        with self.assertRaisesRegex(ValueError, "period"):
            cudadsp.unwrap_phase(np.zeros(4, np.float32) + 1, period=0.0, device="cpu")
        with self.assertRaisesRegex(ValueError, "device"):
            cudadsp.unwrap_phase(np.ones(4, np.float32), device="gpu")
        with self.assertRaisesRegex(TypeError, "wrapped"):
            cudadsp.unwrap_phase(np.ones(4, np.complex64), device="cpu")
        with self.assertRaisesRegex(ValueError, "wrapped"):
            cudadsp.unwrap_phase(np.float32(1.0), device="cpu")
        with self.assertRaisesRegex(ValueError, "vlen"):
            cudadsp.signals.phase_unwrapper(vlen=0, device="cpu")


if __name__ == "__main__":
    data_files.run_tests()
