#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Block tests of cudadsp.st_tbd_ff from Python, inside flowgraphs.

The oracle is the filter's documented definition (docs/blocks/st_tbd_ff.md) written
out here in float64 NumPy: the motion update with bilinear interpolation and zero
outside the grid, the information update, max and argmax over the hypotheses (smallest
index on ties), and the local-maximum rule of the detections, with per-cell gathers
rather than the engine's shifted planes. Frames are random and never zero, fed through
several work() calls; every frame must come out once, in order. The velocity grid is
checked against its documented construction. The detection-performance requirement is
in qa_tbd_detection.py.

Every flowgraph test runs on device="cpu"; the *_cuda class repeats them on "cuda"
(bilinear "software") when a CUDA device is present and is skipped otherwise.
"""

import math
import os
import sys
import time
import unittest

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import cudadsp
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp


# --------------------------------------------------------------------------------------
# The documented filter, float64
# --------------------------------------------------------------------------------------
def bilinear_sample(plane, dx, dy):
    """plane(x - dx, y - dy) at every cell: bilinear between the four cells around the
    point, cells outside the grid 0."""
    h, w = plane.shape
    ys, xs = np.mgrid[0:h, 0:w]
    u = xs - float(np.float32(dx))
    v = ys - float(np.float32(dy))
    x0 = np.floor(u).astype(np.int64)
    y0 = np.floor(v).astype(np.int64)
    fx, fy = u - x0, v - y0

    def cell(yi, xi):
        inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        return np.where(inside, plane[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)], 0.0)

    return ((1 - fx) * (1 - fy) * cell(y0, x0) + fx * (1 - fy) * cell(y0, x0 + 1)
            + (1 - fx) * fy * cell(y0 + 1, x0) + fx * fy * cell(y0 + 1, x0 + 1))


def reference(frames, hypotheses, alpha, resets=(), alphas=None):
    """D, the full state per frame and the argmax of frames (n, H, W); the state is 0
    before frame 0 and before every frame in resets. alphas: per-frame alpha."""
    n, h, w = frames.shape
    m_count = len(hypotheses)
    state = np.zeros((m_count, h, w))
    d_out = np.empty((n, h, w))
    states = np.empty((n, m_count, h, w))
    for k in range(n):
        if k in resets:
            state[:] = 0.0
        a = float(np.float32(alpha if alphas is None else alphas[k]))
        x = np.where(np.isfinite(frames[k]), frames[k].astype(np.float64), 0.0)
        new = np.empty_like(state)
        for m, (_vx, _vy, transitions) in enumerate(hypotheses):
            prior = np.zeros((h, w))
            for source, dx, dy, weight in transitions:
                prior += float(np.float32(weight)) * bilinear_sample(state[source], dx, dy)
            new[m] = a * prior + (1 - a) * x
        state = new
        states[k] = state
        d_out[k] = state.max(axis=0)
    return d_out, states


def local_maxima(frame, threshold):
    """Cells (y, x) of frame above threshold that are >= every neighbour inside the grid
    and > the ones before them in row-major order, in row-major order."""
    h, w = frame.shape
    found = []
    for y in range(h):
        for x in range(w):
            v = frame[y, x]
            if not v > threshold:
                continue
            ok = True
            for ny in (y - 1, y, y + 1):
                for nx in (x - 1, x, x + 1):
                    if (ny, nx) == (y, x) or not (0 <= ny < h and 0 <= nx < w):
                        continue
                    before = ny < y or (ny == y and nx < x)
                    if (before and not v > frame[ny, nx]) or (not before and v < frame[ny, nx]):
                        ok = False
            if ok:
                found.append((y, x))
    return found


def velocity_grid(vmax, step, spread):
    """The documented velocity grid: n = floor(2 vmax / step + 1e-6) + 1 values per
    axis, hypothesis iy * n + ix, own mass 1 - b spread / 4, spread / 4 from each
    existing 4-neighbour (increasing index), moved by the hypothesis' own velocity."""
    n = int(math.floor(2 * vmax / step + 1e-6)) + 1
    values = [-vmax + i * step for i in range(n)]
    hyps = []
    for iy in range(n):
        for ix in range(n):
            vx, vy = values[ix], values[iy]
            me = iy * n + ix
            neighbours = sorted(j * n + i for i, j in ((ix - 1, iy), (ix + 1, iy),
                                                       (ix, iy - 1), (ix, iy + 1))
                                if 0 <= i < n and 0 <= j < n)
            transitions = [(me, vx, vy, 1 - len(neighbours) * spread / 4)]
            if spread > 0:
                transitions += [(nb, vx, vy, spread / 4) for nb in neighbours]
            hyps.append((vx, vy, transitions))
    return hyps


