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
/* BINDTOOL_HEADER_FILE(pcps_acquisition_cc.h)                                     */
/* BINDTOOL_HEADER_FILE_HASH(7d1654d4320bc8f9bafc50a230f377cc)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include <gnuradio/cudadsp/pcps_acquisition_cc.h>
// pydoc.h is automatically generated in the build directory
#include <pcps_acquisition_cc_pydoc.h>

#include "integer_argument.h"
#include "pmt_from_python.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using gr::cudadsp::pcps_acquisition_base;
using gr::cudadsp::bindings::int_count;
using gr::cudadsp::bindings::integer_argument;
using gr::cudadsp::bindings::narrow;
using gr::cudadsp::bindings::to_pmt;

//! The satellites as C++ ints; ValueError naming "satellites[i]" otherwise.
std::vector<int> satellite_numbers(const std::vector<integer_argument>& satellites)
{
    std::vector<int> numbers;
    for (std::size_t i = 0; i < satellites.size(); ++i)
        numbers.push_back(
            narrow<int>("satellites[" + std::to_string(i) + "]", satellites[i]));
    return numbers;
}

/*!
 * The block's configuration from the Python keyword arguments: the one place where
 * they become pcps_acquisition_block_config fields (qa_block_defaults reads these
 * assignments to compare each keyword's default with its field's).
 */
template <class Block>
typename Block::sptr make_from_keywords(double sample_rate_hz,
                                        const std::string& signal,
                                        const std::vector<integer_argument>& satellites,
                                        double doppler_max_hz,
                                        double doppler_step_hz,
                                        const integer_argument& coherent_periods,
                                        const integer_argument& noncoherent_dwells,
                                        double false_alarm,
                                        const integer_argument& max_channels,
                                        const integer_argument& satellites_per_search,
                                        const py::object& channel_parameters,
                                        const integer_argument& first_channel_id,
                                        double doppler_center_hz,
                                        double intermediate_frequency_hz,
                                        bool galileo_pilot,
                                        const std::string& device,
                                        const std::string& stream_mode,
                                        const std::string& galileo_channel_system)
{
    namespace core = gr::cudadsp::core;
    gr::cudadsp::pcps_acquisition_block_config config;
    config.acquisition.sample_rate_hz = sample_rate_hz;
    config.acquisition.signal = core::parse_acquisition_signal(signal, "signal");
    config.satellites = satellite_numbers(satellites);
    config.acquisition.doppler_max_hz = doppler_max_hz;
    config.acquisition.doppler_step_hz = doppler_step_hz;
    config.acquisition.coherent_periods = int_count("coherent_periods", coherent_periods);
    config.acquisition.noncoherent_dwells =
        int_count("noncoherent_dwells", noncoherent_dwells);
    config.acquisition.false_alarm = false_alarm;
    config.max_channels = int_count("max_channels", max_channels);
    config.satellites_per_search =
        int_count("satellites_per_search", satellites_per_search);
    config.channel_parameters = to_pmt(channel_parameters, "channel_parameters");
    // A C++ int, as before the configuration: ids from 2^31 on stay C++ only.
    config.first_channel_id =
        static_cast<std::uint32_t>(int_count("first_channel_id", first_channel_id));
    config.acquisition.doppler_center_hz = doppler_center_hz;
    config.acquisition.intermediate_frequency_hz = intermediate_frequency_hz;
    config.acquisition.galileo_pilot = galileo_pilot;
    config.acquisition.device = device;
    config.stream_mode = stream_mode;
    config.galileo_channel_system = galileo_channel_system;
    return Block::make(config);
}

template <class Block>
void bind_variant(py::module& m, const char* name, const char* doc, const char* make_doc)
{
    py::class_<Block,
               pcps_acquisition_base,
               gr::sync_block,
               gr::block,
               gr::basic_block,
               std::shared_ptr<Block>>(m, name, doc)
        .def(py::init(&make_from_keywords<Block>),
             py::arg("sample_rate_hz"),
             py::arg("signal") = "gps_l1ca",
             py::arg("satellites") = std::vector<int>{},
             py::arg("doppler_max_hz") = 10e3,
             py::arg("doppler_step_hz") = 500.0,
             py::arg("coherent_periods") = 1,
             py::arg("noncoherent_dwells") = 10,
             py::arg("false_alarm") = 1e-3,
             py::arg("max_channels") = 12,
             py::arg("satellites_per_search") = 8,
             py::arg("channel_parameters") = py::none(),
             py::arg("first_channel_id") = 0,
             py::arg("doppler_center_hz") = 0.0,
             py::arg("intermediate_frequency_hz") = 0.0,
             py::arg("galileo_pilot") = false,
             py::arg("device") = "auto",
             py::arg("stream_mode") = "live",
             py::arg("galileo_channel_system") = "galileo_e1c",
             make_doc);
}

} // namespace

void bind_pcps_acquisition_cc(py::module& m)
{
    using base = pcps_acquisition_base;
    namespace cd = gr::cudadsp;

    py::class_<base, gr::sync_block, gr::block, gr::basic_block, std::shared_ptr<base>>(
        m, "pcps_acquisition_base", D(pcps_acquisition_base))
        .def("searching", &base::searching, D(pcps_acquisition_base, searching))
        .def("tracked", &base::tracked, D(pcps_acquisition_base, tracked))
        .def("tracked_ids", &base::tracked_ids, D(pcps_acquisition_base, tracked_ids))
        .def("searches_completed",
             &base::searches_completed,
             D(pcps_acquisition_base, searches_completed))
        .def("samples_dropped",
             &base::samples_dropped,
             D(pcps_acquisition_base, samples_dropped))
        .def("samples_searched",
             &base::samples_searched,
             D(pcps_acquisition_base, samples_searched))
        .def("detections_published",
             &base::detections_published,
             D(pcps_acquisition_base, detections_published))
        .def("search_samples",
             &base::search_samples,
             D(pcps_acquisition_base, search_samples))
        .def("sample_rate_hz",
             &base::sample_rate_hz,
             D(pcps_acquisition_base, sample_rate_hz))
        .def("signal", &base::signal, D(pcps_acquisition_base, signal))
        .def("input_format", &base::input_format, D(pcps_acquisition_base, input_format))
        .def("backend", &base::backend, D(pcps_acquisition_base, backend))
        .def("stream_mode", &base::stream_mode, D(pcps_acquisition_base, stream_mode));

    bind_variant<cd::pcps_acquisition_cc>(
        m, "pcps_acquisition_cc", D(pcps_acquisition_cc), D(pcps_acquisition_cc, make));
    bind_variant<cd::pcps_acquisition_sc>(
        m, "pcps_acquisition_sc", D(pcps_acquisition_sc), D(pcps_acquisition_sc, make));
}
