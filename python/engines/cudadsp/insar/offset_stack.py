#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Dense offsets of one pair or a stack of pairs from rasters to rasters: what the tool
cudadsp_offsets runs, and what the Dask driver (stack_dask) runs on each worker.

- offsets_options: the tool's options (add_offsets_arguments() puts them on an
  argparse parser, options_from_arguments() reads them back);
- pair_spec, read_pair_list(): a list of pairs, one "REFERENCE SECONDARY [FOLDER]" a line;
- engine_cache: one engine per configuration, reused for every pair of a process;
- run_pair(): one pair, its failure reported, never raised; its outputs written as
  PyCuAmpcor's script names them (write_outputs());
- write_summary(): the stack's table, Markdown and CSV.

docs/apps/cudadsp_offsets.md describes the options, outputs and errors.
"""

import csv
import dataclasses
import io
import logging
import os
import pathlib
import shlex
import time


from ..common import output_set
from . import raster_io
from .dense_offsets import (DEFAULTS, ENGINE_PARAMETERS, LAYOUT_PARAMETERS,
                            dense_offsets_engine, gross_offset_array)

# Output rasters of one pair: (suffix after the prefix, result fields as bands, what
# they are). The names and band orders are cuDenseOffsets.py's (<prefix>.bip,
# <prefix>_gross.bip, _snr, _cov); the peak is PyCuAmpcor v2's extra output.
OUTPUTS = (
    ("", ("offset_down", "offset_across"), "dense offsets (down, across), pixels"),
    ("_gross", ("gross_down", "gross_across"), "gross offsets (down, across), pixels"),
    ("_snr", ("snr",), "signal-to-noise ratio of the correlation peak"),
    ("_cov", ("cov_down", "cov_across", "cov_cross"),
     "covariance of the offsets (down-down, across-across, down-across), pixels^2"),
    ("_peak", ("peak",), "normalised correlation at the integer peak"),
)


@dataclasses.dataclass
class offsets_options:
    """The tool's options, PyCuAmpcor's parameters under dense_offsets()'s names and
    with its defaults (the engine's)."""
    window_width: int = DEFAULTS.window_width
    window_height: int = DEFAULTS.window_height
    half_search_across: int = DEFAULTS.half_search_across
    half_search_down: int = DEFAULTS.half_search_down
    skip_across: int = DEFAULTS.skip_across
    skip_down: int = DEFAULTS.skip_down
    start_across: int = None
    start_down: int = None
    number_across: int = None
    number_down: int = None
    raw_oversampling: int = DEFAULTS.raw_oversampling
    corr_oversampling: int = DEFAULTS.corr_oversampling
    zoom_window: int = DEFAULTS.zoom_window
    corr_stat_window: int = DEFAULTS.corr_stat_window
    deramp: int = DEFAULTS.deramp
    deramp_pairing: str = DEFAULTS.deramp_pairing
    deramp_axis: str = DEFAULTS.deramp_axis
    peak: str = DEFAULTS.peak
    gross_offset_down: int = 0
    gross_offset_across: int = 0
    gross_offset_raster: str = None
    merge_gross_offset: bool = DEFAULTS.merge_gross_offset
    device: str = DEFAULTS.device
    prefix: str = "dense_offsets"

    def engine_configuration(self):
        """The arguments of dense_offsets_engine: what one engine is made for."""
        return {name: getattr(self, name) for name in ENGINE_PARAMETERS}

    def grid_arguments(self):
        """The per-pair layout arguments of dense_offsets_engine.estimate()."""
        return {name: getattr(self, name) for name in LAYOUT_PARAMETERS}


def add_offsets_arguments(parser):
    """The options of offsets_options on \\p parser, PyCuAmpcor's names in the help."""
    defaults = offsets_options()
    group = parser.add_argument_group("correlation (PyCuAmpcor's names in brackets)")

    def option(flags, name, help, **extra):
        default = getattr(defaults, name)
        if default is not None:
            help += f" (default {default})"
        group.add_argument(*flags, dest=name, default=default, help=help, **extra)

    option(("--window-width", "--ww"), "window_width",
           "reference window width across, pixels [windowSizeWidth]", type=int)
    option(("--window-height", "--wh"), "window_height",
           "reference window height down, pixels [windowSizeHeight]", type=int)
    option(("--half-search-across", "--sw"), "half_search_across",
           "half search range across, pixels [halfSearchRangeAcross]", type=int)
    option(("--half-search-down", "--sh"), "half_search_down",
           "half search range down, pixels [halfSearchRangeDown]", type=int)
    option(("--skip-across", "--kw"), "skip_across",
           "window spacing across [skipSampleAcross]", type=int)
    option(("--skip-down", "--kh"), "skip_down",
           "window spacing down [skipSampleDown]", type=int)
    option(("--start-across",), "start_across",
           "first window's left column [referenceStartPixelAcrossStatic]; default: "
           "margin + half search across", type=int)
    option(("--start-down",), "start_down",
           "first window's top row [referenceStartPixelDownStatic]; default: margin + "
           "half search down", type=int)
    option(("--number-across",), "number_across",
           "windows across [numberWindowAcross]; default: as many as cuDenseOffsets.py "
           "fits", type=int)
    option(("--number-down",), "number_down",
           "windows down [numberWindowDown]; default: as many as cuDenseOffsets.py fits",
           type=int)
    option(("--raw-oversampling", "--raw-osf"), "raw_oversampling",
           "raw-data oversampling factor [rawDataOversamplingFactor]", type=int)
    option(("--corr-oversampling", "--oo"), "corr_oversampling",
           "correlation-surface oversampling factor [corrSurfaceOverSamplingFactor]",
           type=int)
    option(("--zoom",), "zoom_window",
           "correlation-surface zoom-in window, oversampled pixels "
           "[corrSurfaceZoomInWindow]", type=int)
    option(("--corr-stat-window",), "corr_stat_window",
           "correlation-surface window of the SNR [corrStatWindowSize]", type=int)
    option(("--deramp",), "deramp",
           "0 amplitudes only, 1 phase-gradient removal, 2 complex without deramping "
           "[derampMethod]", type=int, choices=(0, 1, 2))
    option(("--deramp-pairing",), "deramp_pairing",
           "with --deramp 1: isce3 removes the phase ramp (row index x phase down); "
           "isce2 swaps the axes as ISCE2 2.6's PyCuAmpcor does",
           choices=("isce3", "isce2"))
    option(("--deramp-axis",), "deramp_axis",
           "with --deramp 1: the measured phases removed, both or only the one measured "
           "down (azimuth) or across (range) [ISCE3's derampAxis 2, 0, 1]",
           choices=("both", "down", "across"))
    option(("--peak",), "peak",
           "the correlation peak written: oversampled, the fine surface's maximum "
           "(ISCE3's correlation_peak), or raw, the raw surface's (PyCuAmpcor v2's "
           "peakValue)", choices=("oversampled", "raw"))
    gross = group.add_mutually_exclusive_group()
    gross.add_argument("--gross-offset", nargs=2, type=int, metavar=("DOWN", "ACROSS"),
                       help="constant gross offset, whole pixels [setConstantGrossOffset]")
    gross.add_argument("--gross-offset-raster", metavar="FILE",
                       help="per-window gross offsets: 2 bands (down, across), "
                            "number_down lines x number_across samples "
                            "[setVaryingGrossOffset]")
    group.add_argument("--merge-gross-offset", action="store_true",
                       help="add the gross offsets to the offsets [mergeGrossOffset]")
    group.add_argument("--device", default=defaults.device,
                       help="auto, cpu, cuda or cuda:N (default auto)")
    group.add_argument("--prefix", default=defaults.prefix,
                       help="output name prefix: PREFIX.bip, PREFIX_snr.bip, ... "
                            f"(default {defaults.prefix})")
    return parser


def options_from_arguments(arguments):
    """The offsets_options of arguments parsed with add_offsets_arguments(); raises
    ValueError naming --prefix for a prefix that is not a plain file name."""
    values = {f.name: getattr(arguments, f.name) for f in
              dataclasses.fields(offsets_options) if hasattr(arguments, f.name)}
    gross = getattr(arguments, "gross_offset", None)
    if gross is not None:
        values["gross_offset_down"], values["gross_offset_across"] = gross
    options = offsets_options(**values)
    check_prefix(options.prefix)
    return options


def check_prefix(prefix):
    """A prefix names files inside each pair's folder: with a separator or ".." it
    would write elsewhere, every pair of a stack over the same files."""
    separators = [s for s in (os.sep, os.altsep, "/") if s]
    if not prefix or ".." in prefix or any(s in prefix for s in separators):
        raise ValueError(f"--prefix: {prefix!r}: a file name without a path separator "
                         "or '..' (the outputs go into each pair's folder)")


@dataclasses.dataclass
class pair_spec:
    """One pair of a stack: its name (its output folder's), the two rasters, the folder."""
    name: str
    reference: str
    secondary: str
    output: str


def _stem(path):
    name = pathlib.Path(path)
    if name.suffix.lower() == ".vrt":
        name = name.with_suffix("")
    return name.stem


def read_pair_list(path, default_output_root):
    """
    The pairs of the list file \\p path: one pair a line, "REFERENCE SECONDARY
    [OUTPUT_FOLDER]" (shell quoting for names with spaces), '#' starts a comment,
    blank lines are ignored. Relative paths are relative to the list file's folder; the
    folder defaults to <default_output_root>/<reference stem>_<secondary stem>. Raises
    ValueError naming the file and line for a line of the wrong form, and for two
    pairs sharing an output folder.
    """
    base = os.path.dirname(os.path.abspath(path))
    try:
        # A regular file only: a FIFO would hold the open for ever.
        with raster_io.open_regular(path, "--pairs") as f:
            lines = f.read().decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"--pairs: {path}: cannot be read ({error})") from None
    pairs, folders = [], {}
    for number, line in enumerate(lines, 1):
        try:
            fields = shlex.split(line, comments=True)
        except ValueError as error:
            raise ValueError(f"--pairs: {path}, line {number}: {error}") from None
        if not fields:
            continue
        if len(fields) not in (2, 3):
            raise ValueError(f"--pairs: {path}, line {number}: expected REFERENCE "
                             f"SECONDARY [OUTPUT_FOLDER], got {len(fields)} fields")
        reference, secondary = (os.path.join(base, p) for p in fields[:2])
        if len(fields) == 3:
            output = os.path.join(base, fields[2])
        else:
            output = os.path.join(default_output_root,
                                  f"{_stem(reference)}_{_stem(secondary)}")
        output = os.path.normpath(os.path.abspath(output))
        if output in folders:
            raise ValueError(f"--pairs: {path}, line {number}: output folder {output} "
                             f"is also line {folders[output]}'s")
        folders[output] = number
        pairs.append(pair_spec(os.path.basename(output), reference, secondary, output))
    if not pairs:
        raise ValueError(f"--pairs: {path}: no pairs")
    return pairs


