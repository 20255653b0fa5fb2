#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Block tests of cudadsp.pcps_acquisition_cc / _sc and of the correlator's loss-of-lock
events, inside flowgraphs, on the CPU backend.

Truth comes from the signal simulator (code phase and Doppler of every satellite at
any sample), never from the block: every detection dict must name a simulated
satellite, with its code phase at the dict's start_sample and its Doppler; the
correlator must take the dicts as they are. Bad parameters must raise ValueError
naming the parameter; malformed messages on "lost" must be logged and ignored while
the flowgraph runs to its end.
"""

import os
import sys

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import cudadsp
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp
from cudadsp.common import data_files
from gnuradio.cudadsp.gnss.simulator_source import make_simulator

from gnuradio.cudadsp.common.qa_log_capture import captured_output  # a test helper

FS = 4.0e6
CHIPS = 1023.0
SATELLITES = [
    {"prn": 3, "code_phase_chips": 120.4, "doppler_hz": -2310.0, "cn0_dbhz": 46.0},
    {"prn": 11, "code_phase_chips": 871.9, "doppler_hz": 1475.0, "cn0_dbhz": 44.0},
    {"prn": 24, "code_phase_chips": 432.0, "doppler_hz": 3890.0, "cn0_dbhz": 45.0},
]


def wrapped_chips(a, b, period=CHIPS):
    """|a - b| on the code circle."""
    d = (a - b) % period
    return min(d, period - d)


def dicts(messages):
    return [pmt.to_python(m) for m in messages]


class responder(gr.basic_block):
    """Answers detections on "out" as a correlator's events would: PRN 11 lost, PRN 24
    refused (error with its id), PRN 3 with malformed messages and an add event."""

    def __init__(self):
        gr.basic_block.__init__(self, "responder", None, None)
        self.message_port_register_in(pmt.intern("in"))
        self.message_port_register_out(pmt.intern("out"))
        self.set_msg_handler(pmt.intern("in"), self._answer)
        self.answered = 0

    def _answer(self, msg):
        d = pmt.to_python(msg)
        out = pmt.intern("out")
        if d["prn"] == 11:
            self.message_port_pub(out, pmt.to_pmt({"event": "lost", "id": d["id"],
                                                   "sample": 10, "prn": 11,
                                                   "system": "gps_l1ca",
                                                   "reason": "lock_lost"}))
        elif d["prn"] == 24:
            self.message_port_pub(out, pmt.to_pmt({"event": "error", "id": d["id"],
                                                   "port": "add", "error": "refused"}))
        else:
            for bad in (pmt.from_long(3), pmt.intern("lost"), pmt.to_pmt({"id": 1}),
                        pmt.to_pmt({"event": "lost", "id": "x"}),
                        pmt.to_pmt({"event": "lost", "id": -4}),
                        pmt.to_pmt({"event": 5, "id": 1}),
                        pmt.to_pmt({"event": "error", "port": "add", "error": "x"}),
                        pmt.to_pmt({"event": "add", "id": d["id"]})):
                self.message_port_pub(out, bad)
        self.answered += 1


class qa_pcps_acquisition_cc(gr_unittest.TestCase):

    def run_acquisition(self, block_kind, samples, responder=None, **kwargs):
        """Runs the block alone on samples, then 0.3 s of noise, at real rate (a
        throttle): the searches end, and their messages are handled, while the stream
        still runs. Returns (block, detection dicts)."""
        tail = make_simulator(FS, [], noise_power=np.mean(np.abs(samples) ** 2),
                              seed=99).generate(int(0.3 * FS))
        samples = np.concatenate([samples, tail])
        # The absent PRNs are searched again and again while the stream runs (tens of
        # searches, more when the machine is slow), so at the default false alarm of
        # 1e-3 per search a test would see a false detection in about one run of ten;
        # 1e-9 keeps the simulated satellites (45 dB-Hz) far above the threshold.
        kwargs.setdefault("false_alarm", 1e-9)
        tb = gr.top_block()
        if block_kind == "cc":
            src = blocks.vector_source_c(samples.astype(np.complex64))
            item = gr.sizeof_gr_complex
            acq = cudadsp.pcps_acquisition_cc(FS, device="cpu", **kwargs)
        else:
            iq = np.empty(2 * len(samples), dtype=np.int16)
            iq[0::2] = np.round(samples.real)
            iq[1::2] = np.round(samples.imag)
            src = blocks.vector_source_s(iq, False, 2)
            item = 2 * gr.sizeof_short
            acq = cudadsp.pcps_acquisition_sc(FS, device="cpu", **kwargs)
        throttle = blocks.throttle(item, FS)
        sink = blocks.message_debug()
        tb.connect(src, throttle, acq)
        tb.msg_connect((acq, "detections"), (sink, "store"))
        if responder is not None:
            tb.msg_connect((acq, "detections"), (responder, "in"))
            tb.msg_connect((responder, "out"), (acq, "lost"))
        tb.run()
        return acq, dicts([sink.get_message(i) for i in range(sink.num_messages())])

    def check_detections(self, found, sim):
        """Every dict is a simulated satellite at its truth; each satellite once."""
        prns = {s["prn"]: i for i, s in enumerate(SATELLITES)}
        self.assertEqual(sorted(d["prn"] for d in found), sorted(prns))
        ids = [d["id"] for d in found]
        self.assertEqual(len(set(ids)), len(ids))
        for d in found:
            i = prns[d["prn"]]
            n = d["start_sample"]
            self.assertEqual(d["system"], "gps_l1ca")
            self.assertEqual(d["mode"], "tracking")
            self.assertLess(wrapped_chips(d["code_phase_chips"], sim.code_phase_chips(i, n)),
                            0.1, d)
            self.assertLess(abs(d["doppler_hz"] - sim.doppler_hz(i, n)), 80.0, d)

    def test_001_detections_are_correlator_channels(self):
        sim = make_simulator(FS, SATELLITES, seed=7)
        x = sim.generate(int(0.05 * FS))
        acq, found = self.run_acquisition(
            "cc", x, satellites=[3, 11, 24, 5, 17], satellites_per_search=5,
            noncoherent_dwells=4, doppler_max_hz=5e3)
        self.check_detections(found, sim)
        self.assertEqual(sorted(acq.tracked()), [3, 11, 24])
        self.assertEqual(sorted(acq.searching()), [5, 17])
        self.assertGreaterEqual(acq.searches_completed(), 1)
        self.assertEqual(acq.detections_published(), 3)
        # The correlator takes the dicts as they are.
        corr = cudadsp.multichannel_correlator_cc(FS, device="cpu")
        for d in found:
            corr.add_channels(d)
        self.assertEqual(corr.pending_changes(), 3)

    def test_002_int16_input(self):
        sim = make_simulator(FS, SATELLITES, noise_power=400.0, seed=8)
        x = sim.generate(int(0.03 * FS))
        acq, found = self.run_acquisition(
            "sc", x, satellites=[3, 11, 24], noncoherent_dwells=4, doppler_max_hz=5e3)
        self.check_detections(found, sim)
        self.assertEqual(acq.input_format(), "ci16")

    def test_003_channel_parameters_and_ids(self):
        sim = make_simulator(FS, SATELLITES[:1], seed=9)
        x = sim.generate(int(0.02 * FS))
        _, found = self.run_acquisition(
            "cc", x, satellites=[3], noncoherent_dwells=4, doppler_max_hz=5e3,
            first_channel_id=500,
            channel_parameters={"pll_bandwidth_hz": 20.0, "tap_offsets_chips": [-0.25, 0.0, 0.25]})
        self.assertEqual(len(found), 1)
        self.assertEqual(found[0]["id"], 500)
        self.assertEqual(found[0]["pll_bandwidth_hz"], 20.0)
        self.assertEqual(list(found[0]["tap_offsets_chips"]), [-0.25, 0.0, 0.25])
        self.assertEqual(found[0]["fll_bandwidth_hz"], 10.0)  # the block's default

    def test_004_max_channels(self):
        sim = make_simulator(FS, SATELLITES, seed=10)
        x = sim.generate(int(0.05 * FS))
        acq, found = self.run_acquisition(
            "cc", x, satellites=[3, 11, 24], noncoherent_dwells=4, doppler_max_hz=5e3,
            max_channels=2)
        self.assertEqual(len(found), 2)
        self.assertEqual(len(acq.tracked()), 2)

    def test_005_lost_returns_satellites(self):
        """Events answering the detections (a stand-in for the correlator): a lost and
        an error event give satellites back, malformed messages are ignored."""
        sim = make_simulator(FS, SATELLITES, seed=11)
        # One search's worth of signal (16000 samples), then noise: no second detection.
        x = sim.generate(20000)
        answers = responder()
        acq, found = self.run_acquisition(
            "cc", x, satellites=[3, 11, 24], noncoherent_dwells=4, doppler_max_hz=5e3,
            responder=answers)
        self.assertEqual(sorted(d["prn"] for d in found), [3, 11, 24])
        self.assertEqual(answers.answered, 3)
        self.assertEqual(sorted(acq.tracked()), [3])
        self.assertEqual(sorted(acq.searching()), [11, 24])

    def test_005b_malformed_event_flood_is_rate_limited(self):
        # Malformed events for hours must not give a log line each: one per interval,
        # and the count of the others at stop().
        n_bad = 400
        acq = cudadsp.pcps_acquisition_cc(FS, device="cpu", satellites=[3],
                                          noncoherent_dwells=1, false_alarm=1e-9)
        for i in range(n_bad):
            acq._post(pmt.intern("lost"), pmt.to_pmt({"event": "lost", "id": "x%d" % i}))
        rng = np.random.default_rng(12)
        x = (rng.standard_normal(8000) + 1j * rng.standard_normal(8000)).astype(np.complex64)
        tb = gr.top_block()
        tb.connect(blocks.vector_source_c(x), acq)
        with captured_output() as log:
            tb.run()
        ignored = [line for line in log.lines() if '"lost" message ignored' in line]
        self.assertEqual(len(ignored), 1, log.text[-2000:])
        self.assertIn('%d more lines about "lost" messages ignored were suppressed'
                      % (n_bad - 1), log.text)

    def test_006_bad_parameters(self):
        cases = [
            (dict(signal="gps_l5"), "signal"),
            (dict(sample_rate_hz=1e6), "sample_rate_hz"),
            (dict(satellites=[0]), "satellites[0]"),
            (dict(satellites=[1, 33]), "satellites[1]"),
            (dict(satellites=[4, 4]), "satellites[1]"),
            (dict(signal="glonass_l1of", satellites=[7]), "satellites[0]"),
            (dict(coherent_periods=0), "coherent_periods"),
            (dict(coherent_periods=21), "coherent_periods"),
            (dict(signal="galileo_e1", coherent_periods=2), "coherent_periods"),
            (dict(noncoherent_dwells=0), "noncoherent_dwells"),
            (dict(doppler_step_hz=0.0), "doppler_step_hz"),
            (dict(false_alarm=1.5), "false_alarm"),
            (dict(max_channels=0), "max_channels"),
            (dict(satellites_per_search=0), "satellites_per_search"),
            (dict(first_channel_id=-1), "first_channel_id"),
            # Found by qa_properties: integers beyond int gave pybind11's TypeError.
            (dict(first_channel_id=2**32 - 1), "first_channel_id: must be at most 2147483647"),
            (dict(coherent_periods=2**63), "coherent_periods: must be at most"),
            # Negative counts: refused by the binding, by name, before the block's
            # configuration (unsigned there) is formed.
            (dict(coherent_periods=-1), "coherent_periods"),
            (dict(noncoherent_dwells=-4), "noncoherent_dwells"),
            (dict(max_channels=-1), "max_channels"),
            (dict(satellites_per_search=-8), "satellites_per_search"),
            (dict(satellites=[1, 2**40]), "satellites[1]: must be at most"),
            (dict(intermediate_frequency_hz=3e6), "intermediate_frequency_hz"),
            (dict(channel_parameters={"prn": 4}), "channel_parameters.prn"),
            (dict(channel_parameters={"pll_bandwidth_hz": "wide"}),
             "channel_parameters.pll_bandwidth_hz"),
            (dict(channel_parameters={"cn0_epochs": 0}), "channel_parameters.cn0_epochs"),
            (dict(channel_parameters=[1, 2]), "channel_parameters"),
            (dict(device="tpu"), "device"),
            (dict(signal="galileo_e1", galileo_channel_system="galileo_e1a"),
             "galileo_channel_system"),
        ]
        for kwargs, name in cases:
            args = dict(sample_rate_hz=FS)
            args.update(kwargs)
            with self.assertRaises(ValueError, msg=str(kwargs)) as ctx:
                cudadsp.pcps_acquisition_cc(**args)
            self.assertTrue(str(ctx.exception).startswith(name), (name, str(ctx.exception)))

    def test_007_every_signal_constructs_with_defaults(self):
        # Each signal's default taps must pass the block's own check of the channels it
        # will hand out (Galileo's BOC(1,1) peak is narrower than GPS's).
        for signal in ("gps_l1ca", "galileo_e1", "glonass_l1of"):
            acq = cudadsp.pcps_acquisition_cc(FS, signal=signal)
            self.assertGreater(len(acq.searching()), 0, signal)
            receiver = cudadsp.gnss_receiver_frontend(FS, signal=signal)
            self.assertEqual(receiver.taps(), 3, signal)


    def run_finite(self, samples, items, stream_mode, **kwargs):
        """A recording played as fast as the machine goes: samples (complex) through a
        head of items into the block, unthrottled, a message_debug subscribed to
        "detections". Returns (block, detection dicts received)."""
        tb = gr.top_block()
        src = blocks.vector_source_c(samples.astype(np.complex64))
        head = blocks.head(gr.sizeof_gr_complex, items)
        acq = cudadsp.pcps_acquisition_cc(FS, device="cpu", stream_mode=stream_mode,
                                          false_alarm=1e-9, **kwargs)
        sink = blocks.message_debug()
        tb.connect(src, head, acq)
        tb.msg_connect((acq, "detections"), (sink, "store"))
        tb.run()
        return acq, dicts([sink.get_message(i) for i in range(sink.num_messages())])

    def test_008_glonass_frequency_numbers_the_rate_holds(self):
        """GLONASS number k lies at k x 562.5 kHz: with the +-10 kHz window, the stream
        holds -3..3 at 4 Msps and -5..5 at 6.625 Msps. "All" (satellites=[]) is those;
        one outside is refused at construction, naming satellites[i], the number and the
        sample rate; a finite stream is then searched without an error."""
        for fs, held in ((4e6, list(range(-3, 4))), (6.625e6, list(range(-5, 6)))):
            acq = cudadsp.pcps_acquisition_cc(fs, signal="glonass_l1of", device="cpu")
            self.assertEqual(acq.searching(), held, fs)
            rx = cudadsp.gnss_receiver_frontend(fs, signal="glonass_l1of", device="cpu")
            self.assertEqual(rx.acquisition.searching(), held, fs)
            for k in (-7, held[0] - 1, held[-1] + 1):
                for make in (cudadsp.pcps_acquisition_cc, cudadsp.pcps_acquisition_sc,
                             cudadsp.gnss_receiver_frontend):
                    with self.assertRaises(ValueError, msg=(fs, k)) as ctx:
                        make(fs, signal="glonass_l1of", satellites=[0, k], device="cpu")
                    text = str(ctx.exception)
                    self.assertTrue(text.startswith("satellites[1]: "), text)
                    self.assertIn("frequency number %d " % k, text)
                    self.assertIn("sample_rate_hz %d" % fs, text)
        tb = gr.top_block()
        src = blocks.vector_source_c(
            make_simulator(6.625e6, [], seed=12).generate(2 * 6625).astype(np.complex64))
        acq = cudadsp.pcps_acquisition_cc(6.625e6, signal="glonass_l1of", device="cpu",
                                          noncoherent_dwells=1, doppler_max_hz=5e3,
                                          stream_mode="recording")
        tb.connect(src, acq)
        tb.run()
        self.assertEqual(acq.searches_completed(), 2)

    def test_009_recording_searched_whole(self):
        """stream_mode recording: a finite simulated recording through a head block,
        unthrottled, is searched whole (every sample, no drop), and every present
        satellite's detection reaches the subscriber, the last search's too (the
        stream ends as it runs); the same in every run."""
        sim = make_simulator(FS, SATELLITES, seed=13)
        x = sim.generate(int(0.06 * FS))
        # Groups of 2: [5, 17] (absent), [3, 11], [24, 5]: PRN 24 is found by the last
        # search, which the end of the stream meets running.
        runs = []
        for _ in range(3):
            acq, found = self.run_finite(x, 3 * 16000, "recording",
                                         satellites=[5, 17, 3, 11, 24],
                                         satellites_per_search=2, noncoherent_dwells=4,
                                         doppler_max_hz=5e3)
            self.assertEqual(acq.stream_mode(), "recording")
            self.assertEqual(acq.search_samples(), 16000)
            self.assertEqual(acq.searches_completed(), 3)
            self.assertEqual(acq.samples_searched(), 3 * 16000)
            self.assertEqual(acq.samples_dropped(), 0)
            self.check_detections(found, sim)
            self.assertEqual(acq.detections_published(), len(found))
            self.assertEqual([d["start_sample"] for d in found], [16000, 16000, 32000])
            runs.append(found)
        self.assertEqual(runs[1], runs[0])
        self.assertEqual(runs[2], runs[0])

    def test_010_finite_stream_live_counts_what_it_sends(self):
        """stream_mode live on a finite stream: the one search runs as the stream ends,
        after the block's last work(); its detections can reach no one, so they are
        neither sent nor counted (a warning says so): the count is what subscribers
        receive."""
        sim = make_simulator(FS, SATELLITES, seed=14)
        x = sim.generate(20000)
        for _ in range(3):
            acq, found = self.run_finite(x, 16000, "live", satellites=[3, 11, 24],
                                         noncoherent_dwells=4, doppler_max_hz=5e3)
            self.assertEqual(acq.searches_completed(), 1)
            self.assertEqual(acq.detections_published(), len(found))
            self.assertEqual(found, [])
        with self.assertRaises(ValueError) as ctx:
            cudadsp.pcps_acquisition_cc(FS, stream_mode="file")
        self.assertTrue(str(ctx.exception).startswith("stream_mode: "), str(ctx.exception))


if __name__ == "__main__":
    data_files.run_tests()
