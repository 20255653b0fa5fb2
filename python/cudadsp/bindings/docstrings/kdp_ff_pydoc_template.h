/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of kdp_ff (written by hand; used as the
  docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_kdp_ff = R"doc(Specific differential phase (KDP) and processed PhiDP along radials.

Inputs: port 0 PhiDP (degrees, wrapped to (-180, 180]); with use_rhohv the next port
is RhoHV, with use_snr the next one SNR (dB). Each item is one radial of ngates floats.
Outputs per radial: 0 the processed PhiDP (unfolded and filtered, degrees, continuous
along the radial), 1 KDP (deg/km).

Gates with a NaN PhiDP, or RhoHV / SNR below the thresholds where those inputs are
used, are masked; gaps of at most max_gap_km are interpolated over, longer ones break
the radial. KDP is half the slope of a least-squares line fitted over window_km of
range (CSU's Bringi filter uses 3 km). NaN where not computable. Every input tag is
passed once to both outputs on the same radial. See docs/blocks/kdp_ff.md.)doc";


static const char* __doc_gr_cudadsp_kdp_ff_kdp_ff = R"doc()doc";


static const char* __doc_gr_cudadsp_kdp_ff_make = R"doc(Make a KDP block.

Args:
    ngates: range gates per radial (>= 1).
    gate_spacing_m: gate spacing, metres (> 0).
    window_km: length of the range filter, km: round(window_km / (2 gate spacing))
        gates on each side of a gate, at least 1, fewer than ngates.
    max_gap_km: longest run of masked gates interpolated over, km (>= 0).
    use_rhohv: an RhoHV input follows PhiDP.
    use_snr: an SNR input (dB) follows (after RhoHV when both are used).
    min_rhohv: gates with RhoHV below this are masked, in [0, 1].
    min_snr_db: gates with SNR below this (dB) are masked.
    device: "auto", "cpu", "cuda" or "cuda:N".

Raises:
    ValueError: a parameter is out of range (the message names it).
    RuntimeError: CUDA was asked for but no such device exists.)doc";


static const char* __doc_gr_cudadsp_kdp_ff_half_window_gates = R"doc(Gates on each side of a gate in the least-squares window (h; 2h + 1 in all).)doc";


static const char* __doc_gr_cudadsp_kdp_ff_backend = R"doc(The backend in use: "cpu" or "cuda:N".)doc";
