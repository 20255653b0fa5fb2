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
/* BINDTOOL_HEADER_FILE_HASH(03479dc8d09430753c9025a48fe3bbf1)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include <gnuradio/cudadsp/pcps_acquisition_cc.h>
// pydoc.h is automatically generated in the build directory
#include <pcps_acquisition_cc_pydoc.h>

#include "integer_argument.h"
#include "pmt_from_python.h"

#include <string>
#include <vector>

namespace {

using gr::cudadsp::pcps_acquisition_base;
using gr::cudadsp::bindings::integer_argument;
using gr::cudadsp::bindings::narrow;
using gr::cudadsp::bindings::to_pmt;

template <class Block>
void bind_variant(py::module& m, const char* name, const char* doc, const char* make_doc)
{
    py::class_<Block,
               pcps_acquisition_base,
               gr::sync_block,
               gr::block,
               gr::basic_block,
               std::shared_ptr<Block>>(m, name, doc)
        .def(py::init([](double sample_rate_hz,
                         const std::string& signal,
                         const std::vector<integer_argument>& satellites,
                         double doppler_max_hz,
                         double doppler_step_hz,
                         const integer_argument& coherent_periods,
                         const integer_argument& noncoherent_dwells,
                         double false_alarm,
                         const integer_argument& max_channels,
                         const integer_argument& satellites_per_search,
                         py::object channel_parameters,
                         const integer_argument& first_channel_id,
                         double doppler_center_hz,
                         double intermediate_frequency_hz,
                         bool galileo_pilot,
                         const std::string& device,
                         const std::string& stream_mode) {
                 std::vector<int> prns;
                 for (std::size_t i = 0; i < satellites.size(); ++i)
                     prns.push_back(narrow<int>("satellites[" + std::to_string(i) + "]",
                                                satellites[i]));
                 return Block::make(
                     sample_rate_hz,
                     signal,
                     prns,
                     doppler_max_hz,
                     doppler_step_hz,
                     narrow<int>("coherent_periods", coherent_periods),
                     narrow<int>("noncoherent_dwells", noncoherent_dwells),
                     false_alarm,
                     narrow<int>("max_channels", max_channels),
                     narrow<int>("satellites_per_search", satellites_per_search),
                     to_pmt(channel_parameters, "channel_parameters"),
                     narrow<int>("first_channel_id", first_channel_id),
                     doppler_center_hz,
                     intermediate_frequency_hz,
                     galileo_pilot,
                     device,
                     stream_mode);
             }),
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
