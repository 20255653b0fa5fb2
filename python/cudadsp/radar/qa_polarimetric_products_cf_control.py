#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Block tests of cudadsp.polarimetric_products_cf, inside flowgraphs: its controls.

Censoring, calibration setters and their timing, input and scan geometry tags,
set_scan() and "scan" messages, and parameters refused by name, against the float64
reference of polarimetric_products_cf_test_support.py (the oracles:
qa_polarimetric_products_cf.py).

Every test runs on device="cpu"; the *_cuda classes repeat them on "cuda" when a CUDA
device is present and are skipped otherwise.
"""

import math
import unittest

import numpy as np
import pmt
from gnuradio import gr_unittest

from cudadsp.radar import weather_echo
from gnuradio.cudadsp.common.qa_log_capture import captured_output  # a test helper
# cudadsp (gnuradio.cudadsp, the bindings' folder outside ctest), the reference and
# the shared checks:
from polarimetric_products_cf_test_support import (cudadsp, LAMBDA, FLT_MAX_SQUARED,
    PRT, PRODUCTS, ZH, SNRH, CLUTTER_PRODUCTS, CLUT, CPA, GEOMETRY_KEYS, block_config,
    nyquist, random_echoes, make_tag, make_block, MAX_ANTENNA_RATE_DEG_S, tag_list,
    CALIBRATED, RAIN_NOISE, rain_gates, simulate_gates, HAVE_CUDA, polar_case)


# --------------------------------------------------------------------------------------
# Censoring, setters, tags
# --------------------------------------------------------------------------------------
class qa_polarimetric_products_cf_control(polar_case):

    def censoring_data(self, mode, m):
        """Threshold 20 dB; gates of true SNR 30, 20, 10, -5 dB, noise only, all zero.

        At M = 36 the SNR estimate of the 30 dB gate never falls to 20 dB and that of the
        10 dB gate never reaches 20 dB nor 0 (its S_h stays positive: a finite SNRh); the
        20 dB gate falls on both sides, where the reference decides.
        """
        cfg = block_config(ngates=6, pulses_per_radial=m, mode=mode, noise_h=RAIN_NOISE,
                           noise_v=RAIN_NOISE, snr_threshold_db=20.0, first_gate_m=1000.0)
        params = rain_gates(cfg, [(30.0, 2.0, 0.3), (20.0, 2.0, 0.3), (10.0, 2.0, 0.3),
                                  (-5.0, 2.0, 0.3), (-np.inf, 2.0, 0.3), (-np.inf, 2.0, 0.3)])
        params[5].update(noise_h=0.0, noise_v=0.0)
        port0, port1 = simulate_gates(np.random.default_rng(3000 + m), cfg, 200, params)
        return cfg, port0, port1

    def test_001_censoring(self):
        for mode, m in (("simultaneous", 36), ("alternating", 36)):
            cfg, port0, port1 = self.censoring_data(mode, m)
            out, _, _ = self.run_block(port0, port1, cfg)
            self.assert_matches_reference(out, port0, port1, cfg, "censoring")
            snr = out[SNRH]
            censored = ~(snr >= cfg["snr_threshold_db"])
            for k in range(SNRH):
                # Censoring blanks 0..5 together; an estimate may be NaN on its own too
                # (ZDR or RhoHV of a negative noise-subtracted power), but not at 30 dB.
                self.assertTrue(np.all(np.isnan(out[k])[censored]), f"{mode} {PRODUCTS[k]}")
                self.assertTrue(np.all(np.isfinite(out[k][:, 0])), f"{mode} {PRODUCTS[k]}")
            self.assertFalse(np.isnan(snr).any(), mode)
            self.assertFalse(censored[:, 0].any(), mode)
            self.assertTrue(censored[:, 1].any() and not censored[:, 1].all(), mode)
            self.assertTrue(np.all(censored[:, 2:]), f"{mode}: 10 dB and below")
            self.assertTrue(np.all(np.isfinite(snr[:, :3])), f"{mode}: SNRh of signal gates")
            # Low SNR and noise only: noise-subtracted power of either sign (SNRh finite
            # or -inf); all zero: S_h = 0 exactly, SNRh -inf.
            low = snr[:, 3:5]
            self.assertTrue(np.all(np.isfinite(low) | np.isneginf(low)), mode)
            self.assertTrue(np.isneginf(snr[:, 4]).any() and np.isfinite(snr[:, 4]).any(), mode)
            self.assertTrue(np.all(np.isneginf(snr[:, 5])), mode)

    def test_002_zero_noise(self):
        # noise_h = noise_v = 0: SNRh is +inf wherever there is any power, so nothing is
        # censored but the all-zero gate (S_h = 0: -inf).
        for mode, m in (("simultaneous", 36), ("alternating", 36)):
            cfg, port0, port1 = self.censoring_data(mode, m)
            cfg.update(noise_h=0.0, noise_v=0.0)
            out, _, _ = self.run_block(port0, port1, cfg)
            self.assert_matches_reference(out, port0, port1, cfg, "zero noise")
            self.assertTrue(np.all(np.isposinf(out[SNRH][:, :5])), mode)
            self.assertTrue(np.all(np.isneginf(out[SNRH][:, 5])), mode)
            self.assertTrue(np.all(np.isfinite(out[:SNRH, :, :5])), mode)
            self.assertTrue(np.all(np.isnan(out[:SNRH, :, 5])), mode)

    def test_003_setters_before_start(self):
        values = {"zcal_db": 17.0, "zdr_cal_db": -0.7, "phidp_offset_deg": 33.0,
                  "noise_h": 0.3, "noise_v": 0.2, "snr_threshold_db": 6.0}
        for mode in weather_echo.MODES:
            cfg = block_config(ngates=5, pulses_per_radial=36, mode=mode,
                               first_gate_m=2125.0, gate_spacing_m=250.0)
            blk = make_block(cfg, self.DEVICE)
            for name in values:
                self.assertEqual(getattr(blk, name)(), cfg[name], name)
                getattr(blk, "set_" + name)(values[name])
                self.assertEqual(getattr(blk, name)(), values[name], name)
            cfg.update(values)
            port0, port1 = random_echoes(np.random.default_rng(3100), cfg, 40, 0, [4])
            out, _, _ = self.run_block(port0, port1, cfg, block=blk)
            ref = self.assert_matches_reference(out, port0, port1, cfg, "after setters")
            self.assertTrue(np.isnan(ref[ZH]).any() and np.isfinite(ref[ZH]).any())

            # Between two runs: the second run uses the new values.
            changed = {"zcal_db": -3.0, "zdr_cal_db": 1.1, "phidp_offset_deg": -140.0,
                       "noise_h": 0.25, "noise_v": 0.35, "snr_threshold_db": 0.5}
            for name, value in changed.items():
                getattr(blk, "set_" + name)(value)
                self.assertEqual(getattr(blk, name)(), value, name)
            cfg.update(changed)
            port0, port1 = random_echoes(np.random.default_rng(3101), cfg, 40, 0, [4])
            out, _, _ = self.run_block(port0, port1, cfg, block=blk)
            self.assert_matches_reference(out, port0, port1, cfg, "second run, new values")

    def test_004_setters_reject_bad_values(self):
        blk = make_block(block_config(noise_h=0.5, noise_v=0.25), self.DEVICE)
        for name, bad_values in (("noise_h", (-1.0, -1e-30, 1e78)),
                                 ("noise_v", (-1.0, -1e-30, 1e78)),
                                 ("zcal_db", (1000.5, -1e300)), ("zdr_cal_db", (100.5,)),
                                 ("phidp_offset_deg", (-360.5, 1e300))):
            before = getattr(blk, name)()
            for bad in bad_values:
                with self.assertRaisesRegex(ValueError, name, msg=f"{name} {bad}"):
                    getattr(blk, "set_" + name)(bad)
                self.assertEqual(getattr(blk, name)(), before, name)

    def test_005_nyquist_and_backend(self):
        for mode, divisor in (("simultaneous", 4.0), ("alternating", 8.0)):
            for lam, prt in ((LAMBDA, PRT), (0.1, 7e-4), (0.032, 2.5e-3)):
                cfg = block_config(pulses_per_radial=36, wavelength_m=lam, prt_s=prt, mode=mode)
                blk = make_block(cfg, self.DEVICE)
                self.assertAlmostEqual(blk.nyquist_velocity(), lam / (divisor * prt),
                                       delta=1e-12 * lam / prt)
                self.assertAlmostEqual(blk.nyquist_velocity(), nyquist(cfg),
                                       delta=1e-12 * lam / prt)
        blk = make_block(block_config(), self.DEVICE)
        if self.DEVICE == "cpu":
            self.assertEqual(blk.backend(), "cpu")
        else:
            self.assertTrue(blk.backend().startswith("cuda:"), blk.backend())
        auto = make_block(block_config(), "auto").backend()
        self.assertEqual(auto.startswith("cuda:"), HAVE_CUDA, auto)

    def test_006_tags(self):
        # radial_index on every output port at every radial (0, 1, ...), uint64; a tag of
        # either input goes to the radial of its pulse, offset // M, on every output port.
        for mode, m in (("simultaneous", 8), ("alternating", 4)):
            cfg = block_config(ngates=3, pulses_per_radial=m, mode=mode, **CALIBRATED)
            nradials = 20
            port0, port1 = random_echoes(np.random.default_rng(3200), cfg, nradials, m - 1)
            offsets = {
                "azimuth": [0, 1, m - 1, m, m + 1, 5 * m + 3, 5 * m + 3, nradials * m - 1],
                "elevation": [m - 1, 7 * m, nradials * m - 2],
            }
            tags = [[make_tag(o, key, pmt.from_double(0.5 * i)) for i, o in enumerate(offsets[key])]
                    for key in offsets]
            expected = {key: sorted((o // m, key, pmt.write_string(pmt.from_double(0.5 * i)))
                                    for i, o in enumerate(offsets[key]))
                        for key in offsets}
            results = []
            for kwargs in (dict(), dict(feeder_items=3, block_items=1)):
                out, out_tags, _ = self.run_block(port0, port1, cfg, tags=tags, **kwargs)
                self.assertEqual(out.shape[1], nradials)
                for port, port_tags in enumerate(out_tags):
                    label = f"{mode} {kwargs} output {port}"
                    index = [t for t in port_tags if pmt.symbol_to_string(t.key) == "radial_index"]
                    self.assertEqual(sorted(int(t.offset) for t in index), list(range(nradials)),
                                     label)
                    for t in index:
                        self.assertTrue(pmt.is_uint64(t.value), label)
                        self.assertEqual(pmt.to_uint64(t.value), t.offset, label)
                    for key in offsets:
                        self.assertEqual(tag_list(port_tags, key), expected[key], label)
                    passed_on = [t for t in port_tags
                                 if pmt.symbol_to_string(t.key) not in GEOMETRY_KEYS]
                    self.assertEqual(len(passed_on), nradials + sum(map(len, offsets.values())),
                                     label)
                results.append((out, [tag_list(t) for t in out_tags]))
            np.testing.assert_array_equal(results[1][0], results[0][0])
            self.assertEqual(results[1][1], results[0][1])


# --------------------------------------------------------------------------------------
# Clutter outputs, I/Q conventions and scan geometry
# --------------------------------------------------------------------------------------
def geometry_tags(port_tags, nradials):
    """{key: values per radial} of the block's own tags on one output; each key must
    appear exactly once per radial."""
    found = {key: [None] * nradials for key in ("radial_index",) + GEOMETRY_KEYS}
    for t in port_tags:
        key = pmt.symbol_to_string(t.key)
        if key not in found:
            continue
        assert found[key][t.offset] is None, f"{key} twice on radial {t.offset}"
        integer = key in ("radial_index", "sweep_index")
        assert (pmt.is_uint64(t.value) if integer else pmt.is_real(t.value)), key
        found[key][t.offset] = pmt.to_uint64(t.value) if integer else pmt.to_double(t.value)
    for key, values in found.items():
        assert None not in values, f"{key} missing on radial {values.index(None)}"
    return found


class qa_polarimetric_products_cf_scan(polar_case):

    NEW_KEYWORDS = dict(clutter_filter="gmap", clutter_only_where_detected=True,
                        cpa_threshold=0.7, antenna_rate_deg_s=18.0, beamwidth_deg=0.95,
                        invert_velocity=True, invert_phidp=True,
                        scan_start_azimuth_deg=270.0, scan_elevation_deg=1.5)

    def test_001_new_keywords_and_getters(self):
        blk = cudadsp.polarimetric_products_cf(4, device=self.DEVICE, **self.NEW_KEYWORDS)
        for name, value in self.NEW_KEYWORDS.items():
            self.assertEqual(getattr(blk, name)(), value, name)
        self.assertEqual(blk.scan_rate_deg_s(), 18.0)
        defaults = cudadsp.polarimetric_products_cf(4, device=self.DEVICE)
        self.assertEqual((defaults.clutter_filter(), defaults.clutter_only_where_detected(),
                          defaults.cpa_threshold(), defaults.antenna_rate_deg_s(),
                          defaults.beamwidth_deg(), defaults.invert_velocity(),
                          defaults.invert_phidp(), defaults.scan_start_azimuth_deg(),
                          defaults.scan_elevation_deg(), defaults.scan_rate_deg_s()),
                         ("none", False, 0.7, 0.0, 1.0, False, False, 0.0, 0.5, 0.0))
        blk.set_scan(10.0, -0.5, 6.0)
        self.assertEqual((blk.scan_start_azimuth_deg(), blk.scan_elevation_deg(),
                          blk.scan_rate_deg_s(), blk.antenna_rate_deg_s()),
                         (10.0, -0.5, 6.0, 18.0))

    def test_002_nine_outputs(self):
        # All nine outputs connected: the seven products as with seven outputs (and as
        # the float64 reference); without a filter nothing is removed (CLUT 0) and CPA,
        # a ratio of |sum| to sum of magnitudes, lies in [0, 1].
        cfg = block_config(ngates=5, pulses_per_radial=36, **CALIBRATED)
        port0, port1 = random_echoes(np.random.default_rng(3900), cfg, 60, 0)
        seven, _, _ = self.run_block(port0, port1, cfg)
        nine, nine_tags, _ = self.run_block(port0, port1, cfg,
                                            connected=len(PRODUCTS) + len(CLUTTER_PRODUCTS))
        self.assert_matches_reference(nine[:len(PRODUCTS)], port0, port1, cfg, "9 outputs")
        np.testing.assert_array_equal(nine[:len(PRODUCTS)], seven)
        np.testing.assert_array_equal(nine[CLUT], np.zeros_like(nine[CLUT]))
        self.assertTrue(np.all((nine[CPA] >= 0.0) & (nine[CPA] <= 1.0)))
        self.assertGreater(np.ptp(nine[CPA]), 0.0)
        for port_tags in nine_tags:
            geometry_tags(port_tags, nine.shape[1])

    def test_003_simple_scan_tags(self):
        # No tags: the azimuth from the scan's start at the antenna rate (10 degrees per
        # radial here), its elevation, time from 0; a new sweep after each full turn.
        m, nradials = 10, 80
        cfg = block_config(ngates=2, pulses_per_radial=m, **CALIBRATED)
        port0, port1 = random_echoes(np.random.default_rng(4000), cfg, nradials, 3)
        blk = cudadsp.polarimetric_products_cf(**cfg, device=self.DEVICE,
                                               antenna_rate_deg_s=1000.0,
                                               scan_start_azimuth_deg=350.0,
                                               scan_elevation_deg=2.0)
        _, out_tags, _ = self.run_block(port0, port1, cfg, block=blk, block_items=7)
        centre_s = (np.arange(nradials) * m + (m - 1) / 2.0) * cfg["prt_s"]
        for port_tags in out_tags:
            found = geometry_tags(port_tags, nradials)
            np.testing.assert_allclose(found["azimuth_deg"],
                                       np.mod(350.0 + 1000.0 * centre_s, 360.0), atol=1e-9)
            np.testing.assert_array_equal(found["elevation_deg"], 2.0)
            np.testing.assert_allclose(found["time_s"], centre_s, atol=1e-12)
            self.assertEqual(found["sweep_index"], [r // 36 for r in range(nradials)])

    def test_004_tagged_scan(self):
        # Azimuth tags every 5 pulses of an antenna turning at 200 deg/s, an elevation
        # step and rx_time on input 0: each radial's tags give the antenna at its centre
        # pulse; the input scan tags are consumed, other tags passed on.
        m, nradials, rate = 8, 30, 200.0
        cfg = block_config(ngates=2, pulses_per_radial=m, **CALIBRATED)
        port0, port1 = random_echoes(np.random.default_rng(4100), cfg, nradials, 0)
        T = cfg["prt_s"]
        tags = [make_tag(k, "azimuth_deg", pmt.from_double((12.0 + rate * k * T) % 360.0))
                for k in range(1, nradials * m, 5)]
        tags += [make_tag(2, "elevation_deg", pmt.from_double(0.5)),
                 make_tag(12 * m + 1, "elevation_deg", pmt.from_double(2.5)),
                 make_tag(3, "rx_time", pmt.make_tuple(pmt.from_uint64(1700000000),
                                                       pmt.from_double(0.125))),
                 make_tag(4, "label", pmt.from_long(7))]
        blk = cudadsp.polarimetric_products_cf(**cfg, device=self.DEVICE,
                                               antenna_rate_deg_s=rate)
        _, out_tags, _ = self.run_block(port0, port1, cfg, block=blk, tags=(tags, ()),
                                        feeder_items=3)
        centre = np.arange(nradials) * m + (m - 1) / 2.0
        for port_tags in out_tags:
            found = geometry_tags(port_tags, nradials)
            np.testing.assert_allclose(found["azimuth_deg"],
                                       np.mod(12.0 + rate * centre * T, 360.0), atol=1e-9)
            np.testing.assert_array_equal(found["elevation_deg"],
                                          np.where(centre >= 12 * m + 1, 2.5, 0.5))
            np.testing.assert_allclose(found["time_s"],
                                       1700000000.125 + (centre - 3) * T, rtol=0, atol=1e-6)
            self.assertEqual(found["sweep_index"], [0] * 12 + [1] * (nradials - 12))
            keys = [pmt.symbol_to_string(t.key) for t in port_tags]
            self.assertEqual(keys.count("label"), 1)
            self.assertEqual(keys.count("rx_time"), 0)
            self.assertEqual(keys.count("azimuth_deg"), nradials)

    def test_005_scan_message(self):
        # A dict on the "scan" port before the run sets the simple scan (keys left out
        # keep their values); bad messages are logged and ignored.
        m, nradials = 10, 12
        cfg = block_config(ngates=2, pulses_per_radial=m, **CALIBRATED)
        port0, port1 = random_echoes(np.random.default_rng(4200), cfg, nradials, 0)
        blk = cudadsp.polarimetric_products_cf(**cfg, device=self.DEVICE,
                                               scan_elevation_deg=3.0)
        port = pmt.intern("scan")
        for bad in (pmt.from_double(1.0), pmt.to_pmt({"tilt": 1.0}),
                    pmt.to_pmt({"rate_deg_s": -5.0, "start_azimuth_deg": 1.0}),
                    pmt.to_pmt({"elevation_deg": "high"})):
            blk._post(port, bad)
        blk._post(port, pmt.to_pmt({"start_azimuth_deg": 45.0, "rate_deg_s": 100.0}))
        _, out_tags, _ = self.run_block(port0, port1, cfg, block=blk)
        self.assertEqual((blk.scan_start_azimuth_deg(), blk.scan_elevation_deg(),
                          blk.scan_rate_deg_s()), (45.0, 3.0, 100.0))
        centre_s = (np.arange(nradials) * m + (m - 1) / 2.0) * cfg["prt_s"]
        found = geometry_tags(out_tags[0], nradials)
        np.testing.assert_allclose(found["azimuth_deg"], 45.0 + 100.0 * centre_s, atol=1e-9)
        np.testing.assert_array_equal(found["elevation_deg"], 3.0)

    def test_006_scan_message_bounds_and_log_rate(self):
        # A rate of 1e308 deg/s was accepted (every radial a new sweep, then NaN
        # azimuths): a "scan" message beyond the scan's physical bounds is refused like
        # the constructor's, and the scan stays. 7,200 refused messages (one per radial
        # for two minutes) give one log line, and the count of the others at stop().
        m, nradials = 10, 12
        cfg = block_config(ngates=2, pulses_per_radial=m, **CALIBRATED)
        port0, port1 = random_echoes(np.random.default_rng(4300), cfg, nradials, 0)
        blk = cudadsp.polarimetric_products_cf(**cfg, device=self.DEVICE,
                                               antenna_rate_deg_s=100.0)
        port = pmt.intern("scan")
        for bad in ({"rate_deg_s": 1e308}, {"rate_deg_s": MAX_ANTENNA_RATE_DEG_S * 1.001},
                    {"start_azimuth_deg": 1e300}):
            blk._post(port, pmt.to_pmt(bad))
        for _ in range(7200 - 3):
            blk._post(port, pmt.to_pmt({"rate_deg_s": 1e308}))
        with captured_output() as log:
            _, out_tags, _ = self.run_block(port0, port1, cfg, block=blk)
        self.assertEqual((blk.scan_start_azimuth_deg(), blk.scan_rate_deg_s()),
                         (0.0, 100.0))
        found = geometry_tags(out_tags[0], nradials)
        centre_s = (np.arange(nradials) * m + (m - 1) / 2.0) * cfg["prt_s"]
        np.testing.assert_allclose(found["azimuth_deg"], 100.0 * centre_s, atol=1e-9)
        self.assertEqual(found["sweep_index"], [0] * nradials)
        ignored = [line for line in log.lines() if '"scan" message ignored' in line]
        self.assertEqual(len(ignored), 1, log.text[-3000:])
        self.assertIn("rate_deg_s: must be from 0 to 3600", ignored[0])
        self.assertIn('7199 more lines about "scan" messages ignored were suppressed',
                      log.text)

    def test_007_rx_time_beyond_the_bound_is_refused(self):
        # rx_time of 2^63 s was passed on as time_s 9.2e18: a time beyond the end of
        # year 9999 (CfRadial's time strings) is a bad tag, refused with the others;
        # the radials keep the time of the pulse count. One in range is used.
        m, nradials = 8, 6
        cfg = block_config(ngates=2, pulses_per_radial=m, **CALIBRATED)
        port0, port1 = random_echoes(np.random.default_rng(4400), cfg, nradials, 0)
        T = cfg["prt_s"]
        centre = np.arange(nradials) * m + (m - 1) / 2.0
        for whole, expected in ((2**63, centre * T), (2**40, centre * T),
                                (253402300799, 253402300799.5 + centre * T)):
            tags = [make_tag(0, "rx_time", pmt.make_tuple(pmt.from_uint64(whole),
                                                          pmt.from_double(0.5)))]
            _, out_tags, _ = self.run_block(port0, port1, cfg, tags=(tags, ()))
            found = geometry_tags(out_tags[0], nradials)
            np.testing.assert_allclose(found["time_s"], expected, rtol=0, atol=1e-4,
                                       err_msg=str(whole))


# --------------------------------------------------------------------------------------
# Bad parameters
# --------------------------------------------------------------------------------------
class qa_polarimetric_products_cf_params(gr_unittest.TestCase):

    def assert_rejected(self, parameter, **overrides):
        """The constructor raises ValueError naming `parameter` for these arguments (those
        of block_config and the clutter and scan keywords)."""
        known = block_config()
        kwargs = block_config(**{k: v for k, v in overrides.items() if k in known})
        kwargs.update({k: v for k, v in overrides.items() if k not in known and k != "device"})
        with self.assertRaisesRegex(ValueError, parameter, msg=f"{overrides}"):
            cudadsp.polarimetric_products_cf(**kwargs, device=overrides.get("device", "cpu"))

    def test_001_bad_sizes(self):
        for ngates in (0, -1, -1000):
            self.assert_rejected("ngates", ngates=ngates)
        for m in (1, 0, -1, -36):
            self.assert_rejected("pulses_per_radial", pulses_per_radial=m)
        for m in (2, 3, 5, 7, 37, 0, -4):
            self.assert_rejected("pulses_per_radial", pulses_per_radial=m, mode="alternating")
        # Beyond a C++ int (issue 16 item 8): named, not pybind11's generic TypeError.
        self.assert_rejected("^ngates: must be at most 2147483647", ngates=2**31)
        self.assert_rejected("^pulses_per_radial: must be at least", pulses_per_radial=-2**40)
        for args, name in (((2**32, 36), "ngates"), ((4, 2**32), "pulses_per_radial")):
            with self.assertRaisesRegex(ValueError, f"^{name}: must be at most"):
                cudadsp.polarimetric_products_cf.upstream_buffer_pulses(*args)

    def test_002_bad_radar_parameters(self):
        for bad in (0.0, -0.0531, math.nan):
            self.assert_rejected("wavelength_m", wavelength_m=bad)
            self.assert_rejected("prt_s", prt_s=bad)
        for bad in (0.0, -150.0, math.nan):
            self.assert_rejected("gate_spacing_m", gate_spacing_m=bad)
        for bad in (-1.0, math.nan):
            self.assert_rejected("first_gate_m", first_gate_m=bad)
        for bad in (-1.0, -1e-30, math.nan):
            self.assert_rejected("noise_h", noise_h=bad)
            self.assert_rejected("noise_v", noise_v=bad)
        # Physical bounds (issue 16 item 9): finite but absurd values are refused.
        for name, lo, hi in (("wavelength_m", 1e-4, 1e3), ("prt_s", 1e-7, 10.0),
                             ("zcal_db", -1000.0, 1000.0), ("zdr_cal_db", -100.0, 100.0),
                             ("phidp_offset_deg", -360.0, 360.0),
                             ("noise_h", 0.0, FLT_MAX_SQUARED), ("noise_v", 0.0, FLT_MAX_SQUARED)):
            for bad in (lo - max(1e-9, abs(lo) * 1e-6), hi * (1 + 1e-6), -1e300, 1e300):
                self.assert_rejected(f"^{name}: must be from ", **{name: bad})
            for good in (lo, hi):
                cudadsp.polarimetric_products_cf(4, device="cpu", **{name: good})

    def test_003_bad_mode_and_device(self):
        for mode in ("", "alternate", "Simultaneous", "stagger"):
            self.assert_rejected("mode", mode=mode)
        for device in ("cuda:x", "cuda:", "cuda:-1", "gpu", ""):
            self.assert_rejected("device", device=device)

    def test_004_good_parameters_accepted(self):
        for mode, m in (("simultaneous", 2), ("simultaneous", 3), ("alternating", 4),
                        ("alternating", 6), ("alternating", 64)):
            blk = cudadsp.polarimetric_products_cf(1, pulses_per_radial=m, mode=mode,
                                                   noise_h=0.0, noise_v=0.0, device="cpu")
            self.assertEqual(blk.backend(), "cpu")

    def test_006_bad_clutter_and_scan_parameters(self):
        for bad in ("", "iir", "Regression", "none "):
            self.assert_rejected("clutter_filter", clutter_filter=bad)
        for bad in (0.0, -0.5, 1.5, math.nan):
            self.assert_rejected("cpa_threshold", cpa_threshold=bad)
        for bad in (-1.0, math.inf, math.nan, 1e308, MAX_ANTENNA_RATE_DEG_S * 1.001):
            self.assert_rejected("antenna_rate_deg_s", antenna_rate_deg_s=bad)
        cudadsp.polarimetric_products_cf(4, device="cpu",
                                         antenna_rate_deg_s=MAX_ANTENNA_RATE_DEG_S)
        for bad in (0.0, -1.0, math.nan):
            self.assert_rejected("beamwidth_deg", beamwidth_deg=bad)
        for bad in (math.nan, math.inf, 1e300, -360.5):
            self.assert_rejected("scan_start_azimuth_deg", scan_start_azimuth_deg=bad)
        for bad in (90.5, -100.0, math.nan):
            self.assert_rejected("scan_elevation_deg", scan_elevation_deg=bad)
        blk = cudadsp.polarimetric_products_cf(4, device="cpu")
        blk.set_scan(10.0, 1.0, 6.0)
        for args, name in (((math.nan, 1.0, 6.0), "start_azimuth_deg"),
                           ((0.0, 95.0, 6.0), "elevation_deg"),
                           ((0.0, 1.0, -6.0), "rate_deg_s"),
                           ((0.0, 1.0, 1e308), "rate_deg_s"),
                           ((400.0, 1.0, 6.0), "start_azimuth_deg")):
            with self.assertRaisesRegex(ValueError, name, msg=f"{args}"):
                blk.set_scan(*args)
        self.assertEqual((blk.scan_start_azimuth_deg(), blk.scan_elevation_deg(),
                          blk.scan_rate_deg_s()), (10.0, 1.0, 6.0))

    def test_005_cuda_without_device(self):
        if HAVE_CUDA:
            self.skipTest("a CUDA device is present")
        for device in ("cuda", "cuda:0"):
            with self.assertRaises(RuntimeError, msg=device):
                cudadsp.polarimetric_products_cf(4, device=device)


# --------------------------------------------------------------------------------------
# The same block tests on the CUDA backend
# --------------------------------------------------------------------------------------
@unittest.skipUnless(HAVE_CUDA, "no CUDA device")
class qa_polarimetric_products_cf_control_cuda(qa_polarimetric_products_cf_control):
    DEVICE = "cuda"


@unittest.skipUnless(HAVE_CUDA, "no CUDA device")
class qa_polarimetric_products_cf_scan_cuda(qa_polarimetric_products_cf_scan):
    DEVICE = "cuda"


if __name__ == "__main__":
    gr_unittest.run(qa_polarimetric_products_cf_control)
