#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of cudadsp.insar.patch_offsets against known truth: a speckle image and its
copy shifted by known whole and sub-sample offsets (an exact Fourier shift of a
band-limited image) must give those offsets at every patch, whatever part of the shift
the a-priori rshift and ashift already hold; int16 images give the results of the same
integers as complex; bad arguments and windows that leave the image are refused by name.
On the CPU, and on CUDA too where a device is present."""

import unittest

import numpy as np

import cudadsp
from cudadsp.common import data_files
from cudadsp.common.testing import backends

ROWS, COLUMNS = 512, 512
SEARCH = dict(xsearch=32, ysearch=32)


def speckle(seed=3):
    """Circular complex Gaussian speckle, band-limited to half the band in both
    directions so that a Fourier shift of it is a faithful sub-sample shift."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((ROWS, COLUMNS)) + 1j * rng.standard_normal((ROWS, COLUMNS))
    spectrum = np.fft.fft2(z)
    fy = np.abs(np.fft.fftfreq(ROWS))[:, None]
    fx = np.abs(np.fft.fftfreq(COLUMNS))[None, :]
    spectrum[(fy > 0.25) | (fx > 0.25)] = 0.0
    return np.fft.ifft2(spectrum) * 100.0


def shifted(image, dx, dy):
    """image moved by dx columns and dy rows: out(r, c) = image(r - dy, c - dx)."""
    fy = np.fft.fftfreq(ROWS)[:, None]
    fx = np.fft.fftfreq(COLUMNS)[None, :]
    phase = np.exp(-2j * np.pi * (fx * dx + fy * dy))
    return np.fft.ifft2(np.fft.fft2(image) * phase)


# GMTSAR's method correlates amplitudes, whose speckle is not band-limited: on 128 x 128
# patches its sub-sample step errs by up to a quarter sample (in steps of 1/interp rows
# and 1/(interp ri) columns) where the truth is a whole sample. The bounds: every patch
# within WORST of the truth, their median within TYPICAL.
WORST, TYPICAL = 0.3, 0.15


def assert_near(test, values, truth, worst=WORST, typical=TYPICAL):
    errors = np.abs(np.asarray(values, np.float64) - truth)
    test.assertLess(errors.max(), worst, values)
    test.assertLessEqual(np.median(errors), typical, values)


CENTRES_X = np.array([160, 256, 352, 160, 256, 352])
CENTRES_Y = np.array([160, 160, 160, 352, 352, 352])


class qa_patch_offsets(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.master = speckle().astype(np.complex64)

    def test_whole_sample_shift_found_at_every_patch(self):
        aligned = shifted(self.master, 5, -3).astype(np.complex64)
        for device in backends(self):
            with self.subTest(device=device):
                out = cudadsp.insar.patch_offsets(self.master, aligned, CENTRES_X,
                                                  CENTRES_Y, device=device, **SEARCH)
                assert_near(self, out["dx"], 5.0)
                assert_near(self, out["dy"], -3.0)
                self.assertTrue(np.all(out["corr"] > 90.0), out["corr"])

    def test_sub_sample_shift(self):
        aligned = shifted(self.master, 2.25, -1.5).astype(np.complex64)
        out = cudadsp.insar.patch_offsets(self.master, aligned, CENTRES_X, CENTRES_Y,
                                          device="cpu", **SEARCH)
        assert_near(self, out["dx"], 2.25, worst=0.5, typical=0.15)
        assert_near(self, out["dy"], -1.5, worst=0.5, typical=0.15)

    def test_a_priori_shift_reads_the_aligned_patch_there(self):
        aligned = shifted(self.master, 5, -3).astype(np.complex64)
        out = cudadsp.insar.patch_offsets(self.master, aligned, CENTRES_X, CENTRES_Y,
                                          rshift=5, ashift=-3, device="cpu", **SEARCH)
        np.testing.assert_array_equal(out["jpeak"], 0)
        np.testing.assert_array_equal(out["ipeak"], 0)
        assert_near(self, out["dx"], 5.0)
        assert_near(self, out["dy"], -3.0)

    def test_int16_images_give_the_results_of_the_same_integers(self):
        aligned = shifted(self.master, 4, 2)
        as_int16 = [np.stack([np.round(z.real), np.round(z.imag)], axis=-1).astype(np.int16)
                    for z in (self.master, aligned)]
        as_complex = [(i[..., 0] + 1j * i[..., 1]).astype(np.complex64) for i in as_int16]
        a = cudadsp.insar.patch_offsets(*as_int16, CENTRES_X, CENTRES_Y, device="cpu",
                                        **SEARCH)
        b = cudadsp.insar.patch_offsets(*as_complex, CENTRES_X, CENTRES_Y, device="cpu",
                                        **SEARCH)
        for field in ("dx", "dy", "corr"):
            np.testing.assert_array_equal(a[field], b[field])
        assert_near(self, a["dx"], 4.0)

    def test_bad_arguments_are_named(self):
        m = self.master
        with self.assertRaisesRegex(ValueError, "xsearch"):
            cudadsp.insar.patch_offsets(m, m, [256], [256], xsearch=12, device="cpu")
        with self.assertRaisesRegex(ValueError, "master"):
            cudadsp.insar.patch_offsets(m[0], m, [256], [256], device="cpu", **SEARCH)
        with self.assertRaisesRegex(ValueError, "y: must have as many"):
            cudadsp.insar.patch_offsets(m, m, [256, 200], [256], device="cpu", **SEARCH)
        with self.assertRaisesRegex(TypeError, "x"):
            cudadsp.insar.patch_offsets(m, m, [256.5], [256], device="cpu", **SEARCH)
        with self.assertRaisesRegex(ValueError, "patch"):
            cudadsp.insar.patch_offsets(m, m, [20], [256], device="cpu", **SEARCH)
        with self.assertRaisesRegex(ValueError, "stretch"):
            cudadsp.insar.patch_offsets(m, m, [256], [256], stretch=float("nan"),
                                        device="cpu", **SEARCH)


if __name__ == "__main__":
    data_files.run_tests()
