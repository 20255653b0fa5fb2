#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""What tools/compare-gnss-sdr's two comparisons (acquisition and whole receiver)
share: the repository, the skip status, logging, GNSS-SDR's version, PRN lists as text
and the tables' place in a Markdown file."""

import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
# GNSS-SDR's configuration files of both comparisons.
CONF_DIR = REPO / "tools" / "gnss-sdr"
# The exit status of a run that could not compare (GNSS-SDR or h5py missing): ctest's
# SKIP_RETURN_CODE for qa_compare_gnss_sdr.
SKIPPED = 77


def log(message):
    print(message, file=sys.stderr, flush=True)


def gnss_sdr_version(binary):
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
    text = (out.stdout + out.stderr).strip().splitlines()
    return text[-1] if text else "unknown"


def compact(prns):
    """[1, 2, 3, 5] -> "1-3, 5"."""
    out, start = [], None
    for i, p in enumerate(prns):
        if start is None:
            start = p
        if i + 1 == len(prns) or prns[i + 1] != p + 1:
            out.append(str(start) if start == p else "%d-%d" % (start, p))
            start = None
    return ", ".join(out)


def replace_between_markers(path, begin, end, text):
    """Writes text between the lines begin and end of the Markdown file path, replacing
    what stood there."""
    doc = path.read_text()
    if begin not in doc or end not in doc:
        raise SystemExit("compare-gnss-sdr: --update-doc: %s lacks the markers %s and %s"
                         % (path, begin, end))
    head, rest = doc.split(begin, 1)
    tail = rest.split(end, 1)[1]
    path.write_text(head + begin + "\n" + text + end + tail)
