#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""GNSS receiver: one stream in, position fixes out, the front end and the navigation
blocks wired together (GPS L1 C/A)."""

from gnuradio import gr

from .. import cudadsp_python as _blocks
from .receiver_frontend import gnss_receiver_frontend
from .records import STATE_FIELDS

#: The loops of the engine receiver's measured bounds (cudadsp.gnss.receive,
#: qa_gps_receiver): taps 0.25 chip either side of the prompt and a 0.25 Hz
#: carrier-aided DLL, about 0.4 m of code noise per satellite at 45 dB-Hz.
TAP_OFFSETS_CHIPS = (-0.25, 0.0, 0.25)
CHANNEL_PARAMETERS = {"dll_bandwidth_hz": 0.25}


class gnss_receiver(gr.hier_block2):
    """
    GNSS Receiver (CUDA DSP): a GPS L1 C/A receiver from one sample stream to position
    fixes. gnss_receiver_frontend (continuous acquisition handing satellites to the
    multichannel correlator) -> gps_telemetry_decoder (bit sync, LNAV) ->
    gnss_observables (common epochs at rate_hz) -> gnss_pvt (fix, RINEX, NMEA).

    Outputs: the correlator's records, as gnss_receiver_frontend's (0 "taps": 3 complex
    per record, 1 "state": 17 float64, see gnss_records()), for a channel monitor; they
    may be left unconnected. Message outputs: "fix" (one dict per epoch: valid, reason, latitude_deg,
    longitude_deg, height_m, satellites_used, hdop, pdop, ..., gps_week,
    gps_time_of_week_s, utc; docs/blocks/gnss_pvt.md), "navigation" (the decoder's
    subframes, ephemerides, ...) and "events" (the correlator's).

    input_type: "cc" (complex float) or "sc" (interleaved int16 I/Q).
    stream_mode: "live" for an SDR, "recording" for a file (every sample searched).
    output_folder: where the RINEX 3.04 observation and navigation files, fixes.nmea and
    track.geojson are written when the flowgraph stops; "" for none.
    klobuchar: the 8 broadcast ionosphere parameters when known before subframe 4 page
    18 (every 12.5 min); () to wait for the page.
    The other parameters are gnss_receiver_frontend's and gnss_pvt's.
    """

    def __init__(self, sample_rate_hz=4e6, input_type="cc", satellites=(),
                 doppler_max_hz=10e3, doppler_center_hz=0.0, noncoherent_dwells=10,
                 max_channels=12, intermediate_frequency_hz=0.0, rate_hz=1.0,
                 output_folder="", elevation_mask_deg=10.0, ionosphere=True,
                 troposphere=True, klobuchar=(), reference_week=0, device="auto",
                 stream_mode="live"):
        gr.hier_block2.__init__(
            self, "gnss_receiver",
            gr.io_signature(1, 1, gnss_receiver_frontend.item_size(input_type)),
            gr.io_signaturev(2, 2, [gr.sizeof_gr_complex * len(TAP_OFFSETS_CHIPS),
                                    8 * len(STATE_FIELDS)]))
        self.frontend = gnss_receiver_frontend(
            sample_rate_hz, signal="gps_l1ca", input_type=input_type,
            satellites=satellites, doppler_max_hz=doppler_max_hz,
            doppler_center_hz=doppler_center_hz, noncoherent_dwells=noncoherent_dwells,
            max_channels=max_channels, tap_offsets_chips=TAP_OFFSETS_CHIPS,
            channel_parameters=CHANNEL_PARAMETERS,
            intermediate_frequency_hz=intermediate_frequency_hz, device=device,
            stream_mode=stream_mode)
        self.decoder = _blocks.gps_telemetry_decoder(
            len(TAP_OFFSETS_CHIPS), TAP_OFFSETS_CHIPS.index(0.0))
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
