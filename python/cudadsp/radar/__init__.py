#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''Weather-radar blocks: polarimetric_products_cf (moments of dual-polarisation I/Q),
kdp_ff (KDP and processed PhiDP), cfradial_sink (moments to CfRadial 1.4 files, one per
sweep) and storm_scene_source (I/Q of a synthetic storm, storm_scene its model); with
the engines' radar API (cudadsp.radar: polarimetric_moments, kdp).'''

from cudadsp.radar import *

from ..cudadsp_python import kdp_ff, polarimetric_products_cf
from .cfradial_sink import cfradial_sink
from .storm_scene_source import storm_scene, storm_scene_source
