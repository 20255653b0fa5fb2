#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Property tests (Hypothesis) of every block on the CPU backend: hostile parameters and
non-finite bursts.

(a) Constructors, with parameters drawn around and far beyond their documented bounds
    (zero, negative, NaN, ±Inf, 1e300, 2^31, 2^63, ...): a block is built, or the
    constructor raises ValueError whose message starts with the name of a parameter.
    Any other exception type (or a crash of the interpreter) fails.
(b) Streams of random finite data with random bursts of NaN, ±Inf, ±3e38 and denormals
    (1e-40) at random places: the flowgraph finishes, every output has exactly the item
    count the input makes (no item lost or duplicated), and the output comes back to
    what the same input without the burst gives, within the number of items each block
    page states:

    phase_unwrap_ff           the next finite sample: from then on the output is the
                              clean run's plus a constant whole number of periods, and
                              at every sample it is numpy.unwrap of the samples that
                              count (finite, below 2^24 periods); vector mode: every
                              vector the burst misses is the clean run's, bit for bit
    phase_unwrap_2d_ff        the next image: images the burst misses are bit-identical
    cross_correlator_cc       the next frame: frames the burst misses are bit-identical;
                              a frame holding NaN, Inf or 3e38 gives NaN lag
    polarimetric_products_cf  no item at all: every (radial, gate) the burst misses is
                              bit-identical
    kdp_ff                    the next radial: radials the burst misses are bit-identical
    st_tbd_ff                 NaN and Inf count as 0, so the maps equal those of the
                              input with the burst set to 0, bit for bit; a finite burst
                              (3e38) decays as alpha^n: n frames after it the maps differ
                              from the clean run by at most alpha^n times its size
    patch_xcorr_cc            the next strip: records of strips whose windows miss the
                              burst's lines are bit-identical
    multichannel_correlator   a tracking channel is back on the truth (code phase within
    _cc / _sc                 0.05 chip, Doppler within 10 Hz) 100 epochs after the burst
                              and locked; records cover the stream without gap or overlap
    pcps_acquisition_cc       the satellite is found, at its truth, by a search that
                              starts after the burst; no search holding the burst
                              reports a detection

CI runs the examples Hypothesis derives from each test's own code (derandomize), so a
run is reproducible; CUDADSP_PROPERTY_SEED=<n> explores other examples, seeded with n.
"""

import math
import os
import sys

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

try:
    from gnuradio import cudadsp
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bindings"))
    from gnuradio import cudadsp

from cudadsp.common import data_files
from gnuradio.cudadsp.gnss.simulator_source import make_simulator

SEED = os.environ.get("CUDADSP_PROPERTY_SEED")
settings.register_profile(
    "cudadsp",
    deadline=None,
    derandomize=SEED is None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("cudadsp")


def property_test(max_examples):
    """given() examples: derandomized for CI, or seeded by CUDADSP_PROPERTY_SEED."""

    def wrap(f):
        f = settings(max_examples=max_examples)(f)
        return seed(int(SEED))(f) if SEED is not None else f

    return wrap


# --------------------------------------------------------------------------------------
# Hostile values
# --------------------------------------------------------------------------------------
HOSTILE_FLOATS = [0.0, -0.0, -1.0, 1e-300, -1e-300, 1e-45, 1e30, -1e30, 1e300, -1e300,
                  3.4e38, float("nan"), float("inf"), float("-inf")]
HOSTILE_INTS = [0, -1, 1, 2, 3, 2**15, 2**24 + 1, 2**30, 2**31 - 1, 2**31, 2**32,
                2**53 + 1, 2**63, -(2**31), -(2**63) - 1]


def floats_around(*typical):
    """Floats near the typical values, and hostile ones."""
    return st.one_of(st.sampled_from(list(typical) + HOSTILE_FLOATS),
                     st.floats(allow_nan=True, allow_infinity=True, width=64))


def ints_around(*typical):
    return st.one_of(st.sampled_from(list(typical) + HOSTILE_INTS),
                     st.integers(min_value=-(2**64), max_value=2**64))


def small_ints(*typical):
    """Sizes that would allocate: hostile values beyond the bounds, small valid ones, but
    no valid value large enough to fill the memory of a test machine."""
    return st.one_of(st.sampled_from(list(typical) + [0, -1, -(2**31), 2**31, 2**32, 2**63,
                                                      -(2**63) - 1, 2**64]),
                     st.integers(min_value=-5, max_value=64))


DEVICES = st.sampled_from(["cpu", "CPU", "", "gpu", "cuda:-1", "cpu ", "auto;cpu"])


class constructor_checks:
    """(a): build with drawn parameters; ValueError must name a parameter first."""

    def check_constructor(self, make, kwargs):
        names = list(kwargs)
        try:
            blk = make(**kwargs)
        except ValueError as e:
            message = str(e)
            self.assertTrue(any(message.startswith(name) for name in names),
                            "message does not start with a parameter name: %r for %r"
                            % (message, kwargs))
            return None
        except Exception as e:  # noqa: BLE001 - any other type is the failure we look for
            self.fail("%s instead of ValueError: %s for %r" % (type(e).__name__, e, kwargs))
        # A block that was built is on the CPU backend (no device here, or "cpu").
        return blk


# --------------------------------------------------------------------------------------
# Bursts
# --------------------------------------------------------------------------------------
BURST_VALUES = {
    "nan": float("nan"),
    "+inf": float("inf"),
    "-inf": float("-inf"),
    "+3e38": 3e38,
    "-3e38": -3e38,
    "denormal": 1e-40,
}
NON_FINITE = ("nan", "+inf", "-inf")


@st.composite
def bursts(draw, n, max_bursts=3, max_len=None, kinds=tuple(BURST_VALUES)):
    """A list of (start, length, kind) within n items."""
    max_len = max_len or max(1, n // 8)
    out = []
    for _ in range(draw(st.integers(min_value=1, max_value=max_bursts))):
        start = draw(st.integers(min_value=0, max_value=n - 1))
        length = draw(st.integers(min_value=1, max_value=max_len))
        out.append((start, min(length, n - start), draw(st.sampled_from(kinds))))
    return out


def apply_bursts(x, burst_list, part=None):
    """x with the bursts written in (a copy); complex x: part "re", "im" or both."""
    y = np.array(x, copy=True)
    for start, length, kind in burst_list:
        v = BURST_VALUES[kind]
        seg = slice(start, start + length)
        if np.iscomplexobj(y):
            re, im = y[seg].real.copy(), y[seg].imag.copy()
            if part in (None, "re"):
                re[:] = v
            if part in (None, "im"):
                im[:] = v
            y[seg] = re + 1j * im if np.isfinite(v) else _complex(re, im)
        else:
            y[seg] = v
    return y


def _complex(re, im):
    """re + 1j*im without numpy's inf*1j = nan+inf j."""
    out = np.empty(len(re), dtype=np.complex64)
    out.real = re
    out.imag = im
    return out


