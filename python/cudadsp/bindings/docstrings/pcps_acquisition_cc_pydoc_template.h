/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of pcps_acquisition_cc / _sc (written by hand;
  used as the docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_pcps_acquisition_base = R"doc(Common interface of the continuous GNSS acquisition blocks (pcps_acquisition_cc, _sc).

A sink fed by the same stream as a multichannel correlator. Round robin over the
satellites not being tracked, satellites_per_search at a time, it copies K coherent
intervals of samples into its own buffer and runs an FFT parallel code-phase search
on a worker thread. stream_mode "live" never holds the stream back (samples arriving
while a search runs are consumed and dropped); "recording" searches every sample, the
stream waiting for each search, and publishes the last search's detections before a
finite stream's end. Detections leave on the message port
"detections" as channel dicts the correlator's "add" port takes as they are (exact
start_sample); the port "lost" takes the correlator's "events" and returns a satellite
to the search on a lost, remove or error event of one of the block's channels.
See docs/blocks/pcps_acquisition_cc.md.)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_base_searching = R"doc(Satellites waiting to be searched (not tracked), in search order.)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_base_tracked = R"doc(Satellites handed to tracking and not returned.)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_base_tracked_ids = R"doc(Channel id of each satellite of tracked(), in the same order.)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_base_searches_completed = R"doc(Searches finished so far.)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_base_samples_dropped = R"doc(Samples consumed while a search was running (not searched; live mode only).)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_base_samples_searched = R"doc(Samples in the searches finished so far: searches_completed() x search_samples().)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_base_detections_published = R"doc(Detections published on "detections" so far (each one message sent).)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_base_search_samples = R"doc(Samples one search takes: noncoherent_dwells x the coherent interval.)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_base_sample_rate_hz = R"doc(The input sample rate.)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_base_signal = R"doc("gps_l1ca", "galileo_e1" or "glonass_l1of".)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_base_input_format = R"doc("cf32" or "ci16".)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_base_backend = R"doc(The backend in use: "cpu" or "cuda:N".)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_base_stream_mode = R"doc("live" or "recording".)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_cc = R"doc(Continuous PCPS acquisition on a complex float stream, handing detections to a multichannel correlator (see pcps_acquisition_base).)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_cc_pcps_acquisition_cc = R"doc()doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_cc_make = R"doc(Make a continuous acquisition block.

Args:
    sample_rate_hz: input sample rate, at least twice the chip rate (GPS and Galileo
        2.046 MHz, GLONASS 1.022 MHz), at most 100 MHz.
    signal: "gps_l1ca", "galileo_e1" or "glonass_l1of".
    satellites: PRNs (GPS 1..32, Galileo 1..50) or GLONASS frequency numbers (-7..6),
        each once, whose carrier (GLONASS k: IF + k 562.5 kHz) with the Doppler window
        lies inside +-sample_rate_hz / 2; empty: all of the signal's that do (the
        others are logged).
    doppler_max_hz: Doppler window, doppler_center_hz +- this (>= 0).
    doppler_step_hz: Doppler bin spacing (> 0).
    coherent_periods: code periods per coherent integration (a whole number of code
        periods): GPS 1..20, GLONASS 1..10, Galileo 1 (up to 25 with galileo_pilot).
    noncoherent_dwells: K, coherent integrations summed in power (1..1000).
    false_alarm: probability that noise alone is detected somewhere in one
        satellite's grid, in (0, 1).
    max_channels: most satellites tracked at once (>= 1).
    satellites_per_search: satellites in one search (>= 1), round robin.
    channel_parameters: dict of the correlator's tracking keys added to every
        detection (pll_bandwidth_hz, fll_bandwidth_hz, dll_bandwidth_hz,
        tap_offsets_chips, cn0_epochs, cn0_lock_threshold_dbhz, ...), or None.
    first_channel_id: first channel id the block allocates (ids count up from it).
    doppler_center_hz: centre of the Doppler window.
    intermediate_frequency_hz: where the carrier lies in the stream, |IF| < fs / 2.
    galileo_pilot: Galileo, search the E1-C pilot alone (for coherent_periods > 1).
    device: "auto", "cpu", "cuda" or "cuda:N".
    stream_mode: "live" (an SDR: never hold the stream back, drop samples while a
        search runs) or "recording" (a file or any finite stream: every sample
        searched, the stream waits for each search).
    galileo_channel_system: the "system" of a Galileo detection's channel:
        "galileo_e1c" (the pilot) or "galileo_e1b" (the data code, whose I/NAV the
        telemetry decoder reads); the search is the same.

Raises:
    ValueError: a parameter is out of range (the message names it).
    RuntimeError: CUDA was asked for but no such device exists.)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_sc = R"doc(Continuous PCPS acquisition on interleaved int16 I/Q (sc16, no scaling); parameters as pcps_acquisition_cc.)doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_sc_pcps_acquisition_sc = R"doc()doc";


static const char* __doc_gr_cudadsp_pcps_acquisition_sc_make = R"doc(Make a continuous acquisition block on sc16 input; arguments as pcps_acquisition_cc.)doc";
