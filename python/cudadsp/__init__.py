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
wired together); gnss_records / gnss_record_sink (the correlator's
records as NumPy structured arrays); gnss_channel_monitor (the records as per-satellite
vectors for a live QT GUI view); gnss_simulator_source (simulated satellites as a
stream); gnss_acquisition (the correlator as a search grid).

Python sources (no GPU engine): storm_scene_source, dual-polarisation weather-radar
pulses of a synthetic storm, and storm_scene, its scene model (NumPy only);
tbd_scene_source, image frames of point targets in noise for st_tbd_ff, and
tbd_scene, its model. tbd_performance: the detection study of st_tbd_ff.

Python sinks: cfradial_sink, radar moments (polarimetric_products_cf, kdp_ff) to
CfRadial 1.4 files, one per sweep (netCDF4).
'''

import sys as _sys

# The engines' package (no GNU Radio): everything it exports is this package's too, so
# scripts written against gnuradio.cudadsp keep working.
from cudadsp import *
from cudadsp.common import data_files, output_set
from cudadsp.insar import (interferogram_cases, offset_stack, raster_io, stack_dask,
                           unwrap_metrics, xcorr_pair)
from cudadsp.radar import weather_echo

# The modules that moved to cudadsp, under their old names too
# (`import gnuradio.cudadsp.raster_io` as well as `from gnuradio.cudadsp import raster_io`).
for _module in (data_files, output_set, interferogram_cases, offset_stack, raster_io,
                stack_dask, unwrap_metrics, xcorr_pair, weather_echo):
    _sys.modules[__name__ + "." + _module.__name__.rsplit(".", 1)[1]] = _module
_sys.modules[__name__ + ".dense_offsets"] = _sys.modules["cudadsp.insar.dense_offsets"]
_sys.modules[__name__ + ".unwrap_2d"] = _sys.modules["cudadsp.insar.unwrap_2d"]

# The pybind11 extension holds every block with an engine.
from .cudadsp_python import *

from .storm_scene_source import storm_scene, storm_scene_source
from .cfradial_sink import cfradial_sink
from .tbd_scene import tbd_scene, tbd_scene_source
from .gnss_records import gnss_record_sink, gnss_records
from .gnss_channel_monitor import gnss_channel_monitor
from .gnss_simulator_source import gnss_simulator_source
from .gnss_receiver import gnss_receiver_frontend
from . import gnss_acquisition