#: Hypotheses with fractional and whole shifts, shifts beyond one pixel, mass moving
#: between hypotheses and weights that do not sum to 1.
HYPOTHESES = [
    (0.0, 0.0, [(0, 0.0, 0.0, 0.7), (1, 0.0, 0.0, 0.2)]),
    (1.5, -0.5, [(1, 1.5, -0.5, 0.9)]),
    (-0.3, 0.7, [(2, -0.3, 0.7, 0.8), (3, 2.25, -1.75, 0.15)]),
    (0.25, 0.25, [(3, 0.25, 0.25, 0.5), (0, -1.0, 2.0, 0.3), (2, 0.5, 0.5, 0.1)]),
]


def random_frames(n, h, w, seed):
    """Frames of values in [0.2, 1.2) and [-1.2, -0.2): random and never zero."""
    rng = np.random.default_rng(seed)
    mag = rng.uniform(0.2, 1.2, (n, h, w))
    return (mag * rng.choice([-1.0, 1.0], (n, h, w), p=[0.3, 0.7])).astype(np.float32)


class frame_source(gr.sync_block):
    """Frames from an array, at most `chunk` per work() call (several calls of the
    block downstream), with "tbd_reset" tags and "marker" tags where asked."""

    def __init__(self, frames, chunk=3, reset_at=(), marker_at=()):
        self.frames = np.ascontiguousarray(frames, np.float32).reshape(len(frames), -1)
        gr.sync_block.__init__(self, name="frame_source", in_sig=None,
                               out_sig=[(np.float32, self.frames.shape[1])])
        self.chunk = chunk
        self.reset_at = list(reset_at)
        self.marker_at = list(marker_at)

    def work(self, input_items, output_items):
        start = self.nitems_written(0)
        n = min(len(output_items[0]), len(self.frames) - start, self.chunk)
        if n <= 0:
            return -1
        output_items[0][:n] = self.frames[start:start + n]
        for k in range(start, start + n):
            if k in self.reset_at:
                self.add_item_tag(0, k, pmt.intern("tbd_reset"), pmt.PMT_T)
            if k in self.marker_at:
                self.add_item_tag(0, k, pmt.intern("marker"), pmt.from_uint64(k))
        return n


class reset_posting_source(frame_source):
    """Frames; before frame `at` it waits until `block` has consumed frames 0..at-1,
    then posts a message on its "reset" port."""

    def __init__(self, frames, at, block):
        frame_source.__init__(self, frames)
        self.at, self.block, self.posted = at, block, False
        self.message_port_register_out(pmt.intern("reset"))

    def work(self, input_items, output_items):
        start = self.nitems_written(0)
        if not self.posted and start == self.at:
            deadline = time.monotonic() + 10
            while self.block.nitems_read(0) < self.at and time.monotonic() < deadline:
                time.sleep(0.001)
            self.message_port_pub(pmt.intern("reset"), pmt.PMT_T)
            self.posted = True
        if not self.posted:
            n = min(len(output_items[0]), self.at - start)
            return frame_source.work(self, input_items, [output_items[0][:n]])
        return frame_source.work(self, input_items, output_items)


