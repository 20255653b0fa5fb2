#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Block tests of cudadsp.polarimetric_products_cf, inside flowgraphs.

Two independent oracles, neither of them the block's own code:

* a float64 numpy reference of the estimator formulas of the block's definition
  (moments() and products() below, written from the definitions, not from the C++):
  the block must match it to the precision of float64 sums rounded to float32;
* physical truth: echoes simulated by weather_echo with known Zh, ZDR, velocity, width,
  PhiDP, RhoHV and SNR. The estimators are random variables; their mean and standard
  deviation are predicted by theory (moment_statistics() and delta_method()), not by
  Monte Carlo, and the block's outputs over many radials must agree with them.

The theory: every moment the products use (P_h, R1_h, C, ...) is a quadratic form
z^H A z of the radial's samples z at one gate, a circular complex Gaussian vector of
known covariance C (weather_echo.model_covariance). For such forms
    E[z^H A z] = tr(A C),
    E[(Q_A - E Q_A) conj(Q_B - E Q_B)] = tr(A C B^H C),
    E[(Q_A - E Q_A) (Q_B - E Q_B)] = tr(A C B C)
(Isserlis' theorem; checked against Monte Carlo in qa_polarimetric_theory). A product
is a smooth function f of the moments, so to first order its variance is
g^T Sigma g (g the gradient of f in the real and imaginary parts of the moments, Sigma
their covariance), and to second order its bias is tr(H Sigma) / 2 (H the Hessian).

Every test runs on device="cpu"; the *_cuda classes repeat them on "cuda" when a CUDA
device is present and are skipped otherwise.

Here the reference, the theory and the physics; the block's controls (calibration
and scan changes, tags, parameters): qa_polarimetric_products_cf_control.py. What both
share: polarimetric_products_cf_test_support.py.
"""

import math
import unittest

import numpy as np
from gnuradio import gr_unittest

from cudadsp.radar import weather_echo
# cudadsp (gnuradio.cudadsp, the bindings' folder outside ctest), the reference and
# the shared checks:
from polarimetric_products_cf_test_support import (LAMBDA, PRT, PRODUCTS, ZH, VEL,
    PHIDP, block_config, nyquist, moments, products, moment_matrices, moment_statistics,
    true_products, product_errors, estimator_theory, random_echoes, make_block,
    CALIBRATED, RAIN, RAIN_NOISE, rain_gates, simulate_gates, HAVE_CUDA, polar_case)


# --------------------------------------------------------------------------------------
# The theory itself (numpy only): it is the yardstick of the physical tests
# --------------------------------------------------------------------------------------
class qa_polarimetric_theory(gr_unittest.TestCase):
    """The simulator, the quadratic-form identities and the moment matrices."""

    PARAMS = {"s_h": 2.0, "zdr_db": 1.5, "velocity_ms": 4.0, "width_ms": 3.0,
              "phidp_deg": 60.0, "rhohv": 0.9, "noise_h": 0.1, "noise_v": 0.2}

    def simulate(self, mode, m, nradials, seed):
        rng = np.random.default_rng(seed)
        port0, port1 = weather_echo.simulate_pulses(rng, nradials, m, mode=mode, ldr_db=-10.0,
                                                    **self.PARAMS)
        return port0, port1

    def test_001_simulator_covariance(self):
        # Sample covariance of 40000 radials (M = 8) against model_covariance: every entry
        # within 5 standard errors (for a complex entry, sqrt(C_ii C_jj / N) scales both
        # parts; 256 entries, so 5 and not 3), the pseudo-covariance (circularity) as well.
        m, n = 8, 40000
        for k, mode in enumerate(weather_echo.MODES):
            port0, port1 = self.simulate(mode, m, n, 100 + k)
            z = np.concatenate([port0[:, 0].reshape(n, m), port1[:, 0].reshape(n, m)], axis=1)
            z = z.astype(np.complex128)
            cov = weather_echo.model_covariance(m, mode=mode, ldr_db=-10.0, **self.PARAMS)
            np.testing.assert_allclose(cov, cov.conj().T, atol=0)
            self.assertGreater(np.linalg.eigvalsh(cov).min(), 0.0)
            se = np.sqrt(np.outer(np.diag(cov).real, np.diag(cov).real) / n)
            sample = z.T @ z.conj() / n
            self.assertLess(np.max(np.abs(sample - cov) / se), 5.0, mode)
            self.assertLess(np.max(np.abs(z.T @ z / n) / se), 5.0, f"{mode}: pseudo-covariance")

    def test_002_quadratic_form_identities(self):
        # Mean and covariance of the moments of 40000 simulated radials against
        # tr(A C), tr(A C B^H C), tr(A C B C): means within 4 standard errors (20 of them),
        # covariance entries within 6 standard errors of a sample covariance (Gaussian
        # approximation, loose for these chi-square-like sums).
        n = 40000
        for k, (mode, m) in enumerate((("simultaneous", 8), ("alternating", 8))):
            port0, port1 = self.simulate(mode, m, n, 200 + k)
            cfg = block_config(pulses_per_radial=m, mode=mode)
            mom = moments(port0, port1, cfg)
            cov = weather_echo.model_covariance(m, mode=mode, ldr_db=-10.0, **self.PARAMS)
            mean, real_cov = moment_statistics(cov, moment_matrices(m, mode))
            u = np.column_stack([np.column_stack([mom[name][:, 0].real, mom[name][:, 0].imag])
                                 for name in mom])
            sd = np.sqrt(np.diag(real_cov))
            live = sd > 0
            z = (u.mean(axis=0) - np.column_stack([mean.real, mean.imag]).ravel())[live]
            self.assertLess(np.max(np.abs(z) / sd[live] * math.sqrt(n)), 4.0, f"{mode}: mean")
            self.assertTrue(np.all(u.std(axis=0)[~live] == 0.0), f"{mode}: Im of powers")
            sample = np.cov(u[:, live], rowvar=False)
            want = real_cov[np.ix_(live, live)]
            se = np.sqrt((np.outer(np.diag(want), np.diag(want)) + want ** 2) / n)
            self.assertLess(np.max(np.abs(sample - want) / se), 6.0, f"{mode}: covariance")

    def test_003_moment_matrices_are_the_moments(self):
        # z^H A z with moment_matrices() equals moments() on arbitrary data.
        rng = np.random.default_rng(300)
        for mode, m in (("simultaneous", 2), ("simultaneous", 7), ("alternating", 4),
                        ("alternating", 10)):
            cfg = block_config(pulses_per_radial=m, mode=mode)
            port0, port1 = (rng.standard_normal((3 * m, 1, 2)).astype(np.float32)
                            .view(np.complex64)[..., 0] for _ in range(2))
            mom = moments(port0, port1, cfg)
            for r in range(3):
                z = port0[r * m:(r + 1) * m, 0].astype(np.complex128)
                if mode == "simultaneous":
                    z = np.concatenate([z, port1[r * m:(r + 1) * m, 0]])
                for name, a in moment_matrices(m, mode).items():
                    self.assertAlmostEqual(z.conj() @ a @ z, mom[name][r, 0], delta=1e-12,
                                           msg=f"{mode} M={m} {name}")

    def test_004_expected_moments_give_the_truth(self):
        # The definition's estimators are consistent with the signal model: applied to the
        # expected moments they return the true parameters exactly (the aim of rho_T in
        # alternating mode, for instance).
        for mode, m in (("simultaneous", 2), ("simultaneous", 36), ("alternating", 4),
                        ("alternating", 64)):
            cfg = block_config(pulses_per_radial=m, mode=mode, zcal_db=7.0, zdr_cal_db=0.3,
                               phidp_offset_deg=-15.0, noise_h=0.1, noise_v=0.2,
                               first_gate_m=3000.0)
            cov = weather_echo.model_covariance(m, mode=mode, **self.PARAMS)
            mean, _ = moment_statistics(cov, moment_matrices(m, mode))
            got = products(dict(zip(moment_matrices(m, mode), mean)), cfg)
            err = product_errors(got, true_products(cfg, 0, self.PARAMS), cfg)
            np.testing.assert_allclose(err, 0.0, atol=1e-9, err_msg=f"{mode} M={m}")

    def test_005_conversions(self):
        self.assertEqual(weather_echo.nyquist_velocity(0.0531, 1e-3), 0.0531 / 4e-3)
        self.assertEqual(weather_echo.nyquist_velocity(0.0531, 1e-3, "alternating"),
                         0.0531 / 8e-3)
        s_h = weather_echo.power_from_reflectivity(35.0, 12500.0, zcal_db=-20.0)
        self.assertAlmostEqual(weather_echo.reflectivity_from_power(s_h, 12500.0, -20.0), 35.0,
                               delta=1e-12)
        rho = weather_echo.normalized_autocorrelation(1, 2.0, 3.0, LAMBDA, PRT)
        self.assertAlmostEqual(abs(rho), math.exp(-8 * (math.pi * 3.0 * PRT / LAMBDA) ** 2),
                               delta=1e-15)
        self.assertAlmostEqual(np.angle(rho), -4 * math.pi * 2.0 * PRT / LAMBDA, delta=1e-15)


# --------------------------------------------------------------------------------------
# Against the float64 reference
# --------------------------------------------------------------------------------------
# (mode, ngates, M, radials, pulses of a partial radial after them, block overrides)
REFERENCE_CASES = (
    ("simultaneous", 1, 2, 300, 1, {}),
    ("simultaneous", 17, 2, 100, 1, {"snr_threshold_db": 3.0}),
    ("simultaneous", 5, 36, 60, 35, {}),
    ("simultaneous", 64, 7, 20, 3, {"first_gate_m": 0.0}),  # gate 0 at range 0: Zh -inf
    ("simultaneous", 3, 100, 20, 50, {"snr_threshold_db": 10.0}),
    ("alternating", 1, 4, 300, 3, {}),
    ("alternating", 17, 4, 100, 2, {"snr_threshold_db": 3.0}),
    ("alternating", 5, 36, 60, 35, {}),
    ("alternating", 33, 64, 20, 63, {"first_gate_m": 0.0}),
    ("alternating", 2, 6, 100, 5, {"snr_threshold_db": 10.0}),
)


class qa_polarimetric_products_cf(polar_case):
    """The block against the float64 reference on random correlated echoes."""

    def reference_case(self, index):
        mode, ngates, m, nradials, extra, overrides = REFERENCE_CASES[index]
        cfg = block_config(ngates=ngates, pulses_per_radial=m, mode=mode,
                           **dict(CALIBRATED, **overrides))
        rng = np.random.default_rng(1000 + index)
        # The last gate carries noise only (where ngates > 1): SNR near and below 0 dB,
        # negative noise-subtracted powers, NaN and infinities.
        port0, port1 = random_echoes(rng, cfg, nradials, extra,
                                     noise_only_gates=[ngates - 1] if ngates > 1 else [])
        return cfg, port0, port1

    def test_001_reference_all_cases(self):
        for index in range(len(REFERENCE_CASES)):
            cfg, port0, port1 = self.reference_case(index)
            out, _, _ = self.run_block(port0, port1, cfg)
            # Exactly one output per complete radial: the partial radial is not emitted.
            self.assertEqual(out.shape[1], port0.shape[0] // cfg["pulses_per_radial"])
            ref = self.assert_matches_reference(out, port0, port1, cfg, f"case {index}")
            # The cases reach what they are there for.
            self.assertTrue(np.isfinite(ref[ZH]).any())
            if cfg["snr_threshold_db"] > 0:
                self.assertTrue(np.isnan(ref[ZH]).any(), f"case {index}: censoring")
            if cfg["first_gate_m"] == 0.0:
                self.assertTrue(np.all(np.isneginf(out[ZH][:, 0])
                                       | np.isnan(out[ZH][:, 0])), f"case {index}: range 0")

    def test_002_chunking_invariance(self):
        # The same outputs, bit for bit, whatever the sizes of the calls: the block one
        # radial per call, feeders of a few pulses that never line up with M, both.
        for index in (2, 7):
            cfg, port0, port1 = self.reference_case(index)
            runs = [dict(), dict(block_items=1), dict(feeder_items=5),
                    dict(feeder_items=1, block_items=2), dict(feeder_items=97)]
            outputs = [self.run_block(port0, port1, cfg, **kwargs)[0] for kwargs in runs]
            self.assert_matches_reference(outputs[0], port0, port1, cfg, f"case {index}")
            for kwargs, out in zip(runs[1:], outputs[1:]):
                np.testing.assert_array_equal(out, outputs[0], err_msg=f"{kwargs}")

    def test_003_cross_polar_input_unused(self):
        # Alternating mode: the products use the co-polar input only; anything on the
        # cross-polar input (zeros; the co-polar pulses reversed, 60 dB louder) changes
        # nothing.
        cfg, port0, port1 = self.reference_case(7)
        out, _, _ = self.run_block(port0, port1, cfg)
        for other in (np.zeros_like(port1), 1e3 * port0[::-1].copy()):
            np.testing.assert_array_equal(self.run_block(port0, other, cfg)[0], out)

    def test_004_fewer_pulses_than_a_radial(self):
        for mode, m in (("simultaneous", 36), ("alternating", 4)):
            cfg = block_config(ngates=3, pulses_per_radial=m, mode=mode, **CALIBRATED)
            port0, port1 = random_echoes(np.random.default_rng(1500), cfg, 0, m - 1)
            out, tags, _ = self.run_block(port0, port1, cfg)
            self.assertEqual(out.shape, (len(PRODUCTS), 0, 3))
            self.assertEqual([len(t) for t in tags], [0] * len(PRODUCTS))

    def test_005_second_run_continues(self):
        # A second run of the same flowgraph: new radials, again exactly as the reference.
        cfg, port0, port1 = self.reference_case(2)
        blk = make_block(cfg, self.DEVICE)
        first, _, _ = self.run_block(port0, port1, cfg, block=blk)
        self.assert_matches_reference(first, port0, port1, cfg, "first run")
        later0, later1 = random_echoes(np.random.default_rng(1600), cfg, 11, 0)
        second, _, _ = self.run_block(later0, later1, cfg, block=blk)
        self.assert_matches_reference(second, later0, later1, cfg, "second run")


# --------------------------------------------------------------------------------------
# Physical truth: simulated rain
# --------------------------------------------------------------------------------------
class qa_polarimetric_products_cf_physics(polar_case):
    """Estimates from simulated rain against the truth and the estimators' theory.

    Per gate and product, with e the errors (estimate - truth) of N radials:
    (i) the mean error: the estimators are biased at second order (Zh = 10 log10 of an
    unbiased power is biased low by about (10/ln 10) var / 2, width and RhoHV by their
    curvature). Two checks:
      - literally, |mean(e)| < 3 SE (SE = sample std / sqrt(n)) over the first n radials,
        n the largest (<= N) for which the theoretical second-order bias is at most half a
        standard error, so that the test is a test of zero mean and not of the bias
        (asserted); this n is small for Zh (about 10) and large for V, ZDR, PhiDP;
      - over all N radials, |mean(e) - bias| < 3 SE with the theoretical bias: the
        block's mean agrees with theory to a small fraction of the bias.
    (ii) the sample std within a factor of two of the first-order (delta method) std.

    Calibration (the float64 reference in place of the block, 200 seeds per case): both
    mean statistics, in units of SE, have a standard deviation of 0.9 to 1.1; the
    bias-corrected one a mean within 0.25 of zero (what the second-order bias leaves out)
    and the literal one within 0.6 (the bias allowed, up to half an SE); the std ratio
    lies within 0.93 to 1.3. Each check then fails by chance in about 0.3 to 1 percent of
    seeds, and with ~40 checks per case the simultaneous case fails somewhere in about 1
    seed in 7 (alternating: 1 in 20 to 30). The fixed seeds below are ones on which the
    reference passes; a new seed may need the same care.
    """

    def check_rain(self, mode, m, nradials, gates, seed):
        cfg = block_config(ngates=len(gates), pulses_per_radial=m, mode=mode, zcal_db=20.0,
                           zdr_cal_db=0.4, phidp_offset_deg=-20.0, noise_h=RAIN_NOISE,
                           noise_v=RAIN_NOISE, first_gate_m=5000.0, gate_spacing_m=250.0)
        params = rain_gates(cfg, gates)
        port0, port1 = simulate_gates(np.random.default_rng(seed), cfg, nradials, params)
        out, _, _ = self.run_block(port0, port1, cfg)
        self.assertEqual(out.shape, (len(PRODUCTS), nradials, len(gates)))
        for gate, p in enumerate(params):
            truth, e0, std, bias = estimator_theory(cfg, gate, p)
            np.testing.assert_allclose(e0, 0.0, atol=1e-9)
            err = product_errors(out[:, :, gate], truth, cfg)
            self.assertFalse(np.isnan(err).any(), f"{mode} gate {gate}: NaN")
            for k, name in enumerate(PRODUCTS):
                label = (f"{mode} M={m} gate {gate} (SNR {gates[gate][0]} dB, width "
                         f"{gates[gate][1]} m/s) {name}: theory std {std[k]:.4g} bias "
                         f"{bias[k]:+.4g}")
                e = err[k]
                sample_std = e.std(ddof=1)
                self.assertTrue(0.5 < sample_std / std[k] < 2.0,
                                f"{label}: sample std {sample_std:.4g}")
                n = nradials
                if bias[k] != 0.0:
                    n = min(n, int((0.5 * std[k] / abs(bias[k])) ** 2))
                self.assertGreaterEqual(n, 5, label)
                self.assertLess(abs(bias[k]), std[k] / math.sqrt(n), label)
                # The radials are independent and alike: the std of all N estimates the
                # per-radial std far better than that of the first n (often ~10) alone.
                se = sample_std / math.sqrt(n)
                self.assertLess(abs(e[:n].mean()), 3.0 * se,
                                f"{label}: mean error {e[:n].mean():+.4g} over {n} radials, "
                                f"SE {se:.3g}")
                se = sample_std / math.sqrt(nradials)
                self.assertLess(abs(e.mean() - bias[k]), 3.0 * se,
                                f"{label}: mean error {e.mean():+.4g} over {nradials} "
                                f"radials, SE {se:.3g}")

    def test_001_simultaneous(self):
        self.check_rain("simultaneous", 36, 2000,
                        [(20.0, 2.0, 0.3), (30.0, 4.0, -0.3), (25.0, 3.0, 0.3)], seed=2001)

    def test_002_alternating_64(self):
        self.check_rain("alternating", 64, 1500,
                        [(20.0, 2.0, 0.3), (30.0, 1.5, -0.3), (25.0, 2.5, 0.3)], seed=2000)

    def test_003_alternating_36(self):
        self.check_rain("alternating", 36, 1500, [(30.0, 2.0, 0.3), (20.0, 1.5, -0.3)],
                        seed=2001)

    def test_004_velocity_aliasing(self):
        # Beyond the Nyquist velocity the estimate folds by 2 v_Nyquist: the circular mean
        # of the estimates (as angles pi v / v_Nyquist) lands on the folded truth within 3
        # standard errors, and every estimate lies within +-v_Nyquist. In alternating mode
        # each fold also turns PhiDP by 180 degrees (psi and psi + pi give the same C1, C2);
        # in simultaneous mode PhiDP does not see the velocity.
        for k, (mode, m, width) in enumerate((("simultaneous", 36, 2.0),
                                              ("alternating", 64, 1.5))):
            cfg = block_config(ngates=4, pulses_per_radial=m, mode=mode, noise_h=RAIN_NOISE,
                               noise_v=RAIN_NOISE)
            va = nyquist(cfg)
            self.assertAlmostEqual(va, LAMBDA / ((4.0 if k == 0 else 8.0) * PRT), delta=1e-12)
            fractions = (1.6, -2.3, 0.7, -1.2)  # folded: -0.4, -0.3, 0.7, 0.8
            params = rain_gates(cfg, [(30.0, width, f) for f in fractions])
            port0, port1 = simulate_gates(np.random.default_rng(2300 + k), cfg, 500, params)
            out, _, _ = self.run_block(port0, port1, cfg)
            velocity = out[VEL].astype(np.float64)
            self.assertTrue(np.all(np.abs(velocity) <= va * (1 + 1e-6)), mode)
            for gate, fraction in enumerate(fractions):
                folds = round(fraction / 2.0)
                folded = (fraction - 2.0 * folds) * va
                self.assertLess(abs(folded), va)
                phidp = RAIN["phidp_deg"] + (180.0 * folds if mode == "alternating" else 0.0)
                for name, values, truth, to_angle in (
                        ("V", velocity[:, gate], folded, np.pi / va),
                        ("PhiDP", out[PHIDP][:, gate].astype(np.float64), phidp, np.pi / 180)):
                    resultant = np.mean(np.exp(1j * to_angle * values))
                    error = np.angle(resultant * np.exp(-1j * to_angle * truth))
                    se = math.sqrt(-2.0 * math.log(abs(resultant)) / values.size)
                    self.assertLess(abs(error), 3.0 * se,
                                    f"{mode}: true {fraction} v_N, folded {folded / va:.2f} "
                                    f"v_N: {name} circular mean {truth + error / to_angle:.4f}, "
                                    f"expected {truth:.4f}")


# --------------------------------------------------------------------------------------
# The same block tests on the CUDA backend
# --------------------------------------------------------------------------------------
@unittest.skipUnless(HAVE_CUDA, "no CUDA device")
class qa_polarimetric_products_cf_cuda(qa_polarimetric_products_cf):
    DEVICE = "cuda"


@unittest.skipUnless(HAVE_CUDA, "no CUDA device")
class qa_polarimetric_products_cf_physics_cuda(qa_polarimetric_products_cf_physics):
    DEVICE = "cuda"


if __name__ == "__main__":
    gr_unittest.run(qa_polarimetric_products_cf)
