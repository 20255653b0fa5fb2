#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
cudadsp_offsets as a user runs it (CPU backend): SLC rasters in (ENVI complex float32, a
raw CInt16 VRT), PyCuAmpcor's outputs out, read back through GDAL and checked against
the known shift of synthetic pairs and against the Python API on the same arrays; a
stack of three pairs with one broken: the good pairs' outputs equal their single-pair
runs byte for byte, the broken one is reported in the summary, has no outputs, and the
tool exits with 1; bad input ends with status 1, a message naming the parameter, and no
output file.

The outputs of a pair are one set: a run's gross-offset raster may be the previous run's
_gross.bip in the same folder; a --prefix that leaves the folder is refused; a stack
stopped by SIGINT or SIGTERM exits with 128 + the signal, its summary says which pairs
it completed and which not, each folder holds one complete set (this run's or the
earlier one) and no temporary is left; outputs honour the umask.
'''

import argparse
import csv
import filecmp
import json
import os
import signal
import subprocess
import sys
import tempfile
import unittest

import numpy

import cudadsp
from cudadsp.common import data_files
from cudadsp.insar import raster_io

TOOL = None

OPTIONS = ['--window-width', '32', '--window-height', '32', '--half-search-across', '8',
           '--half-search-down', '8', '--skip-across', '32', '--skip-down', '32']
API_OPTIONS = dict(window_width=32, window_height=32, half_search_across=8,
                   half_search_down=8, skip_across=32, skip_down=32)
# Band order of each output, as cuDenseOffsets.py writes them (the peak: v2's).
OUTPUTS = {'dense_offsets.bip': ('offset_down', 'offset_across'),
           'dense_offsets_gross.bip': ('gross_down', 'gross_across'),
           'dense_offsets_snr.bip': ('snr',),
           'dense_offsets_cov.bip': ('cov_down', 'cov_across', 'cov_cross'),
           'dense_offsets_peak.bip': ('peak',)}


def shifted_pair(shape, shift, seed):
    '''Speckle band-limited to half the band and the same moved by shift (down, across).'''
    rng = numpy.random.default_rng(seed)
    noise = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    fd = numpy.fft.fftfreq(shape[0])[:, None]
    fa = numpy.fft.fftfreq(shape[1])[None, :]
    spectrum = numpy.fft.fft2(noise) * ((abs(fd) < 0.25) & (abs(fa) < 0.25))
    ramp = numpy.exp(-2j * numpy.pi * (fd * shift[0] + fa * shift[1]))
    return (numpy.fft.ifft2(spectrum).astype(numpy.complex64),
            numpy.fft.ifft2(spectrum * ramp).astype(numpy.complex64))


class qa_offsets_tool(unittest.TestCase):

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.dir = self.folder.name

    def tearDown(self):
        self.folder.cleanup()

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def run_tool(self, *arguments, expect=0, timeout=240, umask=-1):
        # --device cpu first, so that a case's own --device comes after it and counts.
        try:
            completed = subprocess.run([sys.executable, TOOL, '--device', 'cpu',
                                        *arguments], capture_output=True, text=True,
                                       timeout=timeout, umask=umask)
        except subprocess.TimeoutExpired:
            self.fail(f'{arguments}: still running after {timeout} s (blocked?)')
        self.assertEqual(completed.returncode, expect,
                         f'{arguments}: {completed.stdout}\n{completed.stderr}')
        return completed.stdout + completed.stderr

    def write_pair(self, name, shape, shift, seed):
        reference, secondary = shifted_pair(shape, shift, seed)
        raster_io.write_raster(self.path(f'{name}_ref.slc'), reference)
        raster_io.write_raster(self.path(f'{name}_sec.slc'), secondary)
        return reference, secondary

    def read_outputs(self, folder):
        '''Every band of every output, through GDAL from both the data file (ENVI
        driver) and the VRT, which must agree.'''
        gdal = raster_io.gdal
        self.assertIsNotNone(gdal, 'GDAL (python3-gdal) is part of the set-up')
        bands = {}
        for name, fields in OUTPUTS.items():
            for opened in (name, name + '.vrt'):
                dataset = gdal.Open(os.path.join(folder, opened))
                self.assertEqual(dataset.RasterCount, len(fields), opened)
                for index, field in enumerate(fields):
                    band = dataset.GetRasterBand(index + 1)
                    self.assertEqual(gdal.GetDataTypeName(band.DataType), 'Float32')
                    array = band.ReadAsArray()
                    if field in bands:
                        numpy.testing.assert_array_equal(array, bands[field], opened)
                    bands[field] = array
                dataset = None
        return bands

    def assert_equals_api(self, bands, result):
        for field in bands:
            numpy.testing.assert_array_equal(bands[field], getattr(result, field),
                                             err_msg=field)

    def test_single_pair(self):
        reference, secondary = self.write_pair('p', (200, 232), (1.3, -2.6), seed=7)
        output = self.run_tool('--reference', self.path('p_ref.slc'), '--secondary',
                               self.path('p_sec.slc'), *OPTIONS, '-o', self.path('out'))
        self.assertIn('20 windows', output)
        bands = self.read_outputs(self.path('out'))
        self.assertEqual(bands['offset_down'].shape, (4, 5))
        numpy.testing.assert_allclose(bands['offset_down'], 1.3, atol=0.04)
        numpy.testing.assert_allclose(bands['offset_across'], -2.6, atol=0.04)
        numpy.testing.assert_array_equal(bands['gross_down'], 0)
        self.assert_equals_api(bands, cudadsp.dense_offsets(reference, secondary,
                                                            **API_OPTIONS, device='cpu'))
        with open(self.path('out', 'dense_offsets.json')) as f:
            summary = json.load(f)
        self.assertEqual(summary['grid']['number_across'], 5)
        self.assertEqual(summary['report']['backend'], 'cpu')

    def test_cint16_vrt_and_gross_offset_raster(self):
        reference, secondary = shifted_pair((220, 240), (6.2, -5.4), seed=3)
        pairs = []
        for name, image in (('ref', reference), ('sec', secondary)):
            iq = numpy.empty(image.shape + (2,), '<i2')
            iq[..., 0] = numpy.rint(image.real * 2000)
            iq[..., 1] = numpy.rint(image.imag * 2000)
            iq.tofile(self.path(f'{name}.raw'))
            with open(self.path(f'{name}.vrt'), 'w') as f:
                f.write(f'''<VRTDataset rasterXSize="{image.shape[1]}" rasterYSize="{image.shape[0]}">
  <VRTRasterBand dataType="CInt16" band="1" subClass="VRTRawRasterBand">
    <SourceFilename relativeToVRT="1">{name}.raw</SourceFilename>
    <ByteOrder>LSB</ByteOrder><ImageOffset>0</ImageOffset>
    <PixelOffset>4</PixelOffset><LineOffset>{4 * image.shape[1]}</LineOffset>
  </VRTRasterBand>