def run_block(frames, hypotheses=HYPOTHESES, alpha=0.8, threshold=1e30, argmax=True,
              chunk=3, reset_at=(), marker_at=(), setup=None, expected_messages=None,
              **kwargs):
    """Maps, argmax (or None), messages (dicts) and the block for frames (n, H, W)."""
    n, h, w = frames.shape
    blk = cudadsp.st_tbd_ff(w, h, hypotheses, alpha=alpha, threshold=threshold, **kwargs)
    if setup:
        setup(blk)
    tb = gr.top_block()
    src = frame_source(frames, chunk, reset_at, marker_at)
    snk0 = blocks.vector_sink_f(h * w)
    msgs = blocks.message_debug()
    tb.connect(src, blk, snk0)
    snk1 = None
    if argmax:
        snk1 = blocks.vector_sink_f(h * w)
        tb.connect((blk, 1), snk1)
    tb.msg_connect((blk, "detections"), (msgs, "store"))
    tb.run()
    maps = np.array(snk0.data(), np.float32).reshape(-1, h, w)
    arg = np.array(snk1.data(), np.float32).reshape(-1, h, w) if argmax else None
    # message_debug may still be storing the last messages when run() returns.
    if expected_messages is not None:
        deadline = time.monotonic() + 10
        while msgs.num_messages() < expected_messages and time.monotonic() < deadline:
            time.sleep(0.01)
    time.sleep(0.05)
    messages = [pmt.to_python(msgs.get_message(i)) for i in range(msgs.num_messages())]
    return maps, arg, messages, blk, snk0, snk1


def cuda_device_present():
    try:
        return cudadsp.st_tbd_ff(4, 4, [(0.0, 0.0, [(0, 0.0, 0.0, 0.5)])],
                                 device="auto").backend().startswith("cuda")
    except RuntimeError:
        return False


HAVE_CUDA = cuda_device_present()


