#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Accuracy tables of the dense offsets (cudadsp.dense_offsets) beside GMTSAR's method.

Runs PyCuAmpcor's method (cudadsp.dense_offsets) on the synthetic pairs of
tools/xcorr_truth_tables.py: the same generator (tests/support/make_synthetic_slc.py), size,
seeds, offset fields and coherences, so the pairs are the very ones behind the
cudadsp_xcorr tables of docs/apps/cudadsp_xcorr.md, "Accuracy". Those GMTSAR numbers
(ri 1 and ri 2) are read from that page and printed beside ours. Markdown tables for
docs/apps/cudadsp_offsets.md, "Accuracy":

- per offset field, rows = coherence: bias (mean of estimate - truth over all windows)
  and spread (standard deviation over the windows) of the offsets across (GMTSAR's dx)
  and down (dy), for two dense-offset configurations and GMTSAR's ri 1 and ri 2;
- a summary over the constant offsets: the largest |bias| and the pooled RMS error per
  axis against coherence;
- bias against the sub-pixel fraction (dx = 1 + f, dy = -f, f = 0, 0.05, ..., 0.95) at
  coherence 0.9;
- where the dense offsets are worse than GMTSAR's ri 1 (bias beyond ri 1's largest
  |bias| of the same coherence, or spread above ri 1's of the same pair).

Sign and place of the truth. The generator puts a feature of the master (reference) at
(row y, column x) into the aligned (secondary) image at (y + dy, x + dx), dx and dy the
offset field at the master position. The dense offsets are the secondary position minus
the reference position (docs/design/pycuampcor_dense_offsets.md), so offset_across is
dx and offset_down is dy, with the reference = master and the secondary = aligned, and
no gross offset. The truth of a window is the field at its centre as the API reports it
(grid.centre_down, centre_across: top-left + size // 2, half a pixel from the exact
centre of an even window: at most 6e-4 px of difference in the linear field).

Window configuration (PyCuAmpcor's class defaults but the skip): window 64 x 64, half
search 20 down and across (the offsets are at most 3 px), skip 96 (400 windows of the
2048 x 2048 pairs, against GMTSAR's 512 patches), raw oversampling 2, deramp 1, and two
surface settings: correlation oversampling 64 with zoom 8 (issue 14's comparison
configuration; fine step 1/128 px) and the defaults 16 and 16 (fine step 1/32 px).
GMTSAR's ri 1 correlates a 128 x 128 template (the central 2 ysearch x 2 xsearch of its
256 x 256 patch), four times the pixels of these windows.

Example (the run in the docs; a few minutes on two CPU cores):

    PYTHONPATH=build/test_modules LD_LIBRARY_PATH=build/lib \\
        /usr/bin/python3 tools/offsets_truth_tables.py --device cpu
"""

import argparse
import os
import pathlib
import re
import shutil
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
# The offset fields, coherences, pair maker and truth of GMTSAR's tables.
sys.path.insert(0, str(HERE))
import xcorr_truth_tables as gmtsar_tables  # noqa: E402

FIELDS = gmtsar_tables.FIELDS
COHERENCES = gmtsar_tables.COHERENCES
FRACTIONS = [k / 20 for k in range(20)]

# (label, dense_offsets arguments) of the two configurations; the rest is LAYOUT.
CONFIGS = [
    ("oo 64, zoom 8", dict(corr_oversampling=64, zoom_window=8)),
    ("oo 16, zoom 16", dict(corr_oversampling=16, zoom_window=16)),
]
GMTSAR = [("GMTSAR ri 1", 1), ("GMTSAR ri 2", 2)]
# The pairs' size (that of GMTSAR's tables: the same pairs) and the default windows.
SIZE = 2048
LAYOUT = dict(window=64, half_search=20, skip=96)


def read_pair(folder, size):
    """master.SLC and aligned.SLC of a generator folder as int16 I, Q (rows, columns, 2)
    (the generator writes host byte order)."""
    return [np.fromfile(os.path.join(folder, name), dtype=np.int16).reshape(size, size, 2)
            for name in ("master.SLC", "aligned.SLC")]


def errors(args, folder, truth):
    """Per configuration: (error across, error down, mean SNR) of every window."""
    import cudadsp  # here, so that --help works without the module
    reference, secondary = read_pair(folder, args.size)
    out = []
    for _, surface in CONFIGS:
        r = cudadsp.dense_offsets(reference, secondary, window_width=args.window,
                                  window_height=args.window,
                                  half_search_across=args.half_search,
                                  half_search_down=args.half_search, skip_across=args.skip,
                                  skip_down=args.skip, raw_oversampling=2, deramp=1,
                                  device=args.device, **surface)
        cd, ca = np.meshgrid(r.grid.centre_down, r.grid.centre_across, indexing="ij")
        tx, ty = gmtsar_tables.truth_at(truth, ca.astype(float), cd.astype(float))
        out.append(((r.offset_across - tx).ravel().astype(np.float64),
                    (r.offset_down - ty).ravel().astype(np.float64),
                    float(np.mean(r.snr))))
    return out


def stats(ex, ey):
    bad = int(np.sum((np.abs(ex) > 1) | (np.abs(ey) > 1)))
    return dict(n=len(ex), bias_x=float(ex.mean()), sd_x=float(ex.std()),
                bias_y=float(ey.mean()), sd_y=float(ey.std()), ex=ex, ey=ey, bad=bad)


def run_pair(args, seed, coherence, field):
    d = os.path.join(args.workdir, "pair")
    shutil.rmtree(d, ignore_errors=True)
    truth = gmtsar_tables.make_pair(args, d, coherence, seed, field)
    return [dict(stats(ex, ey), snr=snr) for ex, ey, snr in errors(args, d, truth)]


# ------------------------------------------------------------------ GMTSAR's numbers
def _number(cell):
    return float(cell.strip().strip("*"))


def gmtsar_docs(path):
    """GMTSAR's numbers from docs/apps/cudadsp_xcorr.md, "Accuracy": fields[(field
    name, coherence, ri)], fractions[(f, ri)] = (bias dx, sd dx, bias dy, sd dy);
    summary[(coherence, ri)] = (max |bias| dx, RMS dx, max |bias| dy, RMS dy)."""
    fields, fractions, summary = {}, {}, {}
    names = [name for name, _, _ in FIELDS]
    heading = None
    for line in pathlib.Path(path).read_text().splitlines():
        m = re.match(r"\*\*(.+?)\*\*", line)
        if m:
            heading = m.group(1)
            continue
        cells = [c for c in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or not re.match(r"\s*-?\d", cells[0]):
            continue
        key = _number(cells[0])
        if heading in names:
            for ri, k in ((1, 1), (2, 6)):
                fields[(heading, key, ri)] = tuple(_number(c) for c in cells[k:k + 4])
        elif heading == "Bias against the sub-pixel fraction":
            for ri, k in ((1, 1), (2, 6)):
                fractions[(round(key, 2), ri)] = tuple(_number(c) for c in cells[k:k + 4])
        elif heading and heading.startswith("Summary over the"):
            for ri, k in ((1, 1), (2, 5)):
                summary[(key, ri)] = tuple(_number(c) for c in cells[k:k + 4])
    want = len(FIELDS) * len(COHERENCES) * 2, len(FRACTIONS) * 2, len(COHERENCES) * 2
    if (len(fields), len(fractions), len(summary)) != want:
        sys.exit("%s: found %d field, %d fraction and %d summary numbers of GMTSAR, "
                 "expected %d, %d and %d (has its Accuracy section changed?)" % (
                     path, len(fields), len(fractions), len(summary), *want))
    return fields, fractions, summary


# ------------------------------------------------------------------ tables
def cell(bias, sd, signed=True):
    mark = "**" if abs(bias) >= 0.1 else ""
    return "%s%s%s / %.3f" % (mark, ("%+.3f" if signed else "%.3f") % bias, mark, sd)


def header(first):
    labels = [label for label, _ in CONFIGS] + [label for label, _ in GMTSAR]
    print("| %s | %s |" % (first, " | ".join("%s %s" % (label, axis) for label in labels
                                             for axis in ("dx", "dy"))))
    print("|---|" + "---|" * (2 * len(labels)))


def row(first, ours, theirs, signed=True):
    """ours: stats per configuration; theirs: (bx, sx, by, sy) per GMTSAR ri; signed:
    biases with their sign (not for largest |bias|)."""
    cells = [first]
    for r in ours:
        cells += [cell(r["bias_x"], r["sd_x"], signed), cell(r["bias_y"], r["sd_y"], signed)]
    for bx, sx, by, sy in theirs:
        cells += [cell(bx, sx, signed), cell(by, sy, signed)]
    print("| " + " | ".join(cells) + " |")


def worse_than_ri1(where, ours, ri1, max_bias_ri1):
    """Where a configuration is worse than GMTSAR's ri 1 of the same case: |bias| above
    ri 1's largest |bias| at that coherence (max_bias_ri1, per axis), or spread above
    ri 1's spread of the same pair."""
    notes = []
    for (label, _), r in zip(CONFIGS, ours):
        for axis, k in (("x", 0), ("y", 1)):
            b, sd = r["bias_" + axis], r["sd_" + axis]
            if abs(b) > max_bias_ri1[k] or sd > ri1[2 * k + 1]:
                notes.append("%s, %s, d%s: bias %+.3f / sd %.3f against ri 1's %+.3f / "
                             "%.3f (largest ri 1 |bias| %.3f)" % (
                                 where, label, axis, b, sd, ri1[2 * k], ri1[2 * k + 1],
                                 max_bias_ri1[k]))
    return notes


