#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Block tests of cudadsp.polarimetric_products_cf, inside flowgraphs.

Two independent oracles, neither of them the block's own code:

* a float64 numpy reference of the estimator formulas of the block's definition
  (moments() and products() below, written from the definitions, not from the C++):
  the block must match it to the precision of float64 sums rounded to float32;
* physical truth: echoes simulated by weather_echo with known Zh, ZDR, velocity, width,
  PhiDP, RhoHV and SNR. The estimators are random variables; their mean and standard
  deviation are predicted by theory (moment_statistics() and delta_method()), not by
  Monte Carlo, and the block's outputs over many radials must agree with them.

The theory: every moment the products use (P_h, R1_h, C, ...) is a quadratic form
z^H A z of the radial's samples z at one gate, a circular complex Gaussian vector of
known covariance C (weather_echo.model_covariance). For such forms
    E[z^H A z] = tr(A C),
    E[(Q_A - E Q_A) conj(Q_B - E Q_B)] = tr(A C B^H C),
    E[(Q_A - E Q_A) (Q_B - E Q_B)] = tr(A C B C)
(Isserlis' theorem; checked against Monte Carlo in qa_polarimetric_theory). A product
is a smooth function f of the moments, so to first order its variance is
g^T Sigma g (g the gradient of f in the real and imaginary parts of the moments, Sigma
their covariance), and to second order its bias is tr(H Sigma) / 2 (H the Hessian).

Every test runs on device="cpu"; the *_cuda classes repeat them on "cuda" when a CUDA
device is present and are skipped otherwise.
"""

import math
import os
import sys
import unittest

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import cudadsp
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp

from cudadsp.radar import weather_echo

from gnuradio.cudadsp.common.qa_log_capture import captured_output  # a test helper

LAMBDA = 0.0531  # C band, m
FLT_MAX_SQUARED = float(np.finfo(np.float32).max) ** 2  # the noise powers' bound
PRT = 1e-3  # s
PRODUCTS = ("Zh", "ZDR", "V", "W", "PhiDP", "RhoHV", "SNRh")
ZH, ZDR, VEL, WIDTH, PHIDP, RHOHV, SNRH = range(len(PRODUCTS))
# The optional outputs 7 and 8, after the seven mandatory ones.
CLUTTER_PRODUCTS = ("CLUT", "CPA")
CLUT, CPA = len(PRODUCTS), len(PRODUCTS) + 1
# The block's own per-radial tags besides radial_index.
GEOMETRY_KEYS = ("azimuth_deg", "elevation_deg", "time_s", "sweep_index")
DB = 10.0 / math.log(10.0)  # dB per unit of relative power error
# Precision asked of the block against the reference: 1e-5 relative on every
# correlation it sums (the block sums in float64, so the true error is far smaller).
EPS = 1e-5
# One float32 ulp, relative: the outputs are float32 roundings of float64 values.
ULP32 = 2.0 ** -23


# --------------------------------------------------------------------------------------
# Reference (float64, from the block's definition)
# --------------------------------------------------------------------------------------
def block_config(**overrides):
    """The block's constructor arguments but device: its defaults, updated by overrides."""
    cfg = {
        "ngates": 1,
        "pulses_per_radial": 36,
        "wavelength_m": LAMBDA,
        "prt_s": PRT,
        "first_gate_m": 0.0,
        "gate_spacing_m": 150.0,
        "zcal_db": 0.0,
        "zdr_cal_db": 0.0,
        "phidp_offset_deg": 0.0,
        "noise_h": 0.0,
        "noise_v": 0.0,
        "snr_threshold_db": -1e9,
        "mode": "simultaneous",
    }
    unknown = set(overrides) - set(cfg)
    if unknown:
        raise KeyError(f"not block parameters: {sorted(unknown)}")
    cfg.update(overrides)
    return cfg


def nyquist(cfg):
    return weather_echo.nyquist_velocity(cfg["wavelength_m"], cfg["prt_s"], cfg["mode"])


def gate_range_m(cfg, gate):
    return cfg["first_gate_m"] + gate * cfg["gate_spacing_m"]


def wrap(x, period):
    """x wrapped to (-period/2, period/2]."""
    return x - period * np.ceil((np.asarray(x) - period / 2) / period)


def moments(port0, port1, cfg):
    """The moments of every complete radial, float64, each shaped (nradials, ngates).

    port0, port1: the block's complex64 inputs as (pulses, ngates) arrays; pulses after
    the last complete radial are ignored, as the block must ignore them.
    """
    m = cfg["pulses_per_radial"]
    nradials = port0.shape[0] // m

    def radials(x):
        x = np.asarray(x[:nradials * m], dtype=np.complex64).astype(np.complex128)
        return x.reshape(nradials, m, -1)

    def mean_power(x):
        return np.mean(np.abs(x) ** 2, axis=1)

    def mean_lag(later, earlier):
        return np.mean(later * np.conj(earlier), axis=1)

    if cfg["mode"] == "simultaneous":
        h, v = radials(port0), radials(port1)
        return {
            "P_h": mean_power(h),
            "P_v": mean_power(v),
            "R1_h": mean_lag(h[:, 1:], h[:, :-1]),
            "R1_v": mean_lag(v[:, 1:], v[:, :-1]),
            "C": mean_lag(h, v),
        }
    co = radials(port0)
    h, v = co[:, 0::2], co[:, 1::2]  # co-polar receive of the H pulses, of the V pulses
    return {
        "P_h": mean_power(h),
        "P_v": mean_power(v),
        "C1": mean_lag(h, v),
        "C2": mean_lag(h[:, 1:], v[:, :-1]),
        "R2_h": mean_lag(h[:, 1:], h[:, :-1]),
        "R2_v": mean_lag(v[:, 1:], v[:, :-1]),
    }


def estimator_terms(mom, cfg):
    """The intermediate quantities of the definition, float64, from the moments.

    Returns a dict: s_h, s_v (noise-subtracted powers), psi (Doppler phase per PRT, rad),
    phidp_rad (before the offset), ratio (of the width estimator), width_scale (m/s per
    sqrt(ln ratio)), rhohv; in alternating mode also y = C1 e^{j psi} + C2 e^{-j psi}.
    """
    lam, prt = cfg["wavelength_m"], cfg["prt_s"]
    t = {}
    with np.errstate(all="ignore"):
        t["s_h"] = s_h = np.real(mom["P_h"]) - cfg["noise_h"]
        t["s_v"] = s_v = np.real(mom["P_v"]) - cfg["noise_v"]
        if cfg["mode"] == "simultaneous":
            r1 = mom["R1_h"] + mom["R1_v"]
            t["psi"] = np.angle(r1)
            t["phidp_rad"] = np.angle(mom["C"])
            t["ratio"] = (s_h + s_v) / np.abs(r1)
            t["width_scale"] = lam / (2.0 * math.sqrt(2.0) * math.pi * prt)
            t["rhohv"] = np.abs(mom["C"]) / np.sqrt(s_h * s_v)
        else:
            c1, c2 = mom["C1"], mom["C2"]
            t["psi"] = psi = 0.5 * np.angle(c2 * np.conj(c1))
            t["y"] = c1 * np.exp(1j * psi) + c2 * np.exp(-1j * psi)
            t["phidp_rad"] = np.angle(t["y"])
            t["ratio"] = ratio = (s_h + s_v) / (np.abs(mom["R2_h"]) + np.abs(mom["R2_v"]))
            t["width_scale"] = lam / (4.0 * math.sqrt(2.0) * math.pi * prt)
            rho_t = np.where(ratio > 1.0, ratio ** -0.25, 1.0)
            t["rhohv"] = (np.abs(c1) + np.abs(c2)) / (2.0 * np.sqrt(s_h * s_v) * rho_t)
    return t


def products(mom, cfg):
    """The seven products, float64, shaped (7,) + the moments' shape (last axis: gates).

    mom: moments as returned by moments(), or scalars (then the gate is gate 0).
    Censoring, infinities and NaN follow the definition (IEEE arithmetic where it says so).
    """
    t = estimator_terms(mom, cfg)
    s_h, s_v, noise_h = t["s_h"], t["s_v"], cfg["noise_h"]
    with np.errstate(all="ignore"):
        velocity = -cfg["wavelength_m"] / (4.0 * math.pi * cfg["prt_s"]) * t["psi"]
        width = np.where(t["ratio"] > 1.0, t["width_scale"] * np.sqrt(np.log(t["ratio"])), 0.0)
        phidp = wrap(np.degrees(t["phidp_rad"]) - cfg["phidp_offset_deg"], 360.0)
        if noise_h > 0:
            snr = np.where(s_h > 0, 10.0 * np.log10(s_h / noise_h), -np.inf)
        else:
            snr = np.where(s_h > 0, np.inf, -np.inf)
        gate = np.arange(np.shape(s_h)[-1]) if np.ndim(s_h) else 0
        r_km = gate_range_m(cfg, gate) / 1000.0
        zh = 10.0 * np.log10(s_h) + cfg["zcal_db"] + 20.0 * np.log10(r_km)
        zdr = 10.0 * np.log10(s_h / s_v) + cfg["zdr_cal_db"]
        out = np.array(np.broadcast_arrays(zh, zdr, velocity, width, phidp, t["rhohv"], snr))
        out[:SNRH, ~(out[SNRH] >= cfg["snr_threshold_db"])] = np.nan
    return out


def reference_tolerances(mom, ref, cfg):
    """Absolute tolerance of every reference value, for EPS relative error on every sum.

    Each bound carries a relative error EPS of every moment (relative to the power scale
    of the moment) through the formulas to first order, with their conditioning where it
    can be large: noise subtraction (P + N) / |P - N|, the phase of a small correlation,
    sqrt(ln ratio) near ratio = 1. Plus one float32 ulp of the value.
    Returns (tolerances shaped like ref, phidp_period): phidp_period is 360 where PhiDP is
    compared modulo 360 and 180 where (alternating mode) arg(C2 conj C1) is so close to
    +-pi that psi may flip by pi, which turns PhiDP by 180 degrees.
    """
    t = estimator_terms(mom, cfg)
    p_h, p_v = mom["P_h"], mom["P_v"]
    noise_h, noise_v = cfg["noise_h"], cfg["noise_v"]
    phidp_period = np.full(p_h.shape, 360.0)
    with np.errstate(all="ignore"):
        kappa_h = (p_h + noise_h) / np.abs(p_h - noise_h)
        kappa_v = (p_v + noise_v) / np.abs(p_v - noise_v)
        kappa_s = (p_h + p_v + noise_h + noise_v) / np.abs(p_h + p_v - noise_h - noise_v)
        scale_hv = np.sqrt(p_h * p_v)
        if cfg["mode"] == "simultaneous":
            r1 = np.abs(mom["R1_h"] + mom["R1_v"])
            d_psi = EPS * (p_h + p_v) / r1
            d_phi = EPS * scale_hv / np.abs(mom["C"])
            d_ln_ratio = EPS * (kappa_s + (p_h + p_v) / r1)
            rho_rel = EPS * (scale_hv / np.abs(mom["C"]) + 0.5 * (kappa_h + kappa_v))
        else:
            a1, a2 = np.abs(mom["C1"]), np.abs(mom["C2"])
            d_psi = 0.5 * EPS * scale_hv * (1.0 / a1 + 1.0 / a2)
            d_phi = (2.0 * EPS * scale_hv + (a1 + a2) * d_psi) / np.abs(t["y"])
            near_flip = math.pi - np.abs(np.angle(mom["C2"] * np.conj(mom["C1"]))) <= 4.0 * d_psi
            phidp_period[near_flip] = 180.0
            r2 = np.abs(mom["R2_h"]) + np.abs(mom["R2_v"])
            d_ln_ratio = EPS * (kappa_s + (p_h + p_v) / r2)
            rho_rel = (EPS * (2.0 * scale_hv / (a1 + a2) + 0.5 * (kappa_h + kappa_v))
                       + 0.25 * d_ln_ratio)
        ln_ratio = np.log(t["ratio"])
        tol = np.empty_like(ref)
        tol[ZH] = tol[SNRH] = DB * EPS * kappa_h
        tol[ZDR] = DB * EPS * (kappa_h + kappa_v)
        tol[VEL] = cfg["wavelength_m"] / (4.0 * math.pi * cfg["prt_s"]) * np.minimum(d_psi, math.pi)
        tol[PHIDP] = np.degrees(np.minimum(d_phi, math.pi))
        tol[RHOHV] = rho_rel * np.abs(ref[RHOHV])
        # sqrt(max(x, 0)) moves by at most this when x = ln(ratio) moves by d_ln_ratio.
        tol[WIDTH] = t["width_scale"] * (np.sqrt(np.maximum(ln_ratio + d_ln_ratio, 0.0))
                                         - np.sqrt(np.maximum(ln_ratio - d_ln_ratio, 0.0)))
        tol += ULP32 * np.abs(np.where(np.isfinite(ref), ref, 0.0))
    return tol, phidp_period


# --------------------------------------------------------------------------------------
# Theory: mean and standard deviation of the estimators under the signal model
# --------------------------------------------------------------------------------------
def moment_matrices(m, mode):
    """The matrices A with moment = z^H A z, by name, in the order of moments().

    z is the radial's sample vector at one gate as in weather_echo.model_covariance:
    [h, v] (2M) in simultaneous mode, the co-polar series (M) in alternating mode.
    """

    def quadratic_form(size, pairs):
        """A for mean over pairs (i, j) of z[i] conj(z[j])."""
        a = np.zeros((size, size))
        for i, j in pairs:
            a[j, i] += 1.0 / len(pairs)
        return a

    if mode == "simultaneous":
        d = 2 * m
        return {
            "P_h": quadratic_form(d, [(n, n) for n in range(m)]),
            "P_v": quadratic_form(d, [(m + n, m + n) for n in range(m)]),
            "R1_h": quadratic_form(d, [(n + 1, n) for n in range(m - 1)]),
            "R1_v": quadratic_form(d, [(m + n + 1, m + n) for n in range(m - 1)]),
            "C": quadratic_form(d, [(n, m + n) for n in range(m)]),
        }
    half = m // 2
    return {
        "P_h": quadratic_form(m, [(2 * n, 2 * n) for n in range(half)]),
        "P_v": quadratic_form(m, [(2 * n + 1, 2 * n + 1) for n in range(half)]),
        "C1": quadratic_form(m, [(2 * n, 2 * n + 1) for n in range(half)]),
        "C2": quadratic_form(m, [(2 * n + 2, 2 * n + 1) for n in range(half - 1)]),
        "R2_h": quadratic_form(m, [(2 * n + 2, 2 * n) for n in range(half - 1)]),
        "R2_v": quadratic_form(m, [(2 * n + 3, 2 * n + 1) for n in range(half - 1)]),
    }


def moment_statistics(cov, matrices):
    """Exact mean and covariance of the moments z^H A z of z ~ CN(0, cov).

    Returns (mean, real_cov): mean complex, one per moment; real_cov the covariance of
    the real vector [Re m_0, Im m_0, Re m_1, Im m_1, ...], from
    gamma_kl = E[dm_k conj(dm_l)] = tr(A_k C A_l^H C) and pi_kl = E[dm_k dm_l] = tr(A_k C A_l C).
    """
    a = list(matrices.values())
    d = a[0].shape[0]
    c = cov[:d, :d]
    ac = [ak @ c for ak in a]
    mean = np.array([np.trace(x) for x in ac])
    gamma = np.array([[np.trace(x @ al.conj().T @ c) for al in a] for x in ac])
    pseudo = np.array([[np.trace(x @ y) for y in ac] for x in ac])
    k = len(a)
    real_cov = np.empty((2 * k, 2 * k))
    real_cov[0::2, 0::2] = (gamma.real + pseudo.real) / 2  # Re, Re
    real_cov[1::2, 1::2] = (gamma.real - pseudo.real) / 2  # Im, Im
    real_cov[0::2, 1::2] = (pseudo.imag - gamma.imag) / 2  # Re, Im
    real_cov[1::2, 0::2] = (pseudo.imag + gamma.imag) / 2  # Im, Re
    return mean, real_cov


def delta_method(error_of_moments, names, mean, real_cov, step=1e-3):
    """First-order standard deviation and second-order bias of error_of_moments(moments).

    error_of_moments: dict of moments -> array of errors (smooth near the mean).
    names, mean, real_cov: the moments and their statistics (moment_statistics()).
    Derivatives are central differences in the standardised coordinates
    t = (u - E u) / sd(u) of the real parts u, where the error is well scaled; components
    of zero variance (the imaginary parts of the powers) do not vary.
    Returns (error at the mean, std, bias), arrays like error_of_moments' result.
    """
    sd = np.sqrt(np.clip(np.diag(real_cov), 0.0, None))
    live = np.flatnonzero(sd > 0)
    corr = real_cov[np.ix_(live, live)] / np.outer(sd[live], sd[live])
    u0 = np.column_stack([mean.real, mean.imag]).ravel()

    def error_at(t):
        u = u0.copy()
        u[live] += t * sd[live]
        return np.asarray(error_of_moments({k: u[2 * i] + 1j * u[2 * i + 1]
                                            for i, k in enumerate(names)}))

    n = live.size
    e = np.eye(n) * step
    e0 = error_at(np.zeros(n))
    grad = np.empty((n,) + e0.shape)
    hess = np.empty((n, n) + e0.shape)
    for i in range(n):
        plus, minus = error_at(e[i]), error_at(-e[i])
        grad[i] = (plus - minus) / (2 * step)
        hess[i, i] = (plus - 2 * e0 + minus) / step ** 2
        for j in range(i):
            hess[i, j] = hess[j, i] = (error_at(e[i] + e[j]) - error_at(e[i] - e[j])
                                       - error_at(e[j] - e[i]) + error_at(-e[i] - e[j])) / (
                                           4 * step ** 2)
    std = np.sqrt(np.einsum("i...,ij,j...->...", grad, corr, grad))
    bias = 0.5 * np.einsum("ij...,ij->...", hess, corr)
    return e0, std, bias


def true_products(cfg, gate, p):
    """What the block should report without estimation error, at gate index `gate`.

    p: the simulator parameters of the gate (s_h, zdr_db, velocity_ms, width_ms,
    phidp_deg, rhohv, noise_h); the block's calibration in cfg is applied as it would.
    """
    with np.errstate(divide="ignore"):
        snr = 10.0 * np.log10(p["s_h"] / p["noise_h"]) if p["noise_h"] > 0 else np.inf
    return np.array([
        weather_echo.reflectivity_from_power(p["s_h"], gate_range_m(cfg, gate), cfg["zcal_db"]),
        p["zdr_db"] + cfg["zdr_cal_db"],
        wrap(p["velocity_ms"], 2.0 * nyquist(cfg)),
        p["width_ms"],
        wrap(p["phidp_deg"] - cfg["phidp_offset_deg"], 360.0),
        p["rhohv"],
        snr,
    ])


def product_errors(values, truth, cfg):
    """values - truth, shaped like values (7, ...): velocity modulo 2 v_Nyquist, PhiDP
    modulo 360 degrees, so that an estimate next to the wrap point is a small error."""
    err = np.asarray(values, dtype=np.float64) - truth.reshape((7,) + (1,) * (np.ndim(values) - 1))
    err[VEL] = wrap(err[VEL], 2.0 * nyquist(cfg))
    err[PHIDP] = wrap(err[PHIDP], 360.0)
    return err


def estimator_theory(cfg, gate, p):
    """(truth, error at the expected moments, std, bias) of the 7 products at one gate."""
    gate_cfg = dict(cfg, first_gate_m=gate_range_m(cfg, gate))
    truth = true_products(cfg, gate, p)
    cov = weather_echo.model_covariance(
        cfg["pulses_per_radial"], wavelength_m=cfg["wavelength_m"], prt_s=cfg["prt_s"],
        mode=cfg["mode"], **p)
    matrices = moment_matrices(cfg["pulses_per_radial"], cfg["mode"])
    mean, real_cov = moment_statistics(cov, matrices)
    e0, std, bias = delta_method(lambda mom: product_errors(products(mom, gate_cfg), truth, cfg),
                                 list(matrices), mean, real_cov)
    return truth, e0, std, bias


# --------------------------------------------------------------------------------------
# Data and flowgraph helpers
# --------------------------------------------------------------------------------------
def random_echoes(rng, cfg, nradials, extra_pulses=0, noise_only_gates=()):
    """Simulated echoes with random parameters in every cell (radial, gate).

    Powers from 10^-0.5 to 10^3 (the block's noise_h, noise_v are the data's noise, so
    from below 0 dB to over 30 dB SNR), any ZDR, velocity within +-0.9 v_Nyquist, widths
    of 0.3 to 5 m/s (3 m/s alternating), any PhiDP, RhoHV 0.5 to 0.999; noise only in
    noise_only_gates. extra_pulses (< M) pulses of a partial radial follow the last one.
    Returns (port0, port1) as (pulses, ngates) complex64.
    """
    m, ngates = cfg["pulses_per_radial"], cfg["ngates"]
    shape = (nradials + 1, ngates)
    s_h = 10.0 ** rng.uniform(-0.5, 3.0, shape)
    s_h[:, list(noise_only_gates)] = 0.0
    port0, port1 = weather_echo.simulate_pulses(
        rng, nradials + 1, m,
        s_h=s_h,
        zdr_db=rng.uniform(-1.0, 4.0, shape),
        velocity_ms=rng.uniform(-0.9, 0.9, shape) * nyquist(cfg),
        width_ms=rng.uniform(0.3, 5.0 if cfg["mode"] == "simultaneous" else 3.0, shape),
        phidp_deg=rng.uniform(-180.0, 180.0, shape),
        rhohv=rng.uniform(0.5, 0.999, shape),
        noise_h=cfg["noise_h"],
        noise_v=cfg["noise_v"],
        wavelength_m=cfg["wavelength_m"],
        prt_s=cfg["prt_s"],
        mode=cfg["mode"],
        ngates=ngates,
    )
    keep = nradials * m + extra_pulses
    return port0[:keep], port1[:keep]


def make_tag(offset, key, value):
    return gr.tag_utils.python_to_tag((offset, pmt.intern(key), value, pmt.intern("qa")))


def make_block(cfg, device):
    return cudadsp.polarimetric_products_cf(**cfg, device=device)


def run_block(port0, port1, cfg, device="cpu", block=None, feeder_items=None,
              block_items=None, tags=((), ()), connected=len(PRODUCTS)):
    """port0, port1 -> polarimetric_products_cf -> vector sinks on its first outputs.

    port0, port1: (pulses, ngates) complex arrays. block: one already made (else one is
    made from cfg on device). feeder_items: when given, copy blocks capped at this many
    pulses per call feed the block, so that it sees calls of odd sizes (the cap is not
    put on the sources: a vector_source with tags makes its whole vector one output
    multiple). block_items: caps the radials per call of the block itself. tags: the tags
    of input ports 0 and 1. connected: how many outputs are connected (7 to 9).
    Returns (outputs (connected, radials, ngates) float32, per-port lists of output tags,
    block).
    """
    ngates = cfg["ngates"]
    blk = block if block is not None else make_block(cfg, device)
    if block_items is not None:
        blk.set_max_noutput_items(block_items)
    tb = gr.top_block()
    for port, data in enumerate((port0, port1)):
        src = blocks.vector_source_c(np.asarray(data, dtype=np.complex64).ravel().tolist(),
                                     False, ngates, list(tags[port]))
        if feeder_items is None:
            tb.connect(src, (blk, port))
        else:
            feeder = blocks.copy(gr.sizeof_gr_complex * ngates)
            feeder.set_max_noutput_items(feeder_items)
            tb.connect(src, feeder, (blk, port))
    sinks = [blocks.vector_sink_f(ngates) for _ in range(connected)]
    for port, snk in enumerate(sinks):
        tb.connect((blk, port), snk)
    tb.run()
    outputs = np.array([np.asarray(s.data(), dtype=np.float32).reshape(-1, ngates)
                        for s in sinks])
    return outputs, [s.tags() for s in sinks], blk


#: The fastest antenna the block takes, deg/s (docs/blocks/polarimetric_products_cf.md).
MAX_ANTENNA_RATE_DEG_S = 3600.0


def tag_list(tags, key=None):
    """Tags as sorted (offset, key, value as text), those of one key when key is given."""
    return sorted((int(t.offset), pmt.symbol_to_string(t.key), pmt.write_string(t.value))
                  for t in tags if key is None or pmt.symbol_to_string(t.key) == key)


def cuda_device_present():
    """Whether cudadsp reports a CUDA device (through 'auto' picking one)."""
    count = getattr(cudadsp, "cuda_device_count", None)
    if count is not None:
        return count() > 0
    return cudadsp.polarimetric_products_cf(1, device="auto").backend().startswith("cuda")


HAVE_CUDA = cuda_device_present()


class polar_case(gr_unittest.TestCase):
    """Shared checks; DEVICE is the backend the block runs on."""

    DEVICE = "cpu"

    def run_block(self, port0, port1, cfg, **kwargs):
        return run_block(port0, port1, cfg, device=self.DEVICE, **kwargs)

    def assert_matches_reference(self, out, port0, port1, cfg, label=""):
        """out (the block's outputs for port0, port1) against the float64 reference."""
        m, ngates = cfg["pulses_per_radial"], cfg["ngates"]
        nradials = port0.shape[0] // m
        label = f"{label} ({cfg['mode']}, ngates={ngates}, M={m}, radials={nradials})"
        self.assertEqual(out.shape, (len(PRODUCTS), nradials, ngates), f"{label}: outputs")
        mom = moments(port0, port1, cfg)
        ref = products(mom, cfg)
        tol, phidp_period = reference_tolerances(mom, ref, cfg)
        for p, name in enumerate(PRODUCTS):
            got, want = out[p].astype(np.float64), ref[p]
            bad = np.argwhere(np.isnan(got) != np.isnan(want))
            if bad.size:
                r, g = bad[0]
                self.fail(f"{label}: {name} NaN at {len(bad)} cells where the reference "
                          f"is not, or the reverse; first radial {r} gate {g}: "
                          f"block {got[r, g]!r}, reference {want[r, g]!r}")
            inf = np.isinf(got) | np.isinf(want)
            bad = np.argwhere(inf & (got != want))
            if bad.size:
                r, g = bad[0]
                self.fail(f"{label}: {name} infinite at radial {r} gate {g}: "
                          f"block {got[r, g]!r}, reference {want[r, g]!r}")
            finite = np.isfinite(want)
            diff = np.where(finite, got - np.where(finite, want, 0.0), 0.0)
            if p == VEL:
                diff = wrap(diff, 2.0 * nyquist(cfg))
            elif p == PHIDP:
                diff = wrap(diff, phidp_period)
            bad = np.argwhere(np.abs(diff) > tol[p])
            if bad.size:
                r, g = bad[0]
                self.fail(f"{label}: {name} differs at {len(bad)} cells; first radial {r} "
                          f"gate {g}: block {got[r, g]!r}, reference {want[r, g]!r}, "
                          f"tolerance {tol[p][r, g]:.3g}")
            if p == PHIDP:
                # Where the echo is strong and well correlated, the definition's float64
                # sums make PhiDP exact to far better than a thousandth of a degree.
                well = (ref[SNRH] >= 20.0) & (ref[RHOHV] >= 0.8) & finite
                if well.any():
                    self.assertLess(np.max(np.abs(diff[well])), 1e-3,
                                    f"{label}: PhiDP at high SNR")
        return ref


# --------------------------------------------------------------------------------------
# The theory itself (numpy only): it is the yardstick of the physical tests
# --------------------------------------------------------------------------------------
class qa_polarimetric_theory(gr_unittest.TestCase):
    """The simulator, the quadratic-form identities and the moment matrices."""

    PARAMS = {"s_h": 2.0, "zdr_db": 1.5, "velocity_ms": 4.0, "width_ms": 3.0,
              "phidp_deg": 60.0, "rhohv": 0.9, "noise_h": 0.1, "noise_v": 0.2}

    def simulate(self, mode, m, nradials, seed):
        rng = np.random.default_rng(seed)
        port0, port1 = weather_echo.simulate_pulses(rng, nradials, m, mode=mode, ldr_db=-10.0,
                                                    **self.PARAMS)
        return port0, port1

    def test_001_simulator_covariance(self):
        # Sample covariance of 40000 radials (M = 8) against model_covariance: every entry
        # within 5 standard errors (for a complex entry, sqrt(C_ii C_jj / N) scales both
        # parts; 256 entries, so 5 and not 3), the pseudo-covariance (circularity) as well.
        m, n = 8, 40000
        for k, mode in enumerate(weather_echo.MODES):
            port0, port1 = self.simulate(mode, m, n, 100 + k)
            z = np.concatenate([port0[:, 0].reshape(n, m), port1[:, 0].reshape(n, m)], axis=1)
            z = z.astype(np.complex128)
            cov = weather_echo.model_covariance(m, mode=mode, ldr_db=-10.0, **self.PARAMS)
            np.testing.assert_allclose(cov, cov.conj().T, atol=0)
            self.assertGreater(np.linalg.eigvalsh(cov).min(), 0.0)
            se = np.sqrt(np.outer(np.diag(cov).real, np.diag(cov).real) / n)
            sample = z.T @ z.conj() / n
            self.assertLess(np.max(np.abs(sample - cov) / se), 5.0, mode)
            self.assertLess(np.max(np.abs(z.T @ z / n) / se), 5.0, f"{mode}: pseudo-covariance")

    def test_002_quadratic_form_identities(self):
        # Mean and covariance of the moments of 40000 simulated radials against
        # tr(A C), tr(A C B^H C), tr(A C B C): means within 4 standard errors (20 of them),
        # covariance entries within 6 standard errors of a sample covariance (Gaussian
        # approximation, loose for these chi-square-like sums).
        n = 40000
        for k, (mode, m) in enumerate((("simultaneous", 8), ("alternating", 8))):
            port0, port1 = self.simulate(mode, m, n, 200 + k)
            cfg = block_config(pulses_per_radial=m, mode=mode)
            mom = moments(port0, port1, cfg)
            cov = weather_echo.model_covariance(m, mode=mode, ldr_db=-10.0, **self.PARAMS)
            mean, real_cov = moment_statistics(cov, moment_matrices(m, mode))
            u = np.column_stack([np.column_stack([mom[name][:, 0].real, mom[name][:, 0].imag])
                                 for name in mom])
            sd = np.sqrt(np.diag(real_cov))
            live = sd > 0
            z = (u.mean(axis=0) - np.column_stack([mean.real, mean.imag]).ravel())[live]
            self.assertLess(np.max(np.abs(z) / sd[live] * math.sqrt(n)), 4.0, f"{mode}: mean")
            self.assertTrue(np.all(u.std(axis=0)[~live] == 0.0), f"{mode}: Im of powers")
            sample = np.cov(u[:, live], rowvar=False)
            want = real_cov[np.ix_(live, live)]
            se = np.sqrt((np.outer(np.diag(want), np.diag(want)) + want ** 2) / n)
            self.assertLess(np.max(np.abs(sample - want) / se), 6.0, f"{mode}: covariance")

    def test_003_moment_matrices_are_the_moments(self):
        # z^H A z with moment_matrices() equals moments() on arbitrary data.
        rng = np.random.default_rng(300)
        for mode, m in (("simultaneous", 2), ("simultaneous", 7), ("alternating", 4),
                        ("alternating", 10)):
            cfg = block_config(pulses_per_radial=m, mode=mode)
            port0, port1 = (rng.standard_normal((3 * m, 1, 2)).astype(np.float32)
                            .view(np.complex64)[..., 0] for _ in range(2))
            mom = moments(port0, port1, cfg)
            for r in range(3):
                z = port0[r * m:(r + 1) * m, 0].astype(np.complex128)
                if mode == "simultaneous":
                    z = np.concatenate([z, port1[r * m:(r + 1) * m, 0]])
                for name, a in moment_matrices(m, mode).items():
                    self.assertAlmostEqual(z.conj() @ a @ z, mom[name][r, 0], delta=1e-12,
                                           msg=f"{mode} M={m} {name}")

    def test_004_expected_moments_give_the_truth(self):
        # The definition's estimators are consistent with the signal model: applied to the
        # expected moments they return the true parameters exactly (the aim of rho_T in
        # alternating mode, for instance).
        for mode, m in (("simultaneous", 2), ("simultaneous", 36), ("alternating", 4),
                        ("alternating", 64)):
            cfg = block_config(pulses_per_radial=m, mode=mode, zcal_db=7.0, zdr_cal_db=0.3,
                               phidp_offset_deg=-15.0, noise_h=0.1, noise_v=0.2,
                               first_gate_m=3000.0)
            cov = weather_echo.model_covariance(m, mode=mode, **self.PARAMS)
            mean, _ = moment_statistics(cov, moment_matrices(m, mode))
            got = products(dict(zip(moment_matrices(m, mode), mean)), cfg)
            err = product_errors(got, true_products(cfg, 0, self.PARAMS), cfg)
            np.testing.assert_allclose(err, 0.0, atol=1e-9, err_msg=f"{mode} M={m}")

    def test_005_conversions(self):
        self.assertEqual(weather_echo.nyquist_velocity(0.0531, 1e-3), 0.0531 / 4e-3)
        self.assertEqual(weather_echo.nyquist_velocity(0.0531, 1e-3, "alternating"),
                         0.0531 / 8e-3)
        s_h = weather_echo.power_from_reflectivity(35.0, 12500.0, zcal_db=-20.0)
        self.assertAlmostEqual(weather_echo.reflectivity_from_power(s_h, 12500.0, -20.0), 35.0,
                               delta=1e-12)
        rho = weather_echo.normalized_autocorrelation(1, 2.0, 3.0, LAMBDA, PRT)
        self.assertAlmostEqual(abs(rho), math.exp(-8 * (math.pi * 3.0 * PRT / LAMBDA) ** 2),
                               delta=1e-15)
        self.assertAlmostEqual(np.angle(rho), -4 * math.pi * 2.0 * PRT / LAMBDA, delta=1e-15)


# --------------------------------------------------------------------------------------
# Against the float64 reference
# --------------------------------------------------------------------------------------
# Calibration and noise of the reference tests: all non-trivial, so that a term left out
# or applied twice shows.
CALIBRATED = {"zcal_db": 12.5, "zdr_cal_db": -0.3, "phidp_offset_deg": 25.0,
              "noise_h": 0.3, "noise_v": 0.2, "first_gate_m": 2125.0, "gate_spacing_m": 250.0}

# (mode, ngates, M, radials, pulses of a partial radial after them, block overrides)
REFERENCE_CASES = (
    ("simultaneous", 1, 2, 300, 1, {}),
    ("simultaneous", 17, 2, 100, 1, {"snr_threshold_db": 3.0}),
    ("simultaneous", 5, 36, 60, 35, {}),
    ("simultaneous", 64, 7, 20, 3, {"first_gate_m": 0.0}),  # gate 0 at range 0: Zh -inf
    ("simultaneous", 3, 100, 20, 50, {"snr_threshold_db": 10.0}),
    ("alternating", 1, 4, 300, 3, {}),
    ("alternating", 17, 4, 100, 2, {"snr_threshold_db": 3.0}),
    ("alternating", 5, 36, 60, 35, {}),
    ("alternating", 33, 64, 20, 63, {"first_gate_m": 0.0}),
    ("alternating", 2, 6, 100, 5, {"snr_threshold_db": 10.0}),
)


class qa_polarimetric_products_cf(polar_case):
    """The block against the float64 reference on random correlated echoes."""

    def reference_case(self, index):
        mode, ngates, m, nradials, extra, overrides = REFERENCE_CASES[index]
        cfg = block_config(ngates=ngates, pulses_per_radial=m, mode=mode,
                           **dict(CALIBRATED, **overrides))
        rng = np.random.default_rng(1000 + index)
        # The last gate carries noise only (where ngates > 1): SNR near and below 0 dB,
        # negative noise-subtracted powers, NaN and infinities.
        port0, port1 = random_echoes(rng, cfg, nradials, extra,
                                     noise_only_gates=[ngates - 1] if ngates > 1 else [])
        return cfg, port0, port1

    def test_001_reference_all_cases(self):
        for index in range(len(REFERENCE_CASES)):
            cfg, port0, port1 = self.reference_case(index)
            out, _, _ = self.run_block(port0, port1, cfg)
            # Exactly one output per complete radial: the partial radial is not emitted.
            self.assertEqual(out.shape[1], port0.shape[0] // cfg["pulses_per_radial"])
            ref = self.assert_matches_reference(out, port0, port1, cfg, f"case {index}")
            # The cases reach what they are there for.
            self.assertTrue(np.isfinite(ref[ZH]).any())
            if cfg["snr_threshold_db"] > 0:
                self.assertTrue(np.isnan(ref[ZH]).any(), f"case {index}: censoring")
            if cfg["first_gate_m"] == 0.0:
                self.assertTrue(np.all(np.isneginf(out[ZH][:, 0])
                                       | np.isnan(out[ZH][:, 0])), f"case {index}: range 0")

    def test_002_chunking_invariance(self):
        # The same outputs, bit for bit, whatever the sizes of the calls: the block one
        # radial per call, feeders of a few pulses that never line up with M, both.
        for index in (2, 7):
            cfg, port0, port1 = self.reference_case(index)
            runs = [dict(), dict(block_items=1), dict(feeder_items=5),
                    dict(feeder_items=1, block_items=2), dict(feeder_items=97)]
            outputs = [self.run_block(port0, port1, cfg, **kwargs)[0] for kwargs in runs]
            self.assert_matches_reference(outputs[0], port0, port1, cfg, f"case {index}")
            for kwargs, out in zip(runs[1:], outputs[1:]):
                np.testing.assert_array_equal(out, outputs[0], err_msg=f"{kwargs}")

    def test_003_cross_polar_input_unused(self):
        # Alternating mode: the products use the co-polar input only; anything on the
        # cross-polar input (zeros; the co-polar pulses reversed, 60 dB louder) changes
        # nothing.
        cfg, port0, port1 = self.reference_case(7)
        out, _, _ = self.run_block(port0, port1, cfg)
        for other in (np.zeros_like(port1), 1e3 * port0[::-1].copy()):
            np.testing.assert_array_equal(self.run_block(port0, other, cfg)[0], out)

    def test_004_fewer_pulses_than_a_radial(self):
        for mode, m in (("simultaneous", 36), ("alternating", 4)):
            cfg = block_config(ngates=3, pulses_per_radial=m, mode=mode, **CALIBRATED)
            port0, port1 = random_echoes(np.random.default_rng(1500), cfg, 0, m - 1)
            out, tags, _ = self.run_block(port0, port1, cfg)
            self.assertEqual(out.shape, (len(PRODUCTS), 0, 3))
            self.assertEqual([len(t) for t in tags], [0] * len(PRODUCTS))

    def test_005_second_run_continues(self):
        # A second run of the same flowgraph: new radials, again exactly as the reference.
        cfg, port0, port1 = self.reference_case(2)
        blk = make_block(cfg, self.DEVICE)
        first, _, _ = self.run_block(port0, port1, cfg, block=blk)
        self.assert_matches_reference(first, port0, port1, cfg, "first run")
        later0, later1 = random_echoes(np.random.default_rng(1600), cfg, 11, 0)
        second, _, _ = self.run_block(later0, later1, cfg, block=blk)
        self.assert_matches_reference(second, later0, later1, cfg, "second run")


# --------------------------------------------------------------------------------------
# Physical truth: simulated rain
# --------------------------------------------------------------------------------------
RAIN = {"zdr_db": 1.5, "phidp_deg": 60.0, "rhohv": 0.98}
RAIN_NOISE = 0.01  # receiver noise power, both channels


def rain_gates(cfg, gates):
    """Simulator parameters per gate from (SNR dB, width m/s, velocity / v_Nyquist)."""
    va = nyquist(cfg)
    return [dict(RAIN, s_h=RAIN_NOISE * 10.0 ** (snr / 10.0), width_ms=width,
                 velocity_ms=fraction * va, noise_h=RAIN_NOISE, noise_v=RAIN_NOISE)
            for snr, width, fraction in gates]


def simulate_gates(rng, cfg, nradials, gate_params):
    """simulate_pulses with one parameter set per gate (a list of dicts of scalars)."""
    per_gate = {k: np.array([p[k] for p in gate_params]) for k in gate_params[0]}
    return weather_echo.simulate_pulses(rng, nradials, cfg["pulses_per_radial"],
                                        wavelength_m=cfg["wavelength_m"], prt_s=cfg["prt_s"],
                                        mode=cfg["mode"], **per_gate)


class qa_polarimetric_products_cf_physics(polar_case):
    """Estimates from simulated rain against the truth and the estimators' theory.

    Per gate and product, with e the errors (estimate - truth) of N radials:
    (i) the mean error: the estimators are biased at second order (Zh = 10 log10 of an
    unbiased power is biased low by about (10/ln 10) var / 2, width and RhoHV by their
    curvature). Two checks:
      - literally, |mean(e)| < 3 SE (SE = sample std / sqrt(n)) over the first n radials,
        n the largest (<= N) for which the theoretical second-order bias is at most half a
        standard error, so that the test is a test of zero mean and not of the bias
        (asserted); this n is small for Zh (about 10) and large for V, ZDR, PhiDP;
      - over all N radials, |mean(e) - bias| < 3 SE with the theoretical bias: the
        block's mean agrees with theory to a small fraction of the bias.
    (ii) the sample std within a factor of two of the first-order (delta method) std.

    Calibration (the float64 reference in place of the block, 200 seeds per case): both
    mean statistics, in units of SE, have a standard deviation of 0.9 to 1.1; the
    bias-corrected one a mean within 0.25 of zero (what the second-order bias leaves out)
    and the literal one within 0.6 (the bias allowed, up to half an SE); the std ratio
    lies within 0.93 to 1.3. Each check then fails by chance in about 0.3 to 1 percent of
    seeds, and with ~40 checks per case the simultaneous case fails somewhere in about 1
    seed in 7 (alternating: 1 in 20 to 30). The fixed seeds below are ones on which the
    reference passes; a new seed may need the same care.
    """

    def check_rain(self, mode, m, nradials, gates, seed):
        cfg = block_config(ngates=len(gates), pulses_per_radial=m, mode=mode, zcal_db=20.0,
                           zdr_cal_db=0.4, phidp_offset_deg=-20.0, noise_h=RAIN_NOISE,
                           noise_v=RAIN_NOISE, first_gate_m=5000.0, gate_spacing_m=250.0)
        params = rain_gates(cfg, gates)
        port0, port1 = simulate_gates(np.random.default_rng(seed), cfg, nradials, params)
        out, _, _ = self.run_block(port0, port1, cfg)
        self.assertEqual(out.shape, (len(PRODUCTS), nradials, len(gates)))
        for gate, p in enumerate(params):
            truth, e0, std, bias = estimator_theory(cfg, gate, p)
            np.testing.assert_allclose(e0, 0.0, atol=1e-9)
            err = product_errors(out[:, :, gate], truth, cfg)
            self.assertFalse(np.isnan(err).any(), f"{mode} gate {gate}: NaN")
            for k, name in enumerate(PRODUCTS):
                label = (f"{mode} M={m} gate {gate} (SNR {gates[gate][0]} dB, width "
                         f"{gates[gate][1]} m/s) {name}: theory std {std[k]:.4g} bias "
                         f"{bias[k]:+.4g}")
                e = err[k]
                sample_std = e.std(ddof=1)
                self.assertTrue(0.5 < sample_std / std[k] < 2.0,
                                f"{label}: sample std {sample_std:.4g}")
                n = nradials
                if bias[k] != 0.0:
                    n = min(n, int((0.5 * std[k] / abs(bias[k])) ** 2))
                self.assertGreaterEqual(n, 5, label)
                self.assertLess(abs(bias[k]), std[k] / math.sqrt(n), label)
                # The radials are independent and alike: the std of all N estimates the
                # per-radial std far better than that of the first n (often ~10) alone.
                se = sample_std / math.sqrt(n)
                self.assertLess(abs(e[:n].mean()), 3.0 * se,
                                f"{label}: mean error {e[:n].mean():+.4g} over {n} radials, "
                                f"SE {se:.3g}")
                se = sample_std / math.sqrt(nradials)
                self.assertLess(abs(e.mean() - bias[k]), 3.0 * se,
                                f"{label}: mean error {e.mean():+.4g} over {nradials} "
                                f"radials, SE {se:.3g}")

    def test_001_simultaneous(self):
        self.check_rain("simultaneous", 36, 2000,
                        [(20.0, 2.0, 0.3), (30.0, 4.0, -0.3), (25.0, 3.0, 0.3)], seed=2001)

    def test_002_alternating_64(self):
        self.check_rain("alternating", 64, 1500,
                        [(20.0, 2.0, 0.3), (30.0, 1.5, -0.3), (25.0, 2.5, 0.3)], seed=2000)

    def test_003_alternating_36(self):
        self.check_rain("alternating", 36, 1500, [(30.0, 2.0, 0.3), (20.0, 1.5, -0.3)],
                        seed=2001)

    def test_004_velocity_aliasing(self):
        # Beyond the Nyquist velocity the estimate folds by 2 v_Nyquist: the circular mean
        # of the estimates (as angles pi v / v_Nyquist) lands on the folded truth within 3
        # standard errors, and every estimate lies within +-v_Nyquist. In alternating mode
        # each fold also turns PhiDP by 180 degrees (psi and psi + pi give the same C1, C2);
        # in simultaneous mode PhiDP does not see the velocity.
        for k, (mode, m, width) in enumerate((("simultaneous", 36, 2.0),
                                              ("alternating", 64, 1.5))):
            cfg = block_config(ngates=4, pulses_per_radial=m, mode=mode, noise_h=RAIN_NOISE,
                               noise_v=RAIN_NOISE)
            va = nyquist(cfg)
            self.assertAlmostEqual(va, LAMBDA / ((4.0 if k == 0 else 8.0) * PRT), delta=1e-12)
            fractions = (1.6, -2.3, 0.7, -1.2)  # folded: -0.4, -0.3, 0.7, 0.8
            params = rain_gates(cfg, [(30.0, width, f) for f in fractions])
            port0, port1 = simulate_gates(np.random.default_rng(2300 + k), cfg, 500, params)
            out, _, _ = self.run_block(port0, port1, cfg)
            velocity = out[VEL].astype(np.float64)
            self.assertTrue(np.all(np.abs(velocity) <= va * (1 + 1e-6)), mode)
            for gate, fraction in enumerate(fractions):
                folds = round(fraction / 2.0)
                folded = (fraction - 2.0 * folds) * va
                self.assertLess(abs(folded), va)
                phidp = RAIN["phidp_deg"] + (180.0 * folds if mode == "alternating" else 0.0)
                for name, values, truth, to_angle in (
                        ("V", velocity[:, gate], folded, np.pi / va),
                        ("PhiDP", out[PHIDP][:, gate].astype(np.float64), phidp, np.pi / 180)):
                    resultant = np.mean(np.exp(1j * to_angle * values))
                    error = np.angle(resultant * np.exp(-1j * to_angle * truth))
                    se = math.sqrt(-2.0 * math.log(abs(resultant)) / values.size)
                    self.assertLess(abs(error), 3.0 * se,
                                    f"{mode}: true {fraction} v_N, folded {folded / va:.2f} "
                                    f"v_N: {name} circular mean {truth + error / to_angle:.4f}, "
                                    f"expected {truth:.4f}")


# --------------------------------------------------------------------------------------
# Censoring, setters, tags
# --------------------------------------------------------------------------------------
class qa_polarimetric_products_cf_control(polar_case):

    def censoring_data(self, mode, m):
        """Threshold 20 dB; gates of true SNR 30, 20, 10, -5 dB, noise only, all zero.

        At M = 36 the SNR estimate of the 30 dB gate never falls to 20 dB and that of the
        10 dB gate never reaches 20 dB nor 0 (its S_h stays positive: a finite SNRh); the
        20 dB gate falls on both sides, where the reference decides.
        """
        cfg = block_config(ngates=6, pulses_per_radial=m, mode=mode, noise_h=RAIN_NOISE,
                           noise_v=RAIN_NOISE, snr_threshold_db=20.0, first_gate_m=1000.0)
        params = rain_gates(cfg, [(30.0, 2.0, 0.3), (20.0, 2.0, 0.3), (10.0, 2.0, 0.3),
                                  (-5.0, 2.0, 0.3), (-np.inf, 2.0, 0.3), (-np.inf, 2.0, 0.3)])
        params[5].update(noise_h=0.0, noise_v=0.0)
        port0, port1 = simulate_gates(np.random.default_rng(3000 + m), cfg, 200, params)
        return cfg, port0, port1

    def test_001_censoring(self):
        for mode, m in (("simultaneous", 36), ("alternating", 36)):
            cfg, port0, port1 = self.censoring_data(mode, m)
            out, _, _ = self.run_block(port0, port1, cfg)
            self.assert_matches_reference(out, port0, port1, cfg, "censoring")
            snr = out[SNRH]
            censored = ~(snr >= cfg["snr_threshold_db"])
            for k in range(SNRH):
                # Censoring blanks 0..5 together; an estimate may be NaN on its own too
                # (ZDR or RhoHV of a negative noise-subtracted power), but not at 30 dB.
                self.assertTrue(np.all(np.isnan(out[k])[censored]), f"{mode} {PRODUCTS[k]}")
                self.assertTrue(np.all(np.isfinite(out[k][:, 0])), f"{mode} {PRODUCTS[k]}")
            self.assertFalse(np.isnan(snr).any(), mode)
            self.assertFalse(censored[:, 0].any(), mode)
            self.assertTrue(censored[:, 1].any() and not censored[:, 1].all(), mode)
            self.assertTrue(np.all(censored[:, 2:]), f"{mode}: 10 dB and below")
            self.assertTrue(np.all(np.isfinite(snr[:, :3])), f"{mode}: SNRh of signal gates")
            # Low SNR and noise only: noise-subtracted power of either sign (SNRh finite
            # or -inf); all zero: S_h = 0 exactly, SNRh -inf.
            low = snr[:, 3:5]
            self.assertTrue(np.all(np.isfinite(low) | np.isneginf(low)), mode)
            self.assertTrue(np.isneginf(snr[:, 4]).any() and np.isfinite(snr[:, 4]).any(), mode)
            self.assertTrue(np.all(np.isneginf(snr[:, 5])), mode)

    def test_002_zero_noise(self):
        # noise_h = noise_v = 0: SNRh is +inf wherever there is any power, so nothing is
        # censored but the all-zero gate (S_h = 0: -inf).
        for mode, m in (("simultaneous", 36), ("alternating", 36)):
            cfg, port0, port1 = self.censoring_data(mode, m)
            cfg.update(noise_h=0.0, noise_v=0.0)
            out, _, _ = self.run_block(port0, port1, cfg)
            self.assert_matches_reference(out, port0, port1, cfg, "zero noise")
            self.assertTrue(np.all(np.isposinf(out[SNRH][:, :5])), mode)
            self.assertTrue(np.all(np.isneginf(out[SNRH][:, 5])), mode)
            self.assertTrue(np.all(np.isfinite(out[:SNRH, :, :5])), mode)
            self.assertTrue(np.all(np.isnan(out[:SNRH, :, 5])), mode)

    def test_003_setters_before_start(self):
        values = {"zcal_db": 17.0, "zdr_cal_db": -0.7, "phidp_offset_deg": 33.0,
                  "noise_h": 0.3, "noise_v": 0.2, "snr_threshold_db": 6.0}
        for mode in weather_echo.MODES:
            cfg = block_config(ngates=5, pulses_per_radial=36, mode=mode,
                               first_gate_m=2125.0, gate_spacing_m=250.0)
            blk = make_block(cfg, self.DEVICE)
            for name in values:
                self.assertEqual(getattr(blk, name)(), cfg[name], name)
                getattr(blk, "set_" + name)(values[name])
                self.assertEqual(getattr(blk, name)(), values[name], name)
            cfg.update(values)
            port0, port1 = random_echoes(np.random.default_rng(3100), cfg, 40, 0, [4])
            out, _, _ = self.run_block(port0, port1, cfg, block=blk)
            ref = self.assert_matches_reference(out, port0, port1, cfg, "after setters")
            self.assertTrue(np.isnan(ref[ZH]).any() and np.isfinite(ref[ZH]).any())

            # Between two runs: the second run uses the new values.
            changed = {"zcal_db": -3.0, "zdr_cal_db": 1.1, "phidp_offset_deg": -140.0,
                       "noise_h": 0.25, "noise_v": 0.35, "snr_threshold_db": 0.5}
            for name, value in changed.items():
                getattr(blk, "set_" + name)(value)
                self.assertEqual(getattr(blk, name)(), value, name)
            cfg.update(changed)
            port0, port1 = random_echoes(np.random.default_rng(3101), cfg, 40, 0, [4])
            out, _, _ = self.run_block(port0, port1, cfg, block=blk)
            self.assert_matches_reference(out, port0, port1, cfg, "second run, new values")

    def test_004_setters_reject_bad_values(self):
        blk = make_block(block_config(noise_h=0.5, noise_v=0.25), self.DEVICE)
        for name, bad_values in (("noise_h", (-1.0, -1e-30, 1e78)),
                                 ("noise_v", (-1.0, -1e-30, 1e78)),
                                 ("zcal_db", (1000.5, -1e300)), ("zdr_cal_db", (100.5,)),
                                 ("phidp_offset_deg", (-360.5, 1e300))):
            before = getattr(blk, name)()
            for bad in bad_values:
                with self.assertRaisesRegex(ValueError, name, msg=f"{name} {bad}"):
                    getattr(blk, "set_" + name)(bad)
                self.assertEqual(getattr(blk, name)(), before, name)

    def test_005_nyquist_and_backend(self):
        for mode, divisor in (("simultaneous", 4.0), ("alternating", 8.0)):
            for lam, prt in ((LAMBDA, PRT), (0.1, 7e-4), (0.032, 2.5e-3)):
                cfg = block_config(pulses_per_radial=36, wavelength_m=lam, prt_s=prt, mode=mode)
                blk = make_block(cfg, self.DEVICE)
                self.assertAlmostEqual(blk.nyquist_velocity(), lam / (divisor * prt),
                                       delta=1e-12 * lam / prt)
                self.assertAlmostEqual(blk.nyquist_velocity(), nyquist(cfg),
                                       delta=1e-12 * lam / prt)
        blk = make_block(block_config(), self.DEVICE)
        if self.DEVICE == "cpu":
            self.assertEqual(blk.backend(), "cpu")
        else:
            self.assertTrue(blk.backend().startswith("cuda:"), blk.backend())
        auto = make_block(block_config(), "auto").backend()
        self.assertEqual(auto.startswith("cuda:"), HAVE_CUDA, auto)

    def test_006_tags(self):
        # radial_index on every output port at every radial (0, 1, ...), uint64; a tag of
        # either input goes to the radial of its pulse, offset // M, on every output port.
        for mode, m in (("simultaneous", 8), ("alternating", 4)):
            cfg = block_config(ngates=3, pulses_per_radial=m, mode=mode, **CALIBRATED)
            nradials = 20
            port0, port1 = random_echoes(np.random.default_rng(3200), cfg, nradials, m - 1)
            offsets = {
                "azimuth": [0, 1, m - 1, m, m + 1, 5 * m + 3, 5 * m + 3, nradials * m - 1],
                "elevation": [m - 1, 7 * m, nradials * m - 2],
            }
            tags = [[make_tag(o, key, pmt.from_double(0.5 * i)) for i, o in enumerate(offsets[key])]
                    for key in offsets]
            expected = {key: sorted((o // m, key, pmt.write_string(pmt.from_double(0.5 * i)))
                                    for i, o in enumerate(offsets[key]))
                        for key in offsets}
            results = []
            for kwargs in (dict(), dict(feeder_items=3, block_items=1)):
                out, out_tags, _ = self.run_block(port0, port1, cfg, tags=tags, **kwargs)
                self.assertEqual(out.shape[1], nradials)
                for port, port_tags in enumerate(out_tags):
                    label = f"{mode} {kwargs} output {port}"
                    index = [t for t in port_tags if pmt.symbol_to_string(t.key) == "radial_index"]
                    self.assertEqual(sorted(int(t.offset) for t in index), list(range(nradials)),
                                     label)
                    for t in index:
                        self.assertTrue(pmt.is_uint64(t.value), label)
                        self.assertEqual(pmt.to_uint64(t.value), t.offset, label)
                    for key in offsets:
                        self.assertEqual(tag_list(port_tags, key), expected[key], label)
                    passed_on = [t for t in port_tags
                                 if pmt.symbol_to_string(t.key) not in GEOMETRY_KEYS]
                    self.assertEqual(len(passed_on), nradials + sum(map(len, offsets.values())),
                                     label)
                results.append((out, [tag_list(t) for t in out_tags]))
            np.testing.assert_array_equal(results[1][0], results[0][0])
            self.assertEqual(results[1][1], results[0][1])


# --------------------------------------------------------------------------------------
# Clutter outputs, I/Q conventions and scan geometry
# --------------------------------------------------------------------------------------
def geometry_tags(port_tags, nradials):
    """{key: values per radial} of the block's own tags on one output; each key must
    appear exactly once per radial."""
    found = {key: [None] * nradials for key in ("radial_index",) + GEOMETRY_KEYS}
    for t in port_tags:
        key = pmt.symbol_to_string(t.key)
        if key not in found:
            continue
        assert found[key][t.offset] is None, f"{key} twice on radial {t.offset}"
        integer = key in ("radial_index", "sweep_index")
        assert (pmt.is_uint64(t.value) if integer else pmt.is_real(t.value)), key
        found[key][t.offset] = pmt.to_uint64(t.value) if integer else pmt.to_double(t.value)
    for key, values in found.items():
        assert None not in values, f"{key} missing on radial {values.index(None)}"
    return found


class qa_polarimetric_products_cf_scan(polar_case):

    NEW_KEYWORDS = dict(clutter_filter="gmap", clutter_only_where_detected=True,
                        cpa_threshold=0.7, antenna_rate_deg_s=18.0, beamwidth_deg=0.95,
                        invert_velocity=True, invert_phidp=True,
                        scan_start_azimuth_deg=270.0, scan_elevation_deg=1.5)

    def test_001_new_keywords_and_getters(self):
        blk = cudadsp.polarimetric_products_cf(4, device=self.DEVICE, **self.NEW_KEYWORDS)
        for name, value in self.NEW_KEYWORDS.items():
            self.assertEqual(getattr(blk, name)(), value, name)
        self.assertEqual(blk.scan_rate_deg_s(), 18.0)
        defaults = cudadsp.polarimetric_products_cf(4, device=self.DEVICE)
        self.assertEqual((defaults.clutter_filter(), defaults.clutter_only_where_detected(),
                          defaults.cpa_threshold(), defaults.antenna_rate_deg_s(),
                          defaults.beamwidth_deg(), defaults.invert_velocity(),
                          defaults.invert_phidp(), defaults.scan_start_azimuth_deg(),
                          defaults.scan_elevation_deg(), defaults.scan_rate_deg_s()),
                         ("none", False, 0.7, 0.0, 1.0, False, False, 0.0, 0.5, 0.0))
        blk.set_scan(10.0, -0.5, 6.0)
        self.assertEqual((blk.scan_start_azimuth_deg(), blk.scan_elevation_deg(),
                          blk.scan_rate_deg_s(), blk.antenna_rate_deg_s()),
                         (10.0, -0.5, 6.0, 18.0))

    def test_002_nine_outputs(self):
        # All nine outputs connected: the seven products as with seven outputs (and as
        # the float64 reference); without a filter nothing is removed (CLUT 0) and CPA,
        # a ratio of |sum| to sum of magnitudes, lies in [0, 1].
        cfg = block_config(ngates=5, pulses_per_radial=36, **CALIBRATED)
        port0, port1 = random_echoes(np.random.default_rng(3900), cfg, 60, 0)
        seven, _, _ = self.run_block(port0, port1, cfg)
        nine, nine_tags, _ = self.run_block(port0, port1, cfg,
                                            connected=len(PRODUCTS) + len(CLUTTER_PRODUCTS))
        self.assert_matches_reference(nine[:len(PRODUCTS)], port0, port1, cfg, "9 outputs")
        np.testing.assert_array_equal(nine[:len(PRODUCTS)], seven)
        np.testing.assert_array_equal(nine[CLUT], np.zeros_like(nine[CLUT]))
        self.assertTrue(np.all((nine[CPA] >= 0.0) & (nine[CPA] <= 1.0)))
        self.assertGreater(np.ptp(nine[CPA]), 0.0)
        for port_tags in nine_tags:
            geometry_tags(port_tags, nine.shape[1])

    def test_003_simple_scan_tags(self):
        # No tags: the azimuth from the scan's start at the antenna rate (10 degrees per
        # radial here), its elevation, time from 0; a new sweep after each full turn.
        m, nradials = 10, 80
        cfg = block_config(ngates=2, pulses_per_radial=m, **CALIBRATED)
        port0, port1 = random_echoes(np.random.default_rng(4000), cfg, nradials, 3)
        blk = cudadsp.polarimetric_products_cf(**cfg, device=self.DEVICE,
                                               antenna_rate_deg_s=1000.0,
                                               scan_start_azimuth_deg=350.0,
                                               scan_elevation_deg=2.0)
        _, out_tags, _ = self.run_block(port0, port1, cfg, block=blk, block_items=7)
        centre_s = (np.arange(nradials) * m + (m - 1) / 2.0) * cfg["prt_s"]
        for port_tags in out_tags:
            found = geometry_tags(port_tags, nradials)
            np.testing.assert_allclose(found["azimuth_deg"],
                                       np.mod(350.0 + 1000.0 * centre_s, 360.0), atol=1e-9)
            np.testing.assert_array_equal(found["elevation_deg"], 2.0)
            np.testing.assert_allclose(found["time_s"], centre_s, atol=1e-12)
            self.assertEqual(found["sweep_index"], [r // 36 for r in range(nradials)])

    def test_004_tagged_scan(self):
        # Azimuth tags every 5 pulses of an antenna turning at 200 deg/s, an elevation
        # step and rx_time on input 0: each radial's tags give the antenna at its centre
        # pulse; the input scan tags are consumed, other tags passed on.
        m, nradials, rate = 8, 30, 200.0
        cfg = block_config(ngates=2, pulses_per_radial=m, **CALIBRATED)
        port0, port1 = random_echoes(np.random.default_rng(4100), cfg, nradials, 0)
        T = cfg["prt_s"]
        tags = [make_tag(k, "azimuth_deg", pmt.from_double((12.0 + rate * k * T) % 360.0))
                for k in range(1, nradials * m, 5)]
        tags += [make_tag(2, "elevation_deg", pmt.from_double(0.5)),
                 make_tag(12 * m + 1, "elevation_deg", pmt.from_double(2.5)),
                 make_tag(3, "rx_time", pmt.make_tuple(pmt.from_uint64(1700000000),
                                                       pmt.from_double(0.125))),
                 make_tag(4, "label", pmt.from_long(7))]
        blk = cudadsp.polarimetric_products_cf(**cfg, device=self.DEVICE,
                                               antenna_rate_deg_s=rate)
        _, out_tags, _ = self.run_block(port0, port1, cfg, block=blk, tags=(tags, ()),
                                        feeder_items=3)
        centre = np.arange(nradials) * m + (m - 1) / 2.0
        for port_tags in out_tags:
            found = geometry_tags(port_tags, nradials)
            np.testing.assert_allclose(found["azimuth_deg"],
                                       np.mod(12.0 + rate * centre * T, 360.0), atol=1e-9)
            np.testing.assert_array_equal(found["elevation_deg"],
                                          np.where(centre >= 12 * m + 1, 2.5, 0.5))
            np.testing.assert_allclose(found["time_s"],
                                       1700000000.125 + (centre - 3) * T, rtol=0, atol=1e-6)
            self.assertEqual(found["sweep_index"], [0] * 12 + [1] * (nradials - 12))
            keys = [pmt.symbol_to_string(t.key) for t in port_tags]
            self.assertEqual(keys.count("label"), 1)
            self.assertEqual(keys.count("rx_time"), 0)
            self.assertEqual(keys.count("azimuth_deg"), nradials)

    def test_005_scan_message(self):
        # A dict on the "scan" port before the run sets the simple scan (keys left out
        # keep their values); bad messages are logged and ignored.
        m, nradials = 10, 12
        cfg = block_config(ngates=2, pulses_per_radial=m, **CALIBRATED)
        port0, port1 = random_echoes(np.random.default_rng(4200), cfg, nradials, 0)
        blk = cudadsp.polarimetric_products_cf(**cfg, device=self.DEVICE,
                                               scan_elevation_deg=3.0)
        port = pmt.intern("scan")
        for bad in (pmt.from_double(1.0), pmt.to_pmt({"tilt": 1.0}),
                    pmt.to_pmt({"rate_deg_s": -5.0, "start_azimuth_deg": 1.0}),
                    pmt.to_pmt({"elevation_deg": "high"})):
            blk._post(port, bad)
        blk._post(port, pmt.to_pmt({"start_azimuth_deg": 45.0, "rate_deg_s": 100.0}))
        _, out_tags, _ = self.run_block(port0, port1, cfg, block=blk)
        self.assertEqual((blk.scan_start_azimuth_deg(), blk.scan_elevation_deg(),
                          blk.scan_rate_deg_s()), (45.0, 3.0, 100.0))
        centre_s = (np.arange(nradials) * m + (m - 1) / 2.0) * cfg["prt_s"]
        found = geometry_tags(out_tags[0], nradials)
        np.testing.assert_allclose(found["azimuth_deg"], 45.0 + 100.0 * centre_s, atol=1e-9)
        np.testing.assert_array_equal(found["elevation_deg"], 3.0)

    def test_006_scan_message_bounds_and_log_rate(self):
        # A rate of 1e308 deg/s was accepted (every radial a new sweep, then NaN
        # azimuths): a "scan" message beyond the scan's physical bounds is refused like
        # the constructor's, and the scan stays. 7,200 refused messages (one per radial
        # for two minutes) give one log line, and the count of the others at stop().
        m, nradials = 10, 12
        cfg = block_config(ngates=2, pulses_per_radial=m, **CALIBRATED)
        port0, port1 = random_echoes(np.random.default_rng(4300), cfg, nradials, 0)
        blk = cudadsp.polarimetric_products_cf(**cfg, device=self.DEVICE,
                                               antenna_rate_deg_s=100.0)
        port = pmt.intern("scan")
        for bad in ({"rate_deg_s": 1e308}, {"rate_deg_s": MAX_ANTENNA_RATE_DEG_S * 1.001},
                    {"start_azimuth_deg": 1e300}):
            blk._post(port, pmt.to_pmt(bad))
        for _ in range(7200 - 3):
            blk._post(port, pmt.to_pmt({"rate_deg_s": 1e308}))
        with captured_output() as log:
            _, out_tags, _ = self.run_block(port0, port1, cfg, block=blk)
        self.assertEqual((blk.scan_start_azimuth_deg(), blk.scan_rate_deg_s()),
                         (0.0, 100.0))
        found = geometry_tags(out_tags[0], nradials)
        centre_s = (np.arange(nradials) * m + (m - 1) / 2.0) * cfg["prt_s"]
        np.testing.assert_allclose(found["azimuth_deg"], 100.0 * centre_s, atol=1e-9)
        self.assertEqual(found["sweep_index"], [0] * nradials)
        ignored = [line for line in log.lines() if '"scan" message ignored' in line]
        self.assertEqual(len(ignored), 1, log.text[-3000:])
        self.assertIn("rate_deg_s: must be from 0 to 3600", ignored[0])
        self.assertIn('7199 more lines about "scan" messages ignored were suppressed',
                      log.text)

    def test_007_rx_time_beyond_the_bound_is_refused(self):
        # rx_time of 2^63 s was passed on as time_s 9.2e18: a time beyond the end of
        # year 9999 (CfRadial's time strings) is a bad tag, refused with the others;
        # the radials keep the time of the pulse count. One in range is used.
        m, nradials = 8, 6
        cfg = block_config(ngates=2, pulses_per_radial=m, **CALIBRATED)
        port0, port1 = random_echoes(np.random.default_rng(4400), cfg, nradials, 0)
        T = cfg["prt_s"]
        centre = np.arange(nradials) * m + (m - 1) / 2.0
        for whole, expected in ((2**63, centre * T), (2**40, centre * T),
                                (253402300799, 253402300799.5 + centre * T)):
            tags = [make_tag(0, "rx_time", pmt.make_tuple(pmt.from_uint64(whole),
                                                          pmt.from_double(0.5)))]
            _, out_tags, _ = self.run_block(port0, port1, cfg, tags=(tags, ()))
            found = geometry_tags(out_tags[0], nradials)
            np.testing.assert_allclose(found["time_s"], expected, rtol=0, atol=1e-4,
                                       err_msg=str(whole))


# --------------------------------------------------------------------------------------
# Bad parameters
# --------------------------------------------------------------------------------------
class qa_polarimetric_products_cf_params(gr_unittest.TestCase):

    def assert_rejected(self, parameter, **overrides):
        """The constructor raises ValueError naming `parameter` for these arguments (those
        of block_config and the clutter and scan keywords)."""
        known = block_config()
        kwargs = block_config(**{k: v for k, v in overrides.items() if k in known})
        kwargs.update({k: v for k, v in overrides.items() if k not in known and k != "device"})
        with self.assertRaisesRegex(ValueError, parameter, msg=f"{overrides}"):
            cudadsp.polarimetric_products_cf(**kwargs, device=overrides.get("device", "cpu"))

    def test_001_bad_sizes(self):
        for ngates in (0, -1, -1000):
            self.assert_rejected("ngates", ngates=ngates)
        for m in (1, 0, -1, -36):
            self.assert_rejected("pulses_per_radial", pulses_per_radial=m)
        for m in (2, 3, 5, 7, 37, 0, -4):
            self.assert_rejected("pulses_per_radial", pulses_per_radial=m, mode="alternating")
        # Beyond a C++ int (issue 16 item 8): named, not pybind11's generic TypeError.
        self.assert_rejected("^ngates: must be at most 2147483647", ngates=2**31)
        self.assert_rejected("^pulses_per_radial: must be at least", pulses_per_radial=-2**40)
        for args, name in (((2**32, 36), "ngates"), ((4, 2**32), "pulses_per_radial")):
            with self.assertRaisesRegex(ValueError, f"^{name}: must be at most"):
                cudadsp.polarimetric_products_cf.upstream_buffer_pulses(*args)

    def test_002_bad_radar_parameters(self):
        for bad in (0.0, -0.0531, math.nan):
            self.assert_rejected("wavelength_m", wavelength_m=bad)
            self.assert_rejected("prt_s", prt_s=bad)
        for bad in (0.0, -150.0, math.nan):
            self.assert_rejected("gate_spacing_m", gate_spacing_m=bad)
        for bad in (-1.0, math.nan):
            self.assert_rejected("first_gate_m", first_gate_m=bad)
        for bad in (-1.0, -1e-30, math.nan):
            self.assert_rejected("noise_h", noise_h=bad)
            self.assert_rejected("noise_v", noise_v=bad)
        # Physical bounds (issue 16 item 9): finite but absurd values are refused.
        for name, lo, hi in (("wavelength_m", 1e-4, 1e3), ("prt_s", 1e-7, 10.0),
                             ("zcal_db", -1000.0, 1000.0), ("zdr_cal_db", -100.0, 100.0),
                             ("phidp_offset_deg", -360.0, 360.0),
                             ("noise_h", 0.0, FLT_MAX_SQUARED), ("noise_v", 0.0, FLT_MAX_SQUARED)):
            for bad in (lo - max(1e-9, abs(lo) * 1e-6), hi * (1 + 1e-6), -1e300, 1e300):
                self.assert_rejected(f"^{name}: must be from ", **{name: bad})
            for good in (lo, hi):
                cudadsp.polarimetric_products_cf(4, device="cpu", **{name: good})

    def test_003_bad_mode_and_device(self):
        for mode in ("", "alternate", "Simultaneous", "stagger"):
            self.assert_rejected("mode", mode=mode)
        for device in ("cuda:x", "cuda:", "cuda:-1", "gpu", ""):
            self.assert_rejected("device", device=device)

    def test_004_good_parameters_accepted(self):
        for mode, m in (("simultaneous", 2), ("simultaneous", 3), ("alternating", 4),
                        ("alternating", 6), ("alternating", 64)):
            blk = cudadsp.polarimetric_products_cf(1, pulses_per_radial=m, mode=mode,
                                                   noise_h=0.0, noise_v=0.0, device="cpu")
            self.assertEqual(blk.backend(), "cpu")

    def test_006_bad_clutter_and_scan_parameters(self):
        for bad in ("", "iir", "Regression", "none "):
            self.assert_rejected("clutter_filter", clutter_filter=bad)
        for bad in (0.0, -0.5, 1.5, math.nan):
            self.assert_rejected("cpa_threshold", cpa_threshold=bad)
        for bad in (-1.0, math.inf, math.nan, 1e308, MAX_ANTENNA_RATE_DEG_S * 1.001):
            self.assert_rejected("antenna_rate_deg_s", antenna_rate_deg_s=bad)
        cudadsp.polarimetric_products_cf(4, device="cpu",
                                         antenna_rate_deg_s=MAX_ANTENNA_RATE_DEG_S)
        for bad in (0.0, -1.0, math.nan):
            self.assert_rejected("beamwidth_deg", beamwidth_deg=bad)
        for bad in (math.nan, math.inf, 1e300, -360.5):
            self.assert_rejected("scan_start_azimuth_deg", scan_start_azimuth_deg=bad)
        for bad in (90.5, -100.0, math.nan):
            self.assert_rejected("scan_elevation_deg", scan_elevation_deg=bad)
        blk = cudadsp.polarimetric_products_cf(4, device="cpu")
        blk.set_scan(10.0, 1.0, 6.0)
        for args, name in (((math.nan, 1.0, 6.0), "start_azimuth_deg"),
                           ((0.0, 95.0, 6.0), "elevation_deg"),
                           ((0.0, 1.0, -6.0), "rate_deg_s"),
                           ((0.0, 1.0, 1e308), "rate_deg_s"),
                           ((400.0, 1.0, 6.0), "start_azimuth_deg")):
            with self.assertRaisesRegex(ValueError, name, msg=f"{args}"):
                blk.set_scan(*args)
        self.assertEqual((blk.scan_start_azimuth_deg(), blk.scan_elevation_deg(),
                          blk.scan_rate_deg_s()), (10.0, 1.0, 6.0))

    def test_005_cuda_without_device(self):
        if HAVE_CUDA:
            self.skipTest("a CUDA device is present")
        for device in ("cuda", "cuda:0"):
            with self.assertRaises(RuntimeError, msg=device):
                cudadsp.polarimetric_products_cf(4, device=device)


# --------------------------------------------------------------------------------------
# The same block tests on the CUDA backend
# --------------------------------------------------------------------------------------
@unittest.skipUnless(HAVE_CUDA, "no CUDA device")
class qa_polarimetric_products_cf_cuda(qa_polarimetric_products_cf):
    DEVICE = "cuda"


@unittest.skipUnless(HAVE_CUDA, "no CUDA device")
class qa_polarimetric_products_cf_physics_cuda(qa_polarimetric_products_cf_physics):
    DEVICE = "cuda"


@unittest.skipUnless(HAVE_CUDA, "no CUDA device")
class qa_polarimetric_products_cf_control_cuda(qa_polarimetric_products_cf_control):
    DEVICE = "cuda"


@unittest.skipUnless(HAVE_CUDA, "no CUDA device")
class qa_polarimetric_products_cf_scan_cuda(qa_polarimetric_products_cf_scan):
    DEVICE = "cuda"


if __name__ == "__main__":
    gr_unittest.run(qa_polarimetric_products_cf)
