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
/* BINDTOOL_HEADER_FILE(gnss_pvt.h)                                                */
/* BINDTOOL_HEADER_FILE_HASH(f4a89b6344241a05b3e0ec16f8cdf6b0)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "integer_argument.h"

#include <gnuradio/cudadsp/gnss_pvt.h>
// pydoc.h is automatically generated in the build directory
#include <gnss_pvt_pydoc.h>

void bind_gnss_pvt(py::module& m)
{
    using gnss_pvt = gr::cudadsp::gnss_pvt;
    using gr::cudadsp::bindings::checked_integers;

    py::class_<gnss_pvt, gr::block, gr::basic_block, std::shared_ptr<gnss_pvt>>(
        m, "gnss_pvt", D(gnss_pvt))

        .def(py::init(checked_integers(&gnss_pvt::make, "reference_week")),
             py::arg("output_folder") = "",
             py::arg("elevation_mask_deg") = 10.0,
             py::arg("ionosphere") = true,
             py::arg("troposphere") = true,
             py::arg("klobuchar") = std::vector<double>{},
             py::arg("reference_week") = 0,
             D(gnss_pvt, make))

        .def("epochs", &gnss_pvt::epochs, D(gnss_pvt, epochs))
        .def("fixes", &gnss_pvt::fixes, D(gnss_pvt, fixes))
        .def("output_files", &gnss_pvt::output_files, D(gnss_pvt, output_files));
}
