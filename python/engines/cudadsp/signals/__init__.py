#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''Signal engines every field uses, without GNU Radio: one-dimensional phase
unwrapping (unwrap_phase, numpy.unwrap's rule on CPU or CUDA; phase_unwrapper, the
streaming engine of phase_unwrap_ff).'''

from .._engines import phase_unwrapper
from .unwrap_1d import unwrap_phase
