#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The files of a reception (receive()'s output_folder): RINEX 3.04 observation and
navigation (GPS, Galileo or mixed, long names), NMEA 0183, GeoJSON and the report, all
of them or none (cudadsp.common.output_set)."""

import datetime
import os
import re

from .._engines import (galileo_ephemeris_transmission_time_s,
                        gps_ephemeris_transmission_time_s, gps_geojson_track_text,
                        gps_resolve_week, gps_week_of_gst_week, rinex_file_names,
                        rinex_navigation_text, rinex_observation_text)
from ..common import output_set
from .receiver_signals import satellite_id

# Earlier runs' RINEX files of the default site (gnss_rinex_site), replaced by a run.
RINEX_NAME = re.compile(r"^GRCD00XXX_R_\d{11}_\d\d[MHD](_\d\d[SZU])?_[GEM][ON]\.rnx$")
REPORT_NAME = "receiver.json"


def _navigation_records(run, week):
    """(GPS records, Galileo records) of the ephemerides some epoch used."""
    gps, galileo = [], []
    for prn, e in sorted(run.receiver.ephemerides().items()):
        seen_s = run.ephemeris_seen.get(satellite_id("gps", prn), (None, None))[1]
        if seen_s is None:
            continue  # arrived after the last epoch: no observation used it
        # seen_s lies a transit time and at most a chunk and an epoch interval after
        # subframe 3 arrived, within the frame (gps_ephemeris_transmission_time_s).
        gps.append((e, gps_resolve_week(e.week, 1024, week), gps_ephemeris_transmission_time_s(seen_s)))
    words_5 = run.receiver.galileo_iono_health()
    for prn, e in sorted(run.receiver.galileo_ephemerides().items()):
        seen_s = run.ephemeris_seen.get(satellite_id("galileo", prn), (None, None))[1]
        if seen_s is None or prn not in words_5:
            continue  # without its word 5 (health, group delays) it was never used
        galileo.append((e, words_5[prn], gps_week_of_gst_week(words_5[prn].wn, week),
                        galileo_ephemeris_transmission_time_s(seen_s)))
    return gps, galileo


def write_outputs(folder, run, result, iono_utc, settings):
    """Writes the reception's files into folder; returns their paths."""
    first, last = run.epochs[0], run.epochs[-1]
    interval_ms = run.settings["interval_ms"]
    systems = run.systems
    first_tow = first.receiver_time_ms / 1e3
    span_s = (last.receiver_time_ms - first.receiver_time_ms) / 1e3 + interval_ms / 1e3
    obs_name, nav_name = rinex_file_names(result.gps_week, first_tow, span_s, interval_ms,
                                          systems)
    created = datetime.datetime.now(datetime.timezone.utc)
    created_utc = (created.year, created.month, created.day, created.hour,
                   created.minute, float(created.second))
    position = list(result.valid_fixes[-1]["ecef_m"])
    earlier = [n for n in (os.listdir(folder) if os.path.isdir(folder) else [])
               if RINEX_NAME.match(n)]
    names = [obs_name, nav_name, "fixes.nmea", "track.geojson", REPORT_NAME]
    paths = [os.path.join(os.path.abspath(folder), n) for n in names]
    words_5 = run.receiver.galileo_iono_health()
    # Every satellite broadcasts the same NeQuick-G coefficients: any word 5 serves.
    galileo_iono = next(iter(words_5.values()), None)
    with output_set.output_set(folder, names + [n for n in earlier if n not in names]) \
            as files:
        obs = rinex_observation_text(run.epochs, result.gps_week, interval_ms, position,
                                     "GRCD", created_utc, systems)
        files.write(obs_name, lambda f: f.write(obs.encode()))
        gps, galileo = _navigation_records(run, result.gps_week)
        nav = rinex_navigation_text(gps, galileo, result.gps_week, created_utc, systems,
                                    iono_utc=iono_utc, galileo_iono=galileo_iono,
                                    galileo_utc=run.receiver.galileo_gst_utc())
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
