#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""CfRadial 1.4 sink: radar moments, one radial per item, written one file per sweep.

``cfradial_sink`` takes one float vector of ``ngates`` per radial on each input, the
fields named by ``products`` in input order (by default the nine outputs of
polarimetric_products_cf: DBZ, ZDR, VEL, WIDTH, PHIDP, RHOHV, SNR, CLUT, CPA; KDP and
PHIDP_PROC from kdp_ff may be added, and any subset in any order is accepted). The
scan geometry comes from the stream tags on input 0 at each radial's item, as
polarimetric_products_cf writes them: "azimuth_deg", "elevation_deg", "time_s" (UTC
seconds since 1970) and "sweep_index". A radial without one of these tags keeps the
value of the latest radial that had it (a warning is logged once per tag). A radial
whose tag has a value outside RAY_RULES (a NaN or far-future time, a sweep index
beyond CfRadial's int32, a string azimuth) is rejected: counted in rays_rejected by
tag, with a rate-limited warning; the sweep goes on without it.

Each sweep goes to its own file, ``path_pattern`` formatted with ``sweep`` (the
sweep index) and ``start`` (a UTC datetime of the sweep's first radial), e.g.
"cfrad.{start:%Y%m%d_%H%M%S}_sweep{sweep:03d}.nc". A sweep ends when a radial
arrives with another sweep index, and at stop(). The file is written under a
temporary name (the final name + ".partial") and renamed when the sweep is complete,
so a reader never sees a half-written sweep; on an error the temporary file is
removed. No file is ever replaced: a name already taken (an earlier run's file, or a
sweep index that comes back within the same second) gets ".1", ".2", ... before its
extension.

Every radial that reaches the sink is in a file (rays_written) or counted in
rays_rejected; rays_in counts them all.

The format follows the NCAR/EOL "CfRadial Data File Format" version 1.4 (Dixon et
al., 2016) as LROSE's Radx writes it: netCDF-3 64-bit offset files, global attributes
Conventions "CF-1.7", Sub_conventions "CF-Radial instrument_parameters", version
"CF-Radial-1.4"; dimensions time (unlimited: rays), range (gates), sweep (one),
string_length, frequency; the required variables (time, range, azimuth, elevation,
latitude, longitude, altitude, sweep_number, sweep_mode, fixed_angle,
sweep_start_ray_index, sweep_end_ray_index, time_coverage_start/end, volume_number,
instrument_type, platform_type, primary_axis) and the instrument_parameters group
of variables (frequency, prt, nyquist_velocity, n_samples, polarization_mode,
prt_mode, radar_beam_width_h/v). Fields are float32 (time, range) with the
standard names used by CfRadial and Py-ART; NaN and +-inf are written as
_FillValue (masked when read back).
"""

import collections
import datetime
import math
import numbers
import os

import numpy as np
import pmt
from gnuradio import gr

from ..common.rate_limited_log import rate_limited_log
from ..common.work_errors import stop_on_error

#: CfRadial 1.4 / Py-ART metadata of every field the sink knows: (standard_name or
#: None, long_name, units). CLUT and CPA have no CF standard name.
FIELDS = {
    "DBZ": ("equivalent_reflectivity_factor", "equivalent_reflectivity_factor", "dBZ"),
    "ZDR": ("log_differential_reflectivity_hv", "log_differential_reflectivity_hv", "dB"),
    "VEL": ("radial_velocity_of_scatterers_away_from_instrument",
            "radial_velocity_of_scatterers_away_from_instrument", "m/s"),
    "WIDTH": ("doppler_spectrum_width", "doppler_spectrum_width", "m/s"),
    "PHIDP": ("differential_phase_hv", "differential_phase_hv", "degrees"),
    "RHOHV": ("cross_correlation_ratio_hv", "cross_correlation_ratio_hv", "unitless"),
    "SNR": ("signal_to_noise_ratio", "signal_to_noise_ratio_h", "dB"),
    "CLUT": (None, "clutter_power_removed_h", "dB"),
    "CPA": (None, "clutter_phase_alignment_h", "unitless"),
    "KDP": ("specific_differential_phase_hv", "specific_differential_phase_hv",
            "degrees/km"),
    "PHIDP_PROC": ("differential_phase_hv", "differential_phase_hv_processed", "degrees"),
}

#: The outputs of polarimetric_products_cf, in port order.
POLARIMETRIC_PRODUCTS = ("DBZ", "ZDR", "VEL", "WIDTH", "PHIDP", "RHOHV", "SNR", "CLUT",
                         "CPA")

#: Allowed values of sweep_mode and polarization_mode (CfRadial 1.4, section 4.8 and
#: the instrument_parameters sub-convention).
SWEEP_MODES = ("sector", "coplane", "rhi", "vertical_pointing", "idle",
               "azimuth_surveillance", "elevation_surveillance", "sunscan", "pointing",
               "calibration", "manual_ppi", "manual_rhi")
POLARIZATION_MODES = ("horizontal", "vertical", "hv_alt", "hv_sim", "circular")

FILL_VALUE = np.float32(-9999.0)
STRING_LENGTH = 32
TEMPORARY_SUFFIX = ".partial"
TAG_KEYS = ("azimuth_deg", "elevation_deg", "time_s", "sweep_index")

#: The end of year 9999 (10000-01-01T00:00:00Z), UTC seconds since 1970: the last time
#: CfRadial's time strings (yyyy-mm-ddTHH:MM:SSZ) can write.
MAX_TIME_S = 253402300800.0
#: CfRadial's sweep_number is an int32.
MAX_SWEEP_INDEX = 2**31 - 1
#: What each scan tag's value must be, (test, text of the rule). Elevations up to
#: +-180 degrees leave room for RHI scans over the zenith.
RAY_RULES = {
    "azimuth_deg": (lambda v: math.isfinite(v), "a finite number (degrees)"),
    "elevation_deg": (lambda v: -180.0 <= v <= 180.0, "a number in [-180, 180] (degrees)"),
    "time_s": (lambda v: 0.0 <= v < MAX_TIME_S,
               "a number in [0, %.0f) (UTC seconds from 1970 to the end of year 9999)"
               % MAX_TIME_S),
    "sweep_index": (lambda v: math.isfinite(v) and v == math.floor(v)
                    and 0 <= v <= MAX_SWEEP_INDEX,
                    "an integer in [0, %d] (CfRadial's int32 sweep_number)"
                    % MAX_SWEEP_INDEX),
}
#: The reason counted for the rays an error writing a file dropped.
WRITE_ERROR = "write_error"
#: How many of the latest sweep files ``written`` keeps: a sink runs for months, so it
#: keeps the latest paths only (``sweeps_written`` counts them all).
WRITTEN_HISTORY = 1000


def _utc(time_s):
    return datetime.datetime.fromtimestamp(math.floor(time_s), tz=datetime.timezone.utc)


def _iso(time_s):
    """CfRadial time string: whole seconds, yyyy-mm-ddTHH:MM:SSZ."""
    return _utc(time_s).strftime("%Y-%m-%dT%H:%M:%SZ")


class cfradial_sweep_file:
    """One sweep being written to a CfRadial 1.4 file; see the module docstring.

    ``site`` is a dict of the sink's fixed metadata (cfradial_sink builds it). Rays
    are appended with append(); close() completes the sweep's bookkeeping and renames
    the temporary file to ``path``; abort() removes it. As a context manager, a
    block that raises aborts the file and one that ends normally closes it.
    """

    def __init__(self, path, sweep_index, first_time_s, site):
        import netCDF4  # only the sink needs it; imported here so the package loads without

        self.path = path
        self.temporary_path = path + TEMPORARY_SUFFIX
        self._site = site
        self._first_time_s = first_time_s
        self._reference_s = math.floor(first_time_s)
        self._last_time_s = first_time_s
        self._elevations = []
        self.nrays = 0
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        # netCDF-3 (64-bit offset), not netCDF-4: every netCDF and CfRadial reader takes
        # it, and it has no HDF5 layer, whose error-printing switch is per thread (a
        # file written by a flowgraph thread and read by the main one floods stderr).
        self._nc = netCDF4.Dataset(self.temporary_path, "w", format="NETCDF3_64BIT_OFFSET")
        try:
            self._define(sweep_index)
        except BaseException:
            self.abort()
            raise

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
        else:
            self.abort()
        return False

    # ------------------------------------------------------------------ layout
    def _string(self, name, dims, value, **attrs):
        import netCDF4

        var = self._nc.createVariable(name, "S1", dims + ("string_length",))
        var.setncatts(attrs)
        chars = netCDF4.stringtochar(np.array(value if dims else [value],
                                              dtype="S%d" % STRING_LENGTH))
        var[:] = chars if dims else chars[0]
        return var

    def _scalar(self, name, dtype, value, **attrs):
        var = self._nc.createVariable(name, dtype, ())
        var.setncatts(attrs)
        var.assignValue(value)
        return var

    def _define(self, sweep_index):
        nc, site = self._nc, self._site
        nc.setncatts({
            "Conventions": "CF-1.7",
            "Sub_conventions": "CF-Radial instrument_parameters",
            "version": "CF-Radial-1.4",
            "title": site["title"],
            "institution": site["institution"],
            "references": "CfRadial Data File Format 1.4, NCAR/EOL (Dixon et al., 2016)",
            "source": site["source"],
            "history": "%s written by gr-cudadsp cfradial_sink"
                       % datetime.datetime.now(datetime.timezone.utc).strftime(
                           "%Y-%m-%dT%H:%M:%SZ"),
            "comment": site["file_comment"],
            "instrument_name": site["instrument_name"],
            "platform_is_mobile": "false",
            "n_gates_vary": "false",
            "ray_times_increase": "true",
            "field_names": ",".join(site["products"]),
        })
        nc.createDimension("time", None)
        nc.createDimension("range", site["ngates"])
        nc.createDimension("sweep", 1)
        nc.createDimension("string_length", STRING_LENGTH)
        nc.createDimension("frequency", 1)

        self._scalar("volume_number", "i4", site["volume_number"],
                     long_name="data_volume_index_number", units="unitless")
        start = _iso(self._first_time_s)
        self._string("time_coverage_start", (), start, long_name="data_volume_start_time_utc",
                     comment="ray times are relative to start time in secs")
        self._end_string = self._string("time_coverage_end", (), start,
                                        long_name="data_volume_end_time_utc")
        self._string("instrument_type", (), "radar", long_name="type_of_instrument",
                     options="radar, lidar")
        self._string("platform_type", (), "fixed", long_name="platform_type",
                     options="fixed, vehicle, ship, aircraft, satellite")
        self._string("primary_axis", (), "axis_z", long_name="primary_axis_of_rotation",
                     options="axis_z, axis_y, axis_x")
        self._scalar("latitude", "f8", site["latitude_deg"], standard_name="latitude",
                     long_name="latitude", units="degrees_north")
        self._scalar("longitude", "f8", site["longitude_deg"], standard_name="longitude",
                     long_name="longitude", units="degrees_east")
        self._scalar("altitude", "f8", site["altitude_m"], standard_name="altitude",
                     long_name="altitude", units="meters", positive="up")

        var = nc.createVariable("sweep_number", "i4", ("sweep",))
        var.setncatts(dict(long_name="sweep_index_number_0_based", units="count"))
        var[:] = sweep_index
        self._string("sweep_mode", ("sweep",), [site["sweep_mode"]],
                     long_name="scan_mode_for_sweep", units="unitless",
                     options=", ".join(SWEEP_MODES))
        self._fixed_angle = nc.createVariable("fixed_angle", "f4", ("sweep",))
        self._fixed_angle.setncatts(dict(long_name="ray_target_fixed_angle",
                                         units="degrees"))
        self._start_index = nc.createVariable("sweep_start_ray_index", "i4", ("sweep",))
        self._start_index.setncatts(dict(long_name="index_of_first_ray_in_sweep",
                                         units="count"))
        self._start_index[:] = 0
        self._end_index = nc.createVariable("sweep_end_ray_index", "i4", ("sweep",))
        self._end_index.setncatts(dict(long_name="index_of_last_ray_in_sweep",
                                       units="count"))

        self._time = nc.createVariable("time", "f8", ("time",))
        self._time.setncatts(dict(standard_name="time",
                                  long_name="time_in_seconds_since_volume_start",
                                  units="seconds since %s" % _iso(self._reference_s),
                                  calendar="gregorian",
                                  comment="times are relative to the volume start_time"))
        rng = nc.createVariable("range", "f4", ("range",))
        rng.setncatts(dict(standard_name="projection_range_coordinate",
                           long_name="range_to_measurement_volume", units="meters",
                           spacing_is_constant="true",
                           meters_to_center_of_first_gate=np.float32(site["first_gate_m"]),
                           meters_between_gates=np.float32(site["gate_spacing_m"]),
                           axis="radial_range_coordinate"))
        rng[:] = site["first_gate_m"] + np.arange(site["ngates"]) * site["gate_spacing_m"]
        self._azimuth = nc.createVariable("azimuth", "f4", ("time",))
        self._azimuth.setncatts(dict(standard_name="ray_azimuth_angle",
                                     long_name="azimuth_angle_from_true_north",
                                     units="degrees", axis="radial_azimuth_coordinate"))
        self._elevation = nc.createVariable("elevation", "f4", ("time",))
        self._elevation.setncatts(dict(standard_name="ray_elevation_angle",
                                       long_name="elevation_angle_from_horizontal_plane",
                                       units="degrees", axis="radial_elevation_coordinate",
                                       positive="up"))

        # instrument_parameters sub-convention.
        meta = dict(meta_group="instrument_parameters")
        freq = nc.createVariable("frequency", "f4", ("frequency",))
        freq.setncatts(dict(meta, long_name="transmission_frequency", units="s-1"))
        freq[:] = site["frequency_hz"]
        self._string("polarization_mode", ("sweep",), [site["polarization_mode"]],
                     long_name="polarization_mode_for_sweep", units="unitless",
                     options=", ".join(POLARIZATION_MODES), **meta)
        self._string("prt_mode", ("sweep",), ["fixed"], long_name="transmit_pulse_mode",
                     units="unitless", options="fixed, staggered, dual", **meta)
        for name, long_name in (("radar_beam_width_h", "half_power_radar_beam_width_h_channel"),
                                ("radar_beam_width_v", "half_power_radar_beam_width_v_channel")):
            self._scalar(name, "f4", site["beamwidth_deg"], long_name=long_name,
                         units="degrees", **meta)
        self._per_ray = {}
        for name, dtype, attrs in (
                ("prt", "f4", dict(long_name="pulse_repetition_time", units="seconds")),
                ("nyquist_velocity", "f4", dict(long_name="unambiguous_doppler_velocity",
                                                units="meters per second")),
                ("n_samples", "i4", dict(long_name="number_of_samples_used_to_compute_moments",
                                         units="unitless"))):
            var = nc.createVariable(name, dtype, ("time",))
            var.setncatts(dict(meta, **attrs))
            self._per_ray[name] = var

        self._fields = []
        for name in site["products"]:
            standard_name, long_name, units = FIELDS[name]
            var = nc.createVariable(name, "f4", ("time", "range"), fill_value=FILL_VALUE)
            attrs = dict(long_name=long_name, units=units, coordinates="elevation azimuth range")
            if standard_name:
                attrs["standard_name"] = standard_name
            var.setncatts(attrs)
            self._fields.append(var)

    # ------------------------------------------------------------------ rays
    def append(self, azimuth_deg, elevation_deg, time_s, fields):
        """Appends rays: azimuth_deg, elevation_deg, time_s of shape (n,); fields, one
        (n, ngates) array per product in the sink's order."""
        n = len(azimuth_deg)
        if len(fields) != len(self._fields):
            raise ValueError("fields: expected %d arrays (one per product), got %d"
                             % (len(self._fields), len(fields)))
        lo, hi = self.nrays, self.nrays + n
        self._azimuth[lo:hi] = np.mod(azimuth_deg, 360.0)
        self._elevation[lo:hi] = elevation_deg
        self._time[lo:hi] = np.asarray(time_s, dtype=np.float64) - self._reference_s
        self._per_ray["prt"][lo:hi] = self._site["prt_s"]
        self._per_ray["nyquist_velocity"][lo:hi] = self._site["nyquist_velocity_mps"]
        self._per_ray["n_samples"][lo:hi] = self._site["pulses_per_radial"]
        for var, data in zip(self._fields, fields):
            data = np.asarray(data, dtype=np.float32)
            if data.shape != (n, self._site["ngates"]):
                raise ValueError("%s: expected rays of shape (%d, %d), got %s"
                                 % (var.name, n, self._site["ngates"], data.shape))
            var[lo:hi, :] = np.ma.masked_invalid(data)
        self._elevations.extend(np.asarray(elevation_deg, dtype=np.float64).tolist())
        self._last_time_s = float(np.asarray(time_s)[-1]) if n else self._last_time_s
        self.nrays = hi

    def close(self):
        """Completes the sweep's bookkeeping and renames the file to its final path."""
        if self._nc is None:
            return
        try:
            import netCDF4

            self._end_index[:] = max(self.nrays - 1, 0)
            # The target angle of a PPI: the elevation the rays were taken at.
            self._fixed_angle[:] = np.median(self._elevations) if self._elevations else 0.0
            end = np.array([_iso(self._last_time_s)], dtype="S%d" % STRING_LENGTH)
            self._end_string[:] = netCDF4.stringtochar(end)[0]
            self._nc.setncattr("time_coverage_start", _iso(self._first_time_s))
            self._nc.setncattr("time_coverage_end", _iso(self._last_time_s))
            self._nc.close()
            self._nc = None
            os.replace(self.temporary_path, self.path)
        except BaseException:
            self.abort()
            raise

    def abort(self):
        """Drops the sweep: closes and removes the temporary file."""
        if self._nc is not None:
            try:
                self._nc.close()
            except RuntimeError:
                pass  # already unusable; the file is removed below either way
            self._nc = None
        if os.path.exists(self.temporary_path):
            os.remove(self.temporary_path)

def ray_value(key, value):
    """A scan tag's PMT as the number its key calls for (an int for sweep_index);
    ValueError naming the tag and its rule when the value breaks RAY_RULES."""
    test, rule = RAY_RULES[key]
    try:
        number = pmt.to_python(value)
    except Exception:  # a PMT that has no Python form is as bad as a wrong one
        number = pmt.write_string(value)
    if (not isinstance(number, numbers.Real) or isinstance(number, bool)
            or not test(float(number))):
        text = repr(number)
        raise ValueError("%s: must be %s, got %s"
                         % (key, rule, text if len(text) <= 80 else text[:77] + "..."))
    return int(number) if key == "sweep_index" else float(number)


class cfradial_writer:
    """What cfradial_sink does with the radials, without GNU Radio: tags checked
    (RAY_RULES), rays gathered into sweeps, one file per sweep under a name no other
    file has, every ray accounted for. ``log`` is a gr.logger (the block's);
    ``written`` keeps the final paths of the latest ``history`` sweeps."""

    def __init__(self, pattern, site, log, history=WRITTEN_HISTORY):
        self.site = site
        self._pattern = pattern
        self._log = log
        # The latest value of each tag, held for radials that lack it.
        self._latest = {"azimuth_deg": 0.0, "elevation_deg": 0.0, "time_s": 0.0,
                        "sweep_index": 0}
        self._missing_warned = set()
        self._rejection_log = rate_limited_log(log.warn, "rejected radials")
        self._rename_log = rate_limited_log(log.warn, "file names already taken")
        self._file = None
        self._sweep = None
        self.written = collections.deque(maxlen=history)
        self.sweeps_written = 0
        self.rays_in = 0
        self.rays_written = 0
        self.rays_rejected = collections.Counter()

    # ------------------------------------------------------------------ rays
    def _ray(self, item, tags):
        """One radial's azimuth, elevation, time and sweep index: its tags, or the
        latest values for those it lacks; None (counted, logged) when a tag is bad."""
        values = {}
        for key in TAG_KEYS:
            if key not in tags:
                continue
            try:
                values[key] = ray_value(key, tags[key])
            except ValueError as e:
                self.rays_rejected[key] += 1
                self._rejection_log("radial %d rejected: %s (%d rejected so far)"
                                    % (item, e, sum(self.rays_rejected.values())))
                return None
        for key in TAG_KEYS:
            if key not in values and key not in self._missing_warned:
                self._missing_warned.add(key)
                self._log.warn("radial without a '%s' tag: the latest value (%r) is "
                               "used, here and for later radials without it"
                               % (key, self._latest[key]))
        self._latest.update(values)
        return dict(self._latest)

    def add_rays(self, first_item, tags_by_item, fields):
        """Radials first_item, first_item + 1, ...: their tags (a dict of PMTs by key
        each) and ``fields``, one (n, ngates) array per product. An error writing a
        file drops the sweep in progress (counted as WRITE_ERROR) and is raised."""
        self.rays_in += len(tags_by_item)
        # Rays are gathered per sweep and appended when the sweep changes, so that a
        # sweep finished before an error is written whole.
        pending = []
        try:
            for item, tags in enumerate(tags_by_item):
                ray = self._ray(first_item + item, tags)
                if ray is None:
                    continue
                if self._file is not None and ray["sweep_index"] != self._sweep:
                    self._append(pending, fields)
                    pending = []
                    self._close()
                if self._file is None:
                    self._open(ray["sweep_index"], ray["time_s"])
                pending.append((item, ray))
            self._append(pending, fields)
        except Exception:
            self._abort()
            raise

    def _append(self, rays, fields):
        if rays:
            rows = [item for item, _ in rays]
            self._file.append([r["azimuth_deg"] for _, r in rays],
                              [r["elevation_deg"] for _, r in rays],
                              [r["time_s"] for _, r in rays],
                              [np.asarray(port)[rows] for port in fields])

    # ------------------------------------------------------------------ files
    def _free_path(self, sweep, time_s):
        """The pattern's name for the sweep, or, when a file (or a sweep being written)
        has it, the first of name.1.ext, name.2.ext, ... that none has."""
        path = self._pattern.format(sweep=sweep, start=_utc(time_s))
        stem, ext = os.path.splitext(path)
        candidate, n = path, 0
        while os.path.lexists(candidate) or os.path.lexists(candidate + TEMPORARY_SUFFIX):
            n += 1
            candidate = "%s.%d%s" % (stem, n, ext)
        if n:
            self._rename_log("%s exists: sweep %d is written to %s instead"
                             % (path, sweep, candidate))
        return candidate

    def _open(self, sweep, time_s):
        self._file = cfradial_sweep_file(self._free_path(sweep, time_s), sweep, time_s,
                                         self.site)
        self._sweep = sweep

    def _close(self):
        if self._file is not None:
            f, self._file = self._file, None
            f.close()
            self.written.append(f.path)
            self.sweeps_written += 1
            self.rays_written += f.nrays
            self._log.info("wrote %s: sweep %d, %d rays" % (f.path, self._sweep, f.nrays))

    def _abort(self):
        """Drops the sweep in progress; every ray received and neither written nor
        rejected for its tags is counted as dropped by the error."""
        lost = self.rays_in - self.rays_written - sum(self.rays_rejected.values())
        self.rays_rejected[WRITE_ERROR] += lost
        if self._file is not None:
            f, self._file = self._file, None
            f.abort()
            self._log.error("sweep %d dropped after an error; %s not written (%d rays "
                            "dropped)" % (self._sweep, f.path, lost))

    def finish(self):
        """Ends the open sweep and reports the suppressed warnings; False (logged)
        when the sweep cannot be completed."""
        ok = True
        try:
            self._close()
        except Exception as e:
            self._abort()
            self._log.error("could not complete the last sweep: %s" % e)
            ok = False
        self._rejection_log.report()
        self._rename_log.report()
        rejected = sum(self.rays_rejected.values())
        if rejected:
            self._log.warn("%d of %d radials rejected (%s)" % (
                rejected, self.rays_in,
                ", ".join("%s: %d" % kv for kv in sorted(self.rays_rejected.items()))))
        return ok


class cfradial_sink(gr.sync_block):
    """CfRadial Sink (CUDA DSP): radar moments to CfRadial 1.4 files, one per sweep.

    Inputs: one per entry of ``products``, float vectors of ``ngates`` (one radial per
    item); tags on input 0 as in the module docstring. Parameters:
      path_pattern: str.format pattern of each sweep's file, keys sweep and start.
      ngates, first_gate_m, gate_spacing_m: range geometry (gate centres).
      products: CfRadial field names, one per input in input order (FIELDS).
      latitude_deg, longitude_deg, altitude_m: radar location (WGS84; m above MSL).
      frequency_hz, prt_s, nyquist_velocity_mps, pulses_per_radial, beamwidth_deg:
          instrument parameters written with every ray / file.
      instrument_name, title, institution, source: global attributes of those names;
      file_comment: the global attribute "comment" (GRC keeps "comment" for its own).
      sweep_mode, polarization_mode: CfRadial strings (SWEEP_MODES, POLARIZATION_MODES).
      volume_number: written to every file.
    """

    # The products default is POLARIMETRIC_PRODUCTS written out, so that
    # tests/interface/qa_block_defaults.py can compare it with the GRC block's.
    def __init__(self, path_pattern="cfrad.{start:%Y%m%d_%H%M%S}_sweep{sweep:03d}.nc",
                 ngates=400, first_gate_m=150.0, gate_spacing_m=150.0,
                 products=("DBZ", "ZDR", "VEL", "WIDTH", "PHIDP", "RHOHV", "SNR", "CLUT",
                           "CPA"),
                 latitude_deg=0.0, longitude_deg=0.0,
                 altitude_m=0.0, frequency_hz=5.645e9, instrument_name="gr-cudadsp",
                 prt_s=1e-3, nyquist_velocity_mps=13.275, pulses_per_radial=36,
                 beamwidth_deg=1.0, sweep_mode="azimuth_surveillance",
                 polarization_mode="hv_sim", volume_number=0, title="", institution="",
                 source="gr-cudadsp polarimetric processing", file_comment=""):
        site = self._validated(locals())
        gr.sync_block.__init__(self, name="cfradial_sink",
                               in_sig=[(np.float32, site["ngates"])] * len(site["products"]),
                               out_sig=None)
        self._site = site
        self._keys = {key: pmt.intern(key) for key in TAG_KEYS}
        self._writer = cfradial_writer(path_pattern, site, self.logger)

    @property
    def written(self):
        """The final paths of the latest sweeps written (WRITTEN_HISTORY at most),
        oldest first."""
        return list(self._writer.written)

    @property
    def sweeps_written(self):
        """Sweep files written so far."""
        return self._writer.sweeps_written

    @property
    def rays_in(self):
        """Radials that reached work() so far."""
        return self._writer.rays_in

    @property
    def rays_written(self):
        """Radials in the files written so far."""
        return self._writer.rays_written

    @property
    def rays_rejected(self):
        """Radials rejected so far, counted by reason: the tag key whose value broke
        RAY_RULES, or WRITE_ERROR for those an error writing a file dropped."""
        return self._writer.rays_rejected

    @staticmethod
    def _validated(args):
        site = {k: v for k, v in args.items() if k not in ("self", "path_pattern")}
        pattern = args["path_pattern"]
        if not isinstance(pattern, str) or not pattern:
            raise ValueError("path_pattern: must be a non-empty string, got %r" % (pattern,))
        try:
            pattern.format(sweep=0, start=_utc(0.0))
        except (KeyError, IndexError, ValueError) as e:
            raise ValueError("path_pattern: must be a str.format pattern using only the "
                             "keys 'sweep' and 'start', got %r (%s)" % (pattern, e)) from None
        ngates = int(site["ngates"])
        if ngates != site["ngates"] or ngates < 1:
            raise ValueError("ngates: must be an integer >= 1, got %r" % (site["ngates"],))
        site["ngates"] = ngates
        products = tuple(site["products"]) if not isinstance(site["products"], str) else ()
        unknown = [p for p in products if p not in FIELDS]
        if not products or unknown or len(set(products)) != len(products):
            raise ValueError("products: must be a non-empty sequence of distinct CfRadial "
                             "field names from %s, got %r" % (", ".join(FIELDS),
                                                              site["products"]))
        site["products"] = products
        rules = (("first_gate_m", lambda v: v >= 0, ">= 0"),
                 ("gate_spacing_m", lambda v: v > 0, "> 0"),
                 ("latitude_deg", lambda v: -90 <= v <= 90, "in [-90, 90]"),
                 ("longitude_deg", lambda v: -180 <= v <= 360, "in [-180, 360]"),
                 ("altitude_m", lambda v: True, "finite"),
                 ("frequency_hz", lambda v: v > 0, "> 0"),
                 ("prt_s", lambda v: v > 0, "> 0"),
                 ("nyquist_velocity_mps", lambda v: v > 0, "> 0"),
                 ("beamwidth_deg", lambda v: v > 0, "> 0"))
        for name, rule, text in rules:
            value = site[name]
            if not (isinstance(value, (int, float, np.floating, np.integer))
                    and math.isfinite(value) and rule(value)):
                raise ValueError("%s: must be finite and %s, got %r" % (name, text, value))
            site[name] = float(value)
        for name in ("pulses_per_radial", "volume_number"):
            value = site[name]
            if int(value) != value or value < (1 if name == "pulses_per_radial" else 0):
                raise ValueError("%s: must be an integer >= %d, got %r"
                                 % (name, 1 if name == "pulses_per_radial" else 0, value))
            site[name] = int(value)
        if site["sweep_mode"] not in SWEEP_MODES:
            raise ValueError("sweep_mode: must be one of %s, got %r"
                             % (", ".join(SWEEP_MODES), site["sweep_mode"]))
        if site["polarization_mode"] not in POLARIZATION_MODES:
            raise ValueError("polarization_mode: must be one of %s, got %r"
                             % (", ".join(POLARIZATION_MODES), site["polarization_mode"]))
        if not isinstance(site["instrument_name"], str) or not site["instrument_name"]:
            raise ValueError("instrument_name: must be a non-empty string, got %r"
                             % (site["instrument_name"],))
        for name in ("title", "institution", "source", "file_comment"):
            if not isinstance(site[name], str):
                raise ValueError("%s: must be a string, got %r" % (name, site[name]))
        return site

    def _tags_by_item(self, first_item, n):
        """The scan tags of input 0 in this call, one dict of PMTs per item."""
        on_item = [dict() for _ in range(n)]
        for tag in self.get_tags_in_window(0, 0, n):
            key = pmt.symbol_to_string(tag.key)
            if key in self._keys:
                on_item[tag.offset - first_item][key] = tag.value
        return on_item

    @stop_on_error
    def work(self, input_items, output_items):
        n = len(input_items[0])
        first = self.nitems_read(0)
        self._writer.add_rays(first, self._tags_by_item(first, n), input_items)
        return n

    def stop(self):
        """Ends the open sweep: the flowgraph's last radials make a complete file."""
        return self._writer.finish()
