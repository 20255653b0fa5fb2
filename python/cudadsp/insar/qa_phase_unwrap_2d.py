#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of two-dimensional phase unwrapping from Python (CPU backend): the block
cudadsp.phase_unwrap_2d_ff in flowgraphs, and cudadsp.unwrap_phase_2d on NumPy arrays.

The fields are noise-free and unaliased (a Gaussian hill of several cycles on a plane),
so the truth is known: every valid pixel's output must be the truth plus a whole number
of periods that is the same over each connected group of valid pixels (groups found
here with scipy.ndimage.label, not by the engine), and the reliability method keeps each
group's first pixel in row-major order as it is. Where scikit-image is importable, the
reliability method must find the same whole periods as skimage.restoration.unwrap_phase
up to one constant.
"""

import math
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from scipy import ndimage

try:
    from gnuradio import cudadsp
except ImportError:
    import sys

    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp

from cudadsp.common import data_files

TWO_PI = 2.0 * math.pi


def hill(shape, seed, period=TWO_PI):
    """(truth as float64, wrapped as float32 in [-P/2, P/2)) of a Gaussian hill of up to
    5 periods on a plane of up to 6 periods across, with an offset. Its steepest step
    between neighbours stays below 0.4 periods: unaliased."""
    rng = np.random.default_rng(seed)
    rows, cols = np.mgrid[0 : shape[0], 0 : shape[1]].astype(np.float64)
    sigma = rng.uniform(0.15, 0.25) * min(shape)
    amplitude = rng.uniform(-1.0, 1.0) * min(5.0, 0.9 * sigma / 2.0)
    centre = rng.uniform(0.2, 0.8, 2) * shape
    slope = rng.uniform(-0.06, 0.06, 2)
    cycles = (
        amplitude * np.exp(-((rows - centre[0]) ** 2 + (cols - centre[1]) ** 2) / (2 * sigma**2))
        + slope[0] * rows
        + slope[1] * cols
        + rng.uniform(-8.0, 8.0)
    )
    truth = period * cycles
    wrapped = (truth - period * np.floor(truth / period + 0.5)).astype(np.float32)
    return truth, wrapped


def components_of(valid, wrap_x=False):
    """4-neighbour groups of valid pixels, numbered 1.. in row-major order of their first
    pixel (0 not valid), columns 0 and -1 joined when wrap_x. Independent of the engine."""
    labels, _ = ndimage.label(valid)
    if wrap_x:
        # Union of the groups that touch across the wrap-around edge.
        parent = list(range(labels.max() + 1))

        def root(i):
            while parent[i] != i:
                i = parent[i]
            return i

        for a, b in zip(labels[:, 0], labels[:, -1]):
            if a and b:
                parent[root(a)] = root(b)
        labels = np.vectorize(root)(labels) * (labels > 0)
    # Renumber by first appearance in row-major order.
    flat = labels.ravel()
    order = {}
    for value in flat[flat > 0]:
        order.setdefault(value, len(order) + 1)
    return np.vectorize(lambda v: order.get(v, 0))(labels).astype(np.int32)


class unwrap_2d_case(gr_unittest.TestCase):
    def assert_truth(self, out, truth, wrapped, valid, period=TWO_PI, anchored=True,
                     wrap_x=False, label=""):
        """out: NaN exactly where not valid; elsewhere truth plus whole periods, the same
        within each group; anchored: each group's first pixel equals its wrapped input.
        Returns the groups (components_of)."""
        out = np.asarray(out, dtype=np.float32)
        self.assertEqual(out.shape, truth.shape, label)
        np.testing.assert_array_equal(np.isnan(out), ~valid, err_msg=f"{label}: NaN placement")
        groups = components_of(valid, wrap_x)
        shift = (out.astype(np.float64) - truth) / period
        whole = np.rint(shift)
        # float32 resolves |truth| < 20 periods to about 2e-6 periods.
        self.assertLess(np.nanmax(np.abs(shift - whole)), 1e-5, f"{label}: not truth + k P")
        for g in range(1, groups.max() + 1):
            in_group = groups == g
            self.assertEqual(np.unique(whole[in_group]).size, 1,
                             f"{label}: group {g} is not one constant off the truth")
            if anchored:
                first = np.flatnonzero(in_group.ravel())[0]
                self.assertEqual(out.ravel()[first], wrapped.ravel()[first],
                                 f"{label}: group {g}'s first pixel must keep K = 0")
        return groups


# --------------------------------------------------------------------------------------
# The block in flowgraphs
# --------------------------------------------------------------------------------------
class qa_phase_unwrap_2d_ff(unwrap_2d_case):
    shape = (45, 71)  # (height, width): odd, unequal, so a transposition cannot pass

    def run_block(self, frames, weights=None, max_items=None, shape=None, **kwargs):
        height, width = shape or self.shape
        blk = cudadsp.phase_unwrap_2d_ff(width, height, weight_input=weights is not None,
                                         device="cpu", **kwargs)
        if max_items:
            blk.set_max_noutput_items(max_items)
        pixels = width * height
        src = blocks.vector_source_f(np.concatenate([f.ravel() for f in frames]).tolist(),
                                     False, pixels)
        snk = blocks.vector_sink_f(pixels)
        tb = gr.top_block()
        tb.connect(src, blk, snk)
        if weights is not None:
            wsrc = blocks.vector_source_f(
                np.concatenate([w.ravel() for w in weights]).tolist(), False, pixels)
            tb.connect(wsrc, (blk, 1))
        tb.run()
        out = np.asarray(snk.data(), dtype=np.float32).reshape(-1, height, width)
        self.assertEqual(out.shape[0], len(frames), "frames lost or repeated")
        reports = {}
        for tag in snk.tags():
            if pmt.symbol_to_string(tag.key) == "unwrap_2d":
                self.assertNotIn(tag.offset, reports, "one tag per frame")
                reports[tag.offset] = pmt.to_python(tag.value)
        self.assertEqual(sorted(reports), list(range(len(frames))))
        return out, [reports[i] for i in range(len(frames))]

    def test_001_reliability_frames(self):
        for max_items in (None, 1, 2):
            fields = [hill(self.shape, 10 * i + (max_items or 0)) for i in range(5)]
            out, reports = self.run_block([w for _, w in fields], max_items=max_items)
            valid = np.ones(self.shape, bool)
            for i, ((truth, wrapped), report) in enumerate(zip(fields, reports)):
                self.assert_truth(out[i], truth, wrapped, valid, label=f"frame {i}")
                self.assertEqual(report, {"valid_pixels": valid.size, "components": 1,
                                          "iterations": 0, "relative_residual": 0.0})

    def test_002_least_squares_frames(self):
        fields = [hill(self.shape, 100 + i) for i in range(3)]
        out, reports = self.run_block([w for _, w in fields], method="least_squares")
        valid = np.ones(self.shape, bool)
        for i, ((truth, wrapped), report) in enumerate(zip(fields, reports)):
            self.assert_truth(out[i], truth, wrapped, valid, anchored=False, label=f"frame {i}")
            self.assertEqual(report["components"], 0)
            self.assertEqual(report["iterations"], 0)  # the direct DCT solve

    def test_003_weight_input(self):
        # Zero, negative and NaN weights invalidate; a strip across all rows splits the
        # frame into two groups, each anchored on its own. The strip moves per frame.
        fields = [hill(self.shape, 200 + i) for i in range(3)]
        weights, valids = [], []
        for i in range(3):
            weight = np.full(self.shape, 0.8, np.float32)
            weight[:, 30 + 4 * i : 33 + 4 * i] = 0.0
            weight[3, 5 + i] = -1.0
            weight[40, 60 - i] = np.nan
            weights.append(weight)
            valids.append(weight > 0)
        out, reports = self.run_block([w for _, w in fields], weights=weights)
        for i, ((truth, wrapped), valid, report) in enumerate(zip(fields, valids, reports)):
            groups = self.assert_truth(out[i], truth, wrapped, valid, label=f"frame {i}")
            self.assertEqual(groups.max(), 2)
            self.assertEqual(report["valid_pixels"], np.count_nonzero(valid))
            self.assertEqual(report["components"], 2)

    def test_004_parameters(self):
        blk = cudadsp.phase_unwrap_2d_ff(71, 45, device="cpu")
        self.assertEqual((blk.width(), blk.height()), (71, 45))
        self.assertEqual(blk.method(), "reliability")
        self.assertEqual(blk.period(), TWO_PI)
        self.assertEqual((blk.wrap_around_x(), blk.wrap_around_y()), (False, False))
        self.assertEqual(blk.gradient_window(), 7)
        self.assertTrue(blk.congruent())
        self.assertEqual(blk.max_iterations(), 100)
        self.assertEqual(blk.tolerance(), 1e-5)
        self.assertFalse(blk.weight_input())
        self.assertEqual((blk.tile_size(), blk.tile_overlap(), blk.looks()), (0, 128, 1))
        self.assertEqual(blk.backend(), "cpu")
        blk = cudadsp.phase_unwrap_2d_ff(8, 9, "least_squares", 360.0, gradient_window=3,
                                         congruent=False, max_iterations=7, tolerance=1e-3,
                                         weight_input=True, device="cpu")
        self.assertEqual((blk.method(), blk.period(), blk.congruent()),
                         ("least_squares", 360.0, False))
        self.assertEqual(blk.gradient_window(), 3)
        self.assertEqual((blk.max_iterations(), blk.tolerance(), blk.weight_input()),
                         (7, 1e-3, True))
        self.assertEqual(blk.input_signature().min_streams(), 2)
        blk = cudadsp.phase_unwrap_2d_ff(600, 400, "mcf", tile_size=256, tile_overlap=64,
                                         looks=4, device="cpu")
        self.assertEqual((blk.method(), blk.tile_size(), blk.tile_overlap(), blk.looks()),
                         ("mcf", 256, 64, 4))

    def test_005_bad_parameters_name_themselves(self):
        cases = [
            ("width", dict(width=0, height=5)),
            ("height", dict(width=5, height=-2)),
            ("width, height", dict(width=46341, height=46341)),
            ("method", dict(width=5, height=5, method="goldstein")),
            ("period", dict(width=5, height=5, period=-1.0)),
            ("period", dict(width=5, height=5, period=1e-31)),
            ("period", dict(width=5, height=5, period=1e31)),
            # Beyond a C++ int (issue 16 item 8): named, not pybind11's generic TypeError.
            ("width", dict(width=2**32, height=5)),
            ("height", dict(width=5, height=-2**31 - 1)),
            ("gradient_window", dict(width=5, height=5, gradient_window=2**31)),
            ("max_iterations", dict(width=5, height=5, max_iterations=2**64 + 1)),
            ("wrap_around_x", dict(width=5, height=5, method="least_squares", wrap_around_x=True)),
            ("wrap_around_y", dict(width=5, height=2, wrap_around_y=True)),
            ("gradient_window", dict(width=5, height=5, gradient_window=0)),
            ("gradient_window", dict(width=5, height=5, gradient_window=4)),
            ("gradient_window", dict(width=5, height=5, gradient_window=17)),
            ("gradient_window", dict(width=5, height=5, gradient_window=-3)),
            ("max_iterations", dict(width=5, height=5, max_iterations=0)),
            ("tolerance", dict(width=5, height=5, tolerance=0.0)),
            ("device", dict(width=5, height=5, device="gpu")),
            ("tile_size", dict(width=5, height=5, method="mcf", tile_size=-1)),
            ("tile_size", dict(width=5, height=5, method="mcf", tile_size=63)),
            ("tile_size", dict(width=5, height=5, method="mcf", tile_size=2**31)),
            ("tile_overlap", dict(width=5, height=5, method="mcf", tile_size=128,
                                  tile_overlap=65)),
            ("tile_overlap", dict(width=5, height=5, method="mcf", tile_overlap=15)),
            ("looks", dict(width=5, height=5, method="mcf", looks=0)),
            # Negative counts: refused by the binding, by name, before the block's
            # configuration (unsigned there) is formed.
            ("width", dict(width=-5, height=8)),
            ("max_iterations", dict(width=5, height=5, max_iterations=-3)),
            ("tile_overlap", dict(width=5, height=5, method="mcf", tile_overlap=-1)),
            ("looks", dict(width=5, height=5, method="mcf", looks=-1)),
            ("looks", dict(width=5, height=5, method="mcf", looks=1001)),
            ("looks", dict(width=5, height=5, method="mcf", looks=2**31)),
        ]
        for name, kwargs in cases:
            with self.subTest(parameter=name, kwargs=kwargs):
                with self.assertRaisesRegex(ValueError, "^" + name):
                    cudadsp.phase_unwrap_2d_ff(**kwargs)

    def test_006_gradient_window_passed_through(self):
        # In phase noise of 0.8 rad the pair rule (1) and a window of 7 decide some
        # pixels differently; the block gives, frame by frame, what the engine gives
        # through unwrap_phase_2d for the same window.
        rng = np.random.default_rng(66)
        frames = []
        for i in range(2):
            truth, _ = hill(self.shape, 600 + i)
            noisy = truth + rng.normal(0.0, 0.8, self.shape)
            frames.append((noisy - TWO_PI * np.floor(noisy / TWO_PI + 0.5)).astype(np.float32))
        outputs = {}
        for window in (1, 7):
            out, _ = self.run_block(frames, gradient_window=window)
            for i, frame in enumerate(frames):
                expected = cudadsp.unwrap_phase_2d(frame, gradient_window=window,
                                                   device="cpu").unwrapped
                np.testing.assert_array_equal(out[i], expected,
                                              err_msg=f"window {window}, frame {i}")
            outputs[window] = out
        self.assertFalse(np.array_equal(outputs[1], outputs[7]),
                         "windows 1 and 7 gave the same frames: the test shows nothing")

    def test_007_weights_are_relative(self):
        # Least squares with weights of 0.3 to 1, and the same times 1e10 and 1e-20:
        # every frame the truth up to a constant, the same frames at every scale
        # (scaled as given, 1e10 made every pixel -1.349e10).
        fields = [hill(self.shape, 700 + i) for i in range(2)]
        rng = np.random.default_rng(77)
        weight = (0.3 + 0.7 * rng.random(self.shape)).astype(np.float32)
        valid = np.ones(self.shape, bool)
        outputs = []
        for scale in (1.0, 1e10, 1e-20):
            out, reports = self.run_block([w for _, w in fields],
                                          weights=[weight * np.float32(scale)] * 2,
                                          method="least_squares")
            for i, (truth, wrapped) in enumerate(fields):
                self.assert_truth(out[i], truth, wrapped, valid, anchored=False,
                                  label=f"scale {scale}, frame {i}")
                self.assertTrue(math.isfinite(reports[i]["relative_residual"]))
            outputs.append(out)
        for out in outputs[1:]:
            np.testing.assert_array_equal(out, outputs[0])

    def test_008_mcf_tiles_passed_through(self):
        # Single-look simulated interferograms (coherence 0.7, the water as weight 0)
        # by MCF in 2 x 2 tiles, one frame per work() call: the block gives, frame by
        # frame, what the engine gives through unwrap_phase_2d with the same tiles,
        # and not what it gives for the whole frame.
        shape = (100, 130)
        frames, weights = [], []
        for seed in (11, 12):
            scene = cudadsp.simulate_interferogram(width=shape[1], height=shape[0],
                                                   coherence=0.7, steep=False, seed=seed)
            frames.append(scene.wrapped)
            weights.append(np.where(scene.mask, scene.coherence, 0).astype(np.float32))
        out, reports = self.run_block(frames, weights, max_items=1, shape=shape,
                                      method="mcf", tile_size=64, tile_overlap=16)
        for i, (frame, weight) in enumerate(zip(frames, weights)):
            expected = cudadsp.unwrap_phase_2d(frame, "mcf", weight=weight, tile_size=64,
                                               tile_overlap=16, device="cpu")
            np.testing.assert_array_equal(out[i], expected.unwrapped, err_msg=f"frame {i}")
            self.assertEqual(reports[i]["components"], expected.report["components"])
            whole = cudadsp.unwrap_phase_2d(frame, "mcf", weight=weight, device="cpu")
            self.assertFalse(np.array_equal(expected.unwrapped, whole.unwrapped,
                                            equal_nan=True),
                             f"frame {i}: the tiles changed nothing, the test shows nothing")


# --------------------------------------------------------------------------------------
# unwrap_phase_2d on NumPy arrays
# --------------------------------------------------------------------------------------
class qa_unwrap_phase_2d(unwrap_2d_case):
    shape = (52, 67)

    def test_001_reliability(self):
        truth, wrapped = hill(self.shape, 1)
        result = cudadsp.unwrap_phase_2d(wrapped, device="cpu")
        self.assertIsInstance(result, cudadsp.unwrap_2d_result)
        valid = np.ones(self.shape, bool)
        self.assert_truth(result.unwrapped, truth, wrapped, valid)
        self.assertEqual(result.unwrapped.dtype, np.float32)
        self.assertEqual(result.cycles.dtype, np.int32)
        k_truth = np.rint((truth - wrapped) / TWO_PI)
        expected_cycles = k_truth - k_truth[0, 0]  # pixel (0, 0) keeps K = 0
        np.testing.assert_array_equal(result.cycles, expected_cycles)
        np.testing.assert_array_equal(result.components, np.ones(self.shape, np.int32))
        self.assertEqual(result.report["valid_pixels"], wrapped.size)
        self.assertEqual(result.report["components"], 1)

    def test_002_least_squares(self):
        truth, wrapped = hill(self.shape, 2)
        valid = np.ones(self.shape, bool)
        result = cudadsp.unwrap_phase_2d(wrapped, method="least_squares", device="cpu")
        self.assert_truth(result.unwrapped, truth, wrapped, valid, anchored=False)
        self.assertIsNone(result.components)
        self.assertEqual(result.report["iterations"], 0)
        k = np.rint((result.unwrapped.astype(np.float64) - wrapped) / TWO_PI)
        np.testing.assert_array_equal(result.cycles, k)

        # The smooth solution: the truth up to a constant, to solver precision; cycles
        # are the whole periods nearest to it.
        smooth = cudadsp.unwrap_phase_2d(wrapped, method="least_squares", congruent=False,
                                         device="cpu")
        offset = smooth.unwrapped.astype(np.float64) - truth
        self.assertLess(np.ptp(offset), 1e-3)
        np.testing.assert_array_equal(
            smooth.cycles, np.floor((smooth.unwrapped.astype(np.float64) - wrapped) / TWO_PI + 0.5))

    def test_003_mask_and_weight(self):
        truth, wrapped = hill(self.shape, 3)
        mask = np.ones(self.shape, bool)
        mask[10:20, :] = False  # two groups: above and below
        mask[40, 40] = False
        # Zero weight on a sparse lattice of single pixels (no two touching, even
        # diagonally: a diagonal chain would cut the 4-neighbour groups), 0.2 to 1 elsewhere.
        rows, cols = np.mgrid[0 : self.shape[0], 0 : self.shape[1]]
        weight = 0.2 + 0.8 * np.random.default_rng(3).random(self.shape)
        weight[(rows % 5 == 2) & (cols % 7 == 3)] = 0.0
        valid = mask & (weight > 0)
        result = cudadsp.unwrap_phase_2d(wrapped, mask=mask, weight=weight, device="cpu")
        groups = self.assert_truth(result.unwrapped, truth, wrapped, valid)
        np.testing.assert_array_equal(result.components, groups)
        self.assertEqual(result.report["components"], 2)
        self.assertEqual(result.report["valid_pixels"], np.count_nonzero(valid))
        np.testing.assert_array_equal(result.cycles[~valid], 0)

        # Least squares on one connected region with weights: conjugate gradients.
        mask = np.ones(self.shape, bool)
        mask[20:30, 25:40] = False
        valid = mask & (weight > 0)
        result = cudadsp.unwrap_phase_2d(wrapped, "least_squares", weight=weight, mask=mask,
                                         tolerance=1e-6, max_iterations=500, device="cpu")
        self.assert_truth(result.unwrapped, truth, wrapped, valid, anchored=False)
        self.assertGreaterEqual(result.report["iterations"], 1)
        self.assertLessEqual(result.report["relative_residual"], 1e-6)

    def test_004_complex_input(self):
        truth, wrapped = hill(self.shape, 4)
        amplitude = np.random.default_rng(4).uniform(0.5, 2.0, self.shape)
        phasor = amplitude * np.exp(1j * truth)
        for z in (phasor, phasor.astype(np.complex64)):
            result = cudadsp.unwrap_phase_2d(z, device="cpu")
            angle = np.angle(z).astype(np.float32)
            self.assert_truth(result.unwrapped, truth, angle, np.ones(self.shape, bool))
        with self.assertRaisesRegex(ValueError, "^period"):
            cudadsp.unwrap_phase_2d(phasor, period=360.0)

    def test_005_periods(self):
        for period in (360.0, 1.0):
            truth, wrapped = hill(self.shape, 5, period)
            result = cudadsp.unwrap_phase_2d(wrapped, period=period, device="cpu")
            self.assert_truth(result.unwrapped, truth, wrapped, np.ones(self.shape, bool),
                              period=period)

    def test_006_wrap_around(self):
        # Periodic across the columns (a full turn of azimuth), with a band of columns
        # masked out: only the wrap-around joins the two sides into one group.
        height, width = self.shape
        rows, cols = np.mgrid[0:height, 0:width].astype(np.float64)
        truth = 9.0 * np.cos(2 * np.pi * cols / width) + 0.1 * rows + 3.0
        wrapped = (truth - TWO_PI * np.floor(truth / TWO_PI + 0.5)).astype(np.float32)
        mask = np.ones(self.shape, bool)
        mask[:, 30:33] = False
        apart = cudadsp.unwrap_phase_2d(wrapped, mask=mask, device="cpu")
        self.assertEqual(apart.report["components"], 2)
        self.assert_truth(apart.unwrapped, truth, wrapped, mask)
        joined = cudadsp.unwrap_phase_2d(wrapped, mask=mask, wrap_around=(True, False),
                                         device="cpu")
        self.assertEqual(joined.report["components"], 1)
        self.assert_truth(joined.unwrapped, truth, wrapped, mask, wrap_x=True)
        with self.assertRaisesRegex(ValueError, "wrap_around"):
            cudadsp.unwrap_phase_2d(wrapped, "least_squares", wrap_around=(True, False))

    def test_007_bad_arguments_name_themselves(self):
        wrapped = hill(self.shape, 7)[1]
        other = np.zeros((self.shape[0], self.shape[1] + 1), np.float32)
        cases = [
            (ValueError, "wrapped", dict(wrapped=wrapped[0])),
            (ValueError, "wrapped", dict(wrapped=wrapped[None])),
            (ValueError, "wrapped", dict(wrapped=np.zeros((0, 3)))),
            (TypeError, "wrapped", dict(wrapped=np.full(self.shape, "a"))),
            (TypeError, "wrapped", dict(wrapped=np.ma.masked_array(wrapped))),
            (ValueError, "method", dict(wrapped=wrapped, method="goldstein")),
            (ValueError, "weight", dict(wrapped=wrapped, weight=other)),
            (ValueError, "weight", dict(wrapped=wrapped, weight=np.ones(7))),
            (TypeError, "weight", dict(wrapped=wrapped, weight=wrapped * 1j)),
            (ValueError, "mask", dict(wrapped=wrapped, mask=other.astype(bool))),
            (TypeError, "mask", dict(wrapped=wrapped, mask=np.ones(self.shape))),
            (ValueError, "wrap_around", dict(wrapped=wrapped, wrap_around=(True,))),
            (ValueError, "wrap_around", dict(wrapped=wrapped, wrap_around=True)),
            (ValueError, "period", dict(wrapped=wrapped, period=0.0)),
            (ValueError, "gradient_window", dict(wrapped=wrapped, gradient_window=0)),
            (ValueError, "gradient_window", dict(wrapped=wrapped, gradient_window=6)),
            (ValueError, "max_iterations", dict(wrapped=wrapped, method="least_squares",
                                                max_iterations=0)),
            (ValueError, "tolerance", dict(wrapped=wrapped, tolerance=2.0)),
            (ValueError, "device", dict(wrapped=wrapped, device="gpu")),
        ]
        for error, name, kwargs in cases:
            with self.subTest(argument=name, kwargs=sorted(kwargs)):
                with self.assertRaisesRegex(error, "^" + name):
                    cudadsp.unwrap_phase_2d(**kwargs)

    def test_008_engine_shared_by_threads(self):
        # Cached engines are shared; calls from several threads (the GIL released while
        # they compute) must each get their own frame's answer.
        fields = [hill(self.shape, 80 + i) for i in range(8)]
        results = [None] * len(fields)

        def work(i):
            results[i] = cudadsp.unwrap_phase_2d(fields[i][1], device="cpu")

        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(fields))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for (truth, wrapped), result in zip(fields, results):
            self.assert_truth(result.unwrapped, truth, wrapped, np.ones(self.shape, bool))

    def test_009_engine_class(self):
        engine = cudadsp.phase_unwrapper_2d(width=67, height=52, method="least_squares",
                                            congruent=False, device="cpu")
        self.assertEqual((engine.width, engine.height, engine.method, engine.congruent),
                         (67, 52, "least_squares", False))
        self.assertEqual(engine.backend(), "cpu")
        truth, wrapped = hill(self.shape, 9)
        unwrapped, cycles, components, report = engine.unwrap(wrapped)
        self.assertIsNone(components)
        self.assertLess(np.ptp(unwrapped.astype(np.float64) - truth), 1e-3)
        self.assertEqual(report["valid_pixels"], wrapped.size)
        with self.assertRaisesRegex(ValueError, "^wrapped"):
            engine.unwrap(wrapped.T)
        with self.assertRaisesRegex(ValueError, "^width"):
            cudadsp.phase_unwrapper_2d(width=-1, height=5)

    def test_010_same_cycles_as_scikit_image(self):
        try:
            from skimage.restoration import unwrap_phase
        except ImportError:
            self.skipTest("scikit-image is not importable")
        for seed in range(3):
            truth, wrapped = hill((96, 128), 1000 + seed)
            ours = cudadsp.unwrap_phase_2d(wrapped, device="cpu")
            theirs = unwrap_phase(wrapped.astype(np.float64))
            k_theirs = np.rint((theirs - wrapped) / TWO_PI).astype(np.int64)
            difference = ours.cycles.astype(np.int64) - k_theirs
            self.assertEqual(np.unique(difference).size, 1, f"seed {seed}")

    def test_011_weights_are_relative(self):
        # Weights times 1e10, 1e30, 1e-20 or 1e-30 give the K of the weights themselves
        # (the truth's up to a constant) and the smooth solution to within 1e-4 rad;
        # scaled as given, 1e10 made every pixel -1.349e10, K INT32_MIN, the residual
        # NaN. Weights that are one constant give what weights of 1 give, bit for bit,
        # which is what no weights give.
        truth, wrapped = hill(self.shape, 11)
        weight = (0.2 + 0.8 * np.random.default_rng(11).random(self.shape)).astype(np.float32)
        weight[20:26, 30:41] = 0.0  # a hole, inside: still one group
        valid = weight > 0
        options = dict(method="least_squares", tolerance=1e-6, max_iterations=500,
                       device="cpu")
        base = cudadsp.unwrap_phase_2d(wrapped, weight=weight, **options)
        base_smooth = cudadsp.unwrap_phase_2d(wrapped, weight=weight, congruent=False,
                                              **options)
        self.assert_truth(base.unwrapped, truth, wrapped, valid, anchored=False)
        for scale in (1e10, 1e30, 1e-20, 1e-30):
            scaled = weight * np.float32(scale)
            result = cudadsp.unwrap_phase_2d(wrapped, weight=scaled, **options)
            self.assert_truth(result.unwrapped, truth, wrapped, valid, anchored=False,
                              label=f"scale {scale}")
            np.testing.assert_array_equal(result.cycles, base.cycles)
            self.assertLessEqual(result.report["relative_residual"], 1e-6)
            self.assertEqual(result.report["valid_pixels"], np.count_nonzero(valid))
            smooth = cudadsp.unwrap_phase_2d(wrapped, weight=scaled, congruent=False,
                                             **options)
            np.testing.assert_allclose(smooth.unwrapped[valid], base_smooth.unwrapped[valid],
                                       rtol=0, atol=1e-4, err_msg=f"scale {scale}")

        unit = cudadsp.unwrap_phase_2d(wrapped, weight=valid.astype(np.float32),
                                       congruent=False, **options)
        unweighted = cudadsp.unwrap_phase_2d(wrapped, mask=valid, congruent=False, **options)
        np.testing.assert_array_equal(unit.unwrapped, unweighted.unwrapped)
        for constant in (1e10, 1e-20, 3e38):
            same = cudadsp.unwrap_phase_2d(wrapped, weight=valid * np.float32(constant),
                                           congruent=False, **options)
            np.testing.assert_array_equal(same.unwrapped, unit.unwrapped,
                                          err_msg=f"constant weights {constant}")

    def test_012_memory_checked_before_allocation(self):
        # A 4096 x 4096 frame needs 89 bytes a pixel with the reliability method on the
        # CPU (1.4 GiB). With 512 MiB of address space to spare, the call ends in a
        # RuntimeError naming the frame, the bytes it needs and the bytes there are,
        # raised before the engine allocates: not a MemoryError from inside it, nor,
        # under a cgroup limit, the kernel's SIGKILL.
        child = textwrap.dedent("""
            import resource
            import numpy
            from gnuradio import cudadsp
            frame = numpy.random.default_rng(1).uniform(-3, 3, (4096, 4096))
            frame = frame.astype(numpy.float32)
            with open("/proc/self/status") as status:
                in_use = next(int(line.split()[1]) * 1024 for line in status
                              if line.startswith("VmSize:"))
            hard = resource.getrlimit(resource.RLIMIT_AS)[1]
            resource.setrlimit(resource.RLIMIT_AS, (in_use + (512 << 20), hard))
            cudadsp.unwrap_phase_2d(frame, device="cpu")
        """)
        completed = subprocess.run([sys.executable, "-c", child], capture_output=True,
                                   text=True, timeout=120)
        self.assertNotEqual(completed.returncode, 0)
        last_line = completed.stderr.strip().splitlines()[-1]
        self.assertRegex(last_line,
                         r"^RuntimeError: phase_unwrapper_2d: a 4096 x 4096 frame .* needs "
                         r"1494220800 bytes \(1\.39 GiB\) of host memory; \d+ bytes .* are "
                         r"available \(RLIMIT_AS\)$")

    def test_013_numbers_must_be_finite(self):
        # Non-finite numbers are named, not left to int()'s or the engine's words.
        wrapped = hill(self.shape, 13)[1]
        for name in ("period", "gradient_window", "max_iterations", "tolerance"):
            for value in (math.nan, math.inf):
                with self.subTest(argument=name, value=value):
                    with self.assertRaisesRegex(ValueError, "^" + name):
                        cudadsp.unwrap_phase_2d(wrapped, **{name: value})


if __name__ == "__main__":
    data_files.run_tests()
