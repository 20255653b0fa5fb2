#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The Python bindings use none of pybind11 2.10's calls that go wrong under NumPy 2.

  tests/interface/qa_bindings_numpy2.py        (ctest qa_bindings_numpy2)

The bindings are built with Debian 12's pybind11 2.10, which reads the element size from
where NumPy 1 kept it in the dtype structure; NumPy 2 moved it. Two calls then go wrong
(python/engines/bindings/array_arguments.h says how): `.itemsize()` of a dtype or an
array, and the one-dimensional constructor `py::array_t<T> name(count)`, whose stride
comes from that size. This machine's NumPy is 1.24, where both work, so only the GPU
host (NumPy 2.5) would show the failure; this test finds the calls in the source instead.
`item_size()` and `new_vector()` are what the bindings use; shaped constructors
(`py::array_t<T> name(shape)` with a vector of extents) take sizeof(T) and are fine.
"""

import pathlib
import re
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
BINDINGS = [REPO / "python" / "engines" / "bindings", REPO / "python" / "cudadsp" / "bindings"]

ITEMSIZE_CALL = re.compile(r"\.itemsize\(\)")
# py::array_t<...> name(count) or name(count, data): the first argument a single name or
# a static_cast, not a braced or vector shape and not a variable holding a shape.
COUNT_CONSTRUCTOR = re.compile(
    r"py::array_t<[^;{}]*?>\s+\w+\(\s*(?!\{)(static_cast<py::ssize_t>\(|(?P<name>\w+)\s*[,)])")


def offending_lines(text):
    """(line number, line) of each call of the two kinds in a source text; a
    declaration may run over several lines."""
    lines = text.splitlines()
    code = "\n".join(line.split("//", 1)[0] for line in lines)
    found = set()
    for match in ITEMSIZE_CALL.finditer(code):
        found.add(code.count("\n", 0, match.start()))
    for match in COUNT_CONSTRUCTOR.finditer(code):
        if "shape" not in (match.group("name") or ""):
            found.add(code.count("\n", 0, match.start()))
    return [(index + 1, lines[index].strip()) for index in sorted(found)]


class BindingsNumpy2Test(unittest.TestCase):
    def test_the_rule_finds_both_kinds(self):
        # The lines this test exists to catch, as the bindings had them before.
        self.assertEqual(len(offending_lines(
            "const auto itemsize = array.dtype().itemsize();\n"
            "py::array_t<float> lag(rows), magnitude(rows);\n"
            "py::array_t<std::int8_t> out(static_cast<py::ssize_t>(v.size()));\n"
            "py::array_t<core::gnss_epoch_record> records(n, results.records.data());\n"
            "py::array_t<std::complex<float>> out(\n"
            "    static_cast<py::ssize_t>(count_of(n)));\n")),
            5)
        self.assertEqual(offending_lines(
            "py::array_t<float> out(shape);\n"
            "py::array_t<std::complex<float>> correlations({ n, taps });\n"
            "auto out = cudadsp_engines::new_vector<float>(n);\n"
            "const auto size = cudadsp_engines::item_size(array.dtype());\n"), [])

    def test_no_binding_uses_them(self):
        sources = [p for folder in BINDINGS for p in sorted(folder.glob("*.[ch]*"))]
        self.assertTrue(sources, "no binding sources found under %s" % BINDINGS)
        found = ["%s:%d: %s" % (p.relative_to(REPO), number, line)
                 for p in sources for number, line in offending_lines(p.read_text())]
        self.assertEqual(found, [], "pybind11 2.10 calls that NumPy 2 breaks "
                         "(use item_size() / new_vector() of array_arguments.h)")


if __name__ == "__main__":
    unittest.main()
