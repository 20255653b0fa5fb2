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
/* BINDTOOL_HEADER_FILE_HASH(3fbb9835799c7843b7335d649b47f142)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "integer_argument.h"

#include <gnuradio/cudadsp/phase_unwrap_2d_ff.h>
// pydoc.h is automatically generated in the build directory
#include <phase_unwrap_2d_ff_pydoc.h>

#include <cstddef>
#include <string>

namespace {

using gr::cudadsp::bindings::int_count;
using gr::cudadsp::bindings::integer_argument;

/*!
 * The block's configuration from the Python keyword arguments: the one place where
 * they become phase_unwrap_2d_ff_config fields (qa_block_defaults reads these
 * assignments to compare each keyword's default with its field's).
 */
gr::cudadsp::phase_unwrap_2d_ff::sptr
make_from_keywords(const integer_argument& width,
                   const integer_argument& height,
                   const std::string& method,
                   double period,
                   bool wrap_around_x,
                   bool wrap_around_y,
                   const integer_argument& gradient_window,
                   bool congruent,
                   const integer_argument& max_iterations,
                   double tolerance,
                   bool weight_input,
                   const std::string& device,
                   const integer_argument& tile_size,
                   const integer_argument& tile_overlap,
                   const integer_argument& looks)
{
    namespace core = gr::cudadsp::core;
    gr::cudadsp::phase_unwrap_2d_ff_config config;
    config.unwrapping.width = int_count("width", width);
    config.unwrapping.height = int_count("height", height);
    config.unwrapping.method = core::parse_unwrap_2d_method(method, "method");
    config.unwrapping.period = period;
    config.unwrapping.wrap_around_x = wrap_around_x;
    config.unwrapping.wrap_around_y = wrap_around_y;
    config.unwrapping.gradient_window = int_count("gradient_window", gradient_window);
    config.unwrapping.congruent = congruent;
    config.unwrapping.max_iterations = int_count("max_iterations", max_iterations);
    config.unwrapping.tolerance = tolerance;
    config.weight_input = weight_input;
    config.unwrapping.device = device;
    config.unwrapping.tile_size = int_count("tile_size", tile_size);
    config.unwrapping.tile_overlap = int_count("tile_overlap", tile_overlap);
    config.unwrapping.looks = int_count("looks", looks);
    return gr::cudadsp::phase_unwrap_2d_ff::make(config);
}

} // namespace

void bind_phase_unwrap_2d_ff(py::module& m)
{
    using phase_unwrap_2d_ff = gr::cudadsp::phase_unwrap_2d_ff;

    py::class_<phase_unwrap_2d_ff,
               gr::sync_block,
               gr::block,
               gr::basic_block,
               std::shared_ptr<phase_unwrap_2d_ff>>(
        m, "phase_unwrap_2d_ff", D(phase_unwrap_2d_ff))

        .def(py::init(&make_from_keywords),
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
