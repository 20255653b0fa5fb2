#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""tools/compare-gnss-sdr --receiver: GNSS-SDR's whole receiver and cudadsp_gnss on one
recording with known truth (tools/make-gps-recording), the fixes, time to first fix,
errors and wall time side by side (docs/gnss_sdr_comparison.md)."""

import datetime
import os
import pathlib
import platform
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

from gnss_sdr_comparison_common import CONF_DIR, REPO, SKIPPED, compact, gnss_sdr_version, log, \
    replace_between_markers

RECEIVER_CONF = "gps_l1ca_receiver.conf"
RECEIVER_BEGIN = "<!-- compare-gnss-sdr-receiver:begin -->"
RECEIVER_END = "<!-- compare-gnss-sdr-receiver:end -->"
# Issue 23's targets.
TARGET_HORIZONTAL_M = 0.5
TARGET_THREE_D_M = 1.0


def truth_errors(ecef_m, truth):
    """(horizontal, 3-D) distance in metres of an ECEF position from the truth's."""
    d = np.asarray(ecef_m, dtype=float) - np.asarray(truth["receiver_ecef_m"])
    lat, lon = np.radians(truth["receiver_geodetic"][:2])
    up = np.array([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])
    three_d = float(np.linalg.norm(d))
    return float(np.sqrt(max(three_d ** 2 - float(d @ up) ** 2, 0.0))), three_d


def timed_run(command, cwd, timeout_s, env=None):
    """Runs command; returns (completed process or None on timeout, wall seconds, CPU
    seconds of the process and its children, load averages before and after)."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = os.getloadavg()
    started = time.perf_counter()
    try:
        run = subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                             timeout=timeout_s, env=env)
    except subprocess.TimeoutExpired:
        run = None
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return run, wall, cpu, (load_before, os.getloadavg())


def gnss_sdr_fixes(dump):
    """The fixes of GNSS-SDR's PVT dump (MATLAB v7.3): one dict per solution with
    gps_time_s (receiver time less its clock offset), ecef_m and satellites (count).
    0.0.17 writes each solution twice (the same RX_time): the repeat is dropped."""
    import h5py

    with h5py.File(dump, "r") as f:
        names = set(f.keys())
        need = {"RX_time", "user_clk_offset", "pos_x", "pos_y", "pos_z", "valid_sats"}
        if not need <= names:
            raise SystemExit("compare-gnss-sdr: %s lacks %s (it has %s)"
                             % (dump, sorted(need - names), sorted(names)))
        v = {k: np.asarray(f[k][()], dtype=float).ravel() for k in need}
    fixes = []
    for i in range(len(v["RX_time"])):
        if i and v["RX_time"][i] == v["RX_time"][i - 1]:
            continue
        position = [v["pos_x"][i], v["pos_y"][i], v["pos_z"][i]]
        if v["valid_sats"][i] < 4 or not np.all(np.isfinite(position)) \
                or not np.any(position):
            continue
        fixes.append({"gps_time_s": v["RX_time"][i] - v["user_clk_offset"][i],
                      "ecef_m": position, "satellites": int(v["valid_sats"][i])})
    return fixes


def run_gnss_sdr_receiver(binary, recording, work, timeout_s):
    """GNSS-SDR's receiver over the recording in work/gnss-sdr; a result dict."""
    out = work / "gnss-sdr"
    out.mkdir()
    conf = out / "run.conf"
    conf.write_text((CONF_DIR / RECEIVER_CONF).read_text()
                    + "\n; added by tools/compare-gnss-sdr --receiver\n"
                    + "SignalSource.filename=%s\nPVT.output_path=%s\n" % (recording, out))
    command = [binary, "--config_file=%s" % conf, "--log_dir=%s" % (out / "log")]
    (out / "log").mkdir()
    run, wall, cpu, load = timed_run(command, out, timeout_s)
    result = {"command": command, "wall_s": wall, "cpu_s": cpu, "load": load}
    dumps = sorted(out.glob("pvt*.mat"))
    if run is None:
        return dict(result, error="timed out after %g s" % timeout_s)
    if run.returncode != 0 or not dumps:
        tail = (run.stdout + run.stderr).strip().splitlines()[-3:]
        return dict(result, error="exit status %d, no PVT dump: %s"
                    % (run.returncode, " / ".join(tail)))
    result["fixes"] = gnss_sdr_fixes(dumps[0])
    result["rinex"] = sorted(p.name for p in out.iterdir()
                             if re.search(r"\.\d\d[OoNn]$|\.rnx$", p.name))
    return result


