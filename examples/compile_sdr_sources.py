#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""ctest example_sdr_sources: the SDR sources the example flowgraphs hold disabled
still compile. For each, a copy of the flowgraph with its simulated or file source
disabled, that SDR source enabled and its live settings (LIVE_VALUES) goes through
grcc, and the generated script
through py_compile, so that a renamed parameter of gr-soapy's or gr-uhd's GRC blocks
shows here rather than on a user's hardware. Nothing runs: there is no SDR.

    examples/compile_sdr_sources.py --grcc grcc --outdir build/examples/sdr_sources
"""

import argparse
import os
import py_compile
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SKIPPED = 77

# flowgraph: (the blocks a hardware source replaces, the hardware sources)
VARIANTS = {
    "gnss_live_receiver.grc": (
        ["blocks_file_source_0", "blocks_throttle_0"],
        ["soapy_rtlsdr_source_0", "soapy_hackrf_source_0", "uhd_usrp_source_0"]),
    "array_phase_difference.grc": (
        ["epy_block_0", "analog_noise_source_x_0", "analog_noise_source_x_1",
         "blocks_add_xx_ant1", "blocks_add_xx_ant2", "blocks_integrate_xx_0",
         "blocks_multiply_const_xx_0", "blocks_file_sink_true_delay"],
        ["uhd_usrp_source_b210", "soapy_custom_source_lime"]),
}
# flowgraph: {parameter block: its value with a hardware source}. The GNSS receiver
# searches a file whole ("recording") and drops samples live ("live"). A string value
# in quotes: GRC reads a bare word that names a variable as that variable.
LIVE_VALUES = {
    "gnss_live_receiver.grc": {"stream_mode": '"live"'},
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grcc", default="grcc")
    parser.add_argument("--outdir", required=True)
    args = parser.parse_args()
    blocks_dir = "/usr/share/gnuradio/grc/blocks"
    for needed in ("soapy_rtlsdr_source", "soapy_custom_source", "uhd_usrp_source"):
        if not os.path.isfile(os.path.join(blocks_dir, needed + ".block.yml")):
            print("compile_sdr_sources: GNU Radio without %s (gr-soapy / gr-uhd): skipped"
                  % needed, file=sys.stderr)
            return SKIPPED
    failures = 0
    for flowgraph, (replaced, sources) in VARIANTS.items():
        with open(os.path.join(HERE, flowgraph)) as f:
            original = yaml.safe_load(f)
        names = {b["name"] for b in original["blocks"]}
        missing = sorted((set(replaced) | set(sources) | set(LIVE_VALUES.get(flowgraph, {})))
                         - names)
        if missing:
            print("%s: no block %s" % (flowgraph, ", ".join(missing)), file=sys.stderr)
            failures += 1
            continue
        for source in sources:
            data = yaml.safe_load(yaml.safe_dump(original))
            for block in data["blocks"]:
                if block["name"] in replaced:
                    block["states"]["state"] = "disabled"
                elif block["name"] in LIVE_VALUES.get(flowgraph, {}):
                    block["parameters"]["value"] = LIVE_VALUES[flowgraph][block["name"]]
                elif block["name"] == source:
                    if block["states"]["state"] != "disabled":
                        print("%s: %s is not disabled: ctest would need its hardware"
                              % (flowgraph, source), file=sys.stderr)
                        failures += 1
                    block["states"]["state"] = "enabled"
            folder = os.path.join(args.outdir, source)
            os.makedirs(folder, exist_ok=True)
            variant = os.path.join(folder, flowgraph)
            with open(variant, "w") as f:
                yaml.safe_dump(data, f)
            run = subprocess.run([args.grcc, "-o", folder, variant], capture_output=True,
                                 text=True)
            script = os.path.join(folder, os.path.splitext(flowgraph)[0] + ".py")
            if run.returncode != 0 or not os.path.isfile(script):
                print("%s with %s: grcc failed:\n%s%s" % (flowgraph, source, run.stdout,
                                                          run.stderr), file=sys.stderr)
                failures += 1
                continue
            try:
                py_compile.compile(script, doraise=True)
            except py_compile.PyCompileError as e:
                print("%s with %s: %s" % (flowgraph, source, e), file=sys.stderr)
                failures += 1
                continue
            print("%s with %s: compiled" % (flowgraph, source))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
