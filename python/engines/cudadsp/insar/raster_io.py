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
and NumPy ``.npy``. read_slc() hands such a file to an engine as a raw_band, of which
the engine reads only the windows it needs; reads check their byte counts (a file cut
while it is read is an error naming it, not the SIGBUS of a memory map).

Inputs must be regular files: a FIFO, device or socket given as a raster, named by a
VRT or lying beside a raster as its sidecar (.hdr, .aux.xml, ...) is refused before
any reader opens it, since opening a FIFO waits for a writer for ever.

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
import stat
import uuid
import xml.etree.ElementTree as ElementTree
from xml.sax.saxutils import escape as xml_escape
from dataclasses import dataclass, field

import numpy

from ..common.output_set import output_set

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
    if isinstance(image, raw_band):
        image = image.read()
    if image.ndim == 3:
        image = _complex64_from_pairs(image)
    info.dtype = image.dtype
    return image, info


def read_slc(path, parameter='image'):
    '''
    Band 1 of \\p path as a complex image for the image engines (dense offsets). Raw
    files (ENVI, raw VRT, .npy) come back as a raw_band, which reads only what is asked
    of it when it is asked (dense_offsets() reads the pixels its windows cover);
    other formats as an array read through GDAL. Either is complex64 (rows, columns),
    or int16 (rows, columns, 2) I, Q pairs for a CInt16 raster. Raises raster_error
    naming \\p parameter for an image that is not complex. Returns (image, raster_info).
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
    '''Band \\p band of \\p path: a raw_band where the layout is known natively, else an
    array read by GDAL. CInt16 bands of raw files have the shape (rows, columns, 2).'''
    require_regular(path, parameter)
    _require_regular_sidecars(path, parameter)
    if path.endswith('.npy'):
        layout = _npy_layout(path, band, parameter)
        return raw_band(layout, parameter), layout.info
    if path.endswith('.vrt'):
        layout = _raw_vrt_layout(path, band, parameter)
        if layout is not None:
            return raw_band(layout, parameter), layout.info
        if gdal is not None:
            return _read_gdal(path, band, parameter)
        raise raster_error(f'{parameter}: {path}: only VRTs of raw bands '
                           '(VRTRawRasterBand) are read without GDAL; install GDAL '
                           '(Debian: python3-gdal) for other VRTs')
    header = _envi_header_path(path, parameter)
    if header is not None:
        layout = _envi_layout(path, header, band, parameter)
        return raw_band(layout, parameter), layout.info
    if gdal is not None:
        return _read_gdal(path, band, parameter)
    raise raster_error(
        f'{parameter}: {path}: without GDAL only raw files with an ENVI header, raw VRTs '
        'and .npy are read; install GDAL (Debian: python3-gdal) for other formats')


# What a path is when it is not a regular file, for the messages.
_FILE_KINDS = ((stat.S_ISDIR, 'directory'), (stat.S_ISFIFO, 'FIFO'),
               (stat.S_ISCHR, 'character device'), (stat.S_ISBLK, 'block device'),
               (stat.S_ISSOCK, 'socket'))


def _file_kind(mode):
    return next((kind for test, kind in _FILE_KINDS if test(mode)), 'special file')


def require_regular(path, parameter):
    '''
    Refuse \\p path (raster_error naming \\p parameter, the file and what it is) unless
    it is a regular file, links followed: a reader that opens a FIFO waits in open()
    for a writer for ever, and a device or a socket has no end to read to.
    '''
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise raster_error(f'{parameter}: {path}: no such file') from None
    except OSError as error:
        raise raster_error(f'{parameter}: {path}: {error.strerror}') from None
    if not stat.S_ISREG(mode):
        raise raster_error(f'{parameter}: {path}: not a regular file: {_file_kind(mode)}')


def open_regular(path, parameter):
    '''
    \\p path opened for reading in binary, refused as require_regular() refuses. The
    open does not block and what it opened is checked again, so that a FIFO put in the
    file's place after the check cannot hang it either.
    '''
    require_regular(path, parameter)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise raster_error(f'{parameter}: {path}: cannot open: {error.strerror}') from None
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        raise raster_error(f'{parameter}: {path}: not a regular file: {_file_kind(mode)}')
    return os.fdopen(descriptor, 'rb')


def _require_regular_sidecars(path, parameter):
    '''
    Refuse \\p path when a file beside it that a reader may open as one of its sidecars
    (any name that extends the file's name or its stem by a dot: .hdr, .aux.xml,
    .xml, .vrt, .ovr, ...) is a FIFO, a device or a socket: GDAL opens such names
    while it probes a raster, and would wait there for ever. Folders are harmless.
    '''
    folder = os.path.dirname(path) or '.'
    name = os.path.basename(path)
    prefixes = (name.lower() + '.', os.path.splitext(name)[0].lower() + '.')
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if not entry.name.lower().startswith(prefixes):
            continue
        try:
            mode = os.stat(entry.path).st_mode
        except OSError:
            continue    # a dangling link: nothing any reader could open
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise raster_error(f'{parameter}: {entry.path}: not a regular file: '
                               f'{_file_kind(mode)} (a sidecar of {path}, which raster '
                               'readers open)')


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


def _envi_header_path(path, parameter):
    stem, _ = os.path.splitext(path)
    for candidate in (path + '.hdr', stem + '.hdr'):
        if candidate != path and os.path.isfile(candidate):
            with open_regular(candidate, parameter) as f:
                if f.read(4) == b'ENVI':
                    return candidate
    return None


@dataclass
class _raw_layout:
    '''Where one band of a raw file lies: element (row, column) at byte
    offset + row line_stride + column pixel_stride; pair: each element is an I, Q pair
    of dtype (CInt16). described_by: the file whose fields give the layout; geometry:
    those fields and their values, for the messages.'''
    filename: str
    dtype: numpy.dtype
    pair: bool
    offset: int
    line_stride: int
    pixel_stride: int
    info: raster_info
    described_by: str
    geometry: str


def _envi_layout(path, header_path, band, parameter):
    with open_regular(header_path, parameter) as f:
        text = f.read().decode('ascii', errors='replace')
    fields = {key.strip().lower(): value.strip() for key, value in
              re.findall(r'^\s*([A-Za-z ]+?)\s*=\s*([^{\n]*|\{[^}]*\})', text, re.M)}

    def integer(key, default=None, low=None):
        if key not in fields:
            if default is None:
                raise raster_error(f'{parameter}: {header_path}: no "{key}"')
            return default
        try:
            value = int(fields[key])
        except ValueError:
            raise raster_error(f'{parameter}: {header_path}: "{key}" is not an '
                               f'integer: {fields[key]!r}') from None
        if low is not None and value < low:
            raise raster_error(f'{parameter}: {header_path}: "{key}" must be at least '
                               f'{low}, got {value}')
        return value

    width, height = integer('samples', low=1), integer('lines', low=1)
    bands, offset = integer('bands', 1, low=1), integer('header offset', 0, low=0)
    code = integer('data type')
    if code not in _ENVI_TYPES:
        raise raster_error(f'{parameter}: {header_path}: unsupported "data type" {code}')
    if not 1 <= band <= bands:
        raise raster_error(f'{parameter}: {path}: band {band} of {bands}')
    order = integer('byte order', 0)
    if order not in (0, 1):
        raise raster_error(f'{parameter}: {header_path}: "byte order" must be 0 or 1, '
                           f'got {order}')
    dtype = numpy.dtype(_ENVI_TYPES[code]).newbyteorder('>' if order == 1 else '<')
    item = dtype.itemsize
    interleave = fields.get('interleave', 'bsq').lower()
    # (band start, line stride, pixel stride) in bytes for each interleave.
    strides = {'bsq': ((band - 1) * height * width * item, width * item, item),
               'bil': ((band - 1) * width * item, bands * width * item, item),
               'bip': ((band - 1) * item, bands * width * item, bands * item)}
    if interleave not in strides:
        raise raster_error(f'{parameter}: {header_path}: unknown "interleave" '
                           f'{interleave!r}')
    start, line_stride, pixel_stride = strides[interleave]
    geometry = (f'"samples" {width}, "lines" {height}, "bands" {bands}, "header offset" '
                f'{offset}, "data type" {code}, "interleave" {interleave}')
    return _raw_layout(path, dtype, False, offset + start, line_stride, pixel_stride,
                       raster_info(path, width, height, dtype), header_path, geometry)


def _raw_vrt_layout(path, band, parameter):
    '''The layout of a VRT band that is a VRTRawRasterBand; None for other VRTs, once
    every source file they name that exists is known to be a regular file.'''
    try:
        with open_regular(path, parameter) as f:
            root = ElementTree.parse(f).getroot()
    except ElementTree.ParseError as error:
        raise raster_error(f'{parameter}: {path}: not a valid VRT ({error})') from None

    def size(name):
        text = root.get(name)
        try:
            value = int(text)
        except (TypeError, ValueError):
            raise raster_error(f'{parameter}: {path}: {name} is not an integer: '
                               f'{text!r}') from None
        if value < 1:
            raise raster_error(f'{parameter}: {path}: {name} must be at least 1, got '
                               f'{value}')
        return value

    width, height = size('rasterXSize'), size('rasterYSize')
    bands = root.findall('VRTRasterBand')
    if not 1 <= band <= len(bands):
        raise raster_error(f'{parameter}: {path}: band {band} of {len(bands)}')
    element = bands[band - 1]
    if element.get('subClass') != 'VRTRawRasterBand':
        for source in root.iter('SourceFilename'):
            filename = _vrt_source(path, source)
            if filename and os.path.lexists(filename):
                require_regular(filename, f'{parameter}: {path}: SourceFilename')
                _require_regular_sidecars(filename, f'{parameter}: {path}: SourceFilename')
        return None
    type_name = element.get('dataType')
    if type_name == 'CInt16':
        dtype, pair = numpy.dtype(numpy.int16), True
    elif _GDAL_TYPE_NAMES.get(type_name) is not None:
        dtype, pair = numpy.dtype(_GDAL_TYPE_NAMES[type_name]), False
    else:
        raise raster_error(f'{parameter}: {path}: band {band}: unsupported dataType '
                           f'{type_name}')
    filename = _vrt_source(path, element.find('SourceFilename'))
    if not filename:
        raise raster_error(f'{parameter}: {path}: band {band} has no SourceFilename')
    order = (element.findtext('ByteOrder') or 'LSB').strip()
    dtype = dtype.newbyteorder('>' if order == 'MSB' else '<')
    item = dtype.itemsize * (2 if pair else 1)

    def number(tag, default, low):
        text = element.findtext(tag)
        try:
            value = default if text is None or not text.strip() else int(text)
        except ValueError:
            raise raster_error(f'{parameter}: {path}: band {band}: {tag} is not an '
                               f'integer: {text!r}') from None
        if value < low:
            raise raster_error(f'{parameter}: {path}: band {band}: {tag} must be at '
                               f'least {low}, got {value}')
        return value

    offset = number('ImageOffset', 0, 0)
    pixel_stride = number('PixelOffset', item, item)
    line_stride = number('LineOffset', item * width, 0)
    require_regular(filename, f'{parameter}: {path}: band {band}: SourceFilename')
    geometry = (f'rasterXSize {width}, rasterYSize {height}, ImageOffset {offset}, '
                f'PixelOffset {pixel_stride}, LineOffset {line_stride}, dataType '
                f'{type_name}')
    return _raw_layout(filename, dtype, pair, offset, line_stride, pixel_stride,
                       raster_info(path, width, height,
                                   numpy.dtype(numpy.complex64) if pair else dtype),
                       path, geometry)


def _vrt_source(path, source):
    '''The file a VRT's SourceFilename element names, relative names resolved; None
    when it names none.'''
    if source is None or not (source.text or '').strip():
        return None
    filename = source.text.strip()
    if source.get('relativeToVRT', '0') == '1':
        filename = os.path.join(os.path.dirname(os.path.abspath(path)), filename)
    return filename


def _npy_layout(path, band, parameter):
    '''The layout of a NumPy .npy file's 2-D array of numbers, from its header.'''
    with open_regular(path, parameter) as f:
        try:
            version = numpy.lib.format.read_magic(f)
            readers = {(1, 0): numpy.lib.format.read_array_header_1_0,
                       (2, 0): numpy.lib.format.read_array_header_2_0}
            if version not in readers:
                raise ValueError(f'format version {version[0]}.{version[1]} is not read')
            shape, fortran_order, dtype = readers[version](f)
        except ValueError as error:
            raise raster_error(f'{parameter}: {path}: not a NumPy array ({error})') \
                from None
        offset = f.tell()
    if len(shape) != 2 or min(shape) < 1:
        raise raster_error(f'{parameter}: {path}: expected a 2-D array with pixels, got '
                           f'shape {shape}')
    if dtype.hasobject or dtype.kind not in 'biufc':
        raise raster_error(f'{parameter}: {path}: {dtype} is not a number type')
    if band != 1:
        raise raster_error(f'{parameter}: {path}: band {band} of 1')
    height, width = shape
    item = dtype.itemsize
    line_stride, pixel_stride = (item, height * item) if fortran_order else (width * item,
                                                                             item)
    geometry = f'shape {shape}, {"Fortran" if fortran_order else "C"} order, {dtype}'
    return _raw_layout(path, dtype, False, offset, line_stride, pixel_stride,
                       raster_info(path, width, height, dtype), path, geometry)