class engine_cache:
    """The engines of one process, one per configuration: every pair with the same
    options reuses one (its device context, FFT plans and buffers)."""

    def __init__(self):
        self._engines = {}

    def get(self, config):
        """The engine for \\p config (dense_offsets_engine's arguments), made once."""
        key = tuple(sorted(config.items()))
        if key not in self._engines:
            self._engines[key] = dense_offsets_engine(**config)
        return self._engines[key]


@dataclasses.dataclass
class pair_report:
    """How one pair went: status "ok", "failed" or "not run" (interrupted before or
    while it ran), its time, its windows, the error or reason (empty when ok) and its
    output folder."""
    name: str
    status: str
    seconds: float
    windows: int
    message: str
    output: str


def output_names(prefix):
    """The files of write_outputs() in their folder: each raster with its .hdr and
    .vrt, then the report, the set's marker."""
    names = []
    for suffix, _, _ in OUTPUTS:
        names += [f"{prefix}{suffix}.bip{sidecar}" for sidecar in ("", ".hdr", ".vrt")]
    return names + [f"{prefix}.json"]


def output_paths(folder, prefix):
    """The rasters write_outputs() writes (each with .hdr and .vrt) and the report."""
    return ([os.path.join(folder, f"{prefix}{suffix}.bip") for suffix, _, _ in OUTPUTS]
            + [os.path.join(folder, f"{prefix}.json")])


