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
/* BINDTOOL_HEADER_FILE_HASH(a5cdb28d40e77ad69131d982587be0a3)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "integer_argument.h"

#include <gnuradio/cudadsp/patch_xcorr_cc.h>
// pydoc.h is automatically generated in the build directory
#include <patch_xcorr_cc_pydoc.h>

#include <string>

namespace {

using gr::cudadsp::bindings::integer_argument;
using gr::cudadsp::bindings::narrow;

/*!
 * The block's configuration from the Python keyword arguments: the one place where
 * they become patch_xcorr_cc_config fields (qa_block_defaults reads these assignments
 * to compare each keyword's default with its field's). The fields are C++ ints, so
 * make() names a negative count by its rule.
 */
gr::cudadsp::patch_xcorr_cc::sptr make_from_keywords(const integer_argument& width,
                                                     const integer_argument& nx,
                                                     const integer_argument& first_line,
                                                     const integer_argument& line_step,
                                                     const integer_argument& xsearch,
                                                     const integer_argument& ysearch,
                                                     const integer_argument& range_interp,
                                                     const integer_argument& interp,
                                                     const integer_argument& rshift,
                                                     const integer_argument& ashift,
                                                     const std::string& device)
{
    gr::cudadsp::patch_xcorr_cc_config config;
    config.width = narrow<int>("width", width);
    config.nx = narrow<int>("nx", nx);
    config.first_line = narrow<int>("first_line", first_line);
    config.line_step = narrow<int>("line_step", line_step);
    config.xsearch = narrow<int>("xsearch", xsearch);
    config.ysearch = narrow<int>("ysearch", ysearch);
    config.range_interp = narrow<int>("range_interp", range_interp);
    config.interp = narrow<int>("interp", interp);
    config.rshift = narrow<int>("rshift", rshift);
    config.ashift = narrow<int>("ashift", ashift);
    config.device = device;
    return gr::cudadsp::patch_xcorr_cc::make(config);
}

} // namespace

void bind_patch_xcorr_cc(py::module& m)
{
    using block = gr::cudadsp::patch_xcorr_cc;

    py::class_<block, gr::block, gr::basic_block, std::shared_ptr<block>>(
        m, "patch_xcorr_cc", D(patch_xcorr_cc))

        .def(py::init(&make_from_keywords),
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
