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
/* BINDTOOL_HEADER_FILE(core/dense_offsets.h)                                      */
/* BINDTOOL_HEADER_FILE_HASH(312cadfa71e8a679922a712877409421)                     */
/***********************************************************************************/

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "array_arguments.h"
#include "engine_handle.h"
#include <gnuradio/cudadsp/core/dense_offsets.h>
// pydoc.h is automatically generated in the build directory
#include <dense_offsets_pydoc.h>

#include <type_traits>
#include <complex>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

namespace core = gr::cudadsp::core;

// estimate() writes the results straight into a float32 NumPy array of shape
// (windows, 7): one offset_result per row, its fields in declaration order.
static_assert(std::is_standard_layout<core::offset_result>::value &&
                  sizeof(core::offset_result) == 7 * sizeof(float),
              "offset_result must be seven packed floats");

/*! The engine as Python holds it (a stack driver may share one among threads; it keeps
 *  its buffers and plans between calls, so the calls take turns). */
using estimator_handle = cudadsp_engines::engine_handle<core::dense_offsets_estimator>;

/*! One estimate() with \p progress reporting for this call only (cleared after it,
 *  also when it throws), and the call's timing. Called without the GIL. */
core::offsets_timing
estimate_with_progress(estimator_handle& self,
                       const core::image_view& reference,
                       const core::image_view& secondary,
                       const std::vector<core::offset_window>& windows,
                       core::offset_result* results,
                       core::offsets_progress progress)
{
    return self.locked([&](core::dense_offsets_estimator& engine) {
        engine.set_progress(std::move(progress));
        try {
            engine.estimate(
                reference, secondary, windows.data(), windows.size(), results);
        } catch (...) {
            engine.set_progress({});
            throw;
        }
        engine.set_progress({});
        return engine.last_timing();
    });
}

//! PyCuAmpcor's derampMethod, whose integers the enum keeps.
core::deramp_method deramp_of(int value)
{
    if (value < 0 || value > 2)
        throw py::value_error(
            "deramp: must be 0 (amplitudes), 1 (PyCuAmpcor's phase-gradient removal) or "
            "2 (complex, no deramping), got " +
            std::to_string(value));
    return static_cast<core::deramp_method>(value);
}

//! The deramp's axis pairing by the name of the PyCuAmpcor that pairs them so.
core::deramp_axes deramp_pairing_of(const std::string& value)
{
    if (value == "isce3")
        return core::deramp_axes::isce3;
    if (value == "isce2")
        return core::deramp_axes::isce2;
    throw py::value_error("deramp_pairing: must be \"isce3\" (the ramp removed) or "
                          "\"isce2\" (ISCE2 2.6's swapped axes), got \"" +
                          value + "\"");
}

const char* deramp_pairing_name(core::deramp_axes value)
{
    return value == core::deramp_axes::isce2 ? "isce2" : "isce3";
}

//! The phases the deramp removes, by the names of the axes (ISCE3's derampAxis 0, 1, 2).
core::deramp_direction deramp_axis_of(const std::string& value)
{
    if (value == "down")
        return core::deramp_direction::down;
    if (value == "across")
        return core::deramp_direction::across;
    if (value == "both")
        return core::deramp_direction::both;
    throw py::value_error(
        "deramp_axis: must be \"down\" (azimuth), \"across\" (range) or "
        "\"both\", got \"" +
        value + "\"");
}

const char* deramp_axis_name(core::deramp_direction value)
{
    switch (value) {
    case core::deramp_direction::down:
        return "down";
    case core::deramp_direction::across:
        return "across";
    default:
        return "both";
    }
}

//! The surface whose maximum is the result's peak.
core::peak_surface peak_of(const std::string& value)
{
    if (value == "oversampled")
        return core::peak_surface::oversampled;
    if (value == "raw")
        return core::peak_surface::raw;
    throw py::value_error("peak: must be \"oversampled\" (ISCE3's) or \"raw\" "
                          "(PyCuAmpcor v2's), got \"" +
                          value + "\"");
}

const char* peak_name(core::peak_surface value)
{
    return value == core::peak_surface::raw ? "raw" : "oversampled";
}

/*!
 * \p config under the Python API's names and spellings (deramp an int, deramp_pairing,
 * deramp_axis and peak names): what dense_offsets_estimator.defaults gives for the
 * default config.
 */
