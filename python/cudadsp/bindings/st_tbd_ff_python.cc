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
/* BINDTOOL_HEADER_FILE_HASH(6ae315e7df00df9464cd0336afee12cd)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "integer_argument.h"

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
using gr::cudadsp::bindings::integer_argument;
using gr::cudadsp::bindings::narrow;
using gr::cudadsp::core::tbd_hypothesis;
using gr::cudadsp::core::tbd_transition;

std::string describe(py::handle object) { return py::repr(object).cast<std::string>(); }

//! A Python sequence (not a string) as a list of its items, else ValueError naming it.
std::vector<py::object> items_of(py::handle object, const std::string& name)
{
    if (!py::isinstance<py::sequence>(object) || py::isinstance<py::str>(object))
        throw py::value_error(name + ": must be a sequence, got " + describe(object));
    std::vector<py::object> items;
    for (py::handle item : py::reinterpret_borrow<py::sequence>(object))
        items.push_back(py::reinterpret_borrow<py::object>(item));
    return items;
}

float float_of(py::handle object, const std::string& name)
{
    if (!py::isinstance<py::float_>(object) && !py::isinstance<py::int_>(object) &&
        !py::hasattr(object, "__float__"))
        throw py::value_error(name + ": must be a number, got " + describe(object));
    // A number beyond float32's range would become inf (10**400 raises OverflowError),
    // and the engine's message would no longer show the value given: refused here.
    // NaN and inf pass, for the engine to name.
    const std::string beyond = name +
                               ": must be within float32's range (magnitude at most "
                               "3.4028235e38), got " +
                               describe(object);
    double value = 0.0;
    try {
        value = py::float_(py::reinterpret_borrow<py::object>(object));
    } catch (const py::error_already_set&) {
        throw py::value_error(beyond);
    }
    if (std::isfinite(value) && std::fabs(value) > std::numeric_limits<float>::max())
        throw py::value_error(beyond);
    return static_cast<float>(value);
}

int int_of(py::handle object, const std::string& name)
{
    // An index: Python int or NumPy integer, never a float (2.5 is no hypothesis).
    if (!py::hasattr(object, "__index__"))
        throw py::value_error(name + ": must be an integer, got " + describe(object));
    return narrow<int>(
        name, integer_argument{ py::int_(py::reinterpret_borrow<py::object>(object)) });
}

/*!
 * [(vx, vy, [(source, dx, dy, weight), ...]), ...] -> hypotheses. Shapes and types
 * are checked here (ValueError naming the element); the values are the engine's to
 * validate (weights finite, sources in range, ...).
 */
std::vector<tbd_hypothesis> hypotheses_from_python(py::handle object)
{
    std::vector<tbd_hypothesis> hypotheses;
    const std::vector<py::object> items = items_of(object, "hypotheses");
    for (std::size_t m = 0; m < items.size(); ++m) {
        const std::string h = "hypotheses[" + std::to_string(m) + "]";
        const std::vector<py::object> fields = items_of(items[m], h);
        if (fields.size() != 3)
            throw py::value_error(h +
                                  ": must be (vx, vy, [(source, dx, dy, weight), "
                                  "...]), got " +
                                  describe(items[m]));
        tbd_hypothesis hyp;
        hyp.vx = float_of(fields[0], h + ".vx");
        hyp.vy = float_of(fields[1], h + ".vy");
        const std::vector<py::object> transitions =
            items_of(fields[2], h + ".transitions");
        for (std::size_t k = 0; k < transitions.size(); ++k) {
            const std::string t = h + ".transitions[" + std::to_string(k) + "]";
            const std::vector<py::object> terms = items_of(transitions[k], t);
            if (terms.size() != 4)
                throw py::value_error(t + ": must be (source, dx, dy, weight), got " +
                                      describe(transitions[k]));
            tbd_transition tr;
            tr.source = int_of(terms[0], t + ".source");
            tr.dx = float_of(terms[1], t + ".dx");
            tr.dy = float_of(terms[2], t + ".dy");
            tr.weight = float_of(terms[3], t + ".weight");
            hyp.transitions.push_back(tr);
        }
        hypotheses.push_back(std::move(hyp));
    }
    return hypotheses;
}

/*! The shortest decimal that reads back as the same float: 0.9f prints as 0.9, not
 *  0.8999999761581421, and converts back to the very same float32. */
py::float_ shortest(float value)
{
    char text[64];
    const auto end = std::to_chars(text, text + sizeof(text), value).ptr;
    return py::float_(std::strtod(std::string(text, end).c_str(), nullptr));
}

py::list hypotheses_to_python(const std::vector<tbd_hypothesis>& hypotheses)
{
    py::list result;
    for (const tbd_hypothesis& hyp : hypotheses) {
        py::list transitions;
        for (const tbd_transition& tr : hyp.transitions)
            transitions.append(py::make_tuple(
                tr.source, shortest(tr.dx), shortest(tr.dy), shortest(tr.weight)));
        result.append(py::make_tuple(shortest(hyp.vx), shortest(hyp.vy), transitions));
    }
    return result;
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

        .def(py::init([](integer_argument width,
                         integer_argument height,
                         py::object hypotheses,
                         float alpha,
                         float threshold,
                         const std::string& device,
                         const std::string& kernel,
                         const std::string& bilinear,
                         bool autotune,
                         integer_argument max_detections_per_frame,
                         integer_argument batch_frames) {
                 return st_tbd_ff::make(
                     narrow<int>("width", width),
                     narrow<int>("height", height),
                     hypotheses_from_python(hypotheses),
                     alpha,
                     threshold,
                     device,
                     kernel,
                     bilinear,
                     autotune,
                     narrow<int>("max_detections_per_frame", max_detections_per_frame),
                     narrow<int>("batch_frames", batch_frames));
             }),
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

    m.def(
        "tbd_velocity_grid",
        [](float vmax, float step, float spread) {
            return hypotheses_to_python(
                gr::cudadsp::core::st_tbd_config::velocity_grid(vmax, step, spread));
        },
        py::arg("vmax"),
        py::arg("step"),
        py::arg("spread"),
        D(tbd_velocity_grid));
}
