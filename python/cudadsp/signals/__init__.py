#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''Signal blocks: phase_unwrap_ff (one-dimensional unwrapping of a stream) and
cross_correlator_cc (delay, coherence and phase of two signals frame by frame); with the
engines' signal API (cudadsp.signals: unwrap_phase, cross_correlate).'''

from cudadsp.signals import *

from ..cudadsp_python import cross_correlator_cc, phase_unwrap_ff
