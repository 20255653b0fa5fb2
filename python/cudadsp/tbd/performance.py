#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Detection performance of st_tbd_ff against thresholding single frames.

The detection study: on scenes of tbd_scene (point targets with constant velocity,
Gaussian point-spread, Gaussian or Rayleigh noise), the probability of detecting a
target frame against the per-frame SNR, for two detectors held at the same false-alarm
rate per cell per frame:

- single frame: the local maxima of the frame X above a threshold;
- TBD: the local maxima of st_tbd_ff's detection map D above a threshold (the block's
  "detections" messages), counted after the filter's settling time.

Definitions (docs/blocks/st_tbd_ff.md, "Detection performance"):

- Local maximum: the engine's rule for both detectors: the cell is >= each of its 8
  neighbours (those inside the grid) and > those that precede it in row-major order.
- False-alarm rate: detections per cell per frame on noise-only frames. Each
  detector's threshold is calibrated on its own noise-only frames: with N cell-frames
  and the design rate r, the threshold is exceeded by k local maxima there, k the
  largest count with k + 2 sqrt(k) <= r N (a two-sigma guard, so that on fresh noise
  the rate stays at or below r). The rate is then measured on independent noise-only
  frames (another seed).
- Target frame: a live target in one frame, at least 2 px inside the grid; for TBD
  also at least settling_frames(alpha) = ceil(3 / (1 - alpha)) frames old (alpha^that
  < 5%: the filter holds 95% of its steady-state response).
- Found: some detection of that frame lies within radius_px of the target's true
  position. Pd: found target frames / target frames.
