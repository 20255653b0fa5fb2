#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""qa_soak_python: qa_soak (tests/soak/qa_soak.cc) for the blocks written in Python.

Each block alone in a flowgraph for --seconds, every item counted and checked, its
run-time inputs churned, the process's RSS sampled; one summary line per block in
qa_soak's format; exit status 1 when an item was lost or wrong, nothing was made, the
flowgraph did not stop, or RSS grew beyond the bound. Blocks:

  cfradial_sink           radials of a deterministic scan, sweeps of changing length,
                          every ray read back from its sweep file (then deleted)
  gnss_receiver_frontend  a simulated sky; channels removed at random, which the
                          frontend searches and tracks again; every sample consumed,
                          every record continuing its channel, every detection true

Usage and the bounds: docs/soak.md.
"""

import argparse
import logging
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import pmt
from gnuradio import gr

from gnuradio import cudadsp
from scipy.io import netcdf_file
from gnuradio.cudadsp.gnss.records import STATE_FIELDS
from gnuradio.cudadsp.gnss.simulator_source import make_simulator

LOG = logging.getLogger("qa_soak_python")

# Runs shorter than this are judged by growth after the warm-up in MiB, longer ones by
# the fitted rate in MiB per hour (qa_soak.cc's rule: over seconds, one allocator step
# extrapolates to hundreds of MiB per hour).
RATE_JUDGED_FROM_S = 1800.0


# ---------------------------------------------------------------------------- RSS
def status_mib(*fields):
    """Fields of /proc/self/status given in kB (e.g. "VmRSS:"), in MiB; -1 for those
    unreadable."""
    values = dict.fromkeys(fields, -1.0)
    try:
        with open("/proc/self/status") as f:
            for line in f:
                key = line.split(None, 1)[0] if line.strip() else ""
                if key in values:
                    values[key] = float(line.split()[1]) / 1024.0
    except OSError:
        pass
    return [values[k] for k in fields]


def resident_mib():
    """VmRSS of this process in MiB; -1 when unreadable."""
    return status_mib("VmRSS:")[0]


def growth_mib_per_hour(samples, warmup_s):
    """Least-squares slope of RSS against time after the warm-up, MiB per hour (as
    rss_monitor.h); 0 with fewer than two samples."""
    pts = [(t, r) for t, r in samples if t >= warmup_s]
    if len(pts) < 2:
        return 0.0
    t = np.array([p[0] for p in pts])
    r = np.array([p[1] for p in pts])
    denom = len(t) * np.sum(t * t) - np.sum(t) ** 2
    if denom <= 0:
        return 0.0
    return float((len(t) * np.sum(t * r) - np.sum(t) * np.sum(r)) / denom * 3600.0)


def growth_after_warmup_mib(samples, warmup_s):
    """Largest RSS after the warm-up minus the first sample at or after it, MiB."""
    after = [r for t, r in samples if t >= warmup_s]
    return max(after) - after[0] if after else 0.0


# ---------------------------------------------------------------------------- cfradial_sink
PRODUCTS = ("DBZ", "ZDR", "VEL")
NGATES = 100
SWEEPS_PER_VOLUME = 20
FIRST_TIME_S = 1.7e9
RADIAL_S = 0.01


def sweep_length(sweep):
    """Radials in sweep number ``sweep`` (counted from 0): 120 to 360, changing."""
    return 120 + (sweep * 53) % 241


def radial_fields(first, n):
    """The products of radials first .. first + n - 1: (products, n, gates) float32,
    values exact in float32, with NaN at scattered gates (written as _FillValue)."""
    k = np.arange(first, first + n, dtype=np.int64)[None, :, None]
    g = np.arange(NGATES, dtype=np.int64)[None, None, :]
    p = np.arange(len(PRODUCTS), dtype=np.int64)[:, None, None]
    v = (((k * 131 + g * 17 + p * 7919) % 4093) * 0.25 - 500.0).astype(np.float32)
    v[(k * 7 + g + p) % 613 == 0] = np.nan
    return v


def radial_azimuth(k):
    return (np.asarray(k) * 0.5) % 360.0


def sweep_elevation(sweep):
    return 0.5 + 0.5 * (sweep % 4)


class scan_source(gr.sync_block):
    """Radials of a scan (radial_fields(), sweeps of sweep_length()) for ``seconds``,
    tagged as polarimetric_products_cf tags them; counts what it made."""

    def __init__(self, seconds):
        gr.sync_block.__init__(self, name="soak_scan_source", in_sig=None,
                               out_sig=[(np.float32, NGATES)] * len(PRODUCTS))
        self.seconds = seconds
        self.produced = 0
        self.finished = False
        self._sweep, self._left = 0, sweep_length(0)
        self._t0 = None
        self._keys = {k: pmt.intern(k) for k in
                      ("azimuth_deg", "elevation_deg", "time_s", "sweep_index")}

    def work(self, input_items, output_items):
        if self._t0 is None:
            self._t0 = time.monotonic()
        if time.monotonic() - self._t0 >= self.seconds:
            self.finished = True
            return -1
        n = min(len(output_items[0]), 256)
        first = self.produced
        fields = radial_fields(first, n)
        for p, out in enumerate(output_items):
            out[:n] = fields[p]
        for i in range(n):
            k = first + i
            at = self.nitems_written(0) + i
            for key, value in (("azimuth_deg", float(radial_azimuth(k))),
                               ("elevation_deg", sweep_elevation(self._sweep)),
                               ("time_s", FIRST_TIME_S + k * RADIAL_S)):
                self.add_item_tag(0, at, self._keys[key], pmt.from_double(value))
            self.add_item_tag(0, at, self._keys["sweep_index"],
                              pmt.from_long(self._sweep % SWEEPS_PER_VOLUME))
            self._left -= 1
            if self._left == 0:
                self._sweep += 1
                self._left = sweep_length(self._sweep)
        self.produced += n
        return n


class sweep_checker:
    """Reads each sweep file the sink completed, in order, compares every ray with the
    scan's definition, and deletes the file: the disk holds a sweep or two.

    The files are read with SciPy's netCDF-3 reader, in Python: the netCDF-C library
    that netCDF4 wraps is not thread-safe, and the sink writes through it in its own
    thread meanwhile (reading with netCDF4 here failed with "NetCDF: Variable not
    found" within a second)."""

    def __init__(self, sink, source):
        self._sink = sink
        self._source = source
        self._next_file = 0
        self.sweep = 0
        self.first_radial = 0
        self.rays = 0
        self.bad = 0

    def check_new_files(self):
        # written keeps the latest paths only; this runs far more often than a
        # thousand sweeps are written.
        total, latest = self._sink.sweeps_written, self._sink.written
        first = len(latest) - (total - self._next_file)
        if first < 0:
            raise RuntimeError("%d sweep files left the sink's history before being "
                               "read" % -first)
        for path in latest[first:]:
            self._check(path)
            self._next_file += 1

    def _check(self, path):
        # The last sweep ends where the scan ended.
        n = min(sweep_length(self.sweep), self._source.produced - self.first_radial)
        k = np.arange(self.first_radial, self.first_radial + n)
        try:
            with netcdf_file(path, "r", mmap=False) as nc:
                v = nc.variables
                nrays = v["time"].shape[0]
                ok_file = (nrays == n and
                           int(v["sweep_number"][0]) == self.sweep % SWEEPS_PER_VOLUME)
                m = min(n, nrays)
                good = np.ones(m, dtype=bool)
                good &= v["azimuth"][:m] == radial_azimuth(k[:m]).astype(np.float32)
                good &= v["elevation"][:m] == np.float32(sweep_elevation(self.sweep))
                t = v["time"][:m] - v["time"][0] + (FIRST_TIME_S +
                                                    self.first_radial * RADIAL_S)
                good &= np.abs(t - (FIRST_TIME_S + k[:m] * RADIAL_S)) < 1e-4
                expected = radial_fields(self.first_radial, m)
                for p, name in enumerate(PRODUCTS):
                    fill = np.float32(v[name]._attributes["_FillValue"])
                    want = np.where(np.isnan(expected[p]), fill, expected[p])
                    good &= np.all(v[name][:m] == want, axis=1)
        except Exception as e:  # any unreadable file is a bad sweep, not the end
            LOG.error("sweep %d: %s: %s", self.sweep, path, e)
            ok_file, m, good = False, 0, np.zeros(0, dtype=bool)
        os.remove(path)
        self.rays += m
        self.bad += int(m - np.count_nonzero(good)) + (0 if ok_file else 1)
        self.first_radial += n
        self.sweep += 1


def cfradial_sink_soak(seconds, workdir):
    source = scan_source(seconds)
    sink = cudadsp.cfradial_sink(
        path_pattern=os.path.join(workdir, "cfrad.{start:%Y%m%d_%H%M%S}_sweep{sweep:03d}.nc"),
        ngates=NGATES, products=PRODUCTS)
    tb = gr.top_block("soak_cfradial_sink")
    for p in range(len(PRODUCTS)):
        tb.connect((source, p), (sink, p))
    checker = sweep_checker(sink, source)
    return {
        "tb": tb,
        "source": source,
        "churn": lambda rng: checker.check_new_files(),
        "finish": checker.check_new_files,
        "items_out": lambda: checker.rays,
        # Rays the scan made that no sweep file holds (the last sweep is complete once
        # the flowgraph has stopped).
        "lost": lambda: source.produced - checker.rays,
        "bad": lambda: checker.bad,
        "messages": lambda: 0,
        "details": lambda: "sweep files read %d" % checker.sweep,
    }


# ---------------------------------------------------------------------------- GNSS
GNSS_RATE = 4e6
SKY = [{"prn": 2 + 5 * i, "code_phase_chips": 100.0 + 211.7 * i,
        "doppler_hz": -3000.0 + 1900.0 * i, "cn0_dbhz": 44.0 + 2.0 * i} for i in range(4)]
ABSENT_PRN = 30
SATELLITES_PER_SEARCH = 2
FALSE_ALARM = 1e-3
# The rate at which ABSENT_PRN is found in this sky, per search. FALSE_ALARM holds on
# noise alone; the four satellites present add Gold-code cross-correlation, the same
# in every dwell (the code repeats each millisecond), so some cells of the absent
# satellite's grid carry a steady offset and cross the threshold far more often than
# the noise-only law the threshold assumes. Measured with this sky and configuration
# (docs/soak.md): 56 false detections in 20,000 searches (2.8e-3; 7.7e-4 on noise
# alone), predicted 3.65e-3 from the cells' non-central law; this is the measured
# rate's 99.9 % upper confidence limit. Such channels never lock and return to the
# search.
SKY_FALSE_ALARM = 4.2e-3


class sky_source(gr.sync_block):
    """The simulated sky (SKY in noise) for ``seconds``; counts the samples it made."""

    def __init__(self, seconds):
        gr.sync_block.__init__(self, name="soak_sky_source", in_sig=None,
                               out_sig=[np.complex64])
        self.sim = make_simulator(GNSS_RATE, SKY, seed=16)
        self.seconds = seconds
        self.produced = 0
        self.finished = False
        self._t0 = None

    def work(self, input_items, output_items):
        if self._t0 is None:
            self._t0 = time.monotonic()
        if time.monotonic() - self._t0 >= self.seconds:
            self.finished = True
            return -1
        n = min(len(output_items[0]), 1 << 16)
        output_items[0][:n] = self.sim.generate(n)
        self.produced += n
        return n


FIELD = {name: i for i, name in enumerate(STATE_FIELDS)}


class record_checker(gr.sync_block):
    """Counts the correlator's records; bad: a record that does not continue its
    channel (epoch e + 1 starts where epoch e ended, or a channel starts again at epoch
    0), an empty one, or non-finite taps. Keeps one entry per live channel."""

    def __init__(self, taps):
        gr.sync_block.__init__(self, name="soak_record_checker",
                               in_sig=[(np.complex64, taps), (np.float64, len(STATE_FIELDS))],
                               out_sig=None)
        self.items = 0
        self.bad = 0
        self._last = {}  # channel id -> (epoch, end sample, record index)

    def work(self, input_items, output_items):
        taps, state = input_items
        n = len(state)
        finite = np.all(np.isfinite(taps.view(np.float32)), axis=1)
        for i in range(n):
            s = state[i]
            cid, epoch = int(s[FIELD["channel_id"]]), int(s[FIELD["epoch"]])
            start, count = int(s[FIELD["start_sample"]]), int(s[FIELD["sample_count"]])
            ok = count > 0 and finite[i]
            if epoch != 0:
                last = self._last.get(cid)
                ok = ok and last is not None and last[0] + 1 == epoch and last[1] == start
            self.bad += 0 if ok else 1
            self._last[cid] = (epoch, start + count, self.items + i)
        self.items += n
        # Channels silent for a million records are long removed: forget them, so that
        # the check's own memory stays bounded.
        stale = [c for c, v in self._last.items() if self.items - v[2] > 1000000]
        for c in stale:
            del self._last[c]
        return n


class message_checker(gr.basic_block):
    """Counts the messages on its port "in"; with ``truth``, also those it rejects."""

    def __init__(self, truth=None):
        gr.basic_block.__init__(self, name="soak_message_checker", in_sig=None,
                                out_sig=None)
        self.count = 0
        self.wrong = 0
        self._truth = truth
        self.message_port_register_in(pmt.intern("in"))
        self.set_msg_handler(pmt.intern("in"), self._handle)

    def _handle(self, msg):
        self.count += 1
        if self._truth is not None and not self._truth(msg):
            self.wrong += 1


def poisson_quantile(mean, p):
    """The least k with P(X <= k) >= p for X ~ Poisson(mean); beyond a mean of 500
    (where exp(-mean) underflows) the normal approximation at 3.1 sigma (p = 0.999)."""
    if mean > 500:
        return math.ceil(mean + 3.1 * math.sqrt(mean))
    k, term = 0, math.exp(-mean)
    total = term
    while total < p:
        k += 1
        term *= mean / k
        total += term
    return k


def detection_is_true(sim):
    """A detection is its satellite's truth at its start sample: code phase within a
    chip, Doppler within 250 Hz (half a bin)."""
    def truth(msg):
        d = pmt.to_python(msg)
        for sat, s in enumerate(SKY):
            if d.get("prn") == s["prn"]:
                at = float(d["start_sample"])
                dphase = math.remainder(d["code_phase_chips"] - sim.code_phase_chips(sat, at),
                                        1023.0)
                return abs(dphase) <= 1.0 and abs(d["doppler_hz"] - sim.doppler_hz(sat, at)) <= 250.0
        return False
    return truth


def gnss_receiver_frontend_soak(seconds, workdir):
    source = sky_source(seconds)
    truth_sim = make_simulator(GNSS_RATE, SKY, seed=16)
    rx = cudadsp.gnss_receiver_frontend(
        sample_rate_hz=GNSS_RATE, satellites=[s["prn"] for s in SKY] + [ABSENT_PRN],
        doppler_max_hz=5000.0, doppler_step_hz=500.0, noncoherent_dwells=4,
        false_alarm=FALSE_ALARM, max_channels=8,
        satellites_per_search=SATELLITES_PER_SEARCH, device="cpu")
    records = record_checker(rx.taps())
    detections = message_checker(detection_is_true(truth_sim))
    events = message_checker()
    tb = gr.top_block("soak_gnss_receiver_frontend")
    tb.connect(source, rx)
    tb.connect((rx, 0), (records, 0))
    tb.connect((rx, 1), (records, 1))
    tb.msg_connect((rx, "detections"), (detections, "in"))
    tb.msg_connect((rx, "events"), (events, "in"))

    removed = [0]

    def churn(rng):
        # A channel removed now and then: its satellite goes back to the search, is
        # found again and handed to the correlator as a new channel.
        ids = rx.correlator.channel_ids()
        if ids and rng.random() < 0.05:
            rx.correlator._post(pmt.intern("remove"), pmt.from_long(rng.choice(ids)))
            removed[0] += 1

    def allowed_wrong():
        # A search may find the absent satellite at SKY_FALSE_ALARM (each search holds
        # at most one grid of it: generous, since it is not searched while a false
        # detection is being tracked); a present satellite's own peak stands far above
        # any wrong cell of its grid. The count is Poisson, and only a count beyond its
        # 99.9 % quantile is an excess.
        return poisson_quantile(SKY_FALSE_ALARM * rx.acquisition.searches_completed(),
                                0.999)

    def bad():
        # Only wrong detections beyond the false-alarm rate count.
        wrong = detections.wrong if detections.wrong > allowed_wrong() else 0
        return records.bad + wrong

    def details():
        return ("records off their channel %d; detections %d, off their satellite's "
                "truth %d (allowed %d for %d searches); events %d; channels removed by "
                "the soak %d" % (records.bad, detections.count, detections.wrong,
                                 allowed_wrong(), rx.acquisition.searches_completed(),
                                 events.count, removed[0]))

    return {
        "tb": tb,
        "source": source,
        "churn": churn,
        "finish": lambda: None,
        "items_out": lambda: records.items,
        # Samples made that the acquisition or the correlator did not take.
        "lost": lambda: max(source.produced - rx.acquisition.nitems_read(0),
                            source.produced - rx.correlator.samples_processed(),
                            key=abs),
        "bad": bad,
        "messages": lambda: detections.count + events.count,
        "details": details,
    }


# ---------------------------------------------------------------------------- runner
SOAKS = {"cfradial_sink": cfradial_sink_soak,
         "gnss_receiver_frontend": gnss_receiver_frontend_soak}


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--block", default="all", choices=sorted(SOAKS) + ["all"])
    p.add_argument("--seconds", type=float, default=15.0)
    p.add_argument("--parallel", action="store_true",
                   help="with --block all: the blocks at once, each in its own process")
    p.add_argument("--rss-period", type=float, default=0.0,
                   help="seconds between RSS samples (default: a 300th of the run, "
                        "0.5 to 10 s)")
    p.add_argument("--warmup", type=float, default=-1.0,
                   help="seconds before growth is measured (default: a fifth of the "
                        "run, at least 5 s)")
    p.add_argument("--max-growth-mib-h", type=float, default=1.0)
    p.add_argument("--max-growth-mib", type=float, default=8.0)
    p.add_argument("--churn-period", type=float, default=0.05)
    p.add_argument("--trace", metavar="DIR", default="",
                   help="DIR/<block>.tsv: seconds, RSS and its anonymous, file-backed "
                        "and shared parts (MiB) per sample")
    o = p.parse_args(argv)
    for name in ("seconds", "rss_period", "max_growth_mib_h", "max_growth_mib",
                 "churn_period"):
        v = getattr(o, name)
        if not (math.isfinite(v) and v >= 0):
            p.error("--%s: must be a finite number >= 0, got %r" % (name.replace("_", "-"), v))
    if o.seconds <= 0:
        p.error("--seconds: must be > 0")
    if o.churn_period <= 0:
        p.error("--churn-period: must be > 0")
    if o.rss_period <= 0:
        o.rss_period = min(10.0, max(0.5, o.seconds / 300.0))
    if o.warmup < 0:
        o.warmup = max(5.0, o.seconds / 5.0)
    if o.warmup >= o.seconds:
        p.error("--warmup: must be shorter than --seconds")
    return o


def soak_one(block, o):
    """One block's soak in this process; prints its summary line, returns the status."""
    rng = random.Random(0x50a6)
    workdir = tempfile.mkdtemp(prefix="qa_soak_%s." % block)
    trace = open(os.path.join(o.trace, block + ".tsv"), "w") if o.trace else None
    if trace:
        trace.write("t_s\trss_mib\trss_anon_mib\trss_file_mib\trss_shmem_mib\n")
    try:
        f = SOAKS[block](o.seconds, workdir)
        rss = []
        t0 = time.monotonic()
        f["tb"].start()
        done = threading.Event()
        threading.Thread(target=lambda: (f["tb"].wait(), done.set()), daemon=True).start()
        deadline = o.seconds + 60.0 + 0.1 * o.seconds
        next_rss = 0.0
        while not done.wait(o.churn_period):
            t = time.monotonic() - t0
            if t >= deadline:
                print("soak: block=%s device=cpu result=FAIL (flowgraph still running "
                      "%.0f s after its source ended)" % (block, t - o.seconds), flush=True)
                os._exit(1)  # unwinding through a running scheduler would only hang
            if not f["source"].finished:
                f["churn"](rng)
            if t >= next_rss:
                rss.append((t, resident_mib()))
                next_rss += o.rss_period
                if trace:
                    parts = status_mib("RssAnon:", "RssFile:", "RssShmem:")
                    trace.write("%.2f\t%.3f\t%.3f\t%.3f\t%.3f\n" % (rss[-1] + tuple(parts)))
                    trace.flush()
        ran = time.monotonic() - t0
        f["finish"]()
        rss.append((ran, resident_mib()))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        if trace:
            trace.close()
    lost, bad = f["lost"](), f["bad"]()
    LOG.info("%s: %s", block, f["details"]())
    growth = growth_after_warmup_mib(rss, o.warmup)
    rate = growth_mib_per_hour(rss, o.warmup)
    by_rate = o.seconds >= RATE_JUDGED_FROM_S
    rss_ok = rate <= o.max_growth_mib_h if by_rate else growth <= o.max_growth_mib
    ok = lost == 0 and bad == 0 and f["source"].produced > 0 and rss_ok
    print("soak: block=%s device=cpu seconds=%.1f items_in=%d items_out=%d lost=%d bad=%d "
          "messages=%d rss_start_mib=%.1f rss_end_mib=%.1f growth_after_warmup_mib=%.2f "
          "growth_mib_h=%.2f (judged by %s <= %g) result=%s"
          % (block, ran, f["source"].produced, f["items_out"](), lost, bad,
             f["messages"](), rss[0][1], rss[-1][1], growth, rate,
             "growth_mib_h" if by_rate else "growth_after_warmup_mib",
             o.max_growth_mib_h if by_rate else o.max_growth_mib,
             "PASS" if ok else "FAIL"), flush=True)
    return 0 if ok else 1


def soak_all(argv, o):
    """Each block in a process of its own (its RSS its own), all at once or in turn."""
    args = [a for a in argv if a != "--parallel"]
    failed = 0
    children = []
    for block in sorted(SOAKS):
        cmd = [sys.executable, os.path.abspath(__file__)] + args + ["--block", block]
        child = subprocess.Popen(cmd)
        if o.parallel:
            children.append(child)
        else:
            failed += child.wait() != 0
    failed += sum(c.wait() != 0 for c in children)
    print("soak: %d blocks, %d failed, 0 skipped" % (len(SOAKS), failed), flush=True)
    return 1 if failed else 0


def main(argv):
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    o = parse(argv)
    if o.block == "all":
        return soak_all(argv, o)
    return soak_one(o.block, o)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
