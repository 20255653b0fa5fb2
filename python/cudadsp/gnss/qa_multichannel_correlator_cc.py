#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Block tests of cudadsp.multichannel_correlator_cc, _sc and _bc, inside flowgraphs.

The oracle is an independent NumPy float64 correlator written from the documented
definitions (docs/blocks/multichannel_correlator_cc.md and the NCO definitions of
lib/core/gnss/gnss_nco.h): the code NCO in integer units of 2^-32 table entries, an epoch
ending where the unwrapped phase crosses a multiple of the integration length, tap k
reading the table at phase - tap_offsets_chips[k], the carrier replica exp(-j theta)
from the integer carrier NCO. Every record the block writes must be one of the
reference's epochs (channel, epoch number, first sample, sample count, taps, NCO
state), with none lost or duplicated, whatever the chunking of the input and of the
output space. Tracking is checked against the truth of the signal simulator.

All tests run on device="cpu" (the GPU host runs the C++ flowgraph tests).
"""

import math
import os
import sys
import threading
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio.cudadsp.common.qa_log_capture import captured_output  # a test helper

try:
    from gnuradio import cudadsp
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp

FP = 1 << 32
FS = 4.0e6


# --------------------------------------------------------------------------------------
# The documented NCO definitions, in exact integers (gnss_nco.h)
# --------------------------------------------------------------------------------------
def code_step(rate_cps, entries_per_chip, fs):
    return int(math.floor(rate_cps * entries_per_chip / fs * FP + 0.5))


def carrier_step(frequency_hz, fs):
    x = frequency_hz / fs * FP
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def carrier_phase_int(phase_rad):
    cycles = phase_rad / (2 * math.pi)
    return int(math.floor((cycles - math.floor(cycles)) * FP + 0.5)) % FP


def llround(x):
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def reference_records(x, table, entries_per_chip, rate_cps, code_phase_chips, doppler_hz,
                      carrier_phase_rad, offsets, start_sample, applied_at, n_total,
                      periods=1, fs=FS):
    """
    The epochs of one open-loop channel over x[0:n_total] (x complex, any dtype): the
    channel's phases hold at start_sample; it runs from max(start_sample, applied_at).
    Returns a list of dicts (epoch, start_sample, sample_count, taps, code_phase_chips,
    carrier_phase_rad) for the epochs completed within n_total samples.
    """
    L = len(table)
    E = periods * L * FP
    step = code_step(rate_cps, entries_per_chip, fs)
    p0 = min(int(math.floor(code_phase_chips * entries_per_chip * FP)), E - 1)
    c0 = carrier_phase_int(carrier_phase_rad)
    cstep = carrier_step(doppler_hz, fs)
    first = max(start_sample, applied_at)
    if first >= n_total:
        return []
    n = np.arange(first, n_total + 1, dtype=np.int64)
    unwrapped = p0 + (n - start_sample) * step  # exact in int64 here
    epoch_of = unwrapped // E
    boundaries = np.flatnonzero(np.diff(epoch_of)) + 1  # first sample of a new epoch
    starts = np.concatenate([[0], boundaries])
    ends = np.concatenate([boundaries, [len(n)]])
    theta = ((c0 + (n[:-1] - start_sample) * cstep) % FP).astype(np.float64) * (2 * math.pi / FP)
    wiped = x[first:n_total].astype(np.complex128) * np.exp(-1j * theta)
    records = []
    for e, (a, b) in enumerate(zip(starts, ends)):
        if b >= len(n):  # the last sample of n is n_total itself: not a sample of x
            break
        taps = []
        for o in offsets:
            shift = -llround(o * entries_per_chip * FP)
            entry = ((unwrapped[a:b] % E + shift + L * FP) >> 32) % L
            taps.append(np.sum(wiped[a:b] * table[entry]))
        next_phase = int(unwrapped[b]) % E
        records.append({
            "epoch": e,
            "start_sample": int(n[a]),
            "sample_count": int(b - a),
            "taps": np.array(taps),
            "code_phase_chips": ((next_phase / FP) % L) / entries_per_chip,
            "carrier_phase_rad": ((c0 + (int(n[b]) - start_sample) * cstep) % FP),
            "energy": float(np.sum(np.abs(wiped[a:b]))),
        })
    return records


def wrap_carrier(phase_int):
    """Carrier NCO integer phase as radians in [-pi, pi)."""
    v = phase_int if phase_int < FP // 2 else phase_int - FP
    return v * 2 * math.pi / FP


# --------------------------------------------------------------------------------------
# Flowgraph helpers
# --------------------------------------------------------------------------------------
class chunk_source(gr.sync_block):
    """Emits an array in chunks of random length (1 .. max_chunk items per call)."""

    def __init__(self, data, dtype, vlen=1, max_chunk=997, seed=1):
        sig = dtype if vlen == 1 else (dtype, vlen)
        gr.sync_block.__init__(self, name="chunk_source", in_sig=None, out_sig=[sig])
        self._data = data
        self._pos = 0
        self._rng = np.random.default_rng(seed)
        self._max = max_chunk

    def work(self, input_items, output_items):
        if self._pos >= len(self._data):
            return -1
        out = output_items[0]
        n = min(len(out), int(self._rng.integers(1, self._max + 1)), len(self._data) - self._pos)
        out[:n] = self._data[self._pos:self._pos + n]
        self._pos += n
        return n


class gated_source(gr.sync_block):
    """Emits the chunks of a list one at a time, each after release() is called."""

    def __init__(self, chunks):
        gr.sync_block.__init__(self, name="gated_source", in_sig=None, out_sig=[np.complex64])
        self._chunks = list(chunks)
        self._released = 0
        self._sent = 0
        self._pos = 0
        self._cond = threading.Condition()

    def release(self):
        with self._cond:
            self._released += 1
            self._cond.notify_all()

    def work(self, input_items, output_items):
        if self._sent >= len(self._chunks):
            return -1
        with self._cond:
            while self._sent >= self._released:
                if not self._cond.wait(timeout=5.0):
                    return -1  # the test gave up
        if self._sent >= len(self._chunks):
            return -1
        chunk = self._chunks[self._sent]
        out = output_items[0]
        n = min(len(out), len(chunk) - self._pos)
        out[:n] = chunk[self._pos:self._pos + n]
        self._pos += n
        if self._pos == len(chunk):
            self._pos = 0
            self._sent += 1
        return n


class slow_record_sink(gr.basic_block):
    """Consumes at most a random 1 .. max_take records per call (output backpressure)."""

    def __init__(self, taps, max_take=3, seed=2):
        gr.basic_block.__init__(self, name="slow_record_sink",
                                in_sig=[(np.complex64, taps), (np.float64, 17)], out_sig=None)
        self._rng = np.random.default_rng(seed)
        self._max = max_take
        self.taps = []
        self.state = []

    def forecast(self, noutput_items, ninputs):
        return [1] * ninputs

    def general_work(self, input_items, output_items):
        n = min(len(input_items[0]), len(input_items[1]), int(self._rng.integers(1, self._max + 1)))
        if n > 0:
            self.taps.append(np.array(input_items[0][:n]))
            self.state.append(np.array(input_items[1][:n]))
            self.consume(0, n)
            self.consume(1, n)
        return 0

    def records(self):
        if not self.state:
            return cudadsp.gnss_records(np.zeros((0, 17)))
        return cudadsp.gnss_records(np.concatenate(self.state), np.concatenate(self.taps))


def simulated_signal(nsamples, satellites, noise_power=1.0, seed=7):
    config = cudadsp.gnss_simulator_config()
    config.sample_rate_hz = FS
    config.noise_power = noise_power
    config.seed = seed
    sats = []
    for prn, phase, doppler, cn0 in satellites:
        s = cudadsp.gnss_simulated_satellite()
        s.code = cudadsp.gps_l1ca_code(prn)
        s.code_phase_chips = phase
        s.doppler_hz = doppler
        s.cn0_dbhz = cn0
        sats.append(s)
    return cudadsp.gnss_signal_simulator(config, sats)


def run_block(block, source, taps):
    tb = gr.top_block()
    sink = cudadsp.gnss_record_sink(taps)
    tb.connect(source, block)
    tb.connect((block, 0), (sink, 0))
    tb.connect((block, 1), (sink, 1))
    tb.run()
    return sink


# --------------------------------------------------------------------------------------
class qa_multichannel_correlator_cc(gr_unittest.TestCase):

    # A few channels of different codes, phases, Dopplers and tap sets.
    CHANNELS = [
        dict(id=3, prn=5, code_phase_chips=101.25, doppler_hz=1234.5, carrier_phase_rad=0.3,
             mode="open_loop"),
        dict(id=9, prn=12, code_phase_chips=1022.9, doppler_hz=-3999.0, carrier_phase_rad=-2.0,
             mode="open_loop"),
        dict(id=4, prn=5, code_phase_chips=0.0, doppler_hz=0.0, mode="open_loop",
             tap_offsets_chips=[-1.0, -0.37, 0.0, 0.25, 511.5]),
        dict(id=20, prn=31, code_phase_chips=700.0, doppler_hz=250.0, periods_per_integration=3,
             start_sample=5000, mode="open_loop"),
    ]
    OFFSETS = [-0.5, -0.1, 0.0, 0.3, 1.0]

    def compare(self, got, channel, x, n_total, applied_at=0, offsets=None, scale=1.0):
        """The block's records of one channel against the reference, field by field."""
        c = dict(channel)
        table = cudadsp.gps_l1ca_code(c["prn"]).astype(np.float64)
        offsets = c.get("tap_offsets_chips", offsets or self.OFFSETS)
        doppler = c.get("doppler_hz", 0.0)
        rate = cudadsp.gps_l1ca_chip_rate_cps * (1.0 + doppler / cudadsp.gps_l1_frequency_hz)
        ref = reference_records(x, table, 1, rate, c.get("code_phase_chips", 0.0), doppler,
                                c.get("carrier_phase_rad", 0.0), offsets,
                                c.get("start_sample", 0), applied_at, n_total,
                                periods=c.get("periods_per_integration", 1))
        mine = got[got["channel_id"] == c["id"]]
        self.assertEqual(len(mine), len(ref), "channel %d: records" % c["id"])
        self.assertTrue(len(ref) > 0)
        for r, e in zip(mine, ref):
            where = "channel %d epoch %d" % (c["id"], e["epoch"])
            self.assertEqual(int(r["epoch"]), e["epoch"], where)
            self.assertEqual(int(r["start_sample"]), e["start_sample"], where)
            self.assertEqual(int(r["sample_count"]), e["sample_count"], where)
            self.assertEqual(int(r["prn"]), c["prn"], where)
            self.assertEqual(int(r["system"]), 1, where)
            self.assertEqual(int(r["flags"]), 0, where)  # open loop: no tracking bit
            # float32 sums of float32 wiped samples: a few 1e-7 of the epoch's energy
            tol = 2e-5 * e["energy"] * scale + 1e-6
            np.testing.assert_allclose(r["taps"], e["taps"], rtol=0, atol=tol, err_msg=where)
            self.assertAlmostEqual(float(r["code_phase_chips"]), e["code_phase_chips"], delta=1e-6,
                                   msg=where)
            d = abs(float(r["carrier_phase_rad"]) - wrap_carrier(e["carrier_phase_rad"]))
            self.assertLess(min(d, 2 * math.pi - d), 1e-6, where)
            self.assertAlmostEqual(float(r["doppler_hz"]), doppler, delta=1e-3, msg=where)
            sign = 1 if e["taps"][offsets.index(min(offsets, key=abs))].real >= 0 else -1
            self.assertEqual(int(r["prompt_sign"]), sign, where)

    def make_signal(self, n):
        sim = simulated_signal(n, [(5, 300.0, 1234.5, 50.0), (12, 10.0, -3999.0, 45.0)])
        return sim.generate(n)

    def test_001_reference_with_random_chunking(self):
        n = 24000 + 137
        x = self.make_signal(n)
        blk = cudadsp.multichannel_correlator_cc(FS, self.OFFSETS, max_channels=8,
                                                 channels=self.CHANNELS, device="cpu")
        self.assertEqual(blk.taps(), 5)
        self.assertEqual(blk.channel_ids(), [3, 4, 9, 20])
        self.assertEqual(blk.input_format(), "cf32")
        self.assertEqual(blk.backend(), "cpu")
        sink = run_block(blk, chunk_source(x, np.complex64, max_chunk=1500, seed=3), 5)
        got = sink.records()
        # Ascending channel id within a call, time order within a channel.
        for cid in (3, 4, 9, 20):
            mine = got[got["channel_id"] == cid]
            self.assertTrue(np.all(np.diff(mine["epoch"].astype(np.int64)) == 1))
        for c in self.CHANNELS:
            self.compare(got, c, x, n)
        self.assertEqual(blk.samples_processed(), n)

    def test_002_output_backpressure_loses_nothing(self):
        # At most 2 output items per call and a sink taking 1 to 3 records at a time:
        # the block caps its input, and keeps what does not fit (overflow) for later.
        # Channels 30 to 33 end their epochs on the same samples as channel 3: one
        # sample completes five records, more than the two items of output space.
        n = 16000 + 11
        x = self.make_signal(n)
        channels = self.CHANNELS + [dict(self.CHANNELS[0], id=30 + k, doppler_hz=100.0 * k)
                                    for k in range(4)]
        blk = cudadsp.multichannel_correlator_cc(FS, self.OFFSETS, max_channels=8,
                                                 channels=channels, device="cpu")
        blk.set_max_noutput_items(2)
        tb = gr.top_block()
        sink = slow_record_sink(5, max_take=3)
        # Python blocks must outlive the run: keep a reference to the source.
        src = chunk_source(x, np.complex64, max_chunk=5000, seed=4)
        tb.connect(src, blk)
        tb.connect((blk, 0), (sink, 0))
        tb.connect((blk, 1), (sink, 1))
        tb.run()
        got = sink.records()
        for c in channels:
            self.compare(got, c, x, n)

    def test_003_messages_at_run_time(self):
        # Changes posted while the block waits between two chunks apply at the chunk
        # boundary (the next work() call), exactly at that sample.
        n1, n2, n3 = 8000 + 333, 9000, 12000 + 5
        x = self.make_signal(n1 + n2 + n3)
        initial = [dict(id=1, prn=5, code_phase_chips=300.0, doppler_hz=1234.5, mode="open_loop"),
                   dict(id=2, prn=12, code_phase_chips=10.0, doppler_hz=-3999.0, mode="open_loop")]
        blk = cudadsp.multichannel_correlator_cc(FS, self.OFFSETS, max_channels=4,
                                                 channels=initial, device="cpu")
        src = gated_source([x[:n1], x[n1:n1 + n2], x[n1 + n2:]])
        sink = cudadsp.gnss_record_sink(5)
        events = blocks.message_debug()
        tb = gr.top_block()
        tb.connect(src, blk)
        tb.connect((blk, 0), (sink, 0))
        tb.connect((blk, 1), (sink, 1))
        tb.msg_connect((blk, "events"), (events, "store"))
        tb.start()

        def wait_for(sample):
            deadline = time.time() + 10
            while blk.samples_processed() < sample and time.time() < deadline:
                time.sleep(0.005)
            self.assertEqual(blk.samples_processed(), sample)

        src.release()
        wait_for(n1)
        # Add a channel whose phases hold at sample 0 (an acquisition of past samples),
        # reinit channel 2 with another code and Doppler from sample 8500 (future).
        added = dict(id=7, prn=12, code_phase_chips=10.0, doppler_hz=-3999.0, start_sample=0)
        reinit = dict(id=2, prn=5, code_phase_chips=12.5, doppler_hz=1000.0, start_sample=8500)
        blk.to_basic_block()._post(pmt.intern("add"), cudadsp.gnss_channels_pmt(
            dict(added, mode="open_loop")))
        blk.to_basic_block()._post(pmt.intern("reinit"), cudadsp.gnss_channels_pmt(
            dict(reinit, mode="open_loop")))
        time.sleep(0.1)
        src.release()
        wait_for(n1 + n2)
        blk.to_basic_block()._post(pmt.intern("remove"), pmt.from_long(1))
        time.sleep(0.1)
        src.release()
        tb.wait()
        got = sink.records()
        x_all = x
        ntot = n1 + n2 + n3
        # Channel 1: from 0 until its removal at n1 + n2 (no record starting later).
        self.compare(got, initial[0], x_all, n1 + n2)
        self.assertTrue(np.all(got[got["channel_id"] == 1]["start_sample"] < n1 + n2))
        # Channel 2 before the reinit: epochs that ended by n1; after: the new channel.
        before = got[(got["channel_id"] == 2) & (got["start_sample"] < n1)]
        after = got[(got["channel_id"] == 2) & (got["start_sample"] >= n1)]
        self.compare(before, initial[1], x_all, n1)
        self.compare(after, reinit, x_all, ntot, applied_at=n1)
        self.assertEqual(int(after[0]["start_sample"]), 8500)
        # Channel 7 from n1, its NCOs advanced over the samples before.
        self.compare(got, added, x_all, ntot, applied_at=n1)
        self.assertEqual(int(got[got["channel_id"] == 7][0]["start_sample"]), n1)

        # Events and tags: add and reinit at n1, remove at n1 + n2.
        ev = [pmt.to_python(events.get_message(i)) for i in range(events.num_messages())]
        seen = sorted((e["event"], e["id"], e["sample"]) for e in ev)
        self.assertEqual(seen, sorted([("add", 7, n1), ("reinit", 2, n1), ("remove", 1, n1 + n2)]))
        tags = [t for t in sink.tags() if t[1] == "channel_event"]
        self.assertEqual(sorted((t[2]["event"], t[2]["id"], t[2]["sample"]) for t in tags), seen)
        self.assertEqual(blk.channel_ids(), [2, 7])

    def test_004_bad_messages_are_logged_not_fatal(self):
        n = 12000
        x = self.make_signal(n)
        good = dict(id=1, prn=5, code_phase_chips=300.0, doppler_hz=1234.5, mode="open_loop")
        blk = cudadsp.multichannel_correlator_cc(FS, self.OFFSETS, channels=[good], device="cpu")
        events = blocks.message_debug()
        strobe_msgs = [
            ("add", {"id": 2, "prn": 0}),                        # prn out of range
            ("add", {"id": 3, "prn": 4, "colour": "red"}),       # unknown key
            ("add", {"prn": 4}),                                 # no id
            ("add", {"id": 1, "prn": 4}),                        # id in use (at apply time)
            ("add", {"id": 5, "prn": 4, "tap_offsets_chips": [0.0, 1.0]}),  # 2 of 5 taps
            ("reinit", {"id": 42, "prn": 4}),                    # no such channel
            ("remove", "everything"),                            # not an id
            ("remove", 77),                                      # no such channel
            ("add", 3.5),                                        # not a dict
        ]
        src = gated_source([x[:4000], x[4000:]])
        sink = cudadsp.gnss_record_sink(5)
        tb = gr.top_block()
        tb.connect(src, blk)
        tb.connect((blk, 0), (sink, 0))
        tb.connect((blk, 1), (sink, 1))
        tb.msg_connect((blk, "events"), (events, "store"))
        tb.start()
        src.release()
        deadline = time.time() + 10
        while blk.samples_processed() < 4000 and time.time() < deadline:
            time.sleep(0.005)
        for port, msg in strobe_msgs:
            blk.to_basic_block()._post(pmt.intern(port), cudadsp.gnss_channels_pmt(msg))
        time.sleep(0.2)
        src.release()
        tb.wait()
        ev = [pmt.to_python(events.get_message(i)) for i in range(events.num_messages())]
        errors = [e for e in ev if e["event"] == "error"]
        self.assertEqual(len(errors), len(strobe_msgs))
        # Error texts are UTF-8 bytes (u8vectors), not interned symbols.
        text = " | ".join(bytes(e["error"]).decode() for e in errors)
        for field in ("prn:", "colour:", "id:", "tap_offsets_chips:", "already exists", "no channel"):
            self.assertIn(field, text)
        # The good channel ran on through all of it.
        self.compare(sink.records(), good, x, n)
        self.assertEqual(blk.channel_ids(), [1])

    def test_004b_bad_message_flood_is_rate_limited(self):
        # A sender gone wrong (every message bad, for hours): each message still gets
        # its error event, but the log gets one line per interval and, at stop(), the
        # count of the others, instead of a line per message.
        n_bad = 500
        x = self.make_signal(8000)
        blk = cudadsp.multichannel_correlator_cc(FS, self.OFFSETS, device="cpu")
        for _ in range(n_bad):
            blk.to_basic_block()._post(pmt.intern("add"),
                                       cudadsp.gnss_channels_pmt({"id": 2, "prn": 0}))
        events = blocks.message_debug()
        sink = cudadsp.gnss_record_sink(5)
        tb = gr.top_block()
        tb.connect(blocks.vector_source_c(x), blk)
        tb.connect((blk, 0), (sink, 0))
        tb.connect((blk, 1), (sink, 1))
        tb.msg_connect((blk, "events"), (events, "store"))
        with captured_output() as log:
            tb.run()
        errors = [pmt.to_python(events.get_message(i)) for i in range(events.num_messages())]
        self.assertEqual(sum(1 for e in errors if e["event"] == "error"), n_bad)
        ignored = [line for line in log.lines() if '"add" message ignored' in line]
        self.assertEqual(len(ignored), 1, log.text[-2000:])
        self.assertIn("prn:", ignored[0])
        self.assertIn("%d more lines about messages ignored were suppressed" % (n_bad - 1),
                      log.text)

    def test_005_integer_inputs(self):
        n = 12000 + 17
        sim = simulated_signal(n, [(5, 300.0, 1234.5, 55.0)], noise_power=1.0, seed=11)
        x16 = sim.generate_ci16(n, 300.0)
        sim = simulated_signal(n, [(5, 300.0, 1234.5, 55.0)], noise_power=1.0, seed=11)
        x8 = sim.generate_ci8(n, 30.0)
        ch = dict(id=1, prn=5, code_phase_chips=300.0, doppler_hz=1234.5, mode="open_loop")
        for make, data, src in (
                (cudadsp.multichannel_correlator_sc, x16,
                 chunk_source(x16.reshape(-1, 2), np.int16, vlen=2, max_chunk=999, seed=5)),
                (cudadsp.multichannel_correlator_bc, x8,
                 chunk_source(x8.view(np.uint8).reshape(-1, 2), np.uint8, vlen=2, max_chunk=999,
                              seed=6))):
            blk = make(FS, self.OFFSETS, channels=[ch], device="cpu")
            self.assertEqual(blk.input_format(), "ci16" if data.dtype == np.int16 else "ci8")
            got = run_block(blk, src, 5).records()
            xc = data[0::2].astype(np.float64) + 1j * data[1::2].astype(np.float64)
            self.compare(got, ch, xc, n)
            # The signal is there: the prompt far above the early-by-a-chip tap.
            self.assertGreater(np.mean(np.abs(got["taps"][:, 2])), 5 * np.mean(np.abs(got["taps"][:, 4])))

    def test_006_constructor_errors_name_the_parameter(self):
        cases = [
            (dict(sample_rate_hz=0.0), "sample_rate_hz"),
            (dict(tap_offsets_chips=[]), "tap_offsets_chips"),
            (dict(tap_offsets_chips=[0.0] * 65), "tap_offsets_chips"),
            (dict(max_channels=0), "max_channels"),
            (dict(batch_ms=0.0), "batch_ms"),
            (dict(device="gpu7"), "device"),
            (dict(intermediate_frequency_hz=3e6), "intermediate_frequency_hz"),
            (dict(channels=[{"id": 1, "prn": 1}, {"id": 2, "prn": 33}]), "channels[1].prn"),
            (dict(channels=[{"id": 1, "prn": 1}, {"id": 1, "prn": 2}]), "channels[1].id"),
            (dict(channels=[{"id": 1, "prn": 1, "code_phase_chips": float("nan")}]),
             "code_phase_chips"),
            (dict(channels=[{"id": 1, "prn": 1, "mode": "tracking",
                             "tap_offsets_chips": [-1.5, 0.0, 1.5]}]), "tap_offsets_chips"),
            (dict(channels=[{"id": 1, "system": "beidou", "prn": 1}]), "system"),
            (dict(channels=[{"id": 1, "prn": 1, "pll_order": 4}]), "pll_order"),
            (dict(channels=[{"id": 1, "code": [1, -1, 2]}]), "code"),
            (dict(channels=[{"id": i, "prn": 1} for i in range(3)], max_channels=2), "max_channels"),
        ]
        for kwargs, name in cases:
            args = dict(sample_rate_hz=FS, device="cpu")
            args.update(kwargs)
            with self.assertRaises(ValueError, msg=name) as ctx:
                cudadsp.multichannel_correlator_cc(**args)
            self.assertIn(name, str(ctx.exception), str(ctx.exception))
        blk = cudadsp.multichannel_correlator_cc(FS, device="cpu")
        with self.assertRaises(ValueError):
            blk.add_channels({"id": 1, "prn": 40})
        with self.assertRaises(ValueError):
            blk.remove_channels("some")
        self.assertEqual(blk.pending_changes(), 0)
        blk.add_channels([{"id": 1, "prn": 4},
                          {"id": 2, "system": "galileo_e1c", "prn": 11,
                           "tap_offsets_chips": [-0.15, 0.0, 0.15]}])
        blk.remove_channels("all")
        self.assertEqual(blk.pending_changes(), 3)

    def test_006b_hostile_values_name_the_parameter_and_rule(self):
        """Absurd and mistyped values: each refused naming its parameter and the rule."""
        inf = float("inf")
        cases = [
            (dict(sample_rate_hz=1e12), "sample_rate_hz: must be > 0 and at most 2^32"),
            (dict(max_channels=2**31), "max_channels: must be an integer from 1 to 2147483647, got 2147483648"),
            (dict(max_channels=2**70), "max_channels: must be an integer"),
            (dict(tap_offsets_chips=[-1e12, 0.0, 1e12]), "tap_offsets_chips[0]: must be finite and below 2^30 chips"),
            (dict(channels=[{}]), 'channels[0].id: every channel needs an "id", got an empty dict'),
            (dict(channels=[{"id": 1, "prn": 1, "doppler_hz": inf}]), "channels[0].doppler_hz: must be finite"),
            (dict(channels=[{"id": 1, "prn": 1, "doppler_hz": 3e6}]), "channels[0].doppler_hz"),
            (dict(channels=[{"id": 1, "prn": 1, "carrier_frequency_hz": -inf}]),
             "channels[0].carrier_frequency_hz"),
            (dict(channels=[{"id": 1, "prn": "1"}]), 'channels[0].prn: must be an integer, got "1"'),
            (dict(channels=[{"id": 1, "prn": 1, "cn0_epochs": 1}]),
             "channels[0].cn0_epochs: must be an integer in [2, 1073741824], got 1"),
            (dict(channels=[{"id": 1, "prn": 1, "cn0_epochs": 2**31}]),
             "channels[0].cn0_epochs: must be an integer in [2, 1073741824], got 2147483648"),
            # Found by qa_properties: beyond 2^64 - 1 the PMT conversion raised a
            # RuntimeError naming nothing; beyond 2^31 the loss-of-lock counts a TypeError.
            (dict(channels=[{"id": 1, "prn": 1, "cn0_epochs": 2**64}]),
             "channels[0].cn0_epochs: integer too large (above 2^64 - 1)"),
            (dict(lock_loss_windows=2**31), "lock_loss_windows: must be at most 2147483647"),
            (dict(lock_timeout_windows=-(2**63)), "lock_timeout_windows: must be at least"),
            (dict(channels=[{"id": 1, "prn": 1, "pll_bandwidth_hz": 1e6}]),
             "channels[0].pll_bandwidth_hz: must be at most 0.5 / epoch duration = 500 Hz"),
            (dict(channels=[{"id": 1, "prn": 1, "fll_bandwidth_hz": 600.0}]), "channels[0].fll_bandwidth_hz"),
            (dict(channels=[{"id": 1, "prn": 1, "dll_bandwidth_hz": 1e3, "periods_per_integration": 20}]),
             "channels[0].dll_bandwidth_hz: must be at most 0.5 / epoch duration = 25 Hz"),
            (dict(channels=[{"id": 1, "prn": 1, "mode": "open_loop",
                             "tap_offsets_chips": [-1100.0, 0.0, 0.5]}]),
             "channels[0].tap_offsets_chips[0]: must be finite and shorter than one code period (1023 chips)"),
            (dict(channels=[{"id": 1, "prn": 1, "bad\x01key": 1}]), 'channels[0]."bad\\x01key": unknown channel key'),
        ]
        for kwargs, needle in cases:
            args = dict(sample_rate_hz=FS, device="cpu")
            args.update(kwargs)
            with self.assertRaises(ValueError, msg=needle) as ctx:
                cudadsp.multichannel_correlator_cc(**args)
            self.assertIn(needle, str(ctx.exception))
        # Values at the bounds are accepted: 2^32 Hz, a loop just below 0.5 / T, taps
        # half a code period away.
        cudadsp.multichannel_correlator_cc(
            2.0**32, [-0.5, 0.0, 0.5], channels=[{"id": 1, "prn": 1}], device="cpu")
        blk = cudadsp.multichannel_correlator_cc(FS, [-511.5, 0.0, 511.5], channels=[
            {"id": 1, "prn": 1, "pll_bandwidth_hz": 499.0, "dll_bandwidth_hz": 499.0,
             "tap_offsets_chips": [-0.5, 0.0, 0.5]},
            {"id": 2, "prn": 2, "mode": "open_loop"}], device="cpu")
        self.assertEqual(blk.channel_ids(), [1, 2])

    def test_006c_add_channels_is_all_or_nothing(self):
        blk = cudadsp.multichannel_correlator_cc(FS, max_channels=3, channels=[{"id": 1, "prn": 1}],
                                                 device="cpu")
        refused = [
            ([{"id": 2, "prn": 2}, {"id": 3, "prn": 3}, {"id": 4, "prn": 4}],
             "channels[2].id: channel 4 would exceed max_channels = 3"),
            ([{"id": 2, "prn": 2}, {"id": 2, "prn": 3}], "channels[1].id: channel 2 already exists"),
            ([{"id": 2, "prn": 2}, {"id": 1, "prn": 3}], "channels[1].id: channel 1 already exists"),
            ([{"id": 2, "prn": 2}, {"id": 3, "prn": 33}], "channels[1].prn"),
        ]
        for channels, needle in refused:
            with self.assertRaises(ValueError) as ctx:
                blk.add_channels(channels)
            self.assertIn(needle, str(ctx.exception))
            self.assertIn("none applied", str(ctx.exception))
            self.assertEqual(blk.pending_changes(), 0)
        with self.assertRaises(ValueError) as ctx:
            blk.remove_channels([1, 5])
        self.assertIn("ids[1].id: no channel 5", str(ctx.exception))
        # 100000 bad ids: one error naming the count and the first three.
        with self.assertRaises(ValueError) as ctx:
            blk.remove_channels(list(range(100, 100100)))
        text = str(ctx.exception)
        self.assertLess(len(text), 600)
        self.assertIn("100000 of 100000 ids refused", text)
        self.assertIn("and 99997 more", text)
        # Nesting beyond 8 levels, however deep, is refused before anything is built.
        deep = {"id": 1, "prn": 1}
        for _ in range(100000):
            deep = [deep]
        with self.assertRaises(ValueError) as ctx:
            blk.add_channels(deep)
        self.assertIn("nested deeper than 8 levels", str(ctx.exception))
        self.assertEqual(blk.pending_changes(), 0)
        blk.add_channels([{"id": 2, "prn": 2}, {"id": 3, "prn": 3}])
        self.assertEqual(blk.pending_changes(), 2)

    def test_007_tracking_follows_the_simulator(self):
        # One GPS satellite at 45 dB-Hz with a Doppler rate; the channel starts from a
        # coarse acquisition (0.3 chip and 150 Hz off) and must lock onto the truth.
        n = int(0.6 * FS)
        config = cudadsp.gnss_simulator_config()
        config.sample_rate_hz = FS
        config.seed = 3
        s = cudadsp.gnss_simulated_satellite()
        s.code = cudadsp.gps_l1ca_code(7)
        s.code_phase_chips = 412.3
        s.doppler_hz = -2210.0
        s.doppler_rate_hz_per_s = 0.8
        s.cn0_dbhz = 45.0
        sim = cudadsp.gnss_signal_simulator(config, [s])
        x = sim.generate(n)
        ch = dict(id=11, prn=7, code_phase_chips=412.0, doppler_hz=-2060.0, start_sample=0,
                  fll_bandwidth_hz=10.0)
        blk = cudadsp.multichannel_correlator_cc(FS, channels=[ch], device="cpu")
        got = run_block(blk, chunk_source(x, np.complex64, max_chunk=20000, seed=8), 3).records()
        self.assertGreater(len(got), 550)
        tail = got[-100:]
        next_sample = tail["start_sample"].astype(np.float64) + tail["sample_count"]
        truth_phase = sim.code_phase_chips(0, next_sample)
        err = (tail["code_phase_chips"] - truth_phase + 511.5) % 1023 - 511.5
        self.assertLess(np.max(np.abs(err)), 0.05)
        self.assertLess(np.max(np.abs(tail["doppler_hz"] - sim.doppler_hz(0, next_sample))), 5.0)
        flags = tail["flags"]
        self.assertTrue(np.all(flags & 1))       # tracking
        self.assertTrue(np.all(flags & 2))       # C/N0 valid
        self.assertTrue(np.all(flags & 4))       # code lock
        self.assertGreater(np.mean((flags & 8) != 0), 0.9)  # carrier lock
        self.assertLess(abs(np.median(tail["cn0_dbhz"]) - 45.0), 3.0)
        # Costas lock: the prompt's energy is in I, and its sign is the data bit.
        prompt = tail["taps"][:, 1]
        self.assertGreater(np.mean(np.abs(prompt.real)), 5 * np.mean(np.abs(prompt.imag)))
        np.testing.assert_array_equal(np.sign(prompt.real), tail["prompt_sign"])

    def test_008_input_tags_reach_the_records(self):
        n = 9000
        x = self.make_signal(n)
        tags = [gr.tag_utils.python_to_tag((0, pmt.intern("rx_time"), pmt.from_double(12.5))),
                gr.tag_utils.python_to_tag((6500, pmt.intern("mark"), pmt.from_long(3)))]
        src = blocks.vector_source_c(x, False, 1, tags)
        ch = dict(id=1, prn=5, code_phase_chips=300.0, doppler_hz=1234.5, mode="open_loop")
        blk = cudadsp.multichannel_correlator_cc(FS, self.OFFSETS, channels=[ch], device="cpu")
        sink = run_block(blk, src, 5)
        got = sink.records()
        seen = {t[1]: (t[0], t[2]) for t in sink.tags()}
        self.assertEqual(seen["rx_time"][1], 12.5)
        self.assertEqual(seen["mark"][1], 3)
        # Each on the first record whose epoch ends after the tagged sample.
        for key, sample in (("rx_time", 0), ("mark", 6500)):
            ends = got["start_sample"].astype(np.int64) + got["sample_count"]
            self.assertEqual(seen[key][0], int(np.flatnonzero(ends > sample)[0]), key)

    def test_009_records_helper(self):
        state = np.zeros((2, 17))
        state[:, 0] = [3, 4]
        state[:, 2] = [2**40 + 1, 7]
        state[:, 11] = [np.nan, 44.5]
        rec = cudadsp.gnss_records(state.ravel(), np.ones(6, dtype=np.complex64))
        self.assertEqual(list(rec["channel_id"]), [3, 4])
        self.assertEqual(int(rec["start_sample"][0]), 2**40 + 1)
        self.assertTrue(np.isnan(rec["cn0_dbhz"][0]))
        self.assertEqual(rec["taps"].shape, (2, 3))
        self.assertEqual(int(cudadsp.gnss_state_field.cn0_dbhz), 11)
        self.assertEqual(cudadsp.gnss_state_field_count, 17)
        import importlib
        mod = importlib.import_module(cudadsp.gnss_records.__module__)
        for i, name in enumerate(mod.STATE_FIELDS):
            self.assertEqual(int(getattr(cudadsp.gnss_state_field, name)), i)
        with self.assertRaises(ValueError):
            cudadsp.gnss_records(np.zeros(18))


if __name__ == "__main__":
    gr_unittest.run(qa_multichannel_correlator_cc)
