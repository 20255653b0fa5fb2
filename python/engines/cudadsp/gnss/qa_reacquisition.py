#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of cudadsp.gnss.receive's re-acquisition on the GPS scenario of
receiver_cases, made with a satellite's contribution taken out (its signal alone,
satellite_alone, subtracted): one satellite fades for 2 s after the first fix
(FADING_FROM_S to FADING_TO_S) and one rises only after the first search (absent
until RISING_AT_S). With searches every second and the default lock_loss_s (1 s):

- the fading satellite is lost (lock_lost) 1 s after its code lock goes off, found
  again by the first search after it is back, on a new channel, and used in fixes
  again after its next subframe, within the fixes' bounds of the truth: with the
  ephemeris decoded before the gap (a new one needs 18 s of subframes 1 to 3);
- the rising satellite is found by the first periodic search after it rises, at its
  true Doppler, and tracked;
- the other visible satellites keep their channels; a satellite that is not visible
  may be found (a false alarm of the searches: 5 in the 38 here) but never locks
  and is dropped (never_locked); the events, in signal order, reach the
  progress callback and the report (receiver.json).

About 85 s on this machine (2 cores shared): the recording takes about 60 s to
make on one core, the receiver about 20 s. CPU only:
the CUDA paths of acquisition and correlator are qa_receiver's."""

import copy
import json
import os
import tempfile
import unittest

from cudadsp.common import data_files
import cudadsp
from cudadsp.gnss import receiver_cases as cases

FS = cases.SAMPLE_RATE_HZ
SECONDS = 38.0
# Just after the first fix (19.45 s). Found again at 22 s, in lock at 22.2 s, the
# satellite's time mark comes from the subframe at 30.45 s, confirmed by the one at
# 36.45 s (gps_navigation_channel): used again in the fix at 37.45 s.
FADING_FROM_S, FADING_TO_S = 19.5, 21.5
RISING_AT_S = 2.5
SEARCH_INTERVAL_S = 1.0
# The C/N0 window (50 ms) in which code lock is decided, and one for the estimate.
LOCK_DECISION_S = 0.1


class qa_reacquisition(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        case = cases.scenario(SECONDS)
        # Satellites by their ids ("G05"), as receive() names them.
        visible = [case.satellite(s) for s in range(case.satellite_count())]
        cls.fading, cls.rising = visible[1], visible[-1]
        cls.truth = {case.satellite(s): s for s in range(case.satellite_count())}
        cls.case = case
        cls.folder = tempfile.TemporaryDirectory()
        recording = os.path.join(cls.folder.name, "fading_and_rising.ishort")
        alone = {sat: cases.satellite_alone(case.prn(cls.truth[sat]), SECONDS)
                 for sat in (cls.fading, cls.rising)}
        cases.write_ci16(recording, case, SECONDS, absences=[
            (alone[cls.fading], FADING_FROM_S, FADING_TO_S),
            (alone[cls.rising], 0.0, RISING_AT_S)])
        cls.statuses = []
        cls.output = os.path.join(cls.folder.name, "out")
        cls.result = cudadsp.gnss.receive(
            recording, FS, input_format="ishort", device="cpu",
            klobuchar=cases.KLOBUCHAR, troposphere="none",
            reference_week=cases.REFERENCE_WEEK, reacquire_interval_s=SEARCH_INTERVAL_S,
            output_folder=cls.output,
            progress=lambda status: cls.statuses.append(copy.deepcopy(status)))

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def events_of(self, satellite):
        return [e for e in self.result.events if e["satellite"] == satellite]

    def test_fading_satellite_is_lost_found_again_and_used(self):
        lost, found = self.events_of(self.fading)
        self.assertEqual((lost["event"], lost["reason"]), ("lost", "lock_lost"))
        self.assertGreaterEqual(lost["signal_time_s"], FADING_FROM_S + 1.0)
        self.assertLessEqual(lost["signal_time_s"], FADING_FROM_S + 1.0 + LOCK_DECISION_S)
        self.assertEqual(found["event"], "reacquired")
        self.assertGreaterEqual(found["signal_time_s"], FADING_TO_S)
        self.assertLessEqual(found["signal_time_s"], FADING_TO_S + SEARCH_INTERVAL_S + 0.1)
        self.assertNotEqual(found["channel"], lost["channel"])
        truth = self.case.truth(self.truth[self.fading], float(found["sample"]))
        detection = [d for d in self.result.detections if d["satellite"] == self.fading]
        self.assertEqual([d["start_sample"] for d in detection][-1], found["sample"])
        self.assertLess(abs(detection[-1]["doppler_hz"] - truth["doppler_hz"]), 250.0)

        fixes = self.result.valid_fixes
        used = [self.fading in f["satellites_used"] for f in fixes]
        times = [f["signal_time_s"] for f in fixes]
        self.assertTrue(used[0], "used in the first fix, before the gap")
        gone = [u for u, t in zip(used, times) if FADING_FROM_S + 1.0 < t < FADING_TO_S]
        self.assertTrue(gone and not any(gone), "not used while absent")
        again = [f for f, u in zip(fixes, used) if u and f["signal_time_s"] > FADING_TO_S]
        self.assertTrue(again, "used again after its next subframe")
        for fix in again:
            horizontal, three_d = cases.position_errors(fix["ecef_m"])
            self.assertLess(horizontal, 2.0)
            self.assertLess(three_d, 3.0)
        # Every visible satellite in the last fix but the rising one, whose subframe 1
        # went by before it rose (no ephemeris until the next frame's, at 48.45 s).
        self.assertEqual(set(fixes[-1]["satellites_used"]), set(self.truth) - {self.rising})
        self.assertIn((self.rising, "no ephemeris yet"), fixes[-1]["satellites_not_used"])

    def test_rising_satellite_is_found_by_the_periodic_search(self):
        self.assertNotIn(self.rising, [d["satellite"] for d in self.result.detections
                                       if d["start_sample"] == 0])
        (found,) = self.events_of(self.rising)
        self.assertEqual(found["event"], "acquired")
        self.assertGreaterEqual(found["signal_time_s"], RISING_AT_S)
        self.assertLessEqual(found["signal_time_s"], RISING_AT_S + SEARCH_INTERVAL_S + 0.1)
        (detection,) = [d for d in self.result.detections if d["satellite"] == self.rising]
        truth = self.case.truth(self.truth[self.rising], float(detection["start_sample"]))
        self.assertLess(abs(detection["doppler_hz"] - truth["doppler_hz"]), 250.0)
        self.assertIn(self.rising, self.statuses[-1]["satellites_tracked"])

    def test_no_other_events_and_all_are_reported(self):
        others = [e for e in self.result.events if e["satellite"] in self.truth
                  and e["satellite"] not in (self.fading, self.rising)]
        self.assertEqual(others, [])
        false_alarms = [e for e in self.result.events if e["satellite"] not in self.truth]
        for e in false_alarms:
            self.assertIn(e["event"] if e["event"] == "acquired" else e["reason"],
                          ("acquired", "never_locked"))
        self.assertFalse({e["satellite"] for e in false_alarms} & {
            p for f in self.result.fixes for p in f["satellites_used"]})
        self.assertEqual([e for s in self.statuses for e in s["events"]],
                         self.result.events)
        times = [e["signal_time_s"] for e in self.result.events]
        self.assertEqual(times, sorted(times))
        with open(os.path.join(self.output, "receiver.json")) as f:
            self.assertEqual(json.load(f)["events"], self.result.events)
        self.assertLessEqual(set(self.truth),
                             {c["satellite"] for c in self.result.channels})


if __name__ == "__main__":
    data_files.run_tests()
