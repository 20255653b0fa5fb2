#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''Signal engines every field uses, without GNU Radio: one-dimensional phase
unwrapping (unwrap_phase, numpy.unwrap's rule on CPU or CUDA; phase_unwrapper, the
streaming engine of phase_unwrap_ff) and cross-correlation of two complex signals frame
by frame (cross_correlate: delay at sub-sample resolution, coherence, phase;
cross_correlator, the engine of cross_correlator_cc).'''

from .._engines import cross_correlator, phase_unwrapper
from .cross_correlation import cross_correlate, cross_correlation_result
from .unwrap_1d import unwrap_phase
