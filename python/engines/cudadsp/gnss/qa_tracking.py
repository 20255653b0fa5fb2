#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of cudadsp.gnss.track and cudadsp.gnss.multichannel_correlator against known
truth: simulated GPS L1 C/A satellites (cudadsp.gnss_signal_simulator, whose code phase,
Doppler and data bits are known at every sample), acquired then tracked; their epochs
must end on the true code period edges, their Doppler and C/N0 must be the simulated
ones and the prompt's sign must follow the data bits. Interleaved int16 input must give
the records of the same integers as complex64; bad descriptions are refused by key. On
the CPU, and on CUDA too where a device is present."""

import unittest

import numpy as np

import cudadsp
from cudadsp.common import data_files
from cudadsp.common.testing import backends

FS = 4e6
CHIPS = 1023
# (PRN, code phase at sample 0 in chips, Doppler Hz, C/N0 dB-Hz)
SKY = [(3, 200.5, 1750.0, 48.0), (17, 900.25, -3250.0, 45.0)]
SECONDS = 0.6


def simulator(seed=21):
    config = cudadsp.gnss_simulator_config()
    config.sample_rate_hz = FS
    config.noise_power = 1.0
    config.seed = seed
    satellites = []
    for prn, phase, doppler, cn0 in SKY:
        s = cudadsp.gnss_simulated_satellite()
        s.code = cudadsp.gps_l1ca_code(prn)
        s.code_phase_chips = phase
        s.doppler_hz = doppler
        s.cn0_dbhz = cn0
        satellites.append(s)
    return cudadsp.gnss_signal_simulator(config, satellites)


def true_period_edge(sim, sat, near):
    """The (fractional) sample nearest `near` where satellite sat's code phase is 0."""
    chips = sim.code_phase_total_chips(sat, near)
    target = round(chips / CHIPS) * CHIPS
    rate = sim.code_rate_cps(sat, near) / FS  # chips per sample
    return near + (target - chips) / rate


