/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/***********************************************************************************/
/* Written by hand (no pygccxml at build time), docstrings inline. The hash is the */
/* md5 of the bound header: configuration stops when the header changes, until    */
/* this file is brought up to date and tools/update-binding-hashes is run.         */
/* BINDTOOL_GEN_AUTOMATIC(0)                                                       */
/* BINDTOOL_USE_PYGCCXML(0)                                                        */
/* BINDTOOL_HEADER_FILE(core/st_tbd.h)                                             */
/* BINDTOOL_HEADER_FILE_HASH(abb8411319d5961f6fbe7f93e7d29d20)                     */
/***********************************************************************************/

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "array_arguments.h"
#include "engine_handle.h"
#include "integer_argument.h"
#include "tbd_hypotheses.h"
#include <gnuradio/cudadsp/core/st_tbd.h>

#include <cstdint>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

namespace core = gr::cudadsp::core;
using gr::cudadsp::bindings::integer_argument;
using gr::cudadsp::bindings::narrow;

//! The track-before-detect filter as Python holds it: its state carries from call to
//! call (frames in time order).
using tbd_handle = cudadsp_engines::engine_handle<core::st_tbd>;

/*! Runs the filter over \p frames ((n, height, width) or n * height * width values, in
 *  time order): (detection map, argmax hypothesis, detections), the first two of the
 *  frames' shape. */
py::tuple process(tbd_handle& self, const py::array& frames)
{
    const auto in = cudadsp_engines::float32_array(frames, "frames");
    const std::size_t cells = self.config().cells();
    const auto size = static_cast<std::size_t>(in.size());
    if (size == 0 || size % cells != 0)
        throw py::value_error("frames: must hold whole frames of " +
                              std::to_string(self.config().height) + " x " +
                              std::to_string(self.config().width) + " cells, got shape " +
                              cudadsp_engines::shape_text(frames));
    std::vector<py::ssize_t> shape(in.shape(), in.shape() + in.ndim());
    py::array_t<float> detection_map(shape);
    py::array_t<std::int32_t> argmax(shape);
    std::vector<core::tbd_detection> detections;
    {
        py::gil_scoped_release release;
        self.locked([&](core::st_tbd& engine) {
            engine.process(in.data(),
                           size / cells,
                           detection_map.mutable_data(),
                           argmax.mutable_data(),
                           &detections);
        });
    }
    // One copy into a structured array of the engine's own records (PYBIND11_NUMPY_DTYPE
    // below: fields frame, x, y, vx, vy, value).
    auto found = cudadsp_engines::array_of(detections);
    return py::make_tuple(detection_map, argmax, found);
}

} // namespace

void bind_st_tbd(py::module& m)
{
    PYBIND11_NUMPY_DTYPE(core::tbd_detection, frame, x, y, vx, vy, value);

    m.def(
        "tbd_velocity_grid",
        [](float vmax, float step, float spread) {
            return gr::cudadsp::bindings::hypotheses_to_python(
                core::st_tbd_config::velocity_grid(vmax, step, spread));
        },
        py::arg("vmax"),
        py::arg("step"),
        py::arg("spread"),
        R"doc(Hypotheses of a velocity grid, in the form st_tbd and st_tbd_ff take.

Every (vx, vy) with vx, vy in {-vmax, -vmax + step, ..., vmax} (n = floor(2 vmax /
step + 1e-6) + 1 values per axis, vy outer, vx inner). Each hypothesis keeps its own
velocity's mass with weight 1 - b * spread / 4 (b: its existing 4-neighbours in the
velocity grid) and takes spread / 4 from each neighbour, moved by its own velocity:
transitions (source, vx, vy, weight). spread in [0, 1).

    cudadsp.tbd_velocity_grid(1.0, 1.0, 0.0)  # 9 hypotheses, one transition each

Raises ValueError naming the argument when vmax, step or spread is out of range.)doc");

    py::class_<tbd_handle>(
        m,
        "st_tbd",
        R"doc(Spatio-temporal track-before-detect filter (Mazurek 2012; the engine of st_tbd_ff), CPU or CUDA.

State P[m] per motion hypothesis m on a width x height grid. Per frame X:
P^-[m](x, y) = sum_k w[m][k] P[src[m][k]](x - dx, y - dy) (bilinear, zero outside),
P[m] = alpha P^-[m] + (1 - alpha) X, detection map D = max_m P[m], argmax A; detections
the local maxima of D above threshold. The state carries from one process() call to
the next. docs/blocks/st_tbd_ff.md gives the rules, kernels and autotuning. Most users
want cudadsp.track_before_detect.)doc")
        .def(py::init([](integer_argument width,
                         integer_argument height,
                         py::object hypotheses,
                         float alpha,
                         float threshold,
                         integer_argument max_detections_per_frame,
                         const std::string& kernel,
                         const std::string& bilinear,
                         const std::string& device) {
                 core::st_tbd_config config;
                 config.width = narrow<std::size_t>("width", width);
                 config.height = narrow<std::size_t>("height", height);
                 config.hypotheses =
                     gr::cudadsp::bindings::hypotheses_from_python(hypotheses);
                 config.alpha = alpha;
                 config.threshold = threshold;
                 config.max_detections_per_frame = narrow<std::size_t>(
                     "max_detections_per_frame", max_detections_per_frame);
                 config.kernel = kernel;
                 config.bilinear = bilinear;
                 config.device = device;
                 return std::make_unique<tbd_handle>(config);
             }),
             py::arg("width"),
             py::arg("height"),
             py::arg("hypotheses"),
             py::arg("alpha") = 0.9f,
             py::arg("threshold") = 1.0f,
             py::arg("max_detections_per_frame") = 1024,
             py::arg("kernel") = "auto",
             py::arg("bilinear") = "auto",
             py::arg("device") = "auto",
             "Make a filter: hypotheses as tbd_velocity_grid() gives them, "
             "[(vx, vy, [(source, dx, dy, weight), ...]), ...]. ValueError naming a bad "
             "argument (e.g. hypotheses[3].transitions[1].source).")
        .def("process",
             &process,
             py::arg("frames"),
             "Run the filter over frames ((n, height, width), in time order): "
             "(detection map float32, argmax hypothesis int32, both of the frames' "
             "shape; detections, a structured array of frame, x, y, vx, vy, value).")
        .def(
            "reset",
            [](tbd_handle& t) { t.locked([](core::st_tbd& e) { e.reset(); }); },
            "Zero the state and the frame counter.")
        .def(
            "implementation",
            [](tbd_handle& t) {
                return t.locked([](core::st_tbd& e) { return e.implementation(); });
            },
            "\"cpu\", \"cuda generic software\", \"cuda generated texture\", ...")
        .def("backend",
             &tbd_handle::backend,
             "The device the engine runs on: \"cpu\" or \"cuda:N\".")
        .def_property_readonly("width",
                               [](const tbd_handle& t) { return t.config().width; })
        .def_property_readonly("height",
                               [](const tbd_handle& t) { return t.config().height; });
}
