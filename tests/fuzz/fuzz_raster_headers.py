#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
Fuzzing of the raster headers that raster_io parses itself (docs/fuzzing.md): ENVI
.hdr files and GDAL VRTs of raw bands, as cudadsp_offsets, cudadsp_unwrap and
cudadsp_stack read them. Python, so Hypothesis rather than libFuzzer.

Each example writes a header (a seed of tests/fuzz/raster_header_seeds mutated byte
by byte, or one built field by field from values around and far beyond the valid ones)
and a data file of random length beside it, then reads it with read_raster() (every
band asked: 1 to 3) and read_slc(). The only outcome allowed besides an image is
raster_io.raster_error (a ValueError) whose message starts with the parameter, names a
file of the example and is one line; an image read must have the shape and the native
byte order its raster_info says. Any other exception, or an example that runs 10 s
(a hang), fails. GDAL is switched off: what is fuzzed is this module's parsing, not
GDAL's.

CI runs the examples of fixed seeds: reproducible. Set
CUDADSP_FUZZ_SEED=<n> to explore others, CUDADSP_FUZZ_EXAMPLES=<n> and
CUDADSP_FUZZ_SECONDS=<s> (each test stops after s seconds, 90 by default) for a longer
run.
Usage: fuzz_raster_headers.py --seeds tests/fuzz/raster_header_seeds
'''

import argparse
import os
import re
import signal
import sys
import tempfile
import time
import unittest
from xml.sax.saxutils import escape as xml_escape

import numpy
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from cudadsp.insar import raster_io

SEEDS = {}
EXAMPLES = int(os.environ.get('CUDADSP_FUZZ_EXAMPLES', '1500'))
# Each test stops taking examples after this long, however many it has run: the run
# stays bounded on a loaded machine.
BUDGET_S = float(os.environ.get('CUDADSP_FUZZ_SECONDS', '90'))
CHUNK = 100
FUZZ_SEED = os.environ.get('CUDADSP_FUZZ_SEED')
PARAMETER = 'fuzz'
EXAMPLE_LIMIT_S = 10

# Values around and far beyond the valid ones, and text that is no number.
NUMBERS = st.one_of(st.integers(-3, 70), st.sampled_from(
    [-2**31, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 10**30, -10**30]))
WORDS = st.sampled_from(['', ' ', '1.5', '1e3', '0x10', 'nan', 'inf', '-0', '+7', '٣',
                         '{', '}', '{8}', '\x00', '&amp;', '<', 'ENVI', 'bsq', 'bil',
                         'bip', 'BIP', 'MSB', 'LSB', 'CInt16', '9' * 5000])
VALUES = st.one_of(NUMBERS.map(str), WORDS)
TOKENS = st.one_of(VALUES, st.sampled_from(['\n', '=', ' = ', '"', "'", '/>', '</',
                                            '<VRTRasterBand>', 'samples', 'lines',
                                            'ImageOffset', 'LineOffset']))
# Valid fields of a small image, each kept, changed or left out by the examples.
ENVI_FIELDS = {'samples': '8', 'lines': '6', 'bands': '2', 'header offset': '16',
               'data type': '6', 'interleave': 'bip', 'byte order': '1',
               'file type': 'ENVI Standard', 'band names': '{a, b}'}
VRT_BAND_FIELDS = {'ByteOrder': 'LSB', 'ImageOffset': '8', 'PixelOffset': '8',
                   'LineOffset': '64'}
SOURCES = st.sampled_from(['image.raw', 'image.raw', 'image.raw', '', '.', '..', 'missing.raw', 'image.vrt',
                           'image.raw.hdr', '/', '/dev/zero', '/dev/null', '/proc/self/mem',
                           'a' * 300])


# A field's value: after "=" in ENVI, an element's text or an attribute in a VRT.
FIELD_VALUE = re.compile(rb'=[ \t]*([^\n<>"{]*)|>([^<]*)<|"([^"]*)"')


class example_timeout(Exception):
    pass


def _alarm(signum, frame):
    raise example_timeout(f'an example ran {EXAMPLE_LIMIT_S} s: a hang')


def mutated(data, text):
    '''\\p text (bytes) with a few random byte-level changes.'''
    text = bytearray(text)
    for _ in range(data.draw(st.integers(1, 4))):
        where = data.draw(st.integers(0, len(text)))
        change = data.draw(st.sampled_from(['value', 'value', 'value', 'flip', 'delete',
                                            'insert', 'token', 'cut', 'repeat']))
        fields = [m.span(g) for m in FIELD_VALUE.finditer(text) for g in (1, 2, 3)
                  if m.start(g) >= 0]
        if change == 'value' and fields:
            first, end = data.draw(st.sampled_from(fields))
            text[first:end] = data.draw(VALUES).encode('utf-8')
        elif change == 'flip' and where < len(text):
            text[where] ^= 1 << data.draw(st.integers(0, 7))
        elif change == 'delete':
            del text[where:where + data.draw(st.integers(1, 16))]
        elif change == 'insert':
            text[where:where] = data.draw(st.binary(max_size=8))
        elif change == 'token':
            text[where:where] = data.draw(TOKENS).encode('utf-8')
        elif change == 'cut':
            del text[where:]
        elif change == 'repeat':
            text[where:where] = text[max(0, where - 40):where]
    return bytes(text)


def field_value(data, valid):
    '''\\p valid, another value, or None (left out).'''
    choice = data.draw(st.sampled_from(['keep', 'keep', 'change', 'omit']))
    return {'keep': valid, 'change': data.draw(VALUES), 'omit': None}[choice]


def envi_fields(data):
    '''An ENVI header, field by field.'''
    lines = [data.draw(st.sampled_from(['ENVI', 'ENVI', 'ENVI', 'envi', '']))]
    for key, valid in ENVI_FIELDS.items():
        value = field_value(data, valid)
        if value is not None:
            lines.append(f'{key} = {value}')
    return '\n'.join(lines).encode('utf-8', 'surrogatepass')


def vrt_fields(data):
    '''A VRT, element by element.'''
    bands = []
    for band in range(data.draw(st.integers(0, 3))):
        subclass = data.draw(st.sampled_from(['VRTRawRasterBand', 'VRTRawRasterBand',
                                              'VRTSourcedRasterBand', '']))
        data_type = data.draw(st.one_of(st.sampled_from(
            ['CFloat32', 'CInt16', 'Float32', 'Int16', 'Byte', 'CFloat64', 'UInt64']),
            VALUES))
        lines = [f'<VRTRasterBand dataType="{data_type}" band="{band + 1}" '
                 f'subClass="{subclass}">']
        source = field_value(data, 'image.raw')
        if source is not None:
            relative = data.draw(st.sampled_from(['1', '1', '0', 'x']))
            source = source if source != 'image.raw' else data.draw(SOURCES)
            lines.append(f'<SourceFilename relativeToVRT="{relative}">'
                         f'{xml_escape(source)}</SourceFilename>')
        for element, valid in VRT_BAND_FIELDS.items():
            value = field_value(data, valid)
            if value is not None:
                lines.append(f'<{element}>{xml_escape(value)}</{element}>')
        bands.append('\n'.join(lines) + '\n</VRTRasterBand>')
    width, height = field_value(data, '7'), field_value(data, '5')
    size = ''.join(f' {name}="{xml_escape(value)}"' for name, value in
                   (('rasterXSize', width), ('rasterYSize', height)) if value is not None)
    return (f'<VRTDataset{size}>\n'
            + '\n'.join(bands) + '\n</VRTDataset>\n').encode('utf-8', 'surrogatepass')


class fuzz_raster_headers(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.gdal = raster_io.gdal
        raster_io.gdal = None
        cls.previous_handler = signal.signal(signal.SIGALRM, _alarm)

    @classmethod
    def tearDownClass(cls):
        raster_io.gdal = cls.gdal
        signal.signal(signal.SIGALRM, cls.previous_handler)

    def read_everything(self, folder, path):
        '''Read \\p path as the tools do; only images or raster_errors come out.'''
        signal.alarm(EXAMPLE_LIMIT_S)
        try:
            for band in (1, 2, 3):
                self.check(folder, lambda: raster_io.read_raster(path, band, PARAMETER))
            self.check(folder, lambda: raster_io.read_slc(path, PARAMETER))
        finally:
            signal.alarm(0)

    def check(self, folder, read):
        try:
            image, info = read()
        except raster_io.raster_error as error:
            message = str(error)
            self.assertTrue(message.startswith(f'{PARAMETER}: '), message)
            self.assertIn(folder, message, 'the message names no file of the example')
            self.assertNotIn('\n', message)
            return
        self.assertEqual(image.shape[:2], (info.height, info.width))
        if not isinstance(image, numpy.ndarray):
            image = image[:2, :2]    # a raw_band: a block of it read
        self.assertTrue(image.dtype.isnative)

    def run_example(self, data, header_name, header):
        with tempfile.TemporaryDirectory() as folder:
            # Data of the seeds' sizes (a few hundred bytes) or of any size to 8 KiB.
            size = data.draw(st.one_of(st.just(4096), st.integers(0, 8192)))
            rng = numpy.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
            with open(os.path.join(folder, 'image.raw'), 'wb') as f:
                f.write(rng.integers(0, 256, size, numpy.uint8).tobytes())
            with open(os.path.join(folder, header_name), 'wb') as f:
                f.write(header)
            path = os.path.join(folder, 'image.vrt' if header_name.endswith('.vrt')
                                else 'image.raw')
            self.read_everything(folder, path)

    def test_envi_seeds_mutated(self):
        self.fuzz(lambda data: self.run_example(
            data, 'image.raw.hdr', mutated(data, data.draw(st.sampled_from(
                [v for k, v in sorted(SEEDS.items()) if k.endswith('.hdr')])))))

    def test_envi_fields(self):
        self.fuzz(lambda data: self.run_example(data, 'image.raw.hdr', envi_fields(data)))

    def test_vrt_seeds_mutated(self):
        self.fuzz(lambda data: self.run_example(
            data, 'image.vrt', mutated(data, data.draw(st.sampled_from(
                [v for k, v in sorted(SEEDS.items()) if k.endswith('.vrt')])))))

    def test_vrt_fields(self):
        self.fuzz(lambda data: self.run_example(data, 'image.vrt', vrt_fields(data)))

    def test_seeds_read(self):
        # The seeds themselves are valid: each is read, with data of its size.
        for name, header in sorted(SEEDS.items()):
            with self.subTest(seed=name), tempfile.TemporaryDirectory() as folder:
                with open(os.path.join(folder, 'image.raw'), 'wb') as f:
                    f.write(numpy.arange(4096, dtype=numpy.uint8).tobytes())
                header_name = 'image.vrt' if name.endswith('.vrt') else 'image.raw.hdr'
                with open(os.path.join(folder, header_name), 'wb') as f:
                    f.write(header)
                path = os.path.join(folder, 'image.vrt' if name.endswith('.vrt')
                                    else 'image.raw')
                image, info = raster_io.read_raster(path, 1, PARAMETER)
                self.assertEqual(image.shape, (info.height, info.width))

    def fuzz(self, body):
        # Rounds of CHUNK examples, each seeded (from CUDADSP_FUZZ_SEED, else 0) so a
        # run is reproducible; no round starts once the budget is spent.
        stop = time.monotonic() + BUDGET_S
        first = int(FUZZ_SEED or 0) * 1000003
        for round_ in range(max(1, EXAMPLES // CHUNK)):
            if time.monotonic() > stop:
                break
            test = given(st.data())(lambda data: body(data))
            test = settings(max_examples=CHUNK, deadline=None, database=None,
                            suppress_health_check=list(HealthCheck))(test)
            seed(first + round_)(test)()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--seeds', required=True)
    arguments, rest = parser.parse_known_args()
    for name in os.listdir(arguments.seeds):
        if name.endswith(('.hdr', '.vrt')):
            with open(os.path.join(arguments.seeds, name), 'rb') as f:
                SEEDS[name] = f.read()
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == '__main__':
    main()
