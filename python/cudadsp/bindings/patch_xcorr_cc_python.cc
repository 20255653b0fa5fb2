/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/***********************************************************************************/
/* Written by hand (no pygccxml at build time). The hash is the md5 of the bound   */
/* header: configuration stops when the header changes, until this file is brought */
/* up to date and tools/update-binding-hashes is run.                              */
/* BINDTOOL_GEN_AUTOMATIC(0)                                                       */
/* BINDTOOL_USE_PYGCCXML(0)                                                        */
/* BINDTOOL_HEADER_FILE(patch_xcorr_cc.h)                                          */
/* BINDTOOL_HEADER_FILE_HASH(6ecbdc50baaa299fca699e1bd4ab54f6)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "integer_argument.h"

#include <gnuradio/cudadsp/patch_xcorr_cc.h>
// pydoc.h is automatically generated in the build directory
#include <patch_xcorr_cc_pydoc.h>

void bind_patch_xcorr_cc(py::module& m)
{
    using block = gr::cudadsp::patch_xcorr_cc;
    using gr::cudadsp::bindings::checked_integers;
    using gr::cudadsp::bindings::integer_argument;
    using gr::cudadsp::bindings::narrow;

    py::class_<block, gr::block, gr::basic_block, std::shared_ptr<block>>(
        m, "patch_xcorr_cc", D(patch_xcorr_cc))

        .def(py::init(checked_integers(&block::make,
                                       "width",
                                       "nx",
                                       "first_line",
                                       "line_step",
                                       "xsearch",
                                       "ysearch",
                                       "range_interp",
                                       "interp",
                                       "rshift",
                                       "ashift")),
             py::arg("width"),
             py::arg("nx") = 16,
             py::arg("first_line") = -1,
             py::arg("line_step") = 256,
             py::arg("xsearch") = 64,
             py::arg("ysearch") = 64,
             py::arg("range_interp") = 2,
             py::arg("interp") = 16,
             py::arg("rshift") = 0,
             py::arg("ashift") = 0,
             py::arg("device") = "auto",
             D(patch_xcorr_cc, make))
        .def(
            "patch_column",
            [](const block& self, integer_argument i) {
                return self.patch_column(narrow<int>("i", i));
            },
            py::arg("i"),
            D(patch_xcorr_cc, patch_column))
        .def(
            "strip_line",
            [](const block& self, integer_argument k) {
                return self.strip_line(narrow<long long>("k", k));
            },
            py::arg("k"),
            D(patch_xcorr_cc, strip_line))
        .def("backend", &block::backend, D(patch_xcorr_cc, backend));
}
