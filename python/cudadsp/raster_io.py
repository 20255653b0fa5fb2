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
``name`` + ``.hdr``; band sequential, line or pixel interleaved), a GDAL VRT of
``VRTRawRasterBand`` bands (ISCE's SLCs and rasters, PyCuAmpcor's ``.bip.vrt`` outputs,
this repository's ``data/insar/*.vrt``; any pixel and line offsets, CInt16 included),
and NumPy ``.npy``. Raw files are memory-mapped, so read_slc() hands an image to an
engine without reading it whole first.

Complex int16 images (GMTSAR's and ISCE's int16 SLCs, GDAL's CInt16) are read from a
raw VRT whose band has ``dataType="CInt16"``, or through GDAL. ENVI has no complex
int16 data type: an ENVI header describes complex float32 (data type 6) or complex
float64 (9) images only.

Outputs are written as raw binary with an ENVI header, which GDAL opens as the ENVI
driver; with GDAL installed a GeoTIFF may be asked for instead, carrying the input's
georeferencing. write_bands() writes several float32 bands pixel-interleaved (BIP), as
PyCuAmpcor writes its offset rasters, with an ENVI header and a GDAL VRT beside it.

Files are written through output_set (output_set.py): under temporary names, renamed
when the whole set is complete, the sidecars (header, VRT) that make a raster readable
after its data, so a failed or interrupted run never leaves a raster that looks
finished. A tool passes its own set to write a raster among its other outputs.
'''

import os
import re
import uuid
import xml.etree.ElementTree as ElementTree
from xml.sax.saxutils import escape as xml_escape
from dataclasses import dataclass, field

import numpy

from .output_set import output_set

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
    Read band \\p band (1-based) of \\p path as a 2-D NumPy array (rows, columns), in
    memory and in native byte order. Complex int16 pairs (GDAL CInt16) come back as
    complex64. \\p parameter names the argument in error messages. Returns
    (array, raster_info).
    '''
    image, info = _open_band(path, band, parameter)
    if image.ndim == 3:
        image = _complex64_from_pairs(image)
    image = numpy.ascontiguousarray(image).astype(image.dtype.newbyteorder('='),
                                                  copy=False)
    info.dtype = image.dtype
    return image, info


def read_slc(path, parameter='image'):
    '''
    Band 1 of \\p path as a complex image for the image engines (dense offsets): a
    complex64 array (rows, columns), or an int16 array (rows, columns, 2) of I, Q
    pairs for a CInt16 raster. Raw files (ENVI, raw VRT, .npy) are memory-mapped and
    returned as views of the file, possibly strided or in the file's byte order; the
    engine binding copies only what it must. Other formats are read through GDAL.
    Raises raster_error naming \\p parameter for an image that is not complex.
    Returns (array, raster_info).
    '''
    image, info = _open_band(path, 1, parameter)
    if image.ndim == 3:
        return image, info
    if image.dtype.kind != 'c':
        raise raster_error(f'{parameter}: {path}: {image.dtype} samples are not a complex '
                           'image (complex float32 or CInt16 expected)')
    if image.dtype.itemsize != 8:
        image = image.astype(numpy.complex64)
        info.dtype = image.dtype
    return image, info


def _open_band(path, band, parameter):
    '''Band \\p band of \\p path: a view of a memory-mapped raw file where the
    layout is known natively, else an array read by GDAL. CInt16 bands of raw files
    are int16 arrays (rows, columns, 2).'''
    if not os.path.exists(path):
        raise raster_error(f'{parameter}: {path}: no such file')
    if not os.path.isfile(path):
        raise raster_error(f'{parameter}: {path}: not a regular file')
    if path.endswith('.npy'):
        try:
            array = numpy.load(path, mmap_mode='r', allow_pickle=False)
        except ValueError as error:
            raise raster_error(f'{parameter}: {path}: not a NumPy array ({error})') \
                from None
        if array.ndim != 2:
            raise raster_error(f'{parameter}: {path}: expected a 2-D array, got shape '
                               f'{array.shape}')
        if band != 1:
            raise raster_error(f'{parameter}: {path}: band {band} of 1')
        return array, raster_info(path, array.shape[1], array.shape[0], array.dtype)
    if path.endswith('.vrt'):
        layout = _raw_vrt_layout(path, band, parameter)
        if layout is not None:
            return _map_layout(layout, parameter), layout.info
        if gdal is not None:
            return _read_gdal(path, band, parameter)
        raise raster_error(f'{parameter}: {path}: only VRTs of raw bands '
                           '(VRTRawRasterBand) are read without GDAL; install GDAL '
                           '(Debian: python3-gdal) for other VRTs')
    header = _envi_header_path(path)
    if header is not None:
        layout = _envi_layout(path, header, band, parameter)
        return _map_layout(layout, parameter), layout.info
    if gdal is not None:
        return _read_gdal(path, band, parameter)
    raise raster_error(
        f'{parameter}: {path}: without GDAL only raw files with an ENVI header, raw VRTs '
        'and .npy are read; install GDAL (Debian: python3-gdal) for other formats')


def write_raster(path, array, like=None, driver='ENVI', description='', outputs=None):
    '''
    Write the 2-D \\p array to \\p path: raw binary plus an ENVI header (driver
    "ENVI", no GDAL needed), or a GeoTIFF (driver "GTiff", needs GDAL) carrying the
    georeferencing of \\p like (a raster_info) when it has one. The files go into
    \\p outputs (an output_set of path's folder, committed by the caller) or, without
    one, into a set of their own, in place when this returns.
    '''
    array = numpy.ascontiguousarray(array)
    if array.ndim != 2:
        raise raster_error(f'{path}: expected a 2-D array, got shape {array.shape}')
    if driver == 'ENVI':
        codes = {numpy.dtype(t): c for c, t in _ENVI_TYPES.items()}
        code = codes.get(array.dtype)
        if code is None:
            raise raster_error(f'{path}: no ENVI type for {array.dtype}')
        header = (f'ENVI\ndescription = {{{description}}}\nsamples = {array.shape[1]}\n'
                  f'lines = {array.shape[0]}\nbands = 1\nheader offset = 0\n'
                  f'file type = ENVI Standard\ndata type = {code}\ninterleave = bsq\n'
                  'byte order = 0\n' + _map_info(like))

        def write(files, name):
            files.write(name, lambda f: _write_array(
                f, array.astype(array.dtype.newbyteorder('<'), copy=False)))
            files.write(name + '.hdr', lambda f: f.write(header.encode()))
        _write_in_set(path, outputs, write)
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
    _write_in_set(path, outputs, lambda files, name: _write_geotiff(
        files, name, array, types[array.dtype], like, description))


def _map_info(like):
    if like is None or like.geotransform is None:
        return ''
    g = like.geotransform
    return f'map info = {{Arbitrary, 1, 1, {g[0]}, {g[3]}, {g[1]}, {-g[5]}, 0, North}}\n'


def _write_geotiff(files, name, array, gdal_type, like, description):
    '''The GeoTIFF member \\p name of \\p files. GDAL writes it in memory (/vsimem/),
    and the bytes go to the disk through files.write(): on a full disk GDAL's GeoTIFF
    writer reports some failures only by printing them when the file is closed, and can
    even hang in that close, where Python's write raises ENOSPC, naming the file.'''
    errors = []
    gdal.PushErrorHandler(lambda level, number, message: errors.append(message)
                          if level >= gdal.CE_Failure else None)
    memory = f'/vsimem/cudadsp-{uuid.uuid4().hex}/{name}'
    try:
        dataset = gdal.GetDriverByName('GTiff').Create(
            memory, array.shape[1], array.shape[0], 1, gdal_type)
        if like is not None and like.geotransform is not None:
            dataset.SetGeoTransform(like.geotransform)
            dataset.SetProjection(like.projection)
        dataset.GetRasterBand(1).WriteArray(array)
        dataset.GetRasterBand(1).SetDescription(description)
        dataset = None
        if errors:
            raise RuntimeError('; '.join(errors))
        handle = gdal.VSIFOpenL(memory, 'rb')
        try:
            data = gdal.VSIFReadL(1, gdal.VSIStatL(memory).size, handle)
        finally:
            gdal.VSIFCloseL(handle)
    except RuntimeError as error:
        raise raster_error(f'{files.final_path(name)}: GDAL cannot write it: {error}') \
            from None
    finally:
        gdal.PopErrorHandler()
        if gdal.VSIStatL(memory) is not None:
            gdal.Unlink(memory)
    files.write(name, lambda f: f.write(data))


def write_bands(path, bands, descriptions, like=None, description='', outputs=None):
    '''
    Write the 2-D arrays \\p bands (one shape) as float32 bands interleaved by pixel
    (BIP), as PyCuAmpcor writes its offset, covariance and gross-offset rasters: the
    raw file \\p path, an ENVI header \\p path + ".hdr" (interleave = bip, band
    names from \\p descriptions) and a GDAL VRT \\p path + ".vrt" of raw bands.
    GDAL opens either; without GDAL read_raster() reads both. The georeferencing of
    \\p like (a raster_info) goes into the header when it has one. \\p outputs as
    write_raster(). Returns the paths written (data first).
    '''
    if not bands or len(bands) != len(descriptions):
        raise raster_error(f'{path}: {len(bands)} bands with {len(descriptions)} '
                           'descriptions')
    shape = numpy.shape(bands[0])
    if len(shape) != 2 or any(numpy.shape(b) != shape for b in bands):
        raise raster_error(f'{path}: bands must be 2-D arrays of one shape, got '
                           f'{[numpy.shape(b) for b in bands]}')
    height, width = shape
    count = len(bands)
    interleaved = numpy.empty((height, width, count), numpy.dtype('<f4'))
    for index, band in enumerate(bands):
        interleaved[:, :, index] = band
    names = ', '.join(d.replace(',', ';') for d in descriptions)
    header = (f'ENVI\ndescription = {{{description}}}\nsamples = {width}\n'
              f'lines = {height}\nbands = {count}\nheader offset = 0\n'
              'file type = ENVI Standard\ndata type = 4\ninterleave = bip\n'
              f'byte order = 0\nband names = {{{names}}}\n' + _map_info(like))
    name = os.path.basename(path)
    vrt = [f'<VRTDataset rasterXSize="{width}" rasterYSize="{height}">']
    for index, text in enumerate(descriptions):
        vrt += [f'  <VRTRasterBand dataType="Float32" band="{index + 1}" '
                'subClass="VRTRawRasterBand">',
                f'    <Description>{xml_escape(text)}</Description>',
                f'    <SourceFilename relativeToVRT="1">{xml_escape(name)}'
                '</SourceFilename>',
                '    <ByteOrder>LSB</ByteOrder>',
                f'    <ImageOffset>{4 * index}</ImageOffset>',
                f'    <PixelOffset>{4 * count}</PixelOffset>',
                f'    <LineOffset>{4 * count * width}</LineOffset>',
                '  </VRTRasterBand>']
    vrt.append('</VRTDataset>\n')

    def write(files, name):
        files.write(name, lambda f: _write_array(f, interleaved))
        files.write(name + '.hdr', lambda f: f.write(header.encode()))
        files.write(name + '.vrt', lambda f: f.write('\n'.join(vrt).encode()))
    _write_in_set(path, outputs, write)
    return [path, path + '.hdr', path + '.vrt']


def _write_array(f, array):
    # Through the file's write(), not ndarray.tofile(): a full disk then raises OSError
    # with its errno (ENOSPC), where tofile() says only "N requested and M written".
    f.write(memoryview(numpy.ascontiguousarray(array)).cast('B'))


def _write_in_set(path, outputs, write):
    '''write(files, name): the raster \\p path, into \\p outputs or else into a set of
    its own (its data and sidecars), committed here: the header or VRT that makes the
    data readable is renamed after it, and an earlier one is removed before.'''
    folder, name = os.path.split(os.path.abspath(path))
    if outputs is None:
        with output_set(folder, [name, name + '.hdr', name + '.vrt']) as files:
            write(files, name)
        return
    if outputs.folder != folder:
        raise raster_error(f'{path}: not in the folder of its output set, {outputs.folder}')
    write(outputs, name)


def write_atomically(path, write):
    '''Run write(file) on a temporary file beside \\p path, flushed to the disk,
    then rename it to path: the file is whole or absent.'''
    folder, name = os.path.split(os.path.abspath(path))
    with output_set(folder, [name]) as files:
        files.write(name, write)


def _envi_header_path(path):
    stem, _ = os.path.splitext(path)
    for candidate in (path + '.hdr', stem + '.hdr'):
        if candidate != path and os.path.isfile(candidate):
            with open(candidate, 'rb') as f:
                if f.read(4) == b'ENVI':
                    return candidate
    return None


@dataclass
class _raw_layout:
    '''Where one band of a raw file lies: element (row, column) at byte
    offset + row line_stride + column pixel_stride; pair: each element is an I, Q pair
    of dtype (CInt16).'''
    filename: str
    dtype: numpy.dtype
    pair: bool
    offset: int
    line_stride: int
    pixel_stride: int
    info: raster_info


def _envi_layout(path, header_path, band, parameter):
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
    item = dtype.itemsize
    interleave = fields.get('interleave', 'bsq').lower()
    # (band start, line stride, pixel stride) in bytes for each interleave.
    strides = {'bsq': ((band - 1) * height * width * item, width * item, item),
               'bil': ((band - 1) * width * item, bands * width * item, item),
               'bip': ((band - 1) * item, bands * width * item, bands * item)}
    if interleave not in strides:
        raise raster_error(f'{parameter}: {header_path}: unknown interleave {interleave}')
    start, line_stride, pixel_stride = strides[interleave]
    return _raw_layout(path, dtype, False, offset + start, line_stride, pixel_stride,
                       raster_info(path, width, height, dtype))


def _raw_vrt_layout(path, band, parameter):
    '''The layout of a VRT band that is a VRTRawRasterBand; None for other VRTs.'''
    try:
        root = ElementTree.parse(path).getroot()
        width, height = int(root.get('rasterXSize')), int(root.get('rasterYSize'))
    except (ElementTree.ParseError, TypeError, ValueError) as error:
        raise raster_error(f'{parameter}: {path}: not a valid VRT ({error})') from None
    bands = root.findall('VRTRasterBand')
    if not 1 <= band <= len(bands):
        raise raster_error(f'{parameter}: {path}: band {band} of {len(bands)}')
    element = bands[band - 1]
    if element.get('subClass') != 'VRTRawRasterBand':
        return None
    type_name = element.get('dataType')
    if type_name == 'CInt16':
        dtype, pair = numpy.dtype(numpy.int16), True
    elif _GDAL_TYPE_NAMES.get(type_name) is not None:
        dtype, pair = numpy.dtype(_GDAL_TYPE_NAMES[type_name]), False
    else:
        raise raster_error(f'{parameter}: {path}: unsupported data type {type_name}')
    source = element.find('SourceFilename')
    if source is None or not (source.text or '').strip():
        raise raster_error(f'{parameter}: {path}: band {band} has no SourceFilename')
    filename = source.text.strip()
    if source.get('relativeToVRT', '0') == '1':
        filename = os.path.join(os.path.dirname(os.path.abspath(path)), filename)
    order = (element.findtext('ByteOrder') or 'LSB').strip()
    dtype = dtype.newbyteorder('>' if order == 'MSB' else '<')
    item = dtype.itemsize * (2 if pair else 1)
    try:
        offset = int(element.findtext('ImageOffset') or 0)
        pixel_stride = int(element.findtext('PixelOffset') or item)
        line_stride = int(element.findtext('LineOffset') or item * width)
    except ValueError as error:
        raise raster_error(f'{parameter}: {path}: band {band}: {error}') from None
    if pixel_stride < item or line_stride < 0:
        raise raster_error(f'{parameter}: {path}: band {band}: PixelOffset {pixel_stride} '
                           f'is less than a sample ({item} bytes) or LineOffset '
                           f'{line_stride} is negative')
    if not os.path.isfile(filename):
        raise raster_error(f'{parameter}: {path}: its data file {filename} does not exist')
    return _raw_layout(filename, dtype, pair, offset, line_stride, pixel_stride,
                       raster_info(path, width, height,
                                   numpy.dtype(numpy.complex64) if pair else dtype))


def _map_layout(layout, parameter):
    '''A read-only view of the band described by \\p layout, on a memory map of its
    file; an int16 array (rows, columns, 2) for I, Q pairs.'''
    info = layout.info
    item = layout.dtype.itemsize * (2 if layout.pair else 1)
    needed = (layout.offset + (info.height - 1) * layout.line_stride
              + (info.width - 1) * layout.pixel_stride + item)
    size = os.path.getsize(layout.filename)
    if info.width < 1 or info.height < 1:
        raise raster_error(f'{parameter}: {info.path}: {info.width} x {info.height} '
                           'pixels: an image needs at least one')
    if size < needed:
        raise raster_error(f'{parameter}: {layout.filename}: {size} bytes, shorter than '
                           f'{info.path} describes ({needed} bytes)')
    mapping = numpy.memmap(layout.filename, dtype=numpy.uint8, mode='r')
    if layout.pair:
        return numpy.ndarray((info.height, info.width, 2), layout.dtype, mapping,
                             layout.offset, (layout.line_stride, layout.pixel_stride,
                                             layout.dtype.itemsize))
    return numpy.ndarray((info.height, info.width), layout.dtype, mapping, layout.offset,
                         (layout.line_stride, layout.pixel_stride))


def _complex64_from_pairs(pairs):
    image = numpy.empty(pairs.shape[:2], numpy.complex64)
    image.real = pairs[..., 0]
    image.imag = pairs[..., 1]
    return image


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
