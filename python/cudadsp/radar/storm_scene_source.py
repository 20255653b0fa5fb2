#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Synthetic dual-polarisation I/Q of a storm seen by a scanning weather radar.

``storm_scene`` holds a fixed storm on a PPI (plan position indicator) grid of
``nradials`` azimuths x ``ngates`` range gates and draws the pulses a radar would
receive from it; ``storm_scene_source`` is the GNU Radio source block around it, the
natural input of ``polarimetric_products_cf``.

The scene, laid out in fractions of the largest range R so that it fits any gate
geometry (R = 60 km with the defaults), x east and y north of the radar:

- a convective cell north-west of the radar: a 60 dBZ core (hail above 56 dBZ: ZDR
  near 0.3 dB, RhoHV 0.93) in a 42 dBZ anvil, with a mesocyclone, a cyclonic Rankine
  vortex of 25 m/s;
- a weaker cell south-east (50 dBZ) with a downburst, a divergent Rankine outflow of
  18 m/s;
- a stratiform shield north-east (20 to 32 dBZ) crossed by a melting layer, a ring
  at about 0.66 R where Zh (+6 dB) and ZDR rise and RhoHV falls to about 0.90, with
  snow beyond it;
- ground clutter, in one of two forms. By default (clutter_cnr_db = 0) patches within
  0.15 R whose echo replaces the weather: zero velocity, narrow spectrum, RhoHV 0.5 to
  0.85, random ZDR and PhiDP, described by the truth. With clutter_cnr_db > 0, hills
  (a random patch map) within clutter_extent x R whose echo is added to the weather at
  a clutter-to-noise ratio of clutter_cnr_db on H: zero velocity, a Gaussian spectrum
  of the intrinsic width clutter_intrinsic_width_ms widened by the antenna scan (see
  clutter_width_ms), ZDR 0 dB, RhoHV 0.99, the gate's PhiDP; the truth then holds the
  weather under the clutter (the clutter-free truth that a clutter filter aims at);
- a mean wind of 9 m/s towards azimuth 50 degrees everywhere: with the default
  radar (lambda 5.31 cm, PRT 1 ms: Nyquist 13.3 m/s simultaneous, 6.6 m/s
  alternating) the vortex and the downburst fold the velocity (up to about 30 m/s),
  and in alternating mode so does the mean wind;
- rain ZDR rising with Zh (0.065 dB/dBZ above 15 dBZ, at most 3.8 dB), RhoHV about
  0.985 in rain, and KDP from the rain rate: R from Z by Marshall-Palmer (Z = 200
  R^1.6, Z in mm^6 m^-3 capped at 55 dBZ, hail's limit), KDP from R = a KDP^b with the
  band's coefficients (RAIN_RATE_FROM_KDP: Beard-Chuang drop shapes at S and C band,
  Brandes et al. at X band, as tabulated in Py-ART's pyart.retrieve.qpe; the method:
  Bringi and Chandrasekar 2001, ch. 8) wherever Zh > 20 dBZ in rain; PhiDP is twice
  the range integral of KDP (trapezoids between gate centres, KDP of the first gate
  from the radar to it), plus the system phase;
- no echo elsewhere: the receivers see noise only.

Signal model (docs/blocks/polarimetric_products_cf.md, "Signal model"): at each gate
the H and V pulse series are zero-mean circular complex Gaussian with a Gaussian
Doppler spectrum of mean velocity v and width w, normalised autocorrelation
rho(mT) = exp(-8 (pi w m T / lambda)^2) exp(-j 4 pi v m T / lambda),
E[h h*] = S_h, S_h / S_v = 10^(ZDR/10), E[h[n] v*[n-m]] = RhoHV sqrt(S_h S_v)
exp(j PhiDP) rho(mT), plus independent white receiver noise of power noise_h and
noise_v. S_h follows from Zh through the radar equation of the products block:
Zh = 10 log10(S_h) + zcal_db + 20 log10(r_km). The echoes are drawn by
weather_echo.simulate_pulses, whose covariance is the model's exactly.

Alternating mode: port 0 carries the co-polar receive, h on even pulses (H
transmitted) and v on odd pulses (V transmitted), of that same process; port 1, the
cross-polar receive, a depolarised echo 30 dB below the co-polar one (LDR -30 dB)
plus receiver noise.

