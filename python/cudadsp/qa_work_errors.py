#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Every Python block of the module ends its flowgraph when its work() raises
(work_errors.stop_on_error), and the rate-limited log line (rate_limited_log).

The class: every gr.sync_block / gr.basic_block subclass defined in the package's
modules is found by walking them, and each must have a case below that builds it in
a flowgraph with several ports connected (all its inputs, its outputs to several
sinks, endless neighbours) and breaks it so that its work() raises. Each case runs in
a child process: top_block.run() must return within CASE_TIMEOUT_S (without the
guard it never returns: GNU Radio ends the raising block's thread and leaves its
neighbours waiting), and the block's error must be logged naming the block.
"""

import importlib
import os
import pkgutil
import subprocess
import sys
import tempfile

import numpy as np
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import cudadsp
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bindings"))
    from gnuradio import cudadsp

from gnuradio.cudadsp.common.rate_limited_log import rate_limited_log

#: How long a case's child process may take; a broken block ends in about a second.
CASE_TIMEOUT_S = 60.0


def module_blocks():
    """(module name, class) of every Python block class the package and its field
    subpackages define."""
    found = []
    for info in pkgutil.walk_packages(cudadsp.__path__, "gnuradio.cudadsp."):
        leaf = info.name.rsplit(".", 1)[1]
        if leaf.startswith("qa_") or leaf in ("cudadsp_python", "bindings"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (isinstance(value, type) and value.__module__ == module.__name__
                    and issubclass(value, gr.gateway.gateway_block)):
                found.append((info.name, value))
    return found


def endless(itemsize):
    """A neighbour that never ends by itself: only the guarded block can end the run."""
    return blocks.null_source(itemsize)


def sinks(tb, block, itemsizes):
    """Each output to two null sinks."""
    for port, itemsize in enumerate(itemsizes):
        for _ in range(2):
            tb.connect((block, port), blocks.null_sink(itemsize))


def inputs(tb, block, itemsizes):
    for port, itemsize in enumerate(itemsizes):
        tb.connect(endless(itemsize), (block, port))


# One case per block class: (tb, block) -> None connects its ports and breaks it.
def case_cfradial_sink(tb, folder):
    # The sweep's folder is a file: the sink's first sweep cannot be opened.
    open(os.path.join(folder, "file"), "w").close()
    block = cudadsp.cfradial_sink(os.path.join(folder, "file", "x_{sweep}.nc"), ngates=4,
                                  products=("DBZ", "ZDR", "VEL"))
    inputs(tb, block, [4 * 4] * 3)
    return block


def case_gnss_channel_monitor(tb, folder):
    from gnuradio.cudadsp.gnss.records import STATE_FIELDS
    block = cudadsp.gnss_channel_monitor()
    block._systems = None  # "system in None" raises
    inputs(tb, block, [8 * len(STATE_FIELDS)])
    sinks(tb, block, [4 * block.prns] * 3)
    return block


def case_gnss_record_sink(tb, folder):
    from gnuradio.cudadsp.gnss.records import STATE_FIELDS
    block = cudadsp.gnss_record_sink(taps=3)
    block._taps = None  # None has no append()
    inputs(tb, block, [8 * 3, 8 * len(STATE_FIELDS)])
    return block


def case_gnss_simulator_source(tb, folder):
    block = cudadsp.gnss_simulator_source(4e6, [])
    block._sim = None
    sinks(tb, block, [gr.sizeof_gr_complex])
    return block


def case_storm_scene_source(tb, folder):
    block = cudadsp.storm_scene_source(ngates=8, nradials=8, pulses_per_radial=4, nturns=0)
    block.scene = None
    sinks(tb, block, [8 * 8] * 2)
    return block


def case_tbd_scene_source(tb, folder):
    block = cudadsp.tbd_scene_source(width=16, height=16, ntargets=1, nframes=0)
    block.scene = None
    sinks(tb, block, [4 * 256])
    return block


def case__array_source(tb, folder):
    from gnuradio.cudadsp.tbd.performance import _array_source
    block = _array_source(np.zeros((4, 2, 2), np.float32))
    block._frames = None  # len(None) raises
    sinks(tb, block, [4 * 4])
    return block


def case__array_sink(tb, folder):
    from gnuradio.cudadsp.tbd.performance import _array_sink
    block = _array_sink(4, 4)
    block.data = None
    inputs(tb, block, [4 * 4])
    return block


CASES = {name[len("case_"):]: f for name, f in list(globals().items())
         if name.startswith("case_")}


def run_case(name):
    """The child: builds the case and runs it; prints the block's alias, then
    "returned" when run() returns."""
    with tempfile.TemporaryDirectory() as folder:
        tb = gr.top_block()
        block = CASES[name](tb, folder)
        print(block.alias(), flush=True)
        tb.run()
        print("returned", flush=True)


class qa_work_errors(gr_unittest.TestCase):

    def test_every_block_is_guarded_and_has_a_case(self):
        found = module_blocks()
        self.assertGreaterEqual(len(found), 8, found)
        for module, cls in found:
            work = cls.__dict__.get("work") or cls.__dict__.get("general_work")
            self.assertIsNotNone(work, "%s.%s defines no work()" % (module, cls.__name__))
            self.assertTrue(getattr(work, "stops_on_error", False),
                            "%s.%s: work() not wrapped by work_errors.stop_on_error"
                            % (module, cls.__name__))
        self.assertEqual(sorted(cls.__name__ for _, cls in found), sorted(CASES))

    def test_raising_block_ends_its_flowgraph(self):
        for name in sorted(CASES):
            with self.subTest(block=name):
                # GNU Radio's logger writes to stdout or stderr: both are read as one.
                try:
                    child = subprocess.run([sys.executable, os.path.abspath(__file__),
                                            "--case", name], stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, text=True,
                                           timeout=CASE_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    self.fail("%s: tb.run() did not return within %.0f s"
                              % (name, CASE_TIMEOUT_S))
                output = child.stdout
                lines = output.splitlines()
                self.assertEqual(child.returncode, 0, output[-2000:])
                self.assertEqual(lines[-1], "returned", output[-2000:])
                self.assertIn("%s: stopped by an error in work()" % lines[0], output)
                self.assertNotIn("Traceback", output)


class qa_rate_limited_log(gr_unittest.TestCase):

    def test_lines_within_the_interval_are_counted_and_reported(self):
        logged, now = [], [0.0]
        log = rate_limited_log(logged.append, "bad radials", interval_s=10.0,
                               clock=lambda: now[0])
        results = []
        # 7,200 events over 120 s, as a scan message rejected every radial.
        for k in range(7200):
            now[0] = k / 60.0
            results.append(log("radial %d bad" % k))
        self.assertEqual(sum(results), 12)  # one every 10 s: at 0, 10, ..., 110 s
        self.assertEqual(log.suppressed, 7200 - 12)
        self.assertEqual(logged[0], "radial 0 bad")
        self.assertEqual(logged[1], "radial 600 bad (599 more like this suppressed in "
                                    "the last 10 s)")
        log.report()
        self.assertEqual(logged[-1], "599 more lines about bad radials were suppressed")
        log.report()  # nothing pending: nothing logged
        self.assertEqual(len(logged), 13)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--case":
        run_case(sys.argv[2])
    else:
        gr_unittest.run(qa_work_errors)  # every class of the module
