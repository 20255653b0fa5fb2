#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of cudadsp.cross_correlate against float64 NumPy (the independent reference)
and known truth: integer and sub-sample delays of band-limited noise, the correlation
vector against numpy.correlate, the cross-spectrum against numpy.fft, magnitude and
phase of a scaled, rotated copy, silent and non-finite frames, and bad arguments. On the
CPU, and on CUDA too where a device is present (the same assertions)."""

import unittest

import numpy as np

import cudadsp
from cudadsp.common import data_files
from cudadsp.common.testing import backends

N = 1024



def band_limited(rng, n, band=0.4):
    """Complex noise whose spectrum is flat within |f| < band / 2 and zero outside."""
    spectrum = np.fft.fft(rng.normal(size=n) + 1j * rng.normal(size=n))
    spectrum[np.abs(np.fft.fftfreq(n)) >= band / 2] = 0
    return spectrum


def delayed(spectrum, delay):
    """The band-limited signal of spectrum delayed by delay samples (circularly)."""
    ramp = np.exp(-2j * np.pi * np.fft.fftfreq(spectrum.size) * delay)
    return np.fft.ifft(spectrum * ramp)


class qa_cross_correlation(unittest.TestCase):

    def test_delays_are_found(self):
        rng = np.random.default_rng(1)
        delays = [0.0, 3.0, -17.0, 2.25, -5.625, 40.5]
        # A long band-limited signal, delayed, cut into one frame each from its middle:
        # the circular wrap of the delay falls outside the frames.
        x, y = [], []
        for d in delays:
            s = band_limited(rng, 4 * N)
            y.append(delayed(s, 0)[N:2 * N])
            x.append(delayed(s, d)[N:2 * N])
        x, y = np.array(x, np.complex64), np.array(y, np.complex64)
        for device in backends(self):
            with self.subTest(device=device):
                found = cudadsp.cross_correlate(x, y, interp=16, max_lag=64, device=device)
                self.assertEqual(found.lag.shape, (len(delays),))
                np.testing.assert_allclose(found.lag, delays, atol=1 / 16)
                self.assertTrue((found.magnitude > 0.9).all(), found.magnitude)
                self.assertIsNone(found.spectrum)

    def test_correlation_and_spectrum_match_numpy(self):
        rng = np.random.default_rng(2)
        x = (rng.normal(size=(3, N)) + 1j * rng.normal(size=(3, N))).astype(np.complex64)
        y = (rng.normal(size=(3, N)) + 1j * rng.normal(size=(3, N))).astype(np.complex64)
        max_lag = 50
        for device in backends(self):
            with self.subTest(device=device):
                found = cudadsp.cross_correlate(x, y, max_lag=max_lag, spectrum=True,
                                                correlation=True, device=device)
                transform = found.spectrum.shape[1]
                self.assertGreaterEqual(transform, 2 * N)
                for k in range(3):
                    x64, y64 = x[k].astype(np.complex128), y[k].astype(np.complex128)
                    # numpy.correlate(a, v, "full")[m] = sum_n a[n + m - (N-1)] conj(v[n]):
                    # r[l] = sum_n x[n] conj(y[n - l]) at m = l + N - 1.
                    full = np.correlate(x64, y64, "full")
                    r = full[N - 1 - max_lag:N + max_lag]
                    scale = np.abs(r).max()
                    np.testing.assert_allclose(found.correlation[k], r, atol=1e-4 * scale)
                    cross = np.fft.fft(x64, transform) * np.conj(np.fft.fft(y64, transform))
                    np.testing.assert_allclose(found.spectrum[k], cross,
                                               atol=1e-4 * np.abs(cross).max())

    def test_magnitude_and_phase_of_a_rotated_copy(self):
        rng = np.random.default_rng(3)
        y = delayed(band_limited(rng, N), 0).astype(np.complex64)
        x = (0.25 * np.exp(1j * 1.1) * y).astype(np.complex64)
        for device in backends(self):
            with self.subTest(device=device):
                found = cudadsp.cross_correlate(x, y, device=device)
                self.assertEqual(found.lag[0], 0.0)
                self.assertAlmostEqual(float(found.magnitude[0]), 1.0, places=4)
                self.assertAlmostEqual(float(found.phase[0]), 1.1, places=4)

    def test_silent_and_non_finite_frames(self):
        rng = np.random.default_rng(4)
        y = (rng.normal(size=(3, 64)) + 1j * rng.normal(size=(3, 64))).astype(np.complex64)
        x = y.copy()
        x[1] = 0
        x[2, 5] = np.nan
        for device in backends(self):
            with self.subTest(device=device):
                found = cudadsp.cross_correlate(x, y, device=device)
                self.assertEqual((found.lag[1], found.magnitude[1], found.phase[1]),
                                 (0.0, 0.0, 0.0))
                self.assertTrue(np.isnan(found.lag[2]))
                self.assertEqual(found.lag[0], 0.0)

    def test_bad_arguments_are_named(self):
        x = np.ones((2, 64), np.complex64)
        with self.assertRaisesRegex(ValueError, "y"):
            cudadsp.cross_correlate(x, x[:1], device="cpu")
        with self.assertRaisesRegex(ValueError, "x"):
            cudadsp.cross_correlate(x, x, fft_len=48, device="cpu")
        with self.assertRaisesRegex(ValueError, "interp"):
            cudadsp.cross_correlate(x, x, interp=0, device="cpu")
        with self.assertRaisesRegex(ValueError, "max_lag"):
            cudadsp.cross_correlate(x, x, max_lag=64, device="cpu")
        with self.assertRaisesRegex(TypeError, "x"):
            cudadsp.cross_correlate(x.real > 0, x, device="cpu")


if __name__ == "__main__":
    data_files.run_tests()