# --------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------
class qa_st_tbd_ff(gr_unittest.TestCase):
    DEVICE = "cpu"
    EXTRA = {}

    def run_block(self, frames, **kwargs):
        kwargs.setdefault("device", self.DEVICE)
        for key, value in self.EXTRA.items():
            kwargs.setdefault(key, value)
        return run_block(frames, **kwargs)

    def assert_close(self, got, want, what, tol=2e-5):
        err = np.max(np.abs(got.astype(np.float64) - want))
        self.assertLessEqual(err, tol * max(1.0, np.max(np.abs(want))), what)

    def test_001_map_and_argmax_against_reference(self):
        # 37 frames of 13 x 7, three frames per source call and at most four per
        # block call: every frame once, in order, equal to the float64 definition.
        frames = random_frames(37, 7, 13, seed=1)
        for batch in (4, 0):
            maps, arg, _, blk, _, _ = self.run_block(frames, batch_frames=batch)
            what = f"batch_frames {batch}"
            self.assertEqual(maps.shape, frames.shape, what)
            self.assertEqual(arg.shape, frames.shape, what)
            self.assertTrue(np.all(np.isfinite(maps)), what)
            d_ref, states = reference(frames, HYPOTHESES, 0.8)
            self.assert_close(maps, d_ref, what)
            # Argmax: an index (exact float) whose state is the maximum; the same index
            # as the reference wherever the best two differ by more than float noise.
            self.assertTrue(np.all(arg == np.round(arg)), what)
            self.assertTrue(np.all((arg >= 0) & (arg < len(HYPOTHESES))), what)
            idx = arg.astype(np.int64)
            chosen = np.take_along_axis(states, idx[:, None], axis=1)[:, 0]
            self.assert_close(chosen, d_ref, what)
            ordered = np.sort(states, axis=1)
            clear = (ordered[:, -1] - ordered[:, -2]) > 1e-4
            self.assertGreater(clear.mean(), 0.9, what)
            np.testing.assert_array_equal(idx[clear], states.argmax(axis=1)[clear], what)
        self.assertEqual(blk.width(), 13)
        self.assertEqual(blk.height(), 7)

    def test_002_argmax_ties_go_to_the_smallest_index(self):
        # Hypotheses 1 and 2 are copies of 0: exact ties at every cell. Hypothesis 3
        # moves mass away and wins only where it is strictly larger.
        h0 = (0.5, 0.0, [(0, 0.5, 0.0, 0.9)])
        hyps = [h0, h0, h0, (0.0, 1.0, [(3, 0.0, 1.0, 0.9)])]
        frames = random_frames(12, 6, 9, seed=2)
        _, arg, _, _, _, _ = self.run_block(frames, hypotheses=hyps)
        _, states = reference(frames, hyps, 0.8)
        self.assertFalse(np.any(arg == 1) or np.any(arg == 2))
        three_wins = states[:, 3] > states[:, 0] + 1e-5
        np.testing.assert_array_equal(arg[three_wins], 3.0)
        zero_wins = states[:, 0] > states[:, 3] + 1e-5
        np.testing.assert_array_equal(arg[zero_wins], 0.0)
        self.assertTrue(three_wins.any() and zero_wins.any())

    def test_003_detection_messages(self):
        # Every local maximum above the threshold, one dict per detection with the
        # documented keys, in (frame, y, x) order; value = D there, velocity = that of
        # the argmax hypothesis.
        frames = random_frames(25, 9, 11, seed=3)
        threshold = 0.35
        d_ref, _ = reference(frames, HYPOTHESES, 0.8)
        expected = [(k, y, x) for k in range(len(frames))
                    for (y, x) in local_maxima(d_ref[k], threshold)]
        self.assertGreater(len(expected), 30)
        maps, arg, msgs, _, _, _ = self.run_block(frames, threshold=threshold,
                                                  expected_messages=len(expected))
        # The rule applied to the block's own map (exact comparisons on its floats).
        own = [(k, y, x) for k in range(len(frames))
               for (y, x) in local_maxima(maps[k], threshold)]
        got = [(m["frame"], m["y"], m["x"]) for m in msgs]
        self.assertEqual(got, own)
        # Against the reference map: the same cells unless two values are within
        # float noise of each other or of the threshold.
        self.assertLessEqual(len(set(got) ^ set(expected)), 2)
        for m in msgs:
            self.assertEqual(set(m), {"frame", "x", "y", "vx", "vy", "value"})
            k, y, x = m["frame"], m["y"], m["x"]
            self.assertEqual(np.float32(m["value"]), maps[k, y, x])
            vx, vy, _ = HYPOTHESES[int(arg[k, y, x])]
            self.assertEqual(np.float32(m["vx"]), np.float32(vx))
            self.assertEqual(np.float32(m["vy"]), np.float32(vy))

    def test_004_most_detections_per_frame(self):
        # With every local maximum qualifying and at most 3 per frame, the three
        # largest of each frame are kept, published in (y, x) order.
        frames = random_frames(10, 8, 12, seed=4)
        maps, _, msgs, blk, _, _ = self.run_block(frames, threshold=-1e30,
                                                  max_detections_per_frame=3,
                                                  expected_messages=30)
        self.assertEqual(blk.max_detections_per_frame(), 3)
        # The subscriber queue's limit: max(1024, 2 x the cap); a subscriber that keeps
        # up loses nothing.
        self.assertEqual(blk.detection_queue_limit(), 1024)
        self.assertEqual(blk.detections_dropped(), 0)
        want = []
        for k in range(len(frames)):
            cells = local_maxima(maps[k], -1e30)
            self.assertGreater(len(cells), 3)
            best = sorted(cells, key=lambda c: (-maps[k][c], c[0], c[1]))[:3]
            want += [(k, y, x) for (y, x) in sorted(best)]
        self.assertEqual([(m["frame"], m["y"], m["x"]) for m in msgs], want)

    def test_005_reset_tag_frame_numbers_and_tags(self):
        # A "tbd_reset" tag restarts the state exactly at its frame; detections name the
        # input item (not the frames since the reset); other tags pass through to both
        # outputs at their frame.
        frames = random_frames(30, 6, 8, seed=5)
        threshold = 0.3
        d_ref, _ = reference(frames, HYPOTHESES, 0.8, resets={11, 20})
        expected = [(k, y, x) for k in range(len(frames))
                    for (y, x) in local_maxima(d_ref[k], threshold)]
        maps, _, msgs, _, snk0, snk1 = self.run_block(
            frames, threshold=threshold, reset_at=(11, 20), marker_at=(4, 11, 29),
            expected_messages=len(expected))
        self.assert_close(maps, d_ref, "reset at 11 and 20")
        # From 0: alpha * 0 + (1 - alpha) * X, (1 - alpha) formed in float32.
        np.testing.assert_array_equal(maps[11], (np.float32(1) - np.float32(0.8)) * frames[11])
        got = [(m["frame"], m["y"], m["x"]) for m in msgs]
        self.assertLessEqual(len(set(got) ^ set(expected)), 2)
        self.assertTrue(any(f >= 20 for f, _, _ in got))
        for snk in (snk0, snk1):
            markers = sorted(t.offset for t in snk.tags()
                             if pmt.symbol_to_string(t.key) == "marker")
            self.assertEqual(markers, [4, 11, 29])

    def test_006_setters_and_reset_between_runs(self):
        frames = random_frames(16, 5, 7, seed=6)
        a, b = frames[:8], frames[8:]
        blk = cudadsp.st_tbd_ff(7, 5, HYPOTHESES, alpha=0.5, threshold=2.0,
                                device=self.DEVICE, **self.EXTRA)
        self.assertAlmostEqual(blk.alpha(), 0.5)
        self.assertAlmostEqual(blk.threshold(), 2.0)
        blk.set_alpha(0.75)
        blk.set_threshold(-0.5)
        self.assertAlmostEqual(blk.alpha(), 0.75)
        self.assertAlmostEqual(blk.threshold(), -0.5)

        def run(data):
            tb = gr.top_block()
            src = frame_source(data)
            snk = blocks.vector_sink_f(35)
            tb.connect(src, blk, snk)
            tb.run()
            tb.disconnect_all()
            return np.array(snk.data(), np.float32).reshape(-1, 5, 7)

        # Set before the run: applies from the first frame.
        self.assert_close(run(a), reference(a, HYPOTHESES, 0.75)[0], "set_alpha")
        # No reset: the second run continues the state; a new alpha applies from its
        # first frame.
        blk.set_alpha(0.6)
        alphas = [0.75] * 8 + [0.6] * 8
        want = reference(frames, HYPOTHESES, None, alphas=alphas)[0][8:]
        self.assert_close(run(b), want, "state carried across runs")
        # reset(): the next run starts from 0.
        blk.reset()
        self.assert_close(run(b), reference(b, HYPOTHESES, 0.6)[0], "reset()")

        for bad, name in ((0.0, "alpha"), (1.0, "alpha"), (float("nan"), "alpha"),
                          (-0.1, "alpha")):
            with self.assertRaisesRegex(ValueError, name):
                blk.set_alpha(bad)
        for bad in (float("nan"), float("inf"), -float("inf")):
            with self.assertRaisesRegex(ValueError, "threshold"):
                blk.set_threshold(bad)
        self.assertAlmostEqual(blk.alpha(), 0.6)
        self.assertAlmostEqual(blk.threshold(), -0.5)

    def test_007_reset_message(self):
        # A message on "reset" zeroes the state before the next frame processed. The
        # source posts it once the block has consumed frames 0..6 and before it makes
        # frame 7, so the state restarts exactly at frame 7.
        frames = random_frames(14, 4, 5, seed=7)
        blk = cudadsp.st_tbd_ff(5, 4, HYPOTHESES, device=self.DEVICE, **self.EXTRA)
        self.assertIn("reset", pmt.to_python(blk.message_ports_in()))
        self.assertIn("detections", pmt.to_python(blk.message_ports_out()))
        src = reset_posting_source(frames, 7, blk)
        tb = gr.top_block()
        snk = blocks.vector_sink_f(20)
        tb.connect(src, blk, snk)
        tb.msg_connect((src, "reset"), (blk, "reset"))
        tb.run()
        self.assertTrue(src.posted)
        maps = np.array(snk.data(), np.float32).reshape(-1, 4, 5)
        self.assert_close(maps, reference(frames, HYPOTHESES, 0.9, resets={7})[0],
                          "reset message")

    def test_008_argmax_output_optional_and_nan_input(self):
        # Output 1 unconnected: the map is the same. NaN and Inf samples count as 0.
        frames = random_frames(9, 5, 6, seed=8)
        frames[3, 2, 4] = np.nan
        frames[5, 0, 0] = np.inf
        frames[6, 4, 5] = -np.inf
        with_arg = self.run_block(frames)[0]
        without = self.run_block(frames, argmax=False)[0]
        np.testing.assert_array_equal(with_arg, without)
        self.assertTrue(np.all(np.isfinite(without)))
        self.assert_close(without, reference(frames, HYPOTHESES, 0.8)[0], "NaN as 0")

    def test_009_list_of_tuples_round_trip(self):
        blk = cudadsp.st_tbd_ff(6, 4, HYPOTHESES, device=self.DEVICE, **self.EXTRA)
        got = blk.hypotheses()
        self.assertEqual(len(got), len(HYPOTHESES))
        for (vx, vy, tr), (gvx, gvy, gtr) in zip(HYPOTHESES, got):
            self.assertEqual(np.float32(gvx), np.float32(vx))
            self.assertEqual(np.float32(gvy), np.float32(vy))
            self.assertEqual(len(gtr), len(tr))
            for want, have in zip(tr, gtr):
                self.assertEqual(have[0], want[0])
                np.testing.assert_array_equal(np.float32(have[1:]), np.float32(want[1:]))
        # Lists, tuples and NumPy scalars are accepted alike.
        alt = [[np.float32(0.0), 0, [[np.int64(0), np.float64(0.5), 0, 0.5]]]]
        self.assertEqual(len(cudadsp.st_tbd_ff(3, 3, alt, device=self.DEVICE).hypotheses()), 1)
        self.assertGreaterEqual(blk.batch_frames(), 1)
        self.assertEqual(blk.batch_frames(), cudadsp.st_tbd_ff.default_batch_frames(6, 4))
        self.assertEqual(cudadsp.st_tbd_ff.default_batch_frames(1000, 1000), 8)
        self.assertEqual(cudadsp.st_tbd_ff.default_batch_frames(96, 96), 256)
        self.assertTrue(blk.backend() == "cpu" or blk.backend().startswith("cuda"))
        self.assertTrue(blk.implementation())

    def test_010_velocity_grid(self):
        for vmax, step, spread in ((1.0, 1.0, 0.0), (1.0, 1.0, 0.2), (1.0, 0.5, 0.3),
                                   (2.0, 0.75, 0.1), (0.0, 1.0, 0.5)):
            what = f"velocity grid {vmax} {step} {spread}"
            got = cudadsp.tbd_velocity_grid(vmax, step, spread)
            want = velocity_grid(vmax, step, spread)
            self.assertEqual(len(got), len(want), what)
            for (wvx, wvy, wtr), (gvx, gvy, gtr) in zip(want, got):
                self.assertAlmostEqual(gvx, wvx, places=6, msg=what)
                self.assertAlmostEqual(gvy, wvy, places=6, msg=what)
                self.assertEqual([t[0] for t in gtr], [t[0] for t in wtr], what)
                np.testing.assert_allclose([t[1:] for t in gtr], [t[1:] for t in wtr],
                                           atol=1e-6, err_msg=what)
            # Doubly stochastic: what each hypothesis receives and gives sums to 1.
            m = len(got)
            matrix = np.zeros((m, m))
            for i, (_, _, tr) in enumerate(got):
                for source, _, _, weight in tr:
                    matrix[i, source] += weight
            np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-6, err_msg=what)
            np.testing.assert_allclose(matrix.sum(axis=0), 1.0, atol=1e-6, err_msg=what)
        self.assertEqual(len(cudadsp.tbd_velocity_grid(1.0, 0.5, 0.3)), 25)
        # The velocity grid as the block's hypotheses: a target moving at (1, 0) per
        # frame with spread 0 is followed by hypothesis (1, 0) alone.
        hyps = cudadsp.tbd_velocity_grid(1.0, 1.0, 0.0)
        frames = np.full((20, 9, 30), 0.01, np.float32)
        for k in range(20):
            frames[k, 4, 5 + k] = 1.0
        _, arg, _, _, _, _ = self.run_block(frames, hypotheses=hyps, alpha=0.7)
        self.assertEqual(hyps[int(arg[19, 4, 24])][:2], (1.0, 0.0))
        for bad, name in (((1.0, 0.0, 0.1), "step"), ((-1.0, 1.0, 0.1), "vmax"),
                          ((1.0, 1.0, 1.0), "spread"), ((1.0, 1.0, -0.1), "spread"),
                          ((float("nan"), 1.0, 0.1), "vmax")):
            with self.assertRaisesRegex(ValueError, name):
                cudadsp.tbd_velocity_grid(*bad)

    def test_011_bad_parameters_name_themselves(self):
        good = HYPOTHESES
        cases = [
            (dict(width=0), "width"),
            (dict(height=-3), "height"),
            (dict(alpha=1.0), "alpha"),
            (dict(alpha=0.0), "alpha"),
            (dict(alpha=float("nan")), "alpha"),
            (dict(threshold=float("inf")), "threshold"),
            (dict(max_detections_per_frame=0), "max_detections_per_frame"),
            (dict(batch_frames=-1), "batch_frames"),
            # Negative counts: refused by the binding, by name, before the block's
            # configuration (unsigned there) is formed.
            (dict(width=-1), "width"),
            (dict(max_detections_per_frame=-5), "max_detections_per_frame"),
            (dict(device="gpu"), "device"),
            (dict(kernel="fast"), "kernel"),
            (dict(bilinear="cubic"), "bilinear"),
            (dict(hypotheses=[]), "hypotheses"),
            (dict(hypotheses=5), "hypotheses"),
            (dict(hypotheses="abc"), "hypotheses"),
            (dict(hypotheses=[(0.0, 0.0)]), r"hypotheses\[0\]"),
            (dict(hypotheses=[(0.0, 0.0, [])]), r"hypotheses\[0\]\.transitions"),
            (dict(hypotheses=[(0.0, 0.0, [(0, 0.0, 0.0)])]),
             r"hypotheses\[0\]\.transitions\[0\]"),
            (dict(hypotheses=good[:1] + [(0.0, 0.0, [(2, 0.0, 0.0, 0.5)])]),
             r"hypotheses\[1\]\.transitions\[0\]\.source"),
            (dict(hypotheses=[(0.0, 0.0, [(-1, 0.0, 0.0, 0.5)])]),
             r"hypotheses\[0\]\.transitions\[0\]\.source"),
            (dict(hypotheses=[(0.0, 0.0, [(0.5, 0.0, 0.0, 0.5)])]),
             r"hypotheses\[0\]\.transitions\[0\]\.source"),
            (dict(hypotheses=[(0.0, 0.0, [(0, 0.0, 0.0, float("inf"))])]),
             r"hypotheses\[0\]\.transitions\[0\]\.weight"),
            (dict(hypotheses=[(0.0, 0.0, [(0, float("nan"), 0.0, 0.5)])]),
             r"hypotheses\[0\]\.transitions\[0\]\.dx"),
            (dict(hypotheses=[(0.0, 0.0, [(0, 0.0, 1e6, 0.5)])]),
             r"hypotheses\[0\]\.transitions\[0\]\.dy"),
            (dict(hypotheses=[("a", 0.0, [(0, 0.0, 0.0, 0.5)])]), r"hypotheses\[0\]\.vx"),
            (dict(hypotheses=[(0.0, float("inf"), [(0, 0.0, 0.0, 0.5)])]),
             r"hypotheses\[0\]\.vy"),
            # Beyond a C++ int or float32 (issue 16 item 8): named, not a TypeError.
            (dict(width=2**31), "^width: must be at most 2147483647"),
            (dict(height=-2**31 - 1), "^height: must be at least"),
            (dict(max_detections_per_frame=2**40), "^max_detections_per_frame: must be at"),
            (dict(batch_frames=2**32), "^batch_frames: must be at most"),
            (dict(hypotheses=[(0.0, 0.0, [(2**31, 0.0, 0.0, 0.5)])]),
             r"^hypotheses\[0\]\.transitions\[0\]\.source: must be at most"),
            (dict(hypotheses=[(0.0, 0.0, [(0, 0.0, 0.0, 1e300)])]),
             r"^hypotheses\[0\]\.transitions\[0\]\.weight: must be within float32"),
            (dict(hypotheses=[(0.0, 0.0, [(0, 0.0, 0.0, 10**400)])]),
             r"^hypotheses\[0\]\.transitions\[0\]\.weight: must be within float32"),
            # Physical bounds (issue 16 item 9): weights that create mass, velocities no
            # transition can follow.
            (dict(hypotheses=[(0.0, 0.0, [(0, 0.0, 0.0, 1e30)])]),
             r"^hypotheses\[0\]\.transitions: the magnitudes of the weights must sum"),
            (dict(hypotheses=[(0.0, 0.0, [(0, 0.0, 0.0, 0.6), (0, 1.0, 0.0, -0.6)])]),
             r"^hypotheses\[0\]\.transitions: .* at most 1 .*got 1\.2"),
            (dict(hypotheses=[(65.0, 0.0, [(0, 0.0, 0.0, 0.5)])]),
             r"^hypotheses\[0\]\.vx: must be finite with magnitude <= 64"),
            (dict(hypotheses=[(0.0, -1e30, [(0, 0.0, 0.0, 0.5)])]), r"^hypotheses\[0\]\.vy"),
        ]
        for change, name in cases:
            args = dict(width=8, height=6, hypotheses=good, device="cpu")
            args.update(change)
            with self.assertRaisesRegex(ValueError, name, msg=str(change)):
                cudadsp.st_tbd_ff(**args)

    def test_012_cuda_without_device(self):
        if HAVE_CUDA:
            self.skipTest("a CUDA device is present")
        with self.assertRaisesRegex(RuntimeError, "(?i)cuda"):
            cudadsp.st_tbd_ff(8, 6, HYPOTHESES, device="cuda")
        self.assertEqual(cudadsp.st_tbd_ff(8, 6, HYPOTHESES, device="auto").backend(), "cpu")


@unittest.skipUnless(HAVE_CUDA, "skipped: no CUDA device")
class qa_st_tbd_ff_cuda(qa_st_tbd_ff):
    DEVICE = "cuda"
    EXTRA = {"bilinear": "software"}


if __name__ == "__main__":
    gr_unittest.run(qa_st_tbd_ff)  # every class of the module
