#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
cudadsp_gnss --signals galileo_e1: Galileo E1 alone, on a recording whose truth is
known: receiver_cases.mixed_scenario with four Galileo satellites (E03, E05, E10, E11,
the best geometry of those in view: PDOP 3.0) and no GPS one, 45 dB-Hz, their clocks
keeping GST 40 ns off GPS time, Klobuchar given up front, no troposphere, at 4 Msps
(two samples per BOC(1,1) sub-chip: the E1 search finds every satellite at its first
try there) as interleaved int16. Sample 0 lies 0.5 s before the page of word 1 (19.5 s
into an I/NAV sub-frame): words 1 and 3 come at 20 to 24 s, the GST on words 5 and 0 at
24 to 28 s, words 2 and 4 of the next sub-frame at 30 to 34 s, so the ephemerides are
complete 14.5 s into the recording and the first fix comes at the next epoch.

- Fixes: the first at the first epoch after word 4 (34 s into the sub-frame and a
  transit time), each with all four satellites, within 2 m 3-D of the truth (code noise
  of about 0.4 m through PDOP 3.0: 1.2 m), no inter-system bias, the time GST (the
  sample's GPS time plus the GGTO, within 10 ns).
- Files: EO and EN RINEX files (the EN header's GAL ionosphere and GAUT from words 5
  and 6), NMEA with the GA talker (GAGGA, one GAGSA, GAGSV) and good checksums;
  rnx2rtkp (-sys E) solving the two files within 2 m of our fixes (skipped, exit 77,
  without it).
- Bad --signals and --satellites are refused by name: exit 2 and 1, nothing written.

About 40 s of CPU here, 28 s of it making the recording.
'''

import argparse
import os
import sys
import tempfile
import unittest

import numpy

from cudadsp.gnss import receiver_cases as cases, receiver_checks
from cudadsp.gnss.receiver_checks import (RNX2RTKP_ABSENT, WEEK_S, nmea_checksum_ok,
                                          nmea_sentences, rnx2rtkp_solutions)

TOOL = None
FS = 4e6
GGTO_S = 40e-9
SUBFRAME_INTO_S = 19.5  # sample 0 in the I/NAV sub-frame
START_OFFSET_S = 0.45 + SUBFRAME_INTO_S  # from receiver_cases.START_TOW_S
SECONDS = 34.0 - SUBFRAME_INTO_S + 2.6  # two epochs after word 4
GALILEO_PRNS = (3, 5, 10, 11)
SEARCHED = ','.join(f'E{p:02d}' for p in range(1, 13))
SPEED_OF_LIGHT = 299792458.0


class qa_gnss_tool_galileo(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.case = cases.mixed_scenario(SECONDS, (), GALILEO_PRNS, GGTO_S, START_OFFSET_S,
                                        sample_rate_hz=FS)
        cls.truth = sorted(cls.case.satellite(s) for s in range(cls.case.satellite_count()))
        cls.folder = tempfile.TemporaryDirectory()
        cls.recording = os.path.join(cls.folder.name, 'galileo.ishort')
        cases.write_ci16(cls.recording, cls.case, SECONDS, sample_rate_hz=FS)
        cls.output = os.path.join(cls.folder.name, 'out')
        cls.status, cls.messages = cls.run_tool(cls.output, '--signals', 'galileo_e1',
                                                '--satellites', SEARCHED)
        cls.report = receiver_checks.report(cls.output)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    @classmethod
    def run_tool(cls, output, *more):
        return receiver_checks.run_tool(TOOL, cls.recording, output, FS, *more)

    def valid_fixes(self):
        self.assertEqual(self.status, 0, self.messages)
        return [f for f in self.report['fixes'] if f['valid']]

    def named(self, suffix):
        (name,) = [n for n in os.listdir(self.output) if n.endswith(suffix)]
        return os.path.join(self.output, name)

    def test_galileo_alone_fixes_the_truth(self):
        fixes = self.valid_fixes()
        self.assertGreaterEqual(len(fixes), 2, self.messages)
        self.assertEqual(self.report['settings']['signals'], ['galileo_e1'])
        transit_s = max(self.case.truth(s, 0.0)['geometric_range_m']
                        for s in range(self.case.satellite_count())) / SPEED_OF_LIGHT
        word_4_s = 34.0 - SUBFRAME_INTO_S + transit_s
        self.assertGreater(fixes[0]['signal_time_s'], word_4_s)
        self.assertLess(fixes[0]['signal_time_s'], word_4_s + 1.0)
        for fix in fixes:
            self.assertEqual(sorted(fix['satellites_used']), self.truth, fix)
            horizontal, three_d = cases.position_errors(fix['ecef_m'])
            self.assertLess(three_d, 2.0, fix)
            self.assertIsNone(fix['inter_system_bias_s'])  # NaN, in JSON null
            # From Galileo alone the time is GST: GPS time + GGTO.
            true_gst = (cases.START_TOW_S + START_OFFSET_S + fix['sample_index'] / FS
                        + GGTO_S)
            self.assertAlmostEqual(fix['gps_time_of_week_s'], true_gst,
                                   delta=3.0 / SPEED_OF_LIGHT)
            self.assertEqual(fix['gps_week'], cases.REFERENCE_WEEK)
        detected = sorted(d['satellite'] for d in self.report['detections'])
        self.assertEqual(detected, self.truth, 'each found once, at the first search')
        print(f'\n{len(fixes)} Galileo fixes from {fixes[0]["signal_time_s"]:.2f} s, 3-D '
              + ', '.join(f'{cases.position_errors(f["ecef_m"])[1]:.2f}' for f in fixes)
              + ' m')

    def test_galileo_files(self):
        fixes = self.valid_fixes()
        with open(self.named('_EO.rnx')) as f:
            observation = f.read()
        self.assertIn('3.04           OBSERVATION DATA    E', observation)
        self.assertNotRegex(observation, r'\nG\d\d ')
        with open(self.named('_EN.rnx')) as f:
            header = f.read().split('END OF HEADER')[0]
        self.assertIn('N: GNSS NAV DATA    E: GALILEO', header)
        self.assertIn('GAL    6.0000D+01', header)  # word 5's ai0 (60 sfu, nominal)
        self.assertIn('GAUT', header)
        self.assertEqual(sorted(receiver_checks.navigation_records(self.named('_EN.rnx'))),
                         self.truth)
        sentences = nmea_sentences(os.path.join(self.output, 'fixes.nmea'))
        self.assertTrue(all(nmea_checksum_ok(s) for s in sentences))
        fixed_gga = [s for s in sentences if s.startswith('$GAGGA') and ',1,04,' in s]
        self.assertEqual(len(fixed_gga), len(fixes))
        self.assertEqual(len([s for s in sentences if s.startswith('$GAGSA,A,3,')]),
                         len(fixes))
        self.assertTrue(any(s.startswith('$GAGSV') for s in sentences))
        self.assertFalse(any(s.startswith(('$GN', '$GPGSV')) for s in sentences))

    def test_rnx2rtkp_solves_the_galileo_files(self):
        fixes = self.valid_fixes()
        solutions = rnx2rtkp_solutions(self.named('_EO.rnx'), self.named('_EN.rnx'),
                                       self.folder.name, systems=('E',))
        if solutions is None:
            self.skipTest(RNX2RTKP_ABSENT)
        ours = {round(f['gps_time_of_week_s']) % WEEK_S: f for f in fixes}
        from_ours = [float(numpy.linalg.norm(p - ours[round(t) % WEEK_S]['ecef_m']))
                     for t, p in solutions if round(t) % WEEK_S in ours]
        self.assertEqual(len(from_ours), len(fixes))
        self.assertLess(max(from_ours), 2.0)
        print(f'\nrnx2rtkp (E): {len(solutions)} solutions, from our fixes '
              + ', '.join(f'{d:.2f}' for d in from_ours) + ' m')

    def test_bad_signals_and_satellites_are_refused_by_name(self):
        output = os.path.join(self.folder.name, 'refused')
        status, messages = self.run_tool(output, '--signals', 'glonass_l1of')
        self.assertEqual(status, 2, messages)
        self.assertIn("argument --signals: signals[0]: 'glonass_l1of' is not one of "
                      "gps_l1ca, galileo_e1", messages)
        status, messages = self.run_tool(output, '--signals', 'gps_l1ca,galileo_e1',
                                         '--satellites', '3,11')
        self.assertEqual(status, 1, messages)
        self.assertIn("satellites[0]: a bare PRN (3) names no system", messages)
        status, messages = self.run_tool(output, '--signals', 'galileo_e1',
                                         '--satellites', 'G05')
        self.assertEqual(status, 1, messages)
        self.assertIn("satellites[0]: 'G05' is not the id of a satellite of galileo_e1",
                      messages)
        self.assertNotIn('Traceback', messages)
        self.assertFalse(os.path.exists(output))


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--tool', required=True)
    arguments, rest = parser.parse_known_args()
    TOOL = arguments.tool
    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    sys.exit(receiver_checks.exit_status(program.result))
