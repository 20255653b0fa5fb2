#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
cudadsp_unwrap as a user runs it: rasters in (ENVI, a raw VRT, GeoTIFF, .npy; real phase
or complex interferogram; coherence and mask files), rasters out, checked against a
field whose unwrapped truth is known, read back through GDAL; and bad input, which must
end with status 1, a message naming the argument, and no output file.

The outputs of a prefix are one set: a run replaces every file of an earlier run of the
prefix (an old .conncomp beside a least-squares result is gone), and a run that fails on
a full disk (a small tmpfs mounted in a user and mount namespace, `unshare -rm`) leaves
the earlier set as it was, no temporary, and an error naming the file and ENOSPC, in
ENVI and in GeoTIFF. Outputs honour the umask; the .json is strict JSON (no NaN).
'''

import argparse
import inspect
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy

import cudadsp
from cudadsp.common import data_files
from cudadsp.insar import raster_io
from cudadsp.insar.unwrap_metrics import score_unwrapping

TOOL = None


def truth_field(height=150, width=200):
    '''A hill of 9 cycles on a tilted plane: unaliased (under 1.2 rad a pixel).'''
    rows, cols = numpy.mgrid[0:height, 0:width].astype(numpy.float64)
    hill = 2 * numpy.pi * 9 * numpy.exp(-((rows - 70) ** 2 + (cols - 110) ** 2) / 45.0 ** 2)
    return hill + 0.35 * cols - 0.2 * rows


def wrap(phase):
    return numpy.angle(numpy.exp(1j * phase)).astype(numpy.float32)


class qa_unwrap_tool(unittest.TestCase):

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.dir = self.folder.name
        self.truth = truth_field()

    def tearDown(self):
        self.folder.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def run_tool(self, *arguments, expect=0, timeout=240, umask=None):
        try:
            completed = subprocess.run([sys.executable, TOOL, *arguments, '--device',
                                        'cpu'], capture_output=True, text=True,
                                       timeout=timeout, umask=-1 if umask is None else umask)
        except subprocess.TimeoutExpired:
            self.fail(f'{arguments}: still running after {timeout} s (blocked?)')
        self.assertEqual(completed.returncode, expect,
                         f'{arguments}: {completed.stdout}\n{completed.stderr}')
        return completed.stdout + completed.stderr

    def read_back(self, path):
        # GDAL reads what the tool wrote, as GIS software would.
        self.assertIsNotNone(raster_io.gdal, 'GDAL (python3-gdal) is part of the set-up')
        dataset = raster_io.gdal.Open(path)
        return dataset.GetRasterBand(1).ReadAsArray(), dataset

    def test_envi_real_phase_with_mask(self):
        wrapped = wrap(self.truth)
        mask = numpy.ones(wrapped.shape, numpy.uint8)
        mask[100:130, 20:60] = 0
        raster_io.write_raster(self.path('phase.flt'), wrapped)
        raster_io.write_raster(self.path('mask.byt'), mask)
        self.run_tool(self.path('phase.flt'), '--mask', self.path('mask.byt'),
                      '-o', self.path('out/run'))
        unwrapped, _ = self.read_back(self.path('out/run.unw'))
        cycles, _ = self.read_back(self.path('out/run.cycles'))
        components, _ = self.read_back(self.path('out/run.conncomp'))
        valid = mask != 0
        self.assertEqual(score_unwrapping(unwrapped, self.truth, valid).correct_fraction, 1.0)
        self.assertTrue(numpy.isnan(unwrapped[~valid]).all())
        numpy.testing.assert_array_equal(cycles[~valid], 0)
        numpy.testing.assert_array_equal(
            cycles[valid], numpy.rint((unwrapped[valid] - wrapped[valid]) / (2 * numpy.pi)))
        self.assertEqual(set(numpy.unique(components)), {0, 1})
        with open(self.path('out/run.json')) as f:
            summary = json.load(f)
        self.assertEqual(summary['report']['valid_pixels'], int(valid.sum()))
        self.assertEqual(summary['method'], 'reliability')

    def test_complex_interferogram_through_raw_vrt(self):
        interferogram = numpy.exp(1j * self.truth).astype(numpy.complex64)
        interferogram.tofile(self.path('ifg.raw'))
        height, width = interferogram.shape
        with open(self.path('ifg.vrt'), 'w') as f:
            f.write(f'''<VRTDataset rasterXSize="{width}" rasterYSize="{height}">
  <VRTRasterBand dataType="CFloat32" band="1" subClass="VRTRawRasterBand">
    <SourceFilename relativeToVRT="1">ifg.raw</SourceFilename>
    <ByteOrder>LSB</ByteOrder><ImageOffset>0</ImageOffset>
    <PixelOffset>8</PixelOffset><LineOffset>{8 * width}</LineOffset>
  </VRTRasterBand>
