/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of polarimetric_products_cf (written by hand; used
  as the docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_polarimetric_products_cf = R"doc(Weather-radar moments and polarimetric products from dual-pol I/Q pulses.

Inputs: port 0 H, port 1 V; one item = one pulse, a vector of ngates complex samples
(alternating mode: port 0 co-polar, port 1 cross-polar receive; the first pulse of each
radial is an H pulse). Every pulses_per_radial pulses make one radial.
Outputs (one float vector of ngates per radial): 0 Zh (dBZ), 1 ZDR (dB), 2 radial
velocity (m/s, positive away), 3 spectrum width (m/s), 4 PhiDP (deg, (-180, 180]),
5 RhoHV, 6 SNRh (dB). Below snr_threshold_db, outputs 0 to 5 are NaN.
Tags: "radial_index" (uint64) on every output radial; input tags pass to the radial
holding the tagged pulse. Formulas: docs/blocks/polarimetric_products_cf.md.)doc";


static const char* __doc_gr_cudadsp_polarimetric_products_cf_polarimetric_products_cf = R"doc()doc";


static const char* __doc_gr_cudadsp_polarimetric_products_cf_make = R"doc(Make a polarimetric product block.

Args:
    ngates: range gates per pulse (>= 1).
    pulses_per_radial: pulses per radial (>= 2; alternating: even and >= 4).
    wavelength_m: radar wavelength in metres (> 0).
    prt_s: pulse repetition time in seconds (> 0).
    first_gate_m: range of gate 0 in metres (>= 0).
    gate_spacing_m: gate spacing in metres (> 0).
    zcal_db: added to Zh (radar constant), dB.
    zdr_cal_db: added to ZDR, dB.
    phidp_offset_deg: system differential phase, subtracted from PhiDP.
    noise_h, noise_v: noise powers in units of |x|^2 (>= 0).
    snr_threshold_db: censoring threshold on SNRh, dB.
    mode: "simultaneous" or "alternating".
    device: "auto", "cpu", "cuda" or "cuda:N".

Raises:
    ValueError: a parameter is out of range (the message names it).
    RuntimeError: CUDA was asked for but no such device exists.)doc";


static const char* __doc_gr_cudadsp_polarimetric_products_cf_upstream_buffer_pulses = R"doc(Pulses the upstream buffers should hold for full GPU batches (two batches of radials).

Set it as the minimum output buffer of the block feeding this one (GRC: Advanced >
Min Output Buffer); smaller buffers give smaller GPU launches and a warning at start.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_set_zcal_db = R"doc(Reflectivity calibration (dB) from the next radial processed.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_set_zdr_cal_db = R"doc(ZDR calibration (dB) from the next radial processed.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_set_phidp_offset_deg = R"doc(System differential phase (deg) from the next radial processed.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_set_noise_h = R"doc(H noise power (>= 0, units of |x|^2) from the next radial processed.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_set_noise_v = R"doc(V noise power (>= 0, units of |x|^2) from the next radial processed.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_set_snr_threshold_db = R"doc(Censoring threshold on SNRh (dB) from the next radial processed.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_zcal_db = R"doc(The reflectivity calibration, dB.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_zdr_cal_db = R"doc(The ZDR calibration, dB.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_phidp_offset_deg = R"doc(The system differential phase, degrees.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_noise_h = R"doc(The H noise power.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_noise_v = R"doc(The V noise power.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_snr_threshold_db = R"doc(The censoring threshold on SNRh, dB.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_nyquist_velocity = R"doc(Largest unambiguous velocity, m/s: lambda/(4 PRT), or lambda/(8 PRT) in alternating mode.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_backend = R"doc(The backend in use: "cpu" or "cuda:N".)doc";
