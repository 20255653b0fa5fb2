#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The logger of the command-line tools (cudadsp_unwrap, cudadsp_offsets) and the
examples that run without GNU Radio: Python's logging, to stderr, one line a message as
`NAME: LEVEL: message`."""

import logging
import sys


def tool_logger(name, level=logging.INFO):
    """The logger called name, writing messages at level and above to stderr. Made once
    per name: a second call returns the same logger without a second handler."""
    logger = logging.getLogger(name)
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter('%(name)s: %(levelname)s: %(message)s'))
        logger.addHandler(handler)
        logger.setLevel(level)
        # The tool's lines once, not again through a handler the application set on
        # the root logger.
        logger.propagate = False
    return logger