Everything is vectorised with NumPy; one turn of 360 radials x 400 gates x 36 pulses
takes a few seconds on one core.
"""

import math

import numpy as np
import pmt
from gnuradio import gr

from cudadsp.radar import weather_echo
from ..common.work_errors import stop_on_error

MODES = weather_echo.MODES

#: Linear depolarisation ratio of the echo in the cross-polar receiver (alternating
#: mode), dB: rain-like everywhere.
LDR_DB = -30.0

#: Marshall-Palmer Z = a R^b (Z in mm^6 m^-3, R in mm/h).
MARSHALL_PALMER = (200.0, 1.6)

#: R = a KDP^b (R in mm/h, KDP in deg/km) per band, with the wavelength range (m) each
#: applies to: S (beyond 7.5 cm), C (3.75 to 7.5 cm), X (shorter); Py-ART's table.
RAIN_RATE_FROM_KDP = {"S": (50.70, 0.8500), "C": (29.70, 0.8500), "X": (15.81, 0.7992)}

#: Added ground clutter (clutter_cnr_db > 0): the same echo on H and V.
CLUTTER_ZDR_DB = 0.0
CLUTTER_RHOHV = 0.99


def radar_band(wavelength_m):
    """"S", "C" or "X": the band whose R(KDP) relation applies at wavelength_m."""
    if wavelength_m >= 0.075:
        return "S"
    return "C" if wavelength_m >= 0.0375 else "X"

def _rankine(d, radius, vmax):
    """Rankine profile: solid body inside radius, 1/d outside."""
    d = np.maximum(d, 1e-9)
    return np.where(d < radius, vmax * d / radius, vmax * radius / d)


def _logistic(s, width):
    return 1.0 / (1.0 + np.exp(np.clip(s / width, -60.0, 60.0)))


class storm_scene:
    """A fixed synthetic storm on a PPI grid, and the dual-pol pulses it returns.

    Geometry and radar: ``nradials`` azimuths per turn, radial ``k`` centred on
    azimuth ``(k + 0.5) * 360 / nradials`` degrees clockwise from north; ``ngates``
    gates at ``first_gate_m + g * gate_spacing_m``; ``pulses_per_radial`` pulses of
    period ``prt_s`` per radial at ``wavelength_m``. The antenna turns clockwise at the
    constant antenna_rate_deg_s, one step of 360 / (nradials x pulses_per_radial)
    degrees per pulse, and pulse ``n`` of a turn is taken at the middle of its step,
    azimuth ``(n + 0.5) * step`` (pulse_azimuth_deg): the mean azimuth of radial
    ``k``'s pulses is then its centre azimuth exactly.

    Receiver: signal power from Zh through ``zcal_db`` (the same radar constant as
    the products block's), white noise of power ``noise_h`` and ``noise_v`` (|x|^2
    units) on the H and V receivers. ``phidp_system_deg`` is added to the
    propagation PhiDP (the products block's ``phidp_offset_deg`` removes it).

    Added ground clutter: ``clutter_cnr_db`` (>= 0; 0: none, the default patches
    instead) on hills within ``clutter_extent`` (0 to 1] of the largest range, of
    intrinsic spectrum width ``clutter_intrinsic_width_ms``, widened by the antenna
    scan for a beam of ``beamwidth_deg`` (see clutter_width_ms).

    ``seed`` fixes the storm's texture and the clutter (``seed``) and the pulse draws
    (``seed + 1``); the same seed gives the same pulses.
    """

    def __init__(self, ngates=400, nradials=360, pulses_per_radial=36,
                 wavelength_m=0.0531, prt_s=1e-3, first_gate_m=150.0,
                 gate_spacing_m=150.0, zcal_db=-20.0, noise_h=1.0, noise_v=1.0,
                 phidp_system_deg=25.0, mode="simultaneous", seed=42, clutter_cnr_db=0.0,
                 clutter_extent=0.5, clutter_intrinsic_width_ms=0.2, beamwidth_deg=1.0):
        ngates, nradials, pulses_per_radial = int(ngates), int(nradials), int(pulses_per_radial)
        if ngates < 1:
            raise ValueError("ngates: must be >= 1, got %d" % ngates)
        if nradials < 1:
            raise ValueError("nradials: must be >= 1, got %d" % nradials)
        if mode not in MODES:
            raise ValueError("mode: must be 'simultaneous' or 'alternating', got %r" % (mode,))
        if mode == "alternating" and (pulses_per_radial < 4 or pulses_per_radial % 2):
            raise ValueError("pulses_per_radial: must be even and >= 4 in alternating mode, "
                             "got %d" % pulses_per_radial)
        if pulses_per_radial < 2:
            raise ValueError("pulses_per_radial: must be >= 2, got %d" % pulses_per_radial)
        for name, value in (("wavelength_m", wavelength_m), ("prt_s", prt_s),
                            ("gate_spacing_m", gate_spacing_m)):
            if not (math.isfinite(value) and value > 0):
                raise ValueError("%s: must be finite and > 0, got %r" % (name, value))
        if not (math.isfinite(first_gate_m) and first_gate_m >= 0):
            raise ValueError("first_gate_m: must be finite and >= 0, got %r" % (first_gate_m,))
        for name, value in (("noise_h", noise_h), ("noise_v", noise_v)):
            if not (math.isfinite(value) and value >= 0):
                raise ValueError("%s: must be finite and >= 0, got %r" % (name, value))
        for name, value in (("zcal_db", zcal_db), ("phidp_system_deg", phidp_system_deg)):
            if not math.isfinite(value):
                raise ValueError("%s: must be finite, got %r" % (name, value))
        for name, value, ok, rule in (
                ("clutter_cnr_db", clutter_cnr_db, lambda v: v >= 0, ">= 0 (0: none)"),
                ("clutter_extent", clutter_extent, lambda v: 0 < v <= 1, "in (0, 1]"),
                ("clutter_intrinsic_width_ms", clutter_intrinsic_width_ms,
                 lambda v: v >= 0, ">= 0"),
                ("beamwidth_deg", beamwidth_deg, lambda v: v > 0, "> 0")):
            if not (math.isfinite(value) and ok(value)):
                raise ValueError("%s: must be finite and %s, got %r" % (name, rule, value))
        if clutter_cnr_db > 0 and not noise_h > 0:
            raise ValueError("clutter_cnr_db: a clutter-to-noise ratio needs noise_h > 0, "
                             "got noise_h %r" % (noise_h,))

        self.ngates = ngates
        self.nradials = nradials
        self.pulses_per_radial = pulses_per_radial
        self.wavelength_m = float(wavelength_m)
        self.prt_s = float(prt_s)
        self.first_gate_m = float(first_gate_m)
        self.gate_spacing_m = float(gate_spacing_m)
        self.zcal_db = float(zcal_db)
        self.noise_h = float(noise_h)
        self.noise_v = float(noise_v)
        self.phidp_system_deg = float(phidp_system_deg)
        self.mode = mode
        self.seed = int(seed)
        self.clutter_cnr_db = float(clutter_cnr_db)
        self.clutter_extent = float(clutter_extent)
        self.clutter_intrinsic_width_ms = float(clutter_intrinsic_width_ms)
        self.beamwidth_deg = float(beamwidth_deg)

        self.azimuth_deg = (np.arange(nradials) + 0.5) * (360.0 / nradials)
        self.range_m = self.first_gate_m + np.arange(ngates) * self.gate_spacing_m
        self._build_truth()
        self._rng = np.random.default_rng(self.seed + 1)

    # ----------------------------------------------------------------------------
    # Geometry and truth
    # ----------------------------------------------------------------------------
    @property
    def nyquist_velocity(self):
        """lambda / (4 PRT), or lambda / (8 PRT) in alternating mode, m/s."""
        factor = 8.0 if self.mode == "alternating" else 4.0
        return self.wavelength_m / (factor * self.prt_s)

    @property
    def pulses_per_turn(self):
        return self.nradials * self.pulses_per_radial

    @property
    def antenna_rate_deg_s(self):
        """Antenna rate, deg/s: one radial's 360 / nradials degrees in M pulses."""
        return 360.0 / (self.nradials * self.pulses_per_radial * self.prt_s)

    def pulse_azimuth_deg(self, pulse):
        """Antenna azimuth of pulse ``pulse`` (counted from the start of the first
        turn), degrees in [0, 360): the middle of the pulse's step of the turn."""
        step = 360.0 / self.pulses_per_turn
        return ((pulse % self.pulses_per_turn) + 0.5) * step

    @property
    def clutter_width_ms(self):
        """Spectrum width of the added clutter, m/s: the intrinsic width and the scan's
        (weather_echo.scan_spectrum_width) in quadrature."""
        scan = weather_echo.scan_spectrum_width(self.antenna_rate_deg_s, self.beamwidth_deg,
                                                self.wavelength_m)
        return math.hypot(self.clutter_intrinsic_width_ms, scan)

    def _texture(self, rng, x_km, y_km, nmodes, wavelength_km):
        """Smooth zero-mean unit-variance random field: random plane waves."""
        lo, hi = wavelength_km
        lam = np.exp(rng.uniform(math.log(lo), math.log(hi), nmodes))
        theta = rng.uniform(0.0, 2.0 * math.pi, nmodes)
        phase = rng.uniform(0.0, 2.0 * math.pi, nmodes)
        kx = 2.0 * math.pi / lam * np.cos(theta)
        ky = 2.0 * math.pi / lam * np.sin(theta)
        field = np.zeros(x_km.shape)
        for i in range(nmodes):
            field += np.cos(kx[i] * x_km + ky[i] * y_km + phase[i])
        return field * math.sqrt(2.0 / nmodes)

    def _build_truth(self):
        rng = np.random.default_rng(self.seed)
        az = np.deg2rad(self.azimuth_deg)[:, None]
        r_m = np.broadcast_to(self.range_m[None, :], (self.nradials, self.ngates))
        r_km = r_m / 1000.0
        R = max(r_km.max(), 1e-3)  # the scene scales with the largest range
        x = r_km * np.sin(az)
        y = r_km * np.cos(az)
        tex_z = self._texture(rng, x, y, 48, (0.08 * R, 0.4 * R))
        tex_v = self._texture(rng, x, y, 32, (0.1 * R, 0.5 * R))

        # Convective cell A (north-west): hail core, anvil, mesocyclone.
        ax, ay = -0.40 * R, 0.35 * R
        da = np.hypot(x - ax, y - ay)
        z_a = (10.0 ** 6.0 * np.exp(-0.5 * (da / (0.045 * R)) ** 2)
               + 10.0 ** 4.2 * np.exp(-0.5 * (da / (0.14 * R)) ** 2)) \
            * _logistic(da - 0.22 * R, 0.015 * R)
        # Cell B (south-east): weaker, with a downburst.
        bx, by = 0.30 * R, -0.35 * R
        db = np.hypot(x - bx, y - by)
        z_b = (10.0 ** 5.0 * np.exp(-0.5 * (db / (0.035 * R)) ** 2)
               + 10.0 ** 3.5 * np.exp(-0.5 * (db / (0.10 * R)) ** 2)) \
            * _logistic(db - 0.16 * R, 0.012 * R)
        z_conv = (z_a + z_b) * 10.0 ** (0.2 * tex_z)  # +-2 dB texture

        # Stratiform shield (north-east): a rotated ellipse with soft edges.
        sx, sy, rot = 0.35 * R, 0.40 * R, math.radians(35.0)
        u = (x - sx) * math.cos(rot) - (y - sy) * math.sin(rot)
        w = (x - sx) * math.sin(rot) + (y - sy) * math.cos(rot)
        s = np.hypot(u / (0.50 * R), w / (0.24 * R))
        shield = _logistic(s - 1.0, 0.08)
        z_strat_db = 26.0 + 6.0 * shield + 3.0 * tex_z
        z_strat = 10.0 ** (z_strat_db / 10.0) * shield

        # Melting layer: the beam crosses the 0 C level in a ring of range.
        ml = np.exp(-0.5 * ((r_km - 0.66 * R) / (0.022 * R)) ** 2)
        above = _logistic(0.68 * R - r_km, 0.01 * R)  # 0 below, 1 above the ring
        strat_gain_db = 6.0 * ml - 4.0 * above
        z_strat = z_strat * 10.0 ** (strat_gain_db / 10.0)

        z_lin = z_conv + z_strat
        f_strat = z_strat / z_lin  # stratiform share of the echo
        z_lin = np.where(z_lin >= 1.0, z_lin, 0.0)  # no echo under 0 dBZ: clear air
        with np.errstate(divide="ignore"):
            zh = 10.0 * np.log10(z_lin)

        # ZDR: rain rising with Zh; hail in the core; melting layer and snow from
        # the stratiform share.
        zdr_rain = np.clip(0.065 * (zh - 15.0), 0.1, 3.8)
        hail = _logistic(56.0 - zh, 1.0)
        zdr_conv = zdr_rain * (1.0 - hail) + 0.3 * hail
        zdr_strat = np.clip(0.065 * (zh - 15.0), 0.1, 1.2) * (1.0 - above) \
            + 0.3 * above + 1.5 * ml
        zdr = (1.0 - f_strat) * zdr_conv + f_strat * zdr_strat
        rhohv = 0.985 - 0.055 * hail * (1.0 - f_strat) - 0.085 * ml * f_strat \
            + 0.005 * above * f_strat + 0.003 * tex_v
        width = 1.2 + 1.3 * (1.0 - f_strat) * _logistic(38.0 - zh, 3.0) + 0.6 * ml * f_strat \
            - 0.4 * above * f_strat

        # KDP of the rain from its rain rate, two-way accumulated along the radial into
        # PhiDP (see the module docstring).
        z_rain_capped = 10.0 ** (np.minimum(zh, 55.0) / 10.0) * (1.0 - above * f_strat)
        mp_a, mp_b = MARSHALL_PALMER
        rain_rate = np.where(zh > 20.0, (z_rain_capped / mp_a) ** (1.0 / mp_b), 0.0)
        kdp_a, kdp_b = RAIN_RATE_FROM_KDP[radar_band(self.wavelength_m)]
        kdp = (rain_rate / kdp_a) ** (1.0 / kdp_b)
        dr_km = self.gate_spacing_m / 1000.0
        one_way = kdp[:, :1] * (self.first_gate_m / 1000.0) + np.concatenate(
            [np.zeros((self.nradials, 1)),
             np.cumsum(0.5 * (kdp[:, 1:] + kdp[:, :-1]) * dr_km, axis=1)], axis=1)
        phidp = 2.0 * one_way

        # Wind: mean flow, mesocyclone at A (cyclonic: counter-clockwise), downburst at B.
        speed, towards = 9.0, math.radians(50.0)
        wu = np.full(x.shape, speed * math.sin(towards))
        wv = np.full(x.shape, speed * math.cos(towards))
        vt = _rankine(da, 0.06 * R, 25.0)
        wu += vt * -(y - ay) / np.maximum(da, 1e-9)
        wv += vt * (x - ax) / np.maximum(da, 1e-9)
        vr = _rankine(db, 0.05 * R, 18.0)
        wu += vr * (x - bx) / np.maximum(db, 1e-9)
        wv += vr * (y - by) / np.maximum(db, 1e-9)
        width = width + 2.5 * np.exp(-0.5 * (da / (0.05 * R)) ** 2) \
            + 1.5 * np.exp(-0.5 * (db / (0.05 * R)) ** 2)
        velocity = (wu * x + wv * y) / np.maximum(r_km, 1e-9) + 1.0 * tex_v

        clutter_field = self._texture(rng, x, y, 24, (0.04 * R, 0.12 * R))
        phidp_total = phidp + self.phidp_system_deg
        if self.clutter_cnr_db > 0:
            # Hills whose echo pulses() adds to the weather: the truth stays the weather's.
            clutter = (r_km < self.clutter_extent * R) & (clutter_field > 0.5)
            clutter_power = np.where(clutter, self.noise_h * 10.0 ** (self.clutter_cnr_db / 10.0),
                                     0.0)
        else:
            # Ground clutter patches near the radar, where they replace the weather.
            clutter = (r_km < 0.15 * R) & (clutter_field > 0.5) & (zh < 35.0)
            n_cl = int(clutter.sum())
            zh = np.where(clutter, 35.0 + 20.0 * np.clip(clutter_field - 0.5, 0.0, 1.0), zh)
            zdr[clutter] = rng.uniform(-4.0, 4.0, n_cl)
            rhohv[clutter] = rng.uniform(0.5, 0.85, n_cl)
            velocity[clutter] = 0.0
            width[clutter] = 0.25
            kdp[clutter] = 0.0
            rain_rate[clutter] = 0.0
            phidp_total[clutter] = rng.uniform(-180.0, 180.0, n_cl) + self.phidp_system_deg
            clutter_power = np.zeros(clutter.shape)

        rhohv = np.clip(rhohv, 0.0, 0.999)
        with np.errstate(divide="ignore"):
            s_h = 10.0 ** ((zh - self.zcal_db - 20.0 * np.log10(r_km)) / 10.0)
        s_h = np.where(np.isfinite(s_h), s_h, 0.0)
        s_h = np.where(r_km > 0, s_h, 0.0)
        with np.errstate(divide="ignore"):
            snr_h = 10.0 * np.log10(s_h / self.noise_h) if self.noise_h > 0 \
                else np.where(s_h > 0, np.inf, -np.inf)

        # Gates whose echo is under -30 dB SNR (or absent) are left to the noise.
        floor = 1e-3 * self.noise_h if self.noise_h > 0 else 0.0
        echo = s_h > floor
        self._echo = echo
        self._s_h = s_h
        self._zdr = zdr
        self._velocity = velocity
        # Widths on a 0.05 m/s grid: weather_echo factors one temporal covariance per
        # distinct width, so few distinct widths keep the draw fast (the truth holds
        # the widths as drawn).
        self._width = np.maximum(np.round(width / 0.05) * 0.05, 0.1)
        self._rhohv = rhohv
        self._phase_deg = phidp_total
        self._clutter_power = clutter_power

        nan = np.nan
        self._truth = {
            "zh": np.where(echo, zh, nan),
            "zdr": np.where(echo, zdr, nan),
            "velocity": np.where(echo, velocity, nan),
            "width": np.where(echo, self._width, nan),
            # Propagation PhiDP, the products' PhiDP with phidp_offset_deg set to
            # phidp_system_deg (not wrapped); clutter: its random phase less the
            # system phase.
            "phidp": np.where(echo, np.where(clutter, phidp_total - self.phidp_system_deg,
                                             phidp), nan),
            "rhohv": np.where(echo, rhohv, nan),
            "snr_h": np.where(echo, snr_h, -np.inf),
            "kdp": np.where(echo, kdp, nan),
            "rain_rate": np.where(echo, rain_rate, nan),
            "clutter": clutter,
            "clutter_cnr_db": np.where(clutter_power > 0, self.clutter_cnr_db, nan),
        }

    def truth(self):
        """The fields behind the pulses, arrays of (nradials, ngates), float64.

        zh (dBZ), zdr (dB), velocity (m/s, positive away, not folded), width (m/s),
        phidp (deg, propagation only, not wrapped: twice the range integral of kdp),
        rhohv, snr_h (dB, the expected S_h / noise_h), kdp (deg/km), rain_rate (mm/h),
        all of the weather; NaN (snr_h: -inf) where there is no weather echo above
        -30 dB SNR. clutter (bool): gates with ground clutter; clutter_cnr_db: the
        added clutter's CNR on H (dB), NaN where none is added (the default patches
        are described by the other fields instead).
        """
        return {k: v.copy() for k, v in self._truth.items()}

    def save_truth(self, path):
        """Writes truth() and the geometry to a NumPy .npz file."""
        np.savez_compressed(
            path,
            azimuth_deg=self.azimuth_deg, range_m=self.range_m,
            ngates=self.ngates, nradials=self.nradials,
            pulses_per_radial=self.pulses_per_radial, wavelength_m=self.wavelength_m,
            prt_s=self.prt_s, first_gate_m=self.first_gate_m,
            gate_spacing_m=self.gate_spacing_m, zcal_db=self.zcal_db,
            noise_h=self.noise_h, noise_v=self.noise_v,
            phidp_system_deg=self.phidp_system_deg, mode=self.mode,
            nyquist_velocity=self.nyquist_velocity, seed=self.seed,
            antenna_rate_deg_s=self.antenna_rate_deg_s, beamwidth_deg=self.beamwidth_deg,
            clutter_width_ms=self.clutter_width_ms,
            clutter_intrinsic_width_ms=self.clutter_intrinsic_width_ms,
            clutter_extent=self.clutter_extent, **self._truth)

    # ----------------------------------------------------------------------------
    # Pulses
    # ----------------------------------------------------------------------------
    def _noise(self, count, power):
        """Receiver noise for count radials; power: per pulse of a radial, (M,)."""
        shape = (count, self.pulses_per_radial, self.ngates)
        scale = np.sqrt(0.5 * np.asarray(power, np.float32))[None, :, None]
        out = np.empty(shape, np.complex64)
        out.real = self._rng.standard_normal(shape, dtype=np.float32) * scale
        out.imag = self._rng.standard_normal(shape, dtype=np.float32) * scale
        return out

    def pulses(self, first_radial, count):
        """Pulses of radials first_radial .. first_radial + count - 1 (modulo the turn).

        Returns (port0, port1), each complex64 of shape (count * pulses_per_radial,
        ngates), pulses in time order: in simultaneous mode the H and V receivers;
        in alternating mode the co-polar and cross-polar receivers. Every call draws
        fresh noise and fresh speckle.
        """
        M, G = self.pulses_per_radial, self.ngates
        radials = (first_radial + np.arange(count)) % self.nradials
        noise_h = np.full(M, self.noise_h)
        noise_v = np.full(M, self.noise_v)
        if self.mode == "alternating":
            # Co-polar: the H receiver on H pulses (even), the V receiver on V pulses
            # (odd); cross-polar: the other receiver.
            noise_h[1::2], noise_v[1::2] = self.noise_v, self.noise_h
        port0 = self._noise(count, noise_h)
        port1 = self._noise(count, noise_v)
        idx_r, idx_g = np.nonzero(self._echo[radials])
        if idx_r.size:
            rr = radials[idx_r]
            # The echo cells as one radial of idx_r.size gates; noise added above.
            echo0, echo1 = weather_echo.simulate_pulses(
                self._rng, 1, M, s_h=self._s_h[rr, idx_g][None],
                zdr_db=self._zdr[rr, idx_g][None],
                velocity_ms=self._velocity[rr, idx_g][None],
                width_ms=self._width[rr, idx_g][None],
                phidp_deg=self._phase_deg[rr, idx_g][None],
                rhohv=self._rhohv[rr, idx_g][None], noise_h=0.0, noise_v=0.0,
                wavelength_m=self.wavelength_m, prt_s=self.prt_s, mode=self.mode,
                ldr_db=LDR_DB, ngates=idx_r.size)
            port0[idx_r, :, idx_g] += echo0.T
            port1[idx_r, :, idx_g] += echo1.T
        idx_r, idx_g = np.nonzero(self._clutter_power[radials] > 0)
        if idx_r.size:
            rr = radials[idx_r]
            clutter0, clutter1 = weather_echo.simulate_pulses(
                self._rng, 1, M, s_h=self._clutter_power[rr, idx_g][None],
                zdr_db=CLUTTER_ZDR_DB, velocity_ms=0.0, width_ms=self.clutter_width_ms,
                phidp_deg=self._phase_deg[rr, idx_g][None], rhohv=CLUTTER_RHOHV,
                noise_h=0.0, noise_v=0.0, wavelength_m=self.wavelength_m, prt_s=self.prt_s,
                mode=self.mode, ldr_db=LDR_DB, ngates=idx_r.size)
            port0[idx_r, :, idx_g] += clutter0.T
            port1[idx_r, :, idx_g] += clutter1.T
        return port0.reshape(count * M, G), port1.reshape(count * M, G)


class storm_scene_source(gr.sync_block):
    """Storm Scene Source (CUDA DSP): dual-pol I/Q pulses of a synthetic storm.

    Two outputs, vectors of ngates gr_complex, one pulse per item: port 0 H and
    port 1 V (simultaneous mode), or port 0 co-polar and port 1 cross-polar
    (alternating mode). Radial k of every turn is pulses k*M .. k*M + M - 1 of
    that turn (M = pulses_per_radial). The flowgraph ends after nturns turns
    (0: runs until stopped). truth_file: when not empty, the true fields and the
    geometry are written there (.npz) when the block is made. clutter_cnr_db,
    clutter_extent, clutter_intrinsic_width_ms, beamwidth_deg: added ground clutter,
    see storm_scene.

    Scan tags on port 0, the keys polarimetric_products_cf reads:
      "azimuth_deg" (double) on the first pulse of every radial: the antenna
          azimuth of that pulse (storm_scene.pulse_azimuth_deg), half a pulse's step
          past the radial's start;
      "elevation_deg" (double) on the first pulse of every radial: elevation_deg;
      "rx_time" (tuple of uint64 whole seconds and double fractional seconds) on the
          first pulse of the stream: start_time_s, UTC seconds since 1970.
    The tags state where each tagged pulse was, not where its radial is centred:
    give polarimetric_products_cf antenna_rate_deg_s = antenna_rate_deg_s() and the
    azimuth it writes on radial k, the tag advanced to the radial's centre at that
    rate, is the truth's azimuth (k + 0.5) * 360 / nradials. (The same rate sets the
    width of the clutter spectrum its filter removes; with rate 0 the radials come
    out (M - 1) / (2 M) of a radial early.)

    See storm_scene and docs/blocks/polarimetric_products_cf.md.
    """

    def __init__(self, ngates=400, nradials=360, pulses_per_radial=36,
                 wavelength_m=0.0531, prt_s=1e-3, first_gate_m=150.0,
                 gate_spacing_m=150.0, zcal_db=-20.0, noise_h=1.0, noise_v=1.0,
                 phidp_system_deg=25.0, mode="simultaneous", nturns=1, seed=42,
                 truth_file="", clutter_cnr_db=0.0, clutter_extent=0.5,
                 clutter_intrinsic_width_ms=0.2, beamwidth_deg=1.0, elevation_deg=0.5,
                 start_time_s=0.0):
        scene = storm_scene(ngates, nradials, pulses_per_radial, wavelength_m, prt_s,
                            first_gate_m, gate_spacing_m, zcal_db, noise_h, noise_v,
                            phidp_system_deg, mode, seed, clutter_cnr_db, clutter_extent,
                            clutter_intrinsic_width_ms, beamwidth_deg)
        if int(nturns) < 0:
            raise ValueError("nturns: must be >= 0 (0: run until stopped), got %r"
                             % (nturns,))
        if not (math.isfinite(elevation_deg) and -90.0 <= elevation_deg <= 90.0):
            raise ValueError("elevation_deg: must be in [-90, 90], got %r" % (elevation_deg,))
        if not (math.isfinite(start_time_s) and start_time_s >= 0):
            raise ValueError("start_time_s: must be finite and >= 0 (UTC seconds since "
                             "1970), got %r" % (start_time_s,))
        gr.sync_block.__init__(
            self, name="storm_scene_source", in_sig=None,
            out_sig=[(np.complex64, scene.ngates), (np.complex64, scene.ngates)])
        self.scene = scene
        self._nturns = int(nturns)
        self._total = self._nturns * scene.pulses_per_turn  # 0: unbounded
        M = scene.pulses_per_radial
        # About 8 MB of pulses per channel per draw, whole radials.
        self._chunk_radials = max(1, min(scene.nradials,
                                         (1 << 20) // (M * scene.ngates)))
        self._next_radial = 0  # next radial to draw, counted from the start
        self._buf = None
        self._pos = 0
        self._elevation = pmt.from_double(float(elevation_deg))
        whole = math.floor(start_time_s)
        self._rx_time = pmt.make_tuple(pmt.from_uint64(int(whole)),
                                       pmt.from_double(float(start_time_s) - whole))
        self._keys = {key: pmt.intern(key) for key in ("azimuth_deg", "elevation_deg",
                                                       "rx_time")}
        self._srcid = pmt.intern("storm_scene_source")
        if truth_file:
            scene.save_truth(truth_file)

    def nyquist_velocity(self):
        """Largest unambiguous velocity of the scene's radar, m/s."""
        return self.scene.nyquist_velocity

    def antenna_rate_deg_s(self):
        """The antenna's azimuth rate, deg/s: polarimetric_products_cf's
        antenna_rate_deg_s for this source."""
        return self.scene.antenna_rate_deg_s

    def truth(self):
        """The scene's true fields, see storm_scene.truth()."""
        return self.scene.truth()

    def _refill(self):
        sc = self.scene
        count = self._chunk_radials
        if self._total:
            left = self._total // sc.pulses_per_radial - self._next_radial
            count = min(count, left)
        # A draw never crosses the end of a turn, so that turns stay aligned.
        count = min(count, sc.nradials - self._next_radial % sc.nradials)
        self._buf = sc.pulses(self._next_radial % sc.nradials, count)
        self._next_radial += count
        self._pos = 0

    def _tag(self, offset, key, value):
        self.add_item_tag(0, offset, self._keys[key], value, self._srcid)

    @stop_on_error
    def work(self, input_items, output_items):
        out0, out1 = output_items[0], output_items[1]
        sc = self.scene
        M = sc.pulses_per_radial
        start = self.nitems_written(0)
        n = len(out0)
        if self._total:
            n = min(n, self._total - start)
            if n <= 0:
                return -1  # WORK_DONE
        done = 0
        while done < n:
            if self._buf is None or self._pos >= len(self._buf[0]):
                self._refill()
            k = min(n - done, len(self._buf[0]) - self._pos)
            out0[done:done + k] = self._buf[0][self._pos:self._pos + k]
            out1[done:done + k] = self._buf[1][self._pos:self._pos + k]
            self._pos += k
            done += k
        if start == 0 and done:
            self._tag(0, "rx_time", self._rx_time)
        first = -(-start // M) * M  # first radial start at or after `start`
        for offset in range(first, start + done, M):
            self._tag(offset, "azimuth_deg", pmt.from_double(sc.pulse_azimuth_deg(offset)))
            self._tag(offset, "elevation_deg", self._elevation)
        return done
