#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gnss_channel_monitor: records written by hand, the vectors against what the
records say at each update time (the latest record of each PRN before it), staleness,
the lock codes, skipped records, a small output buffer, bad parameters."""

import os
import sys
import tempfile

import numpy as np
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import cudadsp
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp
from gnuradio.cudadsp.gnss.records import (FLAG_CARRIER_LOCK, FLAG_CN0_VALID, FLAG_CODE_LOCK,
                                           FLAG_TRACKING, STATE_FIELDS)

FS = 4e6
LOCKED = FLAG_TRACKING | FLAG_CN0_VALID | FLAG_CODE_LOCK | FLAG_CARRIER_LOCK


def record(t_end_s, prn, cn0, doppler, flags, system=1, epoch_samples=4000):
    """One state record ending at t_end_s (start_sample + sample_count)."""
    r = np.zeros(len(STATE_FIELDS))
    f = {name: i for i, name in enumerate(STATE_FIELDS)}
    end = int(round(t_end_s * FS))
    r[f["start_sample"]] = end - epoch_samples
    r[f["sample_count"]] = epoch_samples
    r[f["prn"]] = prn
    r[f["system"]] = system
    r[f["cn0_dbhz"]] = cn0 if flags & FLAG_CN0_VALID else np.nan
    r[f["doppler_hz"]] = doppler
    r[f["flags"]] = flags
    return r


def expected(records, ticks_s, stale_s, prns=32):
    """What the vectors must hold at each tick: per PRN the latest GPS record that ends
    before the tick, unless it ended more than stale_s before it."""
    lock_of = {0: 0, FLAG_TRACKING: 1, FLAG_TRACKING | FLAG_CN0_VALID: 1,
               FLAG_TRACKING | FLAG_CODE_LOCK: 2, FLAG_TRACKING | FLAG_CN0_VALID | FLAG_CODE_LOCK: 2,
               LOCKED: 3, FLAG_TRACKING | FLAG_CODE_LOCK | FLAG_CARRIER_LOCK: 3}
    f = {name: i for i, name in enumerate(STATE_FIELDS)}
    out = np.zeros((3, len(ticks_s), prns))
    for k, tick in enumerate(ticks_s):
        for prn in range(1, prns + 1):
            mine = [r for r in records if r[f["prn"]] == prn and r[f["system"]] == 1
                    and (r[f["start_sample"]] + r[f["sample_count"]]) / FS < tick]
            if not mine:
                continue
            last = mine[-1]
            if (last[f["start_sample"]] + last[f["sample_count"]]) / FS < tick - stale_s:
                continue
            flags = int(last[f["flags"]])
            out[0, k, prn - 1] = last[f["cn0_dbhz"]] if flags & FLAG_CN0_VALID else 0.0
            out[1, k, prn - 1] = last[f["doppler_hz"]]
            out[2, k, prn - 1] = lock_of[flags]
    return out


class qa_gnss_channel_monitor(gr_unittest.TestCase):

    def run_monitor(self, records, max_noutput_items=None, **kwargs):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "state.f64")
            np.asarray(records, dtype=np.float64).tofile(path)
            tb = gr.top_block()
            src = blocks.file_source(8 * len(STATE_FIELDS), path, False)
            monitor = cudadsp.gnss_channel_monitor(FS, **kwargs)
            if max_noutput_items:
                monitor.set_max_noutput_items(max_noutput_items)
            sinks = [blocks.vector_sink_f(monitor.prns) for _ in range(3)]
            tb.connect(src, monitor)
            for i, sink in enumerate(sinks):
                tb.connect((monitor, i), sink)
            tb.run()
        return np.array([np.reshape(s.data(), (-1, monitor.prns)) for s in sinks])

    def test_001_vectors_follow_the_records(self):
        records = []
        for ms in range(1, 351):
            t = ms * 1e-3
            records.append(record(t, 3, 45.0 + 0.01 * ms, 1200.0 - ms, LOCKED))
            if ms >= 50 and ms <= 150:
                records.append(record(t, 17, 30.0, -2500.0 + ms, FLAG_TRACKING | FLAG_CN0_VALID))
            if ms % 20 == 0:
                # A Galileo record and a PRN beyond GPS's: not shown.
                records.append(record(t, 5, 50.0, 99.0, LOCKED, system=2))
                records.append(record(t, 40, 50.0, 99.0, LOCKED))
            if ms == 250:
                # Tracking without code lock nor a C/N0 yet.
                records.append(record(t, 9, 0.0, 300.0, FLAG_TRACKING))
        got = self.run_monitor(records, update_s=0.1, stale_s=0.08)
        want = expected(records, [0.1, 0.2, 0.3], 0.08)
        self.assertEqual(got.shape, (3, 3, 32))
        np.testing.assert_allclose(got, want, rtol=1e-6)
        # The vectors are not trivially zero: PRN 3 locked at every tick, PRN 17 (last
        # record at 0.15 s) fresh at 0.1 and 0.2 s and stale at 0.3 s, PRN 9 tracking
        # at 0.3 s from its record at 0.25 s.
        self.assertEqual(list(got[2, :, 2]), [3.0, 3.0, 3.0])
        self.assertEqual(list(got[2, :, 16]), [1.0, 1.0, 0.0])
        self.assertEqual(list(got[2, :, 8]), [0.0, 0.0, 1.0])

    def test_002_lock_codes(self):
        cases = [(0, 0.0), (FLAG_TRACKING, 1.0), (FLAG_TRACKING | FLAG_CODE_LOCK, 2.0),
                 (LOCKED, 3.0), (FLAG_CODE_LOCK | FLAG_CARRIER_LOCK, 0.0)]
        records = [record(0.01, prn, 40.0, 10.0 * prn, flags)
                   for prn, (flags, _) in enumerate(cases, start=1)]
        records.append(record(0.15, 30, 40.0, 0.0, LOCKED))  # passes the 0.1 s tick
        got = self.run_monitor(records, update_s=0.1)
        self.assertEqual(got.shape[1], 1)
        self.assertEqual(list(got[2, 0, :len(cases)]), [c[1] for c in cases])
        np.testing.assert_allclose(got[1, 0, :len(cases)], [10.0 * p for p in range(1, 6)])

    def test_003_gap_with_a_small_output_buffer(self):
        # One record at 0.05 s, the next at 1.05 s: ten vectors due at once, written
        # two at a time; the first lone record stays fresh for stale_s = 0.5 s.
        records = [record(0.05, 12, 41.0, 777.0, LOCKED), record(1.05, 12, 42.0, 778.0, LOCKED)]
        got = self.run_monitor(records, max_noutput_items=2, update_s=0.1, stale_s=0.5)
        ticks = [0.1 * k for k in range(1, 11)]
        np.testing.assert_allclose(got, expected(records, ticks, 0.5), rtol=1e-6)
        self.assertEqual(list(got[2, :, 11]), [3.0] * 5 + [0.0] * 5)

    def test_004_galileo_vectors(self):
        records = [record(0.01, 50, 44.0, -100.0, LOCKED, system=3),
                   record(0.01, 3, 44.0, -100.0, LOCKED, system=1),
                   record(0.12, 1, 40.0, 0.0, LOCKED, system=2)]
        got = self.run_monitor(records, signal="galileo_e1", update_s=0.1)
        self.assertEqual(got.shape, (3, 1, 50))
        self.assertEqual(got[2, 0, 49], 3.0)
        self.assertEqual(float(np.sum(got[2, 0, :49])), 0.0)  # the GPS record is skipped

    def test_005_bad_parameters(self):
        for kwargs, name in (({"signal": "glonass_l1of"}, "signal"),
                             ({"update_s": 0.0}, "update_s"),
                             ({"stale_s": float("nan")}, "stale_s")):
            with self.assertRaises(ValueError) as cm:
                cudadsp.gnss_channel_monitor(FS, **kwargs)
            self.assertIn(name, str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            cudadsp.gnss_channel_monitor(float("inf"))
        self.assertIn("sample_rate_hz", str(cm.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_gnss_channel_monitor)
