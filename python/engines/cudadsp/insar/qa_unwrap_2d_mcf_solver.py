#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Tests of the mcf_solver keyword of cudadsp.unwrap_phase_2d and
cudadsp.phase_unwrapper_2d (the solvers themselves are tested in C++,
tests/engine/qa_mcf_solvers.cc): on a single-look simulated interferogram both solvers
unwrap against the truth as well as each other, the engine reports the solver it was
made with, and a bad name raises ValueError naming the keyword.
"""

import unittest

import numpy as np

import cudadsp
from cudadsp.common import data_files
from cudadsp.insar.unwrap_metrics import score_unwrapping

SOLVERS = ("shortest_paths", "network_simplex")


class qa_unwrap_2d_mcf_solver(unittest.TestCase):
    def test_001_both_solvers_unwrap_the_truth(self):
        # The scene's features keep their share of the frame whatever its size, so
        # smaller frames are steeper: 256 x 256 is the smallest where MCF holds 0.97.
        scene = cudadsp.simulate_interferogram(width=256, height=256, coherence=0.7,
                                               steep=False, seed=6)
        weight = np.where(scene.mask, scene.coherence, 0).astype(np.float32)
        judged = scene.mask & ~scene.aliased
        scores = {}
        for solver in SOLVERS:
            result = cudadsp.unwrap_phase_2d(scene.wrapped, "mcf", weight=weight,
                                             device="cpu", mcf_solver=solver)
            self.assertGreater(result.report["flow"], 0, solver)
            scores[solver] = score_unwrapping(result.unwrapped, scene.true_phase,
                                              judged).correct_fraction
        # Measured 0.9705 with both (the reliability method 0.242): equal-cost flows
        # may differ only where costs tie.
        self.assertGreater(scores["shortest_paths"], 0.96, scores)
        self.assertLessEqual(abs(scores["shortest_paths"] - scores["network_simplex"]),
                             0.003, scores)

    def test_002_engine_reports_its_solver(self):
        default = cudadsp.phase_unwrapper_2d(width=40, height=30, method="mcf",
                                             device="cpu")
        self.assertEqual(default.mcf_solver, "shortest_paths")
        reference = cudadsp.phase_unwrapper_2d(width=40, height=30, method="mcf",
                                               device="cpu", mcf_solver="network_simplex")
        self.assertEqual(reference.mcf_solver, "network_simplex")

    def test_003_bad_solver_names_the_keyword(self):
        wrapped = np.zeros((8, 9), np.float32)
        with self.assertRaisesRegex(ValueError, "^mcf_solver"):
            cudadsp.unwrap_phase_2d(wrapped, "mcf", mcf_solver="simplex")
        with self.assertRaisesRegex(ValueError, "^mcf_solver"):
            cudadsp.phase_unwrapper_2d(width=9, height=8, method="mcf",
                                       mcf_solver="NETWORK_SIMPLEX")


if __name__ == "__main__":
    data_files.run_tests()
