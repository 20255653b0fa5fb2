#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Dense offsets (cudadsp.dense_offsets) against physical truth, at least as good as
GMTSAR's method on the same pairs.

The synthetic pairs of GMTSAR's accuracy tables (tools/xcorr_truth_tables.py: 2048 x 2048
int16 from tests/support/make_synthetic_slc.py, same seeds, so the very pairs behind
docs/apps/cudadsp_xcorr.md, "Accuracy") go through the dense offsets with the window
configuration of docs/apps/cudadsp_offsets.md, "Accuracy" (window 64 x 64, half search
20, skip 96: 400 windows, raw oversampling 2, deramp 1), with correlation oversampling 64
and zoom 8 (issue 14's comparison configuration) and with the defaults 16 and 16. The
truth is the generator's field at each window centre (offset_across = dx, offset_down =
dy; tools/offsets_truth_tables.py says why). A reduced set of that page's cases:
constant offsets (2.25, -1.50) and (0.60, 2.85) at coherence 0.6 and 0.9, and the
linear field at 0.9. For each, both configurations and both axes:

- |bias| (mean of estimate - truth over the windows) is at most GMTSAR ri 1's largest
  |bias| over its four constant offsets at that coherence (a per-pair ri 1 bias can be
  0.000 by chance, where its pull toward whole pixels vanishes, so the figure it is held
  to is ri 1's largest);
- the spread (standard deviation over the windows) is at most GMTSAR ri 1's of the same
  pair;
- no window is off by more than 1 px.

The GMTSAR ri 1 figures are written out below from the docs' tables. Everything runs on
the CPU; when a CUDA device is present the same pairs run on CUDA too, which must pass
the same assertions and give the CPU's offsets within one fine step 1/(corr_oversampling
raw_oversampling) on at least 99 % of the windows (the engine test's tolerance,
tests/engine/qa_dense_offsets.cc); without one the CUDA runs are skipped (said so).

