#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of cudadsp.kdp against known truth: radials whose PhiDP rises linearly at a
known KDP (two-way: 2 KDP deg/km), wrapped into (-180, 180] and with gates masked by
RhoHV and SNR, must give that KDP and the unfolded PhiDP; a float64 least-squares fit of
a noisy radial written here from the documented rule; shapes and bad arguments. On
the CPU, and on CUDA too where a device is present (bit-identical to the CPU)."""

import unittest

import numpy as np

import cudadsp
from cudadsp.common import data_files
from cudadsp.common.testing import backends

SPACING_M = 150.0



def ramp(ngates, kdp_deg_km, start_deg):
    """Unwrapped PhiDP of a radial of constant KDP (float64), and its wrapped float32."""
    range_km = np.arange(ngates) * SPACING_M / 1000.0
    phidp = start_deg + 2.0 * kdp_deg_km * range_km
    wrapped = (np.mod(phidp + 180.0, 360.0) - 180.0).astype(np.float32)
    return phidp, wrapped


class qa_kdp_radials(unittest.TestCase):

    def test_linear_phidp_gives_its_kdp(self):
        # 9 radials of KDP 0.5 to 4.5 deg/km over 60 km: PhiDP crosses +-180 up to 3 times.
        kdps = np.arange(0.5, 5.0, 0.5)
        truth, wrapped = zip(*(ramp(400, k, -150.0) for k in kdps))
        wrapped = np.stack(wrapped)
        for device in backends(self):
            with self.subTest(device=device):
                result = cudadsp.kdp(wrapped, gate_spacing_m=SPACING_M, device=device)
                self.assertEqual(result.kdp_deg_km.shape, wrapped.shape)
                self.assertTrue(np.isfinite(result.kdp_deg_km).all())
                np.testing.assert_allclose(result.kdp_deg_km, kdps[:, None] + 0 * wrapped,
                                           atol=2e-3)
                np.testing.assert_allclose(result.processed_phidp_deg, np.stack(truth),
                                           atol=2e-2)

    def test_masked_gates_are_interpolated_or_cut(self):
        truth, wrapped = ramp(300, 2.0, 20.0)
        rhohv = np.full(300, 0.98, np.float32)
        snr = np.full(300, 20.0, np.float32)
        rhohv[100:104] = 0.3        # 0.6 km: interpolated over (max_gap_km 1)
        snr[200:220] = -5.0         # 3 km: a break between two segments
        for device in backends(self):
            with self.subTest(device=device):
                result = cudadsp.kdp(wrapped, rhohv=rhohv, snr_db=snr, device=device)
                kdp = result.kdp_deg_km
                self.assertTrue(np.isnan(kdp[200:220]).all())
                valid = np.ones(300, bool)
                valid[200:220] = False
                np.testing.assert_allclose(kdp[valid], 2.0, atol=2e-3)
                np.testing.assert_allclose(result.processed_phidp_deg[valid], truth[valid],
                                           atol=2e-2)

    def test_noisy_radial_matches_the_float64_least_squares_fit(self):
        rng = np.random.default_rng(7)
        truth, _ = ramp(240, 1.5, 10.0)
        noisy = (truth + rng.normal(0, 2.0, truth.shape)).astype(np.float32)
        # The rule for a radial with no mask, no wrap and no gap: at gate g a line
        # fitted to the gates within h = round(window / (2 spacing)) of g (fewer at the
        # ends); KDP its slope over 2 spacing_km.
        h = round(3.0 / (2 * SPACING_M / 1000.0))
        expected = np.empty(240)
        for g in range(240):
            j = np.arange(max(0, g - h), min(240, g + h + 1))
            slope = np.polyfit(j - g, noisy[j].astype(np.float64), 1)[0]
            expected[g] = slope / (2 * SPACING_M / 1000.0)
        results = {}
        for device in backends(self):
            with self.subTest(device=device):
                results[device] = cudadsp.kdp(noisy, device=device).kdp_deg_km
                np.testing.assert_allclose(results[device], expected, atol=1e-4)
        for device, kdp in results.items():
            np.testing.assert_array_equal(kdp, results["cpu"], device)

    def test_bad_arguments_are_named(self):
        phidp = np.zeros((2, 50), np.float32) + 10
        with self.assertRaisesRegex(ValueError, "gate_spacing_m"):
            cudadsp.kdp(phidp, gate_spacing_m=-1.0, device="cpu")
        with self.assertRaisesRegex(ValueError, "rhohv"):
            cudadsp.kdp(phidp, rhohv=np.ones((2, 49), np.float32), device="cpu")
        with self.assertRaisesRegex(ValueError, "phidp_deg"):
            cudadsp.kdp(np.float32(3.0), device="cpu")
        with self.assertRaisesRegex(TypeError, "phidp_deg"):
            cudadsp.kdp(phidp.astype(np.complex64), device="cpu")


if __name__ == "__main__":
    data_files.run_tests()
