#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""cudadsp.gnss.receive with GPS L1 C/A and Galileo E1 together, on the CPU correlator
(and on the CUDA one where a device is, its fixes held to the same checks), against the truth of receiver_cases.mixed_scenario: three GPS (G03, G05, G15) and three
Galileo satellites (E03, E04, E11) of the nominal constellations seen from Vienna at
45 dB-Hz in noise, the Galileo clocks keeping GST GGTO_S off GPS time, Klobuchar given
up front, no troposphere. Six satellites keep the recording short enough to make; they
are the three of each system with the best geometry (PDOP 2.1; 3 + 2 clocks leave one
degree of freedom). 2.048 Msps, the acquisition's floor: there the E1 search's lag grid
(half a chip) is coarse for the BOC(1,1) peak, and a satellite may be found at a wrong
Doppler (E03 and E04 here): its channel never locks, is dropped after lock_loss_s and
the satellite found on the next chunk, which the test lets happen before the messages
it needs (sample 0 lies 2.45 s before the GPS frame and the Galileo sub-frame). The
Galileo search is given E01 to E12 (all 36 take 20 s of CPU a search here).

- Fixes: the first at the first epoch after every Galileo word 5 arrived (26 s into
  the sub-frame, 28.45 s into the recording, and a transit time), each using all six
  satellites, within 3 m of the truth (3-D; horizontal 2 m); the inter-system bias is
  -GGTO within 5 ns, the GPS time the sample's within 10 ns.
- Files: the mixed RINEX observation file (MO, E lines) and navigation file (MN) whose
  Galileo records parse back to what the satellites broadcast, an earlier run's EO and
  MN files replaced; NMEA with the GN talker,
  a GSA per system and GSV per system (GP, GA); rnx2rtkp solving the mixed files (G,E)
  within 2 m of our fixes and 3 m of the truth (skipped, exit 77, without it).
- Every satellite is named by its id ("E04") in detections, events, channels.

