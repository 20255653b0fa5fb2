#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""receive: a GPS L1 C/A receiver over a recording, from samples to position fixes and
the files a GNSS user reads (RINEX 3.04 observation and navigation, NMEA 0183,
GeoJSON): acquisition (acquire), the multichannel correlator's channels (CPU or CUDA)
and the host pipeline of core::gps_receiver (docs/design/gps_receiver.md). The
command-line tool cudadsp_gnss is this function (docs/apps/cudadsp_gnss.md)."""

import dataclasses
import datetime
import math
import os
import re

import numpy

from .._engines import (gnss_default_cn0_epochs, gnss_lock_monitor,
                        gnss_record_flag_code_lock, gps_ephemeris_transmission_time_s,
                        gps_geojson_track_text, gps_receiver,
                        multichannel_correlator, rinex_file_names, rinex_navigation_text,
                        rinex_observation_text)
from ..common import output_set
from .acquisition import acquire

# Sample formats by their names here and GNSS-SDR's (its file_signal_source's
# item_type): the dtype of one value and the values per complex sample.
SAMPLE_FORMATS = {"cf32": (numpy.complex64, 1), "ci16": (numpy.int16, 2),
                  "ci8": (numpy.int8, 2)}
FORMAT_ALIASES = {"gr_complex": "cf32", "ishort": "ci16", "byte": "ci8"}

# The loops of qa_gps_receiver's measured bounds: a 0.25 Hz carrier-aided DLL on taps
# 0.25 chip either side of the prompt (about 0.4 m of code noise per satellite at
# 45 dB-Hz), the default 15 Hz PLL.
TAP_OFFSETS_CHIPS = (-0.25, 0.0, 0.25)
DLL_BANDWIDTH_HZ = 0.25
# FLL assist until carrier lock: the acquisition's Doppler can be 80 Hz off (500 Hz
# bins, refined), beyond what the 15 Hz PLL pulls in quickly; without it such a channel
# took seconds to lock and missed the subframes 1 to 3 of the first frame (9 of 12
# satellites in the first fixes of cudadsp_bench receiver). With 10 Hz every channel
# of that signal is in carrier lock within 0.3 s.
FLL_BANDWIDTH_HZ = 10.0
# One channel per GPS PRN: a search looks for the PRNs without one, which is as many
# as the channels left.
MAX_CHANNELS = 32
# The C/N0 window of the channels (default loop), in which lock is decided: 1-ms epochs.
LOCK_WINDOW_S = gnss_default_cn0_epochs * 1e-3

GPS_EPOCH = datetime.datetime(1980, 1, 6, tzinfo=datetime.timezone.utc)
WEEK_S = 604800
# GPS - UTC since 2017-01-01, used until a subframe 4 page 18 says otherwise.
LEAP_SECONDS_SINCE_2017 = 18
# Earlier runs' RINEX files of the default site (gnss_rinex_site), replaced by a run.
_RINEX_NAME = re.compile(r"^GRCD00XXX_R_\d{11}_\d\d[MHD](_\d\d[SZU])?_G[ON]\.rnx$")
REPORT_NAME = "receiver.json"


@dataclasses.dataclass
class reception:
    """What receive() made of a recording.

    fixes: one dict per observation epoch (valid or not, the reason when not):
        signal_time_s (sample / rate), sample_index, receiver_time_s, gps_week,
        gps_time_of_week_s, utc (ISO 8601), valid, reason, ecef_m, latitude_deg,
        longitude_deg, height_m (above the WGS-84 ellipsoid), clock_bias_s,
        clock_drift, velocity_valid, velocity_m_s (ECEF), dops (gdop, pdop, hdop,
        vdop, tdop), satellites_used (PRNs), satellites_not_used ((PRN, reason)),
        ionosphere_applied.
    detections: the acquisitions' detected satellites (satellite, doppler_hz,
        code_phase_chips, cn0_dbhz, start_sample), in the order found.
    events: the channels' changes after the first search, in signal order, each a
        dict: event ("lost": the channel dropped; "reacquired": a satellite once in
        code lock found again; "acquired": one found for the first time), prn, channel,
        sample, signal_time_s and, for "lost", reason ("lock_lost": code lock off
        for lock_loss_s after being on; "never_locked": not on within lock_loss_s of
        the channel's start).
    channels: per tracked PRN where its navigation stands (stage, counters).
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


def _resolve_week(week_10_bit, reference_week):
    return week_10_bit + 1024 * round((reference_week - week_10_bit) / 1024)


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

    def __init__(self, values, fmt, sample_rate_hz, settings, lock_loss_s):
        self.values, self.fmt, self.fs = values, fmt, float(sample_rate_hz)
        self.per_sample = SAMPLE_FORMATS[fmt][1]
        self.settings = settings
        self.correlator = multichannel_correlator(
            self.fs, input_format=fmt, tap_offsets_chips=list(TAP_OFFSETS_CHIPS),
            max_channels=MAX_CHANNELS,
            intermediate_frequency_hz=settings["intermediate_frequency_hz"],
            device=settings["device"])
        self.receiver = gps_receiver(
            self.fs, interval_ms=settings["interval_ms"],
            elevation_mask_deg=settings["elevation_mask_deg"],
            troposphere=settings["troposphere"], klobuchar=settings["klobuchar"],
            prompt_tap=TAP_OFFSETS_CHIPS.index(0.0))
        # The block's rule (multichannel_correlator_cc's "lost" events), loss and
        # start-up timeout both lock_loss_s, in whole C/N0 windows; 0 turns it off.
        windows = math.ceil(lock_loss_s / LOCK_WINDOW_S - 1e-9)
        self.monitor = gnss_lock_monitor(windows, windows)
        self.epochs, self.detections, self.events = [], [], []
        # Channel id to PRN. Ids are never reused: a satellite found again gets a fresh
        # channel, its navigation decoded anew (the receiver keeps its ephemeris).
        self.prn_of, self.next_id = {}, 1
        # PRNs once in code lock: found again, "reacquired" (else "acquired").
        self.ever_tracked, self.searches = set(), 0
        # PRNs whose channel was dropped in the last chunk: searched on the next one.
        self.lost = set()
        # PRN: (IODE, toe) of its latest ephemeris and the receiver time (s) of the
        # first epoch of a later call (None until one comes): at most a chunk and an
        # epoch interval after the ephemeris arrived. pending: PRNs waiting for it.
        self.ephemeris_seen, self.pending = {}, set()
        self.tracked_now = set()
        self.new_events = []

    def untracked(self, satellites):
        tracked = set(self.prn_of.values())
        return [s for s in satellites if s not in tracked]

    def search(self, prns, first_sample, chunk):
        """Searches prns (without a channel) in chunk, a channel for each found."""
        self.searches += 1
        if not prns:
            return
        found = acquire(_complex(chunk, self.fmt), self.fs, satellites=prns,
                        first_sample=first_sample, device=self.settings["device"],
                        intermediate_frequency_hz=self.settings["intermediate_frequency_hz"])
        for d in found:
            if not d["detected"]:
                continue
            prn, channel = int(d["satellite"]), self.next_id
            self.next_id += 1
            self.correlator.add_channel(
                id=channel, prn=prn, system="gps_l1ca", doppler_hz=float(d["doppler_hz"]),
                code_phase_chips=float(d["code_phase_chips"]),
                start_sample=int(d["start_sample"]), dll_bandwidth_hz=DLL_BANDWIDTH_HZ,
                fll_bandwidth_hz=FLL_BANDWIDTH_HZ)
            self.monitor.watch(self.correlator, channel)
            self.receiver.assign_channel(channel, prn)
            self.prn_of[channel] = prn
            self.detections.append({k: d[k] for k in ("satellite", "doppler_hz",
                                                      "code_phase_chips", "cn0_dbhz",
                                                      "start_sample")})
            if self.searches > 1:
                self._event("reacquired" if prn in self.ever_tracked else "acquired",
                            prn, channel, int(d["start_sample"]))

    def _event(self, kind, prn, channel, sample, **more):
        event = dict(event=kind, prn=prn, channel=channel, sample=sample,
                     signal_time_s=sample / self.fs, **more)
        self.events.append(event)
        self.new_events.append(event)

    def feed(self, chunk):
        records, _, _, correlations = self.correlator.process(chunk)
        locked = (records["flags"] & gnss_record_flag_code_lock) != 0
        self.tracked_now = set(self.prn_of[int(c)]
                               for c in numpy.unique(records["channel_id"][locked]))
        self.ever_tracked |= self.tracked_now
        lost = self.monitor.observe(records)
        epochs = self.receiver.process(records, correlations,
                                       self.correlator.samples_processed())
        for epoch in epochs:
            for prn in self.pending:
                self.ephemeris_seen[prn] = (self.ephemeris_seen[prn][0],
                                            epoch.receiver_time_ms / 1e3)
            self.pending.clear()
            self.epochs.append(epoch)
        for prn, e in self.receiver.ephemerides().items():
            key = (e.iode, e.toe)
            if self.ephemeris_seen.get(prn, (None,))[0] != key:
                self.ephemeris_seen[prn] = (key, None)
                self.pending.add(prn)
        for channel, reason, sample in sorted(lost, key=lambda verdict: verdict[2]):
            prn = self.prn_of.pop(channel)
            self.correlator.remove_channel(channel)
            self.receiver.release_channel(channel)
            self.monitor.forget(channel)
            self.tracked_now.discard(prn)
            self.lost.add(prn)
            self._event("lost", prn, channel, int(sample), reason=reason)

    def channels(self):
        return [self.receiver.channel(i) for i in self.correlator.channel_ids()]


def receive(samples, sample_rate_hz, input_format=None, intermediate_frequency_hz=0.0,
            device="auto", satellites=None, klobuchar=None, troposphere="saastamoinen",
            elevation_mask_deg=10.0, interval_ms=1000, reacquire_interval_s=10.0,
            lock_loss_s=1.0, reference_week=None, leap_seconds=None, output_folder=None,
            progress=None, chunk_s=0.1):
    """Position fixes of a GPS L1 C/A recording, and optionally its RINEX, NMEA and
    GeoJSON files.

    Args:
        samples: the recording: an array (complex, or int16 / int8 interleaved I/Q) or
            a path of raw samples in input_format, read as it is processed.
        sample_rate_hz: its rate.
        input_format: "cf32" (complex64), "ci16" or "ci8" (interleaved I/Q), or
            GNSS-SDR's item types "gr_complex", "ishort", "byte"; default cf32 for a
            path, the dtype's for an array.
        intermediate_frequency_hz: the L1 carrier's frequency in the samples.
        device: "auto", "cpu", "cuda" or "cuda:N", for acquisition and correlator.
        satellites: PRNs searched (default 1..32).
        klobuchar: the 8 broadcast ionosphere coefficients (alpha0..3, beta0..3) known
            before subframe 4 page 18 arrives (every 12.5 min; a navigation file or an
            earlier run); until then fixes are made without the ionosphere.
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
            decoded anew, its ephemeris kept). 0: channels are never dropped.
        reference_week: a GPS week near the recording's, which resolves the message's
            10-bit week; default the machine clock's.
        leap_seconds: GPS - UTC; default the broadcast value once page 18 is decoded,
            18 (since 2017) before.
        output_folder: where to write the RINEX 3.04 observation and navigation files
            (long names), fixes.nmea, track.geojson and receiver.json (the report,
            last), all together or nothing (cudadsp.common.output_set); nothing is
            written when no fix was made.
        progress: called after each chunk with a dict: signal_time_s,
            satellites_tracked (PRNs in code lock), satellites_timed (PRNs whose
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
    prns = list(range(1, 33)) if satellites is None else [int(s) for s in satellites]
    settings = dict(intermediate_frequency_hz=float(intermediate_frequency_hz),
                    device=device, interval_ms=int(interval_ms),
                    elevation_mask_deg=float(elevation_mask_deg), troposphere=troposphere,
                    klobuchar=None if klobuchar is None else [float(k) for k in klobuchar])
    run = _run(values, fmt, fs, settings, float(lock_loss_s))
    per = run.per_sample
    total = len(values) // per
    step = max(1, int(round(chunk_s * fs)))
    next_search = 0.0
    for start in range(0, total, step):
        chunk = values[start * per:min(total, start + step) * per]
        run.new_events = []
        if start / fs >= next_search:
            run.search(run.untracked(prns), start, chunk)
            next_search = (start / fs + reacquire_interval_s if reacquire_interval_s > 0
                           else float("inf"))
        elif run.lost:
            run.search(run.untracked(sorted(run.lost)), start, chunk)
        run.lost.clear()
        run.feed(chunk)
        if progress is not None:
            timed = [c["prn"] for c in run.channels() if c["time_known"]]
            fixes = [e for e in run.epochs if e.fix["valid"]]
            progress({"signal_time_s": run.correlator.samples_processed() / fs,
                      "satellites_tracked": sorted(run.tracked_now),
                      "satellites_timed": sorted(timed), "fixes": len(fixes),
                      "last_fix": fixes[-1].fix if fixes else None,
                      "events": run.new_events})

    ephemerides = run.receiver.ephemerides()
    week = _resolve_week(next(iter(ephemerides.values())).week,
                         current_gps_week() if reference_week is None else reference_week
                         ) if ephemerides else (reference_week or current_gps_week())
    channels = run.channels()
    broadcast = any(c["iono_utc_pages"] for c in channels)
    iono_utc = run.receiver.iono_utc()
    if leap_seconds is None:
        leap_seconds = iono_utc.dt_ls if broadcast else LEAP_SECONDS_SINCE_2017
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
        result.outputs = _write_outputs(
            output_folder, run, result, iono_utc,
            dict(input=path, input_format=fmt, sample_rate_hz=fs, **settings))
    return result


def _navigation_records(run, week):
    records = []
    for prn, e in sorted(run.receiver.ephemerides().items()):
        seen_s = run.ephemeris_seen[prn][1]
        if seen_s is None:
            continue  # arrived after the last epoch: no observation used it
        # seen_s lies a transit time and at most a chunk and an epoch interval after
        # subframe 3 arrived, within the frame (gps_ephemeris_transmission_time_s).
        records.append((e, _resolve_week(e.week, week),
                        gps_ephemeris_transmission_time_s(seen_s)))
    return records


def _write_outputs(folder, run, result, iono_utc, settings):
    first, last = run.epochs[0], run.epochs[-1]
    first_tow = first.receiver_time_ms / 1e3
    span_s = (last.receiver_time_ms - first.receiver_time_ms) / 1e3 + run.settings[
        "interval_ms"] / 1e3
    obs_name, nav_name = rinex_file_names(result.gps_week, first_tow, span_s,
                                          run.settings["interval_ms"])
    created = datetime.datetime.now(datetime.timezone.utc)
    created_utc = (created.year, created.month, created.day, created.hour,
                   created.minute, float(created.second))
    valid = result.valid_fixes
    position = list(valid[-1]["ecef_m"])
    earlier = [n for n in (os.listdir(folder) if os.path.isdir(folder) else [])
               if _RINEX_NAME.match(n)]
    names = [obs_name, nav_name, "fixes.nmea", "track.geojson", REPORT_NAME]
    paths = [os.path.join(os.path.abspath(folder), n) for n in names]
    with output_set.output_set(folder, names + [n for n in earlier if n not in names]) \
            as files:
        obs = rinex_observation_text(run.epochs, result.gps_week,
                                     run.settings["interval_ms"], position, "GRCD",
                                     created_utc)
        files.write(obs_name, lambda f: f.write(obs.encode()))
        nav = rinex_navigation_text(_navigation_records(run, result.gps_week), [],
                                    result.gps_week, created_utc, iono_utc=iono_utc)
        files.write(nav_name, lambda f: f.write(nav.encode()))
        nmea = "".join(s for e in run.epochs
                       for s in e.nmea(result.gps_week, result.leap_seconds))
        files.write("fixes.nmea", lambda f: f.write(nmea.encode()))
        track = gps_geojson_track_text(run.epochs, result.gps_week, result.leap_seconds)
        files.write("track.geojson", lambda f: f.write(track.encode()))
        files.write_json(REPORT_NAME, {
            "settings": settings, "backend": result.backend,
            "gps_week": result.gps_week, "leap_seconds": result.leap_seconds,
            "detections": result.detections, "events": result.events,
            "channels": result.channels,
            "fixes": result.fixes, "outputs": paths,
            "created_utc": created.isoformat(timespec="seconds")})
    return paths