def burst_mask(n, burst_list):
    touched = np.zeros(n, dtype=bool)
    for start, length, _ in burst_list:
        touched[start:start + length] = True
    return touched


def same_bits(a, b):
    """Equal as float32 bit patterns, all NaN equal."""
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    return (a.shape == b.shape) and bool(np.all((a.view(np.uint32) == b.view(np.uint32))
                                                | (np.isnan(a) & np.isnan(b))))


def run_stream(blk, sources, n_outputs, vlens):
    """Runs sources -> blk -> vector sinks; the outputs as float arrays (items, vlen)."""
    tb = gr.top_block()
    for i, src in enumerate(sources):
        tb.connect(src, (blk, i))
    sinks = []
    for i in range(n_outputs):
        snk = blocks.vector_sink_f(vlens[i])
        tb.connect((blk, i), snk)
        sinks.append(snk)
    tb.run()
    return [np.array(s.data(), dtype=np.float32).reshape(-1, vlens[i])
            for i, s in enumerate(sinks)]


def wrapped_walk(rng, n, period):
    """A phase that moves by less than a third of a period per sample, wrapped."""
    phase = np.cumsum(rng.uniform(-period / 3, period / 3, n))
    return (np.mod(phase + period / 2, period) - period / 2).astype(np.float32)


