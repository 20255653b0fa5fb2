/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of cross_correlator_cc (written by hand; used as
  the docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_cross_correlator_cc = R"doc(Frame-by-frame linear cross-correlation of two complex streams: sub-sample lag, normalised magnitude and phase of the peak.

Inputs: port 0 x, port 1 y (complex samples). Every fft_len samples of each make one
frame; per frame each output carries one item:
  0 (float): lag of the peak in samples, resolution 1/interp; positive when x is y
    delayed (x[n] ~ y[n - lag]);
  1 (float): |r(lag)| / sqrt(E_x E_y), in [0, 1];
  2 (float): arg r(lag), radians in (-pi, pi] (feed phase_unwrap_ff for a continuous
    phase difference);
  with spectrum_output, next port (complex vector of transform_len): the cross-spectrum
    X conj(Y) in FFT order;
  with correlation_output, next port (complex vector of 2 max_lag + 1): the correlation
    r[-max_lag .. max_lag].
r[l] = sum_n x[n] conj(y[n - l]); frames are zero-padded to transform_len (the smallest
power of two >= 2 fft_len), so the correlation is linear, not circular. The lag is the
largest |r| over |l| <= max_lag, refined by band-limited interpolation on a grid of
1/interp sample. Input tags go to the frame holding the tagged sample, on every output.
Definitions: docs/blocks/cross_correlator_cc.md.)doc";


static const char* __doc_gr_cudadsp_cross_correlator_cc_cross_correlator_cc = R"doc()doc";


static const char* __doc_gr_cudadsp_cross_correlator_cc_make = R"doc(Make a cross-correlator block.

Args:
    fft_len: samples per frame (>= 2).
    interp: sub-sample resolution: lags resolved to 1/interp sample (>= 1).
    max_lag: largest |lag| searched and output (1 .. fft_len - 1); 0 for fft_len - 1.
    spectrum_output: add an output port with the cross-spectrum.
    correlation_output: add an output port with the correlation vector.
    device: "auto", "cpu", "cuda" or "cuda:N".

Raises:
    ValueError: a parameter is out of range (the message names it).
    RuntimeError: CUDA was asked for but no such device exists.)doc";


static const char* __doc_gr_cudadsp_cross_correlator_cc_upstream_buffer_items = R"doc(Samples the upstream buffers should hold for full GPU batches (two batches of frames).

Set it as the minimum output buffer of the blocks feeding both inputs (GRC: Advanced >
Min Output Buffer); smaller buffers give smaller GPU launches and a warning at start.)doc";
static const char* __doc_gr_cudadsp_cross_correlator_cc_transform_len = R"doc(Transform length L: cross-spectrum bins per frame (the smallest power of two >= 2 fft_len).)doc";
static const char* __doc_gr_cudadsp_cross_correlator_cc_correlation_len = R"doc(Elements of the correlation vector per frame: 2 max_lag + 1.)doc";
static const char* __doc_gr_cudadsp_cross_correlator_cc_backend = R"doc(The backend in use: "cpu" or "cuda:N".)doc";
