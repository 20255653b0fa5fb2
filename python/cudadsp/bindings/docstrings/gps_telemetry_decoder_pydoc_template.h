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


static const char* __doc_gr_cudadsp_gps_telemetry_decoder = R"doc(GPS L1 C/A telemetry decoder: the multichannel correlator's records (inputs taps and state)
in, per channel bit synchronisation and LNAV decoding; on the "navigation" message port,
in order: "states" (each record's transmit time, for gnss_observables), "subframe"
(TLM/HOW, the ten words, parity failures so far), "ephemeris" and "iono_utc" dicts.
See docs/blocks/gps_telemetry_decoder.md.)doc";


static const char* __doc_gr_cudadsp_gps_telemetry_decoder_gps_telemetry_decoder = R"doc()doc";


static const char* __doc_gr_cudadsp_gps_telemetry_decoder_make = R"doc(Make a GPS telemetry decoder.

Args:
    taps: taps per record (the correlator's tap count, 1 to 64).
    prompt_tap: index of the prompt tap (below taps).
    bit_sync_ms: prompts gathered before the bit edge is decided (>= 20).)doc";


static const char* __doc_gr_cudadsp_gps_telemetry_decoder_parity_failures = R"doc(LNAV words whose parity failed, over every channel so far (never used).)doc";


static const char* __doc_gr_cudadsp_gps_telemetry_decoder_subframes = R"doc(Subframes decoded with every word good, over every channel.)doc";


static const char* __doc_gr_cudadsp_gps_telemetry_decoder_ephemerides = R"doc(Ephemerides decoded, over every channel.)doc";


static const char* __doc_gr_cudadsp_gps_telemetry_decoder_channel_stages = R"doc(Where each channel is ("G05: bit synchronisation; G12: time known; ...").)doc";

