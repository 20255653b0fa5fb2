#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Block tests of cudadsp.patch_xcorr_cc from Python, inside flowgraphs.

The oracles are the block's documented definition (docs/blocks/patch_xcorr_cc.md),
written out here: the patch grid (GMTSAR's columns, strips every line_step lines), the
strips a stream of a given length completes, and physical truth: an image pair whose
aligned content is the master's moved by a known whole number of lines and samples
must give exactly that offset (aligned minus master position) without the
high-resolution step. The bit-for-bit comparison with the engine, lost and duplicated
records, latency and the CUDA backend are in
tests/flowgraph/qa_patch_xcorr_cc_flowgraph.cc.

Every flowgraph test runs on device="cpu"; the *_cuda class repeats them on "cuda"
when a CUDA device is present and is skipped otherwise.
"""

import os
import sys
import time
import unittest

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import cudadsp
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
    from gnuradio import cudadsp


# --------------------------------------------------------------------------------------
# The documented grid
# --------------------------------------------------------------------------------------
def columns(width, nx, xsearch):
    """GMTSAR's patch centre columns: 4 xsearch + i x_inc, i = 2 .. nx+1."""
    x_inc = (width - 6 * xsearch) // (nx + 3)
    return [4 * xsearch + i * x_inc for i in range(2, nx + 2)]


def first_strip_line(first_line, ysearch, ashift):
    """first_line, or npy/2 + max(0, -ashift) when it is negative."""
    return first_line if first_line >= 0 else 2 * ysearch + max(0, -ashift)


def complete_strips(lines, first_line, line_step, ysearch, ashift):
    """Strips whose master and aligned windows lie within the first `lines` lines."""
    y0 = first_strip_line(first_line, ysearch, ashift)
    last_needed = max(0, ashift) + 2 * ysearch  # one past the last line, from the centre
    if y0 + last_needed > lines:
        return 0
    return (lines - last_needed - y0) // line_step + 1


# --------------------------------------------------------------------------------------
# Synthetic images
# --------------------------------------------------------------------------------------
def speckle_pair(width, height, dy, dx, seed, scale=300.0):
    """Band-limited complex speckle (|f| < 0.4 on both axes), integer I and Q about
    `scale` RMS (int16-like, no zero samples); the aligned content is the master's moved
    by dy lines and dx samples: aligned[r, c] = master[r - dy, c - dx]."""
    rng = np.random.default_rng(seed)
    margin = 64
    rows, cols = height + 2 * margin, width + 2 * margin
    spec = rng.standard_normal((rows, cols)) + 1j * rng.standard_normal((rows, cols))
    fy = np.abs(np.fft.fftfreq(rows))[:, None] < 0.4
    fx = np.abs(np.fft.fftfreq(cols))[None, :] < 0.4
    field = np.fft.ifft2(spec * (fy & fx))
    field *= scale / np.sqrt(np.mean(field.real ** 2 + field.imag ** 2) / 2)
    field = np.round(field.real) + 1j * np.round(field.imag)
    field[field == 0] = 1.0
    master = field[margin:margin + height, margin:margin + width]
    aligned = field[margin - dy:margin - dy + height, margin - dx:margin - dx + width]
    return master.astype(np.complex64), aligned.astype(np.complex64)


def run_block(master, aligned, lines=None, whole_buffer=False, **kwargs):
    """Records (n x 5 float32) and messages of the block fed line by line; with
    whole_buffer, the sources' buffers hold every line at once."""
    height, width = master.shape
    lines = height if lines is None else lines
    blk = cudadsp.patch_xcorr_cc(width, **kwargs)
    tb = gr.top_block()
    src_m = blocks.vector_source_c(master[:lines].ravel().tolist(), False, width)
    src_a = blocks.vector_source_c(aligned[:lines].ravel().tolist(), False, width)
    if whole_buffer:
        src_m.set_min_output_buffer(lines + 1)
        src_a.set_min_output_buffer(lines + 1)
    sink = blocks.vector_sink_f(5)
    msgs = blocks.message_debug()
    tb.connect(src_m, (blk, 0))
    tb.connect(src_a, (blk, 1))
    tb.connect(blk, sink)
    tb.msg_connect((blk, "patches"), (msgs, "store"))
    tb.run()
    records = np.array(sink.data(), dtype=np.float32).reshape(-1, 5)
    # message_debug may still be handling the last messages when run() returns.
    deadline = time.monotonic() + 10
    while msgs.num_messages() < len(records) and time.monotonic() < deadline:
        time.sleep(0.01)
    messages = [msgs.get_message(i) for i in range(msgs.num_messages())]
    return records, messages, blk


def cuda_device_present():
    count = getattr(cudadsp, "cuda_device_count", None)
    if count is not None:
        return count() > 0
    return cudadsp.patch_xcorr_cc(256, nx=4, xsearch=16, ysearch=8,
                                  device="auto").backend().startswith("cuda")


HAVE_CUDA = cuda_device_present()

# Small patches (32 lines x 64 samples) so that the tests run anywhere.
SMALL = dict(nx=4, xsearch=16, ysearch=8)


# --------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------
class qa_patch_xcorr_cc(gr_unittest.TestCase):
    DEVICE = "cpu"

    def test_001_integer_shift_recovered_exactly(self):
        # aligned = master moved by (+3 lines, -5 samples): dx = -5, dy = +3 in every
        # record without the high-resolution step, range interpolation 1 and 2.
        master, aligned = speckle_pair(256, 160, 3, -5, seed=1)
        for ri in (1, 2):
            rec, msgs, blk = run_block(master, aligned, line_step=16, range_interp=ri,
                                       interp=0, device=self.DEVICE, **SMALL)
            what = f"range_interp {ri}"
            n = complete_strips(160, -1, 16, 8, 0)
            self.assertEqual(len(rec), 4 * n, what)
            np.testing.assert_array_equal(rec[:, 1], np.float32(-5), what)
            np.testing.assert_array_equal(rec[:, 3], np.float32(3), what)
            self.assertTrue(np.all(rec[:, 4] > 99.0), what)
            np.testing.assert_array_equal(rec[:, 0], np.tile(columns(256, 4, 16), n))
            np.testing.assert_array_equal(
                rec[:, 2], np.repeat([blk.strip_line(k) for k in range(n)], 4))

    def test_002_shift_compensated_by_rshift_ashift(self):
        # A (+14, -27) offset, beyond the search window: rshift and ashift move the
        # aligned windows onto it; dx and dy include them.
        master, aligned = speckle_pair(256, 200, 14, -27, seed=2)
        for rshift, ashift in ((-27, 14), (-25, 12)):
            rec, _, _ = run_block(master, aligned, line_step=25, interp=0, rshift=rshift,
                                  ashift=ashift, device=self.DEVICE, **SMALL)
            what = f"rshift {rshift} ashift {ashift}"
            self.assertEqual(len(rec), 4 * complete_strips(200, -1, 25, 8, ashift), what)
            np.testing.assert_array_equal(rec[:, 1], np.float32(-27), what)
            np.testing.assert_array_equal(rec[:, 3], np.float32(14), what)

    def test_003_high_resolution_step_near_the_shift(self):
        # With interp 16 the sub-pixel estimate of an integer offset is within 1/4
        # pixel (GMTSAR's masked surface is not symmetric about its peak).
        master, aligned = speckle_pair(256, 160, 3, -5, seed=3)
        rec, _, _ = run_block(master, aligned, line_step=16, device=self.DEVICE, **SMALL)
        self.assertGreater(len(rec), 0)
        self.assertLessEqual(np.max(np.abs(rec[:, 1] + 5)), 0.25)
        self.assertLessEqual(np.max(np.abs(rec[:, 3] - 3)), 0.25)
        # dx on the grid of 1/(range_interp interp), dy of 1/interp.
        np.testing.assert_array_equal(np.round(rec[:, 1] * 32) / 32, rec[:, 1])
        np.testing.assert_array_equal(np.round(rec[:, 3] * 16) / 16, rec[:, 3])

    def test_004_record_count_and_messages(self):
        # Streams of several lengths: exactly the strips whose lines all arrived, one
        # message per record with the record's values and its strip.
        master, aligned = speckle_pair(256, 150, 2, 1, seed=4)
        for ashift in (0, 4, -4):
            for lines in (0, 31, 32, 33, 52, 53, 100, 150):
                rec, msgs, _ = run_block(master, aligned, lines=lines, line_step=10,
                                         ashift=ashift, interp=4, device=self.DEVICE,
                                         **SMALL)
                what = f"ashift {ashift}, {lines} lines"
                n = complete_strips(lines, -1, 10, 8, ashift)
                self.assertEqual(rec.shape, (4 * n, 5), what)
                self.assertEqual(len(msgs), len(rec), what)
                for i, (m, r) in enumerate(zip(msgs, rec)):
                    self.assertTrue(pmt.is_dict(m), what)
                    d = pmt.to_python(m)
                    self.assertEqual(set(d), {"x", "dx", "y", "dy", "corr", "strip"}, what)
                    self.assertEqual(d["strip"], i // 4, what)
                    self.assertEqual(d["x"], r[0], what)
                    self.assertEqual(d["y"], r[2], what)
                    for key, j in (("dx", 1), ("dy", 3), ("corr", 4)):
                        self.assertEqual(np.float32(d[key]), r[j], f"{what}: {key}")

    def test_005_record_count_whole_image_at_once(self):
        # All lines available in one call and many overlapping strips (line_step 2):
        # every complete strip still comes out, once, in order.
        master, aligned = speckle_pair(256, 120, 2, 1, seed=5)
        for lines in (120, 77):
            rec, msgs, blk = run_block(master, aligned, lines=lines, whole_buffer=True,
                                       line_step=2, interp=4, device=self.DEVICE,
                                       **SMALL)
            n = complete_strips(lines, -1, 2, 8, 0)
            self.assertEqual(rec.shape, (4 * n, 5), f"{lines} lines")
            self.assertEqual(len(msgs), len(rec), f"{lines} lines")
            np.testing.assert_array_equal(
                rec[:, 2], np.repeat([blk.strip_line(k) for k in range(n)], 4))

    def test_006_grid_getters(self):
        for width, nx, xsearch, ysearch, first_line, step, ashift in (
                (256, 4, 16, 8, -1, 20, 0), (256, 9, 16, 8, 40, 33, 0),
                (1000, 16, 64, 64, -1, 256, 0), (11304, 20, 128, 128, -1, 100, -7),
                (300, 1, 8, 16, -1, 1, 5), (300, 2, 8, 32, 200, 3, -60)):
            blk = cudadsp.patch_xcorr_cc(width, nx=nx, first_line=first_line,
                                         line_step=step, xsearch=xsearch,
                                         ysearch=ysearch, ashift=ashift,
                                         device=self.DEVICE)
            what = f"width {width} nx {nx} xsearch {xsearch}"
            self.assertEqual([blk.patch_column(i) for i in range(nx)],
                             columns(width, nx, xsearch), what)
            y0 = first_strip_line(first_line, ysearch, ashift)
            for k in (0, 1, 5, 10 ** 6):
                self.assertEqual(blk.strip_line(k), y0 + k * step, what)
            for bad in (-1, nx):
                with self.assertRaises(IndexError, msg=what):
                    blk.patch_column(bad)
        self.assertEqual(cudadsp.patch_xcorr_cc(256, device=self.DEVICE, **SMALL).backend(),
                         "cpu" if self.DEVICE == "cpu" else "cuda:0")
        self.assertEqual(cudadsp.patch_xcorr_cc(256, **SMALL).backend().startswith("cuda"),
                         HAVE_CUDA)

    def test_007_ports(self):
        blk = cudadsp.patch_xcorr_cc(256, device=self.DEVICE, **SMALL)
        self.assertEqual(blk.input_signature().max_streams(), 2)
        self.assertEqual(blk.input_signature().sizeof_stream_item(0), 8 * 256)
        self.assertEqual(blk.output_signature().sizeof_stream_item(0), 4 * 5)
        self.assertIn("patches", [str(p) for p in pmt.to_python(blk.message_ports_out())])


class qa_patch_xcorr_cc_params(gr_unittest.TestCase):

    def expect_value_error(self, name, width=256, **kwargs):
        args = dict(SMALL, device="cpu")
        args.update(kwargs)
        with self.assertRaisesRegex(ValueError, rf"^{name}:", msg=f"{width} {args}"):
            cudadsp.patch_xcorr_cc(width, **args)

    def test_001_bad_parameters_name_themselves(self):
        # Defaults of SMALL: columns 108, 130, 152, 174; windows of 64 samples.
        for width in (0, -1, 96, 102):
            self.expect_value_error("width", width)
        self.expect_value_error("width", 1000, nx=1000)  # x_inc = 904 // 1003 = 0
        for nx in (0, -2):
            self.expect_value_error("nx", nx=nx)
        for step in (0, -1):
            self.expect_value_error("line_step", line_step=step)
        for first_line in (0, 15):
            self.expect_value_error("first_line", first_line=first_line)
        self.expect_value_error("first_line", first_line=20, ashift=-5)
        for rshift in (-77, 51, 10 ** 6):
            self.expect_value_error("rshift", rshift=rshift)
        for xsearch in (0, 4, 24, 2048):
            self.expect_value_error("xsearch", xsearch=xsearch)
        for ysearch in (0, 12):
            self.expect_value_error("ysearch", ysearch=ysearch)
        for ri in (0, 3, 32):
            self.expect_value_error("range_interp", range_interp=ri)
        for interp in (-1, -16, 3, 128):
            self.expect_value_error("interp", interp=interp)
        for device in ("gpu", "cuda:x", "cuda:-1", ""):
            self.expect_value_error("device", device=device)
        # Beyond a C++ int (issue 16 item 8): named, not pybind11's generic TypeError.
        self.expect_value_error("width", 2**31)
        for name in ("nx", "first_line", "line_step", "xsearch", "ysearch", "range_interp",
                     "interp", "rshift", "ashift"):
            self.expect_value_error(name, **{name: 2**31})
            self.expect_value_error(name, **{name: -2**31 - 1})

    def test_002_good_extremes_accepted(self):
        for kwargs in (dict(rshift=-76), dict(rshift=50), dict(first_line=16),
                       dict(first_line=21, ashift=-5), dict(interp=0), dict(interp=64),
                       dict(range_interp=16), dict(range_interp=1, interp=1)):
            args = dict(SMALL, device="cpu")
            args.update(kwargs)
            cudadsp.patch_xcorr_cc(256, **args)
        cudadsp.patch_xcorr_cc(103, nx=4, xsearch=16, ysearch=8, device="cpu")

    def test_003_cuda_without_device(self):
        if HAVE_CUDA:
            self.skipTest("a CUDA device is present")
        for device in ("cuda", "cuda:0"):
            with self.assertRaises(RuntimeError, msg=device):
                cudadsp.patch_xcorr_cc(256, device=device, **SMALL)


@unittest.skipUnless(HAVE_CUDA, "no CUDA device")
class qa_patch_xcorr_cc_cuda(qa_patch_xcorr_cc):
    DEVICE = "cuda"


if __name__ == "__main__":
    gr_unittest.run(qa_patch_xcorr_cc)
