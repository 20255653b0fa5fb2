#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of cudadsp.gnss.receive on the GPS scenario of receiver_cases (the truth of
every satellite at every sample): a recording shorter than subframe 1 finds the visible
satellites at their true Doppler, makes no fix, writes nothing and says what each
channel waits for; int16 I/Q from an array and from a file (GNSS-SDR's "ishort") give
the same run; bad input (signals and satellites too) is refused by name. The fixes
themselves, against the truth and RTKLIB, are tests/apps/qa_gnss_tool.py's (their 22 s
recording takes a minute to make), with Galileo qa_receiver_galileo's and
tests/apps/qa_gnss_tool_galileo.py's. On the CPU, and on CUDA too where a device is
present."""

import os
import tempfile
import unittest

import numpy as np

import cudadsp
from cudadsp.common import data_files
from cudadsp.common.testing import backends
from cudadsp.gnss import receiver_cases as cases

FS = cases.SAMPLE_RATE_HZ
SECONDS = 2.0


class qa_receiver(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.case = cases.scenario(SECONDS)
        cls.iq = cls.case.signal().generate_ci16(int(SECONDS * FS), cases.CI16_SCALE)
        # By their ids ("G05"), as receive() names them.
        cls.visible = [cls.case.satellite(s) for s in range(cls.case.satellite_count())]

    def test_short_recording_tracks_and_says_what_it_waits_for(self):
        for device in backends(self):
            with self.subTest(device=device), tempfile.TemporaryDirectory() as folder:
                statuses = []
                out = os.path.join(folder, "out")
                result = cudadsp.gnss.receive(self.iq, FS, device=device,
                                              output_folder=out, progress=statuses.append)
                self.assertEqual(result.fixes, [])
                self.assertEqual(result.outputs, [])
                self.assertFalse(os.path.exists(out), "nothing written without a fix")
                self.assertTrue(result.backend.startswith(device.split(":")[0]))
                found = {d["satellite"]: d for d in result.detections}
                self.assertLessEqual(set(self.visible), set(found))
                for sat, satellite in enumerate(self.visible):
                    detection = found[satellite]
                    truth = self.case.truth(sat, float(detection["start_sample"]))
                    # Half the acquisition's 500 Hz Doppler step.
                    self.assertLess(abs(detection["doppler_hz"] - truth["doppler_hz"]),
                                    250.0, satellite)
                # Subframe 1 ends at 6.45 s: every channel has found the bit edges
                # (0.5 s of prompts once its carrier is locked: the FLL assist pulls in
                # an acquisition's Doppler error of up to half a 500 Hz bin within a
                # few tenths of a second) and waits for a subframe.
                for satellite in self.visible:
                    self.assertRegex(result.waiting_for,
                                     f"{satellite}: subframe synchronisation")
                times = [s["signal_time_s"] for s in statuses]
                self.assertEqual(times, sorted(times))
                self.assertAlmostEqual(times[-1], SECONDS, places=6)
                self.assertLessEqual(set(self.visible),
                                     set(statuses[-1]["satellites_tracked"]))

    def test_int16_array_and_ishort_file_give_the_same_run(self):
        one_second = self.iq[:int(FS) * 2]  # two int16 values a sample
        from_array = cudadsp.gnss.receive(one_second, FS, device="cpu")
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "one_second.ishort")
            one_second.tofile(path)
            from_file = cudadsp.gnss.receive(path, FS, input_format="ishort",
                                             device="cpu")
        self.assertEqual(from_array.detections, from_file.detections)
        self.assertEqual(from_array.channels, from_file.channels)
        self.assertGreater(min(c["records"] for c in from_file.channels), 900)

    def test_bad_input_is_named(self):
        with self.assertRaisesRegex(ValueError, "input_format: 'cs8'"):
            cudadsp.gnss.receive(self.iq[:2000], FS, input_format="cs8")
        with self.assertRaisesRegex(TypeError, "samples: dtype float64"):
            cudadsp.gnss.receive(np.zeros(2000), FS)
        with self.assertRaisesRegex(ValueError, "sample_rate_hz"):
            cudadsp.gnss.receive(self.iq[:2000], 0.0)
        for bad in (-1.0, float("nan"), float("inf")):
            with self.assertRaisesRegex(ValueError, "lock_loss_s"):
                cudadsp.gnss.receive(self.iq[:2000], FS, lock_loss_s=bad)
        both = ("gps_l1ca", "galileo_e1")
        for signals, satellites, message in (
                (("glonass_l1of",), None, r"signals\[0\]: 'glonass_l1of' is not one of"),
                (("gps_l1ca", "gps_l1ca"), None, "signals: 'gps_l1ca' is given twice"),
                ((), None, "signals: name one or more"),
                (both, [5], r"satellites\[0\]: a bare PRN \(5\) names no system"),
                (both, ["G05", "E51"], r"satellites\[1\]: galileo_e1 PRNs are 1 to 50"),
                (both, ["E11", "E11"], r"satellites\[1\]: E11 is given twice"),
                (("galileo_e1",), ["G05"], r"satellites\[0\]: 'G05' is not the id"),
                (("gps_l1ca",), [33], r"satellites\[0\]: gps_l1ca PRNs are 1 to 32")):
            with self.assertRaisesRegex(ValueError, message):
                cudadsp.gnss.receive(self.iq[:2000], FS, signals=signals,
                                     satellites=satellites)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "odd.ci16")
            self.iq[:2001].tofile(path)  # half a complex sample at the end
            with self.assertRaisesRegex(ValueError, "not a whole number of ci16"):
                cudadsp.gnss.receive(path, FS, input_format="ci16")

    def test_receiver_refuses_records_of_a_channel_without_a_prn(self):
        correlator = cudadsp.gnss.multichannel_correlator(FS, input_format="ci16",
                                                          device="cpu")
        correlator.add_channel(id=7, prn=self.case.prn(0))
        records, _, _, correlations = correlator.process(self.iq[:int(0.01 * FS) * 2])
        receiver = cudadsp.gnss.gps_receiver(FS)
        with self.assertRaisesRegex(ValueError, "channel 7"):
            receiver.process(records, correlations, correlator.samples_processed())


if __name__ == "__main__":
    data_files.run_tests()
