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
/* BINDTOOL_HEADER_FILE(gps_telemetry_decoder.h)                                   */
/* BINDTOOL_HEADER_FILE_HASH(fc1b250ecda95dfcf4cb127edd7f82fa)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "integer_argument.h"

#include <gnuradio/cudadsp/gps_telemetry_decoder.h>
// pydoc.h is automatically generated in the build directory
#include <gps_telemetry_decoder_pydoc.h>

void bind_gps_telemetry_decoder(py::module& m)
{
    using gps_telemetry_decoder = gr::cudadsp::gps_telemetry_decoder;
    using gr::cudadsp::bindings::checked_integers;

    py::class_<gps_telemetry_decoder,
               gr::sync_block,
               gr::block,
               gr::basic_block,
               std::shared_ptr<gps_telemetry_decoder>>(
        m, "gps_telemetry_decoder", D(gps_telemetry_decoder))

        .def(py::init(checked_integers(
                 &gps_telemetry_decoder::make, "taps", "prompt_tap", "bit_sync_ms")),
             py::arg("taps") = 3,
             py::arg("prompt_tap") = 1,
             py::arg("bit_sync_ms") = 500,
             D(gps_telemetry_decoder, make))

        .def("parity_failures",
             &gps_telemetry_decoder::parity_failures,
             D(gps_telemetry_decoder, parity_failures))
        .def("subframes",
             &gps_telemetry_decoder::subframes,
             D(gps_telemetry_decoder, subframes))
        .def("crc_failures",
             &gps_telemetry_decoder::crc_failures,
             D(gps_telemetry_decoder, crc_failures))
        .def("pages", &gps_telemetry_decoder::pages, D(gps_telemetry_decoder, pages))
        .def("ephemerides",
             &gps_telemetry_decoder::ephemerides,
             D(gps_telemetry_decoder, ephemerides))
        .def("channel_stages",
             &gps_telemetry_decoder::channel_stages,
             D(gps_telemetry_decoder, channel_stages));
}
