/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of gnss_observables (written by hand; used as the
  docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_gnss_observables = R"doc(GNSS observables at common receiver epochs: the telemetry decoder's "navigation" messages
in, each epoch's pseudorange, carrier phase, Doppler and C/N0 per satellite out on
"observables" ({type: epoch, receiver_time_ms, sample_index, observations}), GPS and
Galileo satellites alike, with the decoder's navigation data (ephemeris, iono_utc,
galileo_ephemeris, galileo_iono_health) passed on in its place.
See docs/blocks/gnss_observables.md.)doc";


static const char* __doc_gr_cudadsp_gnss_observables_gnss_observables = R"doc()doc";


static const char* __doc_gr_cudadsp_gnss_observables_make = R"doc(Make a GNSS observables block.

Args:
    sample_rate_hz: the correlator's input sample rate (> 0).
    rate_hz: epochs per second; 1000 / rate_hz a whole number of ms, 20 or more.)doc";


static const char* __doc_gr_cudadsp_gnss_observables_epochs = R"doc(Epochs published so far.)doc";


static const char* __doc_gr_cudadsp_gnss_observables_refused_states = R"doc(States refused (out of time order, a bad message), each logged.)doc";

