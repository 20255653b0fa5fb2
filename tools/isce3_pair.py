#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""ISCE3's PyCuAmpcor test pair (data/insar), its test's configuration and the float64
oracle of docs/design/pycuampcor_dense_offsets.md, for the tools that study ISCE3's
results on it (isce3_float32_offsets.py, isce3_golden_candidates.py)."""

import importlib.util
import pathlib

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
PAIR = ("data/insar/img1_WN_512x512_1x1_128", "data/insar/img2_WN_512x512_1x1_128")
# ISCE3's test_ampcor.py: window 64 across x 32 down, half search 20, skip 32, raw
# oversampling 2, correlation oversampling 64, zoom 8, deramp 1, statistics window 21.
CONFIG = dict(window_width=64, window_height=32, half_search_across=20, half_search_down=20,
              skip_across=32, skip_down=32, raw_oversampling=2, corr_oversampling=64,
              zoom_window=8, corr_stat_window=21, deramp=1)
H, W, HALF, SKIP, START = 32, 64, 20, 32, 20
R, Q, ZOOM = 2, 64, 8
HALF_ZOOM = ZOOM // (2 * R)
GRID = ((512 - 2 * HALF - H) // SKIP, (512 - 2 * HALF - W) // SKIP)


def load_oracle():
    """The float64 oracle module, loaded by path (its package needs the built engines)."""
    path = REPO / "python/engines/cudadsp/insar/dense_offsets_reference.py"
    spec = importlib.util.spec_from_file_location("dense_offsets_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ORACLE = load_oracle()


def load_pair():
    """The reference and secondary images, 512 x 512 complex64."""
    return [np.fromfile(REPO / path, dtype="<c8").reshape(512, 512) for path in PAIR]