def synthetic(args, docs):
    g_fields, _, g_summary = docs
    results = {}
    for fi, (name, field, seed) in enumerate(FIELDS):
        for g in COHERENCES:
            results[(fi, g)] = run_pair(args, seed, g, field)
            print("  %s, coherence %.2f: done (%.0f s)" % (name, g, time.time() - T0),
                  file=sys.stderr)
    n = results[(0, COHERENCES[0])][0]["n"]
    print("Synthetic pairs of tools/xcorr_truth_tables.py (%d x %d int16, same seeds). "
          "Dense offsets: window %d x %d, half search %d, skip %d (%d windows a pair), raw "
          "oversampling 2, deramp 1, --device %s. GMTSAR: cudadsp_xcorr's numbers of the "
          "same pairs from docs/apps/cudadsp_xcorr.md (512 patches of 256 x 256). Each "
          "cell: bias / sd, px; bias = mean(estimate - truth), sd = standard deviation "
          "over the windows; bold: |bias| >= 0.1 px.\n" % (
              args.size, args.size, args.window, args.window, args.half_search, args.skip,
              n, args.device))
    notes = []
    for fi, (name, _, _) in enumerate(FIELDS):
        print("**%s**\n" % name)
        header("coherence")
        for g in COHERENCES:
            ours = results[(fi, g)]
            theirs = [g_fields[(name, g, ri)] for _, ri in GMTSAR]
            row("%.2f" % g, ours, theirs)
            ri1_max = (g_summary[(g, 1)][0], g_summary[(g, 1)][2])
            notes += worse_than_ri1("%s, coherence %.2f" % (name, g), ours, theirs[0],
                                    ri1_max)
            for (label, _), r in zip(CONFIGS, ours):
                if r["bad"]:
                    notes.append("%s, coherence %.2f, %s: %d windows off by more than "
                                 "1 px" % (name, g, label, r["bad"]))
        print()

    const = [fi for fi, (name, _, _) in enumerate(FIELDS) if name.startswith("constant")]
    print("**Summary over the %d constant offsets**: the largest |bias| of the %d pairs / "
          "the RMS error over all their windows (GMTSAR: patches), px\n" % (
              len(const), len(const)))
    header("coherence")
    for g in COHERENCES:
        ours = []
        for c in range(len(CONFIGS)):
            rs = [results[(fi, g)][c] for fi in const]
            s = {}
            for axis in ("x", "y"):
                s["bias_" + axis] = max(abs(r["bias_" + axis]) for r in rs)
                e = np.concatenate([r["e" + axis] for r in rs])
                s["sd_" + axis] = float(np.sqrt(np.mean(e ** 2)))
            ours.append(s)
        row("%.2f" % g, ours, [g_summary[(g, ri)] for _, ri in GMTSAR], signed=False)
    print()
    snr = ", ".join("%.2f: %s" % (g, " / ".join(
        "%.0f" % np.mean([results[(fi, g)][c]["snr"] for fi in range(len(FIELDS))])
        for c in range(len(CONFIGS)))) for g in COHERENCES)
    print("Mean SNR over the pairs (%s): %s.\n" % (" / ".join(
        label for label, _ in CONFIGS), snr))
    return notes