Usage (ctest passes it): qa_offsets_truth.py [--generator SCRIPT]. Needs numpy and
cudadsp (no GNU Radio). About 30 s on two CPU cores.
"""

import argparse
import json
import os
import pathlib
import shutil
import sys
import tempfile
import time
import types
import unittest

import numpy as np

import cudadsp

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tools"))
import offsets_truth_tables as tables  # noqa: E402
import xcorr_truth_tables  # noqa: E402

ARGS = None  # filled in by main()

# GMTSAR cudadsp_xcorr ri 1 on the same pairs, docs/apps/cudadsp_xcorr.md, "Accuracy"
# (run of 2026-11-22): per pair and coherence, the spread (sd) of dx and of dy, px, from
# the tables "constant (2.25, -1.50)", "constant (0.60, 2.85)" and "linear: ...".
GMTSAR_RI1_SD = {
    ("constant (2.25, -1.50)", 0.6): (0.052, 0.040),
    ("constant (2.25, -1.50)", 0.9): (0.035, 0.025),
    ("constant (0.60, 2.85)", 0.6): (0.040, 0.051),
    ("constant (0.60, 2.85)", 0.9): (0.030, 0.036),
    ("linear: dx = 0.3 + 1e-3 x + 2e-4 y, dy = -0.5 + 2e-4 x - 6e-4 y", 0.9): (0.032, 0.030),
}
# The same page's "Summary over the 4 constant offsets": ri 1's largest |bias| of dx and
# of dy at each coherence, px.
GMTSAR_RI1_MAX_BIAS = {0.6: (0.015, 0.013), 0.9: (0.012, 0.014)}


def cuda_present():
    """Whether the engine finds a CUDA device ("auto" picks one when there is)."""
    return cudadsp.dense_offsets_engine(device="auto").backend().startswith("cuda")


class offsets_truth(unittest.TestCase):

    have_cuda = False  # set by setUpClass

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="qa_offsets_truth_")
        cls.have_cuda = cuda_present()
        cls.fields = {name: (field, seed) for name, field, seed in xcorr_truth_tables.FIELDS}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def errors(self, name, coherence, device):
        """Per configuration of tables.CONFIGS: (error across, error down, mean SNR)."""
        field, seed = self.fields[name]
        folder = os.path.join(self.tmp, "%d_%g" % (seed, coherence))
        if not os.path.exists(os.path.join(folder, "truth.json")):
            xcorr_truth_tables.make_pair(ARGS, folder, coherence, seed, field)
        with open(os.path.join(folder, "truth.json")) as f:
            truth = json.load(f)
        return tables.errors(types.SimpleNamespace(**vars(ARGS), device=device), folder,
                             truth)

    def check(self, name, coherence):
        max_bias = GMTSAR_RI1_MAX_BIAS[coherence]
        sd_ri1 = GMTSAR_RI1_SD[(name, coherence)]
        devices = ["cpu"] + (["cuda"] if self.have_cuda else [])
        runs = {device: self.errors(name, coherence, device) for device in devices}
        for device, per_config in runs.items():
            for (label, surface), (ex, ey, snr) in zip(tables.CONFIGS, per_config):
                self.assertEqual(len(ex), 400)
                for axis, e, k in (("dx", ex, 0), ("dy", ey, 1)):
                    bias, sd = float(e.mean()), float(e.std())
                    print("%s, coherence %.1f, %s, %s, %s: bias %+.4f (GMTSAR ri 1 largest "
                          "|bias| %.3f), sd %.4f (ri 1 %.3f), mean SNR %.0f" % (
                              name, coherence, label, device, axis, bias, max_bias[k], sd,
                              sd_ri1[k], snr))
                    where = "%s, %.1f, %s, %s, %s" % (name, coherence, label, device, axis)
                    self.assertLessEqual(abs(bias), max_bias[k], where + ": bias")
                    self.assertLessEqual(sd, sd_ri1[k], where + ": spread")
                    self.assertEqual(int(np.sum(np.abs(e) > 1)), 0, where + ": failed "
                                     "matches")
        if "cuda" in runs:
            for (label, surface), cpu, gpu in zip(tables.CONFIGS, runs["cpu"], runs["cuda"]):
                step = 1.0 / (surface["corr_oversampling"] * 2)
                beyond = int(np.sum((np.abs(cpu[0] - gpu[0]) > 1.01 * step)
                                    | (np.abs(cpu[1] - gpu[1]) > 1.01 * step)))
                print("%s, coherence %.1f, %s: CUDA beyond one fine step of the CPU on "
                      "%d of %d windows" % (name, coherence, label, beyond, len(cpu[0])))
                self.assertLessEqual(100 * beyond, len(cpu[0]))

    def test_constant_2_25_minus_1_50(self):
        for g in (0.6, 0.9):
            self.check("constant (2.25, -1.50)", g)

    def test_constant_0_60_2_85(self):
        for g in (0.6, 0.9):
            self.check("constant (0.60, 2.85)", g)

    def test_linear(self):
        self.check("linear: dx = 0.3 + 1e-3 x + 2e-4 y, dy = -0.5 + 2e-4 x - 6e-4 y", 0.9)


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--generator", default=str(REPO / "tests" / "support" / "make_synthetic_slc.py"),
                   help="tests/support/make_synthetic_slc.py")
    args, rest = p.parse_known_args()
    # The pairs and windows of the docs' tables (tools/offsets_truth_tables.py).
    ARGS = types.SimpleNamespace(generator=args.generator, size=tables.SIZE,
                                 **tables.LAYOUT)
    t0 = time.time()
    prog = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    if not offsets_truth.have_cuda:
        print("no CUDA device: the CUDA runs were skipped")
    print("qa_offsets_truth: %.1f s" % (time.time() - t0))
    sys.exit(0 if prog.result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
