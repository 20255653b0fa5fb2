#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Fuzz test (Hypothesis, ctest label "fuzz") of cfradial_sink's tag and metadata
handling: streams of radials whose scan tags are drawn from every kind of PMT (numbers
of every width and sign, NaN, infinities, 2^63, strings, tuples, dicts, vectors, nil,
booleans), present, absent or repeated, cut into work() calls at random.

What it checks, the behaviour docs/blocks/cfradial_sink.md documents and nothing more:
- no exception leaves the sink, and a flowgraph with it ends (run in a thread with a
  timeout);
- every radial that went in is in a file or counted as rejected, under the key of its
  first bad tag (rays_in = rays_written + rejected);
- the files hold exactly the radials an independent reading of the rules accepts, in
  order, split into sweeps where the sweep index changes, with their azimuth, time,
  sweep_number and field values; no file is replaced (unique names) and no .partial
  file is left;
- the rejection warnings are rate-limited: at most one line per interval, and the
  count of the others is logged at the end.

CI runs the examples Hypothesis derives from the test's code (derandomize), bounded by
max_examples (about a minute in all); CUDADSP_PROPERTY_SEED=<n> explores others.
"""

import math
import os
import sys
import tempfile
import threading

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

try:
    from gnuradio import cudadsp
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp

import netCDF4

from gnuradio.cudadsp.radar.cfradial_sink import TAG_KEYS, cfradial_writer

SEED = os.environ.get("CUDADSP_PROPERTY_SEED")
settings.register_profile(
    "cudadsp_fuzz", deadline=None, derandomize=SEED is None, database=None,
    print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("cudadsp_fuzz")

NGATES = 3
PRODUCTS = ("DBZ", "VEL")
PATTERN = "s{sweep}_{start:%Y%m%d_%H%M%S}.nc"
# The rules, written here from the block page (not imported from the sink).
END_OF_YEAR_9999_S = 253402300800.0
INT32_MAX = 2**31 - 1
RUN_TIMEOUT_S = 60.0


def fuzz_test(max_examples):
    def wrap(f):
        f = settings(max_examples=max_examples)(f)
        return seed(int(SEED))(f) if SEED is not None else f
    return wrap


# --------------------------------------------------------------------------------------
# Tag values: (PMT, the Python value the rules see, or None for "not a number")
# --------------------------------------------------------------------------------------
HOSTILE = [0.0, -0.0, 0.5, 1.0, -1.0, 90.0, 180.0, 180.5, 359.9, 1e-300, 1e300, -1e300,
           3.4e38, 1.7e9, 2.0**31, 2.0**31 - 1, 2.0**63, END_OF_YEAR_9999_S,
           END_OF_YEAR_9999_S - 1.0, math.nan, math.inf, -math.inf]
numbers = st.one_of(
    st.sampled_from(HOSTILE).map(lambda v: (pmt.from_double(v), v)),
    st.floats(allow_nan=True, allow_infinity=True).map(lambda v: (pmt.from_double(v), v)),
    st.integers(0, 2**64 - 1).map(lambda v: (pmt.from_uint64(v), v)),
    st.integers(-(2**63), 2**63 - 1).map(lambda v: (pmt.from_long(v), v)),
    st.sampled_from([0, 1, 2, 5, 2**31 - 1, 2**31, 2**40]).map(
        lambda v: (pmt.from_uint64(v), v)))
not_numbers = st.sampled_from([
    pmt.intern("north"), pmt.PMT_NIL, pmt.PMT_T, pmt.PMT_F,
    pmt.from_complex(1 + 2j), pmt.make_tuple(pmt.from_uint64(1), pmt.from_double(0.5)),
    pmt.make_dict(), pmt.init_f32vector(2, [1.0, 2.0]), pmt.cons(pmt.from_long(1),
                                                                 pmt.from_long(2)),
    pmt.list1(pmt.from_double(3.0)), pmt.make_vector(1, pmt.from_double(1.0))]).map(
        lambda p: (p, None))
# Mostly sensible values, so that files are written, with hostile ones among them.
sensible = {
    "azimuth_deg": st.floats(0.0, 359.0).map(lambda v: (pmt.from_double(v), v)),
    "elevation_deg": st.floats(-1.0, 10.0).map(lambda v: (pmt.from_double(v), v)),
    "time_s": st.floats(1.6e9, 1.8e9).map(lambda v: (pmt.from_double(v), v)),
    "sweep_index": st.integers(0, 3).map(lambda v: (pmt.from_uint64(v), v)),
}


def tag_value(key):
    return st.one_of(sensible[key], sensible[key], sensible[key], numbers, not_numbers)


ray_tags = st.fixed_dictionaries({}, optional={key: tag_value(key) for key in TAG_KEYS})
streams = st.lists(ray_tags, min_size=1, max_size=40)


def valid(key, value):
    """The block page's rule for one tag value (None: not a number)."""
    if value is None or isinstance(value, bool):
        return False
    if key == "azimuth_deg":
        return math.isfinite(value)
    if key == "elevation_deg":
        return -180.0 <= value <= 180.0
    if key == "time_s":
        return 0.0 <= value < END_OF_YEAR_9999_S
    return (math.isfinite(value) and value == math.floor(value)
            and 0 <= value <= INT32_MAX)


