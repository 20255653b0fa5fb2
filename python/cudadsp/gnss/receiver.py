#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""GNSS receiver: one stream in, position fixes out, the front end and the navigation
blocks wired together (GPS L1 C/A, Galileo E1, or both)."""

from gnuradio import gr

from cudadsp.gnss import gnss_receiver_tap_offsets

from .. import cudadsp_python as _blocks
from .receiver_frontend import gnss_receiver_frontend, signals_of
from .records import STATE_FIELDS

#: The signals the navigation blocks decode.
SIGNALS = ("gps_l1ca", "galileo_e1")
#: The loops of the engine receiver's measured bounds (cudadsp.gnss.receive,
#: qa_gps_receiver): taps 0.25 chip either side of the prompt and a 0.25 Hz
#: carrier-aided DLL, about 0.4 m of code noise per satellite at 45 dB-Hz. Galileo E1
#: keeps the narrower taps its BOC(1,1) peak wants (gnss_receiver_tap_offsets).
TAP_OFFSETS_CHIPS = {"gps_l1ca": (-0.25, 0.0, 0.25),
                     "galileo_e1": tuple(gnss_receiver_tap_offsets("galileo_e1"))}
CHANNEL_PARAMETERS = {"dll_bandwidth_hz": 0.25}
#: Doppler bins half the inverse of the coherent time apart (one code period: GPS 1 ms,
#: Galileo E1 4 ms), so that a satellite between two bins loses at most 0.9 dB (sinc²).
DOPPLER_STEP_HZ = {"gps_l1ca": 500.0, "galileo_e1": 125.0}
PROMPT_TAP = 1


class gnss_receiver(gr.hier_block2):
    """
    GNSS Receiver (CUDA DSP): a GPS L1 C/A and Galileo E1 receiver from one sample
    stream to position fixes. gnss_receiver_frontend (continuous acquisition of each
    signal handing satellites to the one multichannel correlator; Galileo on the E1-B
    data code) -> gps_telemetry_decoder (GPS bit sync and LNAV, Galileo I/NAV) ->
    gnss_observables (common epochs at rate_hz) -> gnss_pvt (fix with one receiver
    clock per system, RINEX, NMEA).

    Outputs: the correlator's records, as gnss_receiver_frontend's (0 "taps": 3 complex
    per record, 1 "state": 17 float64, see gnss_records()), for a channel monitor; they
    may be left unconnected. Message outputs: "fix" (one dict per epoch: valid, reason,
    latitude_deg, longitude_deg, height_m, satellites_used, satellites ("G05", "E11"),
    excluded, hdop, pdop, ..., inter_system_bias_s, gps_week, gps_time_of_week_s, utc;
    docs/blocks/gnss_pvt.md), "navigation" (the decoder's subframes, pages, ephemerides,
    ...) and "events" (the correlator's).

    signal: "gps_l1ca", "galileo_e1", or both as a sequence ("gps_l1ca", "galileo_e1").
    satellites: the PRNs to search, for one signal, or a dict {signal: PRNs}; empty or
    left out: all.
    input_type: "cc" (complex float) or "sc" (interleaved int16 I/Q).
    stream_mode: "live" for an SDR, "recording" for a file (every sample searched).
    output_folder: where the RINEX 3.04 observation and navigation files, fixes.nmea and
    track.geojson are written when the flowgraph stops; "" for none.
    klobuchar: the 8 broadcast ionosphere parameters when known before subframe 4 page
    18 (every 12.5 min); () to wait for the page (Galileo alone never gets it).
    max_channels: per signal.
    The other parameters are gnss_receiver_frontend's and gnss_pvt's.
    """

    def __init__(self, sample_rate_hz=4e6, input_type="cc", satellites=(),
                 doppler_max_hz=10e3, doppler_center_hz=0.0, noncoherent_dwells=10,
                 max_channels=12, intermediate_frequency_hz=0.0, rate_hz=1.0,
                 output_folder="", elevation_mask_deg=10.0, ionosphere=True,
                 troposphere=True, klobuchar=(), reference_week=0, device="auto",
                 stream_mode="live", signal="gps_l1ca"):
        signals = signals_of(signal)
        if any(s not in SIGNALS for s in signals):
            raise ValueError("signal: the receiver decodes %s, got %r"
                             % (" and ".join('"%s"' % s for s in SIGNALS), signal))
        gr.hier_block2.__init__(
            self, "gnss_receiver",
            gr.io_signature(1, 1, gnss_receiver_frontend.item_size(input_type)),
            gr.io_signaturev(2, 2, [gr.sizeof_gr_complex * 3, 8 * len(STATE_FIELDS)]))
        self.frontend = gnss_receiver_frontend(
            sample_rate_hz, signal=signals, input_type=input_type,
            satellites=satellites, doppler_max_hz=doppler_max_hz,
            doppler_step_hz={s: DOPPLER_STEP_HZ[s] for s in signals},
            doppler_center_hz=doppler_center_hz, noncoherent_dwells=noncoherent_dwells,
            max_channels=max_channels,
            tap_offsets_chips={s: TAP_OFFSETS_CHIPS[s] for s in signals},
            channel_parameters=CHANNEL_PARAMETERS,
            intermediate_frequency_hz=intermediate_frequency_hz, device=device,
            stream_mode=stream_mode, galileo_channel_system="galileo_e1b")
        self.decoder = _blocks.gps_telemetry_decoder(3, PROMPT_TAP)
        self.observables = _blocks.gnss_observables(sample_rate_hz, rate_hz)
        self.pvt = _blocks.gnss_pvt(output_folder, elevation_mask_deg, ionosphere,
                                    troposphere, list(klobuchar), reference_week)

        self.connect(self, self.frontend)
        self.connect((self.frontend, 0), (self.decoder, 0))
        self.connect((self.frontend, 1), (self.decoder, 1))
        self.connect((self.frontend, 0), (self, 0))
        self.connect((self.frontend, 1), (self, 1))
        self.msg_connect((self.decoder, "navigation"), (self.observables, "navigation"))
        self.msg_connect((self.observables, "observables"), (self.pvt, "observables"))
        for port, block in (("fix", self.pvt), ("navigation", self.decoder),
                            ("events", self.frontend)):
            self.message_port_register_hier_out(port)
            self.msg_connect((block, port), (self, port))

    def fixes(self):
        """Epochs with a valid fix so far."""
        return self.pvt.fixes()

    def output_files(self):
        """The files written when the flowgraph stopped."""
        return self.pvt.output_files()