def write_outputs(result, folder, prefix, like=None, summary=None):
    """
    Write \\p result (a dense_offsets_result) into \\p folder as PyCuAmpcor's script
    names its outputs: PREFIX.bip, PREFIX_gross.bip, PREFIX_snr.bip, PREFIX_cov.bip,
    PREFIX_peak.bip, float32 BIP, each with an ENVI .hdr and a GDAL .vrt; then
    PREFIX.json (\\p summary, the grid and the report), the marker of the set: its
    presence says the set is complete. One output_set: the earlier outputs of the
    prefix stay as they were until every file is written, then are replaced whole; a
    failure leaves them and removes what it wrote. Returns the paths written.
    """
    with output_set.output_set(folder, output_names(prefix)) as files:
        written = []
        for suffix, fields, description in OUTPUTS:
            written += raster_io.write_bands(
                os.path.join(files.folder, f"{prefix}{suffix}.bip"),
                [getattr(result, f) for f in fields], list(fields), like=like,
                description=description, outputs=files)
        grid = result.grid
        document = dict(summary or {})
        document.update(
            grid=dict(start_down=grid.start_down, start_across=grid.start_across,
                      skip_down=grid.skip_down, skip_across=grid.skip_across,
                      number_down=grid.number_down, number_across=grid.number_across,
                      window_height=grid.window_height, window_width=grid.window_width),
            report=result.report, outputs=written[0::3])
        files.write_json(f"{prefix}.json", document)
    return written + [files.final_path(f"{prefix}.json")]