</VRTDataset>''')
            pairs.append(iq)
        # Per-window gross offsets near the truth; the grid of this layout is 4 x 5.
        rng = numpy.random.default_rng(2)
        gross = (6 + rng.integers(-2, 3, (4, 5)), -5 + rng.integers(-2, 3, (4, 5)))
        raster_io.write_bands(self.path('gross.bip'), [g.astype(numpy.float32)
                                                       for g in gross], ['down', 'across'])
        layout = ['--start-down', '20', '--start-across', '20', '--number-down', '4',
                  '--number-across', '5']
        self.run_tool('--reference', self.path('ref.vrt'), '--secondary',
                      self.path('sec.vrt'), *OPTIONS, *layout, '--gross-offset-raster',
                      self.path('gross.bip.vrt'), '--merge-gross-offset',
                      '-o', self.path('out'))
        bands = self.read_outputs(self.path('out'))
        numpy.testing.assert_array_equal(bands['gross_down'], gross[0])
        numpy.testing.assert_allclose(bands['offset_down'], 6.2, atol=0.04)
        numpy.testing.assert_allclose(bands['offset_across'], -5.4, atol=0.04)
        self.assert_equals_api(bands, cudadsp.dense_offsets(
            *pairs, **API_OPTIONS, start_down=20, start_across=20, number_down=4,
            number_across=5, gross_offset_down=gross[0], gross_offset_across=gross[1],
            merge_gross_offset=True, device='cpu'))
        # The raster of another grid's shape is refused, naming it, with no output.
        raster_io.write_bands(self.path('gross3.bip'), [g[:3] for g in gross], ['d', 'a'])
        output = self.run_tool('--reference', self.path('ref.vrt'), '--secondary',
                               self.path('sec.vrt'), *OPTIONS, *layout,
                               '--gross-offset-raster', self.path('gross3.bip'),
                               '-o', self.path('bad'), expect=1)
        self.assertIn('--gross-offset-raster', output)
        self.assertIn('number_down x number_across = 4 x 5', output)
        self.assertEqual(os.listdir(self.path('bad')) if os.path.isdir(self.path('bad'))
                         else [], [])

    def test_stack_with_a_broken_pair(self):
        shifts = {'a': (0.7, -1.2), 'c': (-2.3, 0.4)}
        for seed, (name, shift) in enumerate(shifts.items()):
            self.write_pair(name, (200, 232), shift, seed)
        # Pair b: a secondary of another size.
        self.write_pair('b', (200, 232), (0.0, 0.0), 9)
        raster_io.write_raster(self.path('b_sec.slc'),
                               shifted_pair((180, 232), (0, 0), 9)[1])
        with open(self.path('pairs.txt'), 'w') as f:
            f.write('# three pairs, the second broken\n'
                    'a_ref.slc a_sec.slc\n\n'
                    'b_ref.slc b_sec.slc\n'
                    'c_ref.slc c_sec.slc stack/c_custom\n')
        output = self.run_tool('--pairs', self.path('pairs.txt'), *OPTIONS,
                               '-o', self.path('stack'), expect=1)
        self.assertIn('pair 3 of 3', output)
        self.assertIn('b_ref_b_sec', output)
        with open(self.path('stack', 'offsets_summary.csv')) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([(r['pair'], r['status']) for r in rows],
                         [('a_ref_a_sec', 'ok'), ('b_ref_b_sec', 'failed'),
                          ('c_custom', 'ok')])
        self.assertIn('reference and secondary', rows[1]['message'])
        self.assertEqual(rows[0]['windows'], '20')
        with open(self.path('stack', 'offsets_summary.md')) as f:
            self.assertIn('| b_ref_b_sec | failed |', f.read())
        self.assertFalse(os.path.exists(self.path('stack', 'b_ref_b_sec',
                                                  'dense_offsets.json')))
        self.assertFalse(os.path.exists(self.path('stack', 'b_ref_b_sec',
                                                  'dense_offsets.bip')))
        for name, folder in (('a', 'a_ref_a_sec'), ('c', 'c_custom')):
            self.run_tool('--reference', self.path(f'{name}_ref.slc'), '--secondary',
                          self.path(f'{name}_sec.slc'), *OPTIONS,
                          '-o', self.path('single', name))
            for output_name in OUTPUTS:
                self.assertTrue(filecmp.cmp(self.path('stack', folder, output_name),
                                            self.path('single', name, output_name),
                                            shallow=False), f'{name}: {output_name}')
            bands = self.read_outputs(self.path('stack', folder))
            numpy.testing.assert_allclose(bands['offset_down'], shifts[name][0], atol=0.04)

    def test_isce_pair(self):
        paths = [data_files.data_file(p) for p in ('insar/img1_WN_512x512_1x1_128.vrt',
                                                   'insar/img2_WN_512x512_1x1_128.vrt')]
        if None in paths:
            self.skipTest(data_files.absent_reason('insar/img1_WN_512x512_1x1_128.vrt'))
        # The configuration, on the whole pair: 13 x 12 windows.
        self.run_tool('--reference', str(paths[0]), '--secondary', str(paths[1]),
                      '--ww', '64', '--wh', '32', '--sw', '20', '--sh', '20', '--kw', '32',
                      '--kh', '32', '--raw-oversampling', '2', '--oo', '64', '--zoom', '8',
                      '-o', self.path('isce'))
        bands = self.read_outputs(self.path('isce'))
        self.assertEqual(bands['offset_down'].shape, (13, 12))
        reference, _ = raster_io.read_slc(str(paths[0]))
        secondary, _ = raster_io.read_slc(str(paths[1]))
        self.assert_equals_api(bands, cudadsp.dense_offsets(
            reference, secondary, window_width=64, window_height=32, skip_across=32,
            skip_down=32, corr_oversampling=64, zoom_window=8, device='cpu'))

    def test_bad_input_is_named_and_leaves_no_output(self):
        self.write_pair('p', (200, 232), (0.0, 0.0), 1)
        raster_io.write_raster(self.path('small.slc'),
                               numpy.ones((100, 232), numpy.complex64))
        raster_io.write_raster(self.path('real.flt'), numpy.ones((200, 232), numpy.float32))
        with open(self.path('bad_pairs.txt'), 'w') as f:
            f.write('p_ref.slc\n')
        pair = ['--reference', self.path('p_ref.slc'), '--secondary', self.path('p_sec.slc')]
        cases = [
            (['--reference', self.path('missing.slc'), '--secondary',
              self.path('p_sec.slc')], 'reference'),
            (['--reference', self.path('p_ref.slc'), '--secondary',
              self.path('small.slc')], 'reference and secondary'),
            (['--reference', self.path('p_ref.slc'), '--secondary',
              self.path('real.flt')], 'secondary'),
            ([*pair, '--window-width', '300'], 'window_width'),
            ([*pair, '--start-down', '0', '--number-down', '2'],
             'secondary pixels down'),
            ([*pair, '--gross-offset', '0', '200', '--start-down', '20', '--number-down',
              '1', '--start-across', '20', '--number-across', '1'], 'gross_offset_across'),
            ([*pair, '--zoom', '3'], 'zoom_window'),
            ([*pair, '--corr-stat-window', '1'], 'corr_stat_window'),
            ([*pair, '--device', 'gpu0'], 'device'),
            (['--pairs', self.path('bad_pairs.txt')], 'line 1'),
        ]
        for index, (arguments, named) in enumerate(cases):
            with self.subTest(arguments=arguments):
                folder = self.path('bad', str(index))
                output = self.run_tool(*arguments, '-o', folder, expect=1)
                self.assertIn(named, output)
                self.assertEqual(os.listdir(folder) if os.path.isdir(folder) else [], [])

    def test_non_regular_files_refused_without_blocking(self):
        # A FIFO wherever an input is opened (data file, header and other sidecars, a
        # VRT's source, the gross-offset raster and its header, the pair list): the
        # tool ends at once, naming the file; it blocked in open() for ever.
        def pair(folder):
            os.makedirs(folder)
            for role, image in zip(('ref', 'sec'), shifted_pair((200, 232), (0, 0), 3)):
                raster_io.write_raster(os.path.join(folder, f'{role}.slc'), image)
                image.tofile(os.path.join(folder, f'{role}.raw'))
            with open(os.path.join(folder, 'ref.vrt'), 'w') as f:
                f.write('<VRTDataset rasterXSize="232" rasterYSize="200">\n'
                        '  <VRTRasterBand dataType="CFloat32" band="1" '
                        'subClass="VRTRawRasterBand">\n'
                        '    <SourceFilename relativeToVRT="1">ref.raw</SourceFilename>\n'
                        '  </VRTRasterBand>\n</VRTDataset>\n')
            zeros = numpy.zeros((4, 5), numpy.float32)
            raster_io.write_bands(os.path.join(folder, 'gross.bip'), [zeros, zeros],
                                  ['down', 'across'])
            with open(os.path.join(folder, 'pairs.txt'), 'w') as f:
                f.write('ref.slc sec.slc out\n')
            return folder

        cases = [('ref.slc.hdr', 'ref.slc'), ('sec.slc.aux.xml', 'sec.slc'),
                 ('sec.slc', 'sec.slc'), ('ref.raw', 'ref.vrt'),
                 ('gross.bip', 'gross.bip'), ('gross.bip.hdr', 'gross.bip'),
                 ('pairs.txt', 'pairs.txt')]
        for index, (fifo, given) in enumerate(cases):
            with self.subTest(fifo=fifo):
                folder = pair(self.path(f'fifo{index}'))
                if os.path.exists(os.path.join(folder, fifo)):
                    os.unlink(os.path.join(folder, fifo))
                os.mkfifo(os.path.join(folder, fifo))
                arguments = {'ref.slc': ['--reference', 'ref.slc', '--secondary',
                                         'sec.slc'],
                             'sec.slc': ['--reference', 'ref.slc', '--secondary',
                                         'sec.slc'],
                             'ref.vrt': ['--reference', 'ref.vrt', '--secondary',
                                         'sec.slc'],
                             'gross.bip': ['--reference', 'ref.slc', '--secondary',
                                           'sec.slc', '--gross-offset-raster',
                                           'gross.bip'],
                             'pairs.txt': ['--pairs', 'pairs.txt']}[given]
                arguments = [a if a.startswith('--') else os.path.join(folder, a)
                             for a in arguments]
                output = self.run_tool(*arguments, *OPTIONS, '-o',
                                       os.path.join(folder, 'out'), expect=1, timeout=60)
                self.assertIn(f'{os.path.join(folder, fifo)}: not a regular file: FIFO',
                              output)

    def test_input_cut_while_a_stack_runs(self):
        # Pair b's secondary is cut to half once the tool has opened it, as a file
        # still being copied or replaced would be: pair b fails naming the file, pairs
        # a and c run and the summary is written. A memory map of the file ended the
        # process with SIGBUS (exit 135): no message, no summary, no pair c.
        for name, seed in (('a', 1), ('b', 2), ('c', 3)):
            self.write_pair(name, (200, 232), (0.5, -1.0), seed)
        with open(self.path('pairs.txt'), 'w') as f:
            f.write('a_ref.slc a_sec.slc\nb_ref.slc b_sec.slc\nc_ref.slc c_sec.slc\n')
        script = f"""
import os, runpy, sys
from cudadsp.insar import raster_io
opened = raster_io.read_slc
def read_then_cut(path, parameter='image'):
    image = opened(path, parameter)
    if path.endswith('b_sec.slc'):
        os.truncate(path, os.path.getsize(path) // 2)
    return image
raster_io.read_slc = read_then_cut
tool = runpy.run_path({TOOL!r}, run_name='cudadsp_offsets')
sys.exit(tool['main'](['--device', 'cpu', '--pairs', {self.path('pairs.txt')!r},
                       '-o', {self.path('stack')!r}, *{OPTIONS!r}]))
"""
        completed = subprocess.run([sys.executable, '-c', script], capture_output=True,
                                   text=True, timeout=240)
        self.assertEqual(completed.returncode, 1, completed.stderr)
        with open(self.path('stack', 'offsets_summary.csv'), newline='') as f:
            rows = {row['pair']: row for row in csv.DictReader(f)}
        self.assertEqual({name: row['status'] for name, row in rows.items()},
                         {'a_ref_a_sec': 'ok', 'b_ref_b_sec': 'failed',
                          'c_ref_c_sec': 'ok'})
        self.assertIn(f'secondary: {self.path("b_sec.slc")}: ends at byte',
                      rows['b_ref_b_sec']['message'])
        self.assertIn('cut after it was opened', rows['b_ref_b_sec']['message'])
        self.assertTrue(os.path.exists(self.path('stack', 'c_ref_c_sec',
                                                 'dense_offsets.json')))

    def test_huge_integers_named(self):
        # Refused by name before any allocation: 10^10 windows made NumPy arrays of
        # 80 GB (MemoryError, a traceback); 10^20 reached pybind11 (TypeError).
        self.write_pair('p', (200, 232), (0.0, 0.0), 1)
        pair = ['--reference', self.path('p_ref.slc'), '--secondary', self.path('p_sec.slc')]
        for option, named in (('--number-across', 'number_across: 10000000000 windows'),
                              ('--number-down', 'number_down: 10000000000 windows'),
                              ('--ww', 'window_width: 99999999999999999999 is too large'),
                              ('--sh', 'half_search_down: 99999999999999999999 is too'),
                              ('--skip-across', 'skip_across: 99999999999999999999 is'),
                              ('--start-down', 'start_down: 99999999999999999999 is')):
            with self.subTest(option=option):
                value = '10000000000' if option.startswith('--number') else \
                    '99999999999999999999'
                output = self.run_tool(*pair, *OPTIONS, option, value, '-o',
                                       self.path('huge'), expect=1, timeout=60)
                self.assertIn(named, output)
                self.assertNotIn('Traceback', output)

    def test_gross_offset_raster_beyond_any_image(self):
        # One rule for every gross offset: 1e30 was cast to 0 and run, 3e9 refused.
        self.write_pair('p', (200, 232), (0.0, 0.0), 1)
        pair = ['--reference', self.path('p_ref.slc'), '--secondary', self.path('p_sec.slc')]
        for value, named in ((1e30, '1e+30 pixels is beyond any image'),
                             (-1e30, '-1e+30 pixels is beyond any image'),
                             (3e9, '3000000000.0 pixels is beyond any image'),
                             (numpy.inf, 'must be whole numbers of pixels, finite'),
                             (numpy.nan, 'must be whole numbers of pixels, finite')):
            with self.subTest(value=value):
                down = numpy.zeros((4, 5), numpy.float32)
                down[2, 3] = value
                gross = self.path('gross.bip')
                raster_io.write_bands(gross, [down, numpy.zeros_like(down)],
                                      ['down', 'across'])
                output = self.run_tool(*pair, *OPTIONS, '--gross-offset-raster', gross,
                                       '-o', self.path('gross_run'), expect=1)
                self.assertIn(f'--gross-offset-raster: {gross}: band 1 (down): {named}',
                              output)

    def test_raster_geometry_errors_name_file_and_field(self):
        self.write_pair('p', (200, 232), (0.0, 0.0), 1)
        os.link(self.path('p_ref.slc'), self.path('p_ref.raw'))
        cases = [('<ImageOffset>-8</ImageOffset>', 'ImageOffset must be at least 0, got -8'),
                 (f'<LineOffset>{10**30}</LineOffset>', f'LineOffset {10**30}'),
                 ('<PixelOffset>4</PixelOffset>', 'PixelOffset must be at least 8, got 4'),
                 ('<LineOffset>1.5</LineOffset>', "LineOffset is not an integer: '1.5'")]
        for index, (element, named) in enumerate(cases):
            with self.subTest(element=element):
                vrt = self.path(f'geometry{index}.vrt')
                with open(vrt, 'w') as f:
                    f.write('<VRTDataset rasterXSize="232" rasterYSize="200">\n'
                            '  <VRTRasterBand dataType="CFloat32" band="1" '
                            'subClass="VRTRawRasterBand">\n'
                            '    <SourceFilename relativeToVRT="1">p_ref.raw'
                            f'</SourceFilename>\n    {element}\n'
                            '  </VRTRasterBand>\n</VRTDataset>\n')
                output = self.run_tool('--reference', vrt, '--secondary',
                                       self.path('p_sec.slc'), *OPTIONS, '-o',
                                       self.path('geometry'), expect=1)
                self.assertIn(f'reference: ', output)
                self.assertIn(vrt, output)
                self.assertIn(named, output)
        with open(self.path('p_sec.slc.hdr')) as f:
            header = f.read()
        with open(self.path('p_sec.slc.hdr'), 'w') as f:
            f.write(header.replace('header offset = 0', 'header offset = -5'))
        output = self.run_tool('--reference', self.path('p_ref.slc'), '--secondary',
                               self.path('p_sec.slc'), *OPTIONS, '-o',
                               self.path('geometry'), expect=1)
        self.assertIn(f'secondary: {self.path("p_sec.slc.hdr")}: "header offset" must be '
                      'at least 0, got -5', output)

    def test_gross_offset_raster_of_the_previous_run_in_the_folder(self):
        reference, secondary = self.write_pair('p', (220, 240), (6.2, -5.4), seed=3)
        layout = ['--start-down', '20', '--start-across', '20', '--number-down', '4',
                  '--number-across', '5']
        rng = numpy.random.default_rng(4)
        gross = (6 + rng.integers(-2, 3, (4, 5)), -5 + rng.integers(-2, 3, (4, 5)))
        raster_io.write_bands(self.path('gross.bip'), [g.astype(numpy.float32)
                                                       for g in gross], ['down', 'across'])
        pair = ['--reference', self.path('p_ref.slc'), '--secondary', self.path('p_sec.slc'),
                *OPTIONS, *layout, '-o', self.path('out')]
        self.run_tool(*pair, '--gross-offset-raster', self.path('gross.bip'))
        # The documented use: the previous run's gross offsets, in the folder the new
        # run writes to (the new run replaces that very file).
        self.run_tool(*pair, '--gross-offset-raster',
                      self.path('out', 'dense_offsets_gross.bip'))
        bands = self.read_outputs(self.path('out'))
        numpy.testing.assert_array_equal(bands['gross_down'], gross[0])
        numpy.testing.assert_array_equal(bands['gross_across'], gross[1])
        self.assert_equals_api(bands, cudadsp.dense_offsets(
            reference, secondary, **API_OPTIONS, start_down=20, start_across=20,
            number_down=4, number_across=5, gross_offset_down=gross[0],
            gross_offset_across=gross[1], device='cpu'))

    def test_prefix_leaving_the_folder_is_refused(self):
        self.write_pair('p', (200, 232), (0.0, 0.0), 1)
        pair = ['--reference', self.path('p_ref.slc'), '--secondary', self.path('p_sec.slc'),
                *OPTIONS]
        for prefix in ('../common', 'sub/name', '..', ''):
            with self.subTest(prefix=prefix):
                output = self.run_tool(*pair, '--prefix', prefix, '-o',
                                       self.path('out', 'pair'), expect=1)
                self.assertIn('--prefix', output)
                self.assertEqual(sorted(os.listdir(self.path())), ['p_ref.slc', 'p_ref.slc.hdr',
                                                          'p_sec.slc', 'p_sec.slc.hdr'],
                                 'nothing written')

    def test_outputs_honour_the_umask(self):
        self.write_pair('p', (200, 232), (0.5, 0.5), 1)
        with open(self.path('pairs.txt'), 'w') as f:
            f.write('p_ref.slc p_sec.slc\n')
        self.run_tool('--pairs', self.path('pairs.txt'), *OPTIONS, '-o', self.path('stack'),
                      umask=0o022)
        for folder, _, names in os.walk(self.path('stack')):
            for name in names:
                self.assertEqual(os.stat(os.path.join(folder, name)).st_mode & 0o777, 0o644,
                                 name)

    def test_interrupted_stack(self):
        # Pair b is larger, so that a signal sent as it starts arrives while it runs.
        sizes = {'a': (200, 232), 'b': (600, 600), 'c': (200, 232), 'd': (200, 232)}
        for seed, (name, shape) in enumerate(sizes.items()):
            self.write_pair(name, shape, (0.5 * seed, -0.25 * seed), seed)
        with open(self.path('pairs.txt'), 'w') as f:
            f.write(''.join(f'{n}_ref.slc {n}_sec.slc stack/{n}\n' for n in sizes))
        for signum in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(signal=signum.name):
                self.run_tool('--pairs', self.path('pairs.txt'), *OPTIONS,
                              '-o', self.path('stack'))
                # This run's windows are spaced 16 apart, the earlier run's 32.
                output = []
                with subprocess.Popen(
                        [sys.executable, TOOL, '--device', 'cpu', '--pairs',
                         self.path('pairs.txt'), *OPTIONS, '--skip-across', '16',
                         '-o', self.path('stack')],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True) as run:
                    try:
                        for line in run.stdout:
                            output.append(line)
                            if 'pair 2 of 4' in line:
                                run.send_signal(signum)
                                break
                        output += run.stdout.readlines()
                        status = run.wait(timeout=60)
                    finally:
                        run.kill()
                output = ''.join(output)
                self.assertEqual(status, 128 + signum, output)
                self.assertIn(f'interrupted by {signum.name}', output)
                with open(self.path('stack', 'offsets_summary.csv')) as f:
                    rows = {r['pair']: r for r in csv.DictReader(f)}
                self.assertEqual({n: r['status'] for n, r in rows.items()},
                                 {'a': 'ok', 'b': 'not run', 'c': 'not run',
                                  'd': 'not run'}, output)
                self.assertIn(f'interrupted by {signum.name} while it ran',
                              rows['b']['message'])
                self.assertIn('not reached', rows['c']['message'])
                with open(self.path('stack', 'offsets_summary.md')) as f:
                    self.assertIn(f'1 ok, 0 failed, 3 not run (interrupted by {signum.name})',
                                  f.read())
                self.assert_complete_sets(self.path('stack'), {'a': 16, 'b': 32, 'c': 32,
                                                               'd': 32})

    def assert_complete_sets(self, root, skips):
        '''Every pair folder holds one whole set, with the window spacing across
        given, and no temporary is left anywhere.'''
        for folder, _, names in os.walk(root):
            self.assertEqual([n for n in names if n.startswith('.') or n.endswith('.part')],
                             [], f'temporaries in {folder}')
        for name, skip in skips.items():
            with open(os.path.join(root, name, 'dense_offsets.json')) as f:
                grid = json.load(f)['grid']
            self.assertEqual(grid['skip_across'], skip, name)
            windows = grid['number_down'] * grid['number_across']
            for output, fields in OUTPUTS.items():
                self.assertEqual(os.path.getsize(os.path.join(root, name, output)),
                                 4 * len(fields) * windows, f'{name}/{output}')


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--tool', required=True)
    arguments, rest = parser.parse_known_args()
    TOOL = arguments.tool
    sys.argv = [sys.argv[0]] + rest
    data_files.run_tests()
