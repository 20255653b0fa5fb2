/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of gps_telemetry_decoder (written by hand; used as the
  docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_gps_telemetry_decoder = R"doc(GNSS telemetry decoder, GPS L1 C/A and Galileo E1-B: the multichannel correlator's
records (inputs taps and state) in, per channel the navigation message decoded (GPS bit
synchronisation and LNAV, Galileo I/NAV pages); on the "navigation" message port, in
order: "states" (each record's transmit time, for gnss_observables), "subframe" (GPS
TLM/HOW, the ten words, parity failures so far), "ephemeris" and "iono_utc" (GPS),
"page" (Galileo word type and word, CRC failures so far), "galileo_ephemeris" and
"galileo_iono_health" (word 5) dicts. Records of other systems (the Galileo E1-C pilot
too) are ignored. See docs/blocks/gps_telemetry_decoder.md.)doc";


static const char* __doc_gr_cudadsp_gps_telemetry_decoder_gps_telemetry_decoder = R"doc()doc";


static const char* __doc_gr_cudadsp_gps_telemetry_decoder_make = R"doc(Make a GPS telemetry decoder.

Args:
    taps: taps per record (the correlator's tap count, 1 to 64).
    prompt_tap: index of the prompt tap (below taps).
    bit_sync_ms: GPS, prompts gathered before the bit edge is decided (>= 20).)doc";


static const char* __doc_gr_cudadsp_gps_telemetry_decoder_parity_failures = R"doc(LNAV words whose parity failed, over every GPS channel so far (never used).)doc";


static const char* __doc_gr_cudadsp_gps_telemetry_decoder_subframes = R"doc(GPS subframes decoded with every word good, over every channel.)doc";


static const char* __doc_gr_cudadsp_gps_telemetry_decoder_crc_failures = R"doc(Galileo I/NAV pages whose CRC-24Q failed, over every channel so far (never used).)doc";


static const char* __doc_gr_cudadsp_gps_telemetry_decoder_pages = R"doc(Galileo I/NAV pages decoded with their CRC good, over every channel.)doc";


static const char* __doc_gr_cudadsp_gps_telemetry_decoder_ephemerides = R"doc(Ephemerides decoded, over every channel of both systems.)doc";


static const char* __doc_gr_cudadsp_gps_telemetry_decoder_channel_stages = R"doc(Where each channel is ("G05: bit synchronisation; E11: page synchronisation; G12: time known; ...").)doc";

