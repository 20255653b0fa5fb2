#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
What the receiver's tests read its files with, written apart from the writers: NMEA
checksums, RINEX 3.04 navigation records by the columns of Tables A6 and A8, and RTKLIB's
rnx2rtkp (Debian package rtklib) solving a single-point position from the observation
and navigation files; and the tool run as the tests run it. Used by
qa_receiver_galileo, tests/apps/qa_gnss_tool.py and tests/apps/qa_gnss_tool_galileo.py;
not installed.
'''

import datetime
import json
import os
import shutil
import subprocess
import sys

import numpy

from ..common import data_files
from . import receiver_cases

GPS_EPOCH = datetime.datetime(1980, 1, 6)
WEEK_S = 604800
RNX2RTKP_ABSENT = 'rnx2rtkp (Debian package rtklib) is not on PATH'


def run_tool(tool, recording, output, sample_rate_hz, *more):
    """(exit status, its output) of the cudadsp_gnss script tool on an ishort recording
    of receiver_cases: CPU, troposphere off, the scenario's Klobuchar coefficients and
    reference week, then the options more."""
    completed = subprocess.run(
        [sys.executable, tool, recording, '-o', output, '--format', 'ishort',
         '--sample-rate', str(sample_rate_hz), '--device', 'cpu', '--troposphere', 'none',
         '--klobuchar', ','.join(str(k) for k in receiver_cases.KLOBUCHAR),
         '--reference-week', str(receiver_cases.REFERENCE_WEEK), *more],
        capture_output=True, text=True, timeout=300)
    return completed.returncode, completed.stdout + completed.stderr


def report(output):
    """The receiver.json a run wrote into output, or None when it wrote none."""
    path = os.path.join(output, 'receiver.json')
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        return json.load(f)


def nmea_checksum_ok(sentence):
    '''Whether the sentence ("$...*hh", without CR LF) carries the XOR of its body.'''
    body, checksum = sentence[1:].split('*')
    value = 0
    for character in body:
        value ^= ord(character)
    return f'{value:02X}' == checksum


def nmea_sentences(path):
    '''The sentences of an NMEA file, each without its CR LF.'''
    with open(path, newline='') as f:
        return f.read().split('\r\n')[:-1]


def _fortran(text):
    text = text.strip()
    return float(text.replace('D', 'E')) if text else float('nan')


def navigation_records(path):
    '''{satellite id: [31 numbers]} of a RINEX 3.04 navigation file (the last record of
    each satellite): 3 on the record's first line from column 24, 4 on each of the
    seven BROADCAST ORBIT lines from column 5 (19 columns each); blank reads NaN.'''
    with open(path) as f:
        lines = f.read().splitlines()
    first = next(k for k, line in enumerate(lines) if line[60:73] == 'END OF HEADER') + 1
    records = {}
    for k in range(first, len(lines) - 7, 8):
        values = [_fortran(lines[k][23 + 19 * j:42 + 19 * j]) for j in range(3)]
        for line in lines[k + 1:k + 8]:
            values += [_fortran(line[4 + 19 * j:23 + 19 * j]) for j in range(4)]
        records[lines[k][:3]] = values
    return records


def rtklib_positions(path):
    '''(GPS time of week, ECEF) of each solution of rnx2rtkp's -e output, whose lines
    begin with the GPS date and time ("2025/01/09 00:11:12.998 x y z ...").'''
    solutions = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith('%'):
                continue
            fields = line.split()
            when = datetime.datetime.strptime(f'{fields[0]} {fields[1]}',
                                              '%Y/%m/%d %H:%M:%S.%f')
            tow = (when - GPS_EPOCH).total_seconds() % WEEK_S
            solutions.append((tow, numpy.array([float(v) for v in fields[2:5]])))
    return solutions


def rnx2rtkp_solutions(observation, navigation, work_folder, systems=('G',)):
    '''rnx2rtkp's single-point solutions of the two files (broadcast ephemeris and
    ionosphere, troposphere off, 10 degrees mask; systems by RINEX letter, each with its
    own receiver clock), as rtklib_positions gives them; None without rnx2rtkp.
    Raises AssertionError with rnx2rtkp's output when it fails.'''
    rnx2rtkp = shutil.which('rnx2rtkp')
    if rnx2rtkp is None:
        return None
    navsys = sum({'G': 1, 'E': 8}[s] for s in systems)
    conf = os.path.join(work_folder, 'single.conf')
    with open(conf, 'w') as f:
        f.write('pos1-posmode       =single\npos1-frequency     =l1\n'
                'pos1-elmask        =10\npos1-ionoopt       =brdc\n'
                'pos1-tropopt       =off\npos1-sateph        =brdc\n'
                f'pos1-navsys        ={navsys}\n')
    solution = os.path.join(work_folder, 'solution.pos')
    completed = subprocess.run(
        [rnx2rtkp, '-k', conf, '-p', '0', '-sys', ','.join(systems), '-m', '10', '-e',
         '-o', solution, observation, navigation],
        capture_output=True, text=True, timeout=120)
    if completed.returncode != 0:
        raise AssertionError('rnx2rtkp: ' + completed.stdout + completed.stderr)
    return rtklib_positions(solution)


def exit_status(result):
    """data_files.exit_status of a unittest result, and SKIPPED_EXIT_CODE (77) when a
    case skipped because rnx2rtkp is absent: ctest then says skipped, not passed."""
    status = data_files.exit_status(result)
    if status == 0 and any(reason == RNX2RTKP_ABSENT for _, reason in result.skipped):
        return data_files.SKIPPED_EXIT_CODE
    return status
