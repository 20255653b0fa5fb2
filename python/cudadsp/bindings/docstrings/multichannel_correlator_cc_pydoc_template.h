/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of the multichannel GNSS correlator blocks
  (written by hand; used as the docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_gnss_state_field = R"doc(Index of each field in a record of the "state" output (float64 vector of gnss_state_field_count values); cudadsp.gnss_records() turns those vectors into a NumPy structured array with these names.)doc";


static const char* __doc_gr_cudadsp_gnss_channels_pmt = R"doc(A channel description (dict), a list of them, or ids, as the PMT the "add", "reinit" and "remove" message ports take: dict -> PMT dict, list / tuple / NumPy array -> PMT vector, integers (NumPy too) -> integer, floats -> real, str -> symbol, None -> PMT_NIL. Use it to post messages from Python or to build them in GRC.)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_base = R"doc(Common interface of multichannel_correlator_cc, _sc and _bc.

N channels x T taps of GNSS carrier and code wipe-off over one input stream, each
channel open-loop or tracking with its own PLL/FLL/DLL. Every completed epoch of every
channel gives one record: one item on output 0 ("taps": T complex correlations in tap
order) and one on output 1 ("state": gnss_state_field_count float64 values, the fields
of gnss_state_field). A work() call's records are in ascending channel id.

Channels are dicts (docs/blocks/multichannel_correlator_cc.md lists the keys), e.g.
    {"id": 7, "prn": 1, "code_phase_chips": 888.99, "doppler_hz": 1680.0,
     "start_sample": 0}
given at construction, with add_channels / reinit_channels / remove_channels, or as
messages on the "add", "reinit" and "remove" ports; changes apply at the next work()
call. Each applied change (or failure) is published on the "events" port and tags
the next record "channel_event".)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_base_add_channels = R"doc(Queue channels to add: a dict or a list of dicts, all or nothing. ValueError, and nothing queued, when a description is bad, an id is used twice or already in use, or the channels would exceed max_channels (checked against the channels there will be once the changes already queued are applied); the message names the count of refused items and the first three (channels[i].key: rule). Nesting deeper than 8 levels is refused.)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_base_reinit_channels = R"doc(Queue replacements of existing channels (fresh NCOs and loops, epoch count 0, the partial epoch dropped): a dict or a list of dicts, as add_channels.)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_base_remove_channels = R"doc(Queue removals: an id, a dict with "id", a list of those, or "all"; all or nothing as add_channels (every id must exist).)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_base_channel_ids = R"doc(Ids of the channels running now, ascending (queued changes not included).)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_base_pending_changes = R"doc(Changes queued and not yet applied (they apply at the next work() call).)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_base_samples_processed = R"doc(Input samples correlated so far: the absolute index of the next sample.)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_base_sample_rate_hz = R"doc(The input sample rate, Hz.)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_base_taps = R"doc(Taps per channel, T.)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_base_tap_offsets_chips = R"doc(The block's default tap offsets, chips (code delay relative to the prompt; negative = early).)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_base_max_channels = R"doc(Channel capacity.)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_base_input_format = R"doc("cf32", "ci16" or "ci8".)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_base_backend = R"doc(The backend in use: "cpu" or "cuda:N".)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_cc = R"doc(Multichannel GNSS correlator on a complex float (gr_complex) stream. See multichannel_correlator_base and docs/blocks/multichannel_correlator_cc.md.)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_sc = R"doc(Multichannel GNSS correlator on interleaved int16 I/Q (item: two int16, GRC "sc16", as UHD's sc16). Correlations are in the integers' units (no scaling).)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_bc = R"doc(Multichannel GNSS correlator on interleaved int8 I/Q (item: two int8, GRC "sc8"). Correlations are in the integers' units (no scaling).)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_cc_make = R"doc(Make a multichannel GNSS correlator (complex float input).

Args:
    sample_rate_hz: input sample rate (> 0).
    tap_offsets_chips: the channels' default tap offsets, chips, code delay relative
        to the prompt (negative = early); their number is the tap count T (1 to 64).
        A channel's early, prompt and late taps default to the offset nearest 0 and
        its nearest neighbours below and above.
    max_channels: channel capacity (>= 1); also sizes the output buffers.
    channels: initial channels, a dict or a list of dicts (or a PMT); None for none.
    intermediate_frequency_hz: the channels' default IF (|IF| < fs / 2).
    batch_ms: on the CUDA backend, milliseconds of input a call gathers before it
        launches (> 0): larger batches, more latency; the most a call takes on the CPU.
    device: "auto", "cpu", "cuda" or "cuda:N".

Raises:
    ValueError: a parameter or a channel is out of range or malformed (the message
        names it, e.g. "channels[2].prn").
    RuntimeError: CUDA was asked for but no such device exists.)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_sc_make = R"doc(Make a multichannel GNSS correlator on interleaved int16 input; arguments as multichannel_correlator_cc.)doc";


static const char* __doc_gr_cudadsp_multichannel_correlator_bc_make = R"doc(Make a multichannel GNSS correlator on interleaved int8 input; arguments as multichannel_correlator_cc.)doc";
