#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
Headless GNSS receiver: a source, throttled to its sample rate as an SDR delivers it,
into gnss_receiver_frontend (continuous PCPS acquisition handing satellites to the
multichannel correlator, and searching them again when they lose lock); no channel
dict is written by hand. A file source runs the front end in stream_mode "recording"
(every sample searched, the stream waiting for the searches), the simulator in "live"
(as an SDR: samples arriving during a search are dropped). Prints each channel (satellite, stream time of its first
record and of its lock, C/N0, Doppler) and writes into --outdir:

  gnss_receiver_headless.png   C/N0 and Doppler over stream time, per satellite
  gnss_receiver_headless.npy   the records (gnss_records() fields)

--source:
  simulator  six simulated GPS L1 C/A satellites, 40 to 47 dB-Hz (the default; what
             ctest runs on the CPU backend): exit status 1 unless every one locks
             (code and carrier lock) on its truth, code within 0.1 chip and Doppler
             within 10 Hz of the simulator's at that sample
  recording  the GSoC CTTC capture of the data folder (4 ms, looped; a whole number of
             code periods, so the code stays continuous across a wrap), GNSS-SDR test
             signal samples, CC BY 4.0, (c) 2012-2019 the GNSS-SDR contributors: exit
             status 1 unless GPS 29, 25 and 12 are tracked in code lock; 77 (skipped)
             without the data
  PATH       a recording of complex float32 at --samp-rate, zero IF (e.g. captured from
             an SDR with a File Sink), looped; no check

The run lasts --duration seconds of stream, or ends 0.5 s after the checked
satellites are all locked.

    examples/gnss_receiver_headless.py --device auto --outdir out
    examples/gnss_receiver_headless.py --source recording --duration 3 --outdir out