class raw_band:
    '''
    One band of a raw file (ENVI, raw VRT, .npy), read when asked: dense_offsets()
    reads the pixels its windows cover, read() the whole band, [rows, columns] a
    block. Reads are positioned reads whose byte counts are checked, not a memory map:
    a file cut while it is read (a copy still being made, a file replaced) is a
    raster_error naming it, where a memory map kills the process with SIGBUS.

    shape: (rows, columns), or (rows, columns, 2) for CInt16's I, Q pairs; dtype: what
    reads return, in native byte order (int16 for the pairs).
    '''

    # Rows read together in one call, at most this many bytes.
    CHUNK_BYTES = 16 << 20

    def __init__(self, layout, parameter, dtype=None):
        self._layout = layout
        self._parameter = parameter
        self.dtype = numpy.dtype(layout.dtype.newbyteorder('=') if dtype is None
                                 else dtype)
        info = layout.info
        self.shape = (info.height, info.width) + ((2,) if layout.pair else ())
        self._item = layout.dtype.itemsize * (2 if layout.pair else 1)
        needed = (layout.offset + (info.height - 1) * layout.line_stride
                  + (info.width - 1) * layout.pixel_stride + self._item)
        size = os.stat(layout.filename).st_size
        if size < needed:
            raise raster_error(f'{parameter}: {layout.filename}: {size} bytes, shorter '
                               f'than the {needed} bytes that {layout.described_by} '
                               f'describes ({layout.geometry})')
        # Pixels of their own: a layout whose rows overlap (LineOffset 0) could
        # describe far more pixels than the file holds, and an array of them all.
        pixels_bytes = info.height * info.width * self._item
        if pixels_bytes > size - layout.offset:
            raise raster_error(f'{parameter}: {layout.described_by}: {info.height} x '
                               f'{info.width} pixels of {self._item} bytes overlap in the '
                               f'{size - layout.offset} bytes of {layout.filename} '
                               f'after the offset ({layout.geometry})')

    @property
    def ndim(self):
        return len(self.shape)

    def astype(self, dtype):
        '''The same band, read as \\p dtype.'''
        return raw_band(self._layout, self._parameter, dtype)

    def read(self):
        '''The whole band, an array.'''
        return self.read_block((0, self.shape[0]), [(0, self.shape[1])])

    def __array__(self, dtype=None, copy=None):
        array = self.read()
        return array if dtype is None else array.astype(dtype)

    def __getitem__(self, key):
        '''[rows, columns] of slices of step 1: that block, an array.'''
        key = key if isinstance(key, tuple) else (key,)
        if len(key) > 2 or any(not isinstance(k, slice) or k.step not in (None, 1)
                               for k in key):
            raise TypeError('raw_band: index with [rows, columns] slices of step 1, or '
                            'read the band whole with read()')
        key += (slice(None),) * (2 - len(key))
        (top, bottom, _), (left, right, _) = (k.indices(n) for k, n in
                                              zip(key, self.shape))
        if bottom <= top or right <= left:
            return numpy.empty((max(bottom - top, 0), max(right - left, 0))
                               + self.shape[2:], self.dtype)
        return self.read_block((top, bottom), [(left, right)])

    def read_block(self, rows, column_spans, out=None):
        '''
        Rows rows[0] .. rows[1] - 1 of the columns of each (first, end) span of
        \\p column_spans (ascending, apart), the spans side by side, into \\p out (made
        when None), converted to dtype. Returns out.
        '''
        layout = self._layout
        top, bottom = rows
        left, right = column_spans[0][0], column_spans[-1][1]
        if out is None:
            width = sum(end - first for first, end in column_spans)
            out = numpy.empty((bottom - top, width) + self.shape[2:], self.dtype)
        span = (right - left - 1) * layout.pixel_stride + self._item
        # Rows together where the bytes between them are few, else one at a time.
        together = 1
        if layout.line_stride <= 2 * span:
            together = max(1, self.CHUNK_BYTES // max(layout.line_stride, 1))
        pair = (2,) if layout.pair else ()
        strides = (layout.line_stride, layout.pixel_stride) + (
            (layout.dtype.itemsize,) if layout.pair else ())
        with open_regular(layout.filename, self._parameter) as f:
            for row in range(top, bottom, together):
                count = min(together, bottom - row)
                data = self._read_bytes(
                    f.fileno(), layout.offset + row * layout.line_stride
                    + left * layout.pixel_stride, (count - 1) * layout.line_stride + span,
                    row, count)
                block = numpy.ndarray((count, right - left) + pair, layout.dtype, data, 0,
                                      strides)
                column = 0
                for first, end in column_spans:
                    out[row - top:row - top + count, column:column + end - first] = \
                        block[:, first - left:end - left]
                    column += end - first
        return out

    def _read_bytes(self, descriptor, start, length, row, count):
        data = bytearray(length)
        view = memoryview(data)
        done = 0
        while done < length:
            got = os.preadv(descriptor, [view[done:]], start + done)
            if got == 0:
                raise raster_error(
                    f'{self._parameter}: {self._layout.filename}: ends at byte '
                    f'{start + done}, inside rows {row}..{row + count - 1} of '
                    f'{self._layout.info.path}: the file was cut after it was opened '
                    '(is it still being copied or written?)')
            done += got
        return data


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