- Scene extras (reported, not part of the false-alarm rate): detections farther than
  radius_px from every target but within guard_px of one ("split": secondary maxima
  that a target's energy raises, mostly along its track), per target frame; and
  detections farther than guard_px from every target, per cell (outside the guard
  discs) per frame.

The TBD filter runs as the block in a flowgraph (CPU backend by default); scenes use a
fixed seed per noise model at every SNR (common random numbers: the curves are
smooth and differences between detectors are not sampling noise). Defaults run one
noise model's curve (13 SNRs x 300 frames of 96 x 96, 25 hypotheses) in about ten
seconds on one core.
"""

import math
import time

import numpy as np
import pmt
from gnuradio import blocks, gr

from .scene import tbd_scene as scene_model

from cudadsp.tbd import tbd_velocity_grid
from ..cudadsp_python import st_tbd_ff
from ..common.work_errors import stop_on_error

#: The study's configuration (docs/blocks/st_tbd_ff.md gives the reasons).
STUDY = dict(
    width=96, height=96,        # grid, pixels
    ntargets=4,                 # live targets at any time
    psf_sigma_px=1.0,           # Gaussian point-spread
    speed_min=0.3, speed_max=1.0,  # target speeds, pixels per frame, any direction
    vmax=1.0, step=0.5, spread=0.3,  # velocity grid: 5 x 5 = 25 hypotheses
    alpha=0.9,                  # settles in 30 frames
    false_alarm_rate=1e-4,      # design rate, per cell per frame
    radius_px=2.0,              # association radius
    guard_px=5.0,               # split-detection guard around targets
    frames=300,                 # frames per scene
    calibration_frames=300,     # noise-only frames (after settling) per calibration
)

#: Seeds: scene (per noise model), calibration noise, independent check noise.
SCENE_SEED = {"gaussian": 7, "rayleigh": 8}
CALIBRATION_SEED = 1001
CHECK_SEED = 2002

DETECTION_DTYPE = np.dtype([("frame", np.int64), ("x", np.int64), ("y", np.int64),
                            ("vx", np.float64), ("vy", np.float64),
                            ("value", np.float64)])


def settling_frames(alpha):
    """ceil(3 / (1 - alpha)): frames until the filter holds 95% of a new target."""
    return int(math.ceil(3.0 / (1.0 - alpha) - 1e-9))


def local_maxima(maps):
    """The engine's local-maximum rule on (n, H, W) maps: a boolean mask."""
    maps = np.asarray(maps)
    n, h, w = maps.shape
    pad = np.full((n, h + 2, w + 2), -np.inf, dtype=maps.dtype)
    pad[:, 1:-1, 1:-1] = maps
    mask = np.ones(maps.shape, bool)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dx == 0 and dy == 0:
                continue
            neighbour = pad[:, 1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
            precedes = dy < 0 or (dy == 0 and dx < 0)
            mask &= (maps > neighbour) if precedes else (maps >= neighbour)
    return mask


def calibrate_threshold(maxima_values, cell_frames, rate):
    """Threshold exceeded by k of maxima_values, k + 2 sqrt(k) <= rate * cell_frames."""
    budget = rate * cell_frames
    if budget < 4:
        raise ValueError("cell_frames: %d cell-frames are too few to calibrate a rate of "
                         "%g" % (cell_frames, rate))
    k = int(math.floor((math.sqrt(1.0 + budget) - 1.0) ** 2))  # root of k + 2 sqrt(k)
    while k + 1 + 2.0 * math.sqrt(k + 1) <= budget:
        k += 1
    values = np.sort(np.asarray(maxima_values, np.float64))[::-1]
    if values.size <= k:
        raise ValueError("maxima_values: fewer local maxima (%d) than the allowed "
                         "count (%d)" % (values.size, k))
    # Between the k-th and (k+1)-th largest: exactly k exceed it.
    return float(values[k]), k


def study_hypotheses(config=STUDY):
    return tbd_velocity_grid(config["vmax"], config["step"], config["spread"])


class _array_source(gr.sync_block):
    """Frames from a NumPy array (n, H, W), with a "tbd_reset" tag where asked."""

    def __init__(self, frames, reset_at=()):
        self._frames = np.ascontiguousarray(frames, np.float32).reshape(len(frames), -1)
        gr.sync_block.__init__(self, name="tbd_array_source", in_sig=None,
                               out_sig=[(np.float32, self._frames.shape[1])])
        self._reset_at = sorted(int(r) for r in reset_at)
        self._key = pmt.intern("tbd_reset")

    @stop_on_error
    def work(self, input_items, output_items):
        start = self.nitems_written(0)
        n = min(len(output_items[0]), len(self._frames) - start)
        if n <= 0:
            return -1
        output_items[0][:n] = self._frames[start:start + n]
        for r in self._reset_at:
            if start <= r < start + n:
                self.add_item_tag(0, r, self._key, pmt.PMT_T)
        return n


class _array_sink(gr.sync_block):
    """Collects frames into a preallocated NumPy array."""

    def __init__(self, nframes, cells):
        gr.sync_block.__init__(self, name="tbd_array_sink",
                               in_sig=[(np.float32, cells)], out_sig=None)
        self.data = np.full((nframes, cells), np.nan, np.float32)

    @stop_on_error
    def work(self, input_items, output_items):
        start = self.nitems_read(0)
        n = min(len(input_items[0]), len(self.data) - start)
        self.data[start:start + n] = input_items[0][:n]
        return len(input_items[0])


def run_filter(frames, hypotheses, alpha, threshold=1e30, device="cpu", argmax=False,
               detections=False, reset_at=(), max_detections_per_frame=1024, **block_args):
    """Runs frames (n, H, W) through st_tbd_ff in a flowgraph.

    Returns a dict: "map" (n, H, W) float32, "argmax" (n, H, W) float32 when asked,
    "detections" (structured DETECTION_DTYPE array, block messages) when asked,
    "implementation".
    """
    frames = np.asarray(frames, np.float32)
    n, h, w = frames.shape
    tb = gr.top_block()
    src = _array_source(frames, reset_at)
    tbd = st_tbd_ff(w, h, hypotheses, alpha=alpha, threshold=threshold, device=device,
                    max_detections_per_frame=max_detections_per_frame, **block_args)
    sink_map = _array_sink(n, h * w)
    tb.connect(src, (tbd, 0))
    tb.connect((tbd, 0), sink_map)
    if argmax:
        sink_arg = _array_sink(n, h * w)
        tb.connect((tbd, 1), sink_arg)
    if detections:
        msgs = blocks.message_debug()
        tb.msg_connect((tbd, "detections"), (msgs, "store"))
    tb.run()
    out = {"map": sink_map.data.reshape(n, h, w), "implementation": tbd.implementation()}
    if argmax:
        out["argmax"] = sink_arg.data.reshape(n, h, w)
    if detections:
        # The expected count follows from the map and the documented rule; message_debug
        # may still be storing the last messages when run() returns.
        maps = out["map"]
        expected = int(np.minimum((local_maxima(maps) & (maps > np.float32(threshold)))
                                  .sum(axis=(1, 2)), max_detections_per_frame).sum())
        deadline = time.monotonic() + 30.0
        while msgs.num_messages() < expected and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.05)  # none beyond the expected may arrive late either
        records = []
        for i in range(msgs.num_messages()):
            d = pmt.to_python(msgs.get_message(i))
            records.append((d["frame"], d["x"], d["y"], d["vx"], d["vy"], d["value"]))
        out["detections"] = np.array(records, dtype=DETECTION_DTYPE)
        out["expected_detections"] = expected
    return out


def detections_from_maps(maps, threshold):
    """Local maxima of (n, H, W) maps above threshold as DETECTION_DTYPE (no velocity)."""
    mask = local_maxima(maps) & (maps > threshold)
    f, y, x = np.nonzero(mask)
    out = np.zeros(f.size, DETECTION_DTYPE)
    out["frame"], out["x"], out["y"] = f, x, y
    out["vx"] = np.nan
    out["vy"] = np.nan
    out["value"] = maps[f, y, x]
    return out


def evaluate(detections, truth, nframes, width, height, radius_px, guard_px,
             min_age=0, first_frame=0):
    """Pd and the scene extras of detections against truth (see the module doc)."""
    found = total = split = far = 0
    far_cells = live = 0
    yy, xx = np.mgrid[0:height, 0:width]
    det_by_frame = {}
    for rec in detections:
        det_by_frame.setdefault(int(rec["frame"]), []).append(rec)
    truth_by_frame = {}
    for rec in truth:
        truth_by_frame.setdefault(int(rec["frame"]), []).append(rec)
    for n in range(first_frame, nframes):
        dets = det_by_frame.get(n, [])
        targets = truth_by_frame.get(n, [])
        live += len(targets)
        dx = np.array([d["x"] for d in dets], np.float64)
        dy = np.array([d["y"] for d in dets], np.float64)
        nearest = np.full(dx.size, np.inf)
        guard = np.zeros((height, width), bool)
        for t in targets:
            dist = np.hypot(dx - t["x"], dy - t["y"])
            nearest = np.minimum(nearest, dist)
            guard |= np.hypot(xx - t["x"], yy - t["y"]) <= guard_px
            interior = (2 <= t["x"] <= width - 3) and (2 <= t["y"] <= height - 3)
            if interior and t["age"] >= min_age:
                total += 1
                found += bool((dist <= radius_px).any())
        split += int(((nearest > radius_px) & (nearest <= guard_px)).sum())
        far += int((nearest > guard_px).sum())
        far_cells += int((~guard).sum())
    return {
        "pd": found / total if total else float("nan"),
        "target_frames": total,
        "found": found,
        "split_per_target_frame": split / max(1, live),
        "far_rate": far / far_cells if far_cells else float("nan"),
    }


def _noise_frames(noise, count, config, seed):
    sc = scene_model(config["width"], config["height"], 0, 0.0, noise,
                                seed=seed)
    frames, _ = sc.frames(count)
    return frames


def calibrate(noise, config=STUDY, device="cpu", log=None):
    """Thresholds of both detectors at config's false-alarm rate for one noise model,
    and the rates measured on independent noise. Returns a dict."""
    settle = settling_frames(config["alpha"])
    hyps = study_hypotheses(config)
    n = config["calibration_frames"]
    cells = config["width"] * config["height"]
    result = {"noise": noise, "cell_frames": n * cells, "settling_frames": settle}
    runs = {}
    for label, seed in (("calibration", CALIBRATION_SEED), ("check", CHECK_SEED)):
        frames = _noise_frames(noise, n + settle, config, seed)
        maps = run_filter(frames, hyps, config["alpha"], device=device)["map"]
        runs[label] = (frames[settle:], maps[settle:])
    for name, index in (("single", 0), ("tbd", 1)):
        data = runs["calibration"][index]
        values = data[local_maxima(data)]
        threshold, k = calibrate_threshold(values, n * cells, config["false_alarm_rate"])
        check = runs["check"][index]
        check_count = int((check[local_maxima(check)] > threshold).sum())
        result[name] = {
            "threshold": threshold,
            "calibration_rate": k / (n * cells),
            "check_rate": check_count / (n * cells),
            "check_count": check_count,
        }
    if log:
        log("%s noise: thresholds single %.4f, TBD %.4f; false alarms per cell per frame "
            "on independent noise (%d cell-frames): single %.2e, TBD %.2e"
            % (noise, result["single"]["threshold"], result["tbd"]["threshold"],
               n * cells, result["single"]["check_rate"], result["tbd"]["check_rate"]))
    return result


def scene_point(noise, snr_db, calibration, config=STUDY, device="cpu", keep=False):
    """Both detectors on one scene at snr_db. Returns a dict (keep: frames, maps, truth,
    detections too)."""
    settle = settling_frames(config["alpha"])
    sc = scene_model(config["width"], config["height"], config["ntargets"],
                                snr_db, noise, psf_sigma_px=config["psf_sigma_px"],
                                speed_min=config["speed_min"],
                                speed_max=config["speed_max"], seed=SCENE_SEED[noise])
    frames, truth = sc.frames(config["frames"])
    thr_tbd = calibration["tbd"]["threshold"]
    run = run_filter(frames, study_hypotheses(config), config["alpha"], threshold=thr_tbd,
                     device=device, detections=True)
    single_dets = detections_from_maps(frames, calibration["single"]["threshold"])
    args = (config["frames"], config["width"], config["height"], config["radius_px"],
            config["guard_px"])
    single = evaluate(single_dets, truth, *args)
    tbd = evaluate(run["detections"], truth, *args, min_age=settle)
    point = {"snr_db": snr_db, "single": single, "tbd": tbd,
             "messages": int(run["detections"].size),
             "expected_messages": run["expected_detections"]}
    if keep:
        point.update(frames=frames, maps=run["map"], truth=truth,
                     tbd_detections=run["detections"], single_detections=single_dets)
    return point


def requirement_snr(points, single_pd_max=0.2):
    """The largest SNR of points where single-frame Pd <= single_pd_max (None if none)."""
    ok = [p for p in points if p["single"]["pd"] <= single_pd_max]
    return max(ok, key=lambda p: p["snr_db"]) if ok else None


def curve(noise, snrs_db, config=STUDY, device="cpu", log=None):
    """Calibration and one scene point per SNR for one noise model."""
    calibration = calibrate(noise, config, device, log)
    points = []
    for snr in snrs_db:
        p = scene_point(noise, snr, calibration, config, device)
        points.append(p)
        if log:
            log("%s %5.1f dB: Pd single %.3f (%d target frames), TBD %.3f (%d); TBD "
                "split %.2f per target frame, far %.1e per cell"
                % (noise, snr, p["single"]["pd"], p["single"]["target_frames"],
                   p["tbd"]["pd"], p["tbd"]["target_frames"],
                   p["tbd"]["split_per_target_frame"], p["tbd"]["far_rate"]))
    return calibration, points
