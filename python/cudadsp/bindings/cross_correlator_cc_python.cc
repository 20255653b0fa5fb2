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
/* BINDTOOL_HEADER_FILE(cross_correlator_cc.h)                                     */
/* BINDTOOL_HEADER_FILE_HASH(ca41cb1c8ae7964b34c8ee0bb208f75e)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "integer_argument.h"

#include <gnuradio/cudadsp/cross_correlator_cc.h>
// pydoc.h is automatically generated in the build directory
#include <cross_correlator_cc_pydoc.h>

void bind_cross_correlator_cc(py::module& m)
{
    using block = gr::cudadsp::cross_correlator_cc;
    using gr::cudadsp::bindings::checked_integers;

    py::class_<block,
               gr::sync_decimator,
               gr::sync_block,
               gr::block,
               gr::basic_block,
               std::shared_ptr<block>>(m, "cross_correlator_cc", D(cross_correlator_cc))

        .def(py::init(checked_integers(&block::make, "fft_len", "interp", "max_lag")),
             py::arg("fft_len"),
             py::arg("interp") = 16,
             py::arg("max_lag") = 0,
             py::arg("spectrum_output") = false,
             py::arg("correlation_output") = false,
             py::arg("device") = "auto",
             D(cross_correlator_cc, make))

        .def_static("upstream_buffer_items",
                    checked_integers(&block::upstream_buffer_items, "fft_len"),
                    py::arg("fft_len"),
                    D(cross_correlator_cc, upstream_buffer_items))
        .def(
            "transform_len", &block::transform_len, D(cross_correlator_cc, transform_len))
        .def("correlation_len",
             &block::correlation_len,
             D(cross_correlator_cc, correlation_len))
        .def("backend", &block::backend, D(cross_correlator_cc, backend));
}
