#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
cudadsp_stack (the Dask driver) as a user runs it, on the CPU backend with a local
cluster of two workers:

- a stack of GMTSAR pairs (synthetic SLC pairs from tests/support/make_synthetic_slc.py, each
  with other offsets, so that a mixed-up pair shows) gives, in every pair's folder, the
  freq_xcorr.dat that cudadsp_xcorr run alone on that pair writes, byte for byte; both
  workers take pairs; a progress line a pair and a summary table (Markdown and CSV);
- a worker killed while it runs a pair (a stand-in for cudadsp_xcorr kills the worker
  that started it, after writing half an output): that pair is reported failed as
  "worker died", naming it; the others complete; its folder keeps the older
  freq_xcorr.dat as it was (not the half-written one), and the program did not
  outlive the worker; exit status 1;
- a pair whose PRM names a missing SLC file is reported failed naming that file, the
  others complete;
- a stack of dense-offset pairs (small complex64 rasters) against cudadsp_offsets
  --pairs in one process;
- the local cluster's GPU pinning: each worker process has its own
  CUDA_VISIBLE_DEVICES (no GPU needed to see it), and GPUs are shared out within an
  inherited CUDA_VISIBLE_DEVICES;
- bad arguments end with status 1 and a message naming the argument (dense-offset
  options once, before any pair; --xcorr-options with --kind offsets);
- SIGINT or SIGTERM to the driver mid-stack: exit status 128 + the signal, a summary
  saying which pairs completed, which was running and which were not reached (an older
  summary replaced), the running pair's older freq_xcorr.dat as it was, no temporary;
- an external scheduler (dask-scheduler, one dask-worker without a nanny): its only
  worker killed mid-pair ends the run after --worker-wait with a summary; the scheduler
  killed mid-pair ends it with one line and a summary, no traceback;
- outputs and summaries honour the umask.

Usage (ctest passes them): qa_stack_dask.py --tool apps/cudadsp_stack --xcorr BINARY
--offsets apps/cudadsp_offsets --generator tests/support/make_synthetic_slc.py. About 30 s on two cores.
'''

import argparse
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import numpy

ARGS = None
SIZE = 512
XCORR_OPTIONS = ['-nx', '4', '-ny', '4', '-xsearch', '32', '-ysearch', '32']
# Offsets (dx, dy) of the synthetic pairs: all different.
OFFSETS = [(0.3, -0.5), (1.2, 0.4), (-0.7, 0.9), (2.1, -1.3)]


def make_slc_pairs(folder):
    '''Pairs p1..p4 in folder/pN, their PRMs' SLC_file relative to folder (GMTSAR opens
    it relative to the working directory: the stack and the references run there).'''
    for n, (dx, dy) in enumerate(OFFSETS, 1):
        pair = os.path.join(folder, f'p{n}')
        subprocess.run([sys.executable, ARGS.generator, '--width', str(SIZE),
                        '--height', str(SIZE), f'--dx={dx}', f'--dy={dy}', '--seed', str(n),
                        '--outdir', pair, '--quiet'], check=True)
        for role in ('master', 'aligned'):
            prm = os.path.join(pair, f'{role}.PRM')
            with open(prm) as f:
                lines = f.read().splitlines()
            lines = [f'SLC_file = p{n}/{role}.SLC' if line.startswith('SLC_file') else line
                     for line in lines]
            with open(prm, 'w') as f:
                f.write('\n'.join(lines) + '\n')


def single_process_xcorr(folder, pair):
    '''freq_xcorr.dat of cudadsp_xcorr run alone on pair pN, in folder.'''
    output = os.path.join(folder, 'freq_xcorr.dat')
    subprocess.run([ARGS.xcorr, f'{pair}/master.PRM', f'{pair}/aligned.PRM',
                    *XCORR_OPTIONS, '-device', 'cpu'], cwd=folder, check=True,
                   capture_output=True)
    with open(output, 'rb') as f:
        data = f.read()
    os.remove(output)
    return data


def running(pid):
    '''Whether process pid runs (a zombie, killed but not yet reaped, does not).'''
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except FileNotFoundError:
        return False


def wait_for_file(path, process, seconds=90):
    '''Wait until path exists; False when process ended first or time ran out.'''
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        if os.path.exists(path):
            return True
        time.sleep(0.1)
    return False


def stand_in(folder, body):
    '''A stand-in for cudadsp_xcorr: in pair "two" it runs body (sh), elsewhere it
    is the real program.'''
    path = os.path.join(folder, 'xcorr_stand_in')
    with open(path, 'w') as f:
        f.write(f'''#!/bin/sh
