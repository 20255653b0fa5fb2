#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The module installed into a prefix works with what docs/install_prefix.md says to set.

  check_prefix_install.py PREFIX LIBRARY_DIR PYTHON_DIR GRC_BLOCKS_DIR PYTHON GRCC CONFIGURED_DOC_DIR

Run by ctest (qa_prefix_install) on the install of qa_interface_install. The environment
is the page's and nothing more: PATH with the prefix's bin/ first and, before the system's
folders, a `python3` that is not the interpreter the module was built for (as pyenv or
conda put one there); PYTHONPATH and GRC_BLOCKS_PATH into the prefix; no LD_LIBRARY_PATH.
Then, each as a user would:
  - cudadsp_info, a C++ program (finds the module's libraries through its RPATH);
  - cudadsp_unwrap on a wrapped ramp, a Python program (its first line names the
    interpreter it was built for, and the extension finds its libraries), the result
    compared with the ramp;
  - every module of the engines' package cudadsp imported;
  - a Python flowgraph with phase_unwrap_ff, compared with numpy.unwrap;
  - grcc on the installed copy of an example;
  - every tool's --help names its documentation page, installed under PREFIX; every
    installed block definition names installed pages only (CONFIGURED_DOC_DIR, the
    documentation folder of the prefix the build was configured for, which the block
    definitions name, stands for PREFIX's).
(The C++ program linking the block library is qa_generated_cpp_flowgraph, which runs
with the same environment: no LD_LIBRARY_PATH.)
"""

import os
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy

# Every module of the installed engines' package, imported: a module the package uses but
# its install list left out fails here (cudadsp/common/tool_log.py once did).
EVERY_ENGINE_MODULE = r'''
import importlib, pkgutil
import cudadsp
names = [m.name for m in pkgutil.walk_packages(cudadsp.__path__, "cudadsp.")]
for name in names:
    importlib.import_module(name)
print("cudadsp: %d modules imported" % len(names))
'''

FLOWGRAPH = r'''
import numpy
from gnuradio import blocks, cudadsp, gr
wrapped = numpy.angle(numpy.exp(1j * numpy.linspace(0, 60, 5000))).astype(numpy.float32)
tb = gr.top_block()
source = blocks.vector_source_f(wrapped.tolist())
unwrap = cudadsp.phase_unwrap_ff(device="cpu")
sink = blocks.vector_sink_f()
tb.connect(source, unwrap, sink)
tb.run()
error = numpy.max(numpy.abs(numpy.asarray(sink.data()) - numpy.unwrap(wrapped)))
assert len(sink.data()) == len(wrapped) and error < 1e-4, (len(sink.data()), error)
print("flowgraph: %d samples, max |error| %.2e rad" % (len(wrapped), error))
'''


def environment(prefix, library_dir, python_dir, grc_dir, decoy_bin):
    env = {key: value for key, value in os.environ.items()
           if key not in ("LD_LIBRARY_PATH", "PYTHONPATH", "GRC_BLOCKS_PATH")}
    env["PATH"] = os.pathsep.join([str(prefix / "bin"), str(decoy_bin), env.get("PATH", "")])
    env["PYTHONPATH"] = str(prefix / python_dir)
    env["GRC_BLOCKS_PATH"] = str(prefix / grc_dir)
    env["GR_DONT_LOAD_PREFS"] = "1"
    return env


def make_decoy_python(folder):
    """A python3 that fails loudly: whatever runs it took the wrong interpreter."""
    decoy = folder / "python3"
    decoy.write_text("#!/bin/sh\necho 'decoy python3 on PATH was run' >&2\nexit 97\n")
    decoy.chmod(0o755)
    return folder


def run(what, command, env, cwd):
    result = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True,
                            timeout=300)
    if result.returncode != 0:
        sys.exit("%s failed (exit %d):\n%s%s" % (what, result.returncode, result.stdout,
                                                  result.stderr))
    print("%s: ok" % what)
    return result


# The tools whose --help ends with their page; cudadsp_stack's is cudadsp_offsets' parser's
# sibling and needs Dask, not installed by every setup.
TOOLS_WITH_PAGES = ("cudadsp_info", "cudadsp_bench", "cudadsp_xcorr", "cudadsp_unwrap",
                    "cudadsp_offsets", "cudadsp_gnss")
DOCUMENTATION_LINE = re.compile(r"^Documentation: (\S+)", re.MULTILINE)
PAGE_IN_TEXT = re.compile(r"(/[^\s(]*/share/doc/gr-cudadsp/\S+?\.md)")


def check_documentation_pointers(prefix, grc_dir, configured_doc_dir, env, work):
    installed_docs = prefix / "share" / "doc" / "gr-cudadsp"
    for tool in TOOLS_WITH_PAGES:
        text = run(tool + " --help", [tool, "--help"], env, work).stdout
        pages = DOCUMENTATION_LINE.findall(text)
        if len(pages) != 1 or not pathlib.Path(pages[0]).is_file() \
                or installed_docs not in pathlib.Path(pages[0]).parents:
            sys.exit("%s --help: documentation line %s is not one installed page under %s"
                     % (tool, pages, installed_docs))
    pointers = 0
    for definition in sorted((prefix / grc_dir).glob("cudadsp_*.block.yml")):
        text = definition.read_text()
        if re.search(r"[ (]docs/", text):
            sys.exit("%s: names a page of the source tree (docs/)" % definition.name)
        for page in PAGE_IN_TEXT.findall(text):
            relative = pathlib.Path(page).relative_to(configured_doc_dir)
            if not (installed_docs / relative).is_file():
                sys.exit("%s: names %s, not installed" % (definition.name, page))
            pointers += 1
        if not PAGE_IN_TEXT.search(text):
            sys.exit("%s: names no documentation page" % definition.name)
    print("documentation: %d tools' --help and %d pointers of the block definitions name "
          "installed pages" % (len(TOOLS_WITH_PAGES), pointers))


def main():
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    prefix = pathlib.Path(sys.argv[1])
    library_dir, python_dir, grc_dir, python, grcc, configured_doc_dir = sys.argv[2:]
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        (work / "decoy").mkdir()
        decoy_bin = make_decoy_python(work / "decoy")
        env = environment(prefix, library_dir, python_dir, grc_dir, decoy_bin)
        run("cudadsp_info", [str(prefix / "bin" / "cudadsp_info")], env, work)

        ramp = numpy.linspace(0.0, 40.0, 64 * 48, dtype=numpy.float64).reshape(48, 64)
        wrapped = numpy.angle(numpy.exp(1j * ramp)).astype(numpy.float32)
        numpy.save(work / "wrapped.npy", wrapped)
        run("cudadsp_unwrap", ["cudadsp_unwrap", "wrapped.npy", "-o", "ramp",
                               "--device", "cpu"], env, work)
        unwrapped = numpy.fromfile(work / "ramp.unw", dtype=numpy.float32).reshape(48, 64)
        # Unwrapping is defined up to one constant multiple of 2 pi.
        offset = numpy.round((unwrapped[0, 0] - ramp[0, 0]) / (2 * numpy.pi)) * 2 * numpy.pi
        error = numpy.max(numpy.abs(unwrapped - offset - ramp))
        if not error < 1e-4:
            sys.exit("cudadsp_unwrap: max |error| %.3g rad against the ramp" % error)

        result = run("cudadsp modules", [python, "-c", EVERY_ENGINE_MODULE], env, work)
        print(result.stdout.strip())

        result = run("Python flowgraph", [python, "-c", FLOWGRAPH], env, work)
        print(result.stdout.strip())

        example = prefix / "share" / "gr-cudadsp" / "examples" / "phase_unwrap_chirp.grc"
        run("grcc " + example.name, [grcc, "-o", str(work), str(example)], env, work)
        if not (work / "phase_unwrap_chirp.py").is_file():
            sys.exit("grcc wrote no phase_unwrap_chirp.py")

        check_documentation_pointers(prefix, grc_dir, pathlib.Path(configured_doc_dir), env,
                                     work)
    print("prefix install: every step ran")


if __name__ == "__main__":
    main()
