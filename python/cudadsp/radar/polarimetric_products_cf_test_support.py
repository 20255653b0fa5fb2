#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""What the block tests of polarimetric_products_cf share (qa_polarimetric_products_cf.py
and qa_polarimetric_products_cf_control.py): the radar constants, the float64 reference
of the estimator formulas and its tolerances, the estimator theory, simulated echoes,
running the block in a flowgraph, and polar_case, the base of the block test classes.
qa_polarimetric_products_cf.py's docstring describes the two oracles and the theory.
"""

import math
import os
import sys

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import cudadsp
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp

from cudadsp.radar import weather_echo


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


# Calibration and noise of the reference tests: all non-trivial, so that a term left out
# or applied twice shows.
CALIBRATED = {"zcal_db": 12.5, "zdr_cal_db": -0.3, "phidp_offset_deg": 25.0,
              "noise_h": 0.3, "noise_v": 0.2, "first_gate_m": 2125.0, "gate_spacing_m": 250.0}


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


