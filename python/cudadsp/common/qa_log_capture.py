#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Test helper (not installed): captures what GNU Radio's logger writes, for tests of
blocks' log lines. The tests import it from beside themselves."""

import os
import sys


class captured_output:
    """What GNU Radio's logger (and anything else) writes to file descriptors 1 and 2
    within the block, in .text once it ends."""

    def __enter__(self):
        import tempfile
        sys.stdout.flush()
        sys.stderr.flush()
        self._file = tempfile.TemporaryFile(mode="w+b")
        self._saved = [os.dup(fd) for fd in (1, 2)]
        for fd in (1, 2):
            os.dup2(self._file.fileno(), fd)
        return self

    def __exit__(self, *exc):
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, saved in zip((1, 2), self._saved):
            os.dup2(saved, fd)
            os.close(saved)
        self._file.seek(0)
        self.text = self._file.read().decode(errors="replace")
        self._file.close()
        return False

    def lines(self):
        return self.text.splitlines()
