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
/* BINDTOOL_HEADER_FILE(phase_unwrap_2d_ff.h)                                      */
/* BINDTOOL_HEADER_FILE_HASH(c2e18b694e637ce3b4348040f32f5f4b)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "integer_argument.h"

#include <gnuradio/cudadsp/phase_unwrap_2d_ff.h>
// pydoc.h is automatically generated in the build directory
#include <phase_unwrap_2d_ff_pydoc.h>

void bind_phase_unwrap_2d_ff(py::module& m)
{
    using phase_unwrap_2d_ff = gr::cudadsp::phase_unwrap_2d_ff;
    using gr::cudadsp::bindings::checked_integers;

    py::class_<phase_unwrap_2d_ff,
               gr::sync_block,
               gr::block,
               gr::basic_block,
               std::shared_ptr<phase_unwrap_2d_ff>>(
        m, "phase_unwrap_2d_ff", D(phase_unwrap_2d_ff))

        .def(py::init(checked_integers(&phase_unwrap_2d_ff::make,
                                       "width",
                                       "height",
                                       "gradient_window",
                                       "max_iterations",
                                       "tile_size",
                                       "tile_overlap",
                                       "looks")),
             py::arg("width"),
             py::arg("height"),
             py::arg("method") = "reliability",
             py::arg("period") = 6.283185307179586476925286766559,
             py::arg("wrap_around_x") = false,
             py::arg("wrap_around_y") = false,
             py::arg("gradient_window") = 7,
             py::arg("congruent") = true,
             py::arg("max_iterations") = 100,
             py::arg("tolerance") = 1e-5,
             py::arg("weight_input") = false,
             py::arg("device") = "auto",
             py::arg("tile_size") = 0,
             py::arg("tile_overlap") = 128,
             py::arg("looks") = 1,
             D(phase_unwrap_2d_ff, make))

        .def("width", &phase_unwrap_2d_ff::width, D(phase_unwrap_2d_ff, width))
        .def("height", &phase_unwrap_2d_ff::height, D(phase_unwrap_2d_ff, height))
        .def("method", &phase_unwrap_2d_ff::method, D(phase_unwrap_2d_ff, method))
        .def("period", &phase_unwrap_2d_ff::period, D(phase_unwrap_2d_ff, period))
        .def("wrap_around_x",
             &phase_unwrap_2d_ff::wrap_around_x,
             D(phase_unwrap_2d_ff, wrap_around_x))
        .def("wrap_around_y",
             &phase_unwrap_2d_ff::wrap_around_y,
             D(phase_unwrap_2d_ff, wrap_around_y))
        .def("gradient_window",
             &phase_unwrap_2d_ff::gradient_window,
             D(phase_unwrap_2d_ff, gradient_window))
        .def(
            "congruent", &phase_unwrap_2d_ff::congruent, D(phase_unwrap_2d_ff, congruent))
        .def("max_iterations",
             &phase_unwrap_2d_ff::max_iterations,
             D(phase_unwrap_2d_ff, max_iterations))
        .def(
            "tolerance", &phase_unwrap_2d_ff::tolerance, D(phase_unwrap_2d_ff, tolerance))
        .def("weight_input",
             &phase_unwrap_2d_ff::weight_input,
             D(phase_unwrap_2d_ff, weight_input))
        .def(
            "tile_size", &phase_unwrap_2d_ff::tile_size, D(phase_unwrap_2d_ff, tile_size))
        .def("tile_overlap",
             &phase_unwrap_2d_ff::tile_overlap,
             D(phase_unwrap_2d_ff, tile_overlap))
        .def("looks", &phase_unwrap_2d_ff::looks, D(phase_unwrap_2d_ff, looks))
        .def("backend", &phase_unwrap_2d_ff::backend, D(phase_unwrap_2d_ff, backend));
}