case "$PWD" in
*/two/.cudadsp_stack-*)
{body};;
esac
exec {ARGS.xcorr} "$@"
''')
    os.chmod(path, 0o755)
    return path


def temporaries(root):
    '''Temporary files under root (an output set's, or mkstemp's of old).'''
    return [os.path.join(folder, n) for folder, _, names in os.walk(root)
            for n in names if n.endswith('.part')]


def read_summary(prefix):
    with open(prefix + '.csv', newline='') as f:
        return {row['pair']: row for row in csv.DictReader(f)}


class qa_stack_dask(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        cls.slc = os.path.join(cls.folder.name, 'slc')
        make_slc_pairs(cls.slc)
        cls.reference = {f'p{n}': single_process_xcorr(cls.slc, f'p{n}')
                         for n in range(1, len(OFFSETS) + 1)}
        assert len(set(cls.reference.values())) == len(OFFSETS), \
            'two synthetic pairs give the same output: a mixed-up pair would not show'

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def setUp(self):
        self.run_folder = tempfile.mkdtemp(dir=self.folder.name)

    def write_list(self, lines):
        path = os.path.join(self.slc, 'pairs.txt')
        with open(path, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        return path

    def stack_command(self, pair_list, *arguments, xcorr=None, workers=('--workers', '2')):
        return [sys.executable, ARGS.tool, '--kind', 'xcorr', '--pairs', pair_list,
                '--device', 'cpu', *workers, '--xcorr', xcorr or ARGS.xcorr,
                '--xcorr-options', ' '.join(XCORR_OPTIONS),
                '--summary', os.path.join(self.run_folder, 'summary'), *arguments]

    def run_stack(self, pair_list, *arguments, expect=0, xcorr=None):
        completed = subprocess.run(
            self.stack_command(pair_list, *arguments, xcorr=xcorr), cwd=self.slc,
            capture_output=True, text=True, timeout=300)
        self.assertEqual(completed.returncode, expect,
                         f'{completed.stdout}\n{completed.stderr}')
        return completed.stderr

    def output_of(self, name):
        return os.path.join(self.run_folder, name, 'freq_xcorr.dat')

    def assert_same_as_single_process(self, name, pair):
        with open(self.output_of(name), 'rb') as f:
            self.assertEqual(f.read(), self.reference[pair], f'pair {name} ({pair})')

    def test_xcorr_stack_matches_single_process(self):
        out = self.run_folder
        lines = [f'# four pairs, one in the default folder under --output-root',
                 f'p1/master.PRM p1/aligned.PRM {out}/one', '',
                 f'p2/master.PRM p2/aligned.PRM {out}/two',
                 f'p3/master.PRM p3/aligned.PRM {out}/three',
                 'p4/master.PRM p4/aligned.PRM']
        stderr = self.run_stack(self.write_list(lines), '--output-root', out)
        for name, pair in (('one', 'p1'), ('two', 'p2'), ('three', 'p3'),
                           ('master_aligned', 'p4')):
            self.assert_same_as_single_process(name, pair)
        summary = read_summary(os.path.join(out, 'summary'))
        self.assertEqual(set(summary), {'one', 'two', 'three', 'master_aligned'})
        for row in summary.values():
            self.assertEqual((row['status'], row['device'], row['message']),
                             ('ok', 'cpu', ''), row)
            self.assertGreater(float(row['seconds']), 0.0)
        self.assertEqual({row['worker'] for row in summary.values()}, {'cpu0', 'cpu1'},
                         'both workers take pairs')
        for k in range(1, 5):
            self.assertIn(f'pair {k} of 4 ok: ', stderr)
        with open(os.path.join(out, 'summary.md')) as f:
            table = f.read()
        self.assertIn('4 pairs (xcorr), 4 ok, 0 failed', table)
        self.assertIn('| pair | status | worker | device | seconds | message |', table)
        self.assertEqual(table.count('| ok |'), 4)
        self.assertEqual([n for n in os.listdir(os.path.join(out, 'two'))
                          if n.startswith('.')], [], 'working folders removed')

    def test_killed_worker(self):
        out = self.run_folder
        # Stand-in for cudadsp_xcorr: in pair "two" it writes half an output in its
        # working folder, records its pid, kills the worker that started it and waits
        # to be killed with it; elsewhere it is the real program.
        stand_in = os.path.join(out, 'xcorr_killing_its_worker')
        pid_file = os.path.join(out, 'stand_in.pid')
        with open(stand_in, 'w') as f:
            f.write(f'''#!/bin/sh
