#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Time simultaneous-mode polarimetric products in plain CuPy on the paper's turn.

The baseline for cudadsp_bench's polarimetric section on a GPU host that has CuPy and
no GNU Radio: the same turn size (2242 gates x 12960 pulses x 2 polarisations,
complex float32, 36 pulses per radial, 360 radials), the same seven products and
calibration (docs/blocks/polarimetric_products_cf.md), the same timing (CUDA events on
one stream for device work, the wall clock for the host round trip, warm-up, median of
repeats) and the same floors (cudaMemcpyAsync of the same bytes: device to device with
read + write counted, pinned host to device of the input, device to host of the
products), so the ratios compare across runs and machines.

The products are straightforward array code: the moment sums (P_h, P_v, R1_h, R1_v,
C) are means over the pulse axis, computed in float64 by default (--precision float64:
the float32 input is upcast first, as the engines do) or in float32 (--precision
float32: CuPy reduces float32 input in float32); the formulas that follow run in the
same precision and the products are rounded to float32.

Rows:
  d2d copy                copy of the input bytes on the device (the kernels' floor)
  pinned H2D              upload of the input from pinned host memory
  pinned D2H              download of the products into pinned host memory
  cupy kernels            products from device-resident input (CUDA events)
  cupy end-to-end         pinned host input -> device -> products -> pinned host
                          (wall clock, returns when the products are on the host)

The input is a weather-like echo (AR(1) pulse series with a Doppler phase per PRT, V
correlated with H with a differential phase and lower power) plus receiver noise,
generated on the device; never zeros. The products of a few radials are checked
against a NumPy float64 evaluation of the same formulas on the host.
"""

import argparse
import json
import math
import statistics
import sys
import time

import numpy as np
import cupy as cp

PRODUCT_NAMES = ["Zh", "ZDR", "V", "W", "PhiDP", "RhoHV", "SNRh"]


class Config:
    """Radar and calibration: the values cudadsp_bench's polarimetric section uses."""

    wavelength_m = 0.0531
    prt_s = 1e-3
    first_gate_m = 150.0
    gate_spacing_m = 150.0
    zcal_db = -35.0
    zdr_cal_db = 0.2
    phidp_offset_deg = 25.0
    noise_h = 0.01
    noise_v = 0.01
    snr_threshold_db = 0.0

    def nyquist_velocity(self):
        return self.wavelength_m / (4 * self.prt_s)


def generate_turn(radials, pulses_per_radial, gates, cfg, seed):
    """Dual-pol I/Q of a turn, shape (radials, pulses_per_radial, gates) complex64.

    At each gate of each radial: an echo whose pulse series is AR(1) (a finite spectrum
    width) rotated by a Doppler phase per PRT, V correlated with H (RhoHV 0.89..0.99)
    with a differential phase and a lower power (ZDR 0..3 dB), plus white noise of
    power cfg.noise_h / cfg.noise_v. SNR -5..30 dB, so some gates are censored; PhiDP
    crosses +-180 degrees. The parameters vary over range and azimuth like the C++
    bench's; the random draws differ (Gaussian here, uniform there).
    """
    rng = cp.random.default_rng(seed)
    g = cp.arange(gates, dtype=cp.float64)[None, :]
    az = (2 * math.pi * cp.arange(radials, dtype=cp.float64) / 360.0)[:, None]
    snr_db = -5.0 + 35.0 * 0.5 * (1.0 + cp.sin(2 * math.pi * g / 700.0 + 4.0 * az))
    zdr_db = 1.5 + 1.5 * cp.sin(2 * math.pi * g / 400.0 + az)
    s_h = cfg.noise_h * 10.0 ** (snr_db / 10.0)
    s_v = s_h / 10.0 ** (zdr_db / 10.0)
    a = 0.95 - 0.35 * 0.5 * (1.0 + cp.cos(g / 150.0 + 8.0 * az))
    b = cp.sqrt(1.0 - a * a)
    rho = 0.99 - 0.1 * 0.5 * (1.0 + cp.sin(g / 200.0 - 18.0 * az))
    rho_c = cp.sqrt(1.0 - rho * rho)
    psi = 0.8 * math.pi * cp.sin(az + g / 300.0)
    phidp = (-150.0 + 330.0 * g / gates) * math.pi / 180.0
    # conj: arg(h conj(v)) = PhiDP
    diff = cp.exp(-1j * phidp)

    def unit_noise():
        # Complex Gaussian of unit power.
        re = rng.standard_normal((radials, gates), dtype=cp.float32)
        im = rng.standard_normal((radials, gates), dtype=cp.float32)
        return (re + 1j * im).astype(cp.complex64) * np.float32(math.sqrt(0.5))

    h = cp.empty((radials, pulses_per_radial, gates), dtype=cp.complex64)
    v = cp.empty_like(h)
    amp_h, amp_v = cp.sqrt(s_h), cp.sqrt(s_v)
    x1 = x2 = None
    for n in range(pulses_per_radial):
        w1, w2 = unit_noise(), unit_noise()
        if n == 0:
            x1, x2 = w1, w2
        else:
            x1 = a * x1 + b * w1
            x2 = a * x2 + b * w2
        doppler = cp.exp(1j * psi * n)
        h[:, n, :] = amp_h * x1 * doppler + math.sqrt(cfg.noise_h) * unit_noise()
        v[:, n, :] = (amp_v * (rho * x1 + rho_c * x2) * doppler * diff
                      + math.sqrt(cfg.noise_v) * unit_noise())
    return h, v


def products(xp, h, v, cfg, precision):
    """The seven simultaneous-mode products, shape (7, radials, gates) float32.

    h, v: (radials, pulses_per_radial, gates) complex64 arrays of module xp (cupy or
    numpy). precision: "float64" or "float32", the precision of the sums and formulas.
    """
    real = xp.float64 if precision == "float64" else xp.float32
    cplx = xp.complex128 if precision == "float64" else xp.complex64
    h = h.astype(cplx, copy=False)
    v = v.astype(cplx, copy=False)
    gates = h.shape[2]

    p_h = xp.mean(h.real * h.real + h.imag * h.imag, axis=1)
    p_v = xp.mean(v.real * v.real + v.imag * v.imag, axis=1)
    r1_h = xp.mean(h[:, 1:, :] * xp.conj(h[:, :-1, :]), axis=1)
    r1_v = xp.mean(v[:, 1:, :] * xp.conj(v[:, :-1, :]), axis=1)
    c = xp.mean(h * xp.conj(v), axis=1)

    s_h = p_h - real(cfg.noise_h)
    s_v = p_v - real(cfg.noise_v)
    r1 = r1_h + r1_v
    s = s_h + s_v
    lam, t = cfg.wavelength_m, cfg.prt_s

    velocity = real(-lam / (4 * math.pi * t)) * xp.angle(r1)
    ratio = s / xp.abs(r1)
    width = xp.where(ratio > 1,
                     real(lam / (2 * math.sqrt(2) * math.pi * t))
                     * xp.sqrt(xp.log(xp.maximum(ratio, real(1)))),
                     real(0))
    phidp = xp.degrees(xp.angle(c)) - real(cfg.phidp_offset_deg)
    phidp = phidp - real(360) * xp.ceil((phidp - real(180)) / real(360))  # (-180, 180]
    rhohv = xp.abs(c) / xp.sqrt(s_h * s_v)
    if cfg.noise_h > 0:
        snr = xp.where(s_h > 0, real(10) * xp.log10(xp.maximum(s_h, real(0)) / real(cfg.noise_h)),
                       real(-xp.inf))
    else:
        snr = xp.where(s_h > 0, real(xp.inf), real(-xp.inf))
    r_km = (real(cfg.first_gate_m)
            + xp.arange(gates, dtype=real) * real(cfg.gate_spacing_m)) / real(1000)
    zh = real(10) * xp.log10(s_h) + real(cfg.zcal_db) + real(20) * xp.log10(r_km)[None, :]
    zdr = real(10) * xp.log10(s_h / s_v) + real(cfg.zdr_cal_db)

    censored = ~(snr >= real(cfg.snr_threshold_db))
    out = xp.empty((7,) + s_h.shape, dtype=xp.float32)
    for k, value in enumerate((zh, zdr, velocity, width, phidp, rhohv)):
        out[k] = xp.where(censored, real(xp.nan), value)
    out[6] = snr
    return out


def check(gpu_out, h_host, v_host, cfg, radials, precision):
    """Compare gpu_out (7, R, G) on some radials with NumPy float64 of the same formulas.

    Tolerances as cudadsp_bench's: 1e-5 relative in linear power for the dB products
    (4.4e-5 dB), 1e-5 of the Nyquist velocity for V and W, 1e-3 degree for PhiDP
    (on the circle), 1e-5 for RhoHV, plus two float32 ulps of the value. Sums in
    float32 are not expected to pass them; the errors are reported either way.
    """
    with np.errstate(all="ignore"):
        ref = products(np, h_host[radials], v_host[radials], cfg, "float64")
    got = gpu_out[:, radials, :].astype(np.float64)
    ref = ref.astype(np.float64)
    nyq = cfg.nyquist_velocity()
    atol = [4.4e-5, 4.4e-5, 1e-5 * nyq, 1e-5 * nyq, 1e-3, 1e-5, 4.4e-5]
    result = {"radials": [int(r) for r in radials], "precision": precision,
              "products": {}, "ok": True}
    for k, name in enumerate(PRODUCT_NAMES):
        g, r = got[k], ref[k]
        nan_mismatch = int(np.count_nonzero(np.isnan(g) != np.isnan(r)))
        inf_mismatch = int(np.count_nonzero(np.isinf(g) != np.isinf(r))
                           + np.count_nonzero(np.isinf(g) & np.isinf(r) & (g != r)))
        finite = np.isfinite(g) & np.isfinite(r)
        d = g[finite] - r[finite]
        if k == 4:
            d = np.remainder(d + 180.0, 360.0) - 180.0
        err = np.abs(d)
        tol = atol[k] + 2.4e-7 * np.abs(r[finite])
        bad = int(np.count_nonzero(err > tol)) + nan_mismatch + inf_mismatch
        result["products"][name] = {
            "max_abs_error": float(err.max()) if err.size else 0.0,
            "values_out_of_tolerance": bad,
            "nan_pattern_mismatches": nan_mismatch,
        }
        result["ok"] = result["ok"] and bad == 0
    result["censored_fraction"] = float(np.isnan(ref[0]).mean())
    return result


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
    return summary(times)


def time_wall(run, warmup, repeats):
    """Median, min and max milliseconds of run() (which must synchronise) on the host clock."""
    for _ in range(warmup):
        run()
    times = []
    for _ in range(repeats):
        begin = time.perf_counter()
        run()
        times.append((time.perf_counter() - begin) * 1e3)
    return summary(times)


def summary(times):
    return {"median_ms": statistics.median(times), "min_ms": min(times),
            "max_ms": max(times), "repeats": len(times)}


def empty_pinned(shape, dtype):
    """A NumPy array in page-locked host memory (async copies from and to it overlap)."""
    try:
        import cupyx
        return cupyx.empty_pinned(shape, dtype=dtype)
    except (ImportError, AttributeError):
        count = int(np.prod(shape))
        mem = cp.cuda.alloc_pinned_memory(count * np.dtype(dtype).itemsize)
        return np.frombuffer(mem, dtype, count).reshape(shape)


def parse_arguments():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gates", type=int, default=2242, help="range gates (default 2242)")
    ap.add_argument("--radials", type=int, default=360, help="radials (default 360)")
    ap.add_argument("--pulses-per-radial", type=int, default=36,
                    help="pulses per radial (default 36)")
    ap.add_argument("--precision", choices=["float64", "float32"], default="float64",
                    help="precision of the sums and formulas (default float64, as the "
                         "engines); products are float32 either way")
    ap.add_argument("--repeats", type=int, default=20, help="timed repeats (default 20)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed calls first (default 3)")
    ap.add_argument("--seed", type=int, default=20260301, help="input seed")
    ap.add_argument("--check-radials", type=int, default=8,
                    help="radials checked against NumPy float64 (default 8)")
    ap.add_argument("--device", type=int, default=0, help="CUDA device ordinal")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    a = ap.parse_args()
    if a.repeats < 1 or a.warmup < 0 or a.gates < 1 or a.radials < 1 \
            or a.pulses_per_radial < 2 or a.check_radials < 1:
        ap.error("--repeats, --gates, --radials, --check-radials must be >= 1, "
                 "--pulses-per-radial >= 2 and --warmup >= 0")
    return a


def main():
    a = parse_arguments()

    cp.cuda.Device(a.device).use()
    props = cp.cuda.runtime.getDeviceProperties(a.device)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]

    def version(v):
        return f"{v // 1000}.{v % 1000 // 10}"

    cfg = Config()
    R, M, G = a.radials, a.pulses_per_radial, a.gates
    pulses = R * M
    samples = pulses * G                     # gate x pulse, H and V
    in_bytes = 2 * samples * 8               # two complex64 cubes
    out_bytes = 7 * R * G * 4                # seven float32 products per gate and radial
    if in_bytes < 2 * props["l2CacheSize"]:
        print(f"warning: {in_bytes} input bytes are under twice the L2 cache; the "
              "device times measure the cache, not DRAM", file=sys.stderr)

    print(f"generating the turn: {R} radials x {M} pulses x {G} gates x 2 "
          f"({in_bytes / 1e6:.1f} MB)", file=sys.stderr)
    d_h, d_v = generate_turn(R, M, G, cfg, a.seed)
    h_host = empty_pinned(d_h.shape, np.complex64)
    v_host = empty_pinned(d_v.shape, np.complex64)
    d_h.get(out=h_host)
    d_v.get(out=v_host)
    out_host = empty_pinned((7, R, G), np.float32)
    stream = cp.cuda.Stream(non_blocking=True)

    # Floors: the same bytes as the products move.
    d_h2, d_v2 = cp.empty_like(d_h), cp.empty_like(d_v)
    d_out = cp.empty((7, R, G), dtype=cp.float32)
    rt = cp.cuda.runtime
    half = in_bytes // 2

    def d2d():
        rt.memcpyAsync(d_h2.data.ptr, d_h.data.ptr, half, rt.memcpyDeviceToDevice, stream.ptr)
        rt.memcpyAsync(d_v2.data.ptr, d_v.data.ptr, half, rt.memcpyDeviceToDevice, stream.ptr)

    def h2d():
        rt.memcpyAsync(d_h2.data.ptr, h_host.ctypes.data, half, rt.memcpyHostToDevice,
                       stream.ptr)
        rt.memcpyAsync(d_v2.data.ptr, v_host.ctypes.data, half, rt.memcpyHostToDevice,
                       stream.ptr)

    def d2h():
        rt.memcpyAsync(out_host.ctypes.data, d_out.data.ptr, out_bytes,
                       rt.memcpyDeviceToHost, stream.ptr)

    def kernels():
        products(cp, d_h, d_v, cfg, a.precision)

    def end_to_end():
        with stream:
            d_h2.set(h_host, stream=stream)
            d_v2.set(v_host, stream=stream)
            out = products(cp, d_h2, d_v2, cfg, a.precision)
            rt.memcpyAsync(out_host.ctypes.data, out.data.ptr, out_bytes,
                           rt.memcpyDeviceToHost, stream.ptr)
        stream.synchronize()

    print("timing floors, kernels and the host round trip", file=sys.stderr)
    rows = {
        "d2d copy": time_events(d2d, stream, a.warmup, a.repeats),
        "pinned H2D": time_events(h2d, stream, a.warmup, a.repeats),
        "pinned D2H": time_events(d2h, stream, a.warmup, a.repeats),
        "cupy kernels": time_events(kernels, stream, a.warmup, a.repeats),
        "cupy end-to-end": time_wall(end_to_end, a.warmup, a.repeats),
    }
    row_bytes = {"d2d copy": 2 * in_bytes, "pinned H2D": in_bytes, "pinned D2H": out_bytes,
                 "cupy kernels": in_bytes + out_bytes, "cupy end-to-end": in_bytes + out_bytes}
    for label, r in rows.items():
        r["clock"] = "wall" if label == "cupy end-to-end" else "events"
        r["bytes"] = row_bytes[label]
        r["gb_per_s"] = row_bytes[label] / (r["median_ms"] * 1e6)
        r["pulses_per_s"] = pulses / (r["median_ms"] * 1e-3)
    kernels_ms = rows["cupy kernels"]["median_ms"]
    ratios = {
        "kernels_x_d2d_copy": kernels_ms / rows["d2d copy"]["median_ms"],
        # (input read + products written) per second over the copy's read + write per second
        "kernels_of_d2d_copy_bandwidth":
            rows["cupy kernels"]["gb_per_s"] / rows["d2d copy"]["gb_per_s"],
        "end_to_end_x_pinned_h2d":
            rows["cupy end-to-end"]["median_ms"] / rows["pinned H2D"]["median_ms"],
    }

    # Products from the end-to-end path (last run's), checked on radials spread over the turn.
    end_to_end()
    n_check = min(a.check_radials, R)
    check_radials = sorted({k * (R - 1) // max(1, n_check - 1) for k in range(n_check)})
    result_check = check(out_host, h_host, v_host, cfg, check_radials, a.precision)

    result = {
        "tool": "bench_cupy_polarimetric",
        "device": {"ordinal": a.device, "name": name,
                   "compute_capability": f"{props['major']}.{props['minor']}",
                   "driver": version(rt.driverGetVersion()),
                   "runtime": version(rt.runtimeGetVersion()),
                   "cupy": cp.__version__},
        "gates": G, "radials": R, "pulses_per_radial": M, "pulses": pulses,
        "samples": samples, "input_bytes": in_bytes, "product_bytes": out_bytes,
        "mode": "simultaneous", "precision": a.precision, "seed": a.seed,
        "warmup": a.warmup, "rows": rows, "ratios": ratios, "check": result_check,
        "paper_ms_per_turn_including_transfers": [93.87, 158.03],
    }

    d = result["device"]
    print(f"device: {name} (cuda:{a.device}, sm_{props['major']}{props['minor']}); "
          f"driver {d['driver']}, runtime {d['runtime']}, CuPy {d['cupy']}")
    print(f"turn: {G} gates x {pulses} pulses x 2 pol ({R} radials of {M}), "
          f"input {in_bytes / 1e6:.1f} MB, products {out_bytes / 1e6:.1f} MB; "
          f"sums and formulas in {a.precision}; repeats={a.repeats} warmup={a.warmup}")
    print(f"{'row':<16} {'clock':<6} {'median ms':>10} {'min ms':>9} {'max ms':>9} "
          f"{'GB/s':>8} {'pulses/s':>11}")
    for label, r in rows.items():
        print(f"{label:<16} {r['clock']:<6} {r['median_ms']:>10.4f} {r['min_ms']:>9.4f} "
              f"{r['max_ms']:>9.4f} {r['gb_per_s']:>8.1f} {r['pulses_per_s']:>11.0f}")
    print(f"cupy kernels x d2d copy: {ratios['kernels_x_d2d_copy']:.2f}; "
          f"of d2d copy bandwidth: {ratios['kernels_of_d2d_copy_bandwidth']:.2f} "
          "((input + products) bytes/s over the copy's (read + write) bytes/s)")
    print(f"cupy end-to-end x pinned H2D: {ratios['end_to_end_x_pinned_h2d']:.2f}")
    print("paper (Denham et al. 2017, same turn): 93.87 to 158.03 ms per turn "
          "including transfers")
    status = "ok" if result_check["ok"] else "out of tolerance"
    print(f"check vs NumPy float64 on radials {check_radials}: {status}; "
          f"censored {100 * result_check['censored_fraction']:.1f}% of gates")
    for pname, c in result_check["products"].items():
        print(f"  {pname:<6} max |error| {c['max_abs_error']:.3g}, "
              f"{c['values_out_of_tolerance']} values out of tolerance, "
              f"{c['nan_pattern_mismatches']} censoring mismatches")

    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
