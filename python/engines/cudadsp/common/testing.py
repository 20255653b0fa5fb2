#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""What the package's tests share (not installed): the backends a case runs on."""

from .devices import available_devices
from .._engines import cuda_unavailable_reason


def backends(test_case):
    """The devices a case runs its assertions on: "cpu" and every CUDA device. Without
    one, a subtest device="cuda" is reported skipped with the reason, so a run here
    says what it did not check (the CUDA backend), as the C++ tests' _cuda entries do.
    """
    devices = available_devices()
    if len(devices) == 1:
        with test_case.subTest(device="cuda"):
            test_case.skipTest("no CUDA device: " + cuda_unavailable_reason())
    return devices
