#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''Weather radar without GNU Radio: kdp (specific differential phase and processed
PhiDP of radials; kdp_processor, the engine of kdp_ff) and weather_echo, the
dual-polarisation echo model of the synthetic storm (storm_scene_source in
gnuradio.cudadsp streams it). The polarimetric moments run as a block of
gnuradio.cudadsp.'''

from .._engines import kdp_processor
from .kdp_radials import kdp, kdp_result
