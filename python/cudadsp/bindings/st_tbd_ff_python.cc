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
/* BINDTOOL_HEADER_FILE(st_tbd_ff.h)                                               */
/* BINDTOOL_HEADER_FILE_HASH(acf1182ee6552a54ead6eac5a1d63a3b)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "integer_argument.h"
#include "tbd_hypotheses.h"

#include <gnuradio/cudadsp/st_tbd_ff.h>
// pydoc.h is automatically generated in the build directory
#include <st_tbd_ff_pydoc.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace {

using gr::cudadsp::bindings::checked_integers;
using gr::cudadsp::bindings::hypotheses_from_python;
using gr::cudadsp::bindings::hypotheses_to_python;
using gr::cudadsp::bindings::int_count;
using gr::cudadsp::bindings::integer_argument;

/*!
 * The block's configuration from the Python keyword arguments: the one place where
 * they become st_tbd_ff_config fields (qa_block_defaults reads these assignments to
 * compare each keyword's default with its field's).
 */
gr::cudadsp::st_tbd_ff::sptr
make_from_keywords(const integer_argument& width,
                   const integer_argument& height,
                   const py::object& hypotheses,
                   float alpha,
                   float threshold,
                   const std::string& device,
                   const std::string& kernel,
                   const std::string& bilinear,
                   bool autotune,
                   const integer_argument& max_detections_per_frame,
                   const integer_argument& batch_frames)
{
    gr::cudadsp::st_tbd_ff_config config;
    config.tbd.width = int_count("width", width);
    config.tbd.height = int_count("height", height);
    config.tbd.hypotheses = hypotheses_from_python(hypotheses);
    config.tbd.alpha = alpha;
    config.tbd.threshold = threshold;
    config.tbd.device = device;
    config.tbd.kernel = kernel;
    config.tbd.bilinear = bilinear;
    config.tbd.autotune = autotune;
    config.tbd.max_detections_per_frame =
        int_count("max_detections_per_frame", max_detections_per_frame);
    config.batch_frames = int_count("batch_frames", batch_frames);
    return gr::cudadsp::st_tbd_ff::make(config);
}

} // namespace

void bind_st_tbd_ff(py::module& m)
{
    using st_tbd_ff = gr::cudadsp::st_tbd_ff;

    py::class_<st_tbd_ff,
               gr::sync_block,
               gr::block,
               gr::basic_block,
               std::shared_ptr<st_tbd_ff>>(m, "st_tbd_ff", D(st_tbd_ff))

        .def(py::init(&make_from_keywords),
             py::arg("width"),
             py::arg("height"),
             py::arg("hypotheses"),
             py::arg("alpha") = 0.9f,
             py::arg("threshold") = 1.0f,
             py::arg("device") = "auto",
             py::arg("kernel") = "auto",
             py::arg("bilinear") = "auto",
             py::arg("autotune") = false,
             py::arg("max_detections_per_frame") = 1024,
             py::arg("batch_frames") = 0,
             D(st_tbd_ff, make))

        .def_static("default_batch_frames",
                    checked_integers(&st_tbd_ff::default_batch_frames, "width", "height"),
                    py::arg("width"),
                    py::arg("height"),
                    D(st_tbd_ff, default_batch_frames))

        .def(
            "set_alpha", &st_tbd_ff::set_alpha, py::arg("alpha"), D(st_tbd_ff, set_alpha))
        .def("alpha", &st_tbd_ff::alpha, D(st_tbd_ff, alpha))
        .def("set_threshold",
             &st_tbd_ff::set_threshold,
             py::arg("threshold"),
             D(st_tbd_ff, set_threshold))
        .def("threshold", &st_tbd_ff::threshold, D(st_tbd_ff, threshold))
        .def("reset", &st_tbd_ff::reset, D(st_tbd_ff, reset))
        .def("width", &st_tbd_ff::width, D(st_tbd_ff, width))
        .def("height", &st_tbd_ff::height, D(st_tbd_ff, height))
        .def(
            "hypotheses",
            [](const st_tbd_ff& self) { return hypotheses_to_python(self.hypotheses()); },
            D(st_tbd_ff, hypotheses))
        .def("max_detections_per_frame",
             &st_tbd_ff::max_detections_per_frame,
             D(st_tbd_ff, max_detections_per_frame))
        .def("batch_frames", &st_tbd_ff::batch_frames, D(st_tbd_ff, batch_frames))
        .def("detections_dropped",
             &st_tbd_ff::detections_dropped,
             D(st_tbd_ff, detections_dropped))
        .def("detection_queue_limit",
             &st_tbd_ff::detection_queue_limit,
             D(st_tbd_ff, detection_queue_limit))
        .def("backend", &st_tbd_ff::backend, D(st_tbd_ff, backend))
        .def("implementation", &st_tbd_ff::implementation, D(st_tbd_ff, implementation));
}
