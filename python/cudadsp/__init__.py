#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
gr-cudadsp: GPU-accelerated sensor signal processing blocks for GNU Radio.

Every block takes a ``device`` argument: "auto" (CUDA when a device is present, else
the CPU), "cpu", "cuda" or "cuda:N". Blocks: phase_unwrap_ff, phase_unwrap_2d_ff,
polarimetric_products_cf, multichannel_correlator_cc, _sc and _bc (GNSS correlator).

The engines without GNU Radio are the package cudadsp (NumPy only; docs/python_engines.md),
whose names this package re-exports: two-dimensional phase unwrapping of NumPy arrays,
unwrap_phase_2d, with the engine of phase_unwrap_2d_ff (phase_unwrapper_2d, that engine
itself, for one shape).

Dense offsets of SLC pairs (ISCE PyCuAmpcor's method): dense_offsets, and
dense_offsets_engine for stacks (dense_offsets_estimator, the engine itself);
offset_stack runs pairs from rasters to rasters (the tool cudadsp_offsets).

GNSS helpers: gps_l1ca_code, galileo_e1_code, glonass_l1of_code, boc11_expand,
gnss_signal_simulator (C++ engines); pcps_acquisition_cc / _sc (continuous
acquisition handing satellites to the correlator) and gnss_receiver_frontend (the two
wired together); gps_telemetry_decoder, gnss_observables and gnss_pvt (records to
fixes) and gnss_receiver (a stream to fixes, RINEX and NMEA); gnss_records / gnss_record_sink (the correlator's
records as NumPy structured arrays); gnss_channel_monitor (the records as per-satellite
vectors for a live QT GUI view); gnss_simulator_source (simulated satellites as a
stream); gnss.search_grid (the correlator as a search grid).

Python sources (no GPU engine): storm_scene_source, dual-polarisation weather-radar
pulses of a synthetic storm, and storm_scene, its scene model (NumPy only);
tbd_scene_source, image frames of point targets in noise for st_tbd_ff, and
tbd_scene, its model. tbd_performance: the detection study of st_tbd_ff.

Python sinks: cfradial_sink, radar moments (polarimetric_products_cf, kdp_ff) to
CfRadial 1.4 files, one per sweep (netCDF4).

The blocks are grouped by field in subpackages, each with the engines' API of its field:
gnuradio.cudadsp.gnss, .radar, .insar, .signals, .tbd and .common (what the Python
blocks share). Every name is also here, at the top, as before.
'''

import importlib as _importlib
import sys as _sys

# The engines' package (no GNU Radio): everything it exports is this package's too, so
# scripts written against gnuradio.cudadsp keep working.
from cudadsp import *

# The modules that moved to cudadsp, under their old names too: `from gnuradio.cudadsp
# import raster_io` and `import gnuradio.cudadsp.raster_io` both still work.
for _moved in ("common.data_files", "common.output_set", "insar.dense_offsets",
               "insar.interferogram_cases", "insar.offset_stack", "insar.raster_io",
               "insar.stack_dask", "insar.unwrap_2d", "insar.unwrap_metrics",
               "insar.xcorr_pair", "radar.weather_echo"):
    _module = _importlib.import_module("cudadsp." + _moved)
    _name = _moved.split(".")[1]
    _sys.modules[__name__ + "." + _name] = _module
    # As an attribute too, unless the package already exports a function of that name
    # (dense_offsets): the function stays, as before the move.
    if _name not in globals():
        globals()[_name] = _module

# The pybind11 extension holds every block with an engine.
from .cudadsp_python import *

# The blocks by field, each subpackage with the engines' API of its field too
# (gnuradio.cudadsp.gnss has cudadsp.gnss's names and the GNSS blocks).
from . import common, gnss, insar, radar, signals, tbd
from .gnss import (gnss_channel_monitor, gnss_receiver, gnss_receiver_frontend,
                   gnss_record_sink, gnss_records, gnss_simulator_source)
from .radar import cfradial_sink, storm_scene, storm_scene_source
from .tbd import tbd_scene, tbd_scene_source

# The Python block modules under their names from before the subpackages:
# `import gnuradio.cudadsp.gnss_records` and `from gnuradio.cudadsp import
# tbd_performance` still work.
for _old, _new in (("gnss_acquisition", "gnss.search_grid"),
                   ("gnss_channel_monitor", "gnss.channel_monitor"),
                   ("gnss_receiver", "gnss.receiver_frontend"),
                   ("gnss_records", "gnss.records"),
                   ("gnss_simulator_source", "gnss.simulator_source"),
                   ("cfradial_sink", "radar.cfradial_sink"),
                   ("storm_scene_source", "radar.storm_scene_source"),
                   ("tbd_scene", "tbd.scene"), ("tbd_performance", "tbd.performance"),
                   ("rate_limited_log", "common.rate_limited_log"),
                   ("work_errors", "common.work_errors")):
    _module = _importlib.import_module(__name__ + "." + _new)
    _sys.modules[__name__ + "." + _old] = _module
    # As an attribute too, unless a block or function has that name (cfradial_sink,
    # gnss_records, tbd_scene): it stays, as before.
    if _old not in globals():
        globals()[_old] = _module
