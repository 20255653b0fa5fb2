#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""GNSS receiver front end: continuous acquisition of one or more signals handing
satellites to a multichannel correlator, and taking them back when they lose lock."""

from gnuradio import gr

from cudadsp.gnss import gnss_receiver_tap_offsets

from .. import cudadsp_python as _blocks
from .records import STATE_FIELDS

_ITEM_SIZES = {"cc": gr.sizeof_gr_complex, "sc": 2 * gr.sizeof_short}
_SIGNALS = ("gps_l1ca", "galileo_e1", "glonass_l1of")
#: Channel ids each signal's acquisition may allocate: signal i counts up from
#: i x CHANNEL_IDS_PER_SIGNAL, so that the acquisitions of one correlator never share
#: an id (ids are never reused; a million hand-offs is years of re-acquisitions).
CHANNEL_IDS_PER_SIGNAL = 1 << 20


def signals_of(signal):
    """The signals of ``signal``: one name, or a sequence of distinct names, each one
    of "gps_l1ca", "galileo_e1", "glonass_l1of". ValueError naming signal otherwise."""
    signals = (signal,) if isinstance(signal, str) else tuple(signal)
    if not signals or len(set(signals)) != len(signals) or any(
            s not in _SIGNALS for s in signals):
        raise ValueError("signal: must be one of %s or a sequence of distinct ones, got %r"
                         % (", ".join('"%s"' % s for s in _SIGNALS), signal))
    return signals


def per_signal(value, signals, name, is_per_signal):
    """{signal: value} from ``value``: one value for every signal, or a dict from
    signal to value (a signal left out gets None). is_per_signal(value) says which."""
    if not is_per_signal(value):
        return {s: value for s in signals}
    unknown = set(value) - set(signals)
    if unknown:
        raise ValueError("%s: keys must be among the signals %s, got %s"
                         % (name, list(signals), sorted(unknown)))
    return {s: value.get(s) for s in signals}


def _keyed_by_signal(value):
    """A dict whose keys are all signal names (tracking keys never are)."""
    return isinstance(value, dict) and bool(value) and all(k in _SIGNALS for k in value)


class gnss_receiver_frontend(gr.hier_block2):
    """
    GNSS Receiver Front End (CUDA DSP): one pcps_acquisition block per signal and a
    multichannel_correlator block on one input stream, their messages wired both ways:
    detections -> the correlator's add, the correlator's events -> every acquisition's
    lost. Satellites are searched, tracked and, once their lock is lost, searched again
    without a channel dict written by hand.

    Outputs: the correlator's records (0 "taps": T complex per record, 1 "state": 17
    float64, see gnss_records()). Message outputs: "detections" (the channel dicts
    handed off) and "events" (the correlator's events).

    signal: "gps_l1ca", "galileo_e1" or "glonass_l1of", or a sequence of them (e.g.
    ("gps_l1ca", "galileo_e1")): one acquisition block per signal (self.acquisitions,
    in that order; self.acquisition is the first), each allocating its own channel ids
    (signal i's from i x CHANNEL_IDS_PER_SIGNAL), all handing off to the one
    correlator, so that one record stream carries every system.
    satellites, doppler_step_hz, tap_offsets_chips, channel_parameters: one value for
    every signal, or a dict {signal: value} (a signal left out: its default).
    satellites: PRNs or GLONASS frequency numbers; empty: all the stream holds.
    tap_offsets_chips: None for each signal's default (cudadsp.gnss.
    gnss_receiver_tap_offsets: Galileo E1's BOC(1,1) peak wants narrower taps); the
    correlator's default offsets are the first signal's, and a signal whose offsets
    differ carries them in its channel dicts. Every signal must have as many taps.
    max_channels: most satellites tracked at once per signal; the correlator holds
    max_channels for each signal.
    input_type: "cc" (complex float) or "sc" (interleaved int16 I/Q).
    stream_mode: "live" for an SDR (the acquisition never holds the stream back and
    drops the samples that arrive while it searches), "recording" for a file or any
    finite stream (every sample is searched, the stream waits for each search, and the
    last search's detections reach the correlator before the stream ends).
    lock_loss_windows, lock_timeout_windows: the correlator's loss-of-lock rule (C/N0
    windows); a lost channel is removed and its satellite searched again.
    galileo_channel_system: the code a Galileo channel tracks, "galileo_e1c" (pilot)
    or "galileo_e1b" (data, whose I/NAV a telemetry decoder reads).
    The other parameters are pcps_acquisition_cc's and multichannel_correlator_cc's.
    """

    def __init__(self, sample_rate_hz=4e6, signal="gps_l1ca", input_type="cc",
                 satellites=(), doppler_max_hz=10e3, doppler_step_hz=500.0,
                 coherent_periods=1, noncoherent_dwells=10, false_alarm=1e-3,
                 max_channels=12, satellites_per_search=8, tap_offsets_chips=None,
                 channel_parameters=None, doppler_center_hz=0.0,
                 intermediate_frequency_hz=0.0, lock_loss_windows=4,
                 lock_timeout_windows=20, batch_ms=10.0, device="auto",
                 stream_mode="live", galileo_channel_system="galileo_e1c"):
        item_size = self.item_size(input_type)
        signals = signals_of(signal)
        satellites = per_signal(satellites, signals, "satellites",
                                lambda v: isinstance(v, dict))
        steps = per_signal(doppler_step_hz, signals, "doppler_step_hz",
                           lambda v: isinstance(v, dict))
        offsets = per_signal(tap_offsets_chips, signals, "tap_offsets_chips",
                             lambda v: isinstance(v, dict))
        parameters = per_signal(channel_parameters, signals, "channel_parameters",
                                _keyed_by_signal)
        taps = {s: list(gnss_receiver_tap_offsets(s) if offsets[s] is None else offsets[s])
                for s in signals}  # ValueError naming signal for an unknown one
        correlator_taps = taps[signals[0]]
        if any(len(t) != len(correlator_taps) for t in taps.values()):
            raise ValueError("tap_offsets_chips: every signal must have as many taps, got %s"
                             % taps)
        gr.hier_block2.__init__(
            self, "gnss_receiver_frontend",
            gr.io_signature(1, 1, item_size),
            gr.io_signaturev(2, 2, [gr.sizeof_gr_complex * len(correlator_taps),
                                    8 * len(STATE_FIELDS)]))
        acquisition = getattr(_blocks, "pcps_acquisition_" + input_type)
        correlator = getattr(_blocks, "multichannel_correlator_" + input_type)
        self.acquisitions = []
        for index, s in enumerate(signals):
            handed = {} if parameters[s] is None else dict(parameters[s])
            if taps[s] != correlator_taps:
                handed.setdefault("tap_offsets_chips", taps[s])
            self.acquisitions.append(acquisition(
                sample_rate_hz, signal=s,
                satellites=[] if satellites[s] is None else list(satellites[s]),
                doppler_max_hz=doppler_max_hz,
                doppler_step_hz=500.0 if steps[s] is None else steps[s],
                coherent_periods=coherent_periods, noncoherent_dwells=noncoherent_dwells,
                false_alarm=false_alarm, max_channels=max_channels,
                satellites_per_search=satellites_per_search,
                channel_parameters=handed or None,
                first_channel_id=index * CHANNEL_IDS_PER_SIGNAL,
                doppler_center_hz=doppler_center_hz,
                intermediate_frequency_hz=intermediate_frequency_hz, device=device,
                stream_mode=stream_mode, galileo_channel_system=galileo_channel_system))
        self.acquisition = self.acquisitions[0]
        self.correlator = correlator(
            sample_rate_hz, correlator_taps, max_channels=max_channels * len(signals),
            intermediate_frequency_hz=intermediate_frequency_hz, batch_ms=batch_ms,
            device=device, lock_loss_windows=lock_loss_windows,
            lock_timeout_windows=lock_timeout_windows, remove_lost=True)

        self.connect(self, self.correlator)
        self.connect((self.correlator, 0), (self, 0))
        self.connect((self.correlator, 1), (self, 1))
        self.message_port_register_hier_out("detections")
        for a in self.acquisitions:
            self.connect(self, a)
            self.msg_connect((a, "detections"), (self.correlator, "add"))
            self.msg_connect((self.correlator, "events"), (a, "lost"))
            self.msg_connect((a, "detections"), (self, "detections"))
        self.message_port_register_hier_out("events")
        self.msg_connect((self.correlator, "events"), (self, "events"))

    @staticmethod
    def item_size(input_type):
        """Bytes per input sample of ``input_type`` ("cc" or "sc")."""
        if input_type not in _ITEM_SIZES:
            raise ValueError('input_type: must be "cc" or "sc", got %r' % (input_type,))
        return _ITEM_SIZES[input_type]

    def taps(self):
        """Taps per record (the correlator's tap count)."""
        return self.correlator.taps()
