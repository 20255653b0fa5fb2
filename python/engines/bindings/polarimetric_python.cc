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
/* BINDTOOL_HEADER_FILE(core/polarimetric.h)                                       */
/* BINDTOOL_HEADER_FILE_HASH(47e2175d7d0e93a16754c4df19891eb1)                     */
/***********************************************************************************/

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "array_arguments.h"
#include "engine_handle.h"
#include "integer_argument.h"
#include <gnuradio/cudadsp/core/polarimetric.h>

#include <array>
#include <complex>
#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

namespace core = gr::cudadsp::core;
using gr::cudadsp::bindings::integer_argument;
using gr::cudadsp::bindings::narrow;

//! The polarimetric engine as Python holds it: radials of pulses_per_radial pulses of
//! ngates gates, any number a call.
using polarimetric_handle = cudadsp_engines::engine_handle<core::polarimetric_processor>;

//! \p array as complex64 pulses: its size a whole number of radials of \p config.
py::array_t<std::complex<float>, py::array::c_style>
radials(const py::array& array, const char* name, const core::polarimetric_config& config)
{
    auto converted = cudadsp_engines::complex64_array(array, name);
    const auto size = static_cast<std::size_t>(converted.size());
    if (size == 0 || size % config.samples_per_radial() != 0)
        throw py::value_error(std::string(name) + ": must hold whole radials of " +
                              std::to_string(config.pulses_per_radial) + " pulses of " +
                              std::to_string(config.ngates) + " gates, got shape " +
                              cudadsp_engines::shape_text(array));
    return converted;
}

//! A dict of the nine products by short name, each (radials, ngates) float32.
py::dict process(polarimetric_handle& self, const py::array& h, const py::array& v)
{
    const core::polarimetric_config& config = self.config();
    const auto hs = radials(h, "h", config);
    const auto vs = radials(v, "v", config);
    if (hs.size() != vs.size())
        throw py::value_error("v: must hold as many samples as h (" +
                              std::to_string(hs.size()) + "), got " +
                              std::to_string(vs.size()));
    const std::size_t nradials =
        static_cast<std::size_t>(hs.size()) / config.samples_per_radial();
    std::vector<py::array_t<float>> products;
    std::array<float*, core::polarimetric_product_count> outputs{};
    for (int p = 0; p < core::polarimetric_product_count; ++p) {
        products.emplace_back(
            std::vector<py::ssize_t>{ static_cast<py::ssize_t>(nradials),
                                      static_cast<py::ssize_t>(config.ngates) });
        outputs[p] = products.back().mutable_data();
    }
    {
        py::gil_scoped_release release;
        self.locked([&](core::polarimetric_processor& engine) {
            engine.process(hs.data(), vs.data(), nradials, outputs.data());
        });
    }
    py::dict result;
    for (int p = 0; p < core::polarimetric_product_count; ++p)
        result[core::product_name(p)] = products[p];
    return result;
}

} // namespace

