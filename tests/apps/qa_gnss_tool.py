#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
cudadsp_gnss as a user runs it, on a recording whose truth is known: 22 s of the GPS
scenario of cudadsp.gnss.receiver_cases (qa_gps_receiver's: static receiver near
Vienna, nominal constellation above 10 degrees at 45 dB-Hz, Klobuchar ionosphere given
up front, no troposphere) at 2.048 Msps as interleaved int16, GNSS-SDR's "ishort".

- Fixes: each within 2 m horizontally and 3 m in 3-D of the true position, the medians
  within 1 m and 2 m (qa_gps_receiver measures 0.64 m and 1.37 m with the same loops);
  the first at 19.45 s of signal, when the fourth ephemeris is in; GPS time from the
  sample index; speed below 1 m/s.
- Files: the RINEX 3.04 observation and navigation files under their long names,
  NMEA sentences with good checksums, a GeoJSON point per fix, the report last.
- RTKLIB's rnx2rtkp (single point, broadcast ephemeris and ionosphere, troposphere off)
  reads the two RINEX files and solves every epoch, also those before our fourth
  ephemeris: each within 2 m horizontally and 3 m in 3-D of the truth (median 2 m),
  and within 2 m of our fix of the same epoch. Without rnx2rtkp (Debian package rtklib) that case is
  skipped and the test exits 77.
- An earlier run's RINEX files in the folder are replaced; --help shows the defaults
  of cudadsp.gnss.receive.
- A recording shorter than subframe 1 plus one: exit status 1, a message saying there
  is no fix and what the channels wait for, nothing written. A --format the tool does
  not know is refused, named.

