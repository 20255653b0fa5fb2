#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Where gr-cudadsp's data folder (recordings for tests, examples and tools) is.

The same order as the C++ tests (tests/support/qa_support.h, qa::data_dir()); the first
folder that holds the data's README.md counts:

1. $CUDADSP_DATA_DIR, when set (taken as is);
2. the installed copy, <prefix>/share/gr-cudadsp/data, the prefix being the nearest
   folder above this package that has one;
3. the source tree's data/: the build tree's copy of the package (test_modules) is
   told where it is by CMake (source_data_dir.txt beside this file); the package in a
   checkout (python/engines/cudadsp/common/) finds it four folders up.

A test whose data is absent skips with absent_reason(), and its script exits with
SKIPPED_EXIT_CODE (run_tests()), so that ctest reports it as skipped, never passed.
Needs no GNU Radio: scripts of the checkout (tools/, tests/apps/) load this file
directly.
"""

import os
import pathlib
import sys
import unittest

# ctest's SKIP_RETURN_CODE for every gr-cudadsp test (C++ and Python).
SKIPPED_EXIT_CODE = 77
# Starts the reason of every skip for missing data (the C++ runner says the same).
DATA_ABSENT = "test data absent"

_PACKAGE_DIR = pathlib.Path(__file__).resolve().parent
_SOURCE_TREE_NOTE = _PACKAGE_DIR / "source_data_dir.txt"


def _holds_data(folder):
    return (folder / "README.md").is_file()


def _source_tree_data_dir():
    if _SOURCE_TREE_NOTE.is_file():
        return pathlib.Path(_SOURCE_TREE_NOTE.read_text().strip())
    return _PACKAGE_DIR.parents[3] / "data"


def data_dir(override=None):
    """The data folder (a pathlib.Path), or None when none is found. override (a
    script's --data-dir), when given, comes first and is taken as is."""
    override = override or os.environ.get("CUDADSP_DATA_DIR")
    if override:
        return pathlib.Path(override)
    for prefix in _PACKAGE_DIR.parents:
        installed = prefix / "share" / "gr-cudadsp" / "data"
        if _holds_data(installed):
            return installed
    source = _source_tree_data_dir()
    return source if _holds_data(source) else None


def data_file(relative_path):
    """The path of a data file such as "gnss/x.dat", or None when it is absent."""
    folder = data_dir()
    if folder is None or not (folder / relative_path).is_file():
        return None
    return folder / relative_path


def absent_reason(relative_path):
    """Why a test of relative_path cannot run: the skip reason run_tests() recognises."""
    folder = data_dir()
    return "%s: %s (data folder: %s)" % (DATA_ABSENT, relative_path,
                                         folder if folder is not None else "none found")


def require(test_case, relative_path):
    """The path of a data file, or skips test_case (unittest) when it is absent."""
    path = data_file(relative_path)
    if path is None:
        test_case.skipTest(absent_reason(relative_path))
    return path


def exit_status(result):
    """ctest's view of a unittest result: 1 when a case failed, SKIPPED_EXIT_CODE when
    one skipped for absent data, else 0. Skips for other reasons (no CUDA device) are
    expected and leave a passing run passing."""
    if not result.wasSuccessful():
        return 1
    if any(reason.startswith(DATA_ABSENT) for _, reason in result.skipped):
        return SKIPPED_EXIT_CODE
    return 0


def run_tests():
    """unittest.main() for a test script (every case of __main__, each named with its
    outcome), exiting with exit_status()."""
    program = unittest.main(module="__main__", exit=False, verbosity=2)
    sys.exit(exit_status(program.result))
