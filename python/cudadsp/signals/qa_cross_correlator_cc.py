#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Block tests of cudadsp.cross_correlator_cc, inside flowgraphs.

Two oracles, neither of them the block's own code:

* a float64 numpy reference written from the block's definition
  (docs/blocks/cross_correlator_cc.md): the linear correlation of each frame through
  zero-padded numpy FFTs (checked against numpy.correlate), the integer peak, the
  band-limited interpolant on the fine grid l0 + j/interp (Nyquist bin split evenly
  between +L/2 and -L/2), its argmax limited to +-max_lag, magnitude and phase. The
  block must agree to 1e-5 of each frame's peak scale; where two candidates are that
  close, either is accepted, with the magnitude and phase of the one returned;
* physical truth: x is y delayed by a known, slowly varying fractional delay (the lag
  must track it within 1/interp plus a noise margin), and for a tone the phase,
  unwrapped by phase_unwrap_ff, must follow -2 pi f0 times the delay.

Every test runs on device="cpu"; the *_cuda classes repeat them on "cuda" when a CUDA
device is present and are skipped otherwise.
"""

import math
import os
import sys
import unittest

import numpy as np
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import cudadsp
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp

TOL = 1e-5  # model error of a correlation value, relative to the frame's peak scale


# --------------------------------------------------------------------------------------
# Reference (float64, from the definition)
# --------------------------------------------------------------------------------------
def transform_len(n):
    length = 1
    while length < 2 * n:
        length *= 2
    return length


class frame_reference:
    """One frame's correlation and peak candidates, float64."""

    def __init__(self, x, y, n, interp, max_lag):
        self.n, self.interp = n, interp
        self.max_lag = max_lag if max_lag else n - 1
        self.L = L = transform_len(n)
        x = np.asarray(x, dtype=np.complex64).astype(np.complex128)
        y = np.asarray(y, dtype=np.complex64).astype(np.complex128)
        self.ex = float(np.vdot(x, x).real)
        self.ey = float(np.vdot(y, y).real)
        self.spectrum = np.fft.fft(x, L) * np.conj(np.fft.fft(y, L))
        padded = np.fft.ifft(self.spectrum)
        # r[l] = sum_n x[n] conj(y[n - l]) = numpy.correlate(x, y, "full")[l + n - 1]
        self.r_all = padded[np.arange(-(n - 1), n) % L]
        self.scale = float(np.max(np.abs(self.r_all)))
        self.eps = TOL * self.scale
        m = self.max_lag
        self.correlation = padded[np.arange(-m, m + 1) % L]
        k = np.arange(-(L // 2 - 1), L // 2)
        self._bins = self.spectrum[k % L]
        self._k = k

    def fine(self, taus):
        """r(t) of the trigonometric interpolant with the Nyquist bin split."""
        taus = np.atleast_1d(np.asarray(taus, dtype=np.float64))
        phase = np.exp(2j * np.pi * np.outer(taus, self._k) / self.L)
        nyquist = self.spectrum[self.L // 2] * np.cos(np.pi * taus)
        return (phase @ self._bins + nyquist) / self.L

    def at(self, lag):
        return self.r_all[lag + self.n - 1]

    def acceptable(self):
        """Lags (multiples of 1/interp) the block may return, each with r there."""
        m, interp = self.max_lag, self.interp
        mags = np.abs(self.correlation)
        top = mags.max()
        centres = np.arange(-m, m + 1)[mags >= top - 2 * self.eps]
        points = {}
        j = np.arange(-interp, interp + 1)
        for l0 in centres:
            values = self.fine(l0 + j / interp)
            best = np.abs(values).max()
            for jj in np.nonzero(np.abs(values) >= best - 2 * self.eps)[0]:
                step = int(l0) * interp + int(j[jj])
                value = values[jj]
                if abs(step) > m * interp:  # beyond +-max_lag: the lag is l0 itself
                    step, value = int(l0) * interp, self.at(l0)
                points[step] = value
        return points


def check_frame(tc, ref, lag, mag, phase, what):
    """The block's (lag, magnitude, phase) of one frame against the reference."""
    tc.assertTrue(np.isfinite(lag) and np.isfinite(mag) and np.isfinite(phase),
                  f"{what}: not finite: {lag} {mag} {phase}")
    tc.assertLessEqual(abs(lag), ref.max_lag, what)
    tc.assertTrue(0.0 <= mag <= 1.0, f"{what}: magnitude {mag}")
    tc.assertLessEqual(abs(phase), np.float32(np.pi), f"{what}: phase {phase}")
    if ref.ex == 0.0 or ref.ey == 0.0:
        # No common signal: no lag is preferred, the documented answer is lag 0.
        tc.assertEqual(lag, 0.0, what)
        tc.assertEqual(mag, 0.0, what)
        tc.assertEqual(phase, 0.0, what)
        return
    step = round(float(lag) * ref.interp)
    tc.assertAlmostEqual(float(lag) * ref.interp, step, delta=1e-3,
                         msg=f"{what}: lag {lag} not a multiple of 1/interp")
    points = ref.acceptable()
    tc.assertIn(step, points,
                f"{what}: lag {lag} not the fine-grid argmax; acceptable: "
                f"{sorted(s / ref.interp for s in points)}")
    value = points[step]
    norm = math.sqrt(ref.ex) * math.sqrt(ref.ey)
    tc.assertAlmostEqual(mag, abs(value) / norm,
                         delta=(ref.eps + TOL * abs(value)) / norm + 2.0 ** -23,
                         msg=f"{what}: magnitude")
    if abs(value) > 2 * ref.eps:
        d = (phase - np.angle(value) + np.pi) % (2 * np.pi) - np.pi
        tc.assertLessEqual(abs(d), math.asin(ref.eps / abs(value)) + 4e-7,
                           f"{what}: phase {phase}, reference {np.angle(value)}")


# --------------------------------------------------------------------------------------
# Signals
# --------------------------------------------------------------------------------------
def complex_noise(rng, n, power=1.0):
    return math.sqrt(power / 2) * (rng.standard_normal(n) + 1j * rng.standard_normal(n))


def tones(rng, count=32, bandwidth=0.35):
    """A band-limited signal s(t) = sum a_k e^{j 2 pi f_k t}, unit mean power."""
    f = rng.uniform(-bandwidth, bandwidth, count)
    a = complex_noise(rng, count, 1.0 / count)

    def s(t):
        t = np.asarray(t, dtype=np.float64)
        out = np.zeros(t.shape, dtype=np.complex128)
        for fk, ak in zip(f, a):
            out += ak * np.exp(2j * np.pi * fk * t)
        return out

    return s


def random_frames(rng, n, nframes, max_lag):
    """Frames of every kind: white delayed copies, band-limited fractional delays,
    independent noise, identical frames, zeros."""
    m = max_lag if max_lag else n - 1
    xs, ys = [], []
    t = np.arange(n)
    for k in range(nframes):
        gain = rng.uniform(0.2, 3.0) * np.exp(1j * rng.uniform(-np.pi, np.pi))
        kind = k % 5
        if kind == 0:
            d = int(rng.integers(-m, m + 1))
            s = complex_noise(rng, 3 * n)
            x = gain * s[n - d:2 * n - d] + complex_noise(rng, n, 0.05)
            y = s[n:2 * n]
        elif kind == 1:
            s = tones(rng, 4 if n < 64 else 32)
            d = rng.uniform(-0.9, 0.9) * m
            x = gain * s(t - d) + complex_noise(rng, n, 0.01)
            y = s(t)
        elif kind == 2:
            x, y = complex_noise(rng, n), complex_noise(rng, n)
        elif kind == 3:
            y = complex_noise(rng, n)
            x = gain * y
        else:
            x, y = np.zeros(n), complex_noise(rng, n)
        xs.append(x)
        ys.append(y)
    return (np.concatenate(xs).astype(np.complex64), np.concatenate(ys).astype(np.complex64))


# --------------------------------------------------------------------------------------
# Running the block
# --------------------------------------------------------------------------------------
def run_block(x, y, fft_len, device, interp=16, max_lag=0, spectrum=False,
              correlation=False):
    """Outputs of the block in a flowgraph: dict of numpy arrays and the block."""
    blk = cudadsp.cross_correlator_cc(fft_len, interp=interp, max_lag=max_lag,
                                      spectrum_output=spectrum,
                                      correlation_output=correlation, device=device)
    tb = gr.top_block()
    tb.connect(blocks.vector_source_c(np.asarray(x, dtype=np.complex64).tolist()), (blk, 0))
    tb.connect(blocks.vector_source_c(np.asarray(y, dtype=np.complex64).tolist()), (blk, 1))
    sinks = [blocks.vector_sink_f() for _ in range(3)]
    for port, sink in enumerate(sinks):
        tb.connect((blk, port), sink)
    port = 3
    extra = {}
    if spectrum:
        extra["spectrum"] = blocks.vector_sink_c(blk.transform_len())
        tb.connect((blk, port), extra["spectrum"])
        port += 1
    if correlation:
        extra["correlation"] = blocks.vector_sink_c(blk.correlation_len())
        tb.connect((blk, port), extra["correlation"])
    tb.run()
    out = {name: np.array(s.data(), dtype=np.float32)
           for name, s in zip(("lag", "mag", "phase"), sinks)}
    if spectrum:
        out["spectrum"] = np.array(extra["spectrum"].data(), dtype=np.complex64).reshape(
            -1, blk.transform_len())
    if correlation:
        out["correlation"] = np.array(extra["correlation"].data(),
                                      dtype=np.complex64).reshape(-1, blk.correlation_len())
    return out, blk


def cuda_device_present():
    """Whether cudadsp reports a CUDA device (through 'auto' picking one)."""
    count = getattr(cudadsp, "cuda_device_count", None)
    if count is not None:
        return count() > 0
    return cudadsp.cross_correlator_cc(4, device="auto").backend().startswith("cuda")


HAVE_CUDA = cuda_device_present()


# --------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------
class qa_cross_correlator_cc(gr_unittest.TestCase):
    DEVICE = "cpu"

    def test_001_reference_matches_numpy_correlate(self):
        # The reference's padded FFT correlation is numpy.correlate's "full" output, and
        # its interpolant passes through every integer lag.
        rng = np.random.default_rng(1)
        for n in (2, 3, 17, 100):
            x, y = complex_noise(rng, n), complex_noise(rng, n)
            ref = frame_reference(x, y, n, 4, 0)
            direct = np.correlate(x.astype(np.complex64).astype(np.complex128),
                                  y.astype(np.complex64).astype(np.complex128), "full")
            np.testing.assert_allclose(ref.r_all, direct, rtol=0, atol=1e-12 * ref.scale)
            lags = np.arange(-(n - 1), n)
            np.testing.assert_allclose(ref.fine(lags), ref.r_all, rtol=0,
                                       atol=1e-12 * ref.scale)

    def test_002_random_frames_against_numpy(self):
        rng = np.random.default_rng(2)
        for n, nframes, limited in ((2, 30, 1), (3, 30, 1), (100, 25, 30), (1000, 10, 200)):
            x, y = random_frames(rng, n, nframes, limited)
            for interp in (1, 4, 16):
                for max_lag in (0, limited):
                    what = f"{self.DEVICE} N={n} interp={interp} max_lag={max_lag}"
                    out, blk = run_block(x, y, n, self.DEVICE, interp, max_lag, True, True)
                    self.assertEqual(len(out["lag"]), nframes, what)
                    self.assertEqual(blk.transform_len(), transform_len(n), what)
                    self.assertEqual(blk.correlation_len(),
                                     2 * (max_lag if max_lag else n - 1) + 1, what)
                    for k in range(nframes):
                        fw = f"{what} frame {k}"
                        ref = frame_reference(x[k * n:(k + 1) * n], y[k * n:(k + 1) * n], n,
                                              interp, max_lag)
                        check_frame(self, ref, out["lag"][k], out["mag"][k],
                                    out["phase"][k], fw)
                        np.testing.assert_allclose(
                            out["correlation"][k], ref.correlation, rtol=0,
                            atol=TOL * ref.scale, err_msg=fw + ": correlation")
                        s_scale = np.max(np.abs(ref.spectrum))
                        np.testing.assert_allclose(
                            out["spectrum"][k], ref.spectrum, rtol=0,
                            atol=TOL * s_scale, err_msg=fw + ": spectrum")

    def test_003_tracks_a_slowly_varying_fractional_delay(self):
        # x(t) = s(t - d(t)), s band-limited (40 tones within +-0.35 cycles/sample),
        # d(t) = 3.3 + 2.7 sin(2 pi t / T) over 300 frames of 512, 20 dB SNR on both
        # inputs: the lag follows d at the frame centres within 1/interp, plus 0.05 for
        # the noise and the change of d within a frame (at most 0.03).
        rng = np.random.default_rng(3)
        n, nframes, interp = 512, 300, 16
        total = n * nframes
        t = np.arange(total, dtype=np.float64)
        period = float(total)

        def delay(tt):
            return 3.3 + 2.7 * np.sin(2 * np.pi * tt / period)

        s = tones(rng, 40)
        x = s(t - delay(t)) + complex_noise(rng, total, 0.01)
        y = s(t) + complex_noise(rng, total, 0.01)
        out, _ = run_block(x, y, n, self.DEVICE, interp, max_lag=16)
        self.assertEqual(len(out["lag"]), nframes)
        truth = delay(np.arange(nframes) * n + (n - 1) / 2)
        err = np.abs(out["lag"] - truth)
        limit = 1.0 / interp + 0.05
        print(f"{self.DEVICE}: delay tracking: max |lag - d| {err.max():.4f}, rms "
              f"{np.sqrt(np.mean(err ** 2)):.4f} (limit {limit})")
        self.assertLessEqual(err.max(), limit, f"worst frame {int(np.argmax(err))}")
        self.assertTrue(np.all(out["mag"] > 0.9), out["mag"].min())

    def test_004_tone_phase_unwrapped_follows_the_delay(self):
        # A tone e^{j w t} at 0.2 cycles/sample, x delayed by d(t) rising 0 -> 12
        # samples over 200 frames of 256 (phase -w d winds through 2.4 turns), 30 dB SNR.
        # For a tone r(t) = e^{-j w d} g(t) with arg g(t) = w t to 1e-3 rad near t = 0,
        # so the phase is w lag - w d: unwrapped by phase_unwrap_ff it must be a
        # continuous curve equal to w (lag - d) up to one constant multiple of 2 pi.
        rng = np.random.default_rng(4)
        n, nframes, interp, f0 = 256, 200, 16, 0.2
        w = 2 * np.pi * f0
        total = n * nframes
        t = np.arange(total, dtype=np.float64)
        d = 12.0 * t / total
        x = np.exp(1j * w * (t - d)) + complex_noise(rng, total, 1e-3)
        y = np.exp(1j * w * t) + complex_noise(rng, total, 1e-3)
        blk = cudadsp.cross_correlator_cc(n, interp=interp, max_lag=8, device=self.DEVICE)
        unwrap = cudadsp.phase_unwrap_ff(device=self.DEVICE)
        lag_sink, phase_sink, raw_sink = (blocks.vector_sink_f(), blocks.vector_sink_f(),
                                          blocks.vector_sink_f())
        mag_sink = blocks.null_sink(gr.sizeof_float)
        tb = gr.top_block()
        tb.connect(blocks.vector_source_c(x.astype(np.complex64).tolist()), (blk, 0))
        tb.connect(blocks.vector_source_c(y.astype(np.complex64).tolist()), (blk, 1))
        tb.connect((blk, 0), lag_sink)
        tb.connect((blk, 1), mag_sink)
        tb.connect((blk, 2), unwrap, phase_sink)
        tb.connect((blk, 2), raw_sink)
        tb.run()
        lag = np.array(lag_sink.data(), dtype=np.float64)
        unwrapped = np.array(phase_sink.data(), dtype=np.float64)
        raw = np.array(raw_sink.data(), dtype=np.float64)
        self.assertEqual(len(unwrapped), nframes)
        d_frames = 12.0 * (np.arange(nframes) * n + (n - 1) / 2) / total
        # The raw phase wraps; the unwrapped one does not jump.
        self.assertGreater(np.max(np.abs(np.diff(raw))), np.pi)
        self.assertLess(np.max(np.abs(np.diff(unwrapped))), 0.5)
        predicted = w * (lag - d_frames)
        offset = unwrapped - predicted
        turns = np.round((offset[0]) / (2 * np.pi))
        err = np.abs(offset - 2 * np.pi * turns)
        print(f"{self.DEVICE}: tone phase: max |unwrapped - w (lag - d) - 2 pi K| "
              f"{err.max():.5f} rad over {(unwrapped[-1] - unwrapped[0]) / (2 * np.pi):.2f}"
              " turns")
        self.assertLess(err.max(), 0.02)
        # The whole phase change is the delay's: -w * 12 samples, lags near 0.
        self.assertLessEqual(np.max(np.abs(lag)), 1.0)

    def test_005_ports_and_getters(self):
        n = 100
        for spectrum in (False, True):
            for correlation in (False, True):
                blk = cudadsp.cross_correlator_cc(n, interp=4, max_lag=20,
                                                  spectrum_output=spectrum,
                                                  correlation_output=correlation,
                                                  device=self.DEVICE)
                nports = 3 + spectrum + correlation
                self.assertEqual(blk.output_signature().max_streams(), nports)
                self.assertEqual(blk.output_signature().min_streams(), nports)
                self.assertEqual(blk.input_signature().max_streams(), 2)
                self.assertEqual(blk.transform_len(), 256)
                self.assertEqual(blk.correlation_len(), 41)
                self.assertEqual(blk.decimation(), n)
                self.assertEqual(blk.backend(),
                                 "cpu" if self.DEVICE == "cpu" else "cuda:0")
        blk = cudadsp.cross_correlator_cc(n)
        self.assertEqual(blk.correlation_len(), 2 * (n - 1) + 1)
        self.assertEqual(blk.backend().startswith("cuda"), HAVE_CUDA)

    def test_006_partial_final_frame_and_identical_frames(self):
        rng = np.random.default_rng(6)
        n = 64
        y = complex_noise(rng, 10 * n + 37).astype(np.complex64)
        x = (np.complex64(2.0 * np.exp(0.9j)) * y).astype(np.complex64)
        out, _ = run_block(x, y, n, self.DEVICE, interp=16)
        self.assertEqual(len(out["lag"]), 10)
        np.testing.assert_array_equal(out["lag"], np.zeros(10, dtype=np.float32))
        np.testing.assert_allclose(out["mag"], 1.0, atol=1e-5)
        self.assertTrue(np.all(out["mag"] <= 1.0))
        np.testing.assert_allclose(out["phase"], 0.9, atol=1e-5)


class qa_cross_correlator_cc_params(gr_unittest.TestCase):

    def expect_value_error(self, name, *args, **kwargs):
        with self.assertRaisesRegex(ValueError, name, msg=f"{args} {kwargs}"):
            cudadsp.cross_correlator_cc(*args, **kwargs)

    def test_001_bad_parameters_name_themselves(self):
        for n in (-4, 0, 1):
            self.expect_value_error("fft_len", n, device="cpu")
        for interp in (-1, 0):
            self.expect_value_error("interp", 64, interp=interp, device="cpu")
        for max_lag in (-1, 64, 65, 10 ** 6):
            self.expect_value_error("max_lag", 64, max_lag=max_lag, device="cpu")
        for device in ("gpu", "cuda:x", "cuda:-1", ""):
            self.expect_value_error("device", 64, device=device)
        # Beyond a C++ int (issue 16 item 8): named, not pybind11's generic TypeError.
        self.expect_value_error("^fft_len: must be at most 2147483647", 2**31, device="cpu")
        self.expect_value_error("^interp: must be at most", 64, interp=2**40, device="cpu")
        self.expect_value_error("^max_lag: must be at least", 64, max_lag=-2**31 - 1,
                                device="cpu")
        with self.assertRaisesRegex(ValueError, "^fft_len: must be at most"):
            cudadsp.cross_correlator_cc.upstream_buffer_items(2**32)

    def test_002_good_extremes_accepted(self):
        cudadsp.cross_correlator_cc(2, interp=1, max_lag=1, device="cpu")
        cudadsp.cross_correlator_cc(64, max_lag=63, device="cpu")
        cudadsp.cross_correlator_cc(3, spectrum_output=True, correlation_output=True,
                                    device="cpu")

    def test_003_cuda_without_device(self):
        if HAVE_CUDA:
            self.skipTest("a CUDA device is present")
        for device in ("cuda", "cuda:0"):
            with self.assertRaises(RuntimeError, msg=device):
                cudadsp.cross_correlator_cc(64, device=device)


@unittest.skipUnless(HAVE_CUDA, "no CUDA device")
class qa_cross_correlator_cc_cuda(qa_cross_correlator_cc):
    DEVICE = "cuda"


if __name__ == "__main__":
    gr_unittest.run(qa_cross_correlator_cc)