py::dict configuration_dict(const core::dense_offsets_config& config)
{
    py::dict d;
    d["window_width"] = config.window_width;
    d["window_height"] = config.window_height;
    d["half_search_across"] = config.half_search_across;
    d["half_search_down"] = config.half_search_down;
    d["raw_oversampling"] = config.raw_oversampling;
    d["corr_oversampling"] = config.corr_oversampling;
    d["zoom_window"] = config.zoom_window;
    d["corr_stat_window"] = config.corr_stat_window;
    d["deramp"] = static_cast<int>(config.deramp);
    d["deramp_pairing"] = deramp_pairing_name(config.deramp_pairing);
    d["deramp_axis"] = deramp_axis_name(config.deramp_axis);
    d["peak"] = peak_name(config.peak);
    d["merge_gross_offset"] = config.merge_gross_offset;
    d["device"] = config.device;
    d["batch_windows"] = config.batch_windows;
    return d;
}

std::string describe(const py::array& array)
{
    return "dtype " + py::str(array.dtype()).cast<std::string>() + ", shape " +
           py::str(array.attr("shape")).cast<std::string>();
}

/*! A NumPy image and the engine's view of it. The array is the caller's own where it
 *  is already C-contiguous in native byte order (a memory map of an SLC file stays
 *  one), else a converted copy that this object keeps alive. */
struct held_image {
    py::array array;
    core::image_view view;
};

held_image image_of(const py::handle& object, const char* name)
{
    const auto array = py::array::ensure(object);
    if (!array)
        throw py::type_error(std::string(name) + ": must be a NumPy array");
    held_image image;
    const char kind = array.dtype().kind();
    const auto itemsize = cudadsp_engines::item_size(array.dtype());
    if (kind == 'c' && itemsize == 8 && array.ndim() == 2) {
        image.array =
            py::array_t<std::complex<float>,
                        py::array::c_style | py::array::forcecast>::ensure(array);
        image.view.type = core::slc_sample_type::complex_float32;
    } else if (kind == 'i' && itemsize == 2 && array.ndim() == 3 && array.shape(2) == 2) {
        image.array =
            py::array_t<std::int16_t, py::array::c_style | py::array::forcecast>::ensure(
                array);
        image.view.type = core::slc_sample_type::complex_int16;
    } else {
        throw py::type_error(std::string(name) +
                             ": must be complex64 of shape (rows, columns) or int16 "
                             "I, Q pairs of shape (rows, columns, 2), got " +
                             describe(array));
    }
    if (!image.array)
        throw py::type_error(std::string(name) + ": cannot be converted (" +
                             describe(array) + ")");
    if (array.shape(0) < 1 || array.shape(1) < 1)
        throw py::value_error(std::string(name) + ": has no pixels (" + describe(array) +
                              ")");
    image.view.data = image.array.data();
    image.view.height = static_cast<std::size_t>(array.shape(0));
    image.view.width = static_cast<std::size_t>(array.shape(1));
    return image;
}

//! \p object as a 1-D integer array of \p T (a copy only where needed).
template <typename T>
py::array_t<T, py::array::c_style> index_array(const py::handle& object, const char* name)
{
    const auto array = py::array::ensure(object);
    // Integers only: a float position would be truncated without a word.
    if (!array || (array.dtype().kind() != 'i' && array.dtype().kind() != 'u') ||
        array.ndim() != 1)
        throw py::type_error(std::string(name) + ": must be a 1-D integer array" +
                             (array ? ", got " + describe(array) : std::string()));
    auto converted =
        py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(array);
    if (!converted)
        throw py::type_error(std::string(name) + ": cannot be converted (" +
                             describe(array) + ")");
    return converted;
}