</VRTDataset>''')
        coherence = numpy.full(interferogram.shape, 0.9, numpy.float32)
        coherence[:, :30] = 0.2
        raster_io.write_raster(self.path('coh.flt'), coherence)
        self.run_tool(self.path('ifg.vrt'), '--coherence', self.path('coh.flt'),
                      '--coherence-threshold', '0.5', '--method', 'least_squares',
                      '-o', self.path('ls'))
        unwrapped, _ = self.read_back(self.path('ls.unw'))
        valid = coherence >= 0.5
        self.assertEqual(score_unwrapping(unwrapped, self.truth, valid).correct_fraction, 1.0)
        self.assertTrue(numpy.isnan(unwrapped[~valid]).all())
        self.assertFalse(os.path.exists(self.path('ls.conncomp')))
        with open(self.path('ls.json')) as f:
            summary = json.load(f)
        self.assertTrue(summary['weighted'])
        self.assertGreater(summary['report']['iterations'], 0)

    def test_backend_convergence_and_progress_are_reported(self):
        # The .json and the log say which backend ran; a least-squares solve stopped
        # by --max-iterations before --tolerance is a warning (the outputs are still
        # written: a partial solve is usable, but the user must know), and a long
        # solve logs its elapsed time every --progress-seconds.
        coherence = numpy.full(self.truth.shape, 0.9, numpy.float32)
        coherence[40:90, 60:140] = 0.3
        raster_io.write_raster(self.path('phase.flt'), wrap(self.truth))
        raster_io.write_raster(self.path('coh.flt'), coherence)
        log = self.run_tool(self.path('phase.flt'), '--coherence', self.path('coh.flt'),
                            '--method', 'least_squares', '--max-iterations', '1',
                            '--progress-seconds', '0.001', '-o', self.path('short'))
        with open(self.path('short.json')) as f:
            summary = json.load(f)
        self.assertEqual(summary['backend'], 'cpu')
        self.assertIn('backend cpu', log)
        self.assertEqual(summary['report']['iterations'], 1)
        self.assertFalse(summary['report']['converged'])
        self.assertGreater(summary['report']['relative_residual'], 1e-5)
        self.assertIn('not converged after 1 iteration', log)
        self.assertRegex(log, r'unwrapping: [0-9.]+ s so far')
        log = self.run_tool(self.path('phase.flt'), '--coherence', self.path('coh.flt'),
                            '--method', 'least_squares', '-o', self.path('full'))
        with open(self.path('full.json')) as f:
            self.assertTrue(json.load(f)['report']['converged'])
        self.assertNotIn('not converged', log)

    def test_help_defaults_are_the_librarys(self):
        # --help's defaults come from unwrap_phase_2d's signature, so they cannot drift.
        completed = subprocess.run([sys.executable, TOOL, '--help'], capture_output=True,
                                   text=True, timeout=60)
        self.assertEqual(completed.returncode, 0, completed.stderr)
        text = ' '.join(completed.stdout.split())
        defaults = inspect.signature(cudadsp.unwrap_phase_2d).parameters
        for option, name in (('--max-iterations', 'max_iterations'),
                             ('--tolerance', 'tolerance'),
                             ('--gradient-window', 'gradient_window'),
                             ('--method', 'method')):
            # The option's entry (OPTION METAVAR help), up to the next entry's start.
            self.assertRegex(text, re.escape(option) + r' [A-Z_{]\S*'
                             r'((?! --[a-z-]+ [A-Z_{]).)*?\(default ' +
                             re.escape(str(defaults[name].default)) + r'\)', option)

    def test_geotiff_in_and_out_keeps_georeferencing(self):
        gdal = raster_io.gdal
        self.assertIsNotNone(gdal, 'GDAL (python3-gdal) is part of the set-up')
        wrapped = wrap(self.truth)
        dataset = gdal.GetDriverByName('GTiff').Create(
            self.path('phase.tif'), wrapped.shape[1], wrapped.shape[0], 1, gdal.GDT_Float32)
        geotransform = (500000.0, 30.0, 0.0, 4100000.0, 0.0, -30.0)
        dataset.SetGeoTransform(geotransform)
        dataset.GetRasterBand(1).WriteArray(wrapped)
        dataset = None
        self.run_tool(self.path('phase.tif'), '--format', 'GTiff', '-o', self.path('geo'))
        unwrapped, output = self.read_back(self.path('geo.unw.tif'))
        self.assertEqual(output.GetGeoTransform(), geotransform)
        self.assertEqual(score_unwrapping(unwrapped, self.truth).correct_fraction, 1.0)

    def test_npy_in_degrees(self):
        degrees = (numpy.degrees(wrap(self.truth))).astype(numpy.float32)
        numpy.save(self.path('phase.npy'), degrees)
        self.run_tool(self.path('phase.npy'), '--period', '360', '-o', self.path('deg'))
        unwrapped, _ = self.read_back(self.path('deg.unw'))
        self.assertEqual(score_unwrapping(unwrapped, numpy.degrees(self.truth),
                                          period=360.0).correct_fraction, 1.0)

    def test_gradient_window_one(self):
        # In phase noise of 0.8 rad the pair rule (--gradient-window 1) and the default
        # window of 7 decide some pixels differently: the tool gives the engine's
        # answer for the window it was told.
        noisy = self.truth + numpy.random.default_rng(5).normal(0.0, 0.8, self.truth.shape)
        wrapped = wrap(noisy)
        raster_io.write_raster(self.path('noisy.flt'), wrapped)
        self.run_tool(self.path('noisy.flt'), '--gradient-window', '1',
                      '-o', self.path('pair'))
        cycles, _ = self.read_back(self.path('pair.cycles'))
        expected = {window: cudadsp.unwrap_phase_2d(wrapped, gradient_window=window,
                                                    device='cpu').cycles
                    for window in (1, 7)}
        numpy.testing.assert_array_equal(cycles, expected[1])
        self.assertFalse(numpy.array_equal(expected[1], expected[7]),
                         'windows 1 and 7 agree here: the case shows nothing')
        with open(self.path('pair.json')) as f:
            self.assertEqual(json.load(f)['gradient_window'], 1)

    def test_real_pair_interferogram(self):
        first, second = (data_files.data_file(p) for p in (
            'insar/img1_WN_512x512_1x1_128.vrt', 'insar/img2_WN_512x512_1x1_128.vrt'))
        if first is None or second is None:
            self.skipTest(data_files.absent_reason('insar/img1_WN_512x512_1x1_128.vrt'))
        a, _ = raster_io.read_raster(str(first))
        b, _ = raster_io.read_raster(str(second))
        raster_io.write_raster(self.path('pair.int'), (a * numpy.conj(b)).astype(numpy.complex64))
        self.run_tool(self.path('pair.int'), '-o', self.path('pair'))
        unwrapped, _ = self.read_back(self.path('pair.unw'))
        # The pair has no phase difference: a right unwrapping stays within half a
        # cycle of the flat truth on most pixels. Single-look noise at correlation 0.8
        # leaves about 6 % of them beyond it: scikit-image's unwrap_phase is right on
        # 94.065 % here, the tool (gradient window 7) on 94.111 %.
        score = score_unwrapping(unwrapped, numpy.zeros(unwrapped.shape))
        self.assertGreater(score.correct_fraction, 0.9406)

    def test_invalid_pixels_counted_as_the_engine_counts_them(self):
        # NaN and infinite phases, a coherence of NaN, 0 and -0.5 (no threshold) and a
        # masked pixel are not valid, for either method: the count the tool logs, the
        # report in the .json and the NaN in the .unw say the same.
        wrapped = wrap(self.truth)
        wrapped[3, 4] = numpy.nan
        wrapped[100, 150] = numpy.inf
        coherence = numpy.full(wrapped.shape, 0.8, numpy.float32)
        coherence[10, 20] = numpy.nan
        coherence[20, 30] = 0.0
        coherence[30, 40] = -0.5
        mask = numpy.ones(wrapped.shape, numpy.uint8)
        mask[140, 190] = 0
        valid = numpy.isfinite(wrapped) & (coherence > 0) & (mask != 0)
        raster_io.write_raster(self.path('phase.flt'), wrapped)
        raster_io.write_raster(self.path('coh.flt'), coherence)
        raster_io.write_raster(self.path('mask.byt'), mask)
        for method in ('reliability', 'least_squares'):
            with self.subTest(method=method):
                output = self.run_tool(self.path('phase.flt'), '--coherence',
                                       self.path('coh.flt'), '--mask', self.path('mask.byt'),
                                       '--method', method, '-o', self.path(method))
                logged = re.search(r'(\d+) of (\d+) pixels valid', output)
                self.assertIsNotNone(logged, output)
                self.assertEqual((int(logged[1]), int(logged[2])),
                                 (int(valid.sum()), valid.size))
                with open(self.path(f'{method}.json')) as f:
                    self.assertEqual(json.load(f)['report']['valid_pixels'], int(valid.sum()))
                unwrapped, _ = self.read_back(self.path(f'{method}.unw'))
                numpy.testing.assert_array_equal(numpy.isnan(unwrapped), ~valid)
                self.assertEqual(score_unwrapping(unwrapped, self.truth, valid).correct_fraction,
                                 1.0)

    def test_coherence_weights_are_relative(self):
        # Least squares weighted by a coherence of 0.3 to 1, and by the same times 1e10
        # and 1e-20: the truth and the same .unw each time (weights are relative;
        # scaled as given, 1e10 made every pixel -1.349e10 and the cycles INT32_MIN).
        wrapped = wrap(self.truth)
        raster_io.write_raster(self.path('phase.flt'), wrapped)
        rng = numpy.random.default_rng(15)
        coherence = (0.3 + 0.7 * rng.random(wrapped.shape)).astype(numpy.float32)
        results = []
        for index, scale in enumerate((1.0, 1e10, 1e-20)):
            raster_io.write_raster(self.path(f'coh{index}.flt'),
                                   coherence * numpy.float32(scale))
            self.run_tool(self.path('phase.flt'), '--coherence', self.path(f'coh{index}.flt'),
                          '--method', 'least_squares', '-o', self.path(f'scale{index}'))
            unwrapped, _ = self.read_back(self.path(f'scale{index}.unw'))
            self.assertEqual(score_unwrapping(unwrapped, self.truth).correct_fraction, 1.0,
                             f'scale {scale}')
            with open(self.path(f'scale{index}.json')) as f:
                report = json.load(f)['report']
            self.assertLessEqual(report['relative_residual'], 1e-5, f'scale {scale}')
            results.append(unwrapped)
        for unwrapped in results[1:]:
            numpy.testing.assert_array_equal(unwrapped, results[0])

    def test_memory_checked_before_allocation(self):
        # A 4096 x 4096 input needs 1.39 GiB of workspace for the reliability method on
        # the CPU; with 768 MiB of address space to spare the tool ends with status 1
        # and a message naming the frame and the bytes, no traceback and no output
        # (unchecked: a MemoryError traceback, or under a cgroup limit a SIGKILL).
        rng = numpy.random.default_rng(16)
        raster_io.write_raster(self.path('large.flt'),
                               rng.uniform(-3, 3, (4096, 4096)).astype(numpy.float32))
        # The tool's own imports first, then the limit, then the tool.
        wrapper = (
            'import resource, runpy, sys\n'
            'import numpy\n'
            'import cudadsp\n'
            'from cudadsp.insar import raster_io\n'
            'with open("/proc/self/status") as status:\n'
            '    in_use = next(int(line.split()[1]) * 1024 for line in status\n'
            '                  if line.startswith("VmSize:"))\n'
            'hard = resource.getrlimit(resource.RLIMIT_AS)[1]\n'
            'resource.setrlimit(resource.RLIMIT_AS, (in_use + (768 << 20), hard))\n'
            'sys.argv = sys.argv[1:]\n'
            'runpy.run_path(sys.argv[0], run_name="__main__")\n')
        completed = subprocess.run(
            [sys.executable, '-c', wrapper, TOOL, self.path('large.flt'), '--device', 'cpu',
             '-o', self.path('large')], capture_output=True, text=True, timeout=240)
        output = completed.stdout + completed.stderr
        self.assertEqual(completed.returncode, 1, output)
        self.assertNotIn('Traceback', output)
        self.assertRegex(output, r'a 4096 x 4096 frame .* needs 1494220800 bytes '
                                 r'\(1\.39 GiB\) of host memory; \d+ bytes .* are available')
        self.assertFalse(os.path.exists(self.path('large.unw')))
        self.assertFalse(os.path.exists(self.path('large.json')))

    def test_numbers_must_be_finite(self):
        # nan and inf pass float(): the parser refuses them (status 2), naming the option.
        raster_io.write_raster(self.path('phase.flt'), wrap(self.truth))
        raster_io.write_raster(self.path('coh.flt'),
                               numpy.full(self.truth.shape, 0.8, numpy.float32))
        for option in ('--coherence-threshold', '--period', '--tolerance'):
            for value in ('nan', 'inf', '-inf'):
                with self.subTest(option=option, value=value):
                    output = self.run_tool(self.path('phase.flt'), '--coherence',
                                           self.path('coh.flt'), f'{option}={value}',
                                           '-o', self.path('bad/out'), expect=2)
                    self.assertIn(f'argument {option}: must be finite, got {value}', output)
                    self.assertFalse(os.path.exists(self.path('bad/out.unw')))

    def test_bad_input_is_named_and_leaves_no_output(self):
        wrapped = wrap(self.truth)
        raster_io.write_raster(self.path('phase.flt'), wrapped)
        raster_io.write_raster(self.path('small.flt'), wrapped[:10, :10])
        raster_io.write_raster(self.path('ifg.int'), numpy.exp(1j * wrapped).astype(numpy.complex64))
        cases = [
            ((self.path('missing.flt'),), 'input'),
            ((self.path('phase.flt'), '--coherence', self.path('small.flt')), '--coherence'),
            ((self.path('phase.flt'), '--mask', self.path('small.flt')), '--mask'),
            ((self.path('ifg.int'), '--period', '360'), '--period'),
            ((self.path('phase.flt'), '--coherence-threshold', '0.3'), '--coherence-threshold'),
            ((self.dir,), 'input'),
            ((self.path('phase.flt'), '--tolerance', '0'), 'tolerance'),
            ((self.path('phase.flt'), '--gradient-window', '4'), 'gradient_window'),
        ]
        for arguments, named in cases:
            with self.subTest(arguments=arguments):
                output = self.run_tool(*arguments, '-o', self.path('bad/out'), expect=1)
                self.assertIn(named, output)
                self.assertFalse(os.path.exists(self.path('bad/out.unw')))
                self.assertFalse(os.path.exists(self.path('bad/out.json')))

    def test_non_regular_files_refused_without_blocking(self):
        # A FIFO as the input's header or as another sidecar, as the coherence or the
        # mask, as a .npy input: the tool ends at once naming it; GDAL, handed the
        # raster once the native reader had skipped the FIFO header, blocked in open()
        # for ever.
        wrapped = wrap(self.truth)
        cases = [('phase.flt.hdr', ()), ('phase.npy', ()),
                 ('coh.flt', ('--coherence', 'coh.flt')),
                 ('mask.byt.aux.xml', ('--mask', 'mask.byt'))]
        for index, (fifo, options) in enumerate(cases):
            with self.subTest(fifo=fifo):
                folder = self.path(f'fifo{index}')
                os.makedirs(folder)
                raster_io.write_raster(os.path.join(folder, 'phase.flt'), wrapped)
                raster_io.write_raster(os.path.join(folder, 'coh.flt'),
                                       numpy.ones(wrapped.shape, numpy.float32))
                raster_io.write_raster(os.path.join(folder, 'mask.byt'),
                                       numpy.ones(wrapped.shape, numpy.uint8))
                for name in (fifo, fifo + '.hdr'):
                    if os.path.exists(os.path.join(folder, name)):
                        os.unlink(os.path.join(folder, name))
                os.mkfifo(os.path.join(folder, fifo))
                given = 'phase.npy' if fifo == 'phase.npy' else 'phase.flt'
                arguments = [os.path.join(folder, given)] + [
                    a if a.startswith('--') else os.path.join(folder, a) for a in options]
                output = self.run_tool(*arguments, '-o', os.path.join(folder, 'out'),
                                       expect=1, timeout=60)
                self.assertIn(f'{os.path.join(folder, fifo)}: not a regular file: FIFO',
                              output)
                self.assertFalse(os.path.exists(os.path.join(folder, 'out.unw')))

    def test_a_run_replaces_every_file_of_the_prefix(self):
        raster_io.write_raster(self.path('phase.flt'), wrap(self.truth))
        self.run_tool(self.path('phase.flt'), '-o', self.path('out/run'))
        self.assertTrue(os.path.exists(self.path('out/run.conncomp')))
        self.run_tool(self.path('phase.flt'), '--method', 'least_squares',
                      '-o', self.path('out/run'))
        with open(self.path('out/run.json')) as f:
            self.assertEqual(json.load(f)['method'], 'least_squares')
        self.assertEqual(sorted(os.listdir(self.path('out'))),
                         ['run.cycles', 'run.cycles.hdr', 'run.json', 'run.unw',
                          'run.unw.hdr'], 'the reliability run\'s .conncomp is stale')
        self.run_tool(self.path('phase.flt'), '--format', 'GTiff', '-o', self.path('out/run'))
        self.assertEqual(sorted(os.listdir(self.path('out'))),
                         ['run.conncomp.tif', 'run.cycles.tif', 'run.json', 'run.unw.tif'])

    def test_outputs_honour_the_umask_and_json_is_strict(self):
        # An input whose pixels are all masked, the report's edge; the .json is read
        # by a parser that refuses NaN (qa_output_set writes one).
        raster_io.write_raster(self.path('phase.flt'), wrap(self.truth))
        raster_io.write_raster(self.path('none.byt'),
                               numpy.zeros(self.truth.shape, numpy.uint8))
        for umask, mode in ((0o022, 0o644), (0o027, 0o640)):
            self.run_tool(self.path('phase.flt'), '--method', 'least_squares', '--mask',
                          self.path('none.byt'), '-o', self.path(f'm{umask:o}/run'),
                          umask=umask)
            for name in os.listdir(self.path(f'm{umask:o}')):
                self.assertEqual(os.stat(self.path(f'm{umask:o}/{name}')).st_mode & 0o777,
                                 mode, f'{name} with umask {umask:o}')

        def refuse(constant):
            raise ValueError(f'{constant} is not JSON')
        with open(self.path('m22/run.json')) as f:
            report = json.loads(f.read(), parse_constant=refuse)['report']
        self.assertEqual(report['valid_pixels'], 0)

    def run_on_a_full_disk(self, arguments, size_kib):
        '''Two runs of prefix DISK/run in a tmpfs of size_kib: a small input (it fits),
        then arguments (it does not). Returns the second run\'s status and messages
        and a copy of the tmpfs as it was left (the tmpfs goes with its namespace).'''
        if shutil.which('unshare') is None:
            self.skipTest('unshare (util-linux) is not installed')
        disk, copy = self.path('disk'), self.path('left')
        for folder in (disk, copy):
            shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(disk)
        raster_io.write_raster(self.path('small.flt'), wrap(self.truth[:40, :50]))
        tool = [sys.executable, TOOL, '--device', 'cpu', '-o', f'{disk}/run']
        script = (f'mount -t tmpfs -o size={size_kib}k tmpfs {disk} || exit 99\n'
                  f'{shlex.join(tool)} {shlex.join(arguments)} {self.path("small.flt")} '
                  '|| exit 98\n'
                  f'{shlex.join(tool)} {shlex.join(arguments)} {self.path("phase.flt")}\n'
                  f'status=$?; cp -a {disk} {copy}; exit $status\n')
        completed = subprocess.run(['unshare', '--mount', '--map-root-user', 'sh', '-c',
                                    script], capture_output=True, text=True, timeout=240)
        if completed.returncode == 99:
            self.skipTest(f'no tmpfs in a user namespace here: {completed.stderr}')
        self.assertNotEqual(completed.returncode, 98, completed.stderr)
        return completed.returncode, completed.stdout + completed.stderr, copy

    def test_a_full_disk_leaves_the_earlier_set(self):
        raster_io.write_raster(self.path('phase.flt'), wrap(self.truth))
        # 150 x 200 pixels: 117 KiB a raster; the small input's set is 25 KiB.
        for format, named in (('ENVI', 'ENOSPC'), ('GTiff', 'No space left on device')):
            with self.subTest(format=format):
                status, messages, left = self.run_on_a_full_disk(
                    ['--format', format], 160)
                self.assertEqual(status, 1, messages)
                self.assertIn(named, messages)
                self.assertRegex(messages, r'disk/run\.(unw|cycles|conncomp)')
                self.assertNotIn('Exception ignored', messages)
                names = sorted(os.listdir(left))
                self.assertEqual([n for n in names if n.startswith('.')], [],
                                 'temporaries left')
                with open(os.path.join(left, 'run.json')) as f:
                    summary = json.load(f)
                self.assertEqual(summary['input'], self.path('small.flt'),
                                 'the .json describes the set beside it')
                self.assertEqual(sorted(os.path.basename(p) for p in summary['outputs']),
                                 sorted(n for n in names if not n.endswith(('.hdr', '.json'))))
                unwrapped, _ = self.read_back(os.path.join(
                    left, 'run.unw' + ('.tif' if format == 'GTiff' else '')))
                self.assertEqual(unwrapped.shape, (40, 50))


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--tool', required=True)
    arguments, rest = parser.parse_known_args()
    TOOL = arguments.tool
    sys.argv = [sys.argv[0]] + rest
    data_files.run_tests()
