#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The layout the architecture page describes is the tree's, and keeps its rules.

  tests/interface/qa_layout.py            (ctest qa_layout; the standard library only)

- Every file or folder docs/architecture.md names exists: its links (../path), the paths
  in backquotes (`lib/...`, `runtime/host_pipeline.h`, `tbd/lrei.*`, `x.{h,cc}`) and the
  names in its source-tree map, each resolved against the folder the map puts it in.
- Every engine folder of lib/core, and every file of lib/core/runtime, is named in the map.
- Nothing in lib/core/runtime includes a family's header: the runtime knows no field.
- No function over 150 lines (Python, and C++/CUDA by tools/function-lengths) and no C++
  or CUDA source file over 800 lines.
"""

import ast
import fnmatch
import pathlib
import re
import subprocess
import sys
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "architecture.md"
CORE = REPO / "lib" / "core"
# Where a short path in the page (`runtime/x.h`, `unwrap/`) is looked for, in order.
SHORT_PATH_ROOTS = [REPO, REPO / "docs", CORE, REPO / "lib", REPO / "python" / "cudadsp",
                    REPO / "python" / "engines" / "cudadsp",
                    REPO / "include" / "gnuradio" / "cudadsp"]
# Paths the page names that a build or a GPU bundle makes, not the repository.
BUILT_PATHS = ("build/", "build-", "/", ".gpu/", "bin/", "generated/")
#: The longest function the tree may hold (issue 22).
MAX_FUNCTION_LINES = 150
#: The longest C++ or CUDA source file (issue 22's "about 800 lines").
MAX_FILE_LINES = 800
SOURCE_SUFFIXES = r"(?:h|cc|cu|cuh|py|cmake|md|yml|txt|grc|json|sh)"


def expand_braces(name):
    """x.{h,cc} -> [x.h, x.cc] (one brace group, as the page writes them)."""
    match = re.search(r"\{([^{}]*)\}", name)
    if not match:
        return [name]
    head, tail = name[:match.start()], name[match.end():]
    return [head + part + tail for part in match.group(1).split(",")]


def exists_under(root, name):
    """Whether root/name names something, with * as a glob; a name without a suffix may
    stand for its files (`runtime/host_pipeline`)."""
    for candidate in expand_braces(name):
        candidate = candidate.rstrip("/")
        if not (any(root.glob(candidate)) or any(root.glob(candidate + ".*"))):
            return False
    return True


def exists_anywhere(name):
    """Whether a file of that name (glob) is somewhere in the repository."""
    return all(any(REPO.glob("**/" + candidate)) for candidate in expand_braces(name))


def names_file(entry, filename):
    """Whether a map entry (`cuda_check.{h,cc}`, `kdp*.*`) names the file filename."""
    last = entry.rstrip("/").split("/")[-1]
    return any(fnmatch.fnmatch(filename, c) for c in expand_braces(last))


def source_tree_map(text):
    """The lines of the fenced block that follows the '## Source tree' heading."""
    section = text.split("## Source tree", 1)[1]
    return section.split("```", 2)[1].splitlines()[1:]


def map_entries(lines):
    """(folder, name) for every name the map lists, folder from the indentation.

    A line starts at column 0 with a top-level path (`lib/core/`), or is indented under
    one; the first token of an indented line is a name inside the nearest folder above it
    with less indentation; the rest of the line (its description) may name files of
    that folder too (`phase_unwrap_cpu.*`)."""
    stack = []  # (indent, folder path)
    for line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        indent = len(line) - len(line.lstrip())
        token, _, description = stripped.partition(" ")
        is_name = indent < 30  # descriptions of the line above start at column 34
        if is_name:
            while stack and stack[-1][0] >= indent:
                stack.pop()
            folder = stack[-1][1] if stack else ""
            yield folder, token
            if token.endswith("/"):
                stack.append((indent, folder + token))
            names_folder = folder + token if token.endswith("/") else folder
        else:
            description = stripped
        # Names in a description, less templates such as <block>_impl.{h,cc}.
        for name in re.findall(r"(?<![>\w/.])[\w*]+(?:\.\{[\w,]+\}|\.[\w*]+)", description):
            if re.search(r"\.(?:%s|\*|\{[\w,]+\})$" % SOURCE_SUFFIXES, name):
                yield names_folder, name


class LayoutTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.text = DOC.read_text()

    def test_links_exist(self):
        missing = [target for target in re.findall(r"\]\(\.\./([^)#\s]+)", self.text)
                   if not exists_under(REPO, target)]
        self.assertEqual(missing, [], "links of docs/architecture.md to nothing")

    def test_backquoted_paths_exist(self):
        pattern = r"`((?:[\w.-]+/)+(?:[\w.*{},-]*))`"
        missing = []
        for path in set(re.findall(pattern, self.text)):
            if path.startswith(BUILT_PATHS) or "<" in path:
                continue
            if not any(exists_under(root, path) for root in SHORT_PATH_ROOTS):
                missing.append(path)
        self.assertEqual(sorted(missing), [], "paths in docs/architecture.md that do not exist")

    def test_source_tree_map_names_exist(self):
        missing = ["%s%s" % (folder, name)
                   for folder, name in map_entries(source_tree_map(self.text))
                   if not exists_under(REPO / folder, name) and not exists_anywhere(name)]
        self.assertEqual(missing, [], "names in the source-tree map that do not exist there")

    def test_every_engine_folder_and_runtime_file_is_named(self):
        named = {folder + name for folder, name in map_entries(source_tree_map(self.text))}
        folders = sorted("lib/core/%s/" % p.name for p in CORE.iterdir() if p.is_dir())
        self.assertEqual([f for f in folders if f not in named], [],
                         "lib/core folders the source-tree map does not name")
        runtime_entries = [n for n in named if n.startswith("lib/core/runtime/")]
        unnamed = [path.name for path in sorted((CORE / "runtime").iterdir())
                   if not any(names_file(entry, path.name) for entry in runtime_entries)]
        self.assertEqual(unnamed, [], "lib/core/runtime files the source-tree map does not name")

    def test_runtime_includes_no_family(self):
        families = {p.name for p in CORE.iterdir() if p.is_dir() and p.name != "runtime"}
        offending = []
        for path in sorted((CORE / "runtime").iterdir()):
            if path.suffix not in (".h", ".cc", ".cu", ".cuh"):
                continue
            for include in re.findall(r'#include\s+"([\w]+)/', path.read_text()):
                if include in families:
                    offending.append("%s includes %s/" % (path.name, include))
        self.assertEqual(offending, [], "the runtime must not depend on a family")


    def test_python_functions_are_short(self):
        # No Python function over MAX_FUNCTION_LINES (issue 22's bound; the C++ side
        # is not measured by this test). Scripts without the .py suffix count too;
        # generated code (gr_modtool's doxyxml) does not.
        long = []
        for path in sorted(REPO.glob("**/*")):
            relative = path.relative_to(REPO)
            if (not path.is_file() or relative.parts[0].startswith((".", "build"))
                    or "__pycache__" in relative.parts or "generated" in relative.parts):
                continue
            if path.suffix != ".py":
                with open(path, "rb") as f:
                    if b"python" not in f.readline():
                        continue
            try:
                tree = ast.parse(path.read_text())
            except (SyntaxError, UnicodeDecodeError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > MAX_FUNCTION_LINES:
                        long.append("%s: %s, %d lines" % (relative, node.name, lines))
        self.assertEqual(long, [], "functions over %d lines" % MAX_FUNCTION_LINES)

    def test_cpp_functions_and_files_are_short(self):
        # Issue 22's bounds on the C++ and CUDA sources of every layer, measured by
        # tools/function-lengths (a brace scanner: no function over MAX_FUNCTION_LINES,
        # no file over MAX_FILE_LINES).
        result = subprocess.run(
            [sys.executable, str(REPO / "tools" / "function-lengths"),
             "--max-function", str(MAX_FUNCTION_LINES), "--max-file", str(MAX_FILE_LINES),
             "lib", "apps", "tests", "python", "include"],
            capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, "too long:\n" + result.stdout + result.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
