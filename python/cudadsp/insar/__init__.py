#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''InSAR blocks: phase_unwrap_2d_ff (two-dimensional unwrapping of frames) and
patch_xcorr_cc (GMTSAR xcorr's patch offsets of a stream of patch pairs); with the
engines' InSAR API (cudadsp.insar: unwrap_phase_2d, dense_offsets, patch_offsets,
simulate_interferogram, the rasters and stacks of the tools).'''

from cudadsp.insar import *

from ..cudadsp_python import patch_xcorr_cc, phase_unwrap_2d_ff
