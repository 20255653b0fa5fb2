#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of cudadsp.polarimetric_moments against known truth, from the formulas of
docs/blocks/polarimetric_products_cf.md evaluated here in float64: noise-free echoes of
one Doppler frequency per gate (V = -lambda f / 2), a V channel that is the H channel
scaled by b and turned by -phi (ZDR = -20 log10 b, PhiDP = phi, RhoHV = 1), a known
power (Zh with the range correction and zcal_db), the leading axes of the arrays, and
bad arguments. On the CPU, and on CUDA too where a device is present."""

import unittest

import numpy as np

import cudadsp
from cudadsp.common import data_files
from cudadsp.common.testing import backends

WAVELENGTH = 0.0531
PRT = 1e-3
PULSES, GATES = 32, 24
FIRST_GATE_M, SPACING_M = 2000.0, 250.0



def tone_radials(radials, rng):
    """Noise-free H and V of radials x PULSES x GATES, and the truth per radial, gate."""
    nyquist = WAVELENGTH / (4 * PRT)
    velocity = rng.uniform(-0.8, 0.8, (radials, 1, GATES)) * nyquist
    amplitude = rng.uniform(0.5, 30.0, (radials, 1, GATES))
    b = rng.uniform(0.5, 1.5, (radials, 1, GATES))
    phi = rng.uniform(-170.0, 170.0, (radials, 1, GATES))
    # V = -lambda f / 2 (the engine's default sign), so f = -2 V / lambda.
    frequency = -2 * velocity / WAVELENGTH
    n = np.arange(PULSES)[None, :, None]
    h = amplitude * np.exp(2j * np.pi * frequency * n * PRT + 1j * rng.uniform(0, 6, amplitude.shape))
    v = b * np.exp(-1j * np.radians(phi)) * h
    range_km = (FIRST_GATE_M + SPACING_M * np.arange(GATES)) / 1000.0
    truth = {
        "V": velocity[:, 0],
        "ZDR": -20 * np.log10(b[:, 0]),
        "PhiDP": phi[:, 0],
        "Zh": 20 * np.log10(amplitude[:, 0]) + 5.0 + 20 * np.log10(range_km),
    }
    return h.astype(np.complex64), v.astype(np.complex64), truth


class qa_moments(unittest.TestCase):

    def test_products_of_known_echoes(self):
        rng = np.random.default_rng(11)
        h, v, truth = tone_radials(6, rng)
        for device in backends(self):
            with self.subTest(device=device):
                products = cudadsp.polarimetric_moments(
                    h, v, wavelength_m=WAVELENGTH, prt_s=PRT, first_gate_m=FIRST_GATE_M,
                    gate_spacing_m=SPACING_M, zcal_db=5.0, device=device)
                self.assertEqual(set(products), set(cudadsp.radar.PRODUCTS))
                for name in ("V", "ZDR", "PhiDP", "Zh"):
                    self.assertEqual(products[name].shape, (6, GATES), name)
                np.testing.assert_allclose(products["V"], truth["V"], atol=1e-4)
                np.testing.assert_allclose(products["ZDR"], truth["ZDR"], atol=1e-4)
                np.testing.assert_allclose(products["PhiDP"], truth["PhiDP"], atol=1e-3)
                np.testing.assert_allclose(products["Zh"], truth["Zh"], atol=1e-4)
                np.testing.assert_allclose(products["RhoHV"], 1.0, atol=1e-5)
                np.testing.assert_allclose(products["CPA"][np.abs(truth["V"]) > 1], 0.0,
                                           atol=0.35)
                # No noise configured: SNRh is +inf, and nothing is censored.
                self.assertTrue(np.isposinf(products["SNRh"]).all())
                self.assertTrue((products["CLUT"] == 0).all())

    def test_leading_axes_are_radials(self):
        rng = np.random.default_rng(12)
        h, v, _ = tone_radials(6, rng)
        flat = cudadsp.polarimetric_moments(h, v, device="cpu")
        shaped = cudadsp.polarimetric_moments(h.reshape(2, 3, PULSES, GATES),
                                              v.reshape(2, 3, PULSES, GATES), device="cpu")
        for name in cudadsp.radar.PRODUCTS:
            self.assertEqual(shaped[name].shape, (2, 3, GATES))
            np.testing.assert_array_equal(shaped[name].reshape(6, GATES), flat[name])

    def test_bad_arguments_are_named(self):
        h = np.ones((2, PULSES, GATES), np.complex64)
        with self.assertRaisesRegex(ValueError, "wavelength_m"):
            cudadsp.polarimetric_moments(h, h, wavelength_m=-1.0, device="cpu")
        with self.assertRaisesRegex(ValueError, "clutter_filter"):
            cudadsp.polarimetric_moments(h, h, clutter_filter="notch", device="cpu")
        with self.assertRaisesRegex(ValueError, "v"):
            cudadsp.polarimetric_moments(h, h[:1], device="cpu")
        with self.assertRaisesRegex(ValueError, "h"):
            cudadsp.polarimetric_moments(h[0, 0], h[0, 0], device="cpu")
        with self.assertRaises(TypeError):
            cudadsp.polarimetric_moments(h, h, wavelength=0.1, device="cpu")


if __name__ == "__main__":
    data_files.run_tests()
