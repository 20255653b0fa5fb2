#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The engines' package where GNU Radio cannot be imported.

ctest runs this file with tests/support/without_gnuradio first on PYTHONPATH, which
refuses `import gnuradio` and `import pmt`; the first case fails if that is not in
force, so a pass cannot come from an interpreter that has GNU Radio. The other cases
use the package as an InSAR or GNSS user would and check the results against known
truth: an analytic phase field unwrapped by both methods, a shift found by dense
offsets, GPS codes against the ICD's first chips, the devices, and cudadsp_unwrap run
as a program in the same interpreter. The tools' own tests (tests/apps) run in it too.
"""

import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import cudadsp
from cudadsp.common import data_files
from cudadsp.common.testing import backends
from cudadsp.insar import raster_io

REPOSITORY = pathlib.Path(__file__).resolve().parents[3]
UNWRAP_TOOL = REPOSITORY / "apps" / "cudadsp_unwrap"



def hill_and_ramp(height, width):
    """A float64 phase field of about 40 radians of relief: a Gaussian hill on a ramp."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    return 40.0 * np.exp(-((x - width / 2) ** 2 + (y - height / 2) ** 2) / (width * 6.0)) \
        + 0.05 * x - 0.03 * y


class qa_without_gnuradio(unittest.TestCase):

    def test_gnuradio_cannot_be_imported(self):
        self.assertEqual(os.environ.get("CUDADSP_WITHOUT_GNURADIO"), "1",
                         "run without tests/support/without_gnuradio on PYTHONPATH")
        with self.assertRaises(ImportError):
            import gnuradio  # noqa: F401
        with self.assertRaises(ImportError):
            import pmt  # noqa: F401

    def test_package_loads_nothing_of_gnuradio(self):
        import cudadsp.gnss.acquisition  # noqa: F401
        import cudadsp.gnss.receiver  # noqa: F401
        import cudadsp.gnss.receiver_cases  # noqa: F401
        import cudadsp.insar.offset_stack  # noqa: F401
        import cudadsp.insar.stack_dask  # noqa: F401
        import cudadsp.radar.kdp_radials  # noqa: F401
        import cudadsp.radar.moments  # noqa: F401
        import cudadsp.radar.weather_echo  # noqa: F401
        import cudadsp.signals.cross_correlation  # noqa: F401
        import cudadsp.signals.unwrap_1d  # noqa: F401
        import cudadsp.tbd.track_before_detect  # noqa: F401
        loaded = [name for name in sys.modules if name.split(".")[0] in ("gnuradio", "pmt")]
        self.assertEqual(loaded, [])

    def test_unwrap_phase_2d_recovers_the_truth(self):
        truth = hill_and_ramp(96, 128)
        wrapped = np.angle(np.exp(1j * truth)).astype(np.float32)
        for device, method in ((d, m) for d in backends(self)
                               for m in ("reliability", "least_squares")):
            with self.subTest(device=device, method=method):
                result = cudadsp.unwrap_phase_2d(wrapped, method=method, device=device)
                self.assertTrue(np.isfinite(result.unwrapped).all())
                step = result.unwrapped.astype(np.float64) - truth
                cycles = np.round(step / (2 * np.pi))
                # One whole number of cycles everywhere, and within float32 of it.
                self.assertEqual(np.unique(cycles).size, 1, method)
                self.assertLess(np.abs(step - 2 * np.pi * cycles).max(), 1e-4, method)
                self.assertEqual(result.report["backend"], cudadsp.select_device(device))
                self.assertEqual(result.report["valid_pixels"], truth.size)

    def test_dense_offsets_find_a_known_shift(self):
        rng = np.random.default_rng(5)
        shape, shift = (160, 192), (1.25, -2.5)
        noise = rng.normal(size=shape) + 1j * rng.normal(size=shape)
        fd = np.fft.fftfreq(shape[0])[:, None]
        fa = np.fft.fftfreq(shape[1])[None, :]
        spectrum = np.fft.fft2(noise) * ((np.abs(fd) < 0.25) & (np.abs(fa) < 0.25))
        ramp = np.exp(-2j * np.pi * (fd * shift[0] + fa * shift[1]))
        reference = np.fft.ifft2(spectrum).astype(np.complex64)
        secondary = np.fft.ifft2(spectrum * ramp).astype(np.complex64)
        for device in backends(self):
            with self.subTest(device=device):
                result = cudadsp.dense_offsets(
                    reference, secondary, window_width=32, window_height=32,
                    half_search_across=8, half_search_down=8, skip_across=32,
                    skip_down=32, device=device)
                self.assertGreater(result.offset_down.size, 4)
                np.testing.assert_allclose(result.offset_down, shift[0], atol=0.05)
                np.testing.assert_allclose(result.offset_across, shift[1], atol=0.05)

    def test_gps_codes_start_as_the_icd_says(self):
        # IS-GPS-200, Table 3-Ia: the first ten chips of PRN 1 are octal 1440, of
        # PRN 2 octal 1620 (logic 1 is chip -1).
        for prn, octal in ((1, "1440"), (2, "1620")):
            bits = format(int(octal, 8), "010b")
            expected = [1 - 2 * int(b) for b in bits]
            code = cudadsp.gps_l1ca_code(prn)
            self.assertEqual(len(code), cudadsp.gps_l1ca_code_length)
            self.assertEqual(list(code[:10]), expected, f"PRN {prn}")
        with self.assertRaisesRegex(ValueError, "prn"):
            cudadsp.gps_l1ca_code(33)

    def test_devices(self):
        self.assertEqual(cudadsp.select_device("cpu"), "cpu")
        count = cudadsp.cuda_device_count()
        self.assertEqual(len(cudadsp.list_cuda_devices()), count)
        self.assertEqual(cudadsp.available_devices(),
                         ["cpu"] + ["cuda:%d" % n for n in range(count)])
        if count == 0:
            self.assertNotEqual(cudadsp.cuda_unavailable_reason(), "")
            with self.assertRaises(RuntimeError):
                cudadsp.select_device("cuda")
        else:
            self.assertEqual(cudadsp.select_device("cuda"), "cuda:0")
        with self.assertRaisesRegex(ValueError, "device"):
            cudadsp.select_device("gpu")

    def test_unwrap_tool_runs(self):
        for device in backends(self):
            with self.subTest(device=device):
                self.check_unwrap_tool(device)

    def check_unwrap_tool(self, device):
        truth = hill_and_ramp(64, 80)
        with tempfile.TemporaryDirectory() as folder:
            source = os.path.join(folder, "phase.flt")
            raster_io.write_raster(source, np.angle(np.exp(1j * truth)).astype(np.float32))
            completed = subprocess.run(
                [sys.executable, str(UNWRAP_TOOL), source, "--device", device,
                 "-o", os.path.join(folder, "out")],
                capture_output=True, text=True, timeout=120)
            self.assertEqual(completed.returncode, 0, completed.stderr)
            self.assertNotIn("Traceback", completed.stderr)
            unwrapped = np.fromfile(os.path.join(folder, "out.unw"), dtype=np.float32)
        step = unwrapped.reshape(truth.shape).astype(np.float64) - truth
        cycles = np.round(step / (2 * np.pi))
        self.assertEqual(np.unique(cycles).size, 1)
        self.assertLess(np.abs(step - 2 * np.pi * cycles).max(), 1e-4)


if __name__ == "__main__":
    data_files.run_tests()
