#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
cudadsp: the engines of gr-cudadsp in Python, with NumPy and without GNU Radio.

Each engine runs on the CPU or on a CUDA device (device="auto", "cpu", "cuda" or
"cuda:N"; "auto" takes CUDA device 0 when there is one). The package needs NumPy and
the engine library (libgnuradio-cudadsp-core); GNU Radio's blocks of the same engines
are gnuradio.cudadsp, which re-exports everything here.

By field:

- cudadsp.insar: two-dimensional phase unwrapping (unwrap_phase_2d), dense offsets of
  SLC pairs as ISCE's PyCuAmpcor computes them (dense_offsets, dense_offsets_engine),
  patch offsets as GMTSAR's xcorr computes them (patch_offsets),
  simulated interferograms with known truth (simulate_interferogram), and the rasters
  and stacks of the tools cudadsp_unwrap, cudadsp_offsets and cudadsp_stack
  (raster_io, offset_stack, stack_dask).
- cudadsp.gnss: acquisition of GPS L1 C/A, Galileo E1 and GLONASS L1OF satellites in
  recordings (acquire), their tracking by the multichannel correlator (track,
  multichannel_correlator), their codes and the GNSS signal simulator; the GPS
  receiver (gnss.receive: fixes, RINEX, NMEA and GeoJSON of a recording; the tool
  cudadsp_gnss).
- cudadsp.radar: moments and polarimetric products of dual-polarisation I/Q
  (polarimetric_moments), KDP and processed PhiDP of radials (kdp), the weather-echo
  model of the synthetic storm.
- cudadsp.signals: one-dimensional phase unwrapping (unwrap_phase, numpy.unwrap's rule;
  phase_unwrapper for streams) and frame cross-correlation (cross_correlate).
- cudadsp.tbd: spatio-temporal track-before-detect over frames (track_before_detect,
  st_tbd) and velocity-grid hypotheses (tbd_velocity_grid).
- cudadsp.common: output sets written whole or not at all, the data folder.

Devices: available_devices, select_device, cuda_device_count, list_cuda_devices. A failed CUDA call
raises cudadsp.cuda_error (a RuntimeError). The package logs through Python's logging,
under the logger "cudadsp".
'''

import logging

from ._engines import (cuda_device_count, cuda_driver_version, cuda_error,
                       cuda_runtime_version, cuda_unavailable_reason, list_cuda_devices,
                       select_device)
from .common.devices import available_devices
from .gnss import (acquire, gnss_receiver_tap_offsets, gnss_signal_system,
                   multichannel_correlator, pcps_acquisition, track)
from .gnss import (boc11_expand, galileo_e1_chip_rate_cps, galileo_e1_code,
                   galileo_e1_code_length, galileo_e1_component, galileo_e1_prn_count,
                   glonass_l1of_chip_rate_cps, glonass_l1of_code, glonass_l1of_code_length,
                   gnss_signal_simulator, gnss_simulated_satellite, gnss_simulator_config,
                   gps_l1_frequency_hz, gps_l1ca_chip_rate_cps, gps_l1ca_code,
                   gps_l1ca_code_length)
from .radar import (kdp, kdp_processor, kdp_result, polarimetric_moments,
                    polarimetric_processor)
from .signals import (cross_correlate, cross_correlation_result, cross_correlator,
                      phase_unwrapper, unwrap_phase)
from .tbd import st_tbd, tbd_result, tbd_velocity_grid, track_before_detect
from .insar import (dense_offsets, dense_offsets_engine, dense_offsets_estimator,
                    dense_offsets_grid, dense_offsets_result, interferogram_scene,
                    patch_correlator, patch_offsets, phase_unwrapper_2d,
                    simulate_interferogram, unwrap_2d_result, unwrap_phase_2d)

# What `from cudadsp import *` gives (gnuradio.cudadsp re-exports it this way): the
# API above and the field subpackages, not the modules this file uses.
__all__ = [name for name in dir() if not name.startswith("_") and name != "logging"]

# A library's logger: silent unless the application configures logging.
logging.getLogger(__name__).addHandler(logging.NullHandler())
