#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Block tests of cudadsp.storm_scene_source, the synthetic-storm pulse source.

The source's contract: whole turns of nradials x pulses_per_radial pulses, then the end
of the flowgraph; "azimuth_deg" and "elevation_deg" tags at radial starts and
"rx_time" at the stream's start, which polarimetric_products_cf turns into the truth's
radial azimuths and times; a truth file
that describes what was simulated; pulses whose second-order statistics are the
truth's (checked with plain NumPy estimators, independent of polarimetric_products_cf);
reproducible draws for a given seed; parameters validated up front; added ground
clutter at the requested clutter-to-noise ratio, zero velocity and the width the
antenna scan gives; KDP from the rain rate and PhiDP as twice its range integral.
"""

import math
import os
import tempfile

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import cudadsp
except ImportError:
    import sys

    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp

from gnuradio.cudadsp.radar.storm_scene_source import radar_band as storm_radar_band  # noqa: E402

SMALL = dict(ngates=64, nradials=24, pulses_per_radial=16)


def run_source(**kwargs):
    """Runs a source to its end; returns (port0, port1) as (pulses, ngates), tags."""
    src = cudadsp.storm_scene_source(**kwargs)
    ngates = src.scene.ngates
    snk0 = blocks.vector_sink_c(ngates)
    snk1 = blocks.vector_sink_c(ngates)
    tb = gr.top_block()
    tb.connect((src, 0), snk0)
    tb.connect((src, 1), snk1)
    tb.run()
    p0 = np.array(snk0.data(), dtype=np.complex64).reshape(-1, ngates)
    p1 = np.array(snk1.data(), dtype=np.complex64).reshape(-1, ngates)
    return src, p0, p1, snk0.tags()


class qa_storm_scene_source(gr_unittest.TestCase):

    def test_turns_and_tags(self):
        src, p0, p1, tags = run_source(nturns=2, elevation_deg=2.5, start_time_s=1.75e9 + 0.25,
                                       **SMALL)
        m, nr = SMALL["pulses_per_radial"], SMALL["nradials"]
        self.assertEqual(p0.shape, (2 * nr * m, SMALL["ngates"]))
        self.assertEqual(p1.shape, p0.shape)
        by_key = {}
        for t in tags:
            by_key.setdefault(pmt.symbol_to_string(t.key), []).append(t)
        self.assertEqual(sorted(by_key), ["azimuth_deg", "elevation_deg", "rx_time"])
        starts = list(range(0, 2 * nr * m, m))
        az = by_key["azimuth_deg"]
        self.assertEqual([t.offset for t in az], starts)
        # Each radial's first pulse, half a pulse's step into the radial: the antenna
        # turns 360 / (nr m) degrees per pulse.
        step = 360.0 / (nr * m)
        expected = [((k % nr) * m + 0.5) * step for k in range(2 * nr)]
        np.testing.assert_allclose([pmt.to_double(t.value) for t in az], expected,
                                   rtol=0, atol=1e-12)
        self.assertAlmostEqual(src.antenna_rate_deg_s(), step / 1e-3, places=9)
        elevation = by_key["elevation_deg"]
        self.assertEqual([t.offset for t in elevation], starts)
        self.assertEqual({pmt.to_double(t.value) for t in elevation}, {2.5})
        (rx_time,) = by_key["rx_time"]
        self.assertEqual(rx_time.offset, 0)
        self.assertEqual(pmt.to_uint64(pmt.tuple_ref(rx_time.value, 0)), 1750000000)
        self.assertAlmostEqual(pmt.to_double(pmt.tuple_ref(rx_time.value, 1)), 0.25, places=6)

    def test_tags_give_the_products_the_true_azimuths(self):
        # Through polarimetric_products_cf at the source's antenna rate: every radial's
        # azimuth is the truth's radial centre, its time the centre pulse's, and each
        # turn is one sweep.
        m, nr = SMALL["pulses_per_radial"], SMALL["nradials"]
        src = cudadsp.storm_scene_source(nturns=2, elevation_deg=1.5, start_time_s=1000.5,
                                         **SMALL)
        products = cudadsp.polarimetric_products_cf(
            SMALL["ngates"], m, first_gate_m=150.0, zcal_db=-20.0, noise_h=1.0,
            noise_v=1.0, phidp_offset_deg=25.0, device="cpu",
            antenna_rate_deg_s=src.antenna_rate_deg_s())
        sinks = [blocks.vector_sink_f(SMALL["ngates"]) for _ in range(7)]
        tb = gr.top_block()
        tb.connect((src, 0), (products, 0))
        tb.connect((src, 1), (products, 1))
        for port, sink in enumerate(sinks):
            tb.connect((products, port), sink)
        tb.run()
        found = {}
        for t in sinks[0].tags():
            key = pmt.symbol_to_string(t.key)
            found.setdefault(key, {})[t.offset] = t.value
        radials = range(2 * nr)
        for key in ("azimuth_deg", "elevation_deg", "time_s", "sweep_index"):
            self.assertEqual(sorted(found[key]), list(radials), key)
        azimuth = [pmt.to_double(found["azimuth_deg"][k]) for k in radials]
        np.testing.assert_allclose(azimuth, np.tile(src.scene.azimuth_deg, 2), rtol=0,
                                   atol=1e-9)
        self.assertEqual({pmt.to_double(v) for v in found["elevation_deg"].values()}, {1.5})
        time_s = [pmt.to_double(found["time_s"][k]) for k in radials]
        np.testing.assert_allclose(time_s, 1000.5 + (np.arange(2 * nr) * m + (m - 1) / 2) * 1e-3,
                                   rtol=0, atol=1e-9)
        self.assertEqual([pmt.to_uint64(found["sweep_index"][k]) for k in radials],
                         [k // nr for k in radials])

    def test_truth_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "truth.npz")
            src, _, _, _ = run_source(nturns=1, truth_file=path, mode="alternating", **SMALL)
            with np.load(path) as npz:
                self.assertEqual(str(npz["mode"]), "alternating")
                self.assertEqual(int(npz["nradials"]), SMALL["nradials"])
                self.assertAlmostEqual(float(npz["nyquist_velocity"]), 0.0531 / 8e-3)
                truth = src.truth()
                for key in ("zh", "zdr", "velocity", "width", "phidp", "rhohv", "snr_h"):
                    np.testing.assert_array_equal(npz[key], truth[key])
                np.testing.assert_allclose(npz["range_m"], 150.0 + 150.0 * np.arange(64))

    def test_same_seed_same_pulses(self):
        _, a0, a1, _ = run_source(nturns=1, seed=7, **SMALL)
        _, b0, b1, _ = run_source(nturns=1, seed=7, **SMALL)
        _, c0, _, _ = run_source(nturns=1, seed=8, **SMALL)
        np.testing.assert_array_equal(a0, b0)
        np.testing.assert_array_equal(a1, b1)
        self.assertFalse(np.array_equal(a0, c0))

    def test_statistics_match_truth(self):
        # Many pulses per radial so that the plain estimators are tight; strong echo.
        scene = cudadsp.storm_scene(ngates=200, nradials=90, pulses_per_radial=128,
                                    noise_h=1.0, noise_v=2.0)
        h, v = scene.pulses(0, scene.nradials)
        m, g = scene.pulses_per_radial, scene.ngates
        h = h.reshape(-1, m, g).astype(np.complex128)
        v = v.reshape(-1, m, g).astype(np.complex128)
        truth = scene.truth()
        strong = (truth["snr_h"] > 20.0) & ~truth["clutter"]
        self.assertGreater(strong.sum(), 500)
        # Echo-free gates give negative signal powers: NaN there, outside `strong`.
        with np.errstate(invalid="ignore", divide="ignore"):
            s_h = np.mean(np.abs(h) ** 2, axis=1) - 1.0
            s_v = np.mean(np.abs(v) ** 2, axis=1) - 2.0
            c = np.mean(h * np.conj(v), axis=1)
            r1 = np.mean(h[:, 1:] * np.conj(h[:, :-1]), axis=1)
            va = scene.nyquist_velocity
            zh = 10 * np.log10(s_h) + scene.zcal_db + 20 * np.log10(scene.range_m / 1000.0)
            velocity = -scene.wavelength_m / (4 * math.pi * scene.prt_s) * np.angle(r1)
            dv = velocity - truth["velocity"]
            dv = (dv + va) % (2 * va) - va
            dphi = np.degrees(np.angle(c)) - scene.phidp_system_deg - truth["phidp"]
            dphi = (dphi + 180.0) % 360.0 - 180.0
            self.assertLess(abs(np.median((zh - truth["zh"])[strong])), 0.3)
            zdr = 10 * np.log10(s_h / s_v)
            self.assertLess(abs(np.median((zdr - truth["zdr"])[strong])), 0.1)
            self.assertLess(abs(np.median(dv[strong])), 0.1)
            self.assertLess(abs(np.median(dphi[strong])), 1.0)
            rho = np.abs(c) / np.sqrt(s_h * s_v)
            self.assertLess(abs(np.median((rho - truth["rhohv"])[strong])), 0.01)
            # Echo-free gates hold noise of the configured powers.
            quiet = ~np.isfinite(truth["zh"])
            self.assertAlmostEqual(np.mean(np.abs(h) ** 2, axis=1)[quiet].mean(), 1.0,
                                   delta=0.02)
            self.assertAlmostEqual(np.mean(np.abs(v) ** 2, axis=1)[quiet].mean(), 2.0,
                                   delta=0.04)

    def test_alternating_noise_by_pulse(self):
        # No echo at all (zcal_db huge): only noise; co-polar input: noise_h on H
        # (even) pulses, noise_v on V (odd) pulses; cross-polar the other way round.
        scene = cudadsp.storm_scene(ngates=100, nradials=40, pulses_per_radial=8,
                                    zcal_db=300.0, noise_h=1.0, noise_v=4.0,
                                    mode="alternating")
        co, cross = scene.pulses(0, 40)
        co = co.reshape(-1, 8, 100)
        cross = cross.reshape(-1, 8, 100)
        self.assertAlmostEqual(np.mean(np.abs(co[:, 0::2]) ** 2), 1.0, delta=0.05)
        self.assertAlmostEqual(np.mean(np.abs(co[:, 1::2]) ** 2), 4.0, delta=0.2)
        self.assertAlmostEqual(np.mean(np.abs(cross[:, 0::2]) ** 2), 4.0, delta=0.2)
        self.assertAlmostEqual(np.mean(np.abs(cross[:, 1::2]) ** 2), 1.0, delta=0.05)

    def test_added_clutter_power_spectrum_and_polarimetry(self):
        # No weather (zcal_db huge): noise of power 1 and clutter at 30 dB CNR.
        m, lag = 64, 8
        scene = cudadsp.storm_scene(ngates=100, nradials=72, pulses_per_radial=m,
                                    zcal_db=300.0, noise_h=1.0, noise_v=1.0,
                                    clutter_cnr_db=30.0, clutter_extent=1.0,
                                    clutter_intrinsic_width_ms=0.2, beamwidth_deg=1.0)
        truth = scene.truth()
        clutter = truth["clutter"]
        self.assertGreater(clutter.sum(), 300)
        self.assertGreater((~clutter).sum(), 300)
        np.testing.assert_array_equal(np.isfinite(truth["clutter_cnr_db"]), clutter)
        self.assertFalse(np.isfinite(truth["zh"]).any())
        h, v = scene.pulses(0, scene.nradials)
        h = h.reshape(-1, m, 100).astype(np.complex128)
        v = v.reshape(-1, m, 100).astype(np.complex128)
        power_h = np.mean(np.abs(h) ** 2, axis=1)
        self.assertAlmostEqual(10 * np.log10(power_h[clutter].mean() - 1.0), 30.0, delta=0.3)
        self.assertAlmostEqual(power_h[~clutter].mean(), 1.0, delta=0.02)
        # Width from the pooled autocorrelation at lag 8 (noise-free there), against the
        # intrinsic and the scan widths computed here: 5-degree radials of 64 ms.
        hc, vc = h.transpose(0, 2, 1)[clutter], v.transpose(0, 2, 1)[clutter]
        s_h = power_h[clutter].mean() - 1.0
        r_lag = np.mean(hc[:, lag:] * np.conj(hc[:, :-lag]))
        width = scene.wavelength_m / (np.pi * lag * scene.prt_s) * math.sqrt(
            math.log(s_h / abs(r_lag)) / 8.0)
        rate = 5.0 / (m * 1e-3)
        expected = math.hypot(0.2, rate * 0.0531 * math.sqrt(math.log(2)) / (2 * math.pi))
        self.assertAlmostEqual(scene.clutter_width_ms, expected, places=12)
        self.assertAlmostEqual(width, expected, delta=0.05 * expected)
        # Zero velocity: the lag-8 phase is (far) below one degree.
        self.assertLess(abs(np.degrees(np.angle(r_lag))), 1.0)
        # The same echo on H and V: ZDR 0 dB, RhoHV 0.99, the system PhiDP.
        s_v = np.mean(np.abs(vc) ** 2) - 1.0
        c = np.mean(hc * np.conj(vc))
        self.assertAlmostEqual(10 * np.log10(s_h / s_v), 0.0, delta=0.1)
        self.assertAlmostEqual(abs(c) / math.sqrt(s_h * s_v), 0.99, delta=0.005)
        self.assertAlmostEqual(np.degrees(np.angle(c)), scene.phidp_system_deg, delta=1.0)

    def test_added_clutter_keeps_weather_truth(self):
        plain = cudadsp.storm_scene(**SMALL).truth()
        scene = cudadsp.storm_scene(clutter_cnr_db=40.0, **SMALL)
        truth = scene.truth()
        # The default patches replace the weather; added clutter leaves it as it is.
        weather = ~plain["clutter"]
        for key in ("zh", "zdr", "velocity", "width", "rhohv", "kdp", "rain_rate"):
            np.testing.assert_array_equal(truth[key][weather], plain[key][weather], err_msg=key)
        self.assertTrue(np.all(truth["clutter_cnr_db"][truth["clutter"]] == 40.0))
        self.assertFalse(np.isfinite(plain["clutter_cnr_db"]).any())
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "truth.npz")
            scene.save_truth(path)
            with np.load(path) as npz:
                for key in ("kdp", "phidp", "rain_rate", "clutter", "clutter_cnr_db"):
                    np.testing.assert_array_equal(npz[key], truth[key], err_msg=key)
                self.assertAlmostEqual(float(npz["clutter_width_ms"]), scene.clutter_width_ms)

    def test_kdp_from_rain_rate_and_phidp_its_integral(self):
        # Added clutter, so that no patch replaces the rain: KDP is the rain's everywhere.
        scene = cudadsp.storm_scene(ngates=400, nradials=120, clutter_cnr_db=20.0)
        truth = scene.truth()
        zh, kdp, rain = truth["zh"], truth["kdp"], truth["rain_rate"]
        self.assertEqual(storm_radar_band(scene.wavelength_m), "C")
        # Marshall-Palmer below the melting layer (0.66 R), KDP from R = 29.7 KDP^0.85.
        below = (scene.range_m < 0.6 * scene.range_m[-1])[None, :] & (zh > 20.0)
        self.assertGreater(below.sum(), 1000)
        z = 10.0 ** (np.minimum(zh, 55.0) / 10.0)
        np.testing.assert_allclose(rain[below], (z[below] / 200.0) ** (1 / 1.6), rtol=1e-3)
        rainy = np.nan_to_num(rain) > 0
        np.testing.assert_allclose(kdp[rainy], (rain[rainy] / 29.7) ** (1 / 0.85), rtol=1e-12)
        self.assertGreater(np.nanmax(kdp), 2.0)  # the hail-capped core: 55 dBZ, ~4 deg/km
        # PhiDP: twice the range integral of KDP, trapezoids between gate centres.
        k = np.nan_to_num(kdp)
        one_way = np.zeros_like(k)
        one_way[:, 0] = k[:, 0] * scene.first_gate_m / 1000.0
        for g in range(1, scene.ngates):
            one_way[:, g] = one_way[:, g - 1] + 0.5 * (k[:, g - 1] + k[:, g]) \
                * scene.gate_spacing_m / 1000.0
        echo = np.isfinite(truth["phidp"])
        np.testing.assert_allclose(truth["phidp"][echo], 2.0 * one_way[echo], atol=1e-9)
        self.assertGreater(np.nanmax(truth["phidp"]), 20.0)

    def test_bad_parameters(self):
        for kwargs in (dict(ngates=0), dict(nradials=0), dict(pulses_per_radial=1),
                       dict(mode="alternating", pulses_per_radial=6 + 1),
                       dict(mode="staggered"), dict(prt_s=0.0), dict(wavelength_m=-1.0),
                       dict(gate_spacing_m=0.0), dict(first_gate_m=-1.0),
                       dict(noise_h=-1.0), dict(zcal_db=float("nan")), dict(nturns=-1),
                       dict(clutter_cnr_db=-1.0), dict(clutter_cnr_db=float("inf")),
                       dict(clutter_extent=0.0), dict(clutter_extent=1.5),
                       dict(clutter_intrinsic_width_ms=-0.1), dict(beamwidth_deg=0.0),
                       dict(clutter_cnr_db=30.0, noise_h=0.0), dict(elevation_deg=91.0),
                       dict(elevation_deg=float("nan")), dict(start_time_s=-1.0),
                       dict(start_time_s=float("inf"))):
            with self.assertRaises(ValueError, msg=str(kwargs)):
                cudadsp.storm_scene_source(**kwargs)


if __name__ == "__main__":
    gr_unittest.run(qa_storm_scene_source)
