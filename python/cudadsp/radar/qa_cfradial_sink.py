#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Block tests of cudadsp.cfradial_sink, the CfRadial 1.4 writer.

Vector sources with the scan tags of polarimetric_products_cf drive the sink through
two sweeps at two elevations; the files are read back with xarray (the reader Py-ART
and xradar build on; neither is packaged by Debian) and with netCDF4 for the raw
bytes: the CfRadial 1.4 required dimensions, variables and attributes, the values
sent (NaN and inf as _FillValue), the geometry from the tags, the sweep bookkeeping,
one file per sweep and no file for a sweep that ended in an error.
"""

import datetime
import glob
import math
import os
import tempfile
import threading

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import cudadsp
except ImportError:
    import sys

    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp

# Required, not optional: Debian's python3-netcdf4 and python3-xarray (tools/common.sh).
import netCDF4
import xarray

# The module, for its tables and the sweep file; the package exports the block class
# under the module's name.
from gnuradio.cudadsp.radar.cfradial_sink import (POLARIMETRIC_PRODUCTS, WRITTEN_HISTORY,
                                            cfradial_sweep_file, cfradial_writer)

NGATES = 20
RAYS_PER_SWEEP = 36
ELEVATIONS = (0.5, 1.5)
START_S = 1_700_000_000.25  # 2023-11-14T22:13:20.25Z
RAY_PERIOD_S = 0.036
PRODUCTS = POLARIMETRIC_PRODUCTS + ("KDP", "PHIDP_PROC")
PATTERN = "cfrad.{start:%Y%m%d_%H%M%S}_sweep{sweep:03d}.nc"
SITE = dict(latitude_deg=46.5, longitude_deg=6.6, altitude_m=420.0, frequency_hz=5.6e9,
            instrument_name="TESTRADAR", prt_s=1e-3, nyquist_velocity_mps=13.4,
            pulses_per_radial=36, beamwidth_deg=1.1)

# Variables CfRadial 1.4 requires, with the units they must carry (None: no units).
REQUIRED_VARIABLES = {
    "time": None, "range": "meters", "azimuth": "degrees",  # time: units checked per sweep
    "elevation": "degrees", "latitude": "degrees_north", "longitude": "degrees_east",
    "altitude": "meters", "sweep_number": None, "sweep_mode": None, "fixed_angle": "degrees",
    "sweep_start_ray_index": None, "sweep_end_ray_index": None,
    "time_coverage_start": None, "time_coverage_end": None, "volume_number": None,
    "instrument_type": None, "platform_type": None, "primary_axis": None,
}
STANDARD_NAMES = {
    "DBZ": "equivalent_reflectivity_factor",
    "VEL": "radial_velocity_of_scatterers_away_from_instrument",
    "WIDTH": "doppler_spectrum_width", "ZDR": "log_differential_reflectivity_hv",
    "PHIDP": "differential_phase_hv", "KDP": "specific_differential_phase_hv",
    "RHOHV": "cross_correlation_ratio_hv", "SNR": "signal_to_noise_ratio",
    "PHIDP_PROC": "differential_phase_hv",
}
UNITS = {"DBZ": "dBZ", "ZDR": "dB", "VEL": "m/s", "WIDTH": "m/s", "PHIDP": "degrees",
         "RHOHV": "unitless", "SNR": "dB", "CLUT": "dB", "CPA": "unitless",
         "KDP": "degrees/km", "PHIDP_PROC": "degrees"}


def scan(nsweeps=len(ELEVATIONS)):
    """PPI sweeps (two by default) at ELEVATIONS in turn: per ray azimuth, elevation,
    time, sweep index."""
    n = RAYS_PER_SWEEP * nsweeps
    k = np.arange(n)
    # Sweeps start at different azimuths, as a real antenna's do.
    azimuth = (17.0 + (k % RAYS_PER_SWEEP + 0.5) * 360.0 / RAYS_PER_SWEEP
               + 3.0 * (k // RAYS_PER_SWEEP)) % 360.0
    elevation = np.resize(np.repeat(ELEVATIONS, RAYS_PER_SWEEP), n) + 0.01 * np.sin(k)
    time_s = START_S + k * RAY_PERIOD_S + 2.0 * (k // RAYS_PER_SWEEP)
    sweep = k // RAYS_PER_SWEEP
    return azimuth, elevation, time_s, sweep


def fields(rng, nrays):
    """Per product (nrays, ngates) float32: distinct values, with NaN and inf holes."""
    out = []
    for i, _ in enumerate(PRODUCTS):
        data = (rng.standard_normal((nrays, NGATES)) * 10.0 + 5.0 * i).astype(np.float32)
        data[rng.random(data.shape) < 0.1] = np.nan
        out.append(data)
    out[PRODUCTS.index("SNR")][0, :3] = -np.inf
    return out


def scan_tags(azimuth, elevation, time_s, sweep, bad_tag_at=None):
    tags = []
    for k in range(len(azimuth)):
        values = (("azimuth_deg", pmt.from_double(float(azimuth[k]))),
                  ("elevation_deg", pmt.from_double(float(elevation[k]))),
                  ("time_s", pmt.from_double(float(time_s[k]))),
                  ("sweep_index", pmt.from_uint64(int(sweep[k]))))
        for key, value in values:
            if k == bad_tag_at and key == "azimuth_deg":
                value = pmt.intern("north")
            tags.append(gr.tag_utils.python_to_tag((k, pmt.intern(key), value,
                                                    pmt.intern("qa"))))
    return tags


#: How long a flowgraph of these tests may run: far beyond the second they take.
RUN_TIMEOUT_S = 60.0


def run_sink(outdir, data, tags, pattern=PATTERN, **kwargs):
    """Runs the sink on ``data`` (one array per product) in a flowgraph. The flowgraph
    runs in a thread: one that does not end within RUN_TIMEOUT_S (an error in work()
    that leaves its neighbours waiting) is stopped and fails the test."""
    tb = gr.top_block()
    sink = cudadsp.cfradial_sink(os.path.join(outdir, pattern), NGATES, 250.0, 125.0,
                                 PRODUCTS, **dict(SITE, **kwargs))
    for port, values in enumerate(data):
        src = blocks.vector_source_f(values.ravel().tolist(), False, NGATES,
                                     tags if port == 0 else [])
        tb.connect(src, (sink, port))
    runner = threading.Thread(target=tb.run, daemon=True)
    runner.start()
    runner.join(RUN_TIMEOUT_S)
    if runner.is_alive():
        tb.stop()
        raise AssertionError("tb.run() did not return within %.0f s" % RUN_TIMEOUT_S)
    return sink


def rays_in_files(paths):
    total = 0
    for path in paths:
        with netCDF4.Dataset(path) as nc:
            total += nc.dimensions["time"].size
    return total


class qa_cfradial_sink(gr_unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.rng = np.random.default_rng(5)

    def tearDown(self):
        self.tmp.cleanup()

    def test_two_sweeps_written_and_read_back(self):
        azimuth, elevation, time_s, sweep = scan()
        data = fields(self.rng, len(azimuth))
        sink = run_sink(self.tmp.name, data, scan_tags(azimuth, elevation, time_s, sweep))
        names = sorted(os.listdir(self.tmp.name))
        expected = [PATTERN.format(sweep=s, start=datetime.datetime.fromtimestamp(
            math.floor(time_s[s * RAYS_PER_SWEEP]), tz=datetime.timezone.utc))
            for s in range(len(ELEVATIONS))]
        self.assertEqual(names, sorted(expected))
        self.assertEqual([os.path.basename(p) for p in sink.written], expected)

        for s, name in enumerate(expected):
            rays = slice(s * RAYS_PER_SWEEP, (s + 1) * RAYS_PER_SWEEP)
            path = os.path.join(self.tmp.name, name)
            with xarray.open_dataset(path, decode_times=False) as ds:
                self.check_layout(ds)
                self.assertEqual(dict(ds.sizes)["time"], RAYS_PER_SWEEP)
                self.assertEqual(dict(ds.sizes)["range"], NGATES)
                self.assertEqual(dict(ds.sizes)["sweep"], 1)
                np.testing.assert_allclose(ds["range"], 250.0 + 125.0 * np.arange(NGATES))
                np.testing.assert_allclose(ds["azimuth"], azimuth[rays], atol=1e-4)
                np.testing.assert_allclose(ds["elevation"], elevation[rays], atol=1e-5)
                start = math.floor(time_s[rays][0])
                self.assertEqual(ds["time"].attrs["units"], "seconds since %s"
                                 % datetime.datetime.fromtimestamp(
                                     start, tz=datetime.timezone.utc).strftime(
                                         "%Y-%m-%dT%H:%M:%SZ"))
                np.testing.assert_allclose(ds["time"] + start, time_s[rays], atol=1e-6)
                self.assertEqual(int(ds["sweep_number"][0]), s)
                self.assertEqual(int(ds["sweep_start_ray_index"][0]), 0)
                self.assertEqual(int(ds["sweep_end_ray_index"][0]), RAYS_PER_SWEEP - 1)
                self.assertAlmostEqual(float(ds["fixed_angle"][0]),
                                       float(np.median(elevation[rays])), places=5)
                self.assertEqual(ds["sweep_mode"].values[0].decode().strip(),
                                 "azimuth_surveillance")
                self.assertEqual(ds["time_coverage_start"].values.item().decode(),
                                 ds["time"].attrs["units"].split()[-1])
                for name_, values in zip(PRODUCTS, data):
                    # xarray: fill values as NaN; every NaN and inf sent is one.
                    sent = values[rays].astype(np.float64)
                    sent[~np.isfinite(sent)] = np.nan
                    np.testing.assert_array_equal(ds[name_].values, sent, err_msg=name_)
                self.assertAlmostEqual(float(ds["latitude"]), 46.5)
                self.assertAlmostEqual(float(ds["longitude"]), 6.6)
                self.assertAlmostEqual(float(ds["altitude"]), 420.0)
                self.assertAlmostEqual(float(ds["frequency"][0]), 5.6e9, delta=1e3)
                np.testing.assert_allclose(ds["nyquist_velocity"], 13.4, rtol=1e-6)
                np.testing.assert_allclose(ds["prt"], 1e-3, rtol=1e-6)
                np.testing.assert_array_equal(ds["n_samples"], 36)
            # Raw values: the fill value itself where NaN was sent; time decodes.
            with netCDF4.Dataset(path) as nc:
                nc.set_auto_mask(False)
                raw = nc["DBZ"][:]
                holes = ~np.isfinite(data[0][rays])
                self.assertTrue(holes.any())
                np.testing.assert_array_equal(raw[holes], -9999.0)
                self.assertEqual(nc["DBZ"].getncattr("_FillValue"), np.float32(-9999.0))
                self.assertEqual(nc["sweep_mode"].dimensions, ("sweep", "string_length"))
                self.assertEqual(nc["time_coverage_start"].dimensions, ("string_length",))
                self.assertEqual(nc["time"].dimensions, ("time",))
                self.assertTrue(nc.dimensions["time"].isunlimited())
            with xarray.open_dataset(path) as ds:
                first = np.datetime64(int(round(time_s[rays][0] * 1e6)), "us")
                self.assertLess(abs(ds["time"].values[0] - first), np.timedelta64(2, "us"))
        self.assertEqual(glob.glob(os.path.join(self.tmp.name, "*.partial")), [])

    def check_layout(self, ds):
        for key, value in (("Conventions", "CF-1.7"), ("version", "CF-Radial-1.4"),
                           ("instrument_name", "TESTRADAR")):
            self.assertEqual(ds.attrs[key], value)
        self.assertTrue(ds.attrs["Sub_conventions"].startswith("CF-Radial"))
        for key in ("title", "institution", "references", "source", "history", "comment"):
            self.assertIn(key, ds.attrs)
        # xarray turns char arrays into strings: string_length is checked with netCDF4.
        for dim in ("time", "range", "sweep"):
            self.assertIn(dim, ds.dims)
        for name, units in REQUIRED_VARIABLES.items():
            self.assertIn(name, ds.variables, name)
            if units is not None:
                self.assertEqual(ds[name].attrs["units"], units, name)
        self.assertEqual(ds["time"].attrs["standard_name"], "time")
        self.assertEqual(ds["range"].attrs["standard_name"], "projection_range_coordinate")
        self.assertEqual(ds["range"].attrs["meters_to_center_of_first_gate"], 250.0)
        self.assertEqual(ds["range"].attrs["meters_between_gates"], 125.0)
        self.assertEqual(ds["azimuth"].attrs["standard_name"], "ray_azimuth_angle")
        self.assertEqual(ds["elevation"].attrs["standard_name"], "ray_elevation_angle")
        self.assertEqual(ds["instrument_type"].values.item().decode(), "radar")
        self.assertEqual(ds["platform_type"].values.item().decode(), "fixed")
        for name in PRODUCTS:
            var = ds[name]
            self.assertEqual(var.dims, ("time", "range"), name)
            self.assertEqual(var.attrs["units"], UNITS[name], name)
            # xarray keeps the coordinates attribute in the encoding.
            self.assertEqual(var.encoding["coordinates"], "elevation azimuth range", name)
            if name in STANDARD_NAMES:
                self.assertEqual(var.attrs["standard_name"], STANDARD_NAMES[name], name)
            else:
                self.assertNotIn("standard_name", var.attrs, name)
                self.assertTrue(var.attrs["long_name"], name)

    def test_write_error_ends_flowgraph(self):
        # Sweep 1's folder is a file: opening its sweep fails inside work(). With its
        # eleven inputs the sink must end the flowgraph (it hung: an exception from a
        # Python block's work() leaves its neighbours waiting, here the sources of
        # more sweeps than their buffers hold), keep sweep 0's file, leave no .partial
        # file and count the rays the error dropped.
        azimuth, elevation, time_s, sweep = scan(nsweeps=40)
        data = fields(self.rng, len(azimuth))
        open(os.path.join(self.tmp.name, "1"), "w").close()
        sink = run_sink(self.tmp.name, data, scan_tags(azimuth, elevation, time_s, sweep),
                        pattern=os.path.join("{sweep}", PATTERN))
        self.assertEqual(len(sink.written), 1, sink.written)
        self.assertEqual(os.path.basename(os.path.dirname(sink.written[0])), "0")
        self.assertEqual(rays_in_files(sink.written), RAYS_PER_SWEEP)
        self.assertEqual(glob.glob(os.path.join(self.tmp.name, "*", "*.partial")), [])
        self.assertEqual(sink.rays_written, RAYS_PER_SWEEP)
        self.assertGreater(sink.rays_rejected["write_error"], 0)
        self.assertEqual(sink.rays_in, sink.rays_written + sum(sink.rays_rejected.values()))

    def test_invalid_ray_time_drops_the_ray_not_the_sweep(self):
        # A NaN time on sweep 0's last ray, 1e300 and rx_time's 2^63 s inside sweep 1:
        # those rays are rejected and counted, both sweeps are written, and the sink goes
        # on (it raised at the sweep's end and lost every later sweep).
        azimuth, elevation, time_s, sweep = scan()
        data = fields(self.rng, len(azimuth))
        bad = {RAYS_PER_SWEEP - 1: float("nan"), RAYS_PER_SWEEP + 3: 1e300,
               RAYS_PER_SWEEP + 7: float(2**63)}
        time_s = time_s.copy()
        for k, value in bad.items():
            time_s[k] = value
        sink = run_sink(self.tmp.name, data, scan_tags(azimuth, elevation, time_s, sweep))
        self.assertEqual(len(sink.written), 2, sink.written)
        self.assertEqual(sink.rays_rejected, {"time_s": 3})
        self.assertEqual(sink.rays_written, 2 * RAYS_PER_SWEEP - 3)
        self.assertEqual(rays_in_files(sink.written), 2 * RAYS_PER_SWEEP - 3)
        keep = np.ones(len(azimuth), bool)
        keep[list(bad)] = False
        with xarray.open_dataset(sink.written[1], decode_times=False) as ds:
            rays = keep & (sweep == 1)
            start = math.floor(time_s[RAYS_PER_SWEEP])
            np.testing.assert_allclose(ds["time"] + start, time_s[rays], atol=1e-6)
            np.testing.assert_array_equal(ds["DBZ"].values,
                                          np.where(np.isfinite(data[0][rays]),
                                                   data[0][rays], np.nan))

    def test_resumed_sweep_never_overwrites(self):
        # One stray sweep index splits sweep 0 within one second: the resumed part
        # (same sweep, same start second: the same file name) must not replace the
        # first part, nor may a file already in the folder be replaced. Every ray that
        # went in is in a file (72 went in, 68 were in files).
        n = 2 * RAYS_PER_SWEEP
        k = np.arange(n)
        azimuth = (k * 5.0) % 360.0
        elevation = np.full(n, 0.5)
        time_s = START_S + 0.01 * k
        sweep = np.zeros(n, np.int64)
        sweep[30] = 5
        data = fields(self.rng, n)
        first = os.path.join(self.tmp.name, PATTERN.format(
            sweep=0, start=datetime.datetime.fromtimestamp(math.floor(START_S),
                                                           tz=datetime.timezone.utc)))
        with open(first, "w") as f:
            f.write("an earlier run's file")
        sink = run_sink(self.tmp.name, data, scan_tags(azimuth, elevation, time_s, sweep))
        with open(first, "rb") as f:
            self.assertEqual(f.read(), b"an earlier run's file")
        self.assertEqual(len(sink.written), 3, sink.written)
        self.assertEqual(len(set(sink.written)), 3)
        self.assertNotIn(first, sink.written)
        self.assertEqual(rays_in_files(sink.written), n)
        self.assertEqual(sink.rays_written, n)
        numbers = []
        for path in sink.written:
            with netCDF4.Dataset(path) as nc:
                numbers.append((int(nc["sweep_number"][0]), nc.dimensions["time"].size))
        self.assertEqual(numbers, [(0, 30), (5, 1), (0, n - 31)])

    def test_bad_tags_reject_the_ray(self):
        # A sweep index beyond CfRadial's int32 sweep_number (2^40 was written as 0), a
        # negative one, a string azimuth, a tuple time and a NaN elevation: each ray is
        # rejected and counted by tag; the sweep keeps the other rays.
        azimuth, elevation, time_s, sweep = scan()
        data = fields(self.rng, len(azimuth))
        tags = scan_tags(azimuth, elevation, time_s, sweep, bad_tag_at=4)
        bad = {10: ("sweep_index", pmt.from_uint64(2**40)),
               11: ("sweep_index", pmt.from_long(-1)),
               12: ("time_s", pmt.make_tuple(pmt.from_uint64(1), pmt.from_double(0.5))),
               13: ("elevation_deg", pmt.from_double(float("nan"))),
               14: ("sweep_index", pmt.from_double(0.5))}
        tags = [t for t in tags if (t.offset, pmt.symbol_to_string(t.key)) not in
                {(k, key) for k, (key, _) in bad.items()}]
        tags += [gr.tag_utils.python_to_tag((k, pmt.intern(key), value, pmt.intern("qa")))
                 for k, (key, value) in bad.items()]
        sink = run_sink(self.tmp.name, data, tags)
        self.assertEqual(sink.rays_rejected, {"sweep_index": 3, "azimuth_deg": 1,
                                              "time_s": 1, "elevation_deg": 1})
        self.assertEqual(len(sink.written), 2, sink.written)
        self.assertEqual(rays_in_files(sink.written), 2 * RAYS_PER_SWEEP - 6)
        with netCDF4.Dataset(sink.written[0]) as nc:
            self.assertEqual(int(nc["sweep_number"][0]), 0)
            self.assertEqual(nc.dimensions["time"].size, RAYS_PER_SWEEP - 6)

    def test_sweep_file_aborts_on_exception(self):
        path = os.path.join(self.tmp.name, "sweep.nc")
        sink = cudadsp.cfradial_sink(path, NGATES, 250.0, 125.0, ("DBZ",), **SITE)
        with self.assertRaises(ValueError):
            with cfradial_sweep_file(path, 0, START_S, sink._site) as f:
                f.append([10.0], [0.5], [START_S], [np.ones((1, NGATES))])
                self.assertTrue(os.path.exists(path + ".partial"))
                f.append([11.0], [0.5], [START_S + 1], [np.ones((1, NGATES + 1))])
        self.assertEqual(os.listdir(self.tmp.name), [])

    def test_missing_tags_hold_latest(self):
        azimuth, elevation, time_s, sweep = scan()
        n = 6
        tags = [t for t in scan_tags(azimuth[:n], elevation[:n], time_s[:n], sweep[:n])
                if t.offset != 3 or pmt.symbol_to_string(t.key) != "azimuth_deg"]
        data = [d[:n] for d in fields(self.rng, n)]
        sink = run_sink(self.tmp.name, data, tags)
        with xarray.open_dataset(sink.written[0]) as ds:
            expected = azimuth[:n].copy()
            expected[3] = azimuth[2]
            np.testing.assert_allclose(ds["azimuth"], expected, atol=1e-4)

    def test_written_history_is_bounded(self):
        # A radar runs for months: the sink keeps the paths of the latest sweeps only
        # (it kept every one: 2.4 MiB an hour in the hour's soak of 16,505 sweeps) and
        # counts them all.
        class quiet_log:
            def __getattr__(self, level):
                return lambda text: None

        site = cudadsp.cfradial_sink(os.path.join(self.tmp.name, "x_{sweep}.nc"),
                                     NGATES, products=("DBZ",))._site
        writer = cfradial_writer(os.path.join(self.tmp.name, "s{sweep:02d}.nc"), site,
                                 quiet_log(), history=3)
        for sweep in range(5):
            tags = [{"sweep_index": pmt.from_long(sweep),
                     "time_s": pmt.from_double(START_S + 10.0 * sweep + ray)}
                    for ray in range(2)]
            writer.add_rays(2 * sweep, tags, [np.full((2, NGATES), sweep, np.float32)])
        self.assertTrue(writer.finish())
        self.assertEqual(writer.sweeps_written, 5)
        self.assertEqual(writer.rays_written, 10)
        self.assertEqual([os.path.basename(p) for p in writer.written],
                         ["s02.nc", "s03.nc", "s04.nc"])
        self.assertEqual(len(os.listdir(self.tmp.name)), 5)
        self.assertGreaterEqual(WRITTEN_HISTORY, 100)

        azimuth, elevation, time_s, sweep = scan()
        sink = run_sink(self.tmp.name, fields(self.rng, len(azimuth)),
                        scan_tags(azimuth, elevation, time_s, sweep))
        self.assertEqual(sink.sweeps_written, len(ELEVATIONS))
        self.assertIsInstance(sink.written, list)

    def test_default_products_are_the_polarimetric_outputs(self):
        # The signature spells the default out (for the GRC defaults test): it must stay
        # the nine outputs of polarimetric_products_cf, one input each.
        sink = cudadsp.cfradial_sink(os.path.join(self.tmp.name, "x_{sweep}.nc"))
        self.assertEqual(sink._site["products"], POLARIMETRIC_PRODUCTS)
        self.assertEqual(len(POLARIMETRIC_PRODUCTS), 9)

    def test_bad_parameters(self):
        good = dict(path_pattern="x_{sweep}.nc", ngates=NGATES, first_gate_m=0.0,
                    gate_spacing_m=100.0, products=("DBZ",))
        for change in (dict(path_pattern=""), dict(path_pattern="x_{volume}.nc"),
                       dict(ngates=0), dict(ngates=2.5), dict(first_gate_m=-1.0),
                       dict(gate_spacing_m=0.0), dict(products=()),
                       dict(products=("DBZ", "DBZ")), dict(products=("REF",)),
                       dict(products="DBZ"), dict(latitude_deg=91.0),
                       dict(longitude_deg=float("nan")), dict(frequency_hz=0.0),
                       dict(prt_s=-1e-3), dict(nyquist_velocity_mps=0.0),
                       dict(pulses_per_radial=0), dict(beamwidth_deg=0.0),
                       dict(sweep_mode="ppi"), dict(polarization_mode="dual"),
                       dict(instrument_name=""), dict(volume_number=-1)):
            name = next(iter(change))
            with self.assertRaisesRegex(ValueError, "^" + name, msg=str(change)):
                cudadsp.cfradial_sink(**dict(good, **change))


if __name__ == "__main__":
    gr_unittest.run(qa_cfradial_sink)
