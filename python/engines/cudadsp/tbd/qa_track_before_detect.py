#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of cudadsp.track_before_detect and cudadsp.tbd.st_tbd against a float64 NumPy
reference of the recursion written here from its definition (docs/blocks/st_tbd_ff.md:
P^-[m] = sum_k w P[src](x - dx, y - dy), zero outside the grid; P = alpha P^- +
(1 - alpha) X; D = max_m P, A = argmax) on random frames with whole-pixel velocity
grids (bilinear interpolation is then exact), a target moving at a known velocity that
must be detected there, a stream cut into calls, and bad arguments. On the CPU, and on
CUDA too where a device is present (whole-pixel shifts are exact on both bilinear
paths)."""

import unittest

import numpy as np

import cudadsp
from cudadsp.common import data_files
from cudadsp.common.testing import backends

WIDTH, HEIGHT = 40, 30



def shifted(plane, dx, dy):
    """plane moved by whole (dx, dy): out(x, y) = plane(x - dx, y - dy), 0 outside."""
    out = np.zeros_like(plane)
    h, w = plane.shape
    out[max(0, dy):h + min(0, dy), max(0, dx):w + min(0, dx)] = \
        plane[max(0, -dy):h - max(0, dy), max(0, -dx):w - max(0, dx)]
    return out


def reference(frames, hypotheses, alpha):
    """The recursion in float64: D and A per frame, and the last frame's state."""
    state = np.zeros((len(hypotheses),) + frames.shape[1:])
    maps, argmaxes = [], []
    for frame in frames.astype(np.float64):
        predicted = np.zeros_like(state)
        for m, (_, _, transitions) in enumerate(hypotheses):
            for source, dx, dy, weight in transitions:
                assert dx == int(dx) and dy == int(dy)
                predicted[m] += weight * shifted(state[source], int(dx), int(dy))
        state = alpha * predicted + (1 - alpha) * frame
        maps.append(state.max(axis=0))
        argmaxes.append(state.argmax(axis=0))
    return np.array(maps), np.array(argmaxes), state


class qa_track_before_detect(unittest.TestCase):

    def test_matches_the_float64_recursion(self):
        rng = np.random.default_rng(5)
        frames = rng.exponential(1.0, (12, HEIGHT, WIDTH)).astype(np.float32)
        for spread in (0.0, 0.2):
            hypotheses = cudadsp.tbd_velocity_grid(2.0, 1.0, spread)
            expected_map, expected_argmax, state = reference(frames, hypotheses, 0.8)
            # The argmax is compared where the best hypothesis leads clearly (no near tie).
            ordered = np.sort(state, axis=0)
            clear = (ordered[-1] - ordered[-2]) > 1e-4
            for device in backends(self):
                with self.subTest(spread=spread, device=device):
                    result = cudadsp.track_before_detect(frames, hypotheses, alpha=0.8,
                                                         threshold=1e9, device=device)
                    self.assertEqual(result.detection_map.shape, frames.shape)
                    np.testing.assert_allclose(result.detection_map, expected_map,
                                               rtol=1e-5, atol=1e-6)
                    np.testing.assert_array_equal(result.argmax[-1][clear],
                                                  expected_argmax[-1][clear])
                    self.assertEqual(len(result.detections), 0)

    def test_a_moving_target_is_detected_with_its_velocity(self):
        rng = np.random.default_rng(6)
        frames = rng.normal(0.0, 0.3, (16, HEIGHT, WIDTH)).astype(np.float32)
        x0, y0, vx, vy = 5, 20, 2, -1
        for t in range(16):
            frames[t, y0 + vy * t, x0 + vx * t] += 2.0
        hypotheses = cudadsp.tbd_velocity_grid(2.0, 1.0, 0.0)
        for device in backends(self):
            with self.subTest(device=device):
                result = cudadsp.track_before_detect(frames, hypotheses, alpha=0.8,
                                                     threshold=1.0, device=device)
                last = result.detections[result.detections["frame"] == 15]
                self.assertEqual(len(last), 1, result.detections)
                self.assertEqual((int(last["x"][0]), int(last["y"][0])),
                                 (x0 + vx * 15, y0 + vy * 15))
                self.assertEqual((float(last["vx"][0]), float(last["vy"][0])), (vx, vy))

    def test_a_stream_cut_into_calls_is_one_stream(self):
        rng = np.random.default_rng(7)
        frames = rng.exponential(1.0, (9, HEIGHT, WIDTH)).astype(np.float32)
        hypotheses = cudadsp.tbd_velocity_grid(1.0, 1.0, 0.1)
        for device in backends(self):
            with self.subTest(device=device):
                whole = cudadsp.track_before_detect(frames, hypotheses, threshold=0.5,
                                                    device=device)
                engine = cudadsp.tbd.st_tbd(WIDTH, HEIGHT, hypotheses, threshold=0.5,
                                            device=device)
                parts = [engine.process(frames[a:b]) for a, b in ((0, 1), (1, 5), (5, 9))]
                np.testing.assert_array_equal(np.concatenate([p[0] for p in parts]),
                                              whole.detection_map)
                # Frame numbers run on across calls.
                np.testing.assert_array_equal(np.concatenate([p[2] for p in parts]),
                                              whole.detections)

    def test_bad_arguments_are_named(self):
        frames = np.ones((2, HEIGHT, WIDTH), np.float32)
        grid = cudadsp.tbd_velocity_grid(1.0, 1.0, 0.0)
        with self.assertRaisesRegex(ValueError, "alpha"):
            cudadsp.track_before_detect(frames, grid, alpha=1.5, device="cpu")
        with self.assertRaisesRegex(ValueError, r"hypotheses\[0\]"):
            cudadsp.track_before_detect(frames, [(0.0, 0.0)], device="cpu")
        with self.assertRaisesRegex(ValueError, "source"):
            cudadsp.track_before_detect(frames, [(0.0, 0.0, [(5, 0.0, 0.0, 1.0)])],
                                        device="cpu")
        with self.assertRaisesRegex(ValueError, "frames"):
            cudadsp.track_before_detect(frames[0], grid, device="cpu")
        with self.assertRaisesRegex(ValueError, "frames"):
            cudadsp.tbd.st_tbd(WIDTH, HEIGHT, grid, device="cpu").process(frames[:, :, :-1])


if __name__ == "__main__":
    data_files.run_tests()
