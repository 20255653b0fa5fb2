#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
Plots what examples/gnss_tracking.grc wrote: the records of its tracking channels
(gnss_tracking.npy) against the truth of the simulated satellites
(gnss_tracking_truth.json): Doppler and code-phase errors, C/N0 estimate against the
simulated C/N0, and the prompt (I and Q) of each channel. Writes gnss_tracking.png and
exits 1 if a channel has not locked by the end (code within 0.1 chip, Doppler within
15 Hz, code and carrier lock flags).
"""

import argparse
import os
import sys

import numpy as np

from gnuradio import cudadsp

# Which simulated satellite each channel of the flowgraph follows (its "sky" order).
CHANNEL_SATELLITE = {1: 0, 2: 1, 3: 2, 4: 3}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--outdir", default=".")
    args = parser.parse_args()
    records = np.load(os.path.join(args.outdir, "gnss_tracking.npy"))
    sim, settings = cudadsp.gnss_simulator_source.simulator_from_file(
        os.path.join(args.outdir, "gnss_tracking_truth.json"))
    fs = settings["sample_rate_hz"]

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(4, 1, figsize=(10, 11), sharex=True)
    ok = True
    for cid, sat in CHANNEL_SATELLITE.items():
        r = records[records["channel_id"] == cid]
        if len(r) == 0:
            print("channel %d: no records" % cid)
            ok = False
            continue
        desc = settings["satellites"][sat]
        galileo = desc.get("system", "gps_l1ca") == "galileo_e1"
        chips = 4092 if galileo else 1023
        label = "%s %d (%.0f dB-Hz)" % ("E" if galileo else "G", desc["prn"], desc["cn0_dbhz"])
        # Loop-state fields hold at the next epoch's first sample.
        at = r["start_sample"].astype(np.float64) + r["sample_count"]
        t = at / fs
        doppler_err = r["doppler_hz"] - sim.doppler_hz(sat, at)
        code_err = (r["code_phase_chips"] - sim.code_phase_chips(sat, at) + chips / 2) % chips - chips / 2
        axes[0].plot(t, doppler_err, label=label)
        axes[1].plot(t, code_err, label=label)
        axes[2].plot(t, r["cn0_dbhz"], label=label)
        prompt = r["taps"][:, 1] / np.maximum(np.median(np.abs(r["taps"][-50:, 1])), 1e-12)
        axes[3].plot(t, prompt.real, ".", ms=1.5, label=label + " I")

        tail = r[-max(5, len(r) // 10):]
        tail_at = tail["start_sample"].astype(np.float64) + tail["sample_count"]
        derr = np.max(np.abs(tail["doppler_hz"] - sim.doppler_hz(sat, tail_at)))
        cerr = np.max(np.abs((tail["code_phase_chips"] - sim.code_phase_chips(sat, tail_at)
                              + chips / 2) % chips - chips / 2))
        locked = np.all((tail["flags"] & 12) == 12)
        print("channel %d %-20s epochs %4d  last 10%%: |Doppler error| <= %5.2f Hz, "
              "|code error| <= %.4f chips, C/N0 %.1f dB-Hz, %s"
              % (cid, label, len(r), derr, cerr, np.median(tail["cn0_dbhz"]),
                 "locked" if locked else "NOT LOCKED"))
        ok = ok and locked and derr < 15.0 and cerr < 0.1
    axes[0].set_ylabel("Doppler error (Hz)")
    axes[0].set_ylim(-100, 100)
    axes[1].set_ylabel("code phase error (chips)")
    axes[1].set_ylim(-0.4, 0.4)
    axes[2].set_ylabel("C/N0 estimate (dB-Hz)")
    axes[3].set_ylabel("prompt I (normalised)")
    axes[3].set_xlabel("time (s)")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8, ncol=4)
    axes[0].set_title("multichannel_correlator_cc tracking simulated satellites "
                      "(channels started 0.25 chip and 75 Hz off; Galileo 0.1 chip, 20 Hz)",
                      fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(args.outdir, "gnss_tracking.png"), dpi=110)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
