#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""available_devices: every device string an engine can run on here."""

from .._engines import cuda_device_count


def available_devices():
    """["cpu", "cuda:0", "cuda:1", ...]: the CPU and each usable CUDA device, in the
    form every engine's device argument takes (a loop over them runs a computation on
    each backend, as the package's tests do)."""
    return ["cpu"] + ["cuda:%d" % n for n in range(cuda_device_count())]
