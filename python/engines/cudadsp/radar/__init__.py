#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''Weather radar without GNU Radio: polarimetric_moments (Zh, ZDR, V, W, PhiDP, RhoHV,
SNRh, clutter filtering of dual-polarisation I/Q; polarimetric_processor, the engine of
polarimetric_products_cf), kdp (specific differential phase and processed PhiDP of
radials; kdp_processor, the engine of kdp_ff) and weather_echo, the dual-polarisation
echo model of the synthetic storm (storm_scene_source in gnuradio.cudadsp streams it).'''

from .._engines import kdp_processor, polarimetric_processor
from .kdp_radials import kdp, kdp_result
from .moments import PRODUCTS, polarimetric_moments
