#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
Rasters for the command-line tools: read any GDAL-readable raster, and write results
that GDAL, QGIS and ISCE read.

Without GDAL (the GPU host has none; Debian's ``python3-gdal`` provides it) three
layouts are still read natively: raw binary with an ENVI header (``name.hdr`` or
``name`` + ``.hdr``), a GDAL VRT of ``VRTRawRasterBand`` bands (ISCE's and this
repository's ``data/insar/*.vrt``), and NumPy ``.npy``. Outputs are written as raw
binary with an ENVI header, which GDAL opens as the ENVI driver; with GDAL installed a
GeoTIFF may be asked for instead, carrying the input's georeferencing.

A file is written under a temporary name and renamed when complete, so an interrupted
run never leaves a file that looks finished.
'''

import os
import re
import tempfile
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field

import numpy

try:
    from osgeo import gdal
    gdal.UseExceptions()
except ImportError:
    gdal = None

# ENVI "data type" codes and GDAL type names, to NumPy.
_ENVI_TYPES = {1: numpy.uint8, 2: numpy.int16, 3: numpy.int32, 4: numpy.float32,
               5: numpy.float64, 6: numpy.complex64, 9: numpy.complex128,
               12: numpy.uint16, 13: numpy.uint32, 14: numpy.int64, 15: numpy.uint64}
_GDAL_TYPE_NAMES = {'Byte': numpy.uint8, 'UInt16': numpy.uint16, 'Int16': numpy.int16,
                    'UInt32': numpy.uint32, 'Int32': numpy.int32,
                    'Float32': numpy.float32, 'Float64': numpy.float64,
                    'CInt16': None, 'CFloat32': numpy.complex64,
                    'CFloat64': numpy.complex128}


@dataclass
class raster_info:
    '''Where a raster came from and how it is placed on the ground (GDAL only).'''
    path: str
    width: int
    height: int
    dtype: numpy.dtype
    geotransform: tuple = None
    projection: str = ''
    metadata: dict = field(default_factory=dict)


class raster_error(ValueError):
    '''A raster that cannot be read or written; the message names the file.'''


def read_raster(path, band=1, parameter='raster'):
    '''
    Read band \\p band (1-based) of \\p path as a 2-D NumPy array (rows, columns).
    Complex int16 pairs (GDAL CInt16) come back as complex64. \\p parameter names the
    argument in error messages. Returns (array, raster_info).
    '''
    if not os.path.exists(path):
        raise raster_error(f'{parameter}: {path}: no such file')
    if not os.path.isfile(path):
        raise raster_error(f'{parameter}: {path}: not a regular file')
    if path.endswith('.npy'):
        array = numpy.load(path, allow_pickle=False)
        if array.ndim != 2:
            raise raster_error(f'{parameter}: {path}: expected a 2-D array, got shape '
                               f'{array.shape}')
        return array, raster_info(path, array.shape[1], array.shape[0], array.dtype)
    if path.endswith('.vrt'):
        raw = _read_raw_vrt(path, band, parameter)
        if raw is not None:
            return raw
    header = _envi_header_path(path)
    if header is not None:
        return _read_envi(path, header, band, parameter)
    if gdal is not None:
        return _read_gdal(path, band, parameter)
    raise raster_error(
        f'{parameter}: {path}: without GDAL only raw files with an ENVI header, raw VRTs '
        'and .npy are read; install GDAL (Debian: python3-gdal) for other formats')


def write_raster(path, array, like=None, driver='ENVI', description=''):
    '''
    Write the 2-D \\p array to \\p path: raw binary plus an ENVI header (driver
    "ENVI", no GDAL needed), or a GeoTIFF (driver "GTiff", needs GDAL) carrying the
    georeferencing of \\p like (a raster_info) when it has one.
    '''
    array = numpy.ascontiguousarray(array)
    if array.ndim != 2:
        raise raster_error(f'{path}: expected a 2-D array, got shape {array.shape}')
    directory = os.path.dirname(os.path.abspath(path))
    if driver == 'ENVI':
        codes = {numpy.dtype(t): c for c, t in _ENVI_TYPES.items()}
        code = codes.get(array.dtype)
        if code is None:
            raise raster_error(f'{path}: no ENVI type for {array.dtype}')
        header = (f'ENVI\ndescription = {{{description}}}\nsamples = {array.shape[1]}\n'
                  f'lines = {array.shape[0]}\nbands = 1\nheader offset = 0\n'
                  f'file type = ENVI Standard\ndata type = {code}\ninterleave = bsq\n'
                  'byte order = 0\n')
        if like is not None and like.geotransform is not None:
            g = like.geotransform
            header += (f'map info = {{Arbitrary, 1, 1, {g[0]}, {g[3]}, {g[1]}, '
                       f'{-g[5]}, 0, North}}\n')
        write_atomically(path, lambda f: array.astype(array.dtype.newbyteorder('<'),
                                                       copy=False).tofile(f))
        write_atomically(path + '.hdr', lambda f: f.write(header.encode()))
        return
    if driver != 'GTiff':
        raise raster_error(f'{path}: driver must be "ENVI" or "GTiff", got "{driver}"')
    if gdal is None:
        raise raster_error(f'{path}: GeoTIFF output needs GDAL (Debian: python3-gdal)')
    types = {numpy.dtype(numpy.float32): gdal.GDT_Float32,
             numpy.dtype(numpy.float64): gdal.GDT_Float64,
             numpy.dtype(numpy.int32): gdal.GDT_Int32,
             numpy.dtype(numpy.uint8): gdal.GDT_Byte,
             numpy.dtype(numpy.complex64): gdal.GDT_CFloat32}
    if array.dtype not in types:
        raise raster_error(f'{path}: no GeoTIFF type for {array.dtype}')
    handle, temporary = tempfile.mkstemp(dir=directory, suffix='.tif.part')
    os.close(handle)
    try:
        dataset = gdal.GetDriverByName('GTiff').Create(
            temporary, array.shape[1], array.shape[0], 1, types[array.dtype])
        if like is not None and like.geotransform is not None:
            dataset.SetGeoTransform(like.geotransform)
            dataset.SetProjection(like.projection)
        dataset.GetRasterBand(1).WriteArray(array)
        dataset.GetRasterBand(1).SetDescription(description)
        dataset = None
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def write_atomically(path, write):
    '''Run write(file) on a temporary file beside path, then rename it to path.'''
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                                         suffix='.part')
    try:
        with os.fdopen(handle, 'wb') as f:
            write(f)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _envi_header_path(path):
    stem, _ = os.path.splitext(path)
    for candidate in (path + '.hdr', stem + '.hdr'):
        if candidate != path and os.path.isfile(candidate):
            with open(candidate, 'rb') as f:
                if f.read(4) == b'ENVI':
                    return candidate
    return None


def _read_envi(path, header_path, band, parameter):
    with open(header_path, encoding='ascii', errors='replace') as f:
        text = f.read()
    fields = {key.strip().lower(): value.strip() for key, value in
              re.findall(r'^\s*([A-Za-z ]+?)\s*=\s*([^{\n]*|\{[^}]*\})', text, re.M)}

    def integer(key, default=None):
        if key not in fields:
            if default is None:
                raise raster_error(f'{parameter}: {header_path}: no "{key}"')
            return default
        try:
            return int(fields[key])
        except ValueError:
            raise raster_error(f'{parameter}: {header_path}: "{key}" is not an '
                               f'integer: {fields[key]!r}') from None

    width, height = integer('samples'), integer('lines')
    bands, offset = integer('bands', 1), integer('header offset', 0)
    code = integer('data type')
    if code not in _ENVI_TYPES:
        raise raster_error(f'{parameter}: {header_path}: unsupported data type {code}')
    if not 1 <= band <= bands:
        raise raster_error(f'{parameter}: {path}: band {band} of {bands}')
    dtype = numpy.dtype(_ENVI_TYPES[code]).newbyteorder(
        '>' if integer('byte order', 0) == 1 else '<')
    interleave = fields.get('interleave', 'bsq').lower()
    data = _checked_fromfile(path, dtype, offset, width * height * bands, parameter)
    if interleave == 'bsq':
        image = data.reshape(bands, height, width)[band - 1]
    elif interleave == 'bil':
        image = data.reshape(height, bands, width)[:, band - 1, :]
    elif interleave == 'bip':
        image = data.reshape(height, width, bands)[:, :, band - 1]
    else:
        raise raster_error(f'{parameter}: {header_path}: unknown interleave {interleave}')
    image = numpy.ascontiguousarray(image).astype(dtype.newbyteorder('='))
    return image, raster_info(path, width, height, image.dtype)


def _read_raw_vrt(path, band, parameter):
    '''A VRT whose band is a VRTRawRasterBand, read natively; None for other VRTs.'''
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:
        raise raster_error(f'{parameter}: {path}: not a valid VRT ({error})') from None
    width, height = int(root.get('rasterXSize')), int(root.get('rasterYSize'))
    bands = root.findall('VRTRasterBand')
    if not 1 <= band <= len(bands):
        raise raster_error(f'{parameter}: {path}: band {band} of {len(bands)}')
    element = bands[band - 1]
    if element.get('subClass') != 'VRTRawRasterBand':
        return _read_gdal(path, band, parameter) if gdal is not None else None
    type_name = element.get('dataType')
    if type_name == 'CInt16':
        dtype = numpy.dtype(numpy.int16)
        pair = True
    elif _GDAL_TYPE_NAMES.get(type_name) is not None:
        dtype = numpy.dtype(_GDAL_TYPE_NAMES[type_name])
        pair = False
    else:
        raise raster_error(f'{parameter}: {path}: unsupported data type {type_name}')
    source = element.find('SourceFilename')
    filename = source.text.strip()
    if source.get('relativeToVRT', '0') == '1':
        filename = os.path.join(os.path.dirname(os.path.abspath(path)), filename)
    order = (element.findtext('ByteOrder') or 'LSB').strip()
    dtype = dtype.newbyteorder('>' if order == 'MSB' else '<')
    item = dtype.itemsize * (2 if pair else 1)
    image_offset = int(element.findtext('ImageOffset') or 0)
    pixel_offset = int(element.findtext('PixelOffset') or item)
    line_offset = int(element.findtext('LineOffset') or item * width)
    if pixel_offset != item:
        raise raster_error(f'{parameter}: {path}: pixel-interleaved raw VRTs need GDAL')
    rows = []
    with open(filename, 'rb') as f:
        for row in range(height):
            f.seek(image_offset + row * line_offset)
            line = numpy.frombuffer(f.read(item * width), dtype=dtype)
            if line.size * dtype.itemsize != item * width:
                raise raster_error(f'{parameter}: {filename}: shorter than the VRT '
                                   f'says ({height} lines of {line_offset} bytes)')
            rows.append(line)
    image = numpy.stack(rows).astype(dtype.newbyteorder('='))
    if pair:
        image = (image[:, 0::2].astype(numpy.float32)
                 + 1j * image[:, 1::2].astype(numpy.float32)).astype(numpy.complex64)
    return image, raster_info(path, width, height, image.dtype)


def _read_gdal(path, band, parameter):
    try:
        dataset = gdal.Open(path)
    except RuntimeError as error:
        raise raster_error(f'{parameter}: {path}: GDAL cannot open it ({error})') from None
    if not 1 <= band <= dataset.RasterCount:
        raise raster_error(f'{parameter}: {path}: band {band} of {dataset.RasterCount}')
    raster_band = dataset.GetRasterBand(band)
    image = raster_band.ReadAsArray()
    if gdal.GetDataTypeName(raster_band.DataType) == 'CInt16':
        image = image.astype(numpy.complex64)
    return image, raster_info(path, dataset.RasterXSize, dataset.RasterYSize, image.dtype,
                              dataset.GetGeoTransform(can_return_null=True),
                              dataset.GetProjection(), dataset.GetMetadata() or {})


def _checked_fromfile(path, dtype, offset, count, parameter):
    expected = offset + count * dtype.itemsize
    size = os.path.getsize(path)
    if size < expected:
        raise raster_error(f'{parameter}: {path}: {size} bytes, the header describes '
                           f'{expected}')
    return numpy.fromfile(path, dtype=dtype, count=count, offset=offset)
