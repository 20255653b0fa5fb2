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
/* BINDTOOL_HEADER_FILE(core/pcps_acquisition.h)                                   */
/* BINDTOOL_HEADER_FILE_HASH(7283c45ed4fd4d045788a79061bd97c9)                     */
/***********************************************************************************/

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "array_arguments.h"
#include "engine_handle.h"
#include "integer_argument.h"
#include <gnuradio/cudadsp/core/pcps_acquisition.h>

#include <complex>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

namespace core = gr::cudadsp::core;
using gr::cudadsp::bindings::integer_argument;
using gr::cudadsp::bindings::narrow;

//! The acquisition engine as Python holds it (one search at a time).
using acquisition_handle = cudadsp_engines::engine_handle<core::pcps_acquisition>;

py::dict detection_dict(const core::acquisition_detection& d)
{
    py::dict entry;
    entry["satellite"] = d.satellite;
    entry["detected"] = d.detected;
    entry["doppler_hz"] = d.doppler_hz;
    entry["code_phase_chips"] = d.code_phase_chips;
    entry["delay_samples"] = d.delay_samples;
    entry["code_rate_cps"] = d.code_rate_cps;
    entry["start_sample"] = d.start_sample;
    entry["metric"] = d.metric;
    entry["threshold"] = d.threshold;
    entry["second_peak_ratio"] = d.second_peak_ratio;
    entry["cn0_dbhz"] = d.cn0_dbhz;
    entry["secondary_code_phase"] = d.secondary_code_phase;
    return entry;
}

/*! Searches \p satellites (default: every one the stream holds) in the first
 *  search_samples() samples of \p samples: one dict per satellite, in order. */
py::list search(acquisition_handle& self,
                const py::array& samples,
                const std::optional<std::vector<int>>& satellites,
                integer_argument first_sample)
{
    const core::pcps_acquisition_config& config = self.config();
    const auto in = cudadsp_engines::complex64_array(samples, "samples");
    const std::size_t needed = config.search_samples();
    if (static_cast<std::size_t>(in.size()) < needed)
        throw py::value_error("samples: one search takes " + std::to_string(needed) +
                              " samples (noncoherent_dwells x coherent_periods code "
                              "periods), got " +
                              std::to_string(in.size()));
    const std::vector<int> searched =
        satellites ? *satellites : config.satellites_in_stream();
    const auto start = narrow<std::uint64_t>("first_sample", first_sample);
    std::vector<core::acquisition_detection> results;
    {
        py::gil_scoped_release release;
        self.locked([&](core::pcps_acquisition& engine) {
            engine.search(in.data(), needed, start, searched, results);
        });
    }
    py::list detections;
    for (const core::acquisition_detection& d : results)
        detections.append(detection_dict(d));
    return detections;
}

} // namespace

void bind_pcps_acquisition(py::module& m)
{
    py::class_<acquisition_handle>(
        m,
        "pcps_acquisition",
        R"doc(Parallel code-phase search acquisition of GNSS satellites (the engine of pcps_acquisition_cc), CPU or CUDA.

GPS L1 C/A, Galileo E1 (B and C, or the pilot alone) and GLONASS L1OF: every Doppler
bin and code phase of each satellite, noncoherent_dwells coherent integrations of
coherent_periods code periods summed in power, a threshold set by the false-alarm
probability of one satellite's grid, refined Doppler and code phase, C/N0. The
detections' conventions are those of the GNSS correlator's channels
(docs/blocks/pcps_acquisition_cc.md). Most users want cudadsp.gnss.acquire.)doc")
        .def(py::init([](const std::string& signal,
                         double sample_rate_hz,
                         double intermediate_frequency_hz,
                         double doppler_center_hz,
                         double doppler_max_hz,
                         double doppler_step_hz,
                         integer_argument coherent_periods,
                         integer_argument noncoherent_dwells,
                         double false_alarm,
                         bool galileo_pilot,
                         const std::string& device) {
                 core::pcps_acquisition_config config;
                 config.signal = core::parse_acquisition_signal(signal, "signal");
                 config.sample_rate_hz = sample_rate_hz;
                 config.intermediate_frequency_hz = intermediate_frequency_hz;
                 config.doppler_center_hz = doppler_center_hz;
                 config.doppler_max_hz = doppler_max_hz;
                 config.doppler_step_hz = doppler_step_hz;
                 config.coherent_periods =
                     narrow<std::size_t>("coherent_periods", coherent_periods);
                 config.noncoherent_dwells =
                     narrow<std::size_t>("noncoherent_dwells", noncoherent_dwells);
                 config.false_alarm = false_alarm;
                 config.galileo_pilot = galileo_pilot;
                 config.device = device;
                 return std::make_unique<acquisition_handle>(config);
             }),
             py::kw_only(),
             py::arg("signal") = "gps_l1ca",
             py::arg("sample_rate_hz") = 4e6,
             py::arg("intermediate_frequency_hz") = 0.0,
             py::arg("doppler_center_hz") = 0.0,
             py::arg("doppler_max_hz") = 10e3,
             py::arg("doppler_step_hz") = 500.0,
             py::arg("coherent_periods") = 1,
             py::arg("noncoherent_dwells") = 10,
             py::arg("false_alarm") = 1e-3,
             py::arg("galileo_pilot") = false,
             py::arg("device") = "auto",
             "Make an engine (arguments by keyword; the block's parameters and bounds). "
             "ValueError naming a bad argument.")
        .def("search",
             &search,
             py::arg("samples"),
             py::arg("satellites") = py::none(),
             py::arg("first_sample") = 0,
             "Search satellites (PRNs, or GLONASS frequency numbers; default every one "
             "the stream holds) in the first search_samples samples: a list of dicts "
             "(satellite, detected, doppler_hz, code_phase_chips, delay_samples, "
             "code_rate_cps, start_sample, metric, threshold, second_peak_ratio, "
             "cn0_dbhz, secondary_code_phase), one per satellite in order.")
        .def("backend",
             &acquisition_handle::backend,
             "The device the engine runs on: \"cpu\" or \"cuda:N\".")
        .def_property_readonly(
            "search_samples",
            [](const acquisition_handle& a) { return a.config().search_samples(); })
        .def_property_readonly("satellites_in_stream", [](const acquisition_handle& a) {
            return a.config().satellites_in_stream();
        });
}
