#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
GNSS signal acquisition with the multichannel correlator as the search grid.

Every (PRN, Doppler bin) is a set of open-loop channels of one multichannel_correlator_cc
block, and every code-phase hypothesis one tap of those channels (64 taps a channel),
so a grid of PRN x Doppler x code phase is one flowgraph run: a vector source with the
samples, the correlator, and a gnss_record_sink. The tap powers are summed over the
epochs (code periods) available -- coherent within a period, non-coherent across.

Detection: the metric is the grid's peak over its mean (peak-to-mean ratio). Where there
is only noise, each cell is a sum of K independent exponential powers, so cell / mean
is Gamma(K, 1) / K, and the threshold is the value one cell exceeds with probability
false_alarm / cells (default false_alarm 1e-3 for a PRN's whole grid),
gamma_threshold(). K is at most epochs x grids summed, but the noise of successive
epochs need not be independent (a simulated recording may repeat its noise every
code period), so K is measured: 1 / variance of cell / mean over the grid outside +-2
chips of the peak, rounded down, within 1 .. epochs x grids. The peak-to-second-peak ratio
(the peak over the highest value outside +-2 chips of it, GNSS-SDR's "second peak"
statistic) is reported beside it.

Two passes keep the grid affordable on a CPU as well:

* Coarse: the stream is low-pass filtered and decimated to about 1 Msps in the
  flowgraph (GNU Radio's freq_xlating_fir_filter_ccf; GNSS-SDR's acquisition
  resampler does the same), hypotheses every half chip, Doppler bins of 2/(3 T) for a
  coherent time T (667 Hz for GPS L1 C/A, 167 Hz for Galileo E1).
  Galileo E1 uses the BPSK-like method: the filter shifts the upper BOC(1,1) side lobe
  (+1.023 MHz) to 0 Hz, and channels correlate it with the bare E1-C (pilot) primary
  code ("boc": False), whose correlation peak is two chips wide like GPS's.
* Fine: at the full rate, for the detected PRNs only, taps every 1/16 chip over +-2
  chips of the coarse peak and Doppler bins of 1/8 of the coarse step over +-1 coarse
  step; Galileo with the BOC(1,1) tables of E1-B and E1-C, combined per epoch as
  max(|B + C|^2, |B - C|^2) (data bit unknown). The peak is refined by parabolic
  interpolation in both directions.

Conventions of the results (acquisition_result):

* ``delay_samples``: the sample index, within the first code period of the samples
  given, at which a code period begins (its chip 0 starts), the "code delay" of
  GNSS-SDR's acquisition and of the stated truths of its test recordings.
* ``code_phase_chips``: the code phase at sample 0, i.e. the value of a channel's
  "code_phase_chips" with "start_sample": 0 that follows the satellite;
  delay_samples = (L - code_phase_chips) / code_rate * sample_rate (mod one period).
* ``doppler_hz``: carrier frequency minus IF, the sign of the engine's carrier NCO
  (the replica is exp(-j 2 pi (IF + Doppler) t)).

acquisition_result.channel() turns a result into a channel dict that starts a tracking
channel from sample 0 (past samples are skipped exactly, so the dict may reach the block
long after those samples went by).
"""

from dataclasses import dataclass, field
import math

import numpy as np
from gnuradio import blocks, fft, gr
from gnuradio import filter as gr_filter
from gnuradio.filter import firdes

from cudadsp.gnss import galileo_e1_chip_rate_cps, gps_l1_frequency_hz, gps_l1ca_chip_rate_cps
from ..cudadsp_python import multichannel_correlator_cc
from .records import gnss_record_sink

#: Taps per channel in the search grid (the correlator's maximum).
GRID_TAPS = 64
#: Code-phase hypotheses per chip in the coarse pass.
COARSE_HYPOTHESES_PER_CHIP = 2
#: Fine pass: taps per chip, and the span in chips either side of the coarse peak.
FINE_TAPS_PER_CHIP = 16
FINE_SPAN_CHIPS = 2.0
#: Fine Doppler bins per coarse bin.
FINE_DOPPLER_DIVISION = 8
#: The second peak is sought outside this many chips of the peak.
SECOND_PEAK_EXCLUSION_CHIPS = 2.0
#: Default probability that noise alone crosses the threshold somewhere in one PRN's grid.
DEFAULT_FALSE_ALARM = 1e-3
#: Channels per flowgraph run: bounds the memory of one run's records.
MAX_CHANNELS_PER_RUN = 8192


@dataclass(frozen=True)
class gnss_signal:
    """What acquisition needs to know of a signal."""
    name: str
    chips: int                  # primary code length
    chip_rate_cps: float
    carrier_hz: float           # nominal carrier (code Doppler follows the carrier)
    # Coarse pass: (correlator "system", BOC table, frequency shifted to 0 Hz) of each
    # grid whose powers are summed.
    coarse_branches: tuple
    coarse_rate_hz: float       # rate the coarse pass decimates to
    fine_systems: tuple         # correlator "system"s combined in the fine pass

    @property
    def period_s(self):
        return self.chips / self.chip_rate_cps


GPS_L1CA = gnss_signal("gps_l1ca", 1023, gps_l1ca_chip_rate_cps, gps_l1_frequency_hz,
                       (("gps_l1ca", False, 0.0),), 2.0e6, ("gps_l1ca",))
_FSC = galileo_e1_chip_rate_cps
GALILEO_E1 = gnss_signal("galileo_e1", 4092, galileo_e1_chip_rate_cps, gps_l1_frequency_hz,
                         (("galileo_e1c", False, _FSC), ("galileo_e1c", False, -_FSC),
                          ("galileo_e1b", False, _FSC), ("galileo_e1b", False, -_FSC)),
                         1.0e6, ("galileo_e1b", "galileo_e1c"))


@dataclass
class acquisition_result:
    """One PRN's acquisition (see the module documentation for the conventions)."""
    signal: str
    prn: int
    detected: bool
    metric: float               # peak-to-mean ratio of the coarse grid
    threshold: float            # detection threshold on the metric
    independent_sums: int       # K of the noise statistics the threshold assumes
    second_peak_ratio: float    # peak over the highest value outside +-2 chips
    delay_samples: float
    code_phase_chips: float
    doppler_hz: float
    code_rate_cps: float
    sample_rate_hz: float
    epochs: int                 # code periods summed non-coherently
    dopplers_hz: np.ndarray = field(repr=False, default=None)
    code_phases_chips: np.ndarray = field(repr=False, default=None)
    grid: np.ndarray = field(repr=False, default=None)  # coarse, Doppler x code phase

    @property
    def delay_chips(self):
        return self.delay_samples * self.code_rate_cps / self.sample_rate_hz

    def channel(self, id, start_sample=0, mode="tracking", **extra):
        """A channel dict following this satellite from ``start_sample`` (an absolute
        sample index of the stream the samples came from, 0 for its first sample)."""
        system = {"gps_l1ca": "gps_l1ca", "galileo_e1": "galileo_e1c"}[self.signal]
        phase = self.code_phase_chips + start_sample * self.code_rate_cps / self.sample_rate_hz
        chips = GPS_L1CA.chips if self.signal == "gps_l1ca" else GALILEO_E1.chips
        d = {"id": int(id), "system": system, "prn": int(self.prn),
             "code_phase_chips": float(phase % chips), "doppler_hz": float(self.doppler_hz),
             "start_sample": int(start_sample), "mode": mode}
        d.update(extra)
        return d


def _wrap(x, period):
    """x into [-period / 2, period / 2)."""
    return (np.asarray(x) + period / 2.0) % period - period / 2.0


def _grid_powers(samples, sample_rate_hz, signal, system, boc, prn_list, dopplers,
                 hypotheses, device, decimation=1, shift_hz=0.0, cutoff_hz=None):
    """
    Runs the correlator over ``samples`` with one open-loop channel per 64 hypotheses,
    per Doppler, per PRN (``hypotheses``: code phases in chips at the first sample of
    the correlator's input, which is the filter's output when ``decimation`` > 1).
    Returns {prn: power array (len(dopplers), len(hypotheses))} summed over the epochs,
    and the number of epochs.
    """
    L = signal.chips
    rate = sample_rate_hz / decimation
    hypotheses = np.asarray(hypotheses, dtype=np.float64)
    nblocks = -(-len(hypotheses) // GRID_TAPS)
    padded = np.concatenate([hypotheses,
                             np.full(nblocks * GRID_TAPS - len(hypotheses), hypotheses[-1])])
    # Every channel's prompt (offset 0 is the prompt tap) starts epsilon chips into a
    # period at sample 0, so all epochs end together just before each period boundary
    # and the last one completes within the samples, whatever the code Doppler.
    nsamples = len(samples) // decimation
    periods = nsamples / (L / signal.chip_rate_cps * rate)
    drift = periods * L * float(np.max(np.abs(dopplers))) / signal.carrier_hz
    epsilon = min(0.05 + 2.0 * drift, 0.25 * L)
    offsets = [np.ascontiguousarray(-_wrap(padded[b * GRID_TAPS:(b + 1) * GRID_TAPS] - epsilon, L))
               for b in range(nblocks)]
    jobs = [(prn, d, b) for prn in prn_list for d in range(len(dopplers)) for b in range(nblocks)]
    powers = {prn: np.zeros((len(dopplers), nblocks * GRID_TAPS)) for prn in prn_list}
    epochs = None
    taps_filter = None
    if decimation > 1:
        transition = 0.2 * rate
        taps_filter = firdes.low_pass(1.0, sample_rate_hz, cutoff_hz, transition,
                                      fft.window.WIN_HAMMING)
    src_samples = np.ascontiguousarray(samples, dtype=np.complex64)
    for first in range(0, len(jobs), MAX_CHANNELS_PER_RUN):
        run = jobs[first:first + MAX_CHANNELS_PER_RUN]
        channels = []
        for cid, (prn, d, b) in enumerate(run):
            ch = {"id": cid, "system": system, "prn": int(prn),
                  "code_phase_chips": epsilon, "doppler_hz": float(dopplers[d]),
                  "tap_offsets_chips": offsets[b], "prompt_tap": 0, "early_tap": 0,
                  "late_tap": 0, "mode": "open_loop", "start_sample": 0}
            if system.startswith("galileo"):
                ch["boc"] = bool(boc)
            channels.append(ch)
        tb = gr.top_block("gnss acquisition grid")
        src = blocks.vector_source_c(src_samples)
        corr = multichannel_correlator_cc(rate, [0.0] * GRID_TAPS, max_channels=len(channels),
                                          channels=channels, batch_ms=1000.0 * periods * signal.period_s,
                                          device=device)
        sink = gnss_record_sink(GRID_TAPS)
        if decimation > 1:
            filt = gr_filter.freq_xlating_fir_filter_ccf(decimation, taps_filter, shift_hz,
                                                         sample_rate_hz)
            tb.connect(src, filt, corr)
        else:
            tb.connect(src, corr)
        tb.connect((corr, 0), (sink, 0))
        tb.connect((corr, 1), (sink, 1))
        tb.run()
        taps = sink.taps()
        state = sink.state()
        ids = np.rint(state[:, 0]).astype(np.int64)
        counts = np.bincount(ids, minlength=len(run))
        if epochs is None:
            epochs = int(counts.min())
        if counts.min() != counts.max():
            raise RuntimeError("acquisition grid: channels completed %d to %d epochs"
                               % (counts.min(), counts.max()))
        power = np.zeros((len(run), GRID_TAPS))
        np.add.at(power, ids, np.abs(taps) ** 2)
        for cid, (prn, d, b) in enumerate(run):
            powers[prn][d, b * GRID_TAPS:(b + 1) * GRID_TAPS] = power[cid]
    return {prn: p[:, :len(hypotheses)] for prn, p in powers.items()}, epochs, taps_filter


def _second_peak_ratio(grid, hypotheses, peak_index, chips):
    """Peak over the highest value outside +-SECOND_PEAK_EXCLUSION_CHIPS of it."""
    d, j = peak_index
    far = np.abs(_wrap(hypotheses - hypotheses[j], chips)) > SECOND_PEAK_EXCLUSION_CHIPS
    second = grid[:, far].max() if np.any(far) else 0.0
    return float(grid[d, j] / second) if second > 0 else float("inf")


def gamma_tail(x, k):
    """P(X > x) for X ~ Gamma(k, 1), k a positive integer (a sum of k unit exponentials)."""
    term, total = 1.0, 1.0
    for i in range(1, int(k)):
        term *= x / i
        total += term
    return math.exp(-x) * total


def gamma_threshold(k, cells, false_alarm=DEFAULT_FALSE_ALARM):
    """The peak-to-mean threshold of a grid of ``cells`` cells, each a sum of k
    independent exponential powers under noise: x / k with P(Gamma(k, 1) > x) =
    false_alarm / cells."""
    target = false_alarm / cells
    lo, hi = 0.0, 10.0 * k + 50.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if gamma_tail(mid, k) > target:
            lo = mid
        else:
            hi = mid
    return hi / k


def independent_sums(grid, hypotheses, peak_index, chips, most):
    """The K of Gamma(K) / K that the noise cells of a grid follow: 1 / variance of
    cell / mean over the cells farther than SECOND_PEAK_EXCLUSION_CHIPS from the peak
    (the signal and its Doppler side lobes excluded), rounded down, within 1 .. most."""
    d, j = peak_index
    far = np.abs(_wrap(hypotheses - hypotheses[j], chips)) > SECOND_PEAK_EXCLUSION_CHIPS
    body = np.asarray(grid, dtype=np.float64)[:, far].ravel()
    if body.size < 2:
        return 1
    z = body / body.mean()
    # Rounded down: components of unequal noise power (side lobes, B and C) make the
    # tail heavier than Gamma(1 / variance) says.
    k = int(math.floor(1.0 / max(float(np.var(z)), 1e-12)))
    return int(min(max(k, 1), most))


def _parabolic(ym, y0, yp):
    """Offset in (-0.5, 0.5) of the vertex of the parabola through (-1, 0, +1)."""
    den = ym - 2.0 * y0 + yp
    if den >= 0.0:
        return 0.0
    return float(np.clip(0.5 * (ym - yp) / den, -0.5, 0.5))


def _fine(samples, sample_rate_hz, signal, prn, doppler_hz, code_phase_chips, coarse_step_hz,
          device):
    """Full-rate refinement around a coarse peak: (code phase, Doppler) at sample 0."""
    L = signal.chips
    step = coarse_step_hz / FINE_DOPPLER_DIVISION
    dopplers = doppler_hz + step * np.arange(-FINE_DOPPLER_DIVISION, FINE_DOPPLER_DIVISION + 1)
    hypotheses = (code_phase_chips + (np.arange(GRID_TAPS) - GRID_TAPS // 2) / FINE_TAPS_PER_CHIP) % L
    grids = []
    for system in signal.fine_systems:
        # One run per component, each with the epochs' complex taps kept.
        grids.append(_fine_taps(samples, sample_rate_hz, signal, system, prn, dopplers,
                                hypotheses, device))
    if len(grids) == 1:
        power = np.sum(np.abs(grids[0]) ** 2, axis=0)
    else:
        b, c = grids
        # Data bit unknown: the better of B + C and B - C in every epoch.
        power = np.sum(np.maximum(np.abs(b + c) ** 2, np.abs(b - c) ** 2), axis=0)
    d, k = np.unravel_index(np.argmax(power), power.shape)
    dd = _parabolic(*power[d - 1:d + 2, k]) if 0 < d < len(dopplers) - 1 else 0.0
    dk = _parabolic(*power[d, k - 1:k + 2]) if 0 < k < GRID_TAPS - 1 else 0.0
    doppler = dopplers[d] + dd * step
    phase = (hypotheses[k] + dk / FINE_TAPS_PER_CHIP) % L
    return phase, doppler


def _fine_taps(samples, sample_rate_hz, signal, system, prn, dopplers, hypotheses, device):
    """Complex taps per epoch: array (epochs, len(dopplers), GRID_TAPS)."""
    L = signal.chips
    periods = len(samples) / (signal.period_s * sample_rate_hz)
    drift = periods * L * float(np.max(np.abs(dopplers))) / signal.carrier_hz
    epsilon = min(0.05 + 2.0 * drift, 0.25 * L)
    offsets = np.ascontiguousarray(-_wrap(np.asarray(hypotheses) - epsilon, L))
    channels = [{"id": d, "system": system, "prn": int(prn), "code_phase_chips": epsilon,
                 "doppler_hz": float(f), "tap_offsets_chips": offsets, "prompt_tap": 0,
                 "early_tap": 0, "late_tap": 0, "mode": "open_loop", "start_sample": 0}
                for d, f in enumerate(dopplers)]
    tb = gr.top_block("gnss acquisition fine grid")
    src = blocks.vector_source_c(np.ascontiguousarray(samples, dtype=np.complex64))
    corr = multichannel_correlator_cc(sample_rate_hz, [0.0] * GRID_TAPS,
                                      max_channels=len(channels), channels=channels,
                                      device=device)
    sink = gnss_record_sink(GRID_TAPS)
    tb.connect(src, corr)
    tb.connect((corr, 0), (sink, 0))
    tb.connect((corr, 1), (sink, 1))
    tb.run()
    taps = sink.taps()
    state = sink.state()
    ids = np.rint(state[:, 0]).astype(np.int64)
    epoch = np.rint(state[:, 1]).astype(np.int64)
    nepochs = int(np.bincount(ids, minlength=len(channels)).min())
    out = np.zeros((nepochs, len(dopplers), GRID_TAPS), dtype=np.complex128)
    keep = epoch < nepochs
    out[epoch[keep], ids[keep]] = taps[keep]
    return out


def acquire(samples, signal, sample_rate_hz=4e6, prns=None, doppler_max_hz=10e3,
            doppler_center_hz=0.0, doppler_step_hz=None, false_alarm=DEFAULT_FALSE_ALARM,
            threshold=None,
            keep_grids=False, refine_all=False, device="auto"):
    """
    Acquires ``signal`` (GPS_L1CA or GALILEO_E1) in ``samples`` (complex, zero IF).

    prns: the PRNs to search (default: all of the system's).
    doppler_center_hz, doppler_max_hz: the Doppler search window, center +- max (a
        front end's clock offset moves every satellite's Doppler alike: center the
        window on it when it is known, e.g. from satellites already acquired).
    doppler_step_hz: coarse Doppler bin, default 2 / (3 T) for the code period T.
    false_alarm: probability that noise alone is detected in one PRN's grid (sets the
        threshold, gamma_threshold()).
    threshold: a peak-to-mean threshold of your own instead.
    keep_grids: keep each PRN's coarse grid (Doppler x code phase) in its result.
    refine_all: run the fine pass for undetected PRNs too.
    device: the correlator's device, "auto", "cpu", "cuda" or "cuda:N".

    Returns a list of acquisition_result, one per PRN, in the order of ``prns``.
    """
    samples = np.asarray(samples, dtype=np.complex64).ravel()
    if prns is None:
        prns = range(1, 33) if signal.name == "gps_l1ca" else range(1, 51)
    prns = [int(p) for p in prns]
    T = signal.period_s
    if doppler_step_hz is None:
        doppler_step_hz = 2.0 / (3.0 * T)
    nbins = int(math.floor(doppler_max_hz / doppler_step_hz + 1e-9))
    dopplers = doppler_center_hz + doppler_step_hz * np.arange(-nbins, nbins + 1)
    if len(samples) < signal.period_s * sample_rate_hz:
        raise ValueError("samples: fewer than one code period (%d samples)"
                         % int(signal.period_s * sample_rate_hz))

    decimation = max(1, int(sample_rate_hz // signal.coarse_rate_hz))
    rate = sample_rate_hz / decimation
    cutoff = 0.4 * rate
    L = signal.chips
    hypotheses = np.arange(L * COARSE_HYPOTHESES_PER_CHIP) / COARSE_HYPOTHESES_PER_CHIP
    powers = None
    for system, boc, shift in signal.coarse_branches:
        branch, epochs, filt = _grid_powers(samples, sample_rate_hz, signal, system, boc, prns,
                                            dopplers, hypotheses, device,
                                            decimation=decimation, shift_hz=shift,
                                            cutoff_hz=cutoff)
        powers = branch if powers is None else {p: powers[p] + branch[p] for p in prns}
    # The causal FIR delays the stream by (N - 1) / 2 input samples: a code phase at
    # the filter's first output sample holds at input sample -(N - 1) / 2.
    group_delay = (len(filt) - 1) / 2.0 if filt is not None else 0.0

    results = []
    for prn in prns:
        grid = powers[prn]
        d, j = np.unravel_index(np.argmax(grid), grid.shape)
        metric = float(grid[d, j] / np.mean(grid))
        k = independent_sums(grid, hypotheses, (d, j), L, epochs * len(signal.coarse_branches))
        cells_threshold = (threshold if threshold is not None else
                           gamma_threshold(k, grid.size, false_alarm))
        second = _second_peak_ratio(grid, hypotheses, (d, j), L)
        detected = metric > cells_threshold
        doppler = float(dopplers[d])
        code_rate = signal.chip_rate_cps * (1.0 + doppler / signal.carrier_hz)
        phase0 = (hypotheses[j] + group_delay * code_rate / sample_rate_hz) % L
        if detected or refine_all:
            phase0, doppler = _fine(samples, sample_rate_hz, signal, prn, doppler, phase0,
                                    doppler_step_hz, device)
            code_rate = signal.chip_rate_cps * (1.0 + doppler / signal.carrier_hz)
        delay = ((L - phase0) % L) / code_rate * sample_rate_hz
        results.append(acquisition_result(
            signal=signal.name, prn=prn, detected=bool(detected), metric=metric,
            threshold=float(cells_threshold), second_peak_ratio=second, independent_sums=k,
            delay_samples=float(delay), code_phase_chips=float(phase0),
            doppler_hz=float(doppler), code_rate_cps=float(code_rate),
            sample_rate_hz=float(sample_rate_hz), epochs=int(epochs),
            dopplers_hz=dopplers if keep_grids else None,
            code_phases_chips=((hypotheses + group_delay * signal.chip_rate_cps / sample_rate_hz) % L
                               if keep_grids else None),
            grid=grid if keep_grids else None))
    return results


def acquire_gps_l1ca(samples, sample_rate_hz=4e6, **kwargs):
    """acquire() for GPS L1 C/A (PRN 1 to 32 by default)."""
    return acquire(samples, GPS_L1CA, sample_rate_hz, **kwargs)


def acquire_galileo_e1(samples, sample_rate_hz=4e6, **kwargs):
    """acquire() for Galileo E1 B/C (PRN 1 to 50 by default)."""
    return acquire(samples, GALILEO_E1, sample_rate_hz, **kwargs)


def receiver_clock_doppler_hz(results):
    """The median Doppler of the detected results: an estimate of the Doppler that a
    front end's frequency offset adds to every satellite (satellite Dopplers of a
    static receiver spread about +-4 kHz around 0). None when nothing was detected."""
    found = [r.doppler_hz for r in results if r.detected]
    return float(np.median(found)) if found else None


def read_cf32(path, max_samples=None):
    """Interleaved float32 I/Q (GNU Radio gr_complex) from a file."""
    x = np.fromfile(path, dtype=np.complex64)
    return x if max_samples is None else x[:max_samples]
