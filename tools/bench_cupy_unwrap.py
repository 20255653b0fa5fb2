#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Time cupy.unwrap against a device-to-device copy of the same bytes, in one process.

The baseline for cudadsp_bench's phase_unwrap section on a GPU host that has CuPy and
no GNU Radio: the same input (float32 random walk of N(0, 0.8 rad) steps, wrapped to
[-pi, pi)), the same timing (CUDA events on one stream, warm-up, median of repeats)
and the same floor (cudaMemcpyAsync device to device, read + write bytes counted), so
the two ratios "x d2d copy" compare across runs and machines.

cupy.unwrap works in the input's precision (float32 differences and a float32 running
sum), so its output is also checked against a float64 unwrap of the same input: the
wrap counts K = round((out - x) / 2pi) that differ are reported, not hidden.
"""

import argparse
import json
import math
import re
import statistics
import sys

import cupy as cp

STEP_STD_RAD = 0.8


def parse_count(text):
    """1000, 64K, 64M, 1G (binary suffixes) -> int."""
    m = re.fullmatch(r"(\d+)([KMGkmg]?)", text)
    if not m or int(m.group(1)) == 0:
        raise argparse.ArgumentTypeError(
            f"expected a positive count such as 1000, 64K, 64M or 1G, got {text!r}")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2).upper()]


def wrapped_random_walk(n, seed):
    # Accumulated and wrapped in float64 before the one rounding to float32, so the
    # float32 samples are the wrapped walk, not a wrapped float32 accumulation.
    rng = cp.random.default_rng(seed)
    phase = cp.cumsum(rng.standard_normal(n, dtype=cp.float64) * STEP_STD_RAD)
    wrapped = cp.remainder(phase + math.pi, 2 * math.pi) - math.pi
    return wrapped.astype(cp.float32)


def time_events(run, stream, warmup, repeats):
    """Median, min and max milliseconds of run() on stream, by CUDA events."""
    with stream:
        for _ in range(warmup):
            run()
        stream.synchronize()
        times = []
        for _ in range(repeats):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record(stream)
            run()
            stop.record(stream)
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop))
    return {"median_ms": statistics.median(times), "min_ms": min(times),
            "max_ms": max(times), "repeats": repeats}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=parse_count, default=64 << 20,
                    help="float32 samples (default 64M = 67108864; K, M, G binary)")
    ap.add_argument("--repeats", type=int, default=20, help="timed repeats (default 20)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed calls first (default 3)")
    ap.add_argument("--seed", type=int, default=20260101, help="random-walk seed")
    ap.add_argument("--device", type=int, default=0, help="CUDA device ordinal")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    a = ap.parse_args()
    if a.repeats < 1 or a.warmup < 0:
        ap.error("--repeats must be >= 1 and --warmup >= 0")

    cp.cuda.Device(a.device).use()
    props = cp.cuda.runtime.getDeviceProperties(a.device)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]

    def version(v):
        return f"{v // 1000}.{v % 1000 // 10}"

    n = a.samples
    nbytes = n * 4
    if nbytes < 2 * props["l2CacheSize"]:
        print(f"warning: {nbytes} bytes are under twice the L2 cache; the times "
              "measure the cache, not DRAM", file=sys.stderr)

    print(f"generating {n} wrapped random-walk samples", file=sys.stderr)
    x = wrapped_random_walk(n, a.seed)
    dst = cp.empty_like(x)
    stream = cp.cuda.Stream(non_blocking=True)

    def copy():
        cp.cuda.runtime.memcpyAsync(dst.data.ptr, x.data.ptr, nbytes,
                                    cp.cuda.runtime.memcpyDeviceToDevice, stream.ptr)

    print("timing d2d copy and cupy.unwrap", file=sys.stderr)
    rows = {
        "d2d copy": time_events(copy, stream, a.warmup, a.repeats),
        "cupy.unwrap": time_events(lambda: cp.unwrap(x), stream, a.warmup, a.repeats),
    }
    for r in rows.values():
        r["msamples_per_s"] = n / (r["median_ms"] * 1e3)
        # Both move at least 4 bytes in and 4 bytes out per sample.
        r["gb_per_s"] = 2 * nbytes / (r["median_ms"] * 1e6)
    ratio = rows["cupy.unwrap"]["median_ms"] / rows["d2d copy"]["median_ms"]

    out = cp.unwrap(x).astype(cp.float64)
    ref = cp.unwrap(x.astype(cp.float64))
    x64 = x.astype(cp.float64)
    k_out = cp.rint((out - x64) / (2 * math.pi))
    k_ref = cp.rint((ref - x64) / (2 * math.pi))
    k_mismatches = int(cp.count_nonzero(k_out != k_ref))
    max_abs_error_rad = float(cp.max(cp.abs(out - ref)))

    result = {
        "tool": "bench_cupy_unwrap",
        "device": {"ordinal": a.device, "name": name,
                   "compute_capability": f"{props['major']}.{props['minor']}",
                   "driver": version(cp.cuda.runtime.driverGetVersion()),
                   "runtime": version(cp.cuda.runtime.runtimeGetVersion()),
                   "cupy": cp.__version__},
        "samples": n, "seed": a.seed, "step_std_rad": STEP_STD_RAD,
        "warmup": a.warmup, "rows": rows,
        "ratio_unwrap_x_d2d_copy": ratio,
        "check": {"k_mismatches_vs_float64": k_mismatches,
                  "max_abs_error_rad_vs_float64": max_abs_error_rad},
    }

    d = result["device"]
    print(f"device: {name} (cuda:{a.device}, sm_{props['major']}{props['minor']}); "
          f"driver {d['driver']}, runtime {d['runtime']}, CuPy {d['cupy']}")
    print(f"samples={n} float32  repeats={a.repeats}  warmup={a.warmup}  seed={a.seed}")
    print(f"{'row':<12} {'median ms':>10} {'min ms':>8} {'max ms':>8} "
          f"{'Msamples/s':>11} {'GB/s':>8}")
    for label, r in rows.items():
        print(f"{label:<12} {r['median_ms']:>10.4f} {r['min_ms']:>8.4f} "
              f"{r['max_ms']:>8.4f} {r['msamples_per_s']:>11.1f} {r['gb_per_s']:>8.1f}")
    print(f"cupy.unwrap x d2d copy: {ratio:.2f}")
    print(f"check vs float64 unwrap: {k_mismatches} of {n} wrap counts differ, "
          f"max |error| {max_abs_error_rad:.3g} rad")

    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
