#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""GNSS receiver front end: continuous acquisition handing satellites to a multichannel
correlator, and taking them back when they lose lock."""

from gnuradio import gr

from cudadsp.gnss import gnss_receiver_tap_offsets

from .. import cudadsp_python as _blocks
from .records import STATE_FIELDS

_ITEM_SIZES = {"cc": gr.sizeof_gr_complex, "sc": 2 * gr.sizeof_short}


class gnss_receiver_frontend(gr.hier_block2):
    """
    GNSS Receiver Front End (CUDA DSP): a pcps_acquisition block and a
    multichannel_correlator block on one input stream, their messages wired both ways:
    detections -> the correlator's add, the correlator's events -> the acquisition's
    lost. Satellites are searched, tracked and, once their lock is lost, searched again
    without a channel dict written by hand.

    Outputs: the correlator's records (0 "taps": T complex per record, 1 "state": 17
    float64, see gnss_records()). Message outputs: "detections" (the channel dicts
    handed off) and "events" (the correlator's events).

    input_type: "cc" (complex float) or "sc" (interleaved int16 I/Q).
    stream_mode: "live" for an SDR (the acquisition never holds the stream back and
    drops the samples that arrive while it searches), "recording" for a file or any
    finite stream (every sample is searched, the stream waits for each search, and the
    last search's detections reach the correlator before the stream ends).
    tap_offsets_chips: None for the signal's default (cudadsp.gnss.gnss_receiver_tap_offsets).
    lock_loss_windows, lock_timeout_windows: the correlator's loss-of-lock rule (C/N0
    windows); a lost channel is removed and its satellite searched again.
    The other parameters are pcps_acquisition_cc's and multichannel_correlator_cc's.
    """

    def __init__(self, sample_rate_hz=4e6, signal="gps_l1ca", input_type="cc",
                 satellites=(), doppler_max_hz=10e3, doppler_step_hz=500.0,
                 coherent_periods=1, noncoherent_dwells=10, false_alarm=1e-3,
                 max_channels=12, satellites_per_search=8, tap_offsets_chips=None,
                 channel_parameters=None, doppler_center_hz=0.0,
                 intermediate_frequency_hz=0.0, lock_loss_windows=4,
                 lock_timeout_windows=20, batch_ms=10.0, device="auto",
                 stream_mode="live"):
        item_size = self.item_size(input_type)
        receiver_taps = gnss_receiver_tap_offsets(signal)  # ValueError naming signal
        taps = list(receiver_taps if tap_offsets_chips is None else tap_offsets_chips)
        gr.hier_block2.__init__(
            self, "gnss_receiver_frontend",
            gr.io_signature(1, 1, item_size),
            gr.io_signaturev(2, 2, [gr.sizeof_gr_complex * len(taps),
                                    8 * len(STATE_FIELDS)]))
        acquisition = getattr(_blocks, "pcps_acquisition_" + input_type)
        correlator = getattr(_blocks, "multichannel_correlator_" + input_type)
        self.acquisition = acquisition(
            sample_rate_hz, signal=signal, satellites=list(satellites),
            doppler_max_hz=doppler_max_hz, doppler_step_hz=doppler_step_hz,
            coherent_periods=coherent_periods, noncoherent_dwells=noncoherent_dwells,
            false_alarm=false_alarm, max_channels=max_channels,
            satellites_per_search=satellites_per_search,
            channel_parameters=channel_parameters, doppler_center_hz=doppler_center_hz,
            intermediate_frequency_hz=intermediate_frequency_hz, device=device,
            stream_mode=stream_mode)
        self.correlator = correlator(
            sample_rate_hz, taps, max_channels=max_channels,
            intermediate_frequency_hz=intermediate_frequency_hz, batch_ms=batch_ms,
            device=device, lock_loss_windows=lock_loss_windows,
            lock_timeout_windows=lock_timeout_windows, remove_lost=True)

        self.connect(self, self.acquisition)
        self.connect(self, self.correlator)
        self.connect((self.correlator, 0), (self, 0))
        self.connect((self.correlator, 1), (self, 1))
        self.msg_connect((self.acquisition, "detections"), (self.correlator, "add"))
        self.msg_connect((self.correlator, "events"), (self.acquisition, "lost"))
        for port, block in (("detections", self.acquisition), ("events", self.correlator)):
            self.message_port_register_hier_out(port)
            self.msg_connect((block, port), (self, port))

    @staticmethod
    def item_size(input_type):
        """Bytes per input sample of ``input_type`` ("cc" or "sc")."""
        if input_type not in _ITEM_SIZES:
            raise ValueError('input_type: must be "cc" or "sc", got %r' % (input_type,))
        return _ITEM_SIZES[input_type]

    def taps(self):
        """Taps per record (the correlator's tap count)."""
        return self.correlator.taps()
