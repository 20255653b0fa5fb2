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
/* BINDTOOL_HEADER_FILE(phase_unwrap_ff.h)                                         */
/* BINDTOOL_HEADER_FILE_HASH(a2cbe2a41fdf258a521d7b507d0d1324)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "integer_argument.h"

#include <gnuradio/cudadsp/phase_unwrap_ff.h>
// pydoc.h is automatically generated in the build directory
#include <phase_unwrap_ff_pydoc.h>

void bind_phase_unwrap_ff(py::module& m)
{
    using phase_unwrap_ff = gr::cudadsp::phase_unwrap_ff;
    using gr::cudadsp::bindings::checked_integers;

    py::class_<phase_unwrap_ff,
               gr::sync_block,
               gr::block,
               gr::basic_block,
               std::shared_ptr<phase_unwrap_ff>>(m, "phase_unwrap_ff", D(phase_unwrap_ff))

        .def(py::init(checked_integers(&phase_unwrap_ff::make, "vlen", "batch_samples")),
             py::arg("vlen") = 1,
             py::arg("period") = 6.283185307179586476925286766559,
             py::arg("device") = "auto",
             py::arg("batch_samples") = 1 << 20,
             D(phase_unwrap_ff, make))

        .def("set_period",
             &phase_unwrap_ff::set_period,
             py::arg("period"),
             D(phase_unwrap_ff, set_period))

        .def("period", &phase_unwrap_ff::period, D(phase_unwrap_ff, period))

        .def("reset", &phase_unwrap_ff::reset, D(phase_unwrap_ff, reset))

        .def("out_of_range_samples",
             &phase_unwrap_ff::out_of_range_samples,
             D(phase_unwrap_ff, out_of_range_samples))

        .def("backend", &phase_unwrap_ff::backend, D(phase_unwrap_ff, backend));
}
