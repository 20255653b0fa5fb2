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
/* BINDTOOL_HEADER_FILE(core/patch_correlator.h)                                   */
/* BINDTOOL_HEADER_FILE_HASH(acc1cf21e3715dfc14485a0a5a5d50c6)                     */
/***********************************************************************************/

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "array_arguments.h"
#include "engine_handle.h"
#include "integer_argument.h"
#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

namespace core = gr::cudadsp::core;
using gr::cudadsp::bindings::integer_argument;
using gr::cudadsp::bindings::narrow;

using patch_handle = cudadsp_engines::engine_handle<core::patch_correlator>;

/*!
 * An SLC as the engine reads it: complex64 (rows, columns), converted from any complex
 * or real array, or int16 (rows, columns, 2) interleaved I/Q as GMTSAR stores it (read
 * as it is). \p keep holds the array the view points into.
 */
core::image_view image_of(const py::array& image, const char* name, py::array& keep)
{
    core::image_view view;
    if (image.ndim() == 3 && image.shape(2) == 2 && image.dtype().kind() == 'i' &&
        cudadsp_engines::item_size(image.dtype()) == 2) {
        keep = py::array::ensure(image, py::array::c_style);
        view.type = core::slc_sample_type::complex_int16;
    } else if (image.ndim() == 2) {
        keep = cudadsp_engines::complex64_array(image, name);
        view.type = core::slc_sample_type::complex_float32;
    } else {
        throw py::value_error(std::string(name) +
                              ": must be complex (rows, columns) or int16 (rows, "
                              "columns, 2) interleaved I/Q, got shape " +
                              cudadsp_engines::shape_text(image));
    }
    view.data = keep.data();
    view.height = static_cast<std::size_t>(keep.shape(0));
    view.width = static_cast<std::size_t>(keep.shape(1));
    return view;
}

std::vector<int> centres_of(const py::array& values, const char* name)
{
    const auto a =
        py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(
            values);
    if (!a || a.ndim() != 1 || values.dtype().kind() == 'f' ||
        values.dtype().kind() == 'c' || values.dtype().kind() == 'b')
        throw py::type_error(std::string(name) + ": must be a 1-D array of integers");
    std::vector<int> out(static_cast<std::size_t>(a.size()));
    for (py::ssize_t i = 0; i < a.size(); ++i) {
        if (a.at(i) < 0 || a.at(i) > 0x7fffffff)
            throw py::value_error(std::string(name) + "[" + std::to_string(i) +
                                  "]: must be in [0, 2^31), got " +
                                  std::to_string(a.at(i)));
        out[static_cast<std::size_t>(i)] = static_cast<int>(a.at(i));
    }
    return out;
}

/*! Correlates GMTSAR's patches at centres (x[k], y[k]): (results, dx, dy), results a
 *  structured array of patch_result, dx and dy GMTSAR's offsets (float32). */
py::tuple correlate(patch_handle& self,
                    const py::array& master,
                    const py::array& aligned,
                    const py::array& x,
                    const py::array& y,
                    integer_argument rshift_argument,
                    integer_argument ashift_argument,
                    double stretch)
{
    const int rshift = narrow<int>("rshift", rshift_argument);
    const int ashift = narrow<int>("ashift", ashift_argument);
    if (!std::isfinite(stretch))
        throw py::value_error("stretch: must be finite, got " + std::to_string(stretch));
    py::array master_data, aligned_data;
    const core::image_view m = image_of(master, "master", master_data);
    const core::image_view a = image_of(aligned, "aligned", aligned_data);
    const std::vector<int> xs = centres_of(x, "x");
    const std::vector<int> ys = centres_of(y, "y");
    if (xs.size() != ys.size())
        throw py::value_error("y: must have as many centres as x (" +
                              std::to_string(xs.size()) + "), got " +
                              std::to_string(ys.size()));
    const auto& config = self.config();
    std::vector<core::patch_pair> pairs;
    pairs.reserve(xs.size());
    for (std::size_t k = 0; k < xs.size(); ++k)
        pairs.push_back(core::gmtsar_patch_pair(
            xs[k], ys[k], config.xsearch, config.ysearch, rshift, ashift, stretch));
    const auto n = static_cast<py::ssize_t>(pairs.size());
    auto results = cudadsp_engines::new_vector<core::patch_result>(n);
    {
        py::gil_scoped_release release;
        self.locked([&](core::patch_correlator& engine) {
            engine.correlate(m, a, pairs.data(), pairs.size(), results.mutable_data());
        });
    }
    auto dx = cudadsp_engines::new_vector<float>(n);
    auto dy = cudadsp_engines::new_vector<float>(n);
    for (py::ssize_t k = 0; k < n; ++k) {
        const core::patch_result& r = results.at(k);
        dx.mutable_at(k) = core::patch_offset_dx(r, config.range_interp, rshift);
        dy.mutable_at(k) = core::patch_offset_dy(
            r,
            ashift,
            core::gmtsar_stretch_shift(ys[static_cast<std::size_t>(k)], stretch));
    }
    return py::make_tuple(results, dx, dy);
}

} // namespace

void bind_patch_correlator(py::module& m)
{
    PYBIND11_NUMPY_DTYPE(core::patch_result, jpeak, ipeak, xfrac, yfrac, corr);

    py::class_<patch_handle>(
        m,
        "patch_correlator",
        R"doc(Image-patch cross-correlation as GMTSAR's xcorr computes it (frequency method; the engine of patch_xcorr_cc and cudadsp_xcorr), on the CPU or a CUDA GPU. docs/design/gmtsar_xcorr.md has every step and its source. Most users want cudadsp.insar.patch_offsets().)doc")
        .def(py::init([](integer_argument xsearch,
                         integer_argument ysearch,
                         integer_argument range_interp,
                         bool highres,
                         integer_argument interp,
                         const std::string& device) {
                 core::patch_correlator_config config;
                 config.xsearch = narrow<int>("xsearch", xsearch);
                 config.ysearch = narrow<int>("ysearch", ysearch);
                 config.range_interp = narrow<int>("range_interp", range_interp);
                 config.highres = highres;
                 config.interp = narrow<int>("interp", interp);
                 config.device = device;
                 return std::make_unique<patch_handle>(config);
             }),
             py::arg("xsearch") = 64,
             py::arg("ysearch") = 64,
             py::arg("range_interp") = 2,
             py::arg("highres") = true,
             py::arg("interp") = 16,
             py::arg("device") = "auto",
             "Make a correlator: search half-widths xsearch (range-interpolated "
             "samples) and ysearch (rows), powers of two 8..1024; patches are 4 xsearch "
             "x 4 ysearch. ValueError naming a bad argument.")
        .def("correlate",
             &correlate,
             py::arg("master"),
             py::arg("aligned"),
             py::arg("x"),
             py::arg("y"),
             py::arg("rshift") = 0,
             py::arg("ashift") = 0,
             py::arg("stretch") = 0.0,
             "Correlate the patches centred at master columns x and rows y (the aligned "
             "patch at x + rshift, y + ashift + int(y * stretch)): (results, dx, dy). "
             "results: structured array jpeak, ipeak, xfrac, yfrac, corr (percent) per "
             "patch; dx, dy: GMTSAR's offsets (float32). Images: complex (rows, "
             "columns) or int16 (rows, columns, 2). ValueError naming a patch whose "
             "window leaves its image.")
        .def("backend",
             &patch_handle::backend,
             "The device the engine runs on: \"cpu\" or \"cuda:N\".");
}
