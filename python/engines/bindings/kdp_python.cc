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
/* BINDTOOL_HEADER_FILE(core/kdp.h)                                                */
/* BINDTOOL_HEADER_FILE_HASH(969d65cad44b128ee8c730ef16f1b023)                     */
/***********************************************************************************/

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "array_arguments.h"
#include "engine_handle.h"
#include "integer_argument.h"
#include <gnuradio/cudadsp/core/kdp.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

namespace core = gr::cudadsp::core;
using gr::cudadsp::bindings::integer_argument;
using gr::cudadsp::bindings::narrow;

//! The KDP engine as Python holds it: one radial length (ngates), any radials a call.
using kdp_handle = cudadsp_engines::engine_handle<core::kdp_processor>;

//! \p array as float32 radials: its last axis is the engine's ngates gates.
py::array_t<float, py::array::c_style>
radials(const py::array& array, const char* name, std::size_t ngates)
{
    auto converted = cudadsp_engines::float32_array(array, name);
    if (converted.ndim() < 1 ||
        converted.shape(converted.ndim() - 1) != static_cast<py::ssize_t>(ngates))
        throw py::value_error(std::string(name) + ": its last axis must hold the " +
                              std::to_string(ngates) + " gates of a radial, got shape " +
                              cudadsp_engines::shape_text(array));
    return converted;
}

//! \p array as radials of \p phidp's shape.
py::array_t<float, py::array::c_style>
radials_like(const py::array& array,
             const char* name,
             const py::array_t<float, py::array::c_style>& phidp)
{
    auto converted = cudadsp_engines::float32_array(array, name);
    if (converted.ndim() != phidp.ndim() ||
        !std::equal(phidp.shape(), phidp.shape() + phidp.ndim(), converted.shape()))
        throw py::value_error(std::string(name) + ": must have phidp_deg's shape " +
                              cudadsp_engines::shape_text(phidp) + ", got " +
                              cudadsp_engines::shape_text(array));
    return converted;
}

//! (processed PhiDP, KDP), each of phidp_deg's shape.
py::tuple process(kdp_handle& self,
                  const py::array& phidp_deg,
                  const std::optional<py::array>& rhohv,
                  const std::optional<py::array>& snr_db)
{
    const std::size_t ngates = self.config().ngates;
    const auto phidp = radials(phidp_deg, "phidp_deg", ngates);
    py::array_t<float, py::array::c_style> rhohv_radials, snr_radials;
    if (rhohv)
        rhohv_radials = radials_like(*rhohv, "rhohv", phidp);
    if (snr_db)
        snr_radials = radials_like(*snr_db, "snr_db", phidp);
    std::vector<py::ssize_t> shape(phidp.shape(), phidp.shape() + phidp.ndim());
    py::array_t<float> processed(shape), kdp(shape);
    const auto nradials = static_cast<std::size_t>(phidp.size()) / ngates;
    {
        py::gil_scoped_release release;
        self.locked([&](core::kdp_processor& engine) {
            engine.process(phidp.data(),
                           rhohv ? rhohv_radials.data() : nullptr,
                           snr_db ? snr_radials.data() : nullptr,
                           nradials,
                           processed.mutable_data(),
                           kdp.mutable_data());
        });
    }
    return py::make_tuple(processed, kdp);
}

} // namespace

void bind_kdp(py::module& m)
{
    py::class_<kdp_handle>(
        m,
        "kdp_processor",
        R"doc(Specific differential phase (KDP) and processed PhiDP along radials (the engine of kdp_ff), CPU or CUDA.

Per radial, in float64, the same rule on both backends (docs/blocks/kdp_ff.md): gates
masked where |PhiDP| > 3600 deg or not finite, RhoHV < min_rhohv or SNR < min_snr_db;
PhiDP unfolded against the mean of the 5 valid gates before; gaps up to max_gap_km
interpolated; a least-squares line over window_km at every gate: processed PhiDP its
value (deg), KDP half its slope (deg/km, one-way). NaN outside every segment. The CPU
and CUDA backends give bit-identical outputs. Most users want cudadsp.radar.kdp.)doc")
        .def(py::init([](integer_argument ngates,
                         double gate_spacing_m,
                         double window_km,
                         double max_gap_km,
                         double min_rhohv,
                         double min_snr_db,
                         const std::string& device) {
                 core::kdp_config config;
                 config.ngates = narrow<std::size_t>("ngates", ngates);
                 config.gate_spacing_m = gate_spacing_m;
                 config.window_km = window_km;
                 config.max_gap_km = max_gap_km;
                 config.min_rhohv = min_rhohv;
                 config.min_snr_db = min_snr_db;
                 config.device = device;
                 return std::make_unique<kdp_handle>(config);
             }),
             py::arg("ngates"),
             py::arg("gate_spacing_m") = 150.0,
             py::arg("window_km") = 3.0,
             py::arg("max_gap_km") = 1.0,
             py::arg("min_rhohv") = 0.8,
             py::arg("min_snr_db") = 3.0,
             py::arg("device") = "auto",
             "Make an engine for radials of ngates gates. ValueError naming a bad "
             "argument.")
        .def("process",
             &process,
             py::arg("phidp_deg"),
             py::arg("rhohv") = py::none(),
             py::arg("snr_db") = py::none(),
             "(processed PhiDP in deg, KDP in deg/km) of radials whose last axis holds "
             "ngates gates; rhohv and snr_db, when given, of the same shape.")
        .def("backend",
             &kdp_handle::backend,
             "The device the engine runs on: \"cpu\" or \"cuda:N\".")
        .def_property_readonly("ngates",
                               [](const kdp_handle& k) { return k.config().ngates; })
        .def_property_readonly(
            "gate_spacing_m",
            [](const kdp_handle& k) { return k.config().gate_spacing_m; })
        .def_property_readonly("window_km",
                               [](const kdp_handle& k) { return k.config().window_km; })
        .def_property_readonly("max_gap_km",
                               [](const kdp_handle& k) { return k.config().max_gap_km; })
        .def_property_readonly("min_rhohv",
                               [](const kdp_handle& k) { return k.config().min_rhohv; })
        .def_property_readonly("min_snr_db",
                               [](const kdp_handle& k) { return k.config().min_snr_db; });
}
