#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The gnss_receiver hierarchical block end to end (CPU backend), every block real:
a File Source of 22 s of the GPS scenario of cudadsp.gnss.receiver_cases (the engine
tests' scenario: static receiver near Vienna, nominal constellation above 10 degrees at
45 dB-Hz, Klobuchar ionosphere given up front, no troposphere) at 2.048 Msps as
interleaved int16 -> acquisition -> correlator -> telemetry decoder -> observables ->
PVT, fixes collected from the "fix" port.

* Fixes: the first at 19.45 s of signal (the epoch after the fourth ephemeris), each
  within 2 m horizontally and 3 m in 3-D of the truth, the medians within 1 m and 2 m
  (qa_gps_receiver's bounds for these loops), GPS time from the sample index, every
  visible satellite used, the GPS week the reference's.
* Files: the RINEX 3.04 observation file read back (one epoch per fix message, each
  satellite's C1C the truth's pseudorange up to one receiver clock bias, within the
  code noise), the navigation file with every visible satellite's ephemeris, one NMEA
  GGA per fix, a GeoJSON point per fix.

Making the recording takes about a minute and a half on this 2-core machine (the
scenario's exact carrier at every sample); the flowgraph then runs for about 6 s
(printed: 22 s of signal, four times faster than real time on the CPU).
"""

import glob
import json
import math
import os
import statistics
import sys
import tempfile
import time

import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import cudadsp
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp
from cudadsp.gnss import receiver_cases as cases

SECONDS = 22.0
FS = cases.SAMPLE_RATE_HZ
SPEED_OF_LIGHT = 299792458.0


def rinex_pseudoranges(text):
    """(seconds of the epoch line, {prn: C1C}) per epoch of a RINEX 3.04 observation
    file (C1C first on each satellite line, F14.3)."""
    epochs = []
    body = text.split("END OF HEADER\n", 1)[1]
    for line in body.splitlines():
        if line.startswith("> "):
            epochs.append((float(line[19:30]), {}))
        elif line.startswith("G"):
            epochs[-1][1][int(line[1:3])] = float(line[3:17])
    return epochs


class qa_gnss_receiver_fix(gr_unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        cls.case = cases.scenario(SECONDS)
        cls.recording = os.path.join(cls.folder.name, "gps.ci16")
        cases.write_ci16(cls.recording, cls.case, SECONDS)
        cls.output = os.path.join(cls.folder.name, "out")
        visible = [cls.case.prn(s) for s in range(cls.case.satellite_count())]
        cls.visible = visible

        tb = gr.top_block()
        source = blocks.file_source(2 * gr.sizeof_short, cls.recording, False)
        cls.receiver = cudadsp.gnss_receiver(
            FS, input_type="sc", satellites=visible, doppler_max_hz=5000.0,
            output_folder=cls.output, troposphere=False, klobuchar=cases.KLOBUCHAR,
            reference_week=cases.REFERENCE_WEEK, device="cpu", stream_mode="recording")
        debug = blocks.message_debug()
        tb.connect(source, cls.receiver)
        tb.msg_connect((cls.receiver, "fix"), (debug, "store"))
        start = time.monotonic()
        tb.run()
        cls.wall_s = time.monotonic() - start
        cls.fixes = [pmt.to_python(debug.get_message(i))
                     for i in range(debug.num_messages())]
        print(f"\n{SECONDS} s of signal through gnss_receiver (CPU): {cls.wall_s:.1f} s, "
              f"{len(cls.fixes)} epochs")

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def valid_fixes(self):
        return [f for f in self.fixes if f["valid"]]

    def test_fixes_lie_at_the_truth(self):
        fixes = self.valid_fixes()
        self.assertGreaterEqual(len(fixes), 3, [f["reason"] for f in self.fixes])
        # The fourth ephemeris arrives at 18.5 s; the next epoch is at 19.45 s.
        self.assertAlmostEqual(fixes[0]["sample_index"] / FS, 19.45, delta=0.01)
        for f in self.fixes[:self.fixes.index(fixes[0])]:
            self.assertIn("no ephemeris yet", f["reason"])
        horizontal, three_d = [], []
        for fix in fixes:
            h, d = cases.position_errors(fix["ecef_m"])
            horizontal.append(h)
            three_d.append(d)
            self.assertLess(h, 2.0, fix)
            self.assertLess(d, 3.0, fix)
            true_tow = cases.START_TOW_S + fix["sample_index"] / FS
            self.assertAlmostEqual(fix["gps_time_of_week_s"], true_tow,
                                   delta=1.5 * 3.0 / SPEED_OF_LIGHT)
            self.assertEqual(fix["gps_week"], cases.REFERENCE_WEEK)
            self.assertTrue(fix["ionosphere_applied"])
            self.assertEqual(sorted(fix["satellites"]),
                             sorted("G%02d" % prn for prn in self.visible))
            self.assertEqual(fix["excluded"], [])
            self.assertTrue(math.isnan(fix["inter_system_bias_s"]))  # GPS alone
            self.assertEqual(fix["satellites_used"], len(self.visible))
            # PDOP^2 = HDOP^2 + VDOP^2 by definition; 9 satellites give a PDOP of 1 to 3.
            self.assertAlmostEqual(fix["pdop"] ** 2, fix["hdop"] ** 2 + fix["vdop"] ** 2)
            self.assertTrue(1.0 < fix["pdop"] < 3.0 and fix["pdop"] < fix["gdop"], fix)
        self.assertLess(statistics.median(horizontal), 1.0)
        self.assertLess(statistics.median(three_d), 2.0)
        print(f"{len(fixes)} fixes: horizontal "
              f"{', '.join(f'{h:.2f}' for h in horizontal)} m, 3-D "
              f"{', '.join(f'{d:.2f}' for d in three_d)} m")

    def test_rinex_reads_back(self):
        fixes = self.valid_fixes()
        self.assertGreaterEqual(len(fixes), 3)
        self.assertEqual(len(self.receiver.output_files()), 4)
        (observation,) = glob.glob(os.path.join(self.output, "*_GO.rnx"))
        (navigation,) = glob.glob(os.path.join(self.output, "*_GN.rnx"))
        with open(observation) as f:
            text = f.read()
        self.assertIn("3.04           OBSERVATION DATA    G", text)
        epochs = rinex_pseudoranges(text)
        self.assertEqual(len(epochs), len(self.fixes))
        for (seconds, ranges), fix in zip(epochs, self.fixes):
            self.assertAlmostEqual(seconds, fix["receiver_time_s"] % 60.0, places=6)
            self.assertEqual(sorted(ranges), sorted(self.visible))
            bias = [ranges[self.case.prn(s)] -
                    self.case.truth(s, fix["sample_index"])["pseudorange_m"]
                    for s in range(self.case.satellite_count())]
            # One receiver clock bias for all, up to the code noise (about 0.4 m a
            # satellite at 45 dB-Hz with these loops).
            self.assertLess(max(bias) - min(bias), 4.0, bias)
        with open(navigation) as f:
            nav = f.read()
        self.assertIn("N: GNSS NAV DATA", nav)
        for prn in self.visible:
            self.assertIn(f"\nG{prn:02d} ", nav)
        with open(os.path.join(self.output, "fixes.nmea"), newline="") as f:
            sentences = f.read().split("\r\n")[:-1]
        good_gga = [s for s in sentences if s.startswith("$GPGGA") and ",1," in s]
        self.assertEqual(len(good_gga), len(fixes))
        with open(os.path.join(self.output, "track.geojson")) as f:
            track = json.load(f)
        points = [p for p in track["features"] if p["geometry"]["type"] == "Point"]
        self.assertEqual(len(points), len(fixes))
        lon, lat, _ = points[-1]["geometry"]["coordinates"]
        self.assertAlmostEqual(lat, fixes[-1]["latitude_deg"], places=7)
        self.assertAlmostEqual(lon, fixes[-1]["longitude_deg"], places=7)


if __name__ == "__main__":
    gr_unittest.run(qa_gnss_receiver_fix)
