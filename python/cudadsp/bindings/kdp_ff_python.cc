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
/* BINDTOOL_HEADER_FILE(kdp_ff.h)                                                  */
/* BINDTOOL_HEADER_FILE_HASH(ed84de78618aad3b4d837f67c280ff25)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "integer_argument.h"

#include <gnuradio/cudadsp/kdp_ff.h>
// pydoc.h is automatically generated in the build directory
#include <kdp_ff_pydoc.h>

void bind_kdp_ff(py::module& m)
{
    using kdp_ff = gr::cudadsp::kdp_ff;
    using gr::cudadsp::bindings::checked_integers;

    py::class_<kdp_ff,
               gr::sync_block,
               gr::block,
               gr::basic_block,
               std::shared_ptr<kdp_ff>>(m, "kdp_ff", D(kdp_ff))

        .def(py::init(checked_integers(&kdp_ff::make, "ngates")),
             py::arg("ngates"),
             py::arg("gate_spacing_m") = 150.0,
             py::arg("window_km") = 3.0,
             py::arg("max_gap_km") = 1.0,
             py::arg("use_rhohv") = false,
             py::arg("use_snr") = false,
             py::arg("min_rhohv") = 0.8,
             py::arg("min_snr_db") = 3.0,
             py::arg("device") = "auto",
             D(kdp_ff, make))

        .def(
            "half_window_gates", &kdp_ff::half_window_gates, D(kdp_ff, half_window_gates))

        .def("backend", &kdp_ff::backend, D(kdp_ff, backend));
}
