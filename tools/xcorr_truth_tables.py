#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Accuracy tables of cudadsp_xcorr: bias and spread per axis against coherence.

Makes synthetic SLC pairs with tests/support/make_synthetic_slc.py (band-limited complex
speckle, the aligned image sampling the same continuous field at displaced positions,
decorrelation noise at coherence g), runs cudadsp_xcorr on each with range
interpolation 1 and 2, and prints markdown tables (docs/apps/cudadsp_xcorr.md,
"Accuracy"):

- per offset field (a few constant sub-pixel offsets and one varying linearly across
  the image), rows = coherence: bias (mean of estimate - truth over all patches) and
  spread (standard deviation over the patches) of dx and dy, ri 1 and ri 2, and the
  mean corr;
- a summary over the constant offsets: the largest |bias| and the pooled RMS error per
  axis against coherence;
- range and azimuth bias against the sub-pixel fraction (0, 0.05, ..., 0.95) at
  coherence 0.9, ri 1 and 2;
- the ISCE pair (insar/img1_WN_512x512_1x1_128, img2_..., 512 x 512 CFloat32, in the
  repository's data folder or --data-dir; the tool stops at once without it) through
  -cfloat32, ri 1 and 2, at its native
  scale and scaled by 1000 (a scaled copy in the work folder): mean, median and
  standard deviation of dx, dy and corr, and the fraction of patches with corr above
  GMTSAR's usual cuts (fitoffset.csh's default 20, align.csh's 18).

Truth at a patch: the generator's offset field at the patch centre (x, y) printed by
cudadsp_xcorr. Patches with |error| > 1 px on either axis (failed matches) are counted
and listed; they are included in bias and spread.

Example (the run in the docs; a few minutes on two CPU cores):

    tools/xcorr_truth_tables.py --xcorr build/apps/cudadsp_xcorr --device cpu
"""

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
# The package's data-folder lookup, loaded from the checkout without GNU Radio.
sys.path.insert(0, str(HERE.parent / "python" / "engines" / "cudadsp" / "common"))
import data_files  # noqa: E402

# (name, generator offsets, seed). Range fractions 0.37, 0.1, 0.25, 0.6: GMTSAR's ri 2
# range bias depends on the fraction (pulled toward multiples of 1/2 px).
FIELDS = [
    ("constant (1.37, -0.62)", dict(dx=1.37, dy=-0.62, rshift=1, ashift=-1), 11),
    ("constant (-0.90, 0.40)", dict(dx=-0.90, dy=0.40), 12),
    ("constant (2.25, -1.50)", dict(dx=2.25, dy=-1.50, rshift=2, ashift=-1), 13),
    ("constant (0.60, 2.85)", dict(dx=0.60, dy=2.85, ashift=3), 14),
    ("linear: dx = 0.3 + 1e-3 x + 2e-4 y, dy = -0.5 + 2e-4 x - 6e-4 y",
     dict(dx=0.3, dy=-0.5, dx_per_col=1e-3, dx_per_row=2e-4, dy_per_col=2e-4,
          dy_per_row=-6e-4), 15),
]
COHERENCES = [0.6, 0.7, 0.8, 0.9, 0.95]


def make_pair(args, outdir, coherence, seed, field):
    cmd = [sys.executable, str(args.generator), "--width", str(args.size),
           "--height", str(args.size), "--outdir", str(outdir), "--quiet",
           "--seed", str(seed), "--coherence", repr(coherence)]
    for k, v in field.items():
        cmd.append("--%s=%r" % (k.replace("_", "-"), v))
    subprocess.run(cmd, check=True)
    with open(os.path.join(outdir, "truth.json")) as f:
        return json.load(f)


def run_xcorr(args, workdir, extra, master="master.PRM", aligned="aligned.PRM"):
    out = os.path.join(workdir, "freq_xcorr.dat")
    if os.path.exists(out):
        os.remove(out)
    cmd = [str(args.xcorr), master, aligned, "-device", args.device] + list(extra)
    r = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(cmd), r.returncode, r.stderr))
    d = np.loadtxt(out, ndmin=2)
    return d[:, 0], d[:, 1], d[:, 2], d[:, 3], d[:, 4]


def truth_at(t, x, y):
    dx = t["dx"]["dx0"] + t["dx"]["dx_per_col"] * x + t["dx"]["dx_per_row"] * y
    dy = t["dy"]["dy0"] + t["dy"]["dy_per_col"] * x + t["dy"]["dy_per_row"] * y
    return dx, dy


def synthetic(args):
    grid = ["-xsearch", str(args.xsearch), "-ysearch", str(args.ysearch),
            "-nx", str(args.nx), "-ny", str(args.ny)]
    results = {}  # (field index, coherence, ri) -> dict
    for fi, (name, field, seed) in enumerate(FIELDS):
        for g in COHERENCES:
            d = os.path.join(args.workdir, "pair")
            shutil.rmtree(d, ignore_errors=True)
            truth = make_pair(args, d, g, seed, field)
            for ri in (1, 2):
                x, dx, y, dy, corr = run_xcorr(args, d, grid + ["-range_interp", str(ri)])
                tx, ty = truth_at(truth, x, y)
                ex, ey = dx - tx, dy - ty
                bad = (np.abs(ex) > 1) | (np.abs(ey) > 1)
                results[(fi, g, ri)] = dict(
                    n=len(x), bias_x=float(ex.mean()), sd_x=float(ex.std()),
                    bias_y=float(ey.mean()), sd_y=float(ey.std()),
                    ex=ex, ey=ey, corr=float(corr.mean()), bad=int(bad.sum()))
            print("  %s, coherence %.2f: done (%.0f s)" % (name, g, time.time() - T0),
                  file=sys.stderr)
    return results


def tables(args, results):
    n = results[(0, COHERENCES[0], 1)]["n"]
    print("Synthetic pairs: %d x %d int16, %s (%d patches of %d x %d a pair), "
          "interp 16, -device %s. bias = mean(estimate - truth), sd = standard deviation "
          "over the patches, px; corr = mean corr, %%.\n" % (
              args.size, args.size,
              "-xsearch %d -ysearch %d -nx %d -ny %d" % (args.xsearch, args.ysearch,
                                                         args.nx, args.ny),
              n, 4 * args.ysearch, 4 * args.xsearch, args.device))
    head = ("| coherence | ri 1 dx bias | sd | ri 1 dy bias | sd | ri 1 corr "
            "| ri 2 dx bias | sd | ri 2 dy bias | sd | ri 2 corr |")
    rule = "|---|" + "---|" * 10
    for fi, (name, _, _) in enumerate(FIELDS):
        print("**%s**\n" % name)
        print(head)
        print(rule)
        notes = []
        for g in COHERENCES:
            cells = ["%.2f" % g]
            for ri in (1, 2):
                r = results[(fi, g, ri)]
                for b, s in ((r["bias_x"], r["sd_x"]), (r["bias_y"], r["sd_y"])):
                    mark = "**" if abs(b) >= 0.1 else ""
                    cells += ["%s%+.3f%s" % (mark, b, mark), "%.3f" % s]
                cells.append("%.1f" % r["corr"])
                if r["bad"]:
                    notes.append("coherence %.2f, ri %d: %d patches off by more than 1 px"
                                 % (g, ri, r["bad"]))
            print("| " + " | ".join(cells) + " |")
        print()
        for line in notes:
            print("- " + line)
        if notes:
            print()

    const = [fi for fi, (name, _, _) in enumerate(FIELDS) if name.startswith("constant")]
    print("**Summary over the %d constant offsets**: the largest |bias| of the %d pairs, "
          "and the RMS error over all their patches, px\n" % (len(const), len(const)))
    print("| coherence | ri 1 dx max \\|bias\\| | RMS | ri 1 dy max \\|bias\\| | RMS "
          "| ri 2 dx max \\|bias\\| | RMS | ri 2 dy max \\|bias\\| | RMS |")
    print("|---|" + "---|" * 8)
    for g in COHERENCES:
        cells = ["%.2f" % g]
        for ri in (1, 2):
            for axis in ("x", "y"):
                rs = [results[(fi, g, ri)] for fi in const]
                mb = max(abs(r["bias_" + axis]) for r in rs)
                rms = float(np.sqrt(np.mean(np.concatenate([r["e" + axis] for r in rs]) ** 2)))
                cells += ["%.3f" % mb, "%.3f" % rms]
        print("| " + " | ".join(cells) + " |")
    print()
    miss = ["%s, ri %d: %s %+.3f" % (FIELDS[fi][0], ri, axis, results[(fi, 0.9, ri)][
        "bias_" + axis[1]]) for fi in range(len(FIELDS)) for ri in (1, 2)
        for axis in ("dx", "dy") if abs(results[(fi, 0.9, ri)]["bias_" + axis[1]]) >= 0.1]
    print("At coherence 0.9: " + ("every mean offset within 0.1 px of the truth, both "
                                 "axes, ri 1 and 2." if not miss else
                                 "beyond 0.1 px: " + "; ".join(miss)) + "\n")


def fraction_sweep(args):
    """Range bias against the sub-pixel fraction f at coherence 0.9: dx = 1 + f,
    dy = -f, f = 0, 0.05, ..., 0.95, one pair each, ri 1 and 2."""
    grid = ["-xsearch", str(args.xsearch), "-ysearch", str(args.ysearch),
            "-nx", str(args.nx), "-ny", str(args.ny)]
    fracs = [k / 20 for k in range(20)]
    rows = []
    for k, f in enumerate(fracs):
        d = os.path.join(args.workdir, "pair")
        shutil.rmtree(d, ignore_errors=True)
        truth = make_pair(args, d, 0.9, 100 + k, dict(dx=1 + f, dy=-f))
        row = [f]
        for ri in (1, 2):
            x, dx, y, dy, corr = run_xcorr(args, d, grid + ["-range_interp", str(ri)])
            tx, ty = truth_at(truth, x, y)
            row += [float((dx - tx).mean()), float((dx - tx).std()),
                    float((dy - ty).mean()), float((dy - ty).std()), float(corr.mean())]
        rows.append(row)
        print("  fraction %.2f: done (%.0f s)" % (f, time.time() - T0), file=sys.stderr)
    print("**Bias against the sub-pixel fraction** at coherence 0.9: dx = 1 + f, dy = -f "
          "(azimuth fraction 1 - f), one %d x %d pair each (seeds 100 + 20 f), same "
          "grid.\n" % (args.size, args.size))
    print("| f | ri 1 dx bias | sd | ri 1 dy bias | sd | ri 1 corr "
          "| ri 2 dx bias | sd | ri 2 dy bias | sd | ri 2 corr |")
    print("|---|" + "---|" * 10)
    for r in rows:
        cells = ["%.2f" % r[0]]
        for i in (1, 6):
            for b, sd in ((r[i], r[i + 1]), (r[i + 2], r[i + 3])):
                mark = "**" if abs(b) >= 0.1 else ""
                cells += ["%s%+.3f%s" % (mark, b, mark), "%.3f" % sd]
            cells.append("%.1f" % r[i + 4])
        print("| " + " | ".join(cells) + " |")
    worst = {ri: max(rows, key=lambda r: abs(r[1 if ri == 1 else 6])) for ri in (1, 2)}
    print("\nLargest |dx bias|: ri 1 %+.3f (f = %.2f), ri 2 %+.3f (f = %.2f); largest "
          "|dy bias|: ri 1 %.3f, ri 2 %.3f.\n" % (
              worst[1][1], worst[1][0], worst[2][6], worst[2][0],
              max(abs(r[3]) for r in rows), max(abs(r[8]) for r in rows)))


def isce_pair_tables(args, src):
    d = os.path.join(args.workdir, "isce")
    os.makedirs(d, exist_ok=True)
    scaled = []
    for k, p in enumerate(src, 1):
        a = np.fromfile(p, dtype=np.complex64) * np.float32(1000)
        q = os.path.join(d, "img%d_x1000.raw" % k)
        a.tofile(q)
        scaled.append(q)
    for tag, files in (("native", src), ("x1000", scaled)):
        with open(os.path.join(d, "img1_%s.PRM" % tag), "w") as f:
            f.write("SLC_file = %s\n" % files[0])
        with open(os.path.join(d, "img2_%s.PRM" % tag), "w") as f:
            f.write("SLC_file = %s\nrshift = 0\nashift = 0\n" % files[1])
    geo = ["-cfloat32", "512", "512", "-xsearch", "32", "-ysearch", "32", "-nx", "8",
           "-ny", "8"]
    print("**ISCE pair** (insar/img1_WN_512x512_1x1_128, img2_...; 512 x 512 "
          "CFloat32, correlation 0.8 between the images): `%s`, 64 patches of 128 x 128, "
          "-device %s; \"x 1000\" = both rasters multiplied by 1000 first. Mean / median / "
          "standard deviation over the patches.\n" % (" ".join(geo), args.device))
    print("| ri | scale | dx mean | median | sd | dy mean | median | sd | corr mean "
          "| median | sd | corr > 20 | corr > 18 |")
    print("|---|---|" + "---|" * 11)
    for ri in (1, 2):
        for tag, label in (("native", "native (\\|z\\| ≈ 0.8)"), ("x1000", "x 1000")):
            x, dx, y, dy, corr = run_xcorr(args, d, geo + ["-range_interp", str(ri)],
                                           "img1_%s.PRM" % tag, "img2_%s.PRM" % tag)
            cells = [str(ri), label]
            for v in (dx, dy):
                cells += ["%+.3f" % v.mean(), "%+.3f" % np.median(v), "%.3f" % v.std()]
            cells += ["%.1f" % corr.mean(), "%.1f" % np.median(corr), "%.1f" % corr.std(),
                      "%.0f %%" % (100 * np.mean(corr > 20)),
                      "%.0f %%" % (100 * np.mean(corr > 18))]
            print("| " + " | ".join(cells) + " |")
    print()


def main():
    global T0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--xcorr", default=os.environ.get("CUDADSP_XCORR") or
                   shutil.which("cudadsp_xcorr") or "cudadsp_xcorr")
    p.add_argument("--generator", default=str(HERE.parent / "tests" / "support" / "make_synthetic_slc.py"))
    p.add_argument("--device", default="cpu", help="cudadsp_xcorr -device (default cpu)")
    p.add_argument("--size", type=int, default=2048, help="pair width = height (2048)")
    p.add_argument("--xsearch", type=int, default=64)
    p.add_argument("--ysearch", type=int, default=64)
    p.add_argument("--nx", type=int, default=16)
    p.add_argument("--ny", type=int, default=32)
    p.add_argument("--data-dir", default=None,
                   help="folder holding insar/ (default: the repository's data folder)")
    p.add_argument("--workdir", default=None, help="scratch folder (default: a temporary one)")
    p.add_argument("--no-synthetic", action="store_true", help="only the ISCE pair")
    p.add_argument("--no-fraction-sweep", action="store_true",
                   help="without the bias-against-fraction table")
    args = p.parse_args()
    data = data_files.data_dir(args.data_dir)
    isce_pair = [data / "insar" / ("img%d_WN_512x512_1x1_128" % k) for k in (1, 2)] if data else []
    if not isce_pair or not all(f.is_file() for f in isce_pair):
        p.error("%s: the ISCE pair insar/img1_WN_512x512_1x1_128, img2_... is not in %s "
                "(give --data-dir)" % (data_files.DATA_ABSENT, data or "any data folder"))
    T0 = time.time()
    own = args.workdir is None
    if own:
        args.workdir = tempfile.mkdtemp(prefix="xcorr_truth_tables_")
    try:
        if not args.no_synthetic:
            results = synthetic(args)
            tables(args, results)
        if not args.no_fraction_sweep and not args.no_synthetic:
            fraction_sweep(args)
        isce_pair_tables(args, isce_pair)
    finally:
        if own:
            shutil.rmtree(args.workdir, ignore_errors=True)
    print("(%.0f s)" % (time.time() - T0), file=sys.stderr)


if __name__ == "__main__":
    main()
