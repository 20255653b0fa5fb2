#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''Track-before-detect without GNU Radio: track_before_detect (frames in, detection
maps, argmax hypotheses and detections out; st_tbd, the engine of st_tbd_ff, whose
state carries from call to call) and tbd_velocity_grid (motion hypotheses of a velocity
grid).'''

from .._engines import st_tbd, tbd_velocity_grid
from .track_before_detect import tbd_result, track_before_detect