About 45 s of CPU here: 33 s making the recording, 10 s the receiver."""

import os
import statistics
import sys
import tempfile
import unittest

import numpy

import cudadsp
from cudadsp.common.testing import backends
from cudadsp.gnss import receiver_cases as cases, receiver_checks
from cudadsp.gnss.receiver_checks import (RNX2RTKP_ABSENT, WEEK_S, navigation_records,
                                          nmea_checksum_ok, nmea_sentences,
                                          rnx2rtkp_solutions)

FS = cases.SAMPLE_RATE_HZ
GGTO_S = 40e-9  # GST - GPS time
START_OFFSET_S = -2.0  # sample 0: 2.45 s before the frame and the sub-frame
SUBFRAME_AT_S = 0.45 - START_OFFSET_S
SECONDS = SUBFRAME_AT_S + 28.2  # two epochs with both systems: 29.47 s and 30.47 s
GPS_PRNS = (3, 5, 15)
GALILEO_PRNS = (3, 4, 11)
SPEED_OF_LIGHT = 299792458.0
ICD_PI = 3.1415926535898
STALE = ("GRCD00XXX_R_20200010000_05M_01S_EO.rnx", "GRCD00XXX_R_20200010000_05M_MN.rnx")


class qa_receiver_galileo(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.case = cases.mixed_scenario(SECONDS, GPS_PRNS, GALILEO_PRNS, GGTO_S,
                                        START_OFFSET_S)
        cls.truth = {cls.case.satellite(s): s for s in range(cls.case.satellite_count())}
        cls.folder = tempfile.TemporaryDirectory()
        recording = cls.recording = os.path.join(cls.folder.name, "mixed.ishort")
        cases.write_ci16(recording, cls.case, SECONDS)
        cls.output = os.path.join(cls.folder.name, "out")
        # An earlier run's Galileo and mixed RINEX files under names this run does not
        # write: replaced too.
        os.makedirs(cls.output)
        for name in STALE:
            with open(os.path.join(cls.output, name), "w") as f:
                f.write("an earlier run\n")
        cls.result = cls.receive("cpu", cls.output)

    @classmethod
    def receive(cls, device, output_folder):
        searched = [f"G{p:02d}" for p in range(1, 33)] + [f"E{p:02d}" for p in range(1, 13)]
        return cudadsp.gnss.receive(
            cls.recording, FS, input_format="ishort", device=device,
            signals=("gps_l1ca", "galileo_e1"), satellites=searched,
            klobuchar=cases.KLOBUCHAR, troposphere="none",
            reference_week=cases.REFERENCE_WEEK, output_folder=output_folder)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def output_named(self, suffix):
        (name,) = [n for n in os.listdir(self.output) if n.endswith(suffix)]
        return os.path.join(self.output, name)

    def test_fixes_use_both_systems_and_lie_at_the_truth(self):
        self.check_fixes(self.result)

    def test_cuda_correlator_fixes_lie_at_the_truth(self):
        """The same recording through the CUDA correlator: the same checks."""
        for device in backends(self)[1:]:
            with self.subTest(device=device), tempfile.TemporaryDirectory() as folder:
                result = self.receive(device, folder)
                self.assertTrue(result.backend.startswith("cuda"), result.backend)
                self.check_fixes(result)

    def check_fixes(self, result):
        fixes = result.valid_fixes
        self.assertGreaterEqual(len(fixes), 2, result.fixes[-1]["reason"])
        # Word 5 ends 26 s into the sub-frame; the epochs before lack it (and GPS alone
        # cannot fix: 3 satellites).
        transit_s = max(self.case.truth(s, 0.0)["geometric_range_m"]
                        for s in self.truth.values()) / SPEED_OF_LIGHT
        word_5_s = SUBFRAME_AT_S + 26.0 + transit_s
        self.assertGreater(fixes[0]["signal_time_s"], word_5_s)
        self.assertLess(fixes[0]["signal_time_s"], word_5_s + 1.0)
        earlier = [f for f in result.fixes if f["signal_time_s"] < word_5_s]
        self.assertTrue(earlier and not any(f["valid"] for f in earlier))
        horizontal, three_d = [], []
        for fix in fixes:
            self.assertEqual(sorted(fix["satellites_used"]), sorted(self.truth), fix)
            self.assertEqual(fix["satellites_not_used"], [])
            h, d = cases.position_errors(fix["ecef_m"])
            horizontal.append(h)
            three_d.append(d)
            # Code noise of about 0.4 m a satellite (qa_gps_receiver, 45 dB-Hz) through
            # PDOP 2.1: about 0.9 m of 3-D error; 3 m is three of those.
            self.assertLess(h, 2.0, fix)
            self.assertLess(d, 3.0, fix)
            # The Galileo pseudoranges are c GGTO short: the Galileo clock is GPS's less
            # GGTO. Its noise: 0.4 m through this geometry's dilution of the clock
            # difference (0.91, from the truth geometry) is 1.2 ns; 5 ns is four of
            # those.
            self.assertAlmostEqual(fix["inter_system_bias_s"], -GGTO_S, delta=5e-9)
            true_tow = cases.START_TOW_S + START_OFFSET_S + fix["sample_index"] / FS
            self.assertAlmostEqual(fix["gps_time_of_week_s"], true_tow,
                                   delta=3.0 / SPEED_OF_LIGHT)
            self.assertEqual(fix["gps_week"], cases.REFERENCE_WEEK)
            self.assertTrue(fix["velocity_valid"])
            self.assertLess(numpy.linalg.norm(fix["velocity_m_s"]), 1.0)
        biases_ns = [f["inter_system_bias_s"] * 1e9 for f in fixes]
        print(f'\n{result.backend}: {len(fixes)} fixes from '
              f'{fixes[0]["signal_time_s"]:.2f} s: horizontal '
              f'{", ".join(f"{h:.2f}" for h in horizontal)} m, 3-D '
              f'{", ".join(f"{d:.2f}" for d in three_d)} m, inter-system bias '
              f'{", ".join(f"{b:.2f}" for b in biases_ns)} ns (GGTO {GGTO_S * 1e9:.0f} ns)')

    def test_satellites_are_named_by_id(self):
        found = {d["satellite"] for d in self.result.detections}
        self.assertLessEqual(set(self.truth), found)
        self.assertEqual(sorted(c["satellite"] for c in self.result.channels),
                         sorted(self.truth))
        for channel in self.result.channels:
            self.assertTrue(channel["time_known"], channel)
            self.assertEqual(channel["system"],
                             "gps" if channel["satellite"][0] == "G" else "galileo")
        galileo = [c for c in self.result.channels if c["system"] == "galileo"]
        self.assertEqual([c["crc_failures"] for c in galileo], [0] * len(galileo))
        # A satellite searched again after a wrong detection is "acquired" again, on a
        # new channel: every event names a satellite the recording holds or a false
        # alarm that never locked.
        for event in self.result.events:
            self.assertRegex(event["satellite"], r"^[GE]\d\d$")
            if event["satellite"] not in self.truth:
                self.assertIn(event.get("reason", "never_locked"), ("never_locked",))

    def test_mixed_rinex_files(self):
        names = sorted(os.listdir(self.output))
        self.assertFalse(set(STALE) & set(names), "an earlier run's RINEX files replaced")
        self.assertEqual(len([n for n in names if n.endswith(".rnx")]), 2, names)
        with open(self.output_named("_MO.rnx")) as f:
            observation = f.read()
        self.assertIn("3.04           OBSERVATION DATA    M", observation)
        self.assertIn("E    4 C1C L1C D1C S1C", observation)
        for satellite in self.truth:
            self.assertIn("\n" + satellite + " ", observation)
        records = navigation_records(self.output_named("_MN.rnx"))
        self.assertLessEqual({s for s in self.truth}, set(records))
        sent = {m.ephemeris.svid: m for m in cudadsp.gnss.galileo_nominal_constellation(
            cases.TOE_S, cases.GALILEO_IODNAV)}
        for prn in GALILEO_PRNS:
            e, w5 = sent[prn].ephemeris, sent[prn].iono_health
            expected = [e.af0, e.af1, e.af2, e.iodnav, e.crs, e.delta_n * ICD_PI,
                        e.m0 * ICD_PI, e.cuc, e.e, e.cus, e.sqrt_a, e.t0e, e.cic,
                        e.omega0 * ICD_PI, e.cis, e.i0 * ICD_PI, e.crc, e.omega * ICD_PI,
                        e.omega_dot * ICD_PI, e.idot * ICD_PI, 513, cases.REFERENCE_WEEK,
                        None, 3.12, 0, w5.bgd_e1_e5a, w5.bgd_e1_e5b]
            got = records[f"E{prn:02d}"]
            for k, value in enumerate(expected):
                if value is not None:
                    self.assertAlmostEqual(got[k], value, delta=abs(value) * 1e-12,
                                           msg=f"E{prn:02d} number {k}")
            # Transmitted within the recording, at an I/NAV sub-frame start (GST).
            start_tow = cases.START_TOW_S + START_OFFSET_S
            self.assertEqual(got[27] % 30.0, 0.0)
            self.assertLess(abs(got[27] - (start_tow + SUBFRAME_AT_S)), 30.5)

    def test_nmea_per_system(self):
        sentences = nmea_sentences(os.path.join(self.output, "fixes.nmea"))
        self.assertTrue(all(nmea_checksum_ok(s) for s in sentences))
        fixed_gga = [s for s in sentences if s.startswith("$GNGGA") and ",1,06," in s]
        self.assertEqual(len(fixed_gga), len(self.result.valid_fixes))
        gsa = [s for s in sentences if s.startswith("$GNGSA,A,3")]
        self.assertEqual(len(gsa), 2 * len(self.result.valid_fixes))
        self.assertTrue(gsa[0].split("*")[0].endswith(",1"))   # NMEA 4.10 system ids
        self.assertTrue(gsa[1].split("*")[0].endswith(",3"))
        self.assertIn(",03,04,11,", gsa[1])
        self.assertTrue(any(s.startswith("$GAGSV") for s in sentences))
        self.assertTrue(any(s.startswith("$GPGSV") for s in sentences))

    def test_rnx2rtkp_solves_the_mixed_files(self):
        fixes = self.result.valid_fixes
        solutions = rnx2rtkp_solutions(self.output_named("_MO.rnx"),
                                       self.output_named("_MN.rnx"), self.folder.name,
                                       systems=("G", "E"))
        if solutions is None:
            self.skipTest(RNX2RTKP_ABSENT)
        ours = {round(f["gps_time_of_week_s"]) % WEEK_S: f for f in fixes}
        from_truth, from_ours = [], []
        for tow, position in solutions:
            from_truth.append(cases.position_errors(position)[1])
            fix = ours.get(round(tow) % WEEK_S)
            if fix is not None:
                from_ours.append(float(numpy.linalg.norm(position - fix["ecef_m"])))
        self.assertEqual(len(from_ours), len(fixes))
        # The same code noise, weighted by elevation alone in RTKLIB (by C/N0 too in
        # ours): the two differ by about that noise.
        self.assertLess(max(from_ours), 2.0)
        self.assertLess(max(from_truth), 3.0)
        print(f'\nrnx2rtkp (G,E): {len(solutions)} solutions, from the truth median '
              f'{statistics.median(from_truth):.2f} m (largest {max(from_truth):.2f}); '
              f'from our fixes {", ".join(f"{d:.2f}" for d in from_ours)} m')


if __name__ == "__main__":
    program = unittest.main(exit=False, verbosity=2)
    sys.exit(receiver_checks.exit_status(program.result))
