#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
GNSS acquisition with the multichannel correlator as the search grid, on the GNSS-SDR
project's test recordings, with the satellites found and two plots:

  gnss_acquisition_grid.png     the coarse search grids (Doppler x code phase) of the
                                strongest PRN of each recording
  gnss_acquisition_metrics.png  the detection metric of every PRN searched in the real
                                capture, against its threshold

Every (PRN, Doppler bin) is a set of open-loop channels of one multichannel_correlator_cc
and every code-phase hypothesis a tap (python/cudadsp/gnss/search_grid.py explains the
method; docs/blocks/multichannel_correlator_cc.md the block).

Data: gnss/ of the repository's data folder (found as cudadsp.common.data_files says:
$CUDADSP_DATA_DIR, the installed share/gr-cudadsp/data, the source tree's data/), or
of --data-dir: GPS_L1_CA_ID_1_Fs_4Msps_2ms.dat, Galileo_E1_ID_1_Fs_4Msps_8ms.dat and
GSoC_CTTC_capture_2012_07_26_4Msps_4ms.dat, GNSS-SDR test signal samples, CC-BY-4.0,
copyright 2012-2019 the GNSS-SDR contributors (https://gnss-sdr.org). Without them it
writes nothing and exits with 77 (ctest's "skipped").

Options: --quick (the two simulated recordings only, Galileo near its Doppler: what CI
runs), --full (Galileo: all 50 PRNs over +-5 kHz; meant for a GPU, minutes on a CPU).
"""

import argparse
import json
import os
import sys
import time

import numpy as np

from gnuradio.cudadsp import data_files
from gnuradio.cudadsp.gnss import search_grid as ga

ATTRIBUTION = ("Data: GNSS-SDR test signal samples, CC-BY-4.0, "
               "(c) 2012-2019 the GNSS-SDR contributors, gnss-sdr.org")


def report(title, results, only_detected=False):
    print("\n%s" % title)
    print("  PRN  detected  metric  threshold  delay (samples)  delay (chips)  Doppler (Hz)")
    for r in sorted(results, key=lambda r: -r.metric / r.threshold):
        if only_detected and not r.detected:
            continue
        print("  %3d  %-8s  %6.2f  %9.2f  %15.2f  %13.3f  %12.1f"
              % (r.prn, "yes" if r.detected else "no", r.metric, r.threshold,
                 r.delay_samples, r.delay_chips, r.doppler_hz))


def as_json(results):
    return [{"prn": r.prn, "detected": r.detected, "metric": round(r.metric, 3),
             "threshold": round(r.threshold, 3), "delay_samples": round(r.delay_samples, 3),
             "code_phase_chips": round(r.code_phase_chips, 4),
             "doppler_hz": round(r.doppler_hz, 2)} for r in results]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="auto", help='"auto", "cpu", "cuda" or "cuda:N"')
    parser.add_argument("--outdir", default=".", help="where the PNGs and JSON go")
    parser.add_argument("--data-dir", default=None,
                        help="folder holding gnss/*.dat (default: the data folder)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="simulated recordings only")
    mode.add_argument("--full", action="store_true", help="Galileo: all 50 PRNs, +-5 kHz")
    args = parser.parse_args()

    folder = data_files.data_dir(args.data_dir)
    names = {"gps": "GPS_L1_CA_ID_1_Fs_4Msps_2ms.dat",
             "galileo": "Galileo_E1_ID_1_Fs_4Msps_8ms.dat",
             "real": "GSoC_CTTC_capture_2012_07_26_4Msps_4ms.dat"}
    paths = {k: folder / "gnss" / v if folder else None for k, v in names.items()}
    missing = [v for k, v in names.items() if not (paths[k] and paths[k].is_file())
               and not (args.quick and k == "real")]
    if missing:
        print("gnss_acquisition: %s: %s not found in %s; no output written"
              % (data_files.DATA_ABSENT, ", ".join(missing),
                 folder / "gnss" if folder else "any data folder"), file=sys.stderr)
        return data_files.SKIPPED_EXIT_CODE
    os.makedirs(args.outdir, exist_ok=True)
    fs = 4e6
    print(ATTRIBUTION)
    out = {"attribution": ATTRIBUTION, "device": args.device}
    grids = []
    started = time.time()

    # GPS L1 C/A, simulated PRN 1 (stated: delay 524 samples = code start + 1, 1680 Hz).
    x = ga.read_cf32(paths["gps"])
    gps_sim = ga.acquire_gps_l1ca(x, fs, doppler_max_hz=5e3, keep_grids=True, device=args.device)
    report("%s (GPS L1 C/A, +-5 kHz): detected PRNs" % names["gps"], gps_sim, only_detected=True)
    out["gps_simulated"] = as_json(gps_sim)
    grids.append((names["gps"], max(gps_sim, key=lambda r: r.metric)))

    # Galileo E1, simulated PRN 1 (stated: delay 2920 samples, |Doppler| about 632 Hz).
    x = ga.read_cf32(paths["galileo"])
    prns = range(1, 51) if args.full else [1, 2, 3, 4]
    window = 5e3 if args.full else 1e3
    gal_sim = ga.acquire_galileo_e1(x, fs, prns=prns, doppler_max_hz=window, keep_grids=True,
                                    device=args.device)
    report("%s (Galileo E1, PRNs %s, +-%.0f Hz)" % (names["galileo"],
           "1-50" if args.full else "1-4", window), gal_sim)
    out["galileo_simulated"] = as_json(gal_sim)
    grids.append((names["galileo"], max(gal_sim, key=lambda r: r.metric)))

    real_gps, real_gal = [], []
    if not args.quick:
        # The real capture: its front end is about 9 kHz off, hence +-15 kHz for GPS;
        # Galileo is searched around the clock Doppler the GPS satellites give.
        x = ga.read_cf32(paths["real"])
        real_gps = ga.acquire_gps_l1ca(x, fs, doppler_max_hz=15e3, keep_grids=True,
                                       device=args.device)
        report("%s (GPS L1 C/A, +-15 kHz)" % names["real"], real_gps)
        clock = ga.receiver_clock_doppler_hz(real_gps)
        if clock is None:
            clock = 0.0
        prns = range(1, 51) if args.full else [11, 12, 19, 20]
        window = 5e3 if args.full else 2.5e3
        real_gal = ga.acquire_galileo_e1(x, fs, prns=prns, doppler_center_hz=clock,
                                         doppler_max_hz=window, keep_grids=True,
                                         device=args.device)
        report("%s (Galileo E1, PRNs %s, %.0f +- %.0f Hz)"
               % (names["real"], "1-50" if args.full else "11, 12, 19, 20", clock, window),
               real_gal)
        out["real_gps"] = as_json(real_gps)
        out["real_galileo"] = as_json(real_gal)
        out["receiver_clock_doppler_hz"] = clock
        grids.append((names["real"], max(real_gps, key=lambda r: r.metric)))
    out["seconds"] = round(time.time() - started, 1)
    print("\nacquisition time %.1f s (device %s)" % (out["seconds"], args.device))

    with open(os.path.join(args.outdir, "gnss_acquisition.json"), "w") as f:
        json.dump(out, f, indent=1)
    plot(args.outdir, grids, real_gps, real_gal)
    return 0


def plot(outdir, grids, real_gps, real_gal):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # Each recording: the whole grid (left) and the cells within +-60 samples of the peak
    # (right), in dB above the grid's mean.
    fig, axes = plt.subplots(len(grids), 2, figsize=(12, 3.2 * len(grids)), squeeze=False,
                             gridspec_kw={"width_ratios": [3, 1]})
    for row, (name, r) in zip(axes, grids):
        period = r.sample_rate_hz * (1e-3 if r.signal == "gps_l1ca" else 4e-3)
        chips = ga.GPS_L1CA.chips if r.signal == "gps_l1ca" else ga.GALILEO_E1.chips
        delays = ((chips - r.code_phases_chips) * r.sample_rate_hz / r.code_rate_cps) % period
        order = np.argsort(delays)
        delays = delays[order]
        image = 10 * np.log10(np.maximum(r.grid[:, order] / np.mean(r.grid), 1e-3))
        step = r.dopplers_hz[1] - r.dopplers_hz[0] if len(r.dopplers_hz) > 1 else 1.0
        extent_f = [r.dopplers_hz[0] - step / 2, r.dopplers_hz[-1] + step / 2]
        peak_db = float(image.max())
        for ax, zoom in zip(row, (False, True)):
            if zoom:
                near = np.abs((delays - r.delay_samples + period / 2) % period - period / 2) <= 60
                cols = np.flatnonzero(near)
                cols = cols[np.argsort((delays[cols] - r.delay_samples + period / 2) % period)]
                shown = image[:, cols]
                x0, x1 = r.delay_samples - 60, r.delay_samples + 60
            else:
                shown = image
                x0, x1 = delays[0], delays[-1]
            im = ax.imshow(shown, aspect="auto", origin="lower", interpolation="nearest",
                           extent=[x0, x1] + extent_f, cmap="viridis", vmin=0, vmax=peak_db)
            ax.set_xlabel("code delay (samples; start of a code period)")
            ax.set_ylabel("Doppler (Hz)")
        row[0].set_title("%s: %s PRN %d, peak/mean %.1f (threshold %.1f), delay %.1f samples, "
                         "Doppler %.0f Hz" % (name, "GPS" if r.signal == "gps_l1ca" else "Galileo",
                                              r.prn, r.metric, r.threshold, r.delay_samples,
                                              r.doppler_hz), fontsize=8)
        row[1].set_title("+-60 samples around the peak", fontsize=8)
        fig.colorbar(im, ax=row[1], label="dB above the grid mean")
    fig.text(0.01, 0.003, ATTRIBUTION, fontsize=7)
    fig.tight_layout(rect=(0, 0.015, 1, 1))
    fig.savefig(os.path.join(outdir, "gnss_acquisition_grid.png"), dpi=110)
    plt.close(fig)

    if not real_gps:
        return
    fig, ax = plt.subplots(figsize=(11, 4))
    labels, values, colors = [], [], []
    for r in real_gps:
        labels.append("G%02d" % r.prn)
        values.append(r.metric / r.threshold)
        colors.append("tab:green" if r.detected else "tab:gray")
    for r in real_gal:
        labels.append("E%02d" % r.prn)
        values.append(r.metric / r.threshold)
        colors.append("tab:blue" if r.detected else "tab:gray")
    ax.bar(range(len(values)), values, color=colors)
    ax.axhline(1.0, color="tab:red", lw=1, label="threshold (false alarm 1e-3 per PRN)")
    ax.set_xticks(range(len(values)))
    ax.set_xticklabels(labels, rotation=90, fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("peak-to-mean / threshold")
    ax.set_title("GSoC_CTTC_capture_2012_07_26 (real, 4 ms): GPS (green) and Galileo (blue) "
                 "detections")
    ax.legend(fontsize=8)
    fig.text(0.01, 0.005, ATTRIBUTION, fontsize=7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(os.path.join(outdir, "gnss_acquisition_metrics.png"), dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
