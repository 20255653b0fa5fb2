#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of cudadsp.dense_offsets and dense_offsets_engine (CPU backend).

Two independent references: the known truth of synthetic pairs (speckle band-limited
to half the band, shifted by a Fourier phase ramp, so the secondary is exactly the
reference moved by a sub-pixel offset), and the float64 NumPy oracle
dense_offsets_reference.py, written from docs/design/pycuampcor_dense_offsets.md without
the engines' code. Tolerances (the design note's section 8): offsets within one fine
step 1/(corr_oversampling raw_oversampling) of the oracle; SNR, covariance and peak
within a relative 1e-3 of it (where the covariance is not the 99 sentinel); offsets
within 0.04 pixel of the truth (the oracle itself is within 0.025 on these pairs).
"""

import tempfile
import tracemalloc
import unittest

import numpy as np

import cudadsp
from cudadsp.common import data_files
from cudadsp.insar import raster_io
from cudadsp.insar.dense_offsets_reference import dense_offsets_reference

FIELDS = ("offset_down", "offset_across", "snr", "cov_down", "cov_across", "cov_cross",
          "peak", "gross_down", "gross_across")

# A small configuration: 4 x 5 windows of 32 x 32 on a 200 x 232 pair.
SMALL = dict(window_width=32, window_height=32, half_search_across=8, half_search_down=8,
             skip_across=32, skip_down=32)

ISCE_PAIR = ("insar/img1_WN_512x512_1x1_128.vrt", "insar/img2_WN_512x512_1x1_128.vrt")
# The comparison with PyCuAmpcor: window 64 across x 32 down, half search 20,
# skip 32, raw oversampling 2, correlation oversampling 64, zoom 8.
ISCE_CONFIGURATION = dict(window_width=64, window_height=32, half_search_across=20,
                          half_search_down=20, skip_across=32, skip_down=32,
                          raw_oversampling=2, corr_oversampling=64, zoom_window=8)


def shifted_pair(shape, shift, seed, band=0.5):
    """Complex speckle band-limited to band of the spectrum on each axis, and the same
    moved by shift (down, across) pixels: secondary(r + d, c + a) = reference(r, c)."""
    rng = np.random.default_rng(seed)
    noise = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    fd = np.fft.fftfreq(shape[0])[:, None]
    fa = np.fft.fftfreq(shape[1])[None, :]
    spectrum = np.fft.fft2(noise) * ((np.abs(fd) < band / 2) & (np.abs(fa) < band / 2))
    ramp = np.exp(-2j * np.pi * (fd * shift[0] + fa * shift[1]))
    return (np.fft.ifft2(spectrum).astype(np.complex64),
            np.fft.ifft2(spectrum * ramp).astype(np.complex64))


def byte_swapped(image):
    """The same values in the other byte order (ndarray.newbyteorder is gone in NumPy 2)."""
    return image.byteswap().view(image.dtype.newbyteorder())


class qa_dense_offsets_api(unittest.TestCase):

    def assert_matches_oracle(self, result, oracle, fine_step):
        for name in ("gross_down", "gross_across"):
            np.testing.assert_array_equal(getattr(result, name), getattr(oracle, name),
                                          err_msg=name)
        for name in FIELDS:
            self.assertEqual(getattr(result, name).dtype, np.float32, name)
            self.assertEqual(getattr(result, name).shape, oracle.offset_down.shape, name)
        for name in ("offset_down", "offset_across"):
            np.testing.assert_allclose(getattr(result, name), getattr(oracle, name),
                                       rtol=0, atol=fine_step * 1.0001, err_msg=name)
        estimable = oracle.cov_down != 99.0
        self.assertGreater(estimable.sum(), 0, "every covariance is the sentinel")
        np.testing.assert_array_equal(result.cov_down[~estimable], 99.0)
        for name in ("snr", "peak", "cov_down", "cov_across", "cov_cross"):
            np.testing.assert_allclose(getattr(result, name)[estimable],
                                       getattr(oracle, name)[estimable], rtol=1e-3,
                                       atol=1e-3 * np.abs(getattr(oracle, name)).max(),
                                       err_msg=name)

    def test_known_shift_and_oracle(self):
        shift = (1.3, -2.6)
        reference, secondary = shifted_pair((200, 232), shift, seed=7)
        for deramp in (0, 1, 2):
            with self.subTest(deramp=deramp):
                result = cudadsp.dense_offsets(reference, secondary, **SMALL,
                                               deramp=deramp, device="cpu")
                self.assertEqual(result.grid.shape, (4, 5))
                self.assertEqual(result.report["backend"], "cpu")
                self.assertEqual(result.report["invalid_windows"], 0)
                np.testing.assert_allclose(result.offset_down, shift[0], atol=0.04)
                np.testing.assert_allclose(result.offset_across, shift[1], atol=0.04)
                oracle = dense_offsets_reference(reference, secondary, **SMALL,
                                                 deramp=deramp)
                self.assert_matches_oracle(result, oracle, 1 / 32)

    def test_isce2_conventions_and_oracle(self):
        # ISCE2 2.6's deramp axes and PyCuAmpcor v2's raw-surface peak, through the API,
        # against the oracle with the same options; the report names them.
        reference, secondary = shifted_pair((200, 232), (1.3, -2.6), seed=7)
        options = dict(deramp=1, deramp_pairing="isce2", peak="raw")
        sizes = {name: value for name, value in SMALL.items() if not name.startswith("skip")}
        engine = cudadsp.dense_offsets_engine(**sizes, **options, device="cpu")
        self.assertEqual(engine.configuration()["deramp_pairing"], "isce2")
        self.assertEqual(engine.configuration()["peak"], "raw")
        result = cudadsp.dense_offsets(reference, secondary, **SMALL, **options,
                                       device="cpu", engine=engine)
        oracle = dense_offsets_reference(reference, secondary, **SMALL, **options)
        self.assert_matches_oracle(result, oracle, 1 / 32)

    def test_deramp_axis_and_oracle(self):
        # ISCE3's derampAxis through the API, against the oracle with the same option,
        # on a pair with a phase ramp of 0.9 rad/pixel down and -2.2 across: a ramp kept
        # across moves the half-band spectrum over the Nyquist edge, so that only the
        # deramps that remove the phase measured across recover the shift.
        reference, secondary = shifted_pair((200, 232), (1.3, -2.6), seed=7)
        rows, cols = np.indices(reference.shape)
        ramp = np.exp(1j * (0.9 * rows - 2.2 * cols)).astype(np.complex64)
        reference, secondary = reference * ramp, secondary * ramp
        sizes = {name: value for name, value in SMALL.items() if not name.startswith("skip")}
        errors = {}
        for axis in ("down", "across", "both"):
            with self.subTest(deramp_axis=axis):
                engine = cudadsp.dense_offsets_engine(**sizes, deramp=1, deramp_axis=axis,
                                                      device="cpu")
                self.assertEqual(engine.configuration()["deramp_axis"], axis)
                result = cudadsp.dense_offsets(reference, secondary, **SMALL, deramp=1,
                                               deramp_axis=axis, device="cpu",
                                               engine=engine)
                oracle = dense_offsets_reference(reference, secondary, **SMALL, deramp=1,
                                                 deramp_axis=axis)
                self.assert_matches_oracle(result, oracle, 1 / 32)
                errors[axis] = np.max(np.abs(result.offset_across + 2.6))
        self.assertLess(errors["both"], 0.05)
        self.assertLess(errors["across"], 0.05)
        self.assertGreater(errors["down"], 0.2)

    def test_grid_follows_cudenseoffsets(self):
        reference, secondary = shifted_pair((200, 232), (0.5, 0.25), seed=1)
        grid = cudadsp.dense_offsets(reference, secondary, **SMALL, device="cpu").grid
        # start = margin + half search; number = (size - 2 margin - 2 half - window) // skip
        self.assertEqual((grid.start_down, grid.start_across), (8, 8))
        self.assertEqual(grid.shape, ((200 - 16 - 32) // 32, (232 - 16 - 32) // 32))
        np.testing.assert_array_equal(grid.reference_across, 8 + 32 * np.arange(5))
        np.testing.assert_array_equal(grid.centre_down, 8 + 16 + 32 * np.arange(4))
        # A constant gross offset is the script's margin.
        gross = cudadsp.dense_offsets(reference, secondary, **SMALL, device="cpu",
                                      gross_offset_down=3, gross_offset_across=-2).grid
        self.assertEqual((gross.start_down, gross.start_across), (11, 11))
        self.assertEqual(gross.shape, ((200 - 22 - 16 - 32) // 32,
                                       (232 - 22 - 16 - 32) // 32))

    def test_gross_offsets_constant_and_per_window(self):
        shift = (6.2, -5.4)
        reference, secondary = shifted_pair((220, 240), shift, seed=3)
        layout = dict(SMALL, start_down=20, start_across=20, number_down=4,
                      number_across=5)
        rng = np.random.default_rng(11)
        per_window = (6 + rng.integers(-2, 3, (4, 5)), -5 + rng.integers(-2, 3, (4, 5)))
        for gross, merge in (((6, -5), False), ((6, -5), True), (per_window, True),
                             (per_window, False)):
            with self.subTest(gross=np.ndim(gross[0]), merge=merge):
                result = cudadsp.dense_offsets(
                    reference, secondary, **layout, gross_offset_down=gross[0],
                    gross_offset_across=gross[1], merge_gross_offset=merge, device="cpu")
                oracle = dense_offsets_reference(
                    reference, secondary, **layout, gross_offset_down=gross[0],
                    gross_offset_across=gross[1], merge_gross_offset=merge)
                self.assert_matches_oracle(result, oracle, 1 / 32)
                total_down = result.offset_down + (0 if merge else result.gross_down)
                total_across = result.offset_across + (0 if merge else result.gross_across)
                np.testing.assert_allclose(total_down, shift[0], atol=0.04)
                np.testing.assert_allclose(total_across, shift[1], atol=0.04)
                self.assertEqual(result.report["merge_gross_offset"], merge)

    def test_cint16_equals_complex64_of_the_same_values(self):
        reference, secondary = shifted_pair((200, 232), (-1.7, 0.6), seed=5)
        pairs = []
        for image in (reference, secondary):
            iq = np.empty(image.shape + (2,), np.int16)
            iq[..., 0] = np.rint(image.real * 3000)
            iq[..., 1] = np.rint(image.imag * 3000)
            pairs.append(iq)
        as_int = cudadsp.dense_offsets(*pairs, **SMALL, device="cpu")
        as_float = cudadsp.dense_offsets(
            *[(p[..., 0] + 1j * p[..., 1]).astype(np.complex64) for p in pairs], **SMALL,
            device="cpu")
        for name in FIELDS:
            np.testing.assert_array_equal(getattr(as_int, name), getattr(as_float, name),
                                          err_msg=name)
        np.testing.assert_allclose(as_int.offset_down, -1.7, atol=0.04)

    def test_strided_and_mapped_images_equal_contiguous(self):
        reference, secondary = shifted_pair((200, 232), (0.8, 1.9), seed=9)
        expected = cudadsp.dense_offsets(reference, secondary, **SMALL, device="cpu")
        wide = np.zeros((200, 464), np.complex64)
        wide[:, ::2] = reference
        strided = cudadsp.dense_offsets(wide[:, ::2], byte_swapped(secondary),
                                        **SMALL, device="cpu")
        with tempfile.TemporaryDirectory() as folder:
            raster_io.write_raster(f"{folder}/r.slc", reference)
            raster_io.write_raster(f"{folder}/s.slc", secondary)
            mapped_reference, _ = raster_io.read_slc(f"{folder}/r.slc")
            mapped_secondary, _ = raster_io.read_slc(f"{folder}/s.slc")
            self.assertIsInstance(mapped_reference, raster_io.raw_band)
            mapped = cudadsp.dense_offsets(mapped_reference, mapped_secondary, **SMALL,
                                           device="cpu")
        for name in FIELDS:
            for other in (strided, mapped):
                np.testing.assert_array_equal(getattr(other, name),
                                              getattr(expected, name), err_msg=name)

    def test_windows_read_alone_equal_whole_images(self):
        # A sparse grid, gross offsets varying by window and merged: the images cut to
        # the windows' pixels (a byte-swapped array, a big-endian raster) give the
        # results of the whole native images, bit for bit.
        reference, secondary = shifted_pair((260, 300), (1.2, -0.6), seed=13)
        gross_down = np.array([[0, 1, -2], [3, 0, -1], [2, -3, 0]])
        arguments = dict(window_width=32, window_height=24, half_search_across=8,
                         half_search_down=6, skip_across=96, skip_down=80,
                         start_across=20, start_down=15, number_across=3, number_down=3,
                         gross_offset_down=gross_down, gross_offset_across=-gross_down.T,
                         merge_gross_offset=True, device="cpu")
        expected = cudadsp.dense_offsets(reference, secondary, **arguments)
        swapped = [byte_swapped(image) for image in (reference, secondary)]
        results = {"byte-swapped arrays": cudadsp.dense_offsets(*swapped, **arguments)}
        with tempfile.TemporaryDirectory() as folder:
            rasters = []
            for name, image in zip(("reference", "secondary"), swapped):
                image.tofile(f"{folder}/{name}.slc")
                with open(f"{folder}/{name}.slc.hdr", "w") as f:
                    f.write("ENVI\nsamples = 300\nlines = 260\nbands = 1\n"
                            "data type = 6\ninterleave = bsq\nbyte order = 1\n")
                rasters.append(raster_io.read_slc(f"{folder}/{name}.slc")[0])
            results["big-endian rasters"] = cudadsp.dense_offsets(*rasters, **arguments)
        np.testing.assert_allclose(expected.offset_down, 1.2, atol=0.04)
        for label, result in results.items():
            for name in FIELDS:
                np.testing.assert_array_equal(getattr(result, name),
                                              getattr(expected, name),
                                              err_msg=f"{label}: {name}")

    def test_big_endian_raster_read_only_where_the_windows_are(self):
        # A 6000 x 6000 big-endian complex64 pair (288 MB a file, sparse: only the
        # four windows' surroundings written) and a 2 x 2 grid: the run reads and
        # converts the pixels of those windows, not the images (it converted both
        # whole: 576 MB).
        side, window, half, skip, start, patch = 6000, 32, 8, 4000, 48, 128
        shift = (0.8, 1.9)
        with tempfile.TemporaryDirectory() as folder:
            paths = [f"{folder}/{name}.slc" for name in ("reference", "secondary")]
            for path in paths:
                with open(path, "wb") as f:
                    f.truncate(side * side * 8)
                with open(path + ".hdr", "w") as f:
                    f.write(f"ENVI\nsamples = {side}\nlines = {side}\nbands = 1\n"
                            "data type = 6\ninterleave = bsq\nbyte order = 1\n")
            for seed, (down, across) in enumerate(((0, 0), (0, skip), (skip, 0),
                                                   (skip, skip))):
                for path, image in zip(paths, shifted_pair((patch, patch), shift, seed)):
                    with open(path, "r+b") as f:
                        for row in range(patch):
                            f.seek(((down + row) * side + across) * 8)
                            f.write(image[row].astype(">c8").tobytes())
            images = [raster_io.read_slc(path)[0] for path in paths]
            tracemalloc.start()
            try:
                result = cudadsp.dense_offsets(
                    *images, window_width=window, window_height=window,
                    half_search_across=half, half_search_down=half, skip_across=skip,
                    skip_down=skip, start_across=start, start_down=start,
                    number_across=2, number_down=2, device="cpu")
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
        self.assertLess(peak, 16 << 20, f"{peak / 2**20:.1f} MiB allocated at the peak")
        np.testing.assert_allclose(result.offset_down, shift[0], atol=0.04)
        np.testing.assert_allclose(result.offset_across, shift[1], atol=0.04)

    def test_engine_reused_across_pairs(self):
        engine = cudadsp.dense_offsets_engine(**{k: v for k, v in SMALL.items()
                                                 if not k.startswith("skip")},
                                              device="cpu")
        for seed, shift in ((21, (0.4, -0.7)), (22, (-2.2, 1.1)), (23, (3.0, 0.0))):
            reference, secondary = shifted_pair((200, 232), shift, seed)
            calls = []
            reused = engine.estimate(reference, secondary, skip_down=32, skip_across=32,
                                     progress=lambda done, total: calls.append((done,
                                                                                total)))
            fresh = cudadsp.dense_offsets(reference, secondary, **SMALL, device="cpu")
            for name in FIELDS:
                np.testing.assert_array_equal(getattr(reused, name), getattr(fresh, name),
                                              err_msg=name)
            np.testing.assert_allclose(reused.offset_down, shift[0], atol=0.04)
            # Increasing counts of the 20 windows, the last one all of them.
            self.assertEqual(calls[-1], (20, 20))
            done = [c[0] for c in calls]
            self.assertEqual(done, sorted(set(done)))
        with self.assertRaisesRegex(ValueError, "window_width"):
            cudadsp.dense_offsets(reference, secondary, window_width=48, engine=engine,
                                  device="cpu")

    def test_progress_exception_is_raised(self):
        reference, secondary = shifted_pair((200, 232), (0.0, 0.0), seed=2)

        def stop(done, total):
            raise KeyError("stop here")

        with self.assertRaisesRegex(KeyError, "stop here"):
            cudadsp.dense_offsets(reference, secondary, **SMALL, device="cpu",
                                  progress=stop)

    def test_isce_pair_against_oracle(self):
        paths = [data_files.require(self, p) for p in ISCE_PAIR]
        reference, _ = raster_io.read_slc(str(paths[0]), "reference")
        secondary, _ = raster_io.read_slc(str(paths[1]), "secondary")
        # A 256 x 256 crop: 5 x 4 windows of the configuration.
        reference = np.array(reference[128:384, 64:320])
        secondary = np.array(secondary[128:384, 64:320])
        for deramp in (0, 1):
            with self.subTest(deramp=deramp):
                result = cudadsp.dense_offsets(reference, secondary, **ISCE_CONFIGURATION,
                                               deramp=deramp, device="cpu")
                oracle = dense_offsets_reference(reference, secondary,
                                                 **ISCE_CONFIGURATION, deramp=deramp)
                self.assertEqual(result.grid.shape, (5, 4))
                self.assert_matches_oracle(result, oracle, 1 / 128)

    def test_bad_input_is_named(self):
        reference, secondary = shifted_pair((200, 232), (0.0, 0.0), seed=4)
        cases = [
            (dict(start_down=150), "number_down"),
            (dict(start_across=210, number_across=1), "number_across: 1 windows do not "
                                                       "fit across"),
            (dict(number_down=7), "number_down: 7 windows do not fit down"),
            # Refused before the grid's arrays (80 GB) are made, and before pybind11
            # meets an integer no C int holds.
            (dict(number_across=10**10), "number_across: 10000000000 windows do not fit"),
            (dict(window_width=10**20), "window_width: 100000000000000000000 is too large"),
            (dict(skip_down=10**20), "skip_down: 100000000000000000000 is too large"),
            # One rule for every gross offset: 1e30 is refused as 3e9 is, not wrapped.
            (dict(gross_offset_down=1e30), "gross_offset_down: 1e\\+30 pixels is beyond"),
            (dict(gross_offset_across=np.full((4, 5), -1e30)), "gross_offset_across: "
                                                               "-1e\\+30 pixels is beyond"),
            (dict(gross_offset_down=np.full((4, 5), 3e9)), "gross_offset_down: "
                                                           "3000000000.0 pixels is beyond"),
            (dict(gross_offset_down=float("nan")), "gross_offset_down: must be whole"),
            (dict(gross_offset_across=np.full((4, 5), 60)), "window \\(0, 4\\): "
                                                            "secondary pixels across"),
            (dict(gross_offset_down=np.zeros((3, 5), int)), "gross_offset_down: shape"),
            (dict(gross_offset_down=0.5), "gross_offset_down: must be whole"),
            (dict(deramp=3), "deramp"),
            (dict(deramp_pairing="isce"), "deramp_pairing"),
            (dict(deramp_axis="azimuth"), "deramp_axis"),
            (dict(peak="fine"), "peak"),
            (dict(window_width=1), "window_width"),
            (dict(skip_down=0), "skip_down"),
        ]
        for arguments, named in cases:
            with self.subTest(arguments=list(arguments)):
                with self.assertRaisesRegex(ValueError, named):
                    cudadsp.dense_offsets(reference, secondary,
                                          **dict(SMALL, **arguments), device="cpu")
        with self.assertRaisesRegex(ValueError, "one size"):
            cudadsp.dense_offsets(reference, secondary[:190], **SMALL, device="cpu")
        with self.assertRaisesRegex(ValueError, "one size and sample type"):
            iq = np.zeros(secondary.shape + (2,), np.int16)
            cudadsp.dense_offsets(reference, iq, **SMALL, device="cpu")
        with self.assertRaisesRegex(TypeError, "secondary"):
            cudadsp.dense_offsets(reference, np.abs(secondary), **SMALL, device="cpu")


if __name__ == "__main__":
    data_files.run_tests()
