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
/* BINDTOOL_HEADER_FILE(core/phase_unwrap_2d.h)                                    */
/* BINDTOOL_HEADER_FILE_HASH(9c6008cd0f38c9efec1752e9e1918d5b)                     */
/***********************************************************************************/

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "array_arguments.h"
#include "engine_handle.h"
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
// pydoc.h is automatically generated in the build directory
#include <phase_unwrapper_2d_pydoc.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace {

namespace core = gr::cudadsp::core;

/*! The engine as Python holds it (unwrap_phase_2d shares its cached engines among
 *  threads; an engine keeps per-frame workspace, so its calls take turns). */
using unwrapper_handle = cudadsp_engines::engine_handle<core::phase_unwrapper_2d>;

std::size_t at_least_one(long long value, const char* name)
{
    if (value < 1)
        throw py::value_error(std::string(name) + ": must be >= 1, got " +
                              std::to_string(value));
    return static_cast<std::size_t>(value);
}

//! tile_size takes 0 (automatic): only a negative value cannot become a size.
std::size_t not_negative(long long value, const char* name)
{
    if (value < 0)
        throw py::value_error(std::string(name) + ": must be >= 0, got " +
                              std::to_string(value));
    return static_cast<std::size_t>(value);
}

/*! Checks that \p array is one frame of \p config (two dimensions, (height, width))
 *  of a dtype whose kind is among \p accepted_kinds ('b' bool, 'i', 'u', 'f'). */
void check_frame(const py::array& array,
                 const char* name,
                 const std::string& accepted_kinds,
                 const core::phase_unwrap_2d_config& config)
{
    if (accepted_kinds.find(array.dtype().kind()) == std::string::npos)
        throw py::type_error(std::string(name) + ": dtype " +
                             py::str(array.dtype()).cast<std::string>() +
                             " is not accepted here");
    const auto height = static_cast<py::ssize_t>(config.height);
    const auto width = static_cast<py::ssize_t>(config.width);
    if (array.ndim() != 2 || array.shape(0) != height || array.shape(1) != width)
        throw py::value_error(std::string(name) + ": must have the engine's shape (" +
                              std::to_string(height) + ", " + std::to_string(width) +
                              "), got " + cudadsp_engines::shape_text(array));
}

//! \p array, checked, as a C-contiguous float32 frame (a copy only where needed).
py::array_t<float, py::array::c_style> float_frame(
    const py::array& array, const char* name, const core::phase_unwrap_2d_config& config)
{
    // Real numbers only: a complex phasor's phase is unwrap_phase_2d's to take.
    check_frame(array, name, "iuf", config);
    return cudadsp_engines::float32_array(array, name);
}

//! \p mask, checked, as a C-contiguous frame of 1 (valid) and 0.
py::array_t<std::uint8_t, py::array::c_style>
mask_frame(const py::array& mask, const core::phase_unwrap_2d_config& config)
{
    // Boolean or integer, nonzero meaning valid; a float mask is more likely a weight.
    check_frame(mask, "mask", "biu", config);
    // Through bool, so that a nonzero integer never truncates to a zero byte.
    const py::array valid =
        mask.dtype().kind() == 'b' ? mask : py::array(mask.attr("astype")("bool"));
    auto frame =
        py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>::ensure(
            valid);
    if (!frame)
        throw py::type_error("mask: cannot be converted to uint8");
    return frame;
}

py::dict report_dict(const core::unwrap_2d_report& report)
{
    py::dict dict;
    dict["valid_pixels"] = report.valid_pixels;
    dict["components"] = report.components;
    dict["iterations"] = report.iterations;
    dict["residues"] = report.residues;
    dict["flow"] = report.flow;
    dict["relative_residual"] = report.relative_residual;
    return dict;
}

py::tuple unwrap(unwrapper_handle& self,
                 const py::array& wrapped,
                 const std::optional<py::array>& weight,
                 const std::optional<py::array>& mask)
{
    const core::phase_unwrap_2d_config& config = self.config();
    const auto wrapped_frame = float_frame(wrapped, "wrapped", config);
    py::array_t<float, py::array::c_style> weight_frame;
    if (weight)
        weight_frame = float_frame(*weight, "weight", config);
    py::array_t<std::uint8_t, py::array::c_style> valid_frame;
    if (mask)
        valid_frame = mask_frame(*mask, config);

    const std::vector<py::ssize_t> shape{ static_cast<py::ssize_t>(config.height),
                                          static_cast<py::ssize_t>(config.width) };
    py::array_t<float> unwrapped(shape);
    py::array_t<std::int32_t> cycles(shape);
    const bool with_components = config.method != core::unwrap_2d_method::least_squares;
    py::object components = py::none();
    core::unwrap_2d_buffers buffers;
    buffers.wrapped = wrapped_frame.data();
    buffers.unwrapped = unwrapped.mutable_data();
    buffers.weight = weight ? weight_frame.data() : nullptr;
    buffers.mask = mask ? valid_frame.data() : nullptr;
    buffers.cycles = cycles.mutable_data();
    if (with_components) {
        py::array_t<std::int32_t> component_frame(shape);
        buffers.components = component_frame.mutable_data();
        components = std::move(component_frame);
    }
    core::unwrap_2d_report report;
    {
        py::gil_scoped_release release;
        report = self.locked(
            [&](core::phase_unwrapper_2d& engine) { return engine.unwrap(buffers); });
    }
    return py::make_tuple(unwrapped, cycles, components, report_dict(report));
}

} // namespace

