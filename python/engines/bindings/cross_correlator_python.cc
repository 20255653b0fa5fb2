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
/* BINDTOOL_HEADER_FILE(core/cross_correlator.h)                                   */
/* BINDTOOL_HEADER_FILE_HASH(23b18ce897818bda9bfb0cd580233629)                     */
/***********************************************************************************/

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "array_arguments.h"
#include "engine_handle.h"
#include "integer_argument.h"
#include <gnuradio/cudadsp/core/cross_correlator.h>

#include <algorithm>
#include <complex>
#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

namespace core = gr::cudadsp::core;
using gr::cudadsp::bindings::integer_argument;
using gr::cudadsp::bindings::narrow;

//! The signal cross-correlator as Python holds it: frames of fft_len samples.
using correlator_handle = cudadsp_engines::engine_handle<core::cross_correlator>;

//! \p array as complex64 frames: its size a whole number of fft_len-sample frames.
py::array_t<std::complex<float>, py::array::c_style>
frames(const py::array& array, const char* name, std::size_t fft_len)
{
    auto converted = cudadsp_engines::complex64_array(array, name);
    const auto size = static_cast<std::size_t>(converted.size());
    if (size == 0 || size % fft_len != 0)
        throw py::value_error(std::string(name) + ": must hold whole frames of " +
                              std::to_string(fft_len) + " samples (fft_len), got shape " +
                              cudadsp_engines::shape_text(array));
    return converted;
}

/*! A dict of the frames' lag, magnitude and phase (float32, one a frame), and with
 *  \p spectrum / \p correlation those arrays (complex64, frames x bins / lags). */
py::dict process(correlator_handle& self,
                 const py::array& x,
                 const py::array& y,
                 bool spectrum,
                 bool correlation)
{
    const core::cross_correlator_config& config = self.config();
    const auto xs = frames(x, "x", config.fft_len);
    const auto ys = frames(y, "y", config.fft_len);
    if (xs.size() != ys.size())
        throw py::value_error("y: must hold as many samples as x (" +
                              std::to_string(xs.size()) + "), got " +
                              std::to_string(ys.size()));
    const std::size_t nframes = static_cast<std::size_t>(xs.size()) / config.fft_len;
    std::vector<core::cross_correlation_peak> peaks(nframes);
    const auto rows = static_cast<py::ssize_t>(nframes);
    py::array_t<std::complex<float>> spectra, correlations;
    if (spectrum)
        spectra = py::array_t<std::complex<float>>(
            { rows, static_cast<py::ssize_t>(config.transform_len()) });
    if (correlation)
        correlations = py::array_t<std::complex<float>>(
            { rows, static_cast<py::ssize_t>(config.correlation_len()) });
    {
        py::gil_scoped_release release;
        self.locked([&](core::cross_correlator& engine) {
            engine.process(xs.data(),
                           ys.data(),
                           nframes,
                           peaks.data(),
                           spectrum ? spectra.mutable_data() : nullptr,
                           correlation ? correlations.mutable_data() : nullptr);
        });
    }
    auto lag = cudadsp_engines::new_vector<float>(rows);
    auto magnitude = cudadsp_engines::new_vector<float>(rows);
    auto phase = cudadsp_engines::new_vector<float>(rows);
    for (std::size_t k = 0; k < nframes; ++k) {
        lag.mutable_at(k) = peaks[k].lag;
        magnitude.mutable_at(k) = peaks[k].magnitude;
        phase.mutable_at(k) = peaks[k].phase;
    }
    py::dict result;
    result["lag"] = lag;
    result["magnitude"] = magnitude;
    result["phase"] = phase;
    if (spectrum)
        result["spectrum"] = spectra;
    if (correlation)
        result["correlation"] = correlations;
    return result;
}

} // namespace

void bind_cross_correlator(py::module& m)
{
    py::class_<correlator_handle>(
        m,
        "cross_correlator",
        R"doc(Frame cross-correlator of two complex signals (the engine of cross_correlator_cc), CPU or CUDA.

Frame k holds x[kN .. kN+N-1] and y[kN .. kN+N-1] (N = fft_len). Its linear
cross-correlation r[l] = sum_n x[n] conj(y[n - l]) (zero outside the frame) peaks at
l = d when x is y delayed by d samples. Per frame: the peak lag at 1/interp sample
(band-limited interpolation), |r| / sqrt(E_x E_y) and arg r there; optionally the
cross-spectrum X conj(Y) and r[-max_lag .. max_lag]. docs/blocks/cross_correlator_cc.md
gives the conventions against numpy, scipy and MATLAB. Most users want
cudadsp.cross_correlate.)doc")
        .def(py::init([](integer_argument fft_len,
                         integer_argument interp,
                         integer_argument max_lag,
                         const std::string& device) {
                 core::cross_correlator_config config;
                 config.fft_len = narrow<std::size_t>("fft_len", fft_len);
                 config.interp = narrow<std::size_t>("interp", interp);
                 config.max_lag = narrow<std::size_t>("max_lag", max_lag);
                 config.device = device;
                 return std::make_unique<correlator_handle>(config);
             }),
             py::arg("fft_len"),
             py::arg("interp") = 16,
             py::arg("max_lag") = 0,
             py::arg("device") = "auto",
             "Make an engine for frames of fft_len samples; lags resolved to 1/interp "
             "sample, searched within +-max_lag (0: fft_len - 1). ValueError naming a "
             "bad argument.")
        .def("process",
             &process,
             py::arg("x"),
             py::arg("y"),
             py::arg("spectrum") = false,
             py::arg("correlation") = false,
             "Correlate the frames of x and y (equal sizes, whole frames): a dict of "
             "lag, magnitude, phase (float32, one a frame) and, when asked for, spectrum "
             "(frames x transform_len) and correlation (frames x (2 max_lag + 1)).")
        .def("backend",
             &correlator_handle::backend,
             "The device the engine runs on: \"cpu\" or \"cuda:N\".")
        .def_property_readonly(
            "fft_len", [](const correlator_handle& c) { return c.config().fft_len; })
        .def_property_readonly(
            "interp", [](const correlator_handle& c) { return c.config().interp; })
        .def_property_readonly(
            "max_lag",
            [](const correlator_handle& c) { return c.config().effective_max_lag(); })
        .def_property_readonly("transform_len", [](const correlator_handle& c) {
            return c.config().transform_len();
        });
}
