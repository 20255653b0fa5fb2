#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Time a CuPy spatio-temporal TBD frame against a device copy of the state, in one process.

The baseline for cudadsp_bench's tbd section on a GPU host that has CuPy and no GNU
Radio: the configuration of the speed requirement (1000 x 1000 grid, the 13 hypotheses
of a velocity grid with vmax 1 px/frame... see --help) written the way a NumPy user
would write it on the GPU, with cupyx.scipy.ndimage.shift (order=1: bilinear;
mode='grid-constant', cval=0: the engine's zero border, interpolating towards zeros
beyond the edge, where mode='constant' would return cval for any point past the last
cell) for each transition:

    P^-[m] = sum_k w[m][k] * shift(P[src[m][k]], (dy, dx))
    P      = alpha P^- + (1 - alpha) X
    D      = max_m P,  A = argmax_m P

timed per frame with CUDA events (median of repeats, after warm-up), next to the
floor cudadsp_bench uses: a device-to-device copy of the state (M x W x H float32,
read + write counted). The CuPy frame is also checked against the same recursion in
float64 over a few frames, so that the timed code is known to compute the filter.

The hypotheses are those of cudadsp_bench's tbd section: 13 velocities (the 3 x 3
grid of vx, vy in {-1, 0, 1} plus (+-2, 0), (0, +-2)) at fractional offsets scaled by
0.75 so the bilinear reads are genuinely fractional, each with 3 transitions: its own
velocity (weight 0.8) and two neighbours in the list (0.1 each).
"""

import argparse
import json
import statistics
import sys

import cupy as cp
import cupyx.scipy.ndimage as ndi


def hypotheses():
    """The 13 x 3 transition table of cudadsp_bench's tbd section."""
    velocities = [(vx, vy) for vy in (-1, 0, 1) for vx in (-1, 0, 1)]
    velocities += [(-2, 0), (2, 0), (0, -2), (0, 2)]
    velocities = [(0.75 * vx, 0.75 * vy) for vx, vy in velocities]
    m = len(velocities)
    table = []
    for i, (vx, vy) in enumerate(velocities):
        table.append([(i, vx, vy, 0.8),
                      ((i + 1) % m, vx, vy, 0.1),
                      ((i + m - 1) % m, vx, vy, 0.1)])
    return velocities, table


def tbd_frame(state, frame, table, alpha, xp_shift):
    predicted = []
    for transitions in table:
        acc = None
        for src, dx, dy, w in transitions:
            term = w * xp_shift(state[src], (dy, dx))
            acc = term if acc is None else acc + term
        predicted.append(acc)
    new = alpha * cp.stack(predicted) + (1 - alpha) * frame[None]
    return new, new.max(axis=0), new.argmax(axis=0)


def shift_bilinear(plane, shift):
    return ndi.shift(plane, shift, order=1, mode="grid-constant", cval=0.0, prefilter=False)


def reference_shift_float64(plane, shift):
    """P(x - dx, y - dy) by explicit bilinear interpolation with zeros outside."""
    dy, dx = shift
    h, w = plane.shape
    y = cp.arange(h, dtype=cp.float64)[:, None] - dy
    x = cp.arange(w, dtype=cp.float64)[None, :] - dx
    y0, x0 = cp.floor(y), cp.floor(x)
    fy, fx = y - y0, x - x0
    out = cp.zeros((h, w), dtype=cp.float64)
    for oy, wy in ((0, 1 - fy), (1, fy)):
        for ox, wx in ((0, 1 - fx), (1, fx)):
            yy = (y0 + oy).astype(cp.int64)
            xx = (x0 + ox).astype(cp.int64)
            inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
            vals = plane[cp.clip(yy, 0, h - 1), cp.clip(xx, 0, w - 1)]
            out += cp.where(inside, wy * wx * vals, 0.0)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--width", type=int, default=1000)
    ap.add_argument("--height", type=int, default=1000)
    ap.add_argument("--alpha", type=float, default=0.9)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--json", metavar="FILE")
    a = ap.parse_args()

    cp.cuda.Device(a.device).use()
    props = cp.cuda.runtime.getDeviceProperties(a.device)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    velocities, table = hypotheses()
    m, h, w = len(table), a.height, a.width
    rng = cp.random.default_rng(20261122)
    frames = rng.standard_normal((a.repeats + a.warmup + 4, h, w), dtype=cp.float32)
    state = cp.zeros((m, h, w), dtype=cp.float32)
    copy_dst = cp.empty_like(state)
    stream = cp.cuda.Stream(non_blocking=True)

    # Correctness of the timed code: four frames against the float64 recursion.
    s32 = state
    s64 = cp.zeros((m, h, w), dtype=cp.float64)
    worst = 0.0
    for f in range(4):
        s32, d32, _ = tbd_frame(s32, frames[f], table, a.alpha, shift_bilinear)
        s64, d64, _ = tbd_frame(s64, frames[f].astype(cp.float64), table, a.alpha,
                                reference_shift_float64)
        worst = max(worst, float(cp.max(cp.abs(d32 - d64)) / cp.max(cp.abs(d64))))
    print(f"check: CuPy detection map vs float64 recursion, max error "
          f"{worst:.2e} of max |D|", file=sys.stderr)

    def time_events(run):
        times = []
        with stream:
            for i in range(a.warmup):
                run(i)
            stream.synchronize()
            for i in range(a.repeats):
                start, stop = cp.cuda.Event(), cp.cuda.Event()
                start.record(stream)
                run(i)
                stop.record(stream)
                stop.synchronize()
                times.append(cp.cuda.get_elapsed_time(start, stop))
        return {"median_ms": statistics.median(times), "min_ms": min(times),
                "max_ms": max(times), "repeats": a.repeats}

    nbytes = state.nbytes

    def copy(_):
        cp.cuda.runtime.memcpyAsync(copy_dst.data.ptr, state.data.ptr, nbytes,
                                    cp.cuda.runtime.memcpyDeviceToDevice, stream.ptr)

    holder = {"state": state}

    def frame(i):
        holder["state"], _, _ = tbd_frame(holder["state"], frames[i % len(frames)],
                                          table, a.alpha, shift_bilinear)

    rows = {"d2d copy of the state": time_events(copy), "cupy frame": time_events(frame)}
    ratio = rows["cupy frame"]["median_ms"] / rows["d2d copy of the state"]["median_ms"]
    print(f"device: {name} (cuda:{a.device}); CuPy {cp.__version__}")
    print(f"grid {w} x {h}, {m} hypotheses x 3 transitions, state {nbytes / 1e6:.1f} MB, "
          f"repeats {a.repeats}")
    for label, r in rows.items():
        print(f"{label:<24} median {r['median_ms']:.4f} ms  min {r['min_ms']:.4f}  "
              f"max {r['max_ms']:.4f}")
    print(f"cupy frame x d2d copy of the state: {ratio:.1f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"tool": "bench_cupy_tbd", "device": name, "width": w,
                       "height": h, "hypotheses": m, "transitions": 3, "rows": rows,
                       "ratio_frame_x_d2d_copy": ratio,
                       "check_max_relative_error_vs_float64": worst}, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
