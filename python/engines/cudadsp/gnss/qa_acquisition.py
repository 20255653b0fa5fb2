#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of cudadsp.gnss.acquire against known truth: simulated GPS L1 C/A satellites
(cudadsp.gnss_signal_simulator) with known code phase, Doppler and C/N0 must be found
there and absent PRNs not found; a truncated recording and bad satellites are refused by
name. On the CPU, and on CUDA too where a device is present."""

import unittest

import numpy as np

import cudadsp
from cudadsp.common import data_files
from cudadsp.common.testing import backends

FS = 4e6
# (PRN, code phase at sample 0 in chips, Doppler Hz, C/N0 dB-Hz)
PRESENT = [(3, 200.5, 1750.0, 48.0), (17, 900.25, -3250.0, 46.0)]
ABSENT = [5, 30]



def recording(nsamples):
    config = cudadsp.gnss_simulator_config()
    config.sample_rate_hz = FS
    config.noise_power = 1.0
    config.seed = 21
    satellites = []
    for prn, phase, doppler, cn0 in PRESENT:
        s = cudadsp.gnss_simulated_satellite()
        s.code = cudadsp.gps_l1ca_code(prn)
        s.code_phase_chips = phase
        s.doppler_hz = doppler
        s.cn0_dbhz = cn0
        satellites.append(s)
    return cudadsp.gnss_signal_simulator(config, satellites).generate(nsamples)


def chip_distance(a, b, length=1023):
    d = abs(a - b) % length
    return min(d, length - d)


class qa_acquisition(unittest.TestCase):

    def test_simulated_satellites_are_found_where_they_are(self):
        samples = recording(int(FS * 0.012))
        prns = [p for p, *_ in PRESENT] + ABSENT
        for device in backends(self):
            with self.subTest(device=device):
                found = cudadsp.gnss.acquire(samples, FS, satellites=prns, device=device)
                self.assertEqual([d["satellite"] for d in found], prns)
                for (prn, phase, doppler, cn0), d in zip(PRESENT, found):
                    self.assertTrue(d["detected"], d)
                    self.assertLess(abs(d["doppler_hz"] - doppler), 125.0, d)
                    self.assertLess(chip_distance(d["code_phase_chips"], phase), 0.1, d)
                    self.assertLess(abs(d["cn0_dbhz"] - cn0), 1.5, d)
                    self.assertGreater(d["metric"], d["threshold"])
                for d in found[len(PRESENT):]:
                    self.assertFalse(d["detected"], d)

    def test_every_satellite_by_default(self):
        samples = recording(int(FS * 0.010))
        found = cudadsp.gnss.acquire(samples, FS, device="cpu")
        self.assertEqual([d["satellite"] for d in found], list(range(1, 33)))
        self.assertEqual({d["satellite"] for d in found if d["detected"]},
                         {p for p, *_ in PRESENT})

    def test_bad_arguments_are_named(self):
        samples = recording(int(FS * 0.010))
        with self.assertRaisesRegex(ValueError, "samples"):
            cudadsp.gnss.acquire(samples[:1000], FS, satellites=[3], device="cpu")
        with self.assertRaisesRegex(ValueError, "satellites"):
            cudadsp.gnss.acquire(samples, FS, satellites=[40], device="cpu")
        with self.assertRaisesRegex(ValueError, "sample_rate_hz"):
            cudadsp.gnss.acquire(samples, 1e6, satellites=[3], device="cpu")
        with self.assertRaisesRegex(ValueError, "signal"):
            cudadsp.gnss.acquire(samples, FS, signal="beidou", device="cpu")


if __name__ == "__main__":
    data_files.run_tests()