class qa_tracking(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.sim = simulator()
        cls.samples = cls.sim.generate(int(FS * SECONDS))
        cls.detections = cudadsp.gnss.acquire(cls.samples, FS,
                                              satellites=[p for p, *_ in SKY],
                                              device="cpu")

    def test_tracked_satellites_follow_the_truth(self):
        for device in backends(self):
            with self.subTest(device=device):
                tracked = cudadsp.gnss.track(self.samples, FS, self.detections,
                                             device=device)
                self.assertEqual([t["satellite"] for t in tracked], [p for p, *_ in SKY])
                for sat, ((prn, _, doppler, cn0), t) in enumerate(zip(SKY, tracked)):
                    self.assertTrue(t["backend"].startswith(device.split(":")[0]))
                    epochs = len(t["start_sample"])
                    # One epoch per code period (1 ms) from the acquisition's start on.
                    self.assertGreater(epochs, int(SECONDS * 1000) - 25, prn)
                    settled = slice(epochs // 2, None)
                    # Each epoch starts at the first sample at or after the true code
                    # period edge: 0 <= start - edge < 1, give or take the tracking
                    # error (a quarter sample is 0.06 chip).
                    starts = t["start_sample"][settled]
                    edges = np.array([true_period_edge(self.sim, sat, float(n))
                                      for n in starts])
                    self.assertGreater(np.min(starts - edges), -0.25, prn)
                    self.assertLess(np.max(starts - edges), 1.25, prn)
                    self.assertLess(np.max(np.abs(t["doppler_hz"][settled] - doppler)),
                                    5.0, prn)
                    self.assertLess(abs(np.median(t["cn0_dbhz"][settled]) - cn0), 1.5,
                                    prn)
                    lock = cudadsp._engines.gnss_record_flag_carrier_lock
                    self.assertTrue(np.all(t["flags"][settled] & lock), prn)
                    # Carrier lock: the prompt's sign is the data bit, up to the
                    # Costas loop's 180-degree ambiguity.
                    middle = starts + 0.5 * FS / 1000.0
                    bits = np.array([self.sim.bit(sat, self.sim.bit_index(sat, float(n)))
                                     for n in middle])
                    agreement = np.mean(t["prompt_sign"][settled] == bits)
                    self.assertGreater(max(agreement, 1.0 - agreement), 0.99, prn)
                    self.assertEqual(t["correlations"].shape, (epochs, 3))

    def test_records_do_not_depend_on_how_the_stream_is_cut(self):
        whole = cudadsp.gnss.track(self.samples[:400_000], FS, self.detections,
                                   call_samples=400_000, device="cpu")
        cut = cudadsp.gnss.track(self.samples[:400_000], FS, self.detections,
                                 call_samples=3_333, device="cpu")
        for a, b in zip(whole, cut):
            np.testing.assert_array_equal(a["start_sample"], b["start_sample"])
            np.testing.assert_allclose(a["doppler_hz"], b["doppler_hz"], rtol=0, atol=1e-6)

    def test_interleaved_int16_gives_the_records_of_the_same_integers(self):
        sim = simulator(seed=5)
        iq = sim.generate_ci16(200_000, 300.0)
        as_complex = (iq[0::2].astype(np.float32) + 1j * iq[1::2]).astype(np.complex64)
        records = []
        for fmt, samples in (("ci16", iq), ("cf32", as_complex)):
            c = cudadsp.gnss.multichannel_correlator(FS, input_format=fmt, device="cpu")
            c.add_channel(id=1, prn=SKY[0][0], doppler_hz=SKY[0][2],
                          code_phase_chips=SKY[0][1])
            records.append(c.process(samples))
        np.testing.assert_array_equal(records[0][0]["start_sample"],
                                      records[1][0]["start_sample"])
        np.testing.assert_allclose(records[0][3], records[1][3], rtol=1e-5)
        self.assertGreater(np.abs(records[0][3][:, 1]).mean(), 0.0)

    def test_engine_reports_system_and_prn_of_each_record(self):
        c = cudadsp.gnss.multichannel_correlator(FS, device="cpu")
        c.add_channel({"id": 4, "system": "gps_l1ca", "prn": 17}, doppler_hz=-3250.0)
        c.add_channel(id=9, system="glonass_l1of", frequency_number=-2)
        records, system, prn, correlations = c.process(self.samples[:40_000])
        self.assertEqual(c.channel_ids(), [4, 9])
        self.assertEqual(set(records["channel_id"]), {4, 9})
        gps = records["channel_id"] == 4
        self.assertTrue(np.all(system[gps] == int(cudadsp.gnss_signal_system.gps_l1ca)))
        self.assertTrue(np.all(prn[gps] == 17))
        self.assertTrue(np.all(system[~gps] ==
                               int(cudadsp.gnss_signal_system.glonass_l1of)))
        self.assertEqual(correlations.shape, (len(records), 3))
        self.assertEqual(c.samples_processed(), 40_000)
        c.remove_channel(4)
        self.assertEqual(c.channel_ids(), [9])

    def test_bad_descriptions_are_named(self):
        c = cudadsp.gnss.multichannel_correlator(FS, device="cpu")
        for fields, error, key in (
                ({"prn": 3}, ValueError, "^id"),
                ({"id": 1, "prn": 40}, ValueError, "^prn"),
                ({"id": 1, "prn": True}, TypeError, "^prn"),
                ({"id": 1, "prn": 3, "doppler_hz": "1"}, TypeError, "^doppler_hz"),
                ({"id": 1, "prn": 3, "doppler_hz": 3e6}, ValueError, "^doppler_hz"),
                ({"id": 1, "prn": 3, "pll_bandwidhz": 5}, ValueError, "^pll_bandwidhz"),
                ({"id": 1, "prn": 3, "mode": "fast"}, ValueError, "^mode"),
                ({"id": 2 ** 40, "prn": 3}, ValueError, "^id"),
                ({"id": 1, "code": [1, 0, 1]}, ValueError, "^code")):
            with self.subTest(fields=fields):
                with self.assertRaisesRegex(error, key):
                    c.add_channel(**fields)
        self.assertEqual(c.channel_ids(), [])
        c.add_channel(id=1, prn=3)
        with self.assertRaisesRegex(ValueError, "id"):
            c.add_channel(id=1, prn=4)
        with self.assertRaisesRegex(ValueError, "given in the dict and as a keyword"):
            c.add_channel({"id": 2, "prn": 5}, prn=6)
        with self.assertRaisesRegex(ValueError, "tap_offsets_chips"):
            cudadsp.gnss.multichannel_correlator(FS, tap_offsets_chips=[])
        with self.assertRaisesRegex(ValueError, "max_channels"):
            cudadsp.gnss.multichannel_correlator(FS, max_channels=-1)
        with self.assertRaisesRegex(TypeError, "samples"):
            cudadsp.gnss.multichannel_correlator(FS, input_format="ci16").process(
                np.ones(8, np.float32))
        with self.assertRaisesRegex(ValueError, "signal"):
            cudadsp.gnss.track(self.samples[:4000], FS, self.detections, signal="beidou")
        with self.assertRaisesRegex(ValueError, "dll_bandwith_hz"):
            cudadsp.gnss.track(self.samples[:4000], FS, self.detections, device="cpu",
                               dll_bandwith_hz=1.0)


if __name__ == "__main__":
    data_files.run_tests()
