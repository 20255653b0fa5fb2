#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
gr-cudadsp: GPU-accelerated sensor signal processing blocks for GNU Radio.

Every block takes a ``device`` argument: "auto" (CUDA when a device is present, else
the CPU), "cpu", "cuda" or "cuda:N". Blocks: phase_unwrap_ff.
'''

# The pybind11 extension holds every block.
from .cudadsp_python import *
