#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''InSAR without GNU Radio: two-dimensional phase unwrapping (unwrap_phase_2d; the
engine phase_unwrapper_2d), dense offsets of SLC pairs as ISCE's PyCuAmpcor computes
them (dense_offsets for one pair, dense_offsets_engine for stacks; the engine
dense_offsets_estimator), patch offsets as GMTSAR's xcorr computes them
(patch_offsets; the engine patch_correlator), simulated interferograms with known truth
(simulate_interferogram), and the modules of the tools: raster_io (ENVI, VRT, GDAL
rasters), offset_stack (cudadsp_offsets), stack_dask (cudadsp_stack), xcorr_pair
(cudadsp_xcorr runs), unwrap_metrics (right-cycle fractions).'''

from .._engines import (dense_offsets_estimator, interferogram_scene, patch_correlator,
                        phase_unwrapper_2d, simulate_interferogram)
from .dense_offsets import (dense_offsets, dense_offsets_engine, dense_offsets_grid,
                            dense_offsets_result)
from .patch_offsets import patch_offsets
from .unwrap_2d import unwrap_2d_result, unwrap_phase_2d