void bind_polarimetric(py::module& m)
{
    py::class_<polarimetric_handle>(
        m,
        "polarimetric_processor",
        R"doc(Weather-radar moments and polarimetric products from dual-polarisation I/Q (the engine of polarimetric_products_cf), CPU or CUDA.

For every radial (pulses_per_radial pulses, each ngates complex samples) and gate:
clutter phase alignment, optional ground-clutter filter (regression or GMAP), then in
float64 Zh (dBZ), ZDR (dB), V (m/s, positive away), W (m/s), PhiDP (deg), RhoHV, SNRh
(dB), CLUT (dB removed) and CPA. docs/blocks/polarimetric_products_cf.md gives the
formulas, the sign conventions against LROSE and Py-ART, and the censoring. Most users
want cudadsp.polarimetric_moments.)doc")
        .def(py::init([](integer_argument ngates,
                         integer_argument pulses_per_radial,
                         double wavelength_m,
                         double prt_s,
                         const std::string& mode,
                         double first_gate_m,
                         double gate_spacing_m,
                         double zcal_db,
                         double zdr_cal_db,
                         double phidp_offset_deg,
                         double noise_h,
                         double noise_v,
                         double snr_threshold_db,
                         const std::string& clutter_filter,
                         bool clutter_only_where_detected,
                         double cpa_threshold,
                         double antenna_rate_deg_s,
                         double beamwidth_deg,
                         integer_argument max_regression_order,
                         bool invert_velocity,
                         bool invert_phidp,
                         const std::string& device) {
                 core::polarimetric_config config;
                 config.ngates = narrow<std::size_t>("ngates", ngates);
                 config.pulses_per_radial =
                     narrow<std::size_t>("pulses_per_radial", pulses_per_radial);
                 config.wavelength_m = wavelength_m;
                 config.prt_s = prt_s;
                 config.mode = core::parse_polarimetric_mode(mode, "mode");
                 config.first_gate_m = first_gate_m;
                 config.gate_spacing_m = gate_spacing_m;
                 config.calibration.zcal_db = zcal_db;
                 config.calibration.zdr_cal_db = zdr_cal_db;
                 config.calibration.phidp_offset_deg = phidp_offset_deg;
                 config.calibration.noise_h = noise_h;
                 config.calibration.noise_v = noise_v;
                 config.calibration.snr_threshold_db = snr_threshold_db;
                 config.clutter.kind =
                     core::parse_clutter_filter(clutter_filter, "clutter_filter");
                 config.clutter.only_where_detected = clutter_only_where_detected;
                 config.clutter.cpa_threshold = cpa_threshold;
                 config.clutter.antenna_rate_deg_s = antenna_rate_deg_s;
                 config.clutter.beamwidth_deg = beamwidth_deg;
                 config.clutter.max_regression_order =
                     narrow<std::size_t>("max_regression_order", max_regression_order);
                 config.invert_velocity = invert_velocity;
                 config.invert_phidp = invert_phidp;
                 config.device = device;
                 return std::make_unique<polarimetric_handle>(config);
             }),
             py::arg("ngates"),
             py::kw_only(),
             py::arg("pulses_per_radial") = 36,
             py::arg("wavelength_m") = 0.0531,
             py::arg("prt_s") = 1e-3,
             py::arg("mode") = "simultaneous",
             py::arg("first_gate_m") = 0.0,
             py::arg("gate_spacing_m") = 150.0,
             py::arg("zcal_db") = 0.0,
             py::arg("zdr_cal_db") = 0.0,
             py::arg("phidp_offset_deg") = 0.0,
             py::arg("noise_h") = 0.0,
             py::arg("noise_v") = 0.0,
             py::arg("snr_threshold_db") = -1e9,
             py::arg("clutter_filter") = "none",
             py::arg("clutter_only_where_detected") = false,
             py::arg("cpa_threshold") = 0.7,
             py::arg("antenna_rate_deg_s") = 0.0,
             py::arg("beamwidth_deg") = 1.0,
             py::arg("max_regression_order") = 7,
             py::arg("invert_velocity") = false,
             py::arg("invert_phidp") = false,
             py::arg("device") = "auto",
             "Make an engine (every argument but ngates by keyword; the block's "
             "parameters and bounds). ValueError naming a bad argument.")
        .def("process",
             &process,
             py::arg("h"),
             py::arg("v"),
             "The products of whole radials of h and v (complex; pulses in time order, "
             "each ngates gates; alternating mode: v the cross-polar input): a dict "
             "Zh, ZDR, V, W, PhiDP, RhoHV, SNRh, CLUT, CPA of (radials, ngates) float32.")
        .def("backend",
             &polarimetric_handle::backend,
             "The device the engine runs on: \"cpu\" or \"cuda:N\".")
        .def_property_readonly(
            "ngates", [](const polarimetric_handle& p) { return p.config().ngates; })
        .def_property_readonly(
            "pulses_per_radial",
            [](const polarimetric_handle& p) { return p.config().pulses_per_radial; })
        .def_property_readonly("nyquist_velocity", [](const polarimetric_handle& p) {
            return p.config().nyquist_velocity();
        });
}