def fraction_sweep(args, docs):
    _, g_fractions, g_summary = docs
    print("**Bias against the sub-pixel fraction** at coherence 0.9: dx = 1 + f, dy = -f "
          "(azimuth fraction 1 - f), the pairs of GMTSAR's table (seeds 100 + 20 f), same "
          "windows. Cell: bias / sd, px.\n")
    header("f")
    notes = []
    worst = [[0.0, 0.0] for _ in CONFIGS]
    for k, f in enumerate(FRACTIONS):
        ours = run_pair(args, 100 + k, 0.9, dict(dx=1 + f, dy=-f))
        theirs = [g_fractions[(round(f, 2), ri)] for _, ri in GMTSAR]
        row("%.2f" % f, ours, theirs)
        ri1_max = (max(abs(g_fractions[(round(q, 2), 1)][0]) for q in FRACTIONS),
                   max(abs(g_fractions[(round(q, 2), 1)][2]) for q in FRACTIONS))
        notes += worse_than_ri1("fraction %.2f" % f, ours, theirs[0], ri1_max)
        for c, r in enumerate(ours):
            worst[c][0] = max(worst[c][0], abs(r["bias_x"]))
            worst[c][1] = max(worst[c][1], abs(r["bias_y"]))
        print("  fraction %.2f: done (%.0f s)" % (f, time.time() - T0), file=sys.stderr)
    print("\nLargest |bias| over the fractions, dx / dy: %s; GMTSAR ri 1 %.3f / %.3f, "
          "ri 2 %.3f / %.3f.\n" % (
              "; ".join("%s %.3f / %.3f" % (label, w[0], w[1])
                        for (label, _), w in zip(CONFIGS, worst)),
              *[max(abs(g_fractions[(round(q, 2), ri)][k]) for q in FRACTIONS)
                for ri in (1, 2) for k in (0, 2)]))
    return notes


