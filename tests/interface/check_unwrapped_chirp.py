#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Check the output of unwrap_chirp_cpp.grc against the analytic phase of its chirp.

The flowgraph's instantaneous frequency is a ramp from f_start_hz, rising by
(f_stop_hz - f_start_hz) / nsamples a sample; the frequency modulator adds
2 pi f[k] / samp_rate to the phase at every sample k, so the unwrapped phase is
phi[n] = 2 pi / samp_rate * sum_{k <= n} f[k]. The values are read from the flowgraph's
variables. A wrong unwrapping is off by a multiple of 2 pi; the tolerance covers the
float32 resolution of a phase of up to 3e4 rad.
"""

import argparse
import sys

import numpy
import yaml

TOLERANCE_RAD = 0.01


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("flowgraph", help="the .grc file")
    parser.add_argument("output", help="the unwrapped phase it wrote, float32")
    arguments = parser.parse_args()

    with open(arguments.flowgraph) as f:
        variables = {
            b["name"]: b["parameters"]["value"]
            for b in yaml.safe_load(f)["blocks"]
            if b["id"] == "variable"
        }
    samp_rate = float(variables["samp_rate"])
    nsamples = int(variables["nsamples"])
    f_start_hz = float(variables["f_start_hz"])
    f_stop_hz = float(variables["f_stop_hz"])

    unwrapped = numpy.fromfile(arguments.output, dtype=numpy.float32)
    if unwrapped.size != nsamples:
        print(f"{unwrapped.size} samples written, expected {nsamples}")
        return 1
    frequency_hz = f_start_hz + (f_stop_hz - f_start_hz) * numpy.arange(nsamples) / nsamples
    phase_rad = 2 * numpy.pi / samp_rate * numpy.cumsum(frequency_hz)
    error = numpy.abs(unwrapped - phase_rad)
    worst = int(numpy.argmax(error))
    print(f"{nsamples} samples, phase down to {phase_rad.min():.1f} rad, largest error "
          f"{error[worst]:.2e} rad at sample {worst} (tolerance {TOLERANCE_RAD} rad)")
    return 0 if error[worst] <= TOLERANCE_RAD else 1


if __name__ == "__main__":
    sys.exit(main())
