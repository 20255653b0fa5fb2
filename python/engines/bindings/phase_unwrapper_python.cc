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
/* BINDTOOL_HEADER_FILE(core/phase_unwrap.h)                                       */
/* BINDTOOL_HEADER_FILE_HASH(6f9f3b606a072637720cf8b6f55c04c2)                     */
/***********************************************************************************/

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "array_arguments.h"
#include "engine_handle.h"
#include "integer_argument.h"
#include <gnuradio/cudadsp/core/phase_unwrap.h>

#include <cstdint>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

namespace core = gr::cudadsp::core;
using gr::cudadsp::bindings::integer_argument;
using gr::cudadsp::bindings::narrow;

/*! The 1-D engine as Python holds it. It carries state from call to call: a fresh
 *  unwrapping (reset, then unwrap) is one turn of the lock. */
using unwrapper_handle = cudadsp_engines::engine_handle<core::phase_unwrapper>;

/*! Unwraps \p wrapped (any shape; in vector mode its size a multiple of vlen) into a new
 *  float32 array of its shape; with \p fresh, from K = 0 as after reset(). */
py::array_t<float> unwrap(unwrapper_handle& self, const py::array& wrapped, bool fresh)
{
    const auto in = cudadsp_engines::float32_array(wrapped, "wrapped");
    std::vector<py::ssize_t> shape(in.shape(), in.shape() + in.ndim());
    py::array_t<float> out(shape);
    const auto n = static_cast<std::size_t>(in.size());
    {
        py::gil_scoped_release release;
        self.locked([&](core::phase_unwrapper& engine) {
            if (fresh)
                engine.reset();
            engine.unwrap(in.data(), out.mutable_data(), n);
        });
    }
    return out;
}

} // namespace

void bind_phase_unwrapper(py::module& m)
{
    py::class_<unwrapper_handle>(
        m,
        "phase_unwrapper",
        R"doc(One-dimensional phase unwrapping engine (the engine of phase_unwrap_ff), CPU or CUDA.

numpy.unwrap(x, period=P)'s rule, with the correction count kept as a 64-bit integer and
applied in float64 before one rounding to float32, so no error accumulates however long
the stream. NaN or +-Inf gives NaN at that sample only. vlen 1: one continuous stream,
unwrapped across unwrap() calls (any chunking gives the same output); vlen > 1: each
vector of vlen samples unwrapped on its own (numpy.unwrap along the last axis).
Most users want cudadsp.unwrap_phase, which keeps engines for them.)doc")
        .def(
            py::init([](double period, integer_argument vlen, const std::string& device) {
                core::phase_unwrap_config config;
                config.period = period;
                config.vlen = narrow<std::size_t>("vlen", vlen);
                config.device = device;
                return std::make_unique<unwrapper_handle>(config);
            }),
            py::arg("period") = 6.283185307179586476925286766559,
            py::arg("vlen") = 1,
            py::arg("device") = "auto",
            "Make an engine: period 1e-30 to 1e30 (2*pi radians, 360 degrees, 1 "
            "cycle), vlen >= 1, device \"auto\", \"cpu\", \"cuda\" or \"cuda:N\". "
            "ValueError naming a bad argument.")
        .def("unwrap",
             &unwrap,
             py::arg("wrapped"),
             py::arg("fresh") = false,
             "Unwrap wrapped (real numbers; its size a multiple of vlen) into a new "
             "float32 array of its shape, continuing from the previous call (fresh=True: "
             "from the start, as after reset()).")
        .def(
            "reset",
            [](unwrapper_handle& u) {
                u.locked([](core::phase_unwrapper& e) { e.reset(); });
            },
            "Forget the carried state: the next sample starts with K = 0.")
        .def(
            "set_period",
            [](unwrapper_handle& u, double period) {
                u.locked([&](core::phase_unwrapper& e) { e.set_period(period); });
            },
            py::arg("period"),
            "A new period for the samples that follow; also resets. ValueError (the "
            "old period kept) outside 1e-30 to 1e30.")
        .def_property_readonly(
            "period",
            [](unwrapper_handle& u) {
                return u.locked([](core::phase_unwrapper& e) { return e.period(); });
            })
        .def_property_readonly("vlen",
                               [](const unwrapper_handle& u) { return u.config().vlen; })
        .def(
            "wrap_count",
            [](unwrapper_handle& u) {
                return u.locked([](core::phase_unwrapper& e) { return e.wrap_count(); });
            },
            "K of the last finite sample so far (stream mode; 0 after reset()).")
        .def(
            "out_of_range_samples",
            [](unwrapper_handle& u) {
                return u.locked(
                    [](core::phase_unwrapper& e) { return e.out_of_range_samples(); });
            },
            "Finite samples so far of magnitude 2^24 periods or more, where float32 "
            "holds no phase: each gave NaN.")
        .def("backend",
             &unwrapper_handle::backend,
             "The device the engine runs on: \"cpu\" or \"cuda:N\".");
}
