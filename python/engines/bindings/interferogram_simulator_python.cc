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
/* BINDTOOL_HEADER_FILE(core/interferogram_simulator.h)                            */
/* BINDTOOL_HEADER_FILE_HASH(a5c74eac3b6518382d1478e96a9d5cb9)                     */
/***********************************************************************************/

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace py = pybind11;

#include <gnuradio/cudadsp/core/interferogram_simulator.h>
// pydoc.h is automatically generated in the build directory
#include <interferogram_simulator_pydoc.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace core = gr::cudadsp::core;
using scene = core::interferogram_scene;

//! A read-only (height, width) NumPy view of one of the scene's images, kept alive by
//! the scene's Python object: a 4096 x 4096 scene is not copied.
template <typename T>
py::array image_of(py::object self, const std::vector<T>& data, py::dtype dtype)
{
    const scene& s = self.cast<const scene&>();
    const auto h = static_cast<py::ssize_t>(s.height);
    const auto w = static_cast<py::ssize_t>(s.width);
    const auto item = static_cast<py::ssize_t>(sizeof(T));
    py::array out(dtype, { h, w }, { w * item, item }, data.data(), self);
    out.attr("setflags")(py::arg("write") = false);
    return out;
}

//! A size argument as std::size_t; negative values name the argument (ValueError).
std::size_t size_of(long long value, const char* name)
{
    if (value < 0)
        throw py::value_error(std::string(name) + ": must be >= 2, got " +
                              std::to_string(value));
    return static_cast<std::size_t>(value);
}

} // namespace

void bind_interferogram_simulator(py::module& m)
{
    py::class_<scene>(m, "interferogram_scene", D(core, interferogram_scene))
        .def_readonly("width", &scene::width)
        .def_readonly("height", &scene::height)
        .def_property_readonly("true_phase",
                               [](py::object self) {
                                   const scene& s = self.cast<const scene&>();
                                   return image_of(
                                       self, s.true_phase, py::dtype::of<double>());
                               })
        .def_property_readonly("wrapped",
                               [](py::object self) {
                                   const scene& s = self.cast<const scene&>();
                                   return image_of(
                                       self, s.wrapped, py::dtype::of<float>());
                               })
        .def_property_readonly("coherence",
                               [](py::object self) {
                                   const scene& s = self.cast<const scene&>();
                                   return image_of(
                                       self, s.coherence, py::dtype::of<float>());
                               })
        // 0 / 1 bytes: a valid NumPy bool array as they are.
        .def_property_readonly("mask",
                               [](py::object self) {
                                   const scene& s = self.cast<const scene&>();
                                   return image_of(self, s.mask, py::dtype::of<bool>());
                               })
        .def_property_readonly("aliased",
                               [](py::object self) {
                                   const scene& s = self.cast<const scene&>();
                                   return image_of(
                                       self, s.aliased, py::dtype::of<bool>());
                               })
        .def("__repr__", [](const scene& s) {
            return "interferogram_scene(width=" + std::to_string(s.width) +
                   ", height=" + std::to_string(s.height) + ")";
        });

    m.def(
        "simulate_interferogram",
        [](long long width,
           long long height,
           std::uint64_t seed,
           double topography_cycles,
           double deformation_cycles,
           double atmosphere_rad,
           double coherence,
           bool water,
           bool steep,
           bool vegetation) {
            core::interferogram_scene_config config;
            config.width = size_of(width, "width");
            config.height = size_of(height, "height");
            config.seed = seed;
            config.topography_cycles = topography_cycles;
            config.deformation_cycles = deformation_cycles;
            config.atmosphere_rad = atmosphere_rad;
            config.coherence = coherence;
            config.water = water;
            config.steep = steep;
            config.vegetation = vegetation;
            py::gil_scoped_release release;
            return core::simulate_interferogram(config);
        },
        py::arg("width") = 512,
        py::arg("height") = 512,
        py::arg("seed") = 1,
        py::arg("topography_cycles") = 20.0,
        py::arg("deformation_cycles") = 5.0,
        py::arg("atmosphere_rad") = 2.0,
        py::arg("coherence") = 0.9,
        py::arg("water") = true,
        py::arg("steep") = true,
        py::arg("vegetation") = true,
        D(core, simulate_interferogram));
}