# --------------------------------------------------------------------------------------
class qa_properties(gr_unittest.TestCase, constructor_checks):

    @classmethod
    def setUpClass(cls):
        print("hypothesis: %s" % ("seed %s" % SEED if SEED is not None else
                                  "derandomized (CUDADSP_PROPERTY_SEED=<n> for others)"),
              file=sys.stderr)

    # ---------------------------------------------------------------- phase_unwrap_ff
    @property_test(150)
    @given(vlen=small_ints(1, 7), period=floats_around(2 * math.pi, 360.0, 1e-30, 1e30),
           device=DEVICES, batch_samples=small_ints(1, 1 << 20))
    def test_phase_unwrap_ff_constructor(self, vlen, period, device, batch_samples):
        self.check_constructor(cudadsp.phase_unwrap_ff, dict(
            vlen=vlen, period=period, device=device, batch_samples=batch_samples))

    @property_test(50)
    @given(data=st.data(), period=st.sampled_from([2 * math.pi, 360.0, 1.0, 0.37]),
           vlen=st.sampled_from([1, 1, 7]), rng_seed=st.integers(0, 2**32 - 1))
    def test_phase_unwrap_ff_bursts(self, data, period, vlen, rng_seed):
        n = 7 * 300
        x = wrapped_walk(np.random.default_rng(rng_seed), n, period)
        burst_list = data.draw(bursts(n, max_len=50))
        xb = apply_bursts(x, burst_list).astype(np.float32)

        def run(inp):
            blk = cudadsp.phase_unwrap_ff(vlen, period, device="cpu", batch_samples=1 << 10)
            src = blocks.vector_source_f(inp.tolist(), False, vlen)
            return run_stream(blk, [src], 1, [vlen])[0].ravel()

        clean, got = run(x), run(xb)
        self.assertEqual(len(got), n)
        touched = burst_mask(n, burst_list)
        if vlen > 1:
            hit = touched.reshape(-1, vlen).any(axis=1)
            self.assertTrue(same_bits(got.reshape(-1, vlen)[~hit], clean.reshape(-1, vlen)[~hit]))
            return
        # The rule: samples that count are finite and below 2^24 periods; the output is
        # numpy.unwrap of them (float64), NaN elsewhere.
        x64 = xb.astype(np.float64)
        counts = np.isfinite(x64) & (np.abs(x64) < 2.0**24 * period)
        self.assertTrue(np.all(np.isnan(got[~counts])))
        ref = np.unwrap(x64[counts], period=period)
        np.testing.assert_array_equal(np.round((got[counts] - x64[counts]) / period),
                                      np.round((ref - x64[counts]) / period))
        # Recovery: after the last burst sample, a constant whole number of periods off
        # the clean run.
        after = np.arange(n) > np.flatnonzero(touched).max()
        if after.any():
            k = np.round((got[after].astype(np.float64) - clean[after]) / period)
            self.assertEqual(len(np.unique(k)), 1)
            np.testing.assert_allclose(got[after], clean[after] + k * period,
                                       rtol=1e-6, atol=1e-4 * period)

    # ------------------------------------------------------------- phase_unwrap_2d_ff
    @property_test(150)
    @given(width=small_ints(8), height=small_ints(8),
           method=st.sampled_from(["reliability", "least_squares", "", "Reliability", "x"]),
           period=floats_around(2 * math.pi), gradient_window=ints_around(7, 1, 3, 0),
           max_iterations=ints_around(100, 1), tolerance=floats_around(1e-5, 1.0),
           device=DEVICES)
    def test_phase_unwrap_2d_ff_constructor(self, width, height, method, period,
                                            gradient_window, max_iterations, tolerance,
                                            device):
        self.check_constructor(cudadsp.phase_unwrap_2d_ff, dict(
            width=width, height=height, method=method, period=period,
            gradient_window=gradient_window, max_iterations=max_iterations,
            tolerance=tolerance, device=device))

    @property_test(20)
    @given(data=st.data(), method=st.sampled_from(["reliability", "least_squares"]),
           rng_seed=st.integers(0, 2**32 - 1))
    def test_phase_unwrap_2d_ff_bursts(self, data, method, rng_seed):
        w, h, frames = 24, 17, 4
        rng = np.random.default_rng(rng_seed)
        yy, xx = np.mgrid[0:h, 0:w]
        images = []
        for _ in range(frames):
            phase = rng.uniform(-1, 1) * xx + rng.uniform(-1, 1) * yy + 0.2 * rng.standard_normal((h, w))
            images.append(np.angle(np.exp(1j * phase)).ravel())
        x = np.concatenate(images).astype(np.float32)
        burst_list = data.draw(bursts(len(x), max_len=40))
        xb = apply_bursts(x, burst_list).astype(np.float32)

        def run(inp):
            blk = cudadsp.phase_unwrap_2d_ff(w, h, method=method, device="cpu")
            return run_stream(blk, [blocks.vector_source_f(inp.tolist(), False, w * h)],
                              1, [w * h])[0]

        clean, got = run(x), run(xb)
        self.assertEqual(got.shape, (frames, w * h))
        hit = burst_mask(len(x), burst_list).reshape(frames, -1).any(axis=1)
        self.assertTrue(same_bits(got[~hit], clean[~hit]))
        # A non-finite input pixel is not valid: NaN out.
        bad = ~np.isfinite(xb.reshape(frames, -1))
        self.assertTrue(np.all(np.isnan(got[bad])))

    # ------------------------------------------------------------ cross_correlator_cc
    @property_test(150)
    @given(fft_len=small_ints(64, 1, 2, 1 << 24), interp=ints_around(16, 1, 256, 257),
           max_lag=ints_around(0, 63, 64), spectrum_output=st.booleans(),
           correlation_output=st.booleans(), device=DEVICES)
    def test_cross_correlator_cc_constructor(self, fft_len, interp, max_lag, spectrum_output,
                                             correlation_output, device):
        self.check_constructor(cudadsp.cross_correlator_cc, dict(
            fft_len=fft_len, interp=interp, max_lag=max_lag, spectrum_output=spectrum_output,
            correlation_output=correlation_output, device=device))

    @property_test(50)
    @given(data=st.data(), fft_len=st.integers(4, 96), part=st.sampled_from(["re", "im", None]),
           rng_seed=st.integers(0, 2**32 - 1))
    def test_cross_correlator_cc_bursts(self, data, fft_len, part, rng_seed):
        frames = 9
        n = frames * fft_len
        rng = np.random.default_rng(rng_seed)
        y = (rng.standard_normal(n + 3) + 1j * rng.standard_normal(n + 3)).astype(np.complex64)
        x = (np.roll(y, 3) + 0.3 * (rng.standard_normal(n + 3) + 1j * rng.standard_normal(n + 3)))
        x, y = x[:n].astype(np.complex64), y[:n]
        on_x = data.draw(st.booleans())
        burst_list = data.draw(bursts(n, max_len=fft_len * 2))
        xb = apply_bursts(x, burst_list, part) if on_x else x
        yb = y if on_x else apply_bursts(y, burst_list, part)

        def run(a, b):
            blk = cudadsp.cross_correlator_cc(fft_len, interp=4, correlation_output=True,
                                              device="cpu")
            src = [blocks.vector_source_c(a.tolist()), blocks.vector_source_c(b.tolist())]
            return run_stream(blk, src, 4, [1, 1, 1, 2 * 2 * (fft_len - 1) + 2])

        clean, got = run(x, y), run(xb, yb)
        for c, g in zip(clean, got):
            self.assertEqual(len(g), frames)
        hit = burst_mask(n, burst_list).reshape(frames, -1)
        for c, g in zip(clean, got):
            self.assertTrue(same_bits(g[~hit.any(axis=1)], c[~hit.any(axis=1)]))
        kinds = np.full(n, "", dtype=object)
        for start, length, kind in burst_list:
            kinds[start:start + length] = kind
        # A frame holding NaN, Inf or 3e38 (in a part that was written) has NaN lag.
        bad = np.array([any(k in ("nan", "+inf", "-inf", "+3e38", "-3e38") for k in row)
                        for row in kinds.reshape(frames, -1)])
        self.assertTrue(np.all(np.isnan(got[0][bad, 0])))

    # ------------------------------------------------------- polarimetric_products_cf
    @property_test(150)
    @given(ngates=small_ints(16), pulses_per_radial=small_ints(36, 2),
           wavelength_m=floats_around(0.0531, 1e-4, 1e3), prt_s=floats_around(1e-3, 1e-7, 10.0),
           first_gate_m=floats_around(0.0), gate_spacing_m=floats_around(150.0),
           zcal_db=floats_around(0.0, 1000.0, 1001.0), zdr_cal_db=floats_around(0.0, 100.0),
           phidp_offset_deg=floats_around(0.0, 360.0), noise_h=floats_around(0.0, 1.0),
           noise_v=floats_around(0.0, 1.0), snr_threshold_db=floats_around(-1e9, 3.0),
           mode=st.sampled_from(["simultaneous", "alternating", "", "x"]),
           clutter_filter=st.sampled_from(["none", "gmap", "notch", "GMAP", ""]),
           cpa_threshold=floats_around(0.7, 1.0), antenna_rate_deg_s=floats_around(0.0, 20.0),
           beamwidth_deg=floats_around(1.0), scan_start_azimuth_deg=floats_around(0.0),
           scan_elevation_deg=floats_around(0.5), device=DEVICES)
    def test_polarimetric_products_cf_constructor(self, **kwargs):
        self.check_constructor(cudadsp.polarimetric_products_cf, kwargs)

    @property_test(50)
    @given(data=st.data(), ngates=st.integers(1, 12), ppr=st.integers(2, 12),
           noise=st.sampled_from([0.0, 0.5]), part=st.sampled_from(["re", "im", None]),
           rng_seed=st.integers(0, 2**32 - 1))
    def test_polarimetric_products_cf_bursts(self, data, ngates, ppr, noise, part, rng_seed):
        radials = 5
        n = radials * ppr * ngates
        rng = np.random.default_rng(rng_seed)
        h = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
        v = (0.8 * h + 0.3 * (rng.standard_normal(n) + 1j * rng.standard_normal(n))).astype(np.complex64)
        on_h = data.draw(st.booleans())
        burst_list = data.draw(bursts(n, max_len=2 * ngates))
        hb = apply_bursts(h, burst_list, part) if on_h else h
        vb = v if on_h else apply_bursts(v, burst_list, part)

        def run(a, b):
            blk = cudadsp.polarimetric_products_cf(ngates, ppr, noise_h=noise, noise_v=noise,
                                                   snr_threshold_db=-1e9 if noise == 0 else 0.0,
                                                   device="cpu")
            src = [blocks.vector_source_c(a.tolist(), False, ngates),
                   blocks.vector_source_c(b.tolist(), False, ngates)]
            return run_stream(blk, src, 7, [ngates] * 7)

        clean, got = run(h, v), run(hb, vb)
        # Cell (radial, gate) is touched when a pulse of that radial at that gate is.
        hit = burst_mask(n, burst_list).reshape(radials, ppr, ngates).any(axis=1)
        for c, g in zip(clean, got):
            self.assertEqual(g.shape, (radials, ngates))
            self.assertTrue(same_bits(g[~hit], c[~hit]))

    # ------------------------------------------------------------------------ kdp_ff
    @property_test(150)
    @given(ngates=small_ints(100), gate_spacing_m=floats_around(150.0, 1.0),
           window_km=floats_around(3.0, 0.1), max_gap_km=floats_around(1.0, 0.0),
           use_rhohv=st.booleans(), use_snr=st.booleans(), min_rhohv=floats_around(0.8, 1.0),
           min_snr_db=floats_around(3.0), device=DEVICES)
    def test_kdp_ff_constructor(self, **kwargs):
        self.check_constructor(cudadsp.kdp_ff, kwargs)

    @property_test(50)
    @given(data=st.data(), ngates=st.integers(30, 120), rng_seed=st.integers(0, 2**32 - 1))
    def test_kdp_ff_bursts(self, data, ngates, rng_seed):
        radials = 6
        rng = np.random.default_rng(rng_seed)
        phidp = np.cumsum(rng.uniform(0, 4, (radials, ngates)), axis=1) + rng.normal(0, 2, (radials, ngates))
        x = (np.mod(phidp + 180, 360) - 180).astype(np.float32).ravel()
        burst_list = data.draw(bursts(len(x), max_len=ngates))
        xb = apply_bursts(x, burst_list).astype(np.float32)

        def run(inp):
            blk = cudadsp.kdp_ff(ngates, device="cpu")
            return run_stream(blk, [blocks.vector_source_f(inp.tolist(), False, ngates)],
                              2, [ngates, ngates])

        clean, got = run(x), run(xb)
        hit = burst_mask(len(x), burst_list).reshape(radials, ngates).any(axis=1)
        for c, g in zip(clean, got):
            self.assertEqual(g.shape, (radials, ngates))
            self.assertTrue(same_bits(g[~hit], c[~hit]))

    # ---------------------------------------------------------------------- st_tbd_ff
    @property_test(150)
    @given(width=small_ints(16), height=small_ints(16), vmax=floats_around(1.0, 2.0),
           weight=floats_around(0.5, 1.0, 1.0000001, 1e30), alpha=floats_around(0.9, 0.0, 1.0),
           threshold=floats_around(1.0), max_detections=ints_around(1024, 0),
           batch_frames=ints_around(0, 1), device=DEVICES)
    def test_st_tbd_ff_constructor(self, width, height, vmax, weight, alpha, threshold,
                                   max_detections, batch_frames, device):
        hypotheses = [(vmax, 0.0, [(0, vmax, 0.0, weight)]), (0.0, 0.0, [(1, 0.0, 0.0, 0.5)])]
        self.check_constructor(cudadsp.st_tbd_ff, dict(
            width=width, height=height, hypotheses=hypotheses, alpha=alpha,
            threshold=threshold, max_detections_per_frame=max_detections,
            batch_frames=batch_frames, device=device))

    @property_test(40)
    @given(data=st.data(), alpha=st.sampled_from([0.5, 0.8, 0.9]),
           rng_seed=st.integers(0, 2**32 - 1))
    def test_st_tbd_ff_bursts(self, data, alpha, rng_seed):
        w, h, frames = 12, 9, 40
        rng = np.random.default_rng(rng_seed)
        x = rng.standard_normal(frames * w * h).astype(np.float32)
        burst_list = data.draw(bursts(len(x), max_len=3 * w * h))
        xb = apply_bursts(x, burst_list).astype(np.float32)
        hypotheses = cudadsp.tbd_velocity_grid(1.0, 0.5, 0.25)

        def run(inp):
            blk = cudadsp.st_tbd_ff(w, h, hypotheses, alpha=alpha, threshold=1e30, device="cpu")
            return run_stream(blk, [blocks.vector_source_f(inp.tolist(), False, w * h)],
                              1, [w * h])[0]

        got = run(xb)
        self.assertEqual(got.shape, (frames, w * h))
        self.assertTrue(np.all(np.isfinite(got)))
        # NaN and Inf count as 0: the same maps as the input with those samples at 0.
        zeroed = np.where(np.isfinite(xb), xb, np.float32(0))
        finite_bursts = [b for b in burst_list if b[2] not in NON_FINITE]
        if not finite_bursts:
            self.assertTrue(same_bits(got, run(zeroed)))
            return
        # A finite burst is data: n frames after its last frame, the maps are within
        # alpha^n times its size of those of the input without it.
        reference_input = np.where(np.isfinite(xb), x, np.float32(0))
        reference = run(reference_input).astype(np.float64)
        size = np.max(np.abs(xb.astype(np.float64) - reference_input)[np.isfinite(xb)])
        last = np.flatnonzero(np.isfinite(xb) & (xb != reference_input)).max() // (w * h)
        for k in range(last + 1, frames):
            bound = alpha ** (k - last) * size * 1.001 + 1e-5
            self.assertLessEqual(np.max(np.abs(got[k] - reference[k])), bound, k)

    # ------------------------------------------------------------------ patch_xcorr_cc
    @property_test(150)
    @given(width=small_ints(512, 200), nx=small_ints(4, 1), first_line=ints_around(-1, 0),
           line_step=small_ints(64, 1), xsearch=small_ints(16, 2, 4), ysearch=small_ints(16, 2),
           range_interp=ints_around(2, 1, 3), interp=ints_around(16, 0, 2),
           rshift=ints_around(0, 3), ashift=ints_around(0, -3), device=DEVICES)
    def test_patch_xcorr_cc_constructor(self, **kwargs):
        self.check_constructor(cudadsp.patch_xcorr_cc, kwargs)

    @property_test(20)
    @given(data=st.data(), rng_seed=st.integers(0, 2**32 - 1))
    def test_patch_xcorr_cc_bursts(self, data, rng_seed):
        width, lines, xs, ys, step = 160, 112, 8, 8, 16
        rng = np.random.default_rng(rng_seed)
        master = (rng.standard_normal((lines + 4, width + 4))
                  + 1j * rng.standard_normal((lines + 4, width + 4))).astype(np.complex64)
        aligned = master[1:lines + 1, 2:width + 2]
        master = master[:lines, :width]
        burst_list = data.draw(bursts(lines * width, max_len=3 * width))
        on_master = data.draw(st.booleans())
        mb = apply_bursts(master.ravel(), burst_list) if on_master else master.ravel()
        ab = aligned.ravel() if on_master else apply_bursts(aligned.ravel(), burst_list)

        def run(m, a):
            blk = cudadsp.patch_xcorr_cc(width, nx=3, line_step=step, xsearch=xs, ysearch=ys,
                                         range_interp=1, interp=4, device="cpu")
            src = [blocks.vector_source_c(m.tolist(), False, width),
                   blocks.vector_source_c(a.tolist(), False, width)]
            return run_stream(blk, src, 1, [5])[0], blk

        (clean, blk), (got, _) = run(master.ravel(), aligned.ravel()), run(mb, ab)
        self.assertEqual(got.shape, clean.shape)
        self.assertGreater(len(clean), 0)
        hit_lines = np.flatnonzero(burst_mask(lines * width, burst_list).reshape(lines, width).any(axis=1))
        for i, rec in enumerate(clean):
            y = int(rec[2])
            # Strip lines read: y - 2 ysearch .. y + 2 ysearch - 1 (ashift 0).
            touched = np.any((hit_lines >= y - 2 * ys) & (hit_lines <= y + 2 * ys - 1))
            if not touched:
                self.assertTrue(same_bits(got[i], rec), (i, rec, got[i]))

    # ------------------------------------------------- multichannel_correlator_cc/_sc
    FS = 4.0e6

    @property_test(150)
    @given(sample_rate_hz=floats_around(4e6, 2.0**32, 1e12), tap=floats_around(0.5, 2.0**30),
           max_channels=ints_around(1024, 1), prn=ints_around(5, 1, 32, 33),
           doppler_hz=floats_around(1000.0, 2e6), pll_bandwidth_hz=floats_around(15.0, 500.0, 501.0),
           cn0_epochs=ints_around(50, 2, 2**30), intermediate_frequency_hz=floats_around(0.0, 2e6),
           batch_ms=floats_around(10.0), lock_loss_windows=ints_around(4, 0),
           device=DEVICES)
    def test_multichannel_correlator_cc_constructor(self, sample_rate_hz, tap, max_channels, prn,
                                                    doppler_hz, pll_bandwidth_hz, cn0_epochs,
                                                    intermediate_frequency_hz, batch_ms,
                                                    lock_loss_windows, device):
        channels = [dict(id=1, prn=prn, doppler_hz=doppler_hz, pll_bandwidth_hz=pll_bandwidth_hz,
                         cn0_epochs=cn0_epochs)]
        for make in (cudadsp.multichannel_correlator_cc, cudadsp.multichannel_correlator_sc):
            self.check_constructor(make, dict(
                sample_rate_hz=sample_rate_hz, tap_offsets_chips=[-tap, 0.0, tap],
                max_channels=max_channels, channels=channels,
                intermediate_frequency_hz=intermediate_frequency_hz, batch_ms=batch_ms,
                device=device, lock_loss_windows=lock_loss_windows))

    def track(self, make, samples, burst_end, truth, epochs_to_recover):
        """Tracks one satellite from its truth; checks the records after the burst."""
        prn, phase, doppler = truth
        ch = dict(id=1, prn=prn, code_phase_chips=phase, doppler_hz=doppler, start_sample=0)
        blk = make(self.FS, channels=[ch], device="cpu")
        if make is cudadsp.multichannel_correlator_sc:
            src = blocks.vector_source_s(samples.ravel().tolist(), False, 2)
        else:
            src = blocks.vector_source_c(samples.tolist())
        sink = cudadsp.gnss_record_sink(3)
        tb = gr.top_block()
        tb.connect(src, blk)
        tb.connect((blk, 0), (sink, 0))
        tb.connect((blk, 1), (sink, 1))
        tb.run()
        rec = sink.records()
        n = len(samples)
        # Every sample in exactly one epoch until the last whole one.
        starts = rec["start_sample"].astype(np.int64)
        counts = rec["sample_count"].astype(np.int64)
        self.assertEqual(starts[0], 0)
        np.testing.assert_array_equal(starts[1:], starts[:-1] + counts[:-1])
        self.assertGreater(starts[-1] + counts[-1], n - 2 * counts[-1])
        np.testing.assert_array_equal(rec["epoch"], np.arange(len(rec)))
        return rec

    def check_recovered(self, rec, sim, burst_end, epochs_to_recover):
        next_sample = rec["start_sample"].astype(np.float64) + rec["sample_count"]
        first = np.searchsorted(rec["start_sample"], burst_end) + epochs_to_recover
        self.assertLess(first, len(rec) - 20, "stream too short to see the recovery")
        tail = rec[first:]
        truth = sim.code_phase_chips(0, next_sample[first:])
        err = (tail["code_phase_chips"] - truth + 511.5) % 1023 - 511.5
        self.assertLess(np.max(np.abs(err)), 0.05)
        self.assertLess(np.max(np.abs(tail["doppler_hz"] - sim.doppler_hz(0, next_sample[first:]))), 10.0)
        self.assertTrue(np.all(tail["flags"] & 4), "code lock")
        self.assertTrue(np.all(tail["flags"] & 1), "tracking")

    # One satellite at 45 dB-Hz; the channel starts on its truth. The signal is made
    # once (the simulator takes seconds on a loaded machine); the bursts vary.
    GNSS_SATELLITE = dict(prn=7, code_phase_chips=412.3, doppler_hz=-2210.0, cn0_dbhz=45.0)
    GNSS_SECONDS = 0.35
    _gnss_signals = {}

    def gnss_signal(self, form):
        if form not in self._gnss_signals:
            sim = make_simulator(self.FS, [self.GNSS_SATELLITE], seed=5)
            n = int(self.GNSS_SECONDS * self.FS)
            self._gnss_signals[form] = (sim.generate(n).astype(np.complex64) if form == "fc32"
                                        else sim.generate_ci16(n, 300.0).reshape(-1, 2))
        return self._gnss_signals[form]

    def gnss_truth(self):
        return make_simulator(self.FS, [self.GNSS_SATELLITE], seed=5)

    @property_test(8)
    @given(kind=st.sampled_from(list(BURST_VALUES)), start_ms=st.integers(60, 150),
           length=st.sampled_from([1, 37, 1000, 2000, 40000]))
    def test_multichannel_correlator_cc_bursts(self, kind, start_ms, length):
        s = self.GNSS_SATELLITE
        truth = (s["prn"], s["code_phase_chips"], s["doppler_hz"])
        start = int(start_ms * 1e-3 * self.FS)
        xb = apply_bursts(self.gnss_signal("fc32"), [(start, length, kind)]).astype(np.complex64)
        rec = self.track(cudadsp.multichannel_correlator_cc, xb, start + length, truth, 100)
        self.check_recovered(rec, self.gnss_truth(), start + length, 100)
        # A burst of NaN, Inf or 3e38 holds its epochs (flag 16), nothing else does.
        held = (rec["flags"] & 16) != 0
        if kind == "denormal":
            self.assertFalse(held.any())
        else:
            self.assertTrue(held.any())
            self.assertTrue(np.all(rec["start_sample"][held] + rec["sample_count"][held] > start))
            self.assertTrue(np.all(rec["start_sample"][held] < start + length))

    @property_test(6)
    @given(value=st.sampled_from([32767, -32768, 0]), start_ms=st.integers(60, 150),
           length=st.sampled_from([1, 1000, 40000]))
    def test_multichannel_correlator_sc_bursts(self, value, start_ms, length):
        # int16 has no NaN: its hostile bursts are full scale and zeros.
        s = self.GNSS_SATELLITE
        truth = (s["prn"], s["code_phase_chips"], s["doppler_hz"])
        iq = self.gnss_signal("ci16").copy()
        start = int(start_ms * 1e-3 * self.FS)
        iq[start:start + length] = value
        rec = self.track(cudadsp.multichannel_correlator_sc, iq, start + length, truth, 100)
        self.check_recovered(rec, self.gnss_truth(), start + length, 100)

    # ------------------------------------------------------------ pcps_acquisition_cc
    @property_test(150)
    @given(sample_rate_hz=floats_around(4e6, 1e12), signal=st.sampled_from(
        ["gps_l1ca", "galileo_e1", "glonass_l1of", "GPS", ""]),
        satellites=st.lists(ints_around(1, 32, 33), max_size=3),
        doppler_max_hz=floats_around(10e3, 1e6), doppler_step_hz=floats_around(500.0, 1e-3),
        coherent_periods=small_ints(1, 20), noncoherent_dwells=small_ints(10, 1),
        false_alarm=floats_around(1e-3, 1.0), max_channels=ints_around(12, 0),
        satellites_per_search=ints_around(8, 0), first_channel_id=ints_around(0, 2**32 - 1),
        doppler_center_hz=floats_around(0.0), device=DEVICES)
    def test_pcps_acquisition_cc_constructor(self, **kwargs):
        self.check_constructor(cudadsp.pcps_acquisition_cc, kwargs)

    @property_test(6)
    @given(kind=st.sampled_from(list(BURST_VALUES)), length_ms=st.sampled_from([0.001, 1, 25]),
           rng_seed=st.integers(0, 1000))
    def test_pcps_acquisition_cc_bursts(self, kind, length_ms, rng_seed):
        spec = [dict(prn=3, code_phase_chips=120.4, doppler_hz=-2310.0, cn0_dbhz=46.0)]
        sim = make_simulator(self.FS, spec, seed=rng_seed)
        n = int(0.25 * self.FS)
        x = sim.generate(n).astype(np.complex64)
        length = max(1, int(length_ms * 1e-3 * self.FS))
        xb = apply_bursts(x, [(0, length, kind)]).astype(np.complex64)
        tb = gr.top_block()
        # Recording mode: every search runs on the samples that follow the last one,
        # whatever the machine's load (live, throttled, a starved CPU got through no
        # clean search before the stream ended).
        acq = cudadsp.pcps_acquisition_cc(self.FS, satellites=[3], satellites_per_search=1,
                                          device="cpu", stream_mode="recording")
        sink = blocks.message_debug()
        tb.connect(blocks.vector_source_c(xb.tolist()), acq)
        tb.msg_connect((acq, "detections"), (sink, "store"))
        tb.run()
        found = [pmt.to_python(sink.get_message(i)) for i in range(sink.num_messages())]
        self.assertEqual(len(found), 1, found)
        d = found[0]
        # A search holding NaN, Inf or 3e38 detects nothing; denormals are data.
        if kind != "denormal":
            self.assertGreaterEqual(d["start_sample"], length, d)
        sim = make_simulator(self.FS, spec, seed=rng_seed)
        err = (d["code_phase_chips"] - sim.code_phase_chips(0, d["start_sample"]) + 511.5) % 1023 - 511.5
        self.assertLess(abs(err), 0.1, d)
        self.assertLess(abs(d["doppler_hz"] - sim.doppler_hz(0, d["start_sample"])), 80.0, d)


if __name__ == "__main__":
    data_files.run_tests()
