#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Headless receiver tests (CPU backend): gnss_receiver_frontend acquires and tracks
satellites with no channel dict written by hand, and the correlator's loss-of-lock
events.

* Six simulated GPS satellites at 4 Msps, fed at real rate (a throttle, as a live
  SDR would): every one must lock (code and carrier lock flags) on its truth (code
  phase within 0.1 chip and Doppler within 10 Hz of the simulator's at that sample);
  the stream time and wall time to the last lock are printed (docs/blocks/
  pcps_acquisition_cc.md quotes them).
* The real GSoC CTTC capture (4 ms, looped to 2 s; 4 ms is four whole code periods,
  so the code stays continuous across a wrap): GPS 29, 25 and 12 must be acquired and
  tracked in code lock at the Dopplers the grid acquisition found on the same capture
  (docs/blocks/multichannel_correlator_cc.md, cross-checked there against a float64 FFT
  correlation).
* Loss of lock: a satellite that vanishes from the stream is reported lost
  (lock_lost) within the configured windows and removed; a channel on an absent
  satellite times out (never_locked) at exactly lock_timeout_windows windows.
"""

import os
import sys
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import cudadsp
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp
from cudadsp.common import data_files
from gnuradio.cudadsp.gnss.records import (FLAG_CARRIER_LOCK, FLAG_CODE_LOCK, gnss_record_sink,
                                           gnss_records)
from gnuradio.cudadsp.gnss.simulator_source import gnss_simulator_source, make_simulator

FS = 4.0e6
CHIPS = 1023.0
SIX = [
    {"prn": 2, "code_phase_chips": 101.3, "doppler_hz": -3120.0, "cn0_dbhz": 45.0},
    {"prn": 7, "code_phase_chips": 904.6, "doppler_hz": 2475.0, "cn0_dbhz": 42.0},
    {"prn": 13, "code_phase_chips": 511.0, "doppler_hz": -790.0, "cn0_dbhz": 47.0},
    {"prn": 19, "code_phase_chips": 13.9, "doppler_hz": 4210.0, "cn0_dbhz": 43.0},
    {"prn": 26, "code_phase_chips": 688.2, "doppler_hz": 1140.0, "cn0_dbhz": 44.0},
    {"prn": 31, "code_phase_chips": 302.7, "doppler_hz": -4480.0, "cn0_dbhz": 46.0},
]
LOCKED = FLAG_CODE_LOCK | FLAG_CARRIER_LOCK


def wrapped_chips(a, b, period=CHIPS):
    d = (a - b) % period
    return min(d, period - d)


class event_log(gr.basic_block):
    """Stores the messages it gets on "in" (the correlator's events)."""

    def __init__(self):
        gr.basic_block.__init__(self, "event_log", None, None)
        self.message_port_register_in(pmt.intern("in"))
        self.set_msg_handler(pmt.intern("in"), self._store)
        self.events = []

    def _store(self, msg):
        self.events.append(pmt.to_python(msg))


class qa_gnss_receiver(gr_unittest.TestCase):

    def run_receiver(self, source, stop_when, max_stream_s, **kwargs):
        """Runs source -> throttle -> gnss_receiver_frontend -> record sink until
        stop_when(records) or max_stream_s of stream; returns (records, events, wall s)."""
        tb = gr.top_block()
        throttle = blocks.throttle(gr.sizeof_gr_complex, FS)
        rx = cudadsp.gnss_receiver_frontend(FS, device="cpu", **kwargs)
        sink = gnss_record_sink(rx.taps())
        log = event_log()
        tb.connect(source, throttle, rx)
        tb.connect((rx, 0), (sink, 0))
        tb.connect((rx, 1), (sink, 1))
        tb.msg_connect((rx, "events"), (log, "in"))
        start = time.monotonic()
        tb.start()
        try:
            while time.monotonic() - start < max_stream_s * 1.5 + 5:
                time.sleep(0.1)
                # The state port alone: its list and the taps' grow apart while
                # the flowgraph runs.
                records = gnss_records(sink.state())
                if len(records) and stop_when(records):
                    break
        finally:
            tb.stop()
            tb.wait()
        return sink.records(), log.events, time.monotonic() - start, rx

    def test_001_six_simulated_satellites(self):
        sim = make_simulator(FS, SIX, seed=21)
        source = gnss_simulator_source(FS, SIX, seed=21, nsamples=int(20 * FS))
        prns = [s["prn"] for s in SIX]

        def first_locks(records):
            locks = {}
            good = records[(records["flags"] & LOCKED) == LOCKED]
            for r in good:
                prn = int(r["prn"])
                if prn not in prns or prn in locks:
                    continue
                i = prns.index(prn)
                n = int(r["start_sample"]) + int(r["sample_count"])
                if (wrapped_chips(r["code_phase_chips"], sim.code_phase_chips(i, n)) < 0.1
                        and abs(r["doppler_hz"] - sim.doppler_hz(i, n)) < 10.0):
                    locks[prn] = n
            return locks

        records, events, wall, rx = self.run_receiver(
            source, lambda rec: len(first_locks(rec)) == len(prns), 20.0,
            noncoherent_dwells=4, doppler_max_hz=5e3)
        locks = first_locks(records)
        for prn in prns:
            print("PRN %2d locked at stream time %s" % (
                prn, "%.3f s" % (locks[prn] / FS) if prn in locks else "never"))
        self.assertEqual(sorted(locks), sorted(prns))
        last = max(locks.values()) / FS
        print("six satellites acquired and locked: %.3f s of stream, %.2f s wall "
              "(CPU backend, real-rate input); searches %d, samples dropped %d"
              % (last, wall, rx.acquisition.searches_completed(),
                 rx.acquisition.samples_dropped()))
        # No channel of an absent satellite ever claims lock.
        locked_prns = set(int(p) for p in records["prn"][(records["flags"] & FLAG_CODE_LOCK) != 0])
        self.assertTrue(locked_prns <= set(prns), locked_prns)

    def test_002_real_capture_looped(self):
        path = data_files.require(self, "gnss/GSoC_CTTC_capture_2012_07_26_4Msps_4ms.dat")
        x = np.fromfile(path, dtype=np.complex64)
        self.assertEqual(len(x), 16000)
        # Up to 8 s of stream: the run stops once the three are tracked (about 1 s of
        # stream on an idle machine), but where the correlator cannot keep up with the
        # throttle (ctest -j beside heavier tests), a detection reaches it later in
        # stream time and the weakest satellite (GPS 12, 43 dB-Hz) may need a second
        # search after losing lock; 2 s left it no time for one, and 4 s none on a
        # fresh-clone CI run beside two compilers (wall 11 s, GPS 12 found once at
        # 0.12 s and never in lock after).
        stream_s = 8.0
        # Known from the grid acquisition of the same capture (multichannel_correlator_cc.md).
        known = {29: 9725.0, 25: 8997.0, 12: 7164.0}
        source = blocks.vector_source_c(np.tile(x, int(stream_s * FS) // len(x)), False)

        def tracked(records):
            out = {}
            for prn, doppler in known.items():
                mine = records[(records["prn"] == prn) & ((records["flags"] & FLAG_CODE_LOCK) != 0)]
                close = mine[np.abs(mine["doppler_hz"] - doppler) < 150.0]
                if len(close) >= 20:
                    out[prn] = int(close[0]["start_sample"])
            return out

        records, events, wall, rx = self.run_receiver(
            source, lambda rec: len(tracked(rec)) == len(known), stream_s,
            noncoherent_dwells=4, doppler_max_hz=15e3, lock_timeout_windows=40)
        found = tracked(records)
        for prn in known:
            print("real capture: GPS %2d in code lock from stream time %s" % (
                prn, "%.3f s" % (found[prn] / FS) if prn in found else "never"))
        print("real capture: wall %.2f s, detections %d, searches %d"
              % (wall, rx.acquisition.detections_published(),
                 rx.acquisition.searches_completed()))
        self.assertEqual(sorted(found), sorted(known))

    def loss_of_lock_run(self, samples, channel, **kwargs):
        tb = gr.top_block()
        src = blocks.vector_source_c(samples.astype(np.complex64))
        corr = cudadsp.multichannel_correlator_cc(FS, channels=[channel], device="cpu",
                                                  **kwargs)
        sink = gnss_record_sink(3)
        log = event_log()
        tb.connect(src, corr)
        tb.connect((corr, 0), (sink, 0))
        tb.connect((corr, 1), (sink, 1))
        tb.msg_connect((corr, "events"), (log, "in"))
        tb.run()
        # Messages are handled on the log's own thread: let it drain.
        time.sleep(0.2)
        return sink.records(), log.events, corr

    def test_003_lock_lost_when_the_satellite_vanishes(self):
        sat = dict(SIX[2])
        sim = make_simulator(FS, [sat], seed=31)
        on = int(0.6 * FS)
        x = sim.generate(int(1.2 * FS))
        noise = make_simulator(FS, [], seed=32).generate(len(x) - on)
        x[on:] = noise
        channel = {"id": 5, "prn": sat["prn"], "start_sample": 0,
                   "code_phase_chips": sim.code_phase_chips(0, 0),
                   "doppler_hz": sim.doppler_hz(0, 0), "cn0_epochs": 20,
                   "fll_bandwidth_hz": 10.0}
        records, events, corr = self.loss_of_lock_run(
            x, channel, lock_loss_windows=3, lock_timeout_windows=10)
        lost = [e for e in events if e.get("event") == "lost"]
        self.assertEqual(len(lost), 1, events)
        e = lost[0]
        self.assertEqual((e["id"], e["prn"], e["system"], e["reason"]),
                         (5, sat["prn"], "gps_l1ca", "lock_lost"))
        # Lock drops at the first window ending after the signal goes (within 2
        # windows of 20 ms), then 3 more windows.
        self.assertGreater(e["sample"], on + 3 * 20 * 4000 - 4000)
        self.assertLess(e["sample"], on + 5 * 20 * 4000 + 4000)
        removes = [x for x in events if x.get("event") == "remove"]
        self.assertEqual([r["id"] for r in removes], [5])
        self.assertEqual(list(corr.channel_ids()), [])
        # Removed in the work() call that decided it: no record beyond that call's
        # samples (one batch_ms = 10 ms batch at most).
        self.assertLess(int(records["start_sample"].max()), e["sample"] + 0.01 * FS)

    def test_004_never_locked_timeout_and_options(self):
        x = make_simulator(FS, [], seed=33).generate(int(0.5 * FS))
        channel = {"id": 9, "prn": 17, "start_sample": 0, "cn0_epochs": 10,
                   "code_phase_chips": 3.0, "doppler_hz": 100.0}
        records, events, corr = self.loss_of_lock_run(
            x, channel, lock_loss_windows=3, lock_timeout_windows=7)
        lost = [e for e in events if e.get("event") == "lost"]
        self.assertEqual(len(lost), 1, events)
        self.assertEqual(lost[0]["reason"], "never_locked")
        # Exactly at the end of epoch 7 x 10 - 1.
        ch = records[records["channel_id"] == 9]
        last = ch[ch["epoch"] == 69][0]
        self.assertEqual(lost[0]["sample"], int(last["start_sample"]) + int(last["sample_count"]))
        self.assertLess(int(ch["epoch"].max()), 69 + 10)  # at most one 10 ms batch more
        # remove_lost=False keeps the channel; 0 turns the rules off.
        _, events, corr = self.loss_of_lock_run(
            x, channel, lock_loss_windows=3, lock_timeout_windows=7, remove_lost=False)
        self.assertEqual([e["event"] for e in events if e.get("event") in ("lost", "remove")],
                         ["lost"])
        self.assertEqual(list(corr.channel_ids()), [9])
        _, events, _ = self.loss_of_lock_run(
            x, channel, lock_loss_windows=0, lock_timeout_windows=0)
        self.assertEqual([e for e in events if e.get("event") == "lost"], [])
        for name in ("lock_loss_windows", "lock_timeout_windows"):
            with self.assertRaises(ValueError) as ctx:
                cudadsp.multichannel_correlator_cc(FS, **{name: -1})
            self.assertTrue(str(ctx.exception).startswith(name), str(ctx.exception))

    def test_005_refused_channel_error_names_its_id(self):
        corr = cudadsp.multichannel_correlator_cc(FS, max_channels=1, device="cpu",
                                                  channels=[{"id": 1, "prn": 1}])
        log = event_log()
        tb = gr.top_block()
        tb.connect(blocks.vector_source_c(np.zeros(4000, np.complex64)), corr)
        tb.connect((corr, 0), blocks.null_sink(gr.sizeof_gr_complex * 3))
        tb.connect((corr, 1), blocks.null_sink(8 * 17))
        tb.msg_connect((corr, "events"), (log, "in"))
        corr.to_basic_block()._post(pmt.intern("add"), pmt.to_pmt({"id": 2, "prn": 2}))
        tb.run()
        time.sleep(0.2)
        errors = [e for e in log.events if e.get("event") == "error"]
        self.assertEqual(len(errors), 1, log.events)
        self.assertEqual(errors[0]["id"], 2)

    def test_006_recording_mode_through_a_head(self):
        """stream_mode recording, passed on by the front end: a finite recording
        through a head, unthrottled, is searched whole and the one search's six
        detections, which the end of the stream meets running, all reach the front
        end's "detections" subscriber; the same in every run."""
        x = make_simulator(FS, SIX, seed=22).generate(40000).astype(np.complex64)
        for _ in range(3):
            tb = gr.top_block()
            rx = cudadsp.gnss_receiver_frontend(
                FS, device="cpu", stream_mode="recording",
                satellites=[s["prn"] for s in SIX] + [5, 9], noncoherent_dwells=4,
                doppler_max_hz=5e3, false_alarm=1e-9)
            detections = blocks.message_debug()
            tb.connect(blocks.vector_source_c(x), blocks.head(gr.sizeof_gr_complex, 16000),
                       rx)
            tb.connect((rx, 0), blocks.null_sink(gr.sizeof_gr_complex * rx.taps()))
            tb.connect((rx, 1), blocks.null_sink(8 * 17))
            tb.msg_connect((rx, "detections"), (detections, "store"))
            tb.run()
            acq = rx.acquisition
            self.assertEqual(acq.stream_mode(), "recording")
            self.assertEqual((acq.searches_completed(), acq.samples_searched(),
                              acq.samples_dropped()), (1, 16000, 0))
            received = sorted(pmt.to_python(detections.get_message(i))["prn"]
                              for i in range(detections.num_messages()))
            self.assertEqual(received, sorted(s["prn"] for s in SIX))
            self.assertEqual(acq.detections_published(), 6)


if __name__ == "__main__":
    data_files.run_tests()