std::vector<core::offset_window> windows_of(const py::handle& reference_down,
                                            const py::handle& reference_across,
                                            const py::handle& gross_down,
                                            const py::handle& gross_across)
{
    const auto down = index_array<std::int64_t>(reference_down, "reference_down");
    const auto across = index_array<std::int64_t>(reference_across, "reference_across");
    const auto gdown = index_array<std::int32_t>(gross_down, "gross_down");
    const auto gacross = index_array<std::int32_t>(gross_across, "gross_across");
    const auto n = down.shape(0);
    if (across.shape(0) != n || gdown.shape(0) != n || gacross.shape(0) != n)
        throw py::value_error(
            "reference_down, reference_across, gross_down, gross_across: must have "
            "one length, got " +
            std::to_string(n) + ", " + std::to_string(across.shape(0)) + ", " +
            std::to_string(gdown.shape(0)) + ", " + std::to_string(gacross.shape(0)));
    const auto d = down.unchecked<1>();
    const auto a = across.unchecked<1>();
    const auto gd = gdown.unchecked<1>();
    const auto ga = gacross.unchecked<1>();
    std::vector<core::offset_window> windows(static_cast<std::size_t>(n));
    for (py::ssize_t k = 0; k < n; ++k)
        windows[k] = core::offset_window{ d(k), a(k), gd(k), ga(k) };
    return windows;
}

py::dict timing_dict(const core::offsets_timing& timing)
{
    py::dict dict;
    dict["upload_ms"] = timing.upload_ms;
    dict["compute_ms"] = timing.compute_ms;
    dict["download_ms"] = timing.download_ms;
    return dict;
}

py::tuple estimate(estimator_handle& self,
                   const py::object& reference,
                   const py::object& secondary,
                   const py::object& reference_down,
                   const py::object& reference_across,
                   const py::object& gross_down,
                   const py::object& gross_across,
                   const std::optional<py::function>& progress)
{
    const held_image reference_image = image_of(reference, "reference");
    const held_image secondary_image = image_of(secondary, "secondary");
    const auto windows =
        windows_of(reference_down, reference_across, gross_down, gross_across);

    py::array_t<float> results(
        { static_cast<py::ssize_t>(windows.size()), static_cast<py::ssize_t>(7) });
    auto* rows = reinterpret_cast<core::offset_result*>(results.mutable_data());

    // The engine calls progress on this thread without the GIL and requires that it
    // not throw: a Python exception is kept, further reports are dropped, and the
    // exception is raised once estimate() has returned.
    auto failure = std::make_shared<std::exception_ptr>();
    core::offsets_progress report;
    if (progress) {
        const py::function callback = *progress;
        report = [callback, failure](std::size_t done, std::size_t total) {
            if (*failure)
                return;
            py::gil_scoped_acquire acquire;
            try {
                callback(done, total);
            } catch (...) {
                *failure = std::current_exception();
            }
        };
    }
    core::offsets_timing timing;
    {
        py::gil_scoped_release release;
        timing = estimate_with_progress(
            self, reference_image.view, secondary_image.view, windows, rows, report);
    }
    if (*failure)
        std::rethrow_exception(*failure);
    return py::make_tuple(results, timing_dict(timing));
}

} // namespace

