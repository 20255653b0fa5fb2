#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
Records of the multichannel GNSS correlator blocks as NumPy structured arrays, and a
sink that collects them.

Each record is one item on each of the block's two outputs: output 0 ("taps") holds
the T complex tap correlations, output 1 ("state") the float64 fields below, in this
order (the C++ enum gr::cudadsp::gnss_state_field; docs/blocks/multichannel_correlator_cc.md
describes each).
"""

import numpy as np
from gnuradio import gr

from ..common.work_errors import stop_on_error

#: Names of the float64 fields of a "state" record, in port order.
STATE_FIELDS = (
    "channel_id",
    "epoch",
    "start_sample",
    "sample_count",
    "flags",
    "prompt_sign",
    "code_phase_chips",
    "code_rate_cps",
    "doppler_hz",
    "carrier_phase_rad",
    "carrier_cycles",
    "cn0_dbhz",
    "carrier_lock",
    "pll_discriminator_rad",
    "dll_discriminator_chips",
    "prn",
    "system",
)

#: Bits of the "flags" field.
FLAG_TRACKING = 1
FLAG_CN0_VALID = 2
FLAG_CODE_LOCK = 4
FLAG_CARRIER_LOCK = 8
#: A held epoch: its tap sums were NaN, infinite or beyond float32 (bad input samples);
#: the loops skipped it and its discriminators are NaN.
FLAG_INVALID_SUMS = 16

#: Values of the "system" field.
SYSTEMS = {0: "explicit_code", 1: "gps_l1ca", 2: "galileo_e1b", 3: "galileo_e1c",
           4: "glonass_l1of"}

# Exact integers come back as integer types; the rest stay float64.
_INTEGER_FIELDS = {
    "channel_id": np.uint32,
    "epoch": np.uint64,
    "start_sample": np.uint64,
    "sample_count": np.uint32,
    "flags": np.uint32,
    "prompt_sign": np.int8,
    "prn": np.int16,
    "system": np.int8,
}


def record_dtype(taps=None):
    """The structured dtype gnss_records() returns; with ``taps``, a "taps" field of
    that many complex64 values comes first."""
    fields = []
    if taps is not None:
        fields.append(("taps", np.complex64, (int(taps),)))
    for name in STATE_FIELDS:
        fields.append((name, _INTEGER_FIELDS.get(name, np.float64)))
    return np.dtype(fields)


def gnss_records(state, taps=None):
    """
    Records as a structured array (one element per record, fields STATE_FIELDS).

    state: the "state" output, float64, shape (N, 17) or flat (N * 17,), or the raw
    bytes of it (e.g. a file written by a file sink).
    taps: optionally the "taps" output, complex64 (N, T) or flat with the T of the block:
    then a "taps" field holds each record's T correlations.
    """
    if isinstance(state, (bytes, bytearray, memoryview)):
        state = np.frombuffer(state, dtype=np.float64)
    state = np.asarray(state, dtype=np.float64)
    nfields = len(STATE_FIELDS)
    if state.size % nfields:
        raise ValueError("state: size %d is not a multiple of %d fields"
                         % (state.size, nfields))
    state = state.reshape(-1, nfields)
    n = state.shape[0]
    t = None
    if taps is not None:
        taps = np.asarray(taps, dtype=np.complex64)
        if n == 0:
            t = taps.shape[-1] if taps.ndim == 2 else 0
        else:
            if taps.size % n:
                raise ValueError("taps: %d values do not split into %d records"
                                 % (taps.size, n))
            t = taps.size // n
        taps = taps.reshape(n, t)
    out = np.zeros(n, dtype=record_dtype(t))
    for k, name in enumerate(STATE_FIELDS):
        column = state[:, k]
        if name in _INTEGER_FIELDS:
            # NaN never occurs in these fields; rint guards against float noise.
            column = np.rint(column)
        out[name] = column
    if t is not None:
        out["taps"] = taps
    return out


class gnss_record_sink(gr.sync_block):
    """
    Collects the records of a multichannel correlator block: connect its output 0 to
    this block's input 0 and its output 1 to input 1. records() gives them as a
    structured array (gnss_records()), tags() the stream tags seen on the records
    ("channel_event" and the input tags the correlator passed on). With a filename,
    stop() saves the records there (NumPy .npy).
    """

    def __init__(self, taps=3, filename=""):
        if int(taps) < 1:
            raise ValueError("taps: must be >= 1, got %r" % (taps,))
        gr.sync_block.__init__(
            self,
            name="gnss_record_sink",
            in_sig=[(np.complex64, int(taps)), (np.float64, len(STATE_FIELDS))],
            out_sig=None)
        self._taps_count = int(taps)
        self._filename = filename
        self._taps = []
        self._state = []
        self._tags = []

    @stop_on_error
    def work(self, input_items, output_items):
        n = len(input_items[0])
        self._taps.append(np.array(input_items[0][:n], dtype=np.complex64))
        self._state.append(np.array(input_items[1][:n], dtype=np.float64))
        start = self.nitems_read(1)
        for tag in self.get_tags_in_range(1, start, start + n):
            self._tags.append(tag)
        return n

    def stop(self):
        if self._filename:
            np.save(self._filename, self.records())
        return True

    def taps(self, chunks=None):
        """All tap correlations so far (of the first ``chunks`` work() calls), complex64
        (N, T)."""
        taps = self._taps[:chunks]
        if not taps:
            return np.zeros((0, self._taps_count), dtype=np.complex64)
        return np.concatenate(taps).reshape(-1, self._taps_count)

    def state(self, chunks=None):
        """All state records so far (of the first ``chunks`` work() calls), float64
        (N, 17)."""
        state = self._state[:chunks]
        if not state:
            return np.zeros((0, len(STATE_FIELDS)), dtype=np.float64)
        return np.concatenate(state).reshape(-1, len(STATE_FIELDS))

    def records(self):
        """All records so far as a structured array with a "taps" field. Safe while the
        flowgraph runs: work() may be between its two appends, so only the calls that
        appended both count."""
        chunks = min(len(self._taps), len(self._state))
        return gnss_records(self.state(chunks), self.taps(chunks))

    def tags(self):
        """Tags seen on the records: list of (record index, key, value as Python)."""
        import pmt
        return [(int(t.offset), pmt.symbol_to_string(t.key), pmt.to_python(t.value))
                for t in self._tags]

    def reset(self):
        """Forget the records and tags collected so far."""
        self._taps, self._state, self._tags = [], [], []