def expected_rays(stream):
    """(accepted rays as (item, azimuth, elevation, time, sweep), rejected by key)."""
    latest = {"azimuth_deg": 0.0, "elevation_deg": 0.0, "time_s": 0.0, "sweep_index": 0}
    accepted, rejected = [], {}
    for item, tags in enumerate(stream):
        bad = [key for key in TAG_KEYS if key in tags and not valid(key, tags[key][1])]
        if bad:
            rejected[bad[0]] = rejected.get(bad[0], 0) + 1
            continue
        latest.update({key: tags[key][1] for key in tags})
        accepted.append((item, float(latest["azimuth_deg"]), float(latest["elevation_deg"]),
                         float(latest["time_s"]), int(latest["sweep_index"])))
    return accepted, rejected


def sweeps_of(accepted):
    """Accepted rays split where the sweep index changes."""
    sweeps = []
    for ray in accepted:
        if not sweeps or sweeps[-1][-1][4] != ray[4]:
            sweeps.append([])
        sweeps[-1].append(ray)
    return sweeps


class lines_log:
    """A logger stand-in that keeps the lines."""

    def __init__(self):
        self.lines = []

    def __getattr__(self, level):
        return lambda text: self.lines.append((level, text))


class qa_cfradial_fuzz(gr_unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.site = cudadsp.cfradial_sink("x_{sweep}.nc", NGATES, products=PRODUCTS)._site

    def tearDown(self):
        self.tmp.cleanup()

    def check_files(self, folder, written, accepted, fields):
        self.assertEqual(sorted(os.listdir(folder)),
                         sorted(os.path.basename(p) for p in written))  # none replaced
        self.assertEqual(len(set(written)), len(written))
        sweeps = sweeps_of(accepted)
        self.assertEqual(len(written), len(sweeps))
        for path, rays in zip(written, sweeps):
            with netCDF4.Dataset(path) as nc:
                self.assertEqual(int(nc["sweep_number"][0]), rays[0][4], path)
                self.assertEqual(nc.dimensions["time"].size, len(rays), path)
                start = math.floor(rays[0][3])
                np.testing.assert_allclose(nc["time"][:] + start, [r[3] for r in rays],
                                           rtol=0, atol=1e-3 + 1e-15 * start)
                np.testing.assert_allclose(nc["azimuth"][:],
                                           np.mod([r[1] for r in rays], 360.0).astype(
                                               np.float32), rtol=0, atol=1e-3)
                for name, data in zip(PRODUCTS, fields):
                    np.testing.assert_array_equal(nc[name][:].filled(np.nan),
                                                  data[[r[0] for r in rays]])

    @fuzz_test(max_examples=300)
    @given(stream=streams, cuts=st.lists(st.integers(1, 40), max_size=5))
    def test_writer_accounts_for_every_ray(self, stream, cuts):
        folder = tempfile.mkdtemp(dir=self.tmp.name)
        log = lines_log()
        writer = cfradial_writer(os.path.join(folder, PATTERN), self.site, log)
        rng = np.random.default_rng(len(stream))
        fields = [rng.standard_normal((len(stream), NGATES)).astype(np.float32)
                  for _ in PRODUCTS]
        tags = [{key: value[0] for key, value in t.items()} for t in stream]
        start = 0
        for cut in sorted(set(cuts)) + [len(stream)]:  # work() calls of random sizes
            stop = max(start, min(cut, len(stream)))
            if stop > start:
                writer.add_rays(start, tags[start:stop], [f[start:stop] for f in fields])
            start = stop
        self.assertTrue(writer.finish())

        accepted, rejected = expected_rays(stream)
        self.assertEqual(writer.rays_in, len(stream))
        self.assertEqual(writer.rays_written, len(accepted))
        self.assertEqual(dict(writer.rays_rejected), rejected)
        self.check_files(folder, writer.written, accepted, fields)
        # Rate-limited: one rejection line within the interval, the others counted.
        rejection_lines = [t for _, t in log.lines if " rejected: " in t]
        self.assertLessEqual(len(rejection_lines), 1)
        if sum(rejected.values()) > 1:
            self.assertIn("%d more lines about rejected radials were suppressed"
                          % (sum(rejected.values()) - 1), [t for _, t in log.lines])

    @fuzz_test(max_examples=20)
    @given(stream=streams)
    def test_flowgraph_ends_and_accounts(self, stream):
        # The block in a flowgraph, three inputs: it ends, and every ray is accounted for.
        folder = tempfile.mkdtemp(dir=self.tmp.name)
        tb = gr.top_block()
        sink = cudadsp.cfradial_sink(os.path.join(folder, PATTERN), NGATES,
                                     products=PRODUCTS + ("ZDR",))
        tags = [gr.tag_utils.python_to_tag((item, pmt.intern(key), value[0],
                                            pmt.intern("fuzz")))
                for item, t in enumerate(stream) for key, value in t.items()]
        for port in range(3):
            tb.connect(blocks.vector_source_f([float(port)] * (NGATES * len(stream)), False,
                                              NGATES, tags if port == 0 else []),
                       (sink, port))
        runner = threading.Thread(target=tb.run, daemon=True)
        runner.start()
        runner.join(RUN_TIMEOUT_S)
        if runner.is_alive():
            tb.stop()
            self.fail("tb.run() did not return within %.0f s" % RUN_TIMEOUT_S)
        accepted, rejected = expected_rays(stream)
        self.assertEqual(sink.rays_in, len(stream))
        self.assertEqual(sink.rays_written, len(accepted))
        self.assertEqual(dict(sink.rays_rejected), rejected)
        self.assertEqual(len(sink.written), len(sweeps_of(accepted)))


if __name__ == "__main__":
    gr_unittest.run(qa_cfradial_fuzz)