case "$PWD" in
*/two/.cudadsp_stack-*)
    echo "0 0 0 0 0" > freq_xcorr.dat
    echo $$ > {pid_file}
    kill -9 $PPID
    exec sleep 60;;
esac
exec {ARGS.xcorr} "$@"
''')
        os.chmod(stand_in, 0o755)
        os.makedirs(os.path.join(out, 'two'))
        with open(self.output_of('two'), 'w') as f:
            f.write('an older run\n')
        lines = [f'p{n}/master.PRM p{n}/aligned.PRM {out}/{name}'
                 for n, name in ((1, 'one'), (2, 'two'), (3, 'three'), (4, 'four'))]
        stderr = self.run_stack(self.write_list(lines), expect=1, xcorr=stand_in)
        summary = read_summary(os.path.join(out, 'summary'))
        self.assertEqual(summary['two']['status'], 'failed')
        self.assertIn('worker died', summary['two']['message'])
        self.assertRegex(stderr, r'pair \d of 4 failed: two \(.*worker died')
        for name, pair in (('one', 'p1'), ('three', 'p3'), ('four', 'p4')):
            self.assertEqual(summary[name]['status'], 'ok', summary[name])
            self.assert_same_as_single_process(name, pair)
        with open(self.output_of('two')) as f:
            self.assertEqual(f.read(), 'an older run\n',
                             'a killed pair leaves the earlier freq_xcorr.dat as it was')
        with open(pid_file) as f:
            pid = int(f.read())
        self.assertFalse(running(pid), 'the program outlived the worker that started it')
        with open(os.path.join(out, 'summary.md')) as f:
            self.assertIn('4 pairs (xcorr), 3 ok, 1 failed', f.read())

    def test_missing_slc_named(self):
        out = self.run_folder
        broken = os.path.join(out, 'broken.PRM')
        with open(os.path.join(self.slc, 'p2', 'aligned.PRM')) as f:
            text = f.read().replace('p2/aligned.SLC', 'p2/absent.SLC')
        with open(broken, 'w') as f:
            f.write(text)
        lines = [f'p1/master.PRM p1/aligned.PRM {out}/one',
                 f'p2/master.PRM {broken} {out}/bad',
                 f'p3/master.PRM p3/aligned.PRM {out}/three']
        self.run_stack(self.write_list(lines), expect=1)
        summary = read_summary(os.path.join(out, 'summary'))
        self.assertEqual(summary['bad']['status'], 'failed')
        self.assertIn('absent.SLC', summary['bad']['message'])
        self.assertIn(broken, summary['bad']['message'], 'names the PRM given, not a copy')
        self.assertFalse(os.path.exists(self.output_of('bad')))
        self.assert_same_as_single_process('one', 'p1')
        self.assert_same_as_single_process('three', 'p3')

    def test_fifo_prm_named(self):
        # A FIFO given as a PRM: that pair fails naming it and the others complete; a
        # worker blocked in open() on it for ever, and the stack with it.
        out = self.run_folder
        fifo = os.path.join(out, 'fifo.PRM')
        os.mkfifo(fifo)
        lines = [f'p1/master.PRM p1/aligned.PRM {out}/one',
                 f'p2/master.PRM {fifo} {out}/bad',
                 f'p3/master.PRM p3/aligned.PRM {out}/three']
        self.run_stack(self.write_list(lines), expect=1)
        summary = read_summary(os.path.join(out, 'summary'))
        self.assertEqual(summary['bad']['status'], 'failed')
        self.assertIn(f'{fifo}: not a regular file: FIFO', summary['bad']['message'])
        self.assert_same_as_single_process('one', 'p1')
        self.assert_same_as_single_process('three', 'p3')

    def test_bad_arguments_named(self):
        pair_list = self.write_list(['p1/master.PRM p1/aligned.PRM'])
        for arguments, named in (
                (['--workers', '0'], '--workers'),
                (['--xcorr-options', '-nx 4 -device cuda'], '--xcorr-options'),
                (['--xcorr', os.path.join(self.slc, 'p1', 'master.PRM')], '--xcorr'),
                (['--scheduler', 'tcp://127.0.0.1:1', '--gpus', '0'], '--gpus'),
                (['--device', 'cuda:1'], '--device'),
                (['--window-width', '32'], 'window_width')):
            completed = subprocess.run(
                [sys.executable, ARGS.tool, '--kind', 'xcorr', '--pairs', pair_list,
                 '--xcorr', ARGS.xcorr, *arguments], cwd=self.slc,
                capture_output=True, text=True, timeout=60)
            self.assertEqual(completed.returncode, 1, completed.stderr)
            self.assertIn(named, completed.stderr)
        twice = self.write_list([f'p1/master.PRM p1/aligned.PRM {self.run_folder}/x',
                                 f'p2/master.PRM p2/aligned.PRM {self.run_folder}/x'])
        completed = subprocess.run(
            [sys.executable, ARGS.tool, '--kind', 'xcorr', '--pairs', twice,
             '--xcorr', ARGS.xcorr], cwd=self.slc, capture_output=True, text=True,
            timeout=60)
        self.assertEqual(completed.returncode, 1)
        self.assertIn('--pairs', completed.stderr)
        self.assertIn('line 1', completed.stderr)

    def four_pairs(self):
        return self.write_list([f'p{n}/master.PRM p{n}/aligned.PRM {self.run_folder}/{name}'
                                for n, name in ((1, 'one'), (2, 'two'), (3, 'three'),
                                                (4, 'four'))])

    def test_interrupted_stack(self):
        out = self.run_folder
        pid_file = os.path.join(out, 'stand_in.pid')
        xcorr = stand_in(out, f'echo $$ > {pid_file}.new; mv {pid_file}.new {pid_file}; '
                              'exec sleep 60')
        for signum in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(signal=signum.name):
                # An earlier run: every pair ok, and pair two's result.
                with open(os.path.join(out, 'summary.csv'), 'w') as f:
                    f.write('pair,status,worker,device,seconds,message\n' + ''.join(
                        f'{n},ok,cpu0,cpu,1.000,\n' for n in ('one', 'two', 'three',
                                                              'four')))
                os.makedirs(os.path.join(out, 'two'), exist_ok=True)
                with open(self.output_of('two'), 'w') as f:
                    f.write('an older run\n')
                stack = subprocess.Popen(
                    self.stack_command(self.four_pairs(), xcorr=xcorr,
                                       workers=('--workers', '1')),
                    cwd=self.slc, stderr=subprocess.PIPE, text=True)
                try:
                    started = wait_for_file(pid_file, stack)
                    stack.send_signal(signum)
                    _, stderr = stack.communicate(timeout=60)
                finally:
                    stack.kill()
                    stack.wait()
                self.assertTrue(started, stderr)
                self.assertEqual(stack.returncode, 128 + signum, stderr)
                summary = read_summary(os.path.join(out, 'summary'))
                self.assertEqual({n: r['status'] for n, r in summary.items()},
                                 {'one': 'ok', 'two': 'not run', 'three': 'not run',
                                  'four': 'not run'}, stderr)
                self.assertIn(f'interrupted by {signum.name} while it ran',
                              summary['two']['message'])
                self.assertIn('not reached', summary['three']['message'])
                with open(os.path.join(out, 'summary.md')) as f:
                    self.assertIn('4 pairs (xcorr), 1 ok, 0 failed, 3 not run', f.read())
                with open(self.output_of('two')) as f:
                    self.assertEqual(f.read(), 'an older run\n', 'the earlier result stays')
                self.assert_same_as_single_process('one', 'p1')
                self.assertEqual(temporaries(out), [])
                with open(pid_file) as f:
                    self.assertFalse(running(int(f.read())), 'the program outlived the run')
                os.remove(pid_file)

    def start_scheduler(self):
        '''A dask-scheduler and one dask-worker without a nanny (nothing restarts it);
        returns (scheduler address, scheduler process, worker process).'''
        scheduler_file = os.path.join(self.run_folder, 'scheduler.json')
        processes = [subprocess.Popen(
            ['dask-scheduler', '--host', '127.0.0.1', '--port', '0', '--no-dashboard',
             '--scheduler-file', scheduler_file], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)]
        self.addCleanup(lambda: [(p.kill(), p.wait()) for p in processes])
        self.assertTrue(wait_for_file(scheduler_file, processes[0]), 'no scheduler')
        time.sleep(0.5)
        with open(scheduler_file) as f:
            address = json.load(f)['address']
        processes.append(subprocess.Popen(
            ['dask-worker', address, '--nthreads', '1', '--no-nanny', '--name', 'w1',
             '--no-dashboard'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, 'PYTHONPATH': os.pathsep.join(sys.path)}))
        return address, processes[0], processes[1]

    def test_only_worker_of_a_scheduler_dies(self):
        out = self.run_folder
        address, _, worker = self.start_scheduler()
        xcorr = stand_in(out, 'kill -9 $PPID; exec sleep 60')
        completed = subprocess.run(
            self.stack_command(self.four_pairs(), '--worker-wait', '5', xcorr=xcorr,
                               workers=('--scheduler', address)),
            cwd=self.slc, capture_output=True, text=True, timeout=120)
        self.assertEqual(completed.returncode, 1, completed.stderr)
        self.assertIsNotNone(worker.poll(), 'the worker was killed')
        self.assertIn('no worker for 5 s', completed.stderr)
        summary = read_summary(os.path.join(out, 'summary'))
        self.assertEqual({n: r['status'] for n, r in summary.items()},
                         {'one': 'ok', 'two': 'failed', 'three': 'not run',
                          'four': 'not run'}, completed.stderr)
        self.assertIn('no worker for 5 s', summary['two']['message'])
        self.assertFalse(os.path.exists(self.output_of('two')))

    def test_scheduler_lost_mid_stack(self):
        out = self.run_folder
        address, scheduler, _ = self.start_scheduler()
        pid_file = os.path.join(out, 'stand_in.pid')
        # Pair two goes on after its scheduler is gone, and completes.
        xcorr = stand_in(out, f'echo $$ > {pid_file}; sleep 3')
        stack = subprocess.Popen(
            self.stack_command(self.four_pairs(), xcorr=xcorr,
                               workers=('--scheduler', address)),
            cwd=self.slc, stderr=subprocess.PIPE, text=True)
        try:
            started = wait_for_file(pid_file, stack)
            scheduler.kill()
            _, stderr = stack.communicate(timeout=90)
        finally:
            stack.kill()
            stack.wait()
        self.assertTrue(started, stderr)
        self.assertEqual(stack.returncode, 1, stderr)
        self.assertNotIn('Traceback', stderr)
        self.assertLessEqual(len(stderr.splitlines()), 6, stderr)
        self.assertIn('scheduler lost', stderr)
        summary = read_summary(os.path.join(out, 'summary'))
        self.assertEqual({n: r['status'] for n, r in summary.items()},
                         {'one': 'ok', 'two': 'failed', 'three': 'not run',
                          'four': 'not run'}, stderr)
        self.assertIn('scheduler lost', summary['two']['message'])


class qa_stack_offsets(unittest.TestCase):
    '''Dense offsets of small complex64 rasters: the stack against one process.'''

    OPTIONS = ['--window-width', '32', '--window-height', '32', '--half-search-across',
               '8', '--half-search-down', '8', '--skip-across', '32', '--skip-down', '32',
               '--device', 'cpu']
    # Integer and sub-pixel shifts (down, across), one a pair: outputs all different.
    SHIFTS = [(1.0, 2.0), (-2.5, 0.75), (0.25, -1.5)]

    @staticmethod
    def shifted(field, down, across):
        '''field moved by (down, across) pixels, by a phase ramp in frequency.'''
        rows, cols = field.shape
        ramp = numpy.exp(-2j * numpy.pi * (numpy.fft.fftfreq(rows)[:, None] * down +
                                           numpy.fft.fftfreq(cols)[None, :] * across))
        return numpy.fft.ifft2(numpy.fft.fft2(field) * ramp).astype(numpy.complex64)

    def write_shifted_pairs(self, folder, seed, path_prefix=''):
        '''One random SLC pair a SHIFTS entry in folder; their pair-list lines, the
        images named with path_prefix.'''
        from cudadsp.insar import raster_io
        rng = numpy.random.default_rng(seed)
        lines = []
        for n, (down, across) in enumerate(self.SHIFTS, 1):
            field = rng.standard_normal((192, 224)) + 1j * rng.standard_normal((192, 224))
            raster_io.write_raster(os.path.join(folder, f'ref{n}.slc'),
                                   field.astype(numpy.complex64))
            raster_io.write_raster(os.path.join(folder, f'sec{n}.slc'),
                                   self.shifted(field, down, across))
            lines.append(f'{path_prefix}ref{n}.slc {path_prefix}sec{n}.slc pair{n}')
        return lines

    def test_offsets_stack_matches_single_process(self):
        from cudadsp.insar import offset_stack
        with tempfile.TemporaryDirectory() as folder:
            lines = self.write_shifted_pairs(folder, 11, '../')
            for root in ('stack', 'alone'):
                os.makedirs(os.path.join(folder, root))
                with open(os.path.join(folder, root, 'pairs.txt'), 'w') as f:
                    f.write('\n'.join(lines) + '\n')
            stack = subprocess.run(
                [sys.executable, ARGS.tool, '--kind', 'offsets', '--workers', '2',
                 '--pairs', os.path.join(folder, 'stack', 'pairs.txt'), *self.OPTIONS],
                cwd=folder, capture_output=True, text=True, timeout=120, umask=0o027)
            self.assertEqual(stack.returncode, 0, stack.stderr)
            for written in ['stack_summary.csv', 'stack_summary.md'] + [
                    os.path.join('stack', f'pair{n}', name) for n in (1, 2, 3)
                    for name in ('dense_offsets.bip', 'dense_offsets.json')]:
                self.assertEqual(os.stat(os.path.join(folder, written)).st_mode & 0o777,
                                 0o640, f'{written}: the workers honour the umask')
            alone = subprocess.run(
                [sys.executable, ARGS.offsets, '--pairs',
                 os.path.join(folder, 'alone', 'pairs.txt'), *self.OPTIONS],
                cwd=folder, capture_output=True, text=True, timeout=120)
            self.assertEqual(alone.returncode, 0, alone.stderr)
            summary = read_summary(os.path.join(folder, 'stack_summary'))
            self.assertEqual(set(summary), {'pair1', 'pair2', 'pair3'})
            self.assertEqual({row['status'] for row in summary.values()}, {'ok'})
            self.assertEqual({row['device'] for row in summary.values()}, {'cpu'})
            outputs = {}
            for n in range(1, len(self.SHIFTS) + 1):
                for path in offset_stack.output_paths(f'pair{n}', 'dense_offsets')[:-1]:
                    with open(os.path.join(folder, 'stack', path), 'rb') as f:
                        outputs[path] = f.read()
                    with open(os.path.join(folder, 'alone', path), 'rb') as f:
                        self.assertEqual(outputs[path], f.read(), path)
            offsets = [outputs[os.path.join(f'pair{n}', 'dense_offsets.bip')]
                       for n in range(1, len(self.SHIFTS) + 1)]
            self.assertEqual(len(set(offsets)), len(offsets),
                             'two pairs give the same offsets: a mixed-up pair would not show')

    def test_fifo_header_fails_its_pair_alone(self):
        # Pair 2's secondary header is a FIFO: pair 2 fails naming it, pairs 1 and 3
        # run. The native reader skipped the FIFO and GDAL blocked in its open() for
        # ever: the worker, and so the whole stack, stalled.
        with tempfile.TemporaryDirectory() as folder:
            lines = self.write_shifted_pairs(folder, 12)
            fifo = os.path.join(folder, 'sec2.slc.hdr')
            os.unlink(fifo)
            os.mkfifo(fifo)
            with open(os.path.join(folder, 'pairs.txt'), 'w') as f:
                f.write('\n'.join(lines) + '\n')
            try:
                stack = subprocess.run(
                    [sys.executable, ARGS.tool, '--kind', 'offsets', '--workers', '2',
                     '--pairs', os.path.join(folder, 'pairs.txt'), *self.OPTIONS],
                    cwd=folder, capture_output=True, text=True, timeout=120)
            except subprocess.TimeoutExpired:
                self.fail('the stack still runs after 120 s: blocked on the FIFO')
            self.assertEqual(stack.returncode, 1, stack.stderr)
            summary = read_summary(os.path.join(folder, 'stack_summary'))
            self.assertEqual({name: row['status'] for name, row in summary.items()},
                             {'pair1': 'ok', 'pair2': 'failed', 'pair3': 'ok'})
            self.assertIn(f'{fifo}: not a regular file: FIFO', summary['pair2']['message'])

    def test_bad_offsets_options_refused_once(self):
        with tempfile.TemporaryDirectory() as folder:
            for name in ('ref', 'sec'):
                numpy.save(os.path.join(folder, f'{name}.npy'),
                           numpy.ones((64, 64), numpy.complex64))
            with open(os.path.join(folder, 'pairs.txt'), 'w') as f:
                f.write(''.join(f'ref.npy sec.npy pair{n}\n' for n in range(3)))
            for arguments, named in ((['--zoom', '3'], ['zoom_window']),
                                     (['--xcorr-options', '-nx 4'],
                                      ['--xcorr-options', '--kind offsets'])):
                with self.subTest(arguments=arguments):
                    completed = subprocess.run(
                        [sys.executable, ARGS.tool, '--kind', 'offsets', '--workers', '1',
                         '--device', 'cpu', '--pairs', os.path.join(folder, 'pairs.txt'),
                         *arguments], cwd=folder, capture_output=True, text=True,
                        timeout=120)
                    self.assertEqual(completed.returncode, 1, completed.stderr)
                    for text in named:
                        self.assertIn(text, completed.stderr)
                    self.assertNotIn('pair 1 of', completed.stderr, 'checked per pair')
                    self.assertFalse(os.path.exists(os.path.join(folder, 'pair0')))


class qa_stack_gpu_pinning(unittest.TestCase):
    '''The local cluster's mechanism, seen from the worker processes.'''

    def test_each_worker_has_its_gpu(self):
        from distributed import Client
        from cudadsp.insar import stack_dask
        cluster = stack_dask.start_local_cluster(['3', '5'], 0)
        try:
            with Client(cluster) as client:
                seen = client.run(lambda: os.environ.get('CUDA_VISIBLE_DEVICES'))
                names = {w['name']: address
                         for address, w in client.scheduler_info()['workers'].items()}
                self.assertEqual(client.nthreads(), {a: 1 for a in seen})
        finally:
            cluster.close()
        self.assertEqual({name: seen[address] for name, address in names.items()},
                         {'gpu3': '3', 'gpu5': '5'})

    def test_gpus_shared_out_within_visible_devices(self):
        from cudadsp.insar import stack_dask
        with tempfile.TemporaryDirectory() as folder:
            info = os.path.join(folder, 'cudadsp_info')
            with open(info, 'w') as f:
                f.write('#!/bin/sh\necho "gr-cudadsp: CUDA runtime 13.0, driver 13.0"\n'
                        'echo "cuda:0  NVIDIA H100"\necho "  multiprocessors 132"\n'
                        'echo "cuda:1  NVIDIA H100"\n')
            os.chmod(info, 0o755)
            saved = os.environ.get('CUDA_VISIBLE_DEVICES')
            try:
                os.environ['CUDA_VISIBLE_DEVICES'] = '4, 6,7'
                self.assertEqual(stack_dask.find_gpus(info, print), ['4', '6'])
                del os.environ['CUDA_VISIBLE_DEVICES']
                self.assertEqual(stack_dask.find_gpus(info, print), ['0', '1'])
            finally:
                if saved is not None:
                    os.environ['CUDA_VISIBLE_DEVICES'] = saved


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument('--tool', required=True)
    parser.add_argument('--xcorr', required=True)
    parser.add_argument('--offsets', required=True)
    parser.add_argument('--generator', required=True)
    ARGS, rest = parser.parse_known_args()
    for name in ('tool', 'xcorr', 'offsets', 'generator'):
        setattr(ARGS, name, os.path.abspath(getattr(ARGS, name)))
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == '__main__':
    main()
