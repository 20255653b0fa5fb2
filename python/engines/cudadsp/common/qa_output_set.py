#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
output_set, the mechanism every tool writes its outputs through: a set appears whole
(its marker last) or not at all; a failure or a signal leaves the earlier set as it was
and no temporary; stale members and the temporaries of a killed process go; SIGTERM
waits for a commit to end; files honour the umask; write errors name the file and the
errno; JSON has no NaN.
'''

import errno
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import unittest
from unittest import mock

from cudadsp.common import output_set

NAMES = ['run.a', 'run.b', 'run.c', 'run.json']


def write_set(folder, contents):
    '''A set of NAMES in folder: contents maps the members written to their text.'''
    with output_set.output_set(folder, NAMES) as files:
        for name, text in contents.items():
            files.write(name, lambda f, text=text: f.write(text.encode()))


def listing(folder):
    contents = {}
    for name in os.listdir(folder):
        with open(os.path.join(folder, name)) as f:
            contents[name] = f.read()
    return contents


class qa_output_set(unittest.TestCase):

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.dir = os.path.join(self.folder.name, 'out')

    def tearDown(self):
        self.folder.cleanup()

    def test_commit_replaces_the_earlier_set_whole(self):
        write_set(self.dir, {'run.a': 'old a', 'run.c': 'old c', 'run.json': 'old'})
        write_set(self.dir, {'run.a': 'new a', 'run.b': 'new b', 'run.json': 'new'})
        self.assertEqual(listing(self.dir), {'run.a': 'new a', 'run.b': 'new b',
                                             'run.json': 'new'})

    def test_failure_leaves_the_earlier_set_and_no_temporary(self):
        write_set(self.dir, {'run.a': 'old a', 'run.json': 'old'})
        for failure in (RuntimeError('boom'), KeyboardInterrupt(),
                        output_set.interrupted(signal.SIGTERM)):
            with self.subTest(failure=type(failure).__name__):
                with self.assertRaises(type(failure)):
                    with output_set.output_set(self.dir, NAMES) as files:
                        files.write('run.a', lambda f: f.write(b'new a'))
                        files.temporary('run.b')
                        raise failure
                self.assertEqual(listing(self.dir), {'run.a': 'old a', 'run.json': 'old'})

    def test_write_error_names_the_file_and_errno(self):
        def full(f):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        with self.assertRaises(output_set.output_error) as raised:
            with output_set.output_set(self.dir, NAMES) as files:
                files.write('run.a', full)
        self.assertEqual(str(raised.exception),
                         f'{self.dir}/run.a: cannot be written: No space left on device '
                         '(ENOSPC)')
        self.assertEqual(raised.exception.errno, errno.ENOSPC)
        self.assertEqual(os.listdir(self.dir), [])

    def test_members_are_checked(self):
        with output_set.output_set(self.dir, NAMES) as files:
            with self.assertRaisesRegex(ValueError, 'run.x: not a member'):
                files.write('run.x', lambda f: None)
            files.write('run.a', lambda f: None)
            with self.assertRaisesRegex(ValueError, 'run.a: written twice'):
                files.write('run.a', lambda f: None)

    def test_mode_follows_the_umask(self):
        for umask, mode in ((0o022, 0o644), (0o077, 0o600), (0o002, 0o664)):
            previous = os.umask(umask)
            try:
                write_set(self.dir, {'run.a': 'a', 'run.json': '{}'})
            finally:
                os.umask(previous)
            for name in ('run.a', 'run.json'):
                self.assertEqual(os.stat(os.path.join(self.dir, name)).st_mode & 0o777,
                                 mode, f'{name}, umask {umask:o}')

    def test_signals_wait_for_the_commit(self):
        write_set(self.dir, {'run.a': 'old a', 'run.c': 'old c', 'run.json': 'old'})
        replace = os.replace
        sent = []

        def replace_and_signal(source, destination):
            # SIGTERM between two renames of the commit.
            if not sent:
                sent.append(os.kill(os.getpid(), signal.SIGTERM))
            replace(source, destination)

        with self.assertRaises(output_set.interrupted):
            with output_set.interrupt_on_signals():
                with mock.patch('os.replace', replace_and_signal):
                    write_set(self.dir, {'run.a': 'new a', 'run.b': 'new b',
                                         'run.json': 'new'})
        self.assertEqual(sent, [None])
        self.assertEqual(listing(self.dir), {'run.a': 'new a', 'run.b': 'new b',
                                             'run.json': 'new'})

    def test_sigterm_mid_set_and_killed_process_temporaries(self):
        write_set(self.dir, {'run.a': 'old a', 'run.json': 'old'})
        script = textwrap.dedent(f'''
            import sys, time
            from cudadsp.common import output_set
            def slow(f):
                f.write(b'new')
                f.flush()
                print('writing', flush=True)
                time.sleep(60)
            try:
                with output_set.interrupt_on_signals():
                    with output_set.output_set({self.dir!r}, {NAMES!r}) as files:
                        files.write('run.a', lambda f: f.write(b'new a'))
                        files.write('run.json', slow)
            except output_set.interrupted as stop:
                sys.exit(stop.exit_status)
            ''')
        for signum, status in ((signal.SIGTERM, 128 + signal.SIGTERM),
                               (signal.SIGINT, 128 + signal.SIGINT),
                               (signal.SIGKILL, -signal.SIGKILL)):
            with self.subTest(signal=signum.name):
                with subprocess.Popen([sys.executable, '-c', script],
                                      stdout=subprocess.PIPE, text=True) as process:
                    try:
                        self.assertEqual(process.stdout.readline(), 'writing\n')
                        process.send_signal(signum)
                        self.assertEqual(process.wait(timeout=30), status)
                    finally:
                        process.kill()
                left = sorted(os.listdir(self.dir))
                if signum == signal.SIGKILL:
                    # A killed process cannot clean up: the next set of these names
                    # on this host removes its temporaries, and only those.
                    self.assertEqual(len(left), 4, left)
                    other = os.path.join(self.dir, '.other.cudadsp-0123abcd-1@host.part')
                    open(other, 'w').close()
                    output_set.output_set(self.dir, NAMES)
                    os.remove(other)
                self.assertEqual(listing(self.dir), {'run.a': 'old a', 'run.json': 'old'})

    def test_json_has_no_nan(self):
        with output_set.output_set(self.dir, NAMES) as files:
            files.write_json('run.json', {'residual': float('nan'),
                                          'values': [1.5, float('inf'), -float('inf')],
                                          'nested': {'x': (float('nan'),)}})

        def refuse(constant):
            raise ValueError(constant)
        with open(os.path.join(self.dir, 'run.json')) as f:
            self.assertEqual(json.loads(f.read(), parse_constant=refuse),
                             {'residual': None, 'values': [1.5, None, None],
                              'nested': {'x': [None]}})


if __name__ == '__main__':
    unittest.main(verbosity=2)
