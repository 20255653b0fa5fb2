#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
GNSS Channel Monitor (CUDA DSP): the records of a multichannel correlator as one vector
per satellite quantity, at a fixed stream-time rate, for QT GUI vector sinks (a live
view of a receiver's channels).
"""

import numpy as np
from gnuradio import gr

from .records import (FLAG_CARRIER_LOCK, FLAG_CN0_VALID, FLAG_CODE_LOCK,
                           FLAG_TRACKING, STATE_FIELDS)
from ..common.work_errors import stop_on_error

#: Correlator "system" values of the records each signal shows (gnss_records.SYSTEMS).
SIGNAL_SYSTEMS = {"gps_l1ca": (1,), "galileo_e1": (2, 3)}
#: PRNs of each signal: the vectors' length.
SIGNAL_PRNS = {"gps_l1ca": 32, "galileo_e1": 50}

#: Values of the "lock" output.
LOCK_NONE, LOCK_TRACKING, LOCK_CODE, LOCK_CODE_AND_CARRIER = 0, 1, 2, 3

_FIELD = {name: i for i, name in enumerate(STATE_FIELDS)}


def lock_state(flags):
    """0 not tracking, 1 tracking, 2 code lock, 3 code and carrier lock."""
    flags = int(flags)
    if not flags & FLAG_TRACKING:
        return LOCK_NONE
    if not flags & FLAG_CODE_LOCK:
        return LOCK_TRACKING
    return LOCK_CODE_AND_CARRIER if flags & FLAG_CARRIER_LOCK else LOCK_CODE


class gnss_channel_monitor(gr.basic_block):
    """
    Reads the "state" records of a multichannel correlator (or of
    gnss_receiver_frontend, output 1) and, every update_s seconds of stream time,
    writes one vector on each output, element i for PRN i + 1 of ``signal``:

      out 0: C/N0 (dB-Hz) of the satellite's latest record, 0 while not yet valid;
      out 1: its Doppler (Hz);
      out 2: its lock: 0 not tracked, 1 tracking, 2 code lock, 3 code and carrier lock.

    A satellite without a record in the last stale_s seconds of stream (never tracked,
    or removed after a loss of lock) shows 0 on all three. The stream time of a record
    is (start_sample + sample_count) / sample_rate_hz, and the vectors follow the
    latest record time seen, so they come at the stream's pace, whatever the rate at
    which the records arrive. Records of other signals, or with a PRN beyond the
    signal's, are skipped.
    """

    def __init__(self, sample_rate_hz=4e6, signal="gps_l1ca", update_s=0.1, stale_s=1.0):
        if signal not in SIGNAL_PRNS:
            raise ValueError('signal: must be "gps_l1ca" or "galileo_e1", got %r' % (signal,))
        for name, value in (("sample_rate_hz", sample_rate_hz), ("update_s", update_s),
                            ("stale_s", stale_s)):
            if not (np.isfinite(value) and value > 0):
                raise ValueError("%s: must be finite and > 0, got %r" % (name, value))
        self.prns = SIGNAL_PRNS[signal]
        gr.basic_block.__init__(
            self, name="gnss_channel_monitor",
            in_sig=[(np.float64, len(STATE_FIELDS))],
            out_sig=[(np.float32, self.prns)] * 3)
        self._systems = SIGNAL_SYSTEMS[signal]
        self._update = float(update_s) * float(sample_rate_hz)
        self._stale = float(stale_s) * float(sample_rate_hz)
        self._cn0 = np.zeros(self.prns, dtype=np.float32)
        self._doppler = np.zeros(self.prns, dtype=np.float32)
        self._lock = np.zeros(self.prns, dtype=np.float32)
        self._last = np.full(self.prns, -np.inf)
        self._next_tick = None  # stream sample of the next vector

    def forecast(self, noutput_items, ninputs):
        # Records are sparse: one is enough to make progress.
        return [1] * ninputs

    def _snapshot(self, out, k):
        fresh = self._last >= self._next_tick - self._stale
        out[0][k] = np.where(fresh, self._cn0, 0.0)
        out[1][k] = np.where(fresh, self._doppler, 0.0)
        out[2][k] = np.where(fresh, self._lock, 0.0)

    @stop_on_error
    def general_work(self, input_items, output_items):
        records = input_items[0]
        room = len(output_items[0])
        produced = 0
        consumed = 0
        for record in records:
            at = record[_FIELD["start_sample"]] + record[_FIELD["sample_count"]]
            if self._next_tick is None:
                self._next_tick = (np.floor(at / self._update) + 1.0) * self._update
            while at >= self._next_tick and produced < room:
                self._snapshot(output_items, produced)
                produced += 1
                self._next_tick += self._update
            if at >= self._next_tick:
                break  # more vectors due than room: the rest next call
            consumed += 1
            system, prn = int(record[_FIELD["system"]]), int(record[_FIELD["prn"]])
            if system not in self._systems or not 1 <= prn <= self.prns:
                continue
            i = prn - 1
            flags = int(record[_FIELD["flags"]])
            self._cn0[i] = record[_FIELD["cn0_dbhz"]] if flags & FLAG_CN0_VALID else 0.0
            self._doppler[i] = record[_FIELD["doppler_hz"]]
            self._lock[i] = lock_state(flags)
            self._last[i] = at
        self.consume(0, consumed)
        return produced
