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
5 RhoHV, 6 SNRh (dB); optional (connect them or not): 7 CLUT, clutter power removed
from H (dB), 8 CPA, clutter phase alignment of H. Below snr_threshold_db, outputs 0 to
5 are NaN.
Tags on every connected output at every radial: "radial_index" (uint64),
"azimuth_deg", "elevation_deg", "time_s" (double, at the radial's centre pulse) and
"sweep_index" (uint64), from the input tags "azimuth_deg", "elevation_deg" and
"rx_time" on input 0, else from the simple scan (scan_start_azimuth_deg,
scan_elevation_deg, antenna_rate_deg_s; set_scan(); message port "scan"). Other input
tags pass to the radial holding the tagged pulse.
Formulas: docs/blocks/polarimetric_products_cf.md.)doc";


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
    clutter_filter: ground-clutter filter on the pulses of every gate, H and V:
        "none", "regression" or "gmap".
    clutter_only_where_detected: filter only gates whose clutter phase alignment
        (output 8) reaches cpa_threshold; False: every gate.
    cpa_threshold: clutter phase alignment taken as clutter, in (0, 1].
    antenna_rate_deg_s: azimuth scan rate, deg/s (0 to 3600): the clutter spectrum's width
        and the rate at which the azimuth advances.
    beamwidth_deg: one-way 3-dB antenna beamwidth, degrees (> 0).
    invert_velocity: negate the radial velocity (opposite Doppler sign convention).
    invert_phidp: negate the differential phase (opposite PhiDP sign convention).
    scan_start_azimuth_deg: simple scan: azimuth of the first pulse, degrees, in
        [-360, 360].
    scan_elevation_deg: simple scan: elevation, degrees in [-90, 90].

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
static const char* __doc_gr_cudadsp_polarimetric_products_cf_set_scan = R"doc(The simple scan from the next radial processed.

The azimuth starts at start_azimuth_deg (in [-360, 360]) on that radial's first pulse
and turns at rate_deg_s (0 to 3600); the elevation is elevation_deg (in [-90, 90]). Input tags, once seen,
take precedence. The clutter filter keeps the antenna rate given to the constructor.
Raises ValueError naming the argument (the old values stay). The message port "scan"
takes a dict with any of these keys.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_scan_start_azimuth_deg = R"doc(The simple scan's start azimuth, degrees.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_scan_elevation_deg = R"doc(The simple scan's elevation, degrees.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_scan_rate_deg_s = R"doc(The rate at which the azimuth advances, deg/s.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_clutter_filter = R"doc(The clutter filter: "none", "regression" or "gmap".)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_clutter_only_where_detected = R"doc(Whether only gates detected as clutter are filtered.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_cpa_threshold = R"doc(The clutter phase alignment taken as clutter.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_antenna_rate_deg_s = R"doc(The antenna rate the clutter filter uses, deg/s.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_beamwidth_deg = R"doc(The one-way 3-dB antenna beamwidth, degrees.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_invert_velocity = R"doc(Whether the radial velocity is negated.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_invert_phidp = R"doc(Whether the differential phase is negated.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_nyquist_velocity = R"doc(Largest unambiguous velocity, m/s: lambda/(4 PRT), or lambda/(8 PRT) in alternating mode.)doc";
static const char* __doc_gr_cudadsp_polarimetric_products_cf_backend = R"doc(The backend in use: "cpu" or "cuda:N".)doc";
