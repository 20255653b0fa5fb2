#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''Track-before-detect blocks: st_tbd_ff (the spatio-temporal filter), tbd_scene_source
(frames of point targets in noise, tbd_scene its model) and performance (the detection
study of st_tbd_ff); with the engines' TBD API (cudadsp.tbd: track_before_detect,
st_tbd, tbd_velocity_grid).'''

from cudadsp.tbd import *

from ..cudadsp_python import st_tbd_ff
from .scene import tbd_scene, tbd_scene_source
from . import performance
