#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Block tests of cudadsp.phase_unwrap_ff (CPU backend, inside flowgraphs).

Every output is checked against an independent float64 reference built on
numpy.unwrap, never against the block itself: the integer wrap count K of every
finite sample must match exactly, and the values to float32 precision.

The real-data tests read a GPS L1 capture from the GNSS-SDR project's test signal
samples (CC-BY-4.0, copyright 2012-2019 the GNSS-SDR contributors,
https://gnss-sdr.org) in the repository's data folder (cudadsp.common.data_files);
without it they report skipped, never passed.
"""

import math
import os

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import cudadsp
except ImportError:
    import sys

    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp

from cudadsp.common import data_files

TWO_PI = 2.0 * math.pi
PERIODS = (TWO_PI, 360.0, 1.0, 0.37)
RESET_KEY = "unwrap_reset"


# --------------------------------------------------------------------------------------
# Reference
# --------------------------------------------------------------------------------------
def _unwrap_segment(x64, period):
    """numpy.unwrap of the finite samples of one segment, scattered back, NaN elsewhere."""
    out = np.full(x64.shape, np.nan)
    finite = np.isfinite(x64)
    if finite.any():
        out[finite] = np.unwrap(x64[finite], period=period)
    return out


def unwrap_reference(x, period, vlen=1, reset_offsets=()):
    """Float64 reference of what phase_unwrap_ff must output.

    x: the block's float32 input, flattened (len(x) a multiple of vlen).
    period: the unwrap period P.
    vlen: 1 for one continuous stream, >1 for vectors of vlen samples unwrapped
        one by one.
    reset_offsets: stream mode only; sample offsets where the unwrapping restarts
        (an "unwrap_reset" tag): the stream is cut there and every segment is
        unwrapped on its own.

    Inside every segment (or vector) the finite samples are unwrapped alone with
    numpy.unwrap in float64, on the float32 input cast to float64, and scattered
    back; NaN/+-Inf inputs give NaN. Returns a float64 array shaped like x.
    """
    x64 = np.asarray(x, dtype=np.float32).astype(np.float64).ravel()
    if vlen > 1:
        rows = x64.reshape(-1, vlen)
        return np.concatenate([_unwrap_segment(r, period) for r in rows]) if len(rows) else x64
    cuts = sorted({int(o) for o in reset_offsets if 0 < o < len(x64)})
    segments = np.split(x64, cuts)
    return np.concatenate([_unwrap_segment(s, period) for s in segments])


def wrap_counts(x, y, period):
    """The integer K with y = x + period*K, per sample (0 where y or x is not finite)."""
    x64 = np.asarray(x, dtype=np.float32).astype(np.float64)
    k = np.rint((np.asarray(y, dtype=np.float64) - x64) / period)
    return np.where(np.isfinite(k), k, 0).astype(np.int64)


def wrapped_random_walk(rng, n, period, step_std):
    """float32 phase in [-P/2, P/2] of a random walk with Gaussian steps of step_std."""
    walk = rng.uniform(-period, period) + np.cumsum(rng.normal(0.0, step_std, n))
    return (np.mod(walk + period / 2, period) - period / 2).astype(np.float32)


# --------------------------------------------------------------------------------------
# Flowgraph helpers
# --------------------------------------------------------------------------------------
def make_tag(offset, key, value=pmt.PMT_T):
    return gr.tag_utils.python_to_tag((offset, pmt.intern(key), value, pmt.intern("qa")))


def reset_tags(offsets):
    return [make_tag(o, RESET_KEY) for o in offsets]


def run_block(
    x,
    vlen=1,
    period=TWO_PI,
    batch_samples=None,
    max_items=None,
    tags=(),
    device="cpu",
    block=None,
):
    """Run x through vector_source_f -> phase_unwrap_ff -> vector_sink_f.

    max_items caps the items per work() call upstream of the block, so the block
    sees many small calls; batch_samples (when given) caps what the block hands its engine at once.
    block: a block already made (then period, device and batch_samples are its own).
    Returns (output as a float32 array, output tags, the block).
    """
    x = np.asarray(x, dtype=np.float32)
    blk = block
    if blk is None:
        kwargs = {} if batch_samples is None else {"batch_samples": batch_samples}
        blk = cudadsp.phase_unwrap_ff(vlen=vlen, period=period, device=device, **kwargs)
    src = blocks.vector_source_f(x.tolist(), False, vlen, list(tags))
    snk = blocks.vector_sink_f(vlen)
    tb = gr.top_block()
    if max_items is None:
        tb.connect(src, blk, snk)
    else:
        # The cap goes on a copy block, not on the source: a vector_source with tags
        # sets its output multiple to the whole vector, and a smaller cap deadlocks.
        feeder = blocks.copy(gr.sizeof_float * vlen)
        feeder.set_max_noutput_items(max_items)
        tb.connect(src, feeder, blk, snk)
    tb.run()
    return np.asarray(snk.data(), dtype=np.float32), snk.tags(), blk


def tag_list(tags):
    """Tags as sorted comparable tuples (offset, key, value as text)."""
    return sorted(
        (int(t.offset), pmt.symbol_to_string(t.key), pmt.write_string(t.value)) for t in tags
    )


def cuda_device_present():
    """Whether cudadsp reports a CUDA device (through 'auto' picking one)."""
    count = getattr(cudadsp, "cuda_device_count", None)
    if count is not None:
        return count() > 0
    return cudadsp.phase_unwrap_ff(device="auto").backend().startswith("cuda")


# GNSS-SDR test signal (CC-BY-4.0, the GNSS-SDR contributors): real GPS L1 capture,
# complex64, 16000 samples at 4 Msps.
GNSS_CAPTURE = "gnss/GSoC_CTTC_capture_2012_07_26_4Msps_4ms.dat"
# Golden values for the capture's phase (np.angle in float64, cast to float32, period
# 2*pi): K at the last sample, and the number of samples where K changes. Computed once
# with a plain per-sample loop of the engine's formula, independent of numpy.unwrap,
# and cross-checked against the reference.
GNSS_CAPTURE_FINAL_K = 16
GNSS_CAPTURE_WRAP_EVENTS = 3222


class unwrap_case(gr_unittest.TestCase):
    """Shared checks."""

    def assert_unwrapped(self, x, out, period, vlen=1, reset_offsets=(), label=""):
        """out is the block's output for input x: length, NaN placement, K exactly, values."""
        x = np.asarray(x, dtype=np.float32).ravel()
        out = np.asarray(out, dtype=np.float32).ravel()
        label = f"{label} (n={x.size}, P={period}, vlen={vlen})"
        self.assertEqual(out.size, x.size, f"{label}: output length")
        ref = unwrap_reference(x, period, vlen, reset_offsets)
        finite = np.isfinite(x)

        bad = np.flatnonzero(np.isnan(out) != ~finite)
        self.assertEqual(
            bad.size, 0, f"{label}: NaN expected exactly where the input is NaN/Inf; "
            f"first wrong sample {bad[:1]}, in {x[bad[:1]]}, out {out[bad[:1]]}")

        k_out = wrap_counts(x, out, period)
        k_ref = wrap_counts(x, ref, period)
        bad = np.flatnonzero(k_out != k_ref)
        if bad.size:
            i = bad[0]
            lo = max(i - 2, 0)
            self.fail(
                f"{label}: K differs at {bad.size} samples, first at {i}: "
                f"x[{lo}:{i + 3}]={x[lo:i + 3]}, out={out[lo:i + 3]}, ref={ref[lo:i + 3]}, "
                f"K block={k_out[lo:i + 3]}, K ref={k_ref[lo:i + 3]}")

        err = np.abs(out[finite].astype(np.float64) - ref[finite])
        tol = 1e-6 * np.maximum(np.abs(ref[finite]), period)
        bad = np.flatnonzero(err > tol)
        if bad.size:
            i = np.flatnonzero(finite)[bad[0]]
            self.fail(f"{label}: value at {i}: out {out[i]!r}, ref {ref[i]!r}")
        return k_ref


# --------------------------------------------------------------------------------------
# Stream mode
# --------------------------------------------------------------------------------------
class qa_phase_unwrap_ff(unwrap_case):
    """Stream mode (vlen == 1) on random walks: densities, lengths, periods, chunking."""

    def test_001_wrap_densities_and_periods(self):
        # From no wraps at all (0.01 P steps) to a wrap at almost every sample (3 P).
        for p_index, period in enumerate(PERIODS):
            for s_index, rel_std in enumerate(np.geomspace(0.01, 3.0, 9)):
                rng = np.random.default_rng(1000 + 10 * p_index + s_index)
                x = wrapped_random_walk(rng, 7919, period, rel_std * period)
                out, _, _ = run_block(x, period=period, batch_samples=1000)
                k = self.assert_unwrapped(x, out, period, label=f"step std {rel_std:.3g} P")
                if rel_std >= 0.5:
                    self.assertGreater(np.count_nonzero(np.diff(k)), 1000)

    def test_002_short_and_prime_lengths(self):
        for n in (1, 2, 3, 4, 5, 7, 8, 127, 1000, 1001, 4096, 4097, 7919):
            rng = np.random.default_rng(2000 + n)
            x = wrapped_random_walk(rng, n, TWO_PI, 2.0)
            for batch in (None, 1, 3, 1000):
                out, _, _ = run_block(x, batch_samples=batch)
                self.assert_unwrapped(x, out, TWO_PI, label=f"batch {batch}")

    def test_003_a_million_samples(self):
        rng = np.random.default_rng(3000)
        n = 1_000_003
        x = wrapped_random_walk(rng, n, TWO_PI, 0.9 * TWO_PI)
        out, _, _ = run_block(x, batch_samples=65537)
        k = self.assert_unwrapped(x, out, TWO_PI)
        # A walk this long drifts far: K must be kept exactly over hundreds of wraps.
        self.assertGreater(np.max(np.abs(k)), 100)

    def test_004_many_small_work_calls(self):
        # Small source calls and small engine batches, at sizes that never line up.
        rng = np.random.default_rng(4000)
        x = wrapped_random_walk(rng, 20011, 360.0, 150.0)
        for max_items, batch in ((1, None), (7, 5), (4096, 1000), (1000, 4097), (None, 4097)):
            n = 3001 if max_items == 1 else x.size
            out, _, _ = run_block(x[:n], period=360.0, batch_samples=batch, max_items=max_items)
            self.assert_unwrapped(x[:n], out, 360.0, label=f"max_items {max_items} batch {batch}")

    def test_005_chunk_invariance(self):
        # The stream's output is the same bits however it is cut into calls.
        rng = np.random.default_rng(5000)
        x = wrapped_random_walk(rng, 50021, 0.37, 0.25)
        outputs = []
        for batch, max_items in ((1 << 20, None), (1, 101), (2, None), (1000, None),
                                 (4097, 333), (65536, None)):
            out, _, _ = run_block(x, period=0.37, batch_samples=batch, max_items=max_items)
            self.assert_unwrapped(x, out, 0.37, label=f"batch {batch}")
            outputs.append(out)
        for out in outputs[1:]:
            np.testing.assert_array_equal(out, outputs[0])

    def test_006_input_outside_principal_range(self):
        # Arbitrary multiples of P added to a smooth phase are all taken back out.
        rng = np.random.default_rng(6000)
        smooth = np.cumsum(rng.normal(0.0, 0.05, 9973))
        x = (smooth + TWO_PI * rng.integers(-50, 51, smooth.size)).astype(np.float32)
        out, _, _ = run_block(x, batch_samples=4097)
        k = self.assert_unwrapped(x, out, TWO_PI)
        jumps = np.abs(np.diff(out.astype(np.float64)))
        self.assertLess(jumps.max(), math.pi)
        self.assertGreater(np.max(np.abs(k)), 10)

    def test_007_auto_device_backend(self):
        rng = np.random.default_rng(7000)
        x = wrapped_random_walk(rng, 10007, TWO_PI, 3.0)
        out, _, blk = run_block(x, device="auto")
        self.assertTrue(blk.backend() == "cpu" or blk.backend().startswith("cuda:"),
                        blk.backend())
        self.assert_unwrapped(x, out, TWO_PI)
        self.assertEqual(cudadsp.phase_unwrap_ff(device="cpu").backend(), "cpu")

    def test_008_defaults(self):
        blk = cudadsp.phase_unwrap_ff(device="cpu")
        self.assertEqual(blk.period(), TWO_PI)
        rng = np.random.default_rng(8000)
        x = wrapped_random_walk(rng, 3001, TWO_PI, 2.5)
        out, _, _ = run_block(x, block=blk)
        self.assert_unwrapped(x, out, TWO_PI)


# --------------------------------------------------------------------------------------
# Exact boundaries, NaN and Inf
# --------------------------------------------------------------------------------------
class qa_phase_unwrap_ff_edges(unwrap_case):

    def test_001_exact_half_period_jumps(self):
        # P = 2: every value below is dyadic, so the expected outputs are exact.
        # A jump of exactly P/2 (or 3P/2) is left as numpy.unwrap leaves it; one ulp
        # more wraps.
        a = float(np.float32(1.0000001))  # 1 + 2**-23
        table = [  # (input, expected output)
            (0.0, 0.0),
            (1.0, 1.0),  # +P/2: kept
            (0.0, 0.0),
            (-1.0, -1.0),  # -P/2: kept
            (0.0, 0.0),
            (a, a - 2.0),  # just over +P/2: K = -1
            (0.0, 0.0),  # back: K = 0
            (-a, 2.0 - a),  # just over -P/2: K = +1
            (0.0, 0.0),
            (3.0, 1.0),  # +3P/2: one wrap, residual jump +P/2 kept
            (0.0, 0.0),
            (-3.0, -1.0),
            (-2.0, 0.0),  # from -3: +1 kept, from out -1: lands on 0 with K = 1
        ]
        x = np.array([t[0] for t in table], dtype=np.float32)
        expected = np.array([t[1] for t in table], dtype=np.float32)
        for batch in (None, 1, 2):
            out, _, _ = run_block(x, period=2.0, batch_samples=batch)
            np.testing.assert_array_equal(out, expected)
            self.assert_unwrapped(x, out, 2.0)

    def test_002_boundary_decided_in_float64(self):
        # float32(pi) is above pi, so a jump of float32(pi) from 0 exceeds P/2 = pi and
        # wraps; the float32 just below pi does not. Comparing in float32 gets this wrong.
        pi32 = np.float32(math.pi)
        below = np.nextafter(pi32, np.float32(0))
        self.assertGreater(float(pi32), math.pi)
        self.assertLess(float(below), math.pi)
        x = np.array([0.0, pi32, 0.0, below, 0.0, -pi32, 0.0, -below], dtype=np.float32)
        out, _, _ = run_block(x)
        k = wrap_counts(x, out, TWO_PI)
        np.testing.assert_array_equal(k, [0, -1, 0, 0, 0, 1, 0, 0])
        self.assert_unwrapped(x, out, TWO_PI)

    def test_003_nan_against_last_finite(self):
        # Hand-computed: -3 is unwrapped against 3 (jump -6, K = +1), not against NaN.
        x = np.array([0.0, 3.0, np.nan, -3.0, np.inf, -np.inf, 3.0], dtype=np.float32)
        out, _, _ = run_block(x)
        self.assertTrue(np.isnan(out[[2, 4, 5]]).all())
        np.testing.assert_allclose(out[[0, 1, 3, 6]], [0.0, 3.0, -3.0 + TWO_PI, 3.0], rtol=1e-7)
        self.assert_unwrapped(x, out, TWO_PI)

    def test_004_nan_and_inf_placements(self):
        n = 3000
        cases = {
            "NaN first": [0],
            "NaN run at start": range(0, 7),
            "NaN middle": [1500],
            "consecutive NaN": range(1000, 1050),
            "NaN last": [n - 1],
            "NaN run at end": range(n - 13, n),
            "scattered": [3, 4, 99, 100, 101, 777, 2048, 2999],
            "one finite sample left": [i for i in range(n) if i != 1234],
        }
        for c_index, (name, where) in enumerate(cases.items()):
            for bad in (np.nan, np.inf, -np.inf):
                rng = np.random.default_rng(9000 + c_index)
                x = wrapped_random_walk(rng, n, TWO_PI, 2.0)
                x[list(where)] = bad
                for batch in (None, 997):
                    out, _, _ = run_block(x, batch_samples=batch)
                    self.assert_unwrapped(x, out, TWO_PI, label=f"{name} {bad} batch {batch}")

    def test_005_nan_spanning_chunks(self):
        # A NaN run across a batch boundary, and a whole batch of NaN: K and the last
        # finite sample must carry over.
        rng = np.random.default_rng(9500)
        x = wrapped_random_walk(rng, 10000, 1.0, 0.6)
        x[995:1010] = np.nan
        x[2000:3500] = np.nan
        x[4999] = np.inf
        x[5000] = -np.inf
        # Every gap is crossed by a jump of 0.8 P: it must wrap against the last finite
        # sample before the gap.
        for before, after in ((994, 1010), (1999, 3500), (4998, 5001)):
            x[before], x[after] = 0.4, -0.4
        for batch, max_items in ((1000, None), (1000, 64), (None, 1000), (1, None)):
            out, _, _ = run_block(x, period=1.0, batch_samples=batch, max_items=max_items)
            self.assert_unwrapped(x, out, 1.0, label=f"batch {batch} max_items {max_items}")

    def test_006_all_nan(self):
        for n in (1, 2, 100, 4097):
            x = np.full(n, np.nan, dtype=np.float32)
            x[::3] = np.inf
            out, _, _ = run_block(x, batch_samples=1000)
            self.assertEqual(out.size, n)
            self.assertTrue(np.isnan(out).all())

    def test_007_nan_does_not_poison_later_chunks(self):
        rng = np.random.default_rng(9700)
        x = wrapped_random_walk(rng, 20000, TWO_PI, 4.0)
        x[:5000:7] = np.nan
        out, _, _ = run_block(x, batch_samples=1000)
        self.assert_unwrapped(x, out, TWO_PI)
        self.assertTrue(np.isfinite(out[5000:]).all())


# --------------------------------------------------------------------------------------
# Glitches: finite samples of 2^24 periods or more (out_of_range_samples())
# --------------------------------------------------------------------------------------
class qa_phase_unwrap_ff_glitches(unwrap_case):

    @staticmethod
    def glitches(x, period):
        """Where x is finite but not a phase, decided in float64 from the documented
        bound |x| >= 2^24 periods (independently of the block's float32 limit)."""
        x64 = np.asarray(x, dtype=np.float32).astype(np.float64)
        return np.isfinite(x64) & (np.abs(x64) >= 2.0**24 * period)

    def devices(self):
        return ["cpu"] + (["cuda"] if cuda_device_present() else [])

    def test_001_counted_skipped_and_no_offset(self):
        rng = np.random.default_rng(1601)
        for device in self.devices():
            for period in (TWO_PI, 360.0, 1e-3):
                x = wrapped_random_walk(rng, 20000, period, 0.05 * period)
                limit = 2.0**24 * period
                # Opposite glitches near FLT_MAX (the case), glitches just at the
                # bound, samples just below it (phases, not counted), NaN and Inf
                # (skipped, not counted).
                x[[100, 101]] = (3e38, -3e38)
                x[[5000, 5001, 5002]] = (-3.3e38, 3.4e38, -3.4e38)
                at = np.float32(limit)  # the float32 nearest the bound, then the
                if float(at) < limit:  # first at or above it and the last below it
                    at = np.nextafter(at, np.float32(np.inf))
                below = np.nextafter(at, np.float32(0))
                x[[7000, 7001]] = (at, -at)
                x[[9000, 9500]] = (below, -below)
                x[[12000, 12001]] = (np.nan, np.inf)
                expected = self.glitches(x, period)
                self.assertEqual(np.count_nonzero(expected), 7)
                self.assertFalse(expected[[9000, 9500, 12000, 12001]].any())
                for batch in (None, 4099):
                    label = f"{device} P={period} batch={batch}"
                    blk_kwargs = {} if batch is None else {"batch_samples": batch}
                    blk = cudadsp.phase_unwrap_ff(period=period, device=device, **blk_kwargs)
                    self.assertEqual(blk.out_of_range_samples(), 0, label)
                    out, _, _ = run_block(x, block=blk)
                    self.assertEqual(blk.out_of_range_samples(), 7, label)
                    # The output is numpy.unwrap of the stream with the glitches as NaN:
                    # no offset is left after them.
                    masked = np.where(expected, np.float32(np.nan), x)
                    self.assert_unwrapped(masked, out, period, label=label)

    def test_002_reset_keeps_count_vectors_count_too(self):
        for device in self.devices():
            x = np.array([0.0, 3e38, 1.0, -2e30, 2.0, 3.0], dtype=np.float32)
            blk = cudadsp.phase_unwrap_ff(device=device)
            run_block(x, block=blk)
            self.assertEqual(blk.out_of_range_samples(), 2, device)
            blk.reset()
            out, _, _ = run_block(x, block=blk)
            self.assertEqual(blk.out_of_range_samples(), 4, device)
            np.testing.assert_array_equal(np.isnan(out), [False, True, False, True, False,
                                                          False])
            vec = cudadsp.phase_unwrap_ff(vlen=3, device=device)
            out, _, _ = run_block(x, vlen=3, block=vec)
            self.assertEqual(vec.out_of_range_samples(), 2, device)
            self.assertTrue(np.isnan(out[[1, 3]]).all(), out)


# --------------------------------------------------------------------------------------
# Vector mode
# --------------------------------------------------------------------------------------
class qa_phase_unwrap_ff_vector(unwrap_case):

    def test_001_vectors_unwrapped_independently(self):
        for vlen in (2, 3, 7, 8, 64, 127, 1031, 7919):
            n_vectors = max(3, 40000 // vlen)
            for p_index, period in enumerate(PERIODS):
                rng = np.random.default_rng(10000 + 7 * vlen + p_index)
                x = wrapped_random_walk(rng, n_vectors * vlen, period, 0.7 * period)
                out, _, _ = run_block(x, vlen=vlen, period=period)
                self.assert_unwrapped(x, out, period, vlen=vlen)

    def test_002_no_state_between_vectors(self):
        # Each vector starts far from where the previous one ended: no carry allowed.
        vlen = 5
        x = np.array([0.0, 1.0, 2.0, 3.0, -3.0] * 40, dtype=np.float32)
        out, _, _ = run_block(x, vlen=vlen, batch_samples=15)
        expected = np.array([0.0, 1.0, 2.0, 3.0, -3.0 + TWO_PI] * 40, dtype=np.float32)
        np.testing.assert_allclose(out, expected, rtol=1e-7)
        self.assert_unwrapped(x, out, TWO_PI, vlen=vlen)

    def test_003_batches_and_small_calls(self):
        vlen = 31
        rng = np.random.default_rng(11000)
        x = wrapped_random_walk(rng, 997 * vlen, 360.0, 200.0)
        outputs = []
        for batch, max_items in ((vlen, None), (vlen + 1, None), (4097, None),
                                 (None, 1), (1000, 3), (1 << 20, 333)):
            out, _, _ = run_block(x, vlen=vlen, period=360.0, batch_samples=batch,
                                  max_items=max_items)
            self.assert_unwrapped(x, out, 360.0, vlen=vlen,
                                  label=f"batch {batch} max_items {max_items}")
            outputs.append(out)
        for out in outputs[1:]:
            np.testing.assert_array_equal(out, outputs[0])

    def test_004_nan_inside_vectors(self):
        for vlen in (2, 3, 17, 257):
            rng = np.random.default_rng(12000 + vlen)
            n_vectors = 200
            x = wrapped_random_walk(rng, n_vectors * vlen, TWO_PI, 2.5)
            x[rng.random(x.size) < 0.05] = np.nan
            x[rng.random(x.size) < 0.01] = np.inf
            rows = x.reshape(n_vectors, vlen)
            rows[3, :] = np.nan  # a whole vector
            rows[5, 0] = np.nan  # first of a vector
            rows[6, -1] = -np.inf  # last of a vector
            rows[7, 1:] = np.nan  # a single finite sample
            out, _, _ = run_block(x, vlen=vlen, batch_samples=max(vlen, 1000))
            self.assert_unwrapped(x, out, TWO_PI, vlen=vlen)

    def test_005_single_vector(self):
        rng = np.random.default_rng(13000)
        x = wrapped_random_walk(rng, 7919, 0.37, 0.3)
        out, _, _ = run_block(x, vlen=7919, period=0.37, batch_samples=7919)
        self.assert_unwrapped(x, out, 0.37, vlen=7919)


# --------------------------------------------------------------------------------------
# Reset (tag, message, method) and set_period
# --------------------------------------------------------------------------------------
class qa_phase_unwrap_ff_reset(unwrap_case):

    def test_001_reset_tag_hand_computed(self):
        # Without the tag, -3 after 3 would wrap (K = +1); the tag restarts K at -3.
        x = np.array([0.0, 3.0, -3.0, 3.0, -3.0], dtype=np.float32)
        out, _, _ = run_block(x, tags=reset_tags([2]))
        np.testing.assert_allclose(out, [0.0, 3.0, -3.0, -TWO_PI + 3.0, -3.0], rtol=1e-7)
        self.assert_unwrapped(x, out, TWO_PI, reset_offsets=[2])

    def test_002_reset_tags_at_many_offsets(self):
        rng = np.random.default_rng(14000)
        n = 12007
        offsets = [0, 1, 2, 999, 1000, 1001, 4096, 4097, 7000, 7000, n - 1]
        for p_index, period in enumerate(PERIODS):
            x = wrapped_random_walk(rng, n, period, 0.8 * period)
            for batch, max_items in ((None, None), (1000, None), (4097, 100), (1, 7)):
                m = 2001 if batch == 1 else n
                offs = [o for o in offsets if o < m]
                out, _, _ = run_block(x[:m], period=period, batch_samples=batch,
                                      max_items=max_items, tags=reset_tags(offs))
                self.assert_unwrapped(x[:m], out, period, reset_offsets=offs,
                                      label=f"batch {batch} max_items {max_items}")

    def test_003_reset_tag_on_nan(self):
        rng = np.random.default_rng(15000)
        x = wrapped_random_walk(rng, 3000, TWO_PI, 3.0)
        x[1500:1510] = np.nan
        offs = [1500, 1505, 2999]
        x[2999] = np.nan
        out, _, _ = run_block(x, batch_samples=1000, tags=reset_tags(offs))
        self.assert_unwrapped(x, out, TWO_PI, reset_offsets=offs)

    def test_004_reset_tag_in_vector_mode_is_harmless(self):
        vlen = 13
        rng = np.random.default_rng(16000)
        x = wrapped_random_walk(rng, 100 * vlen, TWO_PI, 3.0)
        out, _, _ = run_block(x, vlen=vlen, tags=reset_tags([0, 5, 50, 99]))
        self.assert_unwrapped(x, out, TWO_PI, vlen=vlen)

    def _rerun_setup(self, period=TWO_PI):
        """A flowgraph run on a first stream A, ready for a second run on B.

        A ends at +0.45 P and B starts at -0.45 P, so continuing A's state takes a
        jump at the seam that starting afresh does not.
        """
        rng = np.random.default_rng(17000)
        a = wrapped_random_walk(rng, 5003, period, 0.9 * period)
        b = wrapped_random_walk(rng, 4001, period, 0.9 * period)
        a[-1] = 0.45 * period
        b[0] = -0.45 * period
        blk = cudadsp.phase_unwrap_ff(vlen=1, period=period, device="cpu", batch_samples=1000)
        src = blocks.vector_source_f(a.tolist(), False, 1, [])
        snk = blocks.vector_sink_f()
        tb = gr.top_block()
        tb.connect(src, blk, snk)
        tb.run()
        self.assert_unwrapped(a, snk.data(), period, label="first run")

        def second_run(data):
            src.set_data(np.asarray(data, dtype=np.float32).tolist(), [])
            snk.reset()
            tb.run()
            return np.asarray(snk.data(), dtype=np.float32)

        return a, b, blk, second_run

    def test_005_state_carries_across_runs(self):
        a, b, _, second_run = self._rerun_setup()
        out = second_run(b)
        both = np.concatenate([a, b])
        ref = unwrap_reference(both, TWO_PI)[a.size:]
        self.assertFalse(np.array_equal(wrap_counts(b, ref, TWO_PI),
                                        wrap_counts(b, unwrap_reference(b, TWO_PI), TWO_PI)))
        self.assertEqual(out.size, b.size)
        np.testing.assert_array_equal(wrap_counts(b, out, TWO_PI), wrap_counts(b, ref, TWO_PI))

    def test_006_reset_message(self):
        a, b, blk, second_run = self._rerun_setup()
        blk.to_basic_block()._post(pmt.intern("reset"), pmt.PMT_T)
        self.assert_unwrapped(b, second_run(b), TWO_PI, label="after reset message")
        # Any message content resets.
        blk.to_basic_block()._post(pmt.intern("reset"), pmt.cons(pmt.PMT_NIL, pmt.PMT_NIL))
        self.assert_unwrapped(b, second_run(b), TWO_PI, label="after a pair message")

    def test_007_reset_method(self):
        a, b, blk, second_run = self._rerun_setup()
        blk.reset()
        self.assert_unwrapped(b, second_run(b), TWO_PI, label="after reset()")

    def test_008_set_period(self):
        a, b, blk, second_run = self._rerun_setup()
        self.assertEqual(blk.period(), TWO_PI)
        blk.set_period(360.0)
        self.assertEqual(blk.period(), 360.0)
        rng = np.random.default_rng(18000)
        deg = wrapped_random_walk(rng, 6007, 360.0, 250.0)
        # set_period also restarts the unwrapping: no state from A's radians.
        self.assert_unwrapped(deg, second_run(deg), 360.0, label="after set_period(360)")
        blk.set_period(0.37)
        self.assertEqual(blk.period(), 0.37)
        cyc = wrapped_random_walk(rng, 3001, 0.37, 0.3)
        self.assert_unwrapped(cyc, second_run(cyc), 0.37, label="after set_period(0.37)")

    def test_009_set_period_rejects_bad_values(self):
        blk = cudadsp.phase_unwrap_ff(device="cpu")
        for bad in (0.0, -1.0, math.inf, -math.inf, math.nan, 1e-31, 1e31):
            with self.assertRaisesRegex(ValueError, "period", msg=repr(bad)):
                blk.set_period(bad)
        self.assertEqual(blk.period(), TWO_PI)


# --------------------------------------------------------------------------------------
# Tag propagation
# --------------------------------------------------------------------------------------
class qa_phase_unwrap_ff_tags(unwrap_case):

    def _tags(self, offsets):
        return [make_tag(o, f"key{i % 3}", pmt.from_long(i)) for i, o in enumerate(offsets)]

    def test_001_tags_pass_through_stream(self):
        rng = np.random.default_rng(19000)
        n = 10007
        x = wrapped_random_walk(rng, n, TWO_PI, 2.0)
        tags = self._tags([0, 1, 999, 1000, 1000, 4096, 5000, n - 1])
        for batch, max_items in ((None, None), (1000, None), (4097, 77)):
            out, out_tags, _ = run_block(x, batch_samples=batch, max_items=max_items, tags=tags)
            self.assert_unwrapped(x, out, TWO_PI)
            self.assertEqual(tag_list(out_tags), tag_list(tags))

    def test_002_tags_pass_through_vector(self):
        vlen = 7
        rng = np.random.default_rng(19500)
        x = wrapped_random_walk(rng, 500 * vlen, 360.0, 100.0)
        tags = self._tags([0, 3, 250, 499])
        out, out_tags, _ = run_block(x, vlen=vlen, period=360.0, batch_samples=vlen * 10,
                                     tags=tags)
        self.assert_unwrapped(x, out, 360.0, vlen=vlen)
        self.assertEqual(tag_list(out_tags), tag_list(tags))

    def test_003_reset_tags_pass_through(self):
        rng = np.random.default_rng(19700)
        x = wrapped_random_walk(rng, 3000, TWO_PI, 2.0)
        tags = reset_tags([10, 2000]) + self._tags([10, 1500])
        out, out_tags, _ = run_block(x, batch_samples=1000, tags=tags)
        self.assert_unwrapped(x, out, TWO_PI, reset_offsets=[10, 2000])
        self.assertEqual(tag_list(out_tags), tag_list(tags))


# --------------------------------------------------------------------------------------
# Bad parameters
# --------------------------------------------------------------------------------------
class qa_phase_unwrap_ff_params(gr_unittest.TestCase):

    def test_001_bad_vlen(self):
        for vlen in (0, -1, -1000):
            with self.assertRaisesRegex(ValueError, "vlen", msg=repr(vlen)):
                cudadsp.phase_unwrap_ff(vlen=vlen, device="cpu")

    def test_002_bad_period(self):
        # 1e-30 .. 1e30: outside, float32 samples resolve no phase (issue 16 item 9).
        for period in (0.0, -0.0, -1.0, -TWO_PI, math.inf, -math.inf, math.nan,
                       5e-324, 9.9e-31, 1.01e30, 1e300):
            with self.assertRaisesRegex(ValueError, r"^period: must be from 1e-30 to 1e\+30",
                                        msg=repr(period)):
                cudadsp.phase_unwrap_ff(period=period, device="cpu")
        for period in (1e-30, 1e30):
            self.assertEqual(cudadsp.phase_unwrap_ff(period=period, device="cpu").period(),
                             period)

    def test_003_bad_device_string(self):
        for device in ("cuda:x", "cuda:", "cuda:-1", "gpu", ""):
            with self.assertRaisesRegex(ValueError, "device", msg=repr(device)):
                cudadsp.phase_unwrap_ff(device=device)

    def test_004_bad_batch_samples(self):
        for vlen, batch in ((1, 0), (1, -1), (8, 7), (1000, 999), (8, 0)):
            with self.assertRaisesRegex(ValueError, "batch_samples", msg=f"{vlen} {batch}"):
                cudadsp.phase_unwrap_ff(vlen=vlen, device="cpu", batch_samples=batch)

    def test_005_good_parameters_accepted(self):
        for vlen, period, batch in ((1, 1e-3, 1), (8, 360.0, 8), (7919, 0.37, 7920),
                                    (1, 1e6, 1 << 24)):
            blk = cudadsp.phase_unwrap_ff(vlen=vlen, period=period, device="cpu",
                                          batch_samples=batch)
            self.assertEqual(blk.period(), period)
            self.assertEqual(blk.backend(), "cpu")

    def test_008_integers_beyond_int_name_themselves(self):
        # Issue 16 item 8: pybind11's own TypeError for these named no parameter.
        for kwargs, rule in ((dict(vlen=2**32), "at most 2147483647"),
                             (dict(vlen=-2**31 - 1), "at least -2147483648"),
                             (dict(batch_samples=2**64 + 1), "at most 2147483647"),
                             (dict(vlen=np.int64(2**40)), "at most 2147483647")):
            name = next(iter(kwargs))
            with self.assertRaisesRegex(ValueError, f"^{name}: must be {rule} .*, got ",
                                        msg=repr(kwargs)):
                cudadsp.phase_unwrap_ff(device="cpu", **kwargs)
        # NumPy integers and ints at the edge of the range still reach make().
        self.assertEqual(cudadsp.phase_unwrap_ff(vlen=np.uint8(4), device="cpu",
                                                 batch_samples=2**31 - 1).backend(), "cpu")

    def test_006_cuda_without_device(self):
        if cuda_device_present():
            self.skipTest("a CUDA device is present")
        for device in ("cuda", "cuda:0"):
            with self.assertRaises(RuntimeError, msg=device):
                cudadsp.phase_unwrap_ff(device=device)

    def test_007_missing_cuda_ordinal(self):
        with self.assertRaises(RuntimeError):
            cudadsp.phase_unwrap_ff(device="cuda:99")


# --------------------------------------------------------------------------------------
# Real data
# --------------------------------------------------------------------------------------
class qa_phase_unwrap_ff_real_data(unwrap_case):
    """Phase of a real GPS L1 capture (GNSS-SDR test signal, CC-BY-4.0)."""

    def setUp(self):
        self.capture = data_files.require(self, GNSS_CAPTURE)

    def load_phase(self):
        iq = np.fromfile(self.capture, dtype=np.complex64)
        self.assertEqual(iq.size, 16000)
        return np.angle(iq.astype(np.complex128)).astype(np.float32)

    def test_001_capture_phase_stream(self):
        phase = self.load_phase()
        for batch in (None, 4097, 1000):
            out, _, _ = run_block(phase, batch_samples=batch)
            k = self.assert_unwrapped(phase, out, TWO_PI, label=f"batch {batch}")
            k_out = wrap_counts(phase, out, TWO_PI)
            self.assertEqual(k_out[-1], GNSS_CAPTURE_FINAL_K)
            self.assertEqual(np.count_nonzero(np.diff(k_out)), GNSS_CAPTURE_WRAP_EVENTS)
        self.assertEqual(k[-1], GNSS_CAPTURE_FINAL_K)

    def test_002_capture_phase_vectors(self):
        # 1 ms vectors (4000 samples at 4 Msps).
        phase = self.load_phase()
        out, _, _ = run_block(phase, vlen=4000, batch_samples=4000)
        self.assert_unwrapped(phase, out, TWO_PI, vlen=4000)

    def test_003_file_source_complex_to_arg_flowgraph(self):
        src = blocks.file_source(gr.sizeof_gr_complex, str(self.capture), False)
        arg = blocks.complex_to_arg()
        blk = cudadsp.phase_unwrap_ff(device="cpu", batch_samples=4097)
        snk_phase = blocks.vector_sink_f()
        snk = blocks.vector_sink_f()
        tb = gr.top_block()
        tb.connect(src, arg, blk, snk)
        tb.connect(arg, snk_phase)
        tb.run()
        # complex_to_arg's own atan2 may differ from numpy's in the last bits, so the
        # reference is built on what it actually produced.
        phase = np.asarray(snk_phase.data(), dtype=np.float32)
        self.assertEqual(phase.size, 16000)
        self.assert_unwrapped(phase, snk.data(), TWO_PI)


if __name__ == "__main__":
    data_files.run_tests()