def run_ours_receiver(recording, truth, work, device, timeout_s):
    """cudadsp_gnss over the recording in work/ours; a result dict."""
    import json

    out = work / "ours"
    command = [sys.executable, str(REPO / "apps" / "cudadsp_gnss"), str(recording),
               "-o", str(out), "--format", "ci16",
               "--sample-rate", "%g" % truth["sample_rate_hz"], "--device", device,
               "--troposphere", "none",
               "--elevation-mask", "%g" % truth["elevation_mask_deg"],
               "--reference-week", str(truth["reference_week"]),
               "--progress-seconds", "0"]
    run, wall, cpu, load = timed_run(command, work, timeout_s)
    result = {"command": command, "wall_s": wall, "cpu_s": cpu, "load": load}
    if run is None:
        return dict(result, error="timed out after %g s" % timeout_s)
    report = out / "receiver.json"
    if run.returncode != 0 or not report.is_file():
        tail = (run.stdout + run.stderr).strip().splitlines()[-3:]
        return dict(result, error="exit status %d: %s" % (run.returncode, " / ".join(tail)))
    data = json.loads(report.read_text())
    result["fixes"] = [{"gps_time_s": f["gps_time_of_week_s"], "ecef_m": f["ecef_m"],
                        "satellites": len(f["satellites_used"]),
                        "prns": f["satellites_used"],
                        "not_used": f["satellites_not_used"]}
                       for f in data["fixes"] if f["valid"]]
    result["backend"] = data["backend"]
    result["rinex"] = sorted(p.name for p in out.iterdir() if p.name.endswith(".rnx"))
    return result


def receiver_summary(result, truth):
    """Time to first fix, satellites, errors of a run's fixes."""
    fixes = result.get("fixes") or []
    if not fixes:
        return None
    errors = np.array([truth_errors(f["ecef_m"], truth) for f in fixes])
    sats = [f["satellites"] for f in fixes]
    return {"first_fix_s": fixes[0]["gps_time_s"] - truth["start_tow_s"],
            "fixes": len(fixes),
            "sats_min": min(sats), "sats_max": max(sats),
            "horizontal_median_m": float(np.median(errors[:, 0])),
            "horizontal_max_m": float(np.max(errors[:, 0])),
            "three_d_median_m": float(np.median(errors[:, 1])),
            "three_d_max_m": float(np.max(errors[:, 1])),
            "real_time": truth["seconds"] / result["wall_s"]}


def receiver_table(truth, results, version, device, given_recording):
    """The Markdown of the comparison: the signal, one row per measure, the targets."""
    g, o = (receiver_summary(results[k], truth) for k in ("gnss_sdr", "ours"))
    names = ("GNSS-SDR", "ours (cudadsp_gnss)")
    sats = len(truth["satellites"])

    def cell(summary, result, key, spec):
        if summary is None:
            return "error: %s" % result.get("error", "no fix")
        return format(summary[key], spec)

    def sats_cell(summary, result):
        if summary is None:
            return "error: %s" % result.get("error", "no fix")
        if summary["sats_min"] == summary["sats_max"]:
            return "%d of %d" % (summary["sats_min"], sats)
        return "%d to %d of %d" % (summary["sats_min"], summary["sats_max"], sats)

    rows = [("first fix: its epoch (s of signal; due %.1f)" % truth["first_fix_due_s"],
             "first_fix_s", ".3f"),
            ("fixes (1 Hz)", "fixes", "d"),
            ("horizontal error, median (m)", "horizontal_median_m", ".3f"),
            ("horizontal error, largest (m)", "horizontal_max_m", ".3f"),
            ("3-D error, median (m)", "three_d_median_m", ".3f"),
            ("3-D error, largest (m)", "three_d_max_m", ".3f")]
    lines = ["| | %s | %s |" % names, "|---|---|---|"]
    for label, key, spec in rows:
        lines.append("| %s | %s | %s |" % (label, cell(g, results["gnss_sdr"], key, spec),
                                           cell(o, results["ours"], key, spec)))
    lines.insert(3, "| satellites used per fix | %s | %s |"
                 % (sats_cell(g, results["gnss_sdr"]), sats_cell(o, results["ours"])))
    for label, key, spec in (("wall time (s)", "wall_s", ".1f"),
                             ("CPU time, all threads (s)", "cpu_s", ".1f")):
        lines.append("| %s | %s | %s |" % (label, format(results["gnss_sdr"][key], spec),
                                           format(results["ours"][key], spec)))
    lines.append("| real-time factor (signal s / wall s) | %s | %s |"
                 % (cell(g, results["gnss_sdr"], "real_time", ".2f"),
                    cell(o, results["ours"], "real_time", ".2f")))
    lines.append("| load average before / after (1 min) | %.2f / %.2f | %.2f / %.2f |"
                 % (results["gnss_sdr"]["load"][0][0], results["gnss_sdr"]["load"][1][0],
                    results["ours"]["load"][0][0], results["ours"]["load"][1][0]))
    head = [
        "Measured by `tools/compare-gnss-sdr --receiver --device %s%s` on %s (%s, %d CPU "
        "cores) with %s; ours on the %s backend. GNSS-SDR: `gnss-sdr --config_file=run.conf` "
        "with run.conf = `tools/gnss-sdr/%s` + `SignalSource.filename=<the recording>` + "
        "`PVT.output_path=<a folder>`; ours: `%s`."
        % (device, " --receiver-recording <file>" if given_recording else "",
           datetime.date.today().isoformat(),
           platform.processor() or platform.machine(), os.cpu_count(), version,
           results["ours"].get("backend", device), RECEIVER_CONF,
           " ".join(["cudadsp_gnss", "<the recording>", "-o", "<a folder>"]
                    + results["ours"]["command"][5:])),
        "",
        "Signal (`tools/make-gps-recording`, %s): %g s "
        "of GPS L1 C/A, int16 I/Q at %g Msps, %d satellites (PRN %s, elevations %.1f to "
        "%.1f degrees) at %g dB-Hz, Klobuchar ionosphere, no troposphere, static receiver "
        "at %g N %g E %g m; PRN %d's IODC is above 255; first complete ephemeris %.2f s "
        "into the signal."
        % ("made before the run, its truth in the JSON file beside it" if given_recording
           else "made for the run and removed after it",
           truth["seconds"], truth["sample_rate_hz"] / 1e6, sats, compact(truth["satellites"]),
           min(truth["elevations_deg"]), max(truth["elevations_deg"]), truth["cn0_dbhz"],
           truth["receiver_geodetic"][0], truth["receiver_geodetic"][1],
           truth["receiver_geodetic"][2], truth["high_iodc_prn"],
           truth["first_complete_ephemeris_s"]),
        ""]
    targets = receiver_targets(truth, results, g, o)
    return head + lines + ["", "Targets of issue 23 (ours):", ""] + \
        ["- %s: %s" % (t, "met" if ok else "**missed**") for t, ok in targets]


