#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""receive: a GPS L1 C/A and Galileo E1 receiver over a recording, from samples to
position fixes and the files a GNSS user reads (RINEX 3.04 observation and navigation,
NMEA 0183, GeoJSON): acquisition (acquire), the multichannel correlator's channels (CPU
or CUDA) and the host pipeline of core::gps_receiver (docs/design/gps_receiver.md). The
command-line tool cudadsp_gnss is this function (docs/apps/cudadsp_gnss.md)."""

import dataclasses
import datetime
import math
import os

import numpy

from .._engines import (gnss_lock_monitor, gnss_record_flag_code_lock, gps_receiver,
                        gps_resolve_week, gps_week_of_gst_week, multichannel_correlator)
from .acquisition import acquire
from .receiver_outputs import write_outputs
from .receiver_signals import (DEFAULT_SIGNALS, SIGNALS, satellite_id, satellites_of,
                               signals_of)

# Sample formats by their names here and GNSS-SDR's (its file_signal_source's
# item_type): the dtype of one value and the values per complex sample.
SAMPLE_FORMATS = {"cf32": (numpy.complex64, 1), "ci16": (numpy.int16, 2),
                  "ci8": (numpy.int8, 2)}
FORMAT_ALIASES = {"gr_complex": "cf32", "ishort": "ci16", "byte": "ci8"}

# The channels' DLL: 0.25 Hz, carrier-aided (qa_gps_receiver's measured bounds).
DLL_BANDWIDTH_HZ = 0.25
# FLL assist until carrier lock: the acquisition's Doppler can be 80 Hz off (500 Hz
# bins, refined), beyond what the 15 Hz PLL pulls in quickly; without it such a channel
# took seconds to lock and missed the subframes 1 to 3 of the first frame (9 of 12
# satellites in the first fixes of cudadsp_bench receiver). With 10 Hz every channel
# of that signal is in carrier lock within 0.3 s.
FLL_BANDWIDTH_HZ = 10.0
# A search takes 10 code periods (noncoherent dwells) of its signal: 40 ms of Galileo
# E1. It reads at least this much from where it starts, a chunk or more.
SEARCH_S = 0.05

GPS_EPOCH = datetime.datetime(1980, 1, 6, tzinfo=datetime.timezone.utc)
WEEK_S = 604800
# GPS - UTC since 2017-01-01, used until a subframe 4 page 18 or a Galileo word 6 says
# otherwise.
LEAP_SECONDS_SINCE_2017 = 18


@dataclasses.dataclass
class reception:
    """What receive() made of a recording. Satellites are named by their RINEX ids
    ("G05" GPS PRN 5, "E11" Galileo PRN 11) throughout.

    fixes: one dict per observation epoch (valid or not, the reason when not):
        signal_time_s (sample / rate), sample_index, receiver_time_s, gps_week,
        gps_time_of_week_s, utc (ISO 8601), valid, reason, ecef_m, latitude_deg,
        longitude_deg, height_m (above the WGS-84 ellipsoid), clock_bias_s (the
        receiver clock of the fix's time: GPS's, or Galileo's when only Galileo
        satellites are used, whose time is then GST), inter_system_bias_s (Galileo -
        GPS receiver clock, which holds -GGTO; NaN unless both are used), clock_drift,
        velocity_valid, velocity_m_s (ECEF), dops (gdop, pdop, hdop, vdop, tdop),
        satellites_used (ids), satellites_not_used ((id, reason)),
        ionosphere_applied.
    detections: the acquisitions' detected satellites (satellite, doppler_hz,
        code_phase_chips, cn0_dbhz, start_sample), in the order found.
    events: the channels' changes after the first search, in signal order, each a
        dict: event ("lost": the channel dropped; "reacquired": a satellite once in
        code lock found again; "acquired": one found for the first time), satellite,
        channel, sample, signal_time_s and, for "lost", reason ("lock_lost": code lock
        off for lock_loss_s after being on; "never_locked": not on within lock_loss_s
        of the channel's start).
    channels: per tracked satellite where its navigation stands (satellite, system,
        stage, counters).
    waiting_for: with no epoch, what each channel still waited for; else "".
    """
    fixes: list
    detections: list
    events: list
    channels: list
    waiting_for: str
    backend: str
    gps_week: int
    leap_seconds: int
    outputs: list

    @property
    def valid_fixes(self):
        return [f for f in self.fixes if f["valid"]]


def sample_format(name):
    """The format's own name for one of SAMPLE_FORMATS or GNSS-SDR's aliases."""
    name = FORMAT_ALIASES.get(name, name)
    if name not in SAMPLE_FORMATS:
        raise ValueError(f"input_format: {name!r} is not one of "
                         f"{', '.join(list(SAMPLE_FORMATS) + list(FORMAT_ALIASES))}")
    return name


def _input(samples, input_format):
    """(values, format): a recording's values as the correlator takes them, a path
    mapped from the disk (never read whole)."""
    if isinstance(samples, (str, os.PathLike)):
        fmt = sample_format(input_format or "cf32")
        dtype, per_sample = SAMPLE_FORMATS[fmt]
        size = os.path.getsize(samples)
        if size == 0:
            raise ValueError(f"samples: {os.fspath(samples)} is empty")
        if size % (numpy.dtype(dtype).itemsize * per_sample):
            raise ValueError(f"samples: {os.fspath(samples)}: its size is not a whole "
                             f"number of {fmt} samples")
        return numpy.memmap(samples, dtype=dtype, mode="r"), fmt
    values = numpy.asarray(samples)
    if input_format is None:
        input_format = {"c": "cf32", "i": {2: "ci16", 1: "ci8"}.get(values.dtype.itemsize)
                        }.get(values.dtype.kind)
        if input_format is None:
            raise TypeError(f"samples: dtype {values.dtype} is neither complex nor "
                            "interleaved int16 / int8 I/Q")
    fmt = sample_format(input_format)
    dtype, _ = SAMPLE_FORMATS[fmt]
    return numpy.ascontiguousarray(values, dtype=dtype).reshape(-1), fmt


def _complex(values, fmt):
    if fmt == "cf32":
        return values
    return (values[0::2].astype(numpy.float32)
            + 1j * values[1::2].astype(numpy.float32)).astype(numpy.complex64)


def current_gps_week():
    """The GPS week of the machine's clock: resolves the navigation message's 10-bit
    week (its era) where the caller does not know it."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return int((now - GPS_EPOCH).total_seconds() + LEAP_SECONDS_SINCE_2017) // WEEK_S


def _fix_record(epoch, sample_rate_hz, week, leap_seconds):
    fix = epoch.fix
    receiver_time_s = epoch.receiver_time_ms / 1e3
    tow = fix["gps_time_of_week_s"] if fix["valid"] else receiver_time_s
    utc = GPS_EPOCH + datetime.timedelta(weeks=week, seconds=tow - leap_seconds)
    fix.update(signal_time_s=epoch.sample_index / sample_rate_hz,
               sample_index=epoch.sample_index, receiver_time_s=receiver_time_s,
               gps_week=week + int(tow // WEEK_S), utc=utc.isoformat(timespec="milliseconds"))
    if not fix["valid"]:
        fix["gps_time_of_week_s"] = float("nan")
    return fix


class _run:
    """One recording through acquisition, correlator and receiver, chunk by chunk."""

    def __init__(self, values, fmt, sample_rate_hz, settings, signals, satellites,
                 lock_loss_s):
        self.values, self.fmt, self.fs = values, fmt, float(sample_rate_hz)
        self.per_sample = SAMPLE_FORMATS[fmt][1]
        self.settings = settings
        self.signals = signals
        self.systems = [SIGNALS[s].system for s in signals]
        # One channel per satellite searched: a search looks for those without one.
        self.correlator = multichannel_correlator(
            self.fs, input_format=fmt,
            tap_offsets_chips=list(SIGNALS[signals[0]].tap_offsets_chips),
            max_channels=max(1, sum(len(p) for p in satellites.values())),
            intermediate_frequency_hz=settings["intermediate_frequency_hz"],
            device=settings["device"])
        self.receiver = gps_receiver(
            self.fs, interval_ms=settings["interval_ms"],
            elevation_mask_deg=settings["elevation_mask_deg"],
            troposphere=settings["troposphere"], klobuchar=settings["klobuchar"],
            prompt_tap=SIGNALS[signals[0]].tap_offsets_chips.index(0.0))
        # The block's rule (multichannel_correlator_cc's "lost" events), loss and
        # start-up timeout both lock_loss_s in whole C/N0 windows of each signal's
        # records; 0 turns it off.
        self.monitors = {}
        for name in signals:
            windows = SIGNALS[name].lock_windows(lock_loss_s)
            self.monitors[name] = gnss_lock_monitor(windows, windows)
        self.epochs, self.detections, self.events = [], [], []
        # Channel id to (signal, PRN). Ids are never reused: a satellite found again
        # gets a fresh channel, its navigation decoded anew (the receiver keeps its
        # ephemeris).
        self.channel_of, self.next_id = {}, 1
        # Satellites once in code lock: found again, "reacquired" (else "acquired").
        self.ever_tracked, self.searches = set(), 0
        # (signal, PRN) whose channel was dropped in the last chunk: searched on the next.
        self.lost = set()
        # Satellite: (issue, reference time) of its latest ephemeris and the receiver
        # time (s) of the first epoch of a later call (None until one comes): at most a
        # chunk and an epoch interval after the ephemeris arrived. pending: those
        # waiting for it.
        self.ephemeris_seen, self.pending = {}, set()
        self.tracked_now = set()
        self.new_events = []

    def satellite(self, channel):
        name, prn = self.channel_of[channel]
        return SIGNALS[name].satellite(prn)

    def untracked(self, wanted):
        """{signal: PRNs} of wanted ({signal: PRNs}) without a channel."""
        tracked = set(self.channel_of.values())
        return {name: [p for p in prns if (name, p) not in tracked]
                for name, prns in wanted.items()}

    def search(self, wanted, first_sample, samples):
        """Searches wanted ({signal: PRNs}, none with a channel) in samples, a channel
        for each found."""
        self.searches += 1
        for name, prns in wanted.items():
            if not prns:
                continue
            found = acquire(_complex(samples, self.fmt), self.fs, satellites=prns,
                            first_sample=first_sample, device=self.settings["device"],
                            intermediate_frequency_hz=self.settings[
                                "intermediate_frequency_hz"],
                            **dict(SIGNALS[name].acquisition))
            for d in found:
                if d["detected"]:
                    self._start_channel(name, d)

    def _start_channel(self, name, detection):
        signal = SIGNALS[name]
        prn, channel = int(detection["satellite"]), self.next_id
        self.next_id += 1
        self.correlator.add_channel(
            id=channel, prn=prn, system=signal.channel_system,
            doppler_hz=float(detection["doppler_hz"]),
            code_phase_chips=float(detection["code_phase_chips"]),
            start_sample=int(detection["start_sample"]),
            tap_offsets_chips=list(signal.tap_offsets_chips),
            dll_bandwidth_hz=DLL_BANDWIDTH_HZ, fll_bandwidth_hz=FLL_BANDWIDTH_HZ)
        self.monitors[name].watch(self.correlator, channel)
        self.receiver.assign_channel(channel, prn, signal.system)
        self.channel_of[channel] = (name, prn)
        satellite = signal.satellite(prn)
        self.detections.append(dict(
            satellite=satellite, **{k: detection[k] for k in (
                "doppler_hz", "code_phase_chips", "cn0_dbhz", "start_sample")}))
        if self.searches > 1:
            self._event("reacquired" if satellite in self.ever_tracked else "acquired",
                        satellite, channel, int(detection["start_sample"]))

    def _event(self, kind, satellite, channel, sample, **more):
        event = dict(event=kind, satellite=satellite, channel=channel, sample=sample,
                     signal_time_s=sample / self.fs, **more)
        self.events.append(event)
        self.new_events.append(event)

    def feed(self, chunk):
        records, _, _, correlations = self.correlator.process(chunk)
        locked = (records["flags"] & gnss_record_flag_code_lock) != 0
        self.tracked_now = set(self.satellite(int(c))
                               for c in numpy.unique(records["channel_id"][locked]))
        self.ever_tracked |= self.tracked_now
        lost = [verdict for monitor in self.monitors.values()
                for verdict in monitor.observe(records)]
        epochs = self.receiver.process(records, correlations,
                                       self.correlator.samples_processed())
        for epoch in epochs:
            for satellite in self.pending:
                self.ephemeris_seen[satellite] = (self.ephemeris_seen[satellite][0],
                                                  epoch.receiver_time_ms / 1e3)
            self.pending.clear()
            self.epochs.append(epoch)
        self._note_ephemerides()
        for channel, reason, sample in sorted(lost, key=lambda verdict: verdict[2]):
            satellite = self.satellite(channel)
            name, prn = self.channel_of.pop(channel)
            self.correlator.remove_channel(channel)
            self.receiver.release_channel(channel)
            self.monitors[name].forget(channel)
            self.tracked_now.discard(satellite)
            self.lost.add((name, prn))
            self._event("lost", satellite, channel, int(sample), reason=reason)

    def _note_ephemerides(self):
        """Marks the ephemerides new since the last call, to date their first use."""
        latest = [(satellite_id("gps", prn), (e.iode, e.toe))
                  for prn, e in self.receiver.ephemerides().items()]
        latest += [(satellite_id("galileo", prn), (e.iodnav, e.t0e))
                   for prn, e in self.receiver.galileo_ephemerides().items()]
        for satellite, key in latest:
            if self.ephemeris_seen.get(satellite, (None,))[0] != key:
                self.ephemeris_seen[satellite] = (key, None)
                self.pending.add(satellite)

    def lost_satellites(self):
        """{signal: PRNs} of the satellites dropped in the last chunk."""
        return {name: sorted(p for n, p in self.lost if n == name)
                for name in self.signals}

    def channels(self):
        return [self.receiver.channel(i) for i in self.correlator.channel_ids()]

    def week(self, reference_week):
        """The continuous GPS week of the run: a GPS ephemeris's 10-bit week, else a
        Galileo word 5's GST week, resolved near reference_week."""
        ephemerides = self.receiver.ephemerides()
        if ephemerides:
            return gps_resolve_week(next(iter(ephemerides.values())).week, 1024,
                                    reference_week)
        words_5 = self.receiver.galileo_iono_health()
        if words_5:
            return gps_week_of_gst_week(next(iter(words_5.values())).wn, reference_week)
        return reference_week


def receive(samples, sample_rate_hz, input_format=None, intermediate_frequency_hz=0.0,
            device="auto", signals=DEFAULT_SIGNALS, satellites=None, klobuchar=None,
            troposphere="saastamoinen", elevation_mask_deg=10.0, interval_ms=1000,
            reacquire_interval_s=10.0, lock_loss_s=1.0, reference_week=None,
            leap_seconds=None, output_folder=None, progress=None, chunk_s=0.1):
    """Position fixes of a GPS L1 C/A and / or Galileo E1 recording, and optionally its
    RINEX, NMEA and GeoJSON files.

    Args:
        samples: the recording: an array (complex, or int16 / int8 interleaved I/Q) or
            a path of raw samples in input_format, read as it is processed.
        sample_rate_hz: its rate.
        input_format: "cf32" (complex64), "ci16" or "ci8" (interleaved I/Q), or
            GNSS-SDR's item types "gr_complex", "ishort", "byte"; default cf32 for a
            path, the dtype's for an array.
        intermediate_frequency_hz: the L1 / E1 carrier's frequency in the samples.
        device: "auto", "cpu", "cuda" or "cuda:N", for acquisition and correlator.
        signals: the signals received, "gps_l1ca", "galileo_e1" or both: Galileo E1
            satellites are searched on E1 B and C (4-ms coherent, 125 Hz bins) and
            tracked on the E1-B code, whose symbols carry I/NAV; with both, one
            receiver clock per system is solved (the fixes' inter_system_bias_s).
        satellites: those searched, by id ("G05", "E11"), or PRNs when one signal is
            received; default GPS 1..32 and Galileo 1..36.
        klobuchar: the 8 broadcast ionosphere coefficients (alpha0..3, beta0..3) known
            before subframe 4 page 18 arrives (every 12.5 min; a navigation file or an
            earlier run); until then fixes are made without the ionosphere. The GPS
            model serves Galileo E1 too (the same frequency); a Galileo-only receiver
            has the ionosphere only from here (NeQuick-G is not run).
        troposphere: "saastamoinen" or "none".
        elevation_mask_deg: satellites lower are not used.
        interval_ms: between observation epochs (1000: 1 Hz).
        reacquire_interval_s: the satellites without a channel (not found yet, or
            lost) are searched again this often (signal time) on the samples about to
            be tracked, with the first search's settings; 0: only at the start.
        lock_loss_s: a channel whose code lock has been off this long after being on,
            or has not come on this long after its start, is dropped (event "lost")
            and its satellite searched again on the next chunk, then with the others
            every reacquire_interval_s; found, it gets a new channel (its navigation
            decoded anew, its ephemeris kept). In whole C/N0 windows of the signal's
            records (50 ms GPS, 200 ms Galileo). 0: channels are never dropped.
        reference_week: a GPS week near the recording's, which resolves the GPS
            message's 10-bit week (or Galileo's 12-bit one); default the machine
            clock's.
        leap_seconds: GPS - UTC; default the broadcast value once GPS page 18 or
            Galileo word 6 is decoded, 18 (since 2017) before.
        output_folder: where to write the RINEX 3.04 observation and navigation files
            (long names; GPS, Galileo or mixed by signals), fixes.nmea, track.geojson
            and receiver.json (the report, last), all together or nothing
            (cudadsp.common.output_set); nothing is written when no fix was made.
        progress: called after each chunk with a dict: signal_time_s,
            satellites_tracked (ids in code lock), satellites_timed (ids whose
            transmit time is known), fixes, last_fix (dict or None), events (those of
            this chunk, as reception.events).
        chunk_s: signal per correlator call.

    Returns:
        A reception: fixes (one dict per epoch), detections, events (channels lost
        and satellites found again), channels (those tracking at the end),
        waiting_for, backend, gps_week, leap_seconds, outputs (the paths written).

    Raises:
        ValueError naming the argument; TypeError for samples of another type;
        OSError for an input or output that cannot be read or written.
    """
    values, fmt = _input(samples, input_format)
    fs = float(sample_rate_hz)
    if not fs > 0:
        raise ValueError(f"sample_rate_hz: must be > 0, got {sample_rate_hz!r}")
    if reacquire_interval_s < 0:
        raise ValueError(f"reacquire_interval_s: must be >= 0, got {reacquire_interval_s!r}")
    if not (math.isfinite(lock_loss_s) and lock_loss_s >= 0):
        raise ValueError(f"lock_loss_s: must be finite and >= 0, got {lock_loss_s!r}")
    signals = signals_of(signals)
    wanted = satellites_of(satellites, signals)
    settings = dict(intermediate_frequency_hz=float(intermediate_frequency_hz),
                    device=device, interval_ms=int(interval_ms),
                    elevation_mask_deg=float(elevation_mask_deg), troposphere=troposphere,
                    klobuchar=None if klobuchar is None else [float(k) for k in klobuchar])
    run = _run(values, fmt, fs, settings, signals, wanted, float(lock_loss_s))
    _process(run, values, fs, wanted, reacquire_interval_s, progress, chunk_s)

    reference_week = current_gps_week() if reference_week is None else reference_week
    week = run.week(reference_week)
    channels = run.channels()
    broadcast = any(c.get("iono_utc_pages", 0) for c in channels)
    iono_utc = run.receiver.iono_utc()
    gst_utc = run.receiver.galileo_gst_utc()
    if leap_seconds is None:
        leap_seconds = (iono_utc.dt_ls if broadcast else
                        gst_utc.dt_ls if gst_utc is not None else LEAP_SECONDS_SINCE_2017)
    fixes = [_fix_record(e, fs, week, leap_seconds) for e in run.epochs]
    result = reception(fixes=fixes, detections=run.detections, events=run.events,
                       channels=channels,
                       waiting_for=run.receiver.waiting_for(),
                       backend=run.correlator.backend(), gps_week=week,
                       leap_seconds=int(leap_seconds), outputs=[])
    if output_folder is not None and result.valid_fixes:
        if iono_utc is not None and not broadcast:
            # Klobuchar given up front, no page decoded: the navigation header's UTC
            # terms stay 0 and its leap seconds are the ones in use, with no change
            # announced.
            iono_utc.dt_ls = iono_utc.dt_lsf = int(leap_seconds)
            iono_utc.wnt = iono_utc.wn_lsf = week % 256
            iono_utc.dn = 1
        path = os.fspath(samples) if isinstance(samples, (str, os.PathLike)) else None
        result.outputs = write_outputs(
            output_folder, run, result, iono_utc,
            dict(input=path, input_format=fmt, sample_rate_hz=fs, signals=list(signals),
                 **settings))
    return result


def _process(run, values, fs, wanted, reacquire_interval_s, progress, chunk_s):
    """The recording through run, chunk by chunk: each searched first when due."""
    per = run.per_sample
    total = len(values) // per
    step = max(1, int(round(chunk_s * fs)))
    search_samples = max(step, int(math.ceil(SEARCH_S * fs)))
    next_search = 0.0
    for start in range(0, total, step):
        chunk = values[start * per:min(total, start + step) * per]
        searched = values[start * per:min(total, start + search_samples) * per]
        run.new_events = []
        if start / fs >= next_search:
            run.search(run.untracked(wanted), start, searched)
            next_search = (start / fs + reacquire_interval_s if reacquire_interval_s > 0
                           else float("inf"))
        elif run.lost:
            run.search(run.untracked(run.lost_satellites()), start, searched)
        run.lost.clear()
        run.feed(chunk)
        if progress is not None:
            timed = [c["satellite"] for c in run.channels() if c["time_known"]]
            fixes = [e for e in run.epochs if e.fix["valid"]]
            progress({"signal_time_s": run.correlator.samples_processed() / fs,
                      "satellites_tracked": sorted(run.tracked_now),
                      "satellites_timed": sorted(timed), "fixes": len(fixes),
                      "last_fix": fixes[-1].fix if fixes else None,
                      "events": run.new_events})
