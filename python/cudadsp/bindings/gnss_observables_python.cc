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
/* BINDTOOL_HEADER_FILE(gnss_observables.h)                                        */
/* BINDTOOL_HEADER_FILE_HASH(4fdd0d7e378832924ef33168ecf591d6)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include <gnuradio/cudadsp/gnss_observables.h>
// pydoc.h is automatically generated in the build directory
#include <gnss_observables_pydoc.h>

void bind_gnss_observables(py::module& m)
{
    using gnss_observables = gr::cudadsp::gnss_observables;

    py::class_<gnss_observables,
               gr::block,
               gr::basic_block,
               std::shared_ptr<gnss_observables>>(
        m, "gnss_observables", D(gnss_observables))

        .def(py::init(&gnss_observables::make),
             py::arg("sample_rate_hz"),
             py::arg("rate_hz") = 1.0,
             D(gnss_observables, make))

        .def("epochs", &gnss_observables::epochs, D(gnss_observables, epochs))
        .def("refused_states",
             &gnss_observables::refused_states,
             D(gnss_observables, refused_states));
}
