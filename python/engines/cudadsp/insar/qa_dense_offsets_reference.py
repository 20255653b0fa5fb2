#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# This file is part of gr-cudadsp
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Checks of the float64 PyCuAmpcor reference against known truth (plain unittest)."""

import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The module beside this file, so the oracle's test runs without the compiled package.
import dense_offsets_reference as ref  # noqa: E402


def speckle(rng, shape, band=0.8):
    """Complex Gaussian speckle, band-limited to `band` of the sampled band on both axes."""
    noise = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    f0 = np.fft.fftfreq(shape[0])[:, None]
    f1 = np.fft.fftfreq(shape[1])[None, :]
    mask = (np.abs(f0) < band / 2) & (np.abs(f1) < band / 2)
    return np.fft.ifft2(np.fft.fft2(noise) * mask)


def fourier_shift(image, down, across):
    """image moved by (down, across) pixels: result[n] = image[n - shift] (circularly)."""
    f0 = np.fft.fftfreq(image.shape[0])[:, None]
    f1 = np.fft.fftfreq(image.shape[1])[None, :]
    return np.fft.ifft2(np.fft.fft2(image) * np.exp(-2j * np.pi * (f0 * down + f1 * across)))


def band_limited_value(surface, u, v):
    """The real band-limited interpolant of a periodic n x n surface at (u, v) samples,
    summed directly: frequencies -(n//2 - 1) .. n//2 on each axis (section 4.11's rule),
    amplitude scale 1 (the interpolant passes through the samples)."""
    n = surface.shape[0]
    a = np.arange(n)
    j = np.arange(-(n // 2 - 1), n // 2 + 1)
    down = np.exp(-2j * np.pi * np.outer(j, a) / n)  # forward DFT rows, kept frequencies
    spectrum = down @ surface @ down.T
    phase = np.exp(2j * np.pi * np.add.outer(j * u, j * v) / n)
    return float(np.real(np.sum(spectrum * phase)) / (n * n))


class TestPieces(unittest.TestCase):

    def test_correlation_lags_match_direct_sums(self):
        rng = np.random.default_rng(1)
        template = rng.standard_normal((5, 7))
        template -= template.mean()
        search = rng.random((11, 10)) + 0.5
        surface = ref.normalized_correlation(template, search)
        self.assertEqual(surface.shape, (7, 4))
        for u in range(7):
            for v in range(4):
                block = search[u:u + 5, v:v + 7]
                centred = block - block.mean()
                expected = np.sum(template * block) / np.sqrt(
                    np.sum(centred**2) * np.sum(template**2) + ref.FLT_EPSILON)
                self.assertAlmostEqual(surface[u, v], expected, places=12)

    def test_oversampling_interpolates_and_keeps_positive_nyquist(self):
        rng = np.random.default_rng(2)
        z = rng.standard_normal((6, 8)) + 1j * rng.standard_normal((6, 8))
        y = ref.fft_oversample(z, 3)
        self.assertEqual(y.shape, (18, 24))
        np.testing.assert_allclose(y[::3, ::3], z, atol=1e-12)
        # The Nyquist row (-1)^a is interpolated as the positive frequency +n/2.
        nyquist = np.tile(np.cos(np.pi * np.arange(6))[:, None], (1, 8)).astype(complex)
        expected = np.exp(1j * np.pi * np.arange(18) / 3)[:, None] * np.ones((1, 24))
        np.testing.assert_allclose(ref.fft_oversample(nyquist, 3), expected, atol=1e-12)

    def test_peak_tie_rule(self):
        surface = np.zeros((41, 41))
        surface.flat[600] = 1.0
        surface.flat[89] = 1.0
        # Ties go to the smallest flat index modulo 512: 600 % 512 = 88 beats 89.
        self.assertEqual(ref.max_location(surface)[:2], divmod(600, 41))
        surface.flat[3] = 1.0
        self.assertEqual(ref.max_location(surface)[:2], divmod(3, 41))
        self.assertIsNone(ref.max_location(np.full((3, 3), np.nan)))

    def test_snr_of_a_known_surface(self):
        surface = np.full((41, 41), 0.1)
        surface[20, 20] = 0.8
        self.assertAlmostEqual(ref.snr(surface, 20, 20, 0.8, 21), 0.64 / 0.01, places=9)
        # At a corner only the 11 x 11 part of the 21 x 21 neighbourhood inside counts.
        surface = np.random.default_rng(4).uniform(-0.2, 0.3, (41, 41))
        surface[0, 0] = 0.8
        rest = np.sum(surface[:11, :11]**2) - 0.64
        self.assertAlmostEqual(ref.snr(surface, 0, 0, 0.8, 21), 0.64 / (rest / 120), places=9)

    def test_covariance_closed_form_and_sentinel(self):
        a, b, peak, pixels = 0.03, 0.05, 0.9, 2048
        x = np.arange(-3, 4)[:, None]
        y = np.arange(-3, 4)[None, :]
        surface = peak - a * x**2 - b * y**2
        cov = ref.covariance(surface, 3, 3, peak, pixels)
        # With no cross term the formula reduces to n2/d + n4/d^2 per axis.
        n2, n4 = 2 * (1 - peak), (1 - peak)**2 * pixels / 2
        dxx, dyy = 2 * a * pixels, 2 * b * pixels
        self.assertAlmostEqual(cov[0], n2 / dxx + n4 / dxx**2, places=12)
        self.assertAlmostEqual(cov[1], n2 / dyy + n4 / dyy**2, places=12)
        self.assertAlmostEqual(cov[2], 0.0, places=12)
        self.assertEqual(ref.covariance(surface, 0, 3, peak, pixels), (99.0, 99.0, 99.0))


class TestDenseOffsets(unittest.TestCase):

    CONFIG = dict(window_width=64, window_height=32, half_search_across=6, half_search_down=6,
                  skip_across=40, skip_down=40, raw_oversampling=2, corr_oversampling=64,
                  zoom_window=8)
    SHIFT = (2.37, -1.61)

    @classmethod
    def setUpClass(cls):
        rng = np.random.default_rng(3)
        cls.reference = speckle(rng, (256, 256))
        # Correlation about 0.95 with the reference: shifted copy plus independent speckle.
        cls.secondary = (fourier_shift(cls.reference, *cls.SHIFT) +
                         0.3 * speckle(rng, (256, 256)))
        cls.unrelated = speckle(rng, (256, 256))
        # A phase ramp of 0.9 rad/pixel on both axes moves the spectrum across the Nyquist
        # edge; both deramp pairings remove it (equal gradients). Unequal gradients
        # (0.9 down, -0.6 across) only ISCE3's pairing removes.
        rows, cols = np.indices((256, 256))
        ramp = np.exp(0.9j * (rows + cols))
        cls.ramped = (cls.reference * ramp, cls.secondary * ramp)
        skew = np.exp(1j * (0.9 * rows - 0.6 * cols))
        cls.skew_ramped = (cls.reference * skew, cls.secondary * skew)

    def check_recovered(self, result, down, across, tolerance=0.05):
        for measured, truth in ((result.offset_down, down), (result.offset_across, across)):
            error = measured - truth
            self.assertTrue(np.all(np.isfinite(error)))
            self.assertLess(abs(np.mean(error)), tolerance / 2)
            self.assertLess(np.max(np.abs(error)), tolerance)

    def test_subpixel_shift_complex_oversampling(self):
        for deramp in (1, 2):
            with self.subTest(deramp=deramp):
                result = ref.dense_offsets_reference(self.reference, self.secondary,
                                                     deramp=deramp, **self.CONFIG)
                self.assertEqual(result.offset_down.shape, (5, 4))
                self.check_recovered(result, *self.SHIFT)
                self.assertGreater(np.min(result.snr), 50.0)
                self.assertGreater(np.min(result.peak), 0.3)
                for cov in (result.cov_down, result.cov_across):
                    self.assertTrue(np.all((cov > 0) & (cov < 0.01)))

    def test_deramping_restores_a_ramped_pair(self):
        ramped = ref.dense_offsets_reference(*self.ramped, deramp=1, **self.CONFIG)
        self.check_recovered(ramped, *self.SHIFT)
        plain = ref.dense_offsets_reference(*self.ramped, deramp=2, **self.CONFIG)
        self.assertGreater(np.max(np.abs(plain.offset_down - self.SHIFT[0])), 0.05)

    def test_deramp_pairings(self):
        for pairing in ("isce3", "isce2"):
            with self.subTest(pairing=pairing):
                equal = ref.dense_offsets_reference(*self.ramped, deramp=1,
                                                    deramp_pairing=pairing, **self.CONFIG)
                self.check_recovered(equal, *self.SHIFT)
        skew = ref.dense_offsets_reference(*self.skew_ramped, deramp=1, **self.CONFIG)
        self.check_recovered(skew, *self.SHIFT)
        swapped = ref.dense_offsets_reference(*self.skew_ramped, deramp=1,
                                              deramp_pairing="isce2", **self.CONFIG)
        # ISCE2's pairing leaves a ramp of 1.5 rad/pixel on each axis: its complex
        # oversampling folds the spectrum and the offsets move.
        self.assertGreater(np.max(np.abs(swapped.offset_down - self.SHIFT[0])), 0.05)

    def test_deramp_axis(self):
        # ISCE3's derampAxis: a ramp of -2.2 rad/pixel across (the spectrum, 0.8 of the
        # band, over the Nyquist edge unless removed) and 0.3 down (not over it).
        # Removing only the phase measured across, or both, recovers the shift;
        # removing only the one measured down leaves the fold across.
        rows, cols = np.indices(self.reference.shape)
        ramp = np.exp(1j * (0.3 * rows - 2.2 * cols))
        pair = (self.reference * ramp, self.secondary * ramp)
        for axis in ("across", "both"):
            with self.subTest(deramp_axis=axis):
                result = ref.dense_offsets_reference(*pair, deramp=1, deramp_axis=axis,
                                                     **self.CONFIG)
                self.check_recovered(result, *self.SHIFT)
        down = ref.dense_offsets_reference(*pair, deramp=1, deramp_axis="down",
                                           **self.CONFIG)
        self.assertGreater(np.max(np.abs(down.offset_across - self.SHIFT[1])), 0.1)
        with self.assertRaisesRegex(ValueError, "deramp_axis"):
            ref.dense_offsets_reference(*pair, deramp_axis="azimuth", **self.CONFIG)

    def test_peak_of_the_fine_surface(self):
        fine = ref.dense_offsets_reference(self.reference, self.secondary, **self.CONFIG)
        raw = ref.dense_offsets_reference(self.reference, self.secondary, peak="raw",
                                          **self.CONFIG)
        # The same offsets and statistics; only the peak's surface differs.
        for name in ("offset_down", "offset_across", "snr", "cov_down"):
            np.testing.assert_array_equal(getattr(fine, name), getattr(raw, name))
        # A sub-pixel shift puts the raw lags off the correlation's crest: the finer
        # surface reaches higher, and both are correlation coefficients.
        self.assertTrue(np.all(fine.peak > raw.peak))
        self.assertTrue(np.all((raw.peak > 0.3) & (fine.peak <= 1.0)))
        # The fine maximum equals the fine surface's value at the offset found, rebuilt
        # here from section 4.10's surface by direct band-limited (Dirichlet)
        # interpolation instead of the FFT.
        config = self.CONFIG
        h, w, r, zoom = (config["window_height"], config["window_width"],
                         config["raw_oversampling"], config["zoom_window"])
        hd, ha, hz = config["half_search_down"], config["half_search_across"], zoom // (2 * r)
        # The first window: reference at (hd, ha), search window at (0, 0).
        ref_c = self.reference[:h + 2 * hd, :w + 2 * ha][hd:hd + h, ha:ha + w]
        search = self.secondary[:h + 2 * hd, :w + 2 * ha]
        ref_a = np.abs(ref_c)
        p_d, p_a, _ = ref.max_location(ref.normalized_correlation(ref_a - ref_a.mean(),
                                                                  np.abs(search)))
        s_d, s_a = ref.zoom_start(p_d, hd, hz), ref.zoom_start(p_a, ha, hz)
        sec_z = search[s_d:s_d + h + 2 * hz, s_a:s_a + w + 2 * hz]
        ref_oa = np.abs(ref.fft_oversample(ref.deramp_method1(ref_c), r))
        sec_oa = np.abs(ref.fft_oversample(ref.deramp_method1(sec_z), r))
        surface = ref.normalized_correlation(ref_oa - ref_oa.mean(), sec_oa)[:-1, :-1]
        self.assertEqual(surface.shape, (zoom, zoom))
        u = (fine.offset_down[0, 0] - (s_d - hd)) * r
        v = (fine.offset_across[0, 0] - (s_a - ha)) * r
        self.assertAlmostEqual(band_limited_value(surface, u, v), fine.peak[0, 0], places=9)

    def test_amplitude_at_load_locks_to_pixels(self):
        # deramp=0 oversamples detected amplitudes, whose spectrum (twice the speckle band)
        # aliases: quarter-pixel shifts come out biased towards whole pixels, half-band
        # speckle is fine.
        rng = np.random.default_rng(5)
        for band, quarter_bias in ((1.0, (0.15, 0.3)), (0.4, (0.0, 0.03))):
            with self.subTest(band=band):
                image = speckle(rng, (256, 256), band)
                result = ref.dense_offsets_reference(image, fourier_shift(image, 2.25, 0.0),
                                                     deramp=0, **self.CONFIG)
                bias = 2.25 - np.mean(result.offset_down)
                self.assertGreaterEqual(bias, quarter_bias[0])
                self.assertLess(bias, quarter_bias[1])

    def test_gross_offset_merged_or_not(self):
        shifted = fourier_shift(self.reference, 9.37, -7.61)
        config = dict(self.CONFIG, gross_offset_down=7, gross_offset_across=-6)
        apart = ref.dense_offsets_reference(self.reference, shifted, **config)
        self.check_recovered(apart, 2.37, -1.61)
        np.testing.assert_array_equal(apart.gross_down, 7.0)
        np.testing.assert_array_equal(apart.gross_across, -6.0)
        varying = np.full((3, 3), -6)
        merged = ref.dense_offsets_reference(self.reference, shifted, merge_gross_offset=True,
                                             start_across=12, number_down=3, number_across=3,
                                             **dict(config, gross_offset_across=varying))
        self.check_recovered(merged, 9.37, -7.61)

    def test_unrelated_pair_has_low_snr(self):
        signal = ref.dense_offsets_reference(self.reference, self.secondary, **self.CONFIG)
        noise = ref.dense_offsets_reference(self.reference, self.unrelated, **self.CONFIG)
        self.assertLess(np.median(noise.snr), 20.0)
        self.assertGreater(np.median(signal.snr), 5.0 * np.median(noise.snr))
        self.assertLess(np.max(noise.peak), 0.5)

    def test_window_leaving_the_image_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "window .3, 0.: secondary.*leave the image"):
            ref.dense_offsets_reference(self.reference, self.secondary,
                                        gross_offset_down=np.full((5, 4), 100), **self.CONFIG)
        with self.assertRaisesRegex(ValueError, "reference.*leave the image"):
            ref.dense_offsets_reference(self.reference, self.secondary, number_down=7,
                                        **self.CONFIG)
        with self.assertRaisesRegex(ValueError, "gross_offset_down: shape"):
            ref.dense_offsets_reference(self.reference, self.secondary,
                                        gross_offset_down=np.zeros((2, 2), int), **self.CONFIG)

if __name__ == "__main__":
    unittest.main()