void bind_dense_offsets(py::module& m)
{
    // The engine's defaults, written once (core::dense_offsets_config,
    // core::offset_grid): the arguments below and the Python API
    // (dense_offsets_estimator.defaults) read them.
    const core::dense_offsets_config defaults;
    const core::offset_grid grid_defaults;
    py::class_<estimator_handle>(
        m, "dense_offsets_estimator", D(core, dense_offsets_estimator))
        .def(py::init([](int window_width,
                         int window_height,
                         int half_search_across,
                         int half_search_down,
                         int raw_oversampling,
                         int corr_oversampling,
                         int zoom_window,
                         int corr_stat_window,
                         int deramp,
                         const std::string& deramp_pairing,
                         const std::string& deramp_axis,
                         const std::string& peak,
                         bool merge_gross_offset,
                         const std::string& device,
                         long long batch_windows) {
                 if (batch_windows < 0)
                     throw py::value_error("batch_windows: must be >= 0, got " +
                                           std::to_string(batch_windows));
                 core::dense_offsets_config config;
                 config.window_width = window_width;
                 config.window_height = window_height;
                 config.half_search_across = half_search_across;
                 config.half_search_down = half_search_down;
                 config.raw_oversampling = raw_oversampling;
                 config.corr_oversampling = corr_oversampling;
                 config.zoom_window = zoom_window;
                 config.corr_stat_window = corr_stat_window;
                 config.deramp = deramp_of(deramp);
                 config.deramp_pairing = deramp_pairing_of(deramp_pairing);
                 config.deramp_axis = deramp_axis_of(deramp_axis);
                 config.peak = peak_of(peak);
                 config.merge_gross_offset = merge_gross_offset;
                 config.device = device;
                 config.batch_windows = static_cast<std::size_t>(batch_windows);
                 return std::make_unique<estimator_handle>(config);
             }),
             py::arg("window_width") = defaults.window_width,
             py::arg("window_height") = defaults.window_height,
             py::arg("half_search_across") = defaults.half_search_across,
             py::arg("half_search_down") = defaults.half_search_down,
             py::arg("raw_oversampling") = defaults.raw_oversampling,
             py::arg("corr_oversampling") = defaults.corr_oversampling,
             py::arg("zoom_window") = defaults.zoom_window,
             py::arg("corr_stat_window") = defaults.corr_stat_window,
             py::arg("deramp") = static_cast<int>(defaults.deramp),
             py::arg("deramp_pairing") = deramp_pairing_name(defaults.deramp_pairing),
             py::arg("deramp_axis") = deramp_axis_name(defaults.deramp_axis),
             py::arg("peak") = peak_name(defaults.peak),
             py::arg("merge_gross_offset") = defaults.merge_gross_offset,
             py::arg("device") = defaults.device,
             py::arg("batch_windows") = defaults.batch_windows,
             D(core, dense_offsets_estimator, dense_offsets_estimator))
        .def("estimate",
             &estimate,
             py::arg("reference"),
             py::arg("secondary"),
             py::arg("reference_down"),
             py::arg("reference_across"),
             py::arg("gross_down"),
             py::arg("gross_across"),
             py::arg("progress") = py::none(),
             D(core, dense_offsets_estimator, estimate))
        .def("backend",
             &estimator_handle::backend,
             D(core, dense_offsets_estimator, backend))
        .def_property_readonly(
            "window_width",
            [](const estimator_handle& e) { return e.config().window_width; })
        .def_property_readonly(
            "window_height",
            [](const estimator_handle& e) { return e.config().window_height; })
        .def_property_readonly(
            "half_search_across",
            [](const estimator_handle& e) { return e.config().half_search_across; })
        .def_property_readonly(
            "half_search_down",
            [](const estimator_handle& e) { return e.config().half_search_down; })
        .def_property_readonly(
            "raw_oversampling",
            [](const estimator_handle& e) { return e.config().raw_oversampling; })
        .def_property_readonly(
            "corr_oversampling",
            [](const estimator_handle& e) { return e.config().corr_oversampling; })
        .def_property_readonly(
            "zoom_window",
            [](const estimator_handle& e) { return e.config().zoom_window; })
        .def_property_readonly(
            "corr_stat_window",
            [](const estimator_handle& e) { return e.config().corr_stat_window; })
        .def_property_readonly(
            "deramp",
            [](const estimator_handle& e) { return static_cast<int>(e.config().deramp); })
        .def_property_readonly("deramp_pairing",
                               [](const estimator_handle& e) {
                                   return deramp_pairing_name(e.config().deramp_pairing);
                               })
        .def_property_readonly("deramp_axis",
                               [](const estimator_handle& e) {
                                   return deramp_axis_name(e.config().deramp_axis);
                               })
        .def_property_readonly(
            "peak", [](const estimator_handle& e) { return peak_name(e.config().peak); })
        .def_property_readonly(
            "merge_gross_offset",
            [](const estimator_handle& e) { return e.config().merge_gross_offset; })
        .def_property_readonly(
            "device", [](const estimator_handle& e) { return e.config().device; })
        .def_property_readonly(
            "batch_windows",
            [](const estimator_handle& e) { return e.config().batch_windows; })
        .def_property_readonly_static(
            "defaults",
            [defaults](const py::object&) { return configuration_dict(defaults); },
            "The engine's default configuration (core::dense_offsets_config), under "
            "the arguments' names.")
        .def_property_readonly_static(
            "grid_defaults",
            [grid_defaults](const py::object&) {
                py::dict d;
                d["skip_down"] = grid_defaults.skip_down;
                d["skip_across"] = grid_defaults.skip_across;
                return d;
            },
            "The window grid's default spacing (core::offset_grid), pixels.")
        .def_property_readonly_static("result_fields", [](const py::object&) {
            return py::make_tuple("offset_down",
                                  "offset_across",
                                  "snr",
                                  "cov_down",
                                  "cov_across",
                                  "cov_cross",
                                  "peak");
        });
}
