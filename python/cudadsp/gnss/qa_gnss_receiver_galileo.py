#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The gnss_receiver hierarchical block with both signals (CPU backend): GPS L1 C/A
and Galileo E1 acquired from one stream and handed to the one correlator, Galileo on
the E1-B data code, which the telemetry decoder takes.

* Two GPS and two Galileo E1 B+C satellites simulated at 4 Msps, 45 dB-Hz, 2.5 s as a
  finite stream ("recording"): every satellite tracked on its own system's code (state
  field system gps_l1ca or galileo_e1b, never the pilot) in code and carrier lock at
  its truth (code phase within 0.1 chip of the simulator's, Doppler within 10 Hz), no
  other channel in lock; each acquisition's channel ids in its own range; the decoder
  names a navigation channel per satellite ("G07", "E11"). Only the present PRNs are
  searched: in a recording every 16 ms are searched, and an absent PRN, searched 150
  times in 2.5 s at the default false-alarm probability (1e-3 per search, more beside
  strong satellites: docs/blocks/pcps_acquisition_cc.md), is found now and then, its
  channel lost again later; qa_gnss_receiver covers that.
* Construction: one signal or both; GLONASS and unknown keys of a per-signal dict
  refused by name.

A position fix with Galileo needs its words 1 to 5 (27 s of E1 signal at 4 Msps
through the correlator): minutes on this machine, so the fix from Galileo's
navigation data is checked on the correlator's records instead, in the C++ flowgraph
test qa_gnss_galileo_flowgraph (both systems, truth to millimetres, the inter-system
bias, an unhealthy Galileo satellite named).
"""

import os
import sys
import time

import numpy as np
from gnuradio import gr, gr_unittest

try:
    from gnuradio import cudadsp
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp
from gnuradio.cudadsp.gnss.receiver_frontend import CHANNEL_IDS_PER_SIGNAL
from gnuradio.cudadsp.gnss.records import (FLAG_CARRIER_LOCK, FLAG_CODE_LOCK, SYSTEMS,
                                           gnss_record_sink)
from gnuradio.cudadsp.gnss.simulator_source import gnss_simulator_source, make_simulator

FS = 4.0e6
SECONDS = 2.5
SEED = 23
SKY = [
    {"system": "gps_l1ca", "prn": 7, "code_phase_chips": 904.6, "doppler_hz": 2475.0},
    {"system": "gps_l1ca", "prn": 19, "code_phase_chips": 13.9, "doppler_hz": -3210.0},
    {"system": "galileo_e1", "prn": 11, "code_phase_chips": 2871.4, "doppler_hz": -1730.0},
    {"system": "galileo_e1", "prn": 24, "code_phase_chips": 611.2, "doppler_hz": 3390.0},
]
# The correlator's code of each signal's channels, and its code period.
TRACKED_AS = {"gps_l1ca": ("gps_l1ca", 1023.0), "galileo_e1": ("galileo_e1b", 4092.0)}
# The codes a channel of each signal could be on.
CODES = {"gps_l1ca": ("gps_l1ca",), "galileo_e1": ("galileo_e1b", "galileo_e1c")}
LOCKED = FLAG_CODE_LOCK | FLAG_CARRIER_LOCK


def wrapped_chips(a, b, period):
    d = (a - b) % period
    return min(d, period - d)


class qa_gnss_receiver_galileo(gr_unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        for s in SKY:
            s["cn0_dbhz"] = 45.0
        satellites = {signal: [s["prn"] for s in SKY if s["system"] == signal]
                      for signal in ("gps_l1ca", "galileo_e1")}
        tb = gr.top_block()
        source = gnss_simulator_source(FS, SKY, seed=SEED, nsamples=int(SECONDS * FS))
        cls.receiver = cudadsp.gnss_receiver(
            FS, satellites=satellites, doppler_max_hz=5e3, noncoherent_dwells=4,
            max_channels=4, troposphere=False, device="cpu", stream_mode="recording",
            signal=("gps_l1ca", "galileo_e1"))
        cls.sink = gnss_record_sink(3)
        tb.connect(source, cls.receiver)
        tb.connect((cls.receiver, 0), (cls.sink, 0))
        tb.connect((cls.receiver, 1), (cls.sink, 1))
        start = time.monotonic()
        tb.run()
        cls.wall_s = time.monotonic() - start
        cls.records = cls.sink.records()
        print(f"\n{SECONDS} s of GPS + Galileo through gnss_receiver (CPU): "
              f"{cls.wall_s:.1f} s, {len(cls.records)} records")

    def test_001_every_satellite_tracked_on_its_code_at_its_truth(self):
        sim = make_simulator(FS, SKY, seed=SEED)
        records = self.records
        self.assertGreater(len(records), 0)
        for i, s in enumerate(SKY):
            system, period = TRACKED_AS[s["system"]]
            codes = [k for k, v in SYSTEMS.items() if v in CODES[s["system"]]]
            mine = records[(records["prn"] == s["prn"]) & np.isin(records["system"], codes)]
            # Galileo on the data code only: the pilot carries no I/NAV.
            self.assertEqual({SYSTEMS[int(k)] for k in mine["system"]}, {system}, s)
            locked = mine[(mine["flags"] & LOCKED) == LOCKED]
            self.assertGreater(len(locked), 0, s)
            last = locked[-1]
            n = int(last["start_sample"]) + int(last["sample_count"])
            self.assertLess(wrapped_chips(last["code_phase_chips"],
                                          sim.code_phase_chips(i, n), period), 0.1, s)
            self.assertLess(abs(last["doppler_hz"] - sim.doppler_hz(i, n)), 10.0, s)
            print("%s PRN %2d in lock from %.2f s of stream" % (
                system, s["prn"], int(locked[0]["start_sample"]) / FS))
        in_lock = records[(records["flags"] & FLAG_CODE_LOCK) != 0]
        present = {(TRACKED_AS[s["system"]][0], s["prn"]) for s in SKY}
        seen = {(SYSTEMS[int(r["system"])], int(r["prn"])) for r in in_lock}
        self.assertEqual(seen, present)

    def test_002_channel_ids_and_navigation_channels_per_system(self):
        gps, galileo = self.receiver.frontend.acquisitions
        self.assertEqual((gps.signal(), galileo.signal()), ("gps_l1ca", "galileo_e1"))
        self.assertTrue(all(i < CHANNEL_IDS_PER_SIGNAL for i in gps.tracked_ids()))
        self.assertTrue(all(CHANNEL_IDS_PER_SIGNAL <= i < 2 * CHANNEL_IDS_PER_SIGNAL
                            for i in galileo.tracked_ids()))
        self.assertEqual(sorted(gps.tracked()), [7, 19])
        self.assertEqual(sorted(galileo.tracked()), [11, 24])
        stages = self.receiver.decoder.channel_stages()
        for name in ("G07: ", "G19: ", "E11: ", "E24: "):
            self.assertIn(name, stages)
        # 2.5 s of E1-B without I/NAV pages: no page, so no CRC failure either.
        self.assertEqual(self.receiver.decoder.crc_failures(), 0)

    def test_003_signals_checked_by_name(self):
        one = cudadsp.gnss_receiver(FS, device="cpu")
        self.assertEqual([a.signal() for a in one.frontend.acquisitions], ["gps_l1ca"])
        alone = cudadsp.gnss_receiver(FS, device="cpu", signal="galileo_e1")
        self.assertEqual([a.signal() for a in alone.frontend.acquisitions], ["galileo_e1"])
        for kwargs, name in ((dict(signal="glonass_l1of"), "signal"),
                             (dict(signal=("gps_l1ca", "gps_l1ca")), "signal"),
                             (dict(signal=("gps_l1ca", "galileo_e1"),
                                   satellites={"glonass_l1of": [1]}), "satellites")):
            with self.assertRaises(ValueError, msg=str(kwargs)) as ctx:
                cudadsp.gnss_receiver(FS, device="cpu", **kwargs)
            self.assertTrue(str(ctx.exception).startswith(name), str(ctx.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_gnss_receiver_galileo)