def _read_gross_raster(path, shape):
    """The two bands of a per-window gross-offset raster, checked against the grid."""
    parameter = "--gross-offset-raster"
    bands = []
    for band, name in ((1, "down"), (2, "across")):
        try:
            array, _ = raster_io.read_raster(path, band, parameter)
        except raster_io.raster_error as error:
            if band == 2 and "band 2 of" in str(error):
                raise ValueError(f"{parameter}: {path}: needs 2 bands (down, across), "
                                 "has 1") from None
            raise
        if array.shape != shape:
            raise ValueError(
                f"{parameter}: {path}: {array.shape[0]} lines x {array.shape[1]} samples "
                f"differs from the window grid, number_down x number_across = "
                f"{shape[0]} x {shape[1]}")
        # The rule of every gross offset (whole, finite, within any image), one place.
        bands.append(gross_offset_array(array, f"{parameter}: {path}: band {band} ({name})",
                                        shape))
    return bands


def run_pair(pair, options, engine_cache, log=None):
    """
    Dense offsets of \\p pair (a pair_spec) with \\p options (offsets_options) on the
    engine \\p engine_cache gives for them; outputs by write_outputs() into the pair's
    folder. Never raises for the pair's own failure (a raster missing or unreadable,
    images of different sizes or types, a window leaving its image, a gross-offset
    raster of the wrong shape, a device error, a full disk): it is logged and
    reported, and the folder is as it was (an earlier run's outputs of the prefix, or
    none). \\p log: anything with info() and error() (default: the "cudadsp_offsets"
    logging logger).
    """
    log = log or logging.getLogger("cudadsp_offsets")
    started = time.monotonic()
    try:
        reference, info = raster_io.read_slc(pair.reference, "reference")
        secondary, _ = raster_io.read_slc(pair.secondary, "secondary")
        engine = engine_cache.get(options.engine_configuration())
        gross = dict(gross_offset_down=options.gross_offset_down,
                     gross_offset_across=options.gross_offset_across)
        if options.gross_offset_raster:
            grid = engine.layout(reference.shape[:2], **options.grid_arguments())
            gross["gross_offset_down"], gross["gross_offset_across"] = \
                _read_gross_raster(options.gross_offset_raster, grid.shape)
        last = [time.monotonic()]

        def progress(done, total):
            # A line every 5 s for long pairs; the last count always.
            now = time.monotonic()
            if done == total or now - last[0] >= 5.0:
                last[0] = now
                log.info(f"{pair.name}: {done} of {total} windows")

        result = engine.estimate(reference, secondary, **options.grid_arguments(),
                                 progress=progress, **gross)
        summary = dict(pair=pair.name, reference=os.path.abspath(pair.reference),
                       secondary=os.path.abspath(pair.secondary),
                       width=info.width, height=info.height,
                       options=dataclasses.asdict(options))
        write_outputs(result, pair.output, options.prefix, like=info, summary=summary)
    except (ValueError, TypeError, OSError, RuntimeError) as error:
        message = str(error)
        log.error(f"{pair.name}: failed: {message}")
        return pair_report(pair.name, "failed", time.monotonic() - started, 0, message,
                           pair.output)
    seconds = time.monotonic() - started
    log.info(f"{pair.name}: {result.report['windows']} windows in {seconds:.3f} s "
             f"({result.report['backend']}), written to {pair.output}")
    return pair_report(pair.name, "ok", seconds, result.report["windows"], "",
                       pair.output)


NOT_RUN = "not run"


def not_run_report(pair, message):
    """The row of a pair this run did not complete (\\p message says why): its folder
    is as it was before the run."""
    return pair_report(pair.name, NOT_RUN, 0.0, 0, message, pair.output)


def write_summary(reports, path_md, path_csv, state=""):
    """The table of \\p reports (pair_report), one row a pair in their order, as
    Markdown (\\p path_md) and CSV (\\p path_csv) in one folder, one output_set;
    \\p state (running, interrupted by ...) goes into the heading."""
    columns = ("pair", "status", "windows", "seconds", "output", "message")
    rows = [(r.name, r.status, str(r.windows), f"{r.seconds:.3f}", r.output,
             r.message) for r in reports]
    counts = ", ".join(f"{sum(r.status == s for r in reports)} {s}"
                       for s in ("ok", "failed", NOT_RUN))

    def cell(text):
        return text.replace("|", "\\|").replace("\n", " ")

    markdown = [f"# Dense offsets: {len(reports)} pairs, {counts}"
                + (f" ({state})" if state else ""), "",
                "| " + " | ".join(columns) + " |",
                "|" + "---|" * len(columns)]
    markdown += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    folder = os.path.dirname(os.path.abspath(path_md))
    if os.path.dirname(os.path.abspath(path_csv)) != folder:
        raise ValueError(f"{path_md}, {path_csv}: a summary's files share a folder")
    names = [os.path.basename(path_csv), os.path.basename(path_md)]
    with output_set.output_set(folder, names) as files:
        files.write(names[0], lambda f: f.write(text.getvalue().encode()))
        files.write(names[1], lambda f: f.write(("\n".join(markdown) + "\n").encode()))