"""

import argparse
import os
import sys
import time

import numpy as np
from gnuradio import blocks, gr

from gnuradio import cudadsp
from gnuradio.cudadsp import data_files
from gnuradio.cudadsp.gnss.records import FLAG_CARRIER_LOCK, FLAG_CN0_VALID, FLAG_CODE_LOCK
from gnuradio.cudadsp.gnss.simulator_source import gnss_simulator_source, make_simulator

CHIPS = 1023.0
#: The simulated sky: code phase at sample 0, Doppler and its rate, C/N0.
SKY = [
    {"prn": 4, "code_phase_chips": 620.4, "doppler_hz": 3350.0,
     "doppler_rate_hz_per_s": -0.6, "cn0_dbhz": 46.0},
    {"prn": 9, "code_phase_chips": 77.9, "doppler_hz": -1410.0, "cn0_dbhz": 43.0},
    {"prn": 15, "code_phase_chips": 955.1, "doppler_hz": 260.0,
     "doppler_rate_hz_per_s": 0.4, "cn0_dbhz": 47.0},
    {"prn": 21, "code_phase_chips": 333.3, "doppler_hz": -3890.0, "cn0_dbhz": 41.0},
    {"prn": 27, "code_phase_chips": 512.6, "doppler_hz": 1975.0, "cn0_dbhz": 44.0},
    {"prn": 30, "code_phase_chips": 140.0, "doppler_hz": -2620.0, "cn0_dbhz": 40.0},
]
RECORDING = "GSoC_CTTC_capture_2012_07_26_4Msps_4ms.dat"
#: GPS satellites of the real capture and their Doppler (the grid acquisition of
#: docs/blocks/multichannel_correlator_cc.md; the front end is about 9 kHz off).
RECORDING_SATELLITES = {29: 9725.0, 25: 8997.0, 12: 7164.0}
LOCKED = FLAG_CODE_LOCK | FLAG_CARRIER_LOCK
#: Stream seconds the run goes on once every checked satellite is locked.
AFTER_LOCK_S = 0.5


def wrapped_chips(a, b):
    return np.abs((np.asarray(a) - b + CHIPS / 2) % CHIPS - CHIPS / 2)


def end_sample(records):
    return records["start_sample"].astype(np.float64) + records["sample_count"]


def simulator_locks(records, sim):
    """{PRN: stream sample of its first record locked on its truth}."""
    locks = {}
    good = records[(records["flags"] & LOCKED) == LOCKED]
    for i, sat in enumerate(SKY):
        mine = good[good["prn"] == sat["prn"]]
        if not len(mine):
            continue
        at = end_sample(mine)
        ok = ((wrapped_chips(mine["code_phase_chips"], sim.code_phase_chips(i, at)) < 0.1)
              & (np.abs(mine["doppler_hz"] - sim.doppler_hz(i, at)) < 10.0))
        if np.any(ok):
            locks[sat["prn"]] = float(at[np.argmax(ok)])
    return locks


def recording_locks(records):
    """{PRN: stream sample from which a real satellite is in code lock at its Doppler
    (20 records of it, so that a lock of a moment does not count)}."""
    locks = {}
    for prn, doppler in RECORDING_SATELLITES.items():
        mine = records[(records["prn"] == prn) & ((records["flags"] & FLAG_CODE_LOCK) != 0)]
        close = mine[np.abs(mine["doppler_hz"] - doppler) < 150.0]
        if len(close) >= 20:
            locks[prn] = float(end_sample(close[:1])[0])
    return locks


def build_source(args):
    """(source block, its simulator or None, check function or None) for --source."""
    fs = args.samp_rate
    if args.source == "simulator":
        sim = make_simulator(fs, SKY, seed=5)
        return (gnss_simulator_source(fs, SKY, seed=5),
                sim, lambda records: simulator_locks(records, sim))
    if args.source == "recording":
        if fs != 4e6:
            raise SystemExit("gnss_receiver_headless: --samp-rate: the recording is at "
                             "4 Msps, not %g" % fs)
        folder = data_files.data_dir(args.data_dir)
        path = folder / "gnss" / RECORDING if folder else None
        if not (path and path.is_file()):
            print("gnss_receiver_headless: %s: %s; no output written"
                  % (data_files.DATA_ABSENT, RECORDING), file=sys.stderr)
            sys.exit(data_files.SKIPPED_EXIT_CODE)
        print("Data: GNSS-SDR test signal samples, (c) 2012-2019 the GNSS-SDR "
              "contributors, https://gnss-sdr.org, CC BY 4.0.")
        return blocks.file_source(gr.sizeof_gr_complex, str(path), True), None, recording_locks
    if not os.path.isfile(args.source):
        raise SystemExit('gnss_receiver_headless: --source: "simulator", "recording" or '
                         "a recording's path; %s is none" % args.source)
    return blocks.file_source(gr.sizeof_gr_complex, args.source, True), None, None


def run(args, source, check):
    """Runs the receiver; returns (records, locks, stream seconds, wall seconds,
    frontend)."""
    fs = args.samp_rate
    tb = gr.top_block("gnss_receiver_headless")
    # A file is searched whole (the stream waits for the searches); the simulator
    # stands for a live SDR, whose samples the acquisition drops while it searches.
    rx = cudadsp.gnss_receiver_frontend(
        fs, doppler_max_hz=args.doppler_max, doppler_center_hz=args.doppler_center,
        noncoherent_dwells=args.dwells, lock_timeout_windows=args.lock_timeout_windows,
        device=args.device, stream_mode="live" if args.source == "simulator" else "recording")
    sink = cudadsp.gnss_record_sink(rx.taps())
    tb.connect(source, blocks.throttle(gr.sizeof_gr_complex, fs), rx)
    tb.connect((rx, 0), (sink, 0))
    tb.connect((rx, 1), (sink, 1))
    started = time.monotonic()
    tb.start()
    locks, done_at = {}, None
    try:
        while True:
            time.sleep(0.1)
            records = sink.records()
            stream = float(end_sample(records).max()) / fs if len(records) else 0.0
            if check is not None and len(records):
                locks = check(records)
                expected = len(SKY) if args.source == "simulator" else len(RECORDING_SATELLITES)
                if len(locks) == expected and done_at is None:
                    done_at = stream
            if stream >= args.duration or (done_at is not None
                                           and stream >= done_at + AFTER_LOCK_S):
                break
            # The throttle keeps the stream at real rate: a stalled receiver ends here.
            if time.monotonic() - started > 2 * args.duration + 30:
                print("gnss_receiver_headless: the stream reached only %.2f s in %.0f s"
                      % (stream, time.monotonic() - started), file=sys.stderr)
                break
    finally:
        tb.stop()
        tb.wait()
    records = sink.records()
    if check is not None:
        locks = check(records)
    stream = float(end_sample(records).max()) / fs if len(records) else 0.0
    return records, locks, stream, time.monotonic() - started, rx


def report(records, locks, fs):
    print("\nchannel  satellite  first record (s)  locked (s)  C/N0 (dB-Hz)  Doppler (Hz)")
    for cid in np.unique(records["channel_id"]):
        r = records[records["channel_id"] == cid]
        prn = int(r["prn"][0])
        valid = r[(r["flags"] & FLAG_CN0_VALID) != 0]
        cn0 = np.median(valid["cn0_dbhz"][-10:]) if len(valid) else float("nan")
        locked = locks.get(prn)
        print("%7d  G%02d        %16.3f  %10s  %12.1f  %12.1f"
              % (cid, prn, end_sample(r[:1])[0] / fs,
                 "%.3f" % (locked / fs) if locked is not None else "-", cn0,
                 r["doppler_hz"][-1]))


def plot(records, sim, fs, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sky_index = {s["prn"]: i for i, s in enumerate(SKY)} if sim is not None else {}
    fig, (ax_cn0, ax_doppler) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    for prn in np.unique(records["prn"]):
        r = records[records["prn"] == prn]
        t = end_sample(r) / fs
        valid = (r["flags"] & FLAG_CN0_VALID) != 0
        line, = ax_cn0.plot(t[valid], r["cn0_dbhz"][valid], ".", ms=2, label="G%02d" % prn)
        ax_doppler.plot(t, r["doppler_hz"], ".", ms=2, color=line.get_color())
        i = sky_index.get(int(prn))
        if i is not None:
            grid = np.linspace(0.0, t[-1], 50)
            ax_doppler.plot(grid, sim.doppler_hz(i, grid * fs), "--", lw=0.8,
                            color=line.get_color())
            ax_cn0.axhline(SKY[i]["cn0_dbhz"], ls="--", lw=0.8, color=line.get_color())
    ax_cn0.set_ylabel("C/N0 estimate (dB-Hz)")
    ax_doppler.set_ylabel("Doppler (Hz)")
    ax_doppler.set_xlabel("stream time (s)")
    for ax in (ax_cn0, ax_doppler):
        ax.grid(alpha=0.3)
    ax_cn0.legend(fontsize=8, ncol=6, markerscale=4)
    ax_cn0.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default="simulator",
                        help='"simulator" (default), "recording" or a cf32 file')
    parser.add_argument("--device", default="auto", help='"auto", "cpu", "cuda" or "cuda:N"')
    parser.add_argument("--outdir", default=".")
    parser.add_argument("--data-dir", help="folder holding gnss/*.dat (default: the data folder)")
    parser.add_argument("--samp-rate", type=float, default=4e6, help="samples per second")
    parser.add_argument("--duration", type=float, default=10.0,
                        help="most seconds of stream (default 10)")
    parser.add_argument("--doppler-max", type=float, default=None,
                        help="Doppler window +- Hz (default: 5 kHz; 15 kHz for the recording, "
                             "whose front end is 9 kHz off)")
    parser.add_argument("--doppler-center", type=float, default=0.0,
                        help="centre of the Doppler window, Hz (a front end's known offset)")
    parser.add_argument("--dwells", type=int, default=4,
                        help="non-coherent dwells of 1 ms per search (default 4)")
    parser.add_argument("--lock-timeout-windows", type=int, default=None,
                        help="C/N0 windows a new channel has to lock before it is dropped "
                             "(default 20; 40 for the recording, whose 4 ms wraps slow "
                             "the loops down)")
    args = parser.parse_args()
    if args.doppler_max is None:
        args.doppler_max = 15e3 if args.source == "recording" else 5e3
    if args.lock_timeout_windows is None:
        args.lock_timeout_windows = 40 if args.source == "recording" else 20
    if not (args.duration > 0):
        raise SystemExit("gnss_receiver_headless: --duration: must be > 0, got %g"
                         % args.duration)
    os.makedirs(args.outdir, exist_ok=True)

    source, sim, check = build_source(args)
    records, locks, stream, wall, rx = run(args, source, check)
    np.save(os.path.join(args.outdir, "gnss_receiver_headless.npy"), records)
    report(records, locks, args.samp_rate)
    print("\n%.2f s of stream in %.2f s wall (backend %s, stream mode %s); searches %d, "
          "detections %d, samples dropped by acquisition while searching %d"
          % (stream, wall, rx.acquisition.backend(), rx.acquisition.stream_mode(),
             rx.acquisition.searches_completed(), rx.acquisition.detections_published(),
             rx.acquisition.samples_dropped()))
    ok = True
    if check is not None:
        wanted = [s["prn"] for s in SKY] if sim is not None else list(RECORDING_SATELLITES)
        missing = sorted(set(wanted) - set(locks))
        if locks:
            print("locked: %s; the last after %.3f s of stream"
                  % (", ".join("G%02d" % p for p in sorted(locks)),
                     max(locks.values()) / args.samp_rate))
        if missing:
            print("NOT LOCKED: %s" % ", ".join("G%02d" % p for p in missing))
            ok = False
    if len(records):
        plot(records, sim, args.samp_rate,
             os.path.join(args.outdir, "gnss_receiver_headless.png"),
             "gnss_receiver_frontend, source %s (%s backend): C/N0 and Doppler per "
             "satellite%s" % (os.path.basename(args.source), rx.acquisition.backend(),
                              ", dashed: truth" if sim is not None else ""))
    else:
        print("no records: no satellite was acquired")
        ok = ok and check is None
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