def receiver_targets(truth, results, g, o):
    """[(target, met)] for ours."""
    if o is None:
        return [("a fix", False)]
    not_used = sorted({p for f in results["ours"]["fixes"] for p, _ in f["not_used"]})
    return [("first fix at %.1f s (the first whole GPS second after the first complete "
             "ephemeris; got %.3f s)" % (truth["first_fix_due_s"], o["first_fix_s"]),
             abs(o["first_fix_s"] - truth["first_fix_due_s"]) < 0.05),
            ("every healthy satellite used (%d; unused in some fix: %s)"
             % (len(truth["satellites"]), compact(not_used) if not_used else "none"),
             o["sats_min"] == len(truth["satellites"])),
            ("horizontal median <= %.1f m" % TARGET_HORIZONTAL_M,
             o["horizontal_median_m"] <= TARGET_HORIZONTAL_M),
            ("3-D median <= %.1f m" % TARGET_THREE_D_M,
             o["three_d_median_m"] <= TARGET_THREE_D_M),
            ("at least as fast as GNSS-SDR (wall time)",
             results["ours"]["wall_s"] <= results["gnss_sdr"]["wall_s"])]


def receiver_main(args, binary):
    """--receiver: returns the exit status."""
    import json

    try:
        import h5py  # noqa: F401  (GNSS-SDR's PVT dump is MATLAB v7.3 = HDF5)
    except ImportError:
        log("compare-gnss-sdr: h5py not found (Debian: apt install python3-h5py); "
            "nothing written")
        return SKIPPED
    version = gnss_sdr_version(binary)
    with tempfile.TemporaryDirectory(prefix="compare-gnss-sdr-receiver-",
                                     dir=args.work_dir) as work:
        work = pathlib.Path(work)
        if args.receiver_recording:
            recording = args.receiver_recording.resolve()
        else:
            recording = work / "gps_l1ca.dat"
            log("compare-gnss-sdr: making the recording (%g s) in %s"
                % (args.receiver_seconds, work))
            subprocess.run([sys.executable, str(REPO / "tools" / "make-gps-recording"),
                            str(recording), "--seconds", "%g" % args.receiver_seconds],
                           check=True)
        truth = json.loads(recording.with_suffix(".json").read_text())
        log("compare-gnss-sdr: GNSS-SDR's receiver (%s)" % version)
        results = {"gnss_sdr": run_gnss_sdr_receiver(binary, recording, work,
                                                      args.receiver_timeout)}
        log("compare-gnss-sdr: cudadsp_gnss --device %s" % args.device)
        results["ours"] = run_ours_receiver(recording, truth, work, args.device,
                                            args.receiver_timeout)
        for name, r in results.items():
            log("  %s: %s, %.1f s wall, %.1f s CPU"
                % (name, r.get("error") or "%d fixes" % len(r["fixes"]), r["wall_s"],
                   r["cpu_s"]))
        text = "\n".join(receiver_table(truth, results, version, args.device,
                                         bool(args.receiver_recording))) + "\n"
    print(text)
    if args.update_doc:
        replace_between_markers(args.update_doc, RECEIVER_BEGIN, RECEIVER_END, text)
        log("compare-gnss-sdr: table written into %s" % args.update_doc)
    return 0