Making the recording takes about a minute on one core (the scenario's exact carrier at
every sample); the tool then takes about ten seconds.
'''

import argparse
import inspect
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import unittest

import numpy

import cudadsp
from cudadsp.gnss import receiver_cases as cases, receiver_checks
from cudadsp.gnss.receiver_checks import (RNX2RTKP_ABSENT, WEEK_S, nmea_checksum_ok,
                                          nmea_sentences, rnx2rtkp_solutions)

TOOL = None
SECONDS = 22.0
FS = cases.SAMPLE_RATE_HZ
SPEED_OF_LIGHT = 299792458.0
STALE = ('GRCD00XXX_R_20200010000_05M_01S_GO.rnx', 'GRCD00XXX_R_20200010000_05M_GN.rnx')


class qa_gnss_tool(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        cls.recording = os.path.join(cls.folder.name, 'vienna.ishort')
        cases.write_ci16(cls.recording, cases.scenario(SECONDS), SECONDS)
        cls.output = os.path.join(cls.folder.name, 'out')
        # An earlier run's files, under names this run does not write: replaced too.
        os.makedirs(cls.output)
        for name in STALE:
            with open(os.path.join(cls.output, name), 'w') as f:
                f.write('an earlier run\n')
        cls.status, cls.messages = cls.run_tool(cls.recording, cls.output)
        cls.report = receiver_checks.report(cls.output)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    @staticmethod
    def run_tool(recording, output, *more):
        return receiver_checks.run_tool(TOOL, recording, output, FS, *more)

    def valid_fixes(self):
        self.assertEqual(self.status, 0, self.messages)
        return [f for f in self.report['fixes'] if f['valid']]

    def test_fixes_lie_at_the_truth(self):
        fixes = self.valid_fixes()
        self.assertGreaterEqual(len(fixes), 3, self.messages)
        # The fourth healthy ephemeris arrives at 18.5 s; the next epoch is 19.45 s.
        self.assertAlmostEqual(fixes[0]['signal_time_s'], 19.45, delta=0.01)
        horizontal, three_d = [], []
        for fix in fixes:
            h, d = cases.position_errors(fix['ecef_m'])
            horizontal.append(h)
            three_d.append(d)
            self.assertLess(h, 2.0, fix)
            self.assertLess(d, 3.0, fix)
            true_tow = cases.START_TOW_S + fix['sample_index'] / FS
            self.assertAlmostEqual(fix['gps_time_of_week_s'], true_tow,
                                   delta=1.5 * 3.0 / SPEED_OF_LIGHT)
            self.assertEqual(fix['gps_week'], cases.REFERENCE_WEEK)
            # The velocity comes from each channel's carrier NCO at the epoch, one 1-ms
            # update of the 15 Hz PLL: about 1 Hz (0.2 m/s) of noise per satellite, a
            # few tenths of a m/s with the geometry's PDOP of about 2.
            self.assertTrue(fix['velocity_valid'])
            self.assertLess(numpy.linalg.norm(fix['velocity_m_s']), 1.0)
            self.assertTrue(fix['ionosphere_applied'])
            self.assertGreaterEqual(len(fix['satellites_used']), 7)
        self.assertLess(statistics.median(horizontal), 1.0)
        self.assertLess(statistics.median(three_d), 2.0)
        print(f'\n{len(fixes)} fixes: horizontal {", ".join(f"{h:.2f}" for h in horizontal)}'
              f' m (median {statistics.median(horizontal):.2f}), 3-D '
              f'{", ".join(f"{d:.2f}" for d in three_d)} m (median '
              f'{statistics.median(three_d):.2f})')

    def test_outputs_are_written_whole(self):
        fixes = self.valid_fixes()
        names = sorted(os.listdir(self.output))
        observation = [n for n in names if n.endswith('_GO.rnx')]
        navigation = [n for n in names if n.endswith('_GN.rnx')]
        self.assertEqual(len(observation), 1, names)
        self.assertEqual(len(navigation), 1, names)
        self.assertRegex(observation[0], r'^GRCD00XXX_R_\d{11}_01M_01S_GO\.rnx$')
        self.assertEqual(sorted(os.path.basename(p) for p in self.report['outputs']), names)
        self.assertFalse(set(STALE) & set(names), 'an earlier run\'s RINEX files replaced')
        with open(os.path.join(self.output, observation[0])) as f:
            text = f.read()
        self.assertIn('3.04           OBSERVATION DATA    G', text)
        self.assertEqual(text.count('\n> '), len(self.report['fixes']))
        sentences = nmea_sentences(os.path.join(self.output, 'fixes.nmea'))
        self.assertTrue(all(nmea_checksum_ok(s) for s in sentences))
        good_gga = [s for s in sentences if s.startswith('$GPGGA') and ',1,' in s]
        self.assertEqual(len(good_gga), len(fixes))
        with open(os.path.join(self.output, 'track.geojson')) as f:
            track = json.load(f)
        points = [f for f in track['features'] if f['geometry']['type'] == 'Point']
        self.assertEqual(len(points), len(fixes))
        lon, lat, height = points[-1]['geometry']['coordinates']
        self.assertAlmostEqual(lat, fixes[-1]['latitude_deg'], places=7)
        self.assertAlmostEqual(lon, fixes[-1]['longitude_deg'], places=7)

    def test_rnx2rtkp_solves_our_rinex_to_the_truth(self):
        fixes = self.valid_fixes()
        names = os.listdir(self.output)
        observation = next(n for n in names if n.endswith('_GO.rnx'))
        navigation = next(n for n in names if n.endswith('_GN.rnx'))
        solutions = rnx2rtkp_solutions(os.path.join(self.output, observation),
                                       os.path.join(self.output, navigation),
                                       self.folder.name)
        if solutions is None:
            self.skipTest(RNX2RTKP_ABSENT)
        ours = {round(f['gps_time_of_week_s']) % WEEK_S: f for f in fixes}
        # rnx2rtkp reads every ephemeris of the file before it solves, so it also solves
        # the epochs observed before our fourth ephemeris arrived.
        self.assertGreaterEqual(len(solutions), len(self.report['fixes']))
        horizontal, from_truth, from_ours = [], [], []
        for tow, position in solutions:
            h, d = cases.position_errors(position)
            horizontal.append(h)
            from_truth.append(d)
            fix = ours.get(round(tow) % WEEK_S)
            if fix is not None:
                from_ours.append(float(numpy.linalg.norm(position - numpy.array(fix['ecef_m']))))
        self.assertEqual(len(from_ours), len(fixes))
        # Our fixes' bounds: the same code noise, weighted by elevation alone in RTKLIB
        # (by C/N0 too in ours), so the two differ by about that noise.
        self.assertLess(max(horizontal), 2.0)
        self.assertLess(max(from_truth), 3.0)
        self.assertLess(statistics.median(from_truth), 2.0)
        self.assertLess(max(from_ours), 2.0)
        print(f'\nrnx2rtkp: {len(solutions)} solutions, from the truth horizontal '
              f'{", ".join(f"{h:.2f}" for h in horizontal)} m, 3-D '
              f'{", ".join(f"{d:.2f}" for d in from_truth)} m (median '
              f'{statistics.median(from_truth):.2f}); from our fixes '
              f'{", ".join(f"{d:.2f}" for d in from_ours)} m')

    def test_short_recording_makes_no_fix_and_writes_nothing(self):
        short = os.path.join(self.folder.name, 'short.ishort')
        # 5 s: bit sync done, subframe 1 (0.45 s to 6.45 s) not complete.
        with open(self.recording, 'rb') as source, open(short, 'wb') as f:
            f.write(source.read(int(5.0 * FS) * 4))
        output = os.path.join(self.folder.name, 'short_out')
        status, messages = self.run_tool(short, output)
        self.assertEqual(status, 1, messages)
        self.assertRegex(messages, r'cudadsp_gnss: ERROR: no fix in .*short\.ishort '
                                   r'\(no observation epoch; waiting for: G\d\d: ')
        self.assertNotIn('Traceback', messages)
        self.assertFalse(os.path.exists(output))

    def test_help_shows_the_library_defaults(self):
        completed = subprocess.run([sys.executable, TOOL, '--help'], capture_output=True,
                                   text=True, timeout=60)
        self.assertEqual(completed.returncode, 0, completed.stderr)
        text = ' '.join(completed.stdout.split())
        defaults = inspect.signature(cudadsp.gnss.receive).parameters
        for option, name in (('--troposphere', 'troposphere'),
                             ('--elevation-mask', 'elevation_mask_deg'),
                             ('--interval-ms', 'interval_ms'),
                             ('--reacquire-interval', 'reacquire_interval_s'),
                             ('--device', 'device')):
            self.assertRegex(text, re.escape(option) + r' .*?\(default '
                             + re.escape(str(defaults[name].default)) + r'\)')
        self.assertRegex(text, r'--signals .*?\(default '
                         + re.escape(','.join(defaults['signals'].default)) + r'\)')

    def test_unknown_format_is_refused_by_name(self):
        status, messages = self.run_tool(self.recording, os.path.join(self.folder.name,
                                                                      'x'), '--format', 'cs16')
        self.assertEqual(status, 2, messages)
        self.assertRegex(messages, r"argument --format: 'cs16' is not one of cf32, ci16, "
                                   r"ci8, gr_complex, ishort, byte")


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--tool', required=True)
    arguments, rest = parser.parse_known_args()
    TOOL = arguments.tool
    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    sys.exit(receiver_checks.exit_status(program.result))