void bind_phase_unwrapper_2d(py::module& m)
{
    py::class_<unwrapper_handle>(m, "phase_unwrapper_2d", D(core, phase_unwrapper_2d))
        .def(py::init([](long long width,
                         long long height,
                         const std::string& method,
                         double period,
                         bool wrap_around_x,
                         bool wrap_around_y,
                         long long gradient_window,
                         bool congruent,
                         long long max_iterations,
                         double tolerance,
                         long long looks,
                         long long tile_size,
                         long long tile_overlap,
                         const std::string& device,
                         const std::string& mcf_solver) {
                 core::phase_unwrap_2d_config config;
                 config.width = at_least_one(width, "width");
                 config.height = at_least_one(height, "height");
                 config.method = core::parse_unwrap_2d_method(method, "method");
                 config.period = period;
                 config.wrap_around_x = wrap_around_x;
                 config.wrap_around_y = wrap_around_y;
                 config.gradient_window =
                     at_least_one(gradient_window, "gradient_window");
                 config.congruent = congruent;
                 config.max_iterations = at_least_one(max_iterations, "max_iterations");
                 config.tolerance = tolerance;
                 config.looks = at_least_one(looks, "looks");
                 config.tile_size = not_negative(tile_size, "tile_size");
                 config.tile_overlap = not_negative(tile_overlap, "tile_overlap");
                 config.device = device;
                 config.mcf_solver =
                     core::parse_unwrap_2d_mcf_solver(mcf_solver, "mcf_solver");
                 return std::make_unique<unwrapper_handle>(config);
             }),
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
             py::arg("looks") = 1,
             py::arg("tile_size") = 0,
             py::arg("tile_overlap") = 128,
             py::arg("device") = "auto",
             py::arg("mcf_solver") = "shortest_paths",
             D(core, phase_unwrapper_2d, phase_unwrapper_2d))
        .def("unwrap",
             &unwrap,
             py::arg("wrapped"),
             py::arg("weight") = py::none(),
             py::arg("mask") = py::none(),
             D(core, phase_unwrapper_2d, unwrap))
        .def("backend", &unwrapper_handle::backend, D(core, phase_unwrapper_2d, backend))
        .def_property_readonly("width",
                               [](const unwrapper_handle& u) { return u.config().width; })
        .def_property_readonly(
            "height", [](const unwrapper_handle& u) { return u.config().height; })
        .def_property_readonly(
            "method",
            [](const unwrapper_handle& u) { return core::to_string(u.config().method); })
        .def_property_readonly(
            "period", [](const unwrapper_handle& u) { return u.config().period; })
        .def_property_readonly(
            "wrap_around_x",
            [](const unwrapper_handle& u) { return u.config().wrap_around_x; })
        .def_property_readonly(
            "wrap_around_y",
            [](const unwrapper_handle& u) { return u.config().wrap_around_y; })
        .def_property_readonly(
            "gradient_window",
            [](const unwrapper_handle& u) { return u.config().gradient_window; })
        .def_property_readonly(
            "congruent", [](const unwrapper_handle& u) { return u.config().congruent; })
        .def_property_readonly(
            "max_iterations",
            [](const unwrapper_handle& u) { return u.config().max_iterations; })
        .def_property_readonly(
            "tolerance", [](const unwrapper_handle& u) { return u.config().tolerance; })
        .def_property_readonly("looks",
                               [](const unwrapper_handle& u) { return u.config().looks; })
        .def_property_readonly(
            "tile_size", [](const unwrapper_handle& u) { return u.config().tile_size; })
        .def_property_readonly(
            "tile_overlap",
            [](const unwrapper_handle& u) { return u.config().tile_overlap; })
        .def_property_readonly(
            "device", [](const unwrapper_handle& u) { return u.config().device; })
        .def_property_readonly("mcf_solver", [](const unwrapper_handle& u) {
            return core::to_string(u.config().mcf_solver);
        });
}