def main():
    global T0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--generator", default=str(HERE.parent / "tests" / "support" / "make_synthetic_slc.py"))
    p.add_argument("--gmtsar-docs", default=str(HERE.parent / "docs" / "apps" /
                                                 "cudadsp_xcorr.md"),
                   help="the page holding GMTSAR's tables (docs/apps/cudadsp_xcorr.md)")
    p.add_argument("--device", default="cpu", help="dense_offsets device (default cpu)")
    p.add_argument("--window", type=int, default=LAYOUT["window"],
                   help="window width = height (%(default)s)")
    p.add_argument("--half-search", type=int, default=LAYOUT["half_search"],
                   help="half search, both axes (%(default)s)")
    p.add_argument("--skip", type=int, default=LAYOUT["skip"],
                   help="window spacing, both axes (%(default)s)")
    p.add_argument("--workdir", default=None, help="scratch folder (default: a temporary one)")
    p.add_argument("--no-fraction-sweep", action="store_true",
                   help="without the bias-against-fraction table")
    args = p.parse_args()
    args.size = SIZE
    docs = gmtsar_docs(args.gmtsar_docs)
    T0 = time.time()
    own = args.workdir is None
    if own:
        args.workdir = tempfile.mkdtemp(prefix="offsets_truth_tables_")
    try:
        notes = synthetic(args, docs)
        if not args.no_fraction_sweep:
            notes += fraction_sweep(args, docs)
    finally:
        if own:
            shutil.rmtree(args.workdir, ignore_errors=True)
    print("Worse than GMTSAR's ri 1 (|bias| above ri 1's largest |bias| at that coherence "
          "or, for the fractions, over all fractions; or sd above ri 1's of the same "
          "pair): " + ("nowhere." if not notes else "\n\n" +
                       "\n".join("- " + n for n in notes)) + "\n")
    print("(%.0f s)" % (time.time() - T0), file=sys.stderr)


if __name__ == "__main__":
    main()
