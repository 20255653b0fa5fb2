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
/* BINDTOOL_HEADER_FILE(kdp_ff.h)                                                  */
/* BINDTOOL_HEADER_FILE_HASH(50694125c712f82be0d2b105c04e69f0)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "integer_argument.h"

#include <gnuradio/cudadsp/kdp_ff.h>
// pydoc.h is automatically generated in the build directory
#include <kdp_ff_pydoc.h>

#include <string>

namespace {

using gr::cudadsp::bindings::int_count;
using gr::cudadsp::bindings::integer_argument;

/*!
 * The block's configuration from the Python keyword arguments: the one place where
 * they become kdp_ff_config fields (qa_block_defaults reads these assignments to
 * compare each keyword's default with its field's).
 */
gr::cudadsp::kdp_ff::sptr make_from_keywords(const integer_argument& ngates,
                                             double gate_spacing_m,
                                             double window_km,
                                             double max_gap_km,
                                             bool use_rhohv,
                                             bool use_snr,
                                             double min_rhohv,
                                             double min_snr_db,
                                             const std::string& device)
{
    gr::cudadsp::kdp_ff_config config;
    config.kdp.ngates = int_count("ngates", ngates);
    config.kdp.gate_spacing_m = gate_spacing_m;
    config.kdp.window_km = window_km;
    config.kdp.max_gap_km = max_gap_km;
    config.use_rhohv = use_rhohv;
    config.use_snr = use_snr;
    config.kdp.min_rhohv = min_rhohv;
    config.kdp.min_snr_db = min_snr_db;
    config.kdp.device = device;
    return gr::cudadsp::kdp_ff::make(config);
}

} // namespace

void bind_kdp_ff(py::module& m)
{
    using kdp_ff = gr::cudadsp::kdp_ff;

    py::class_<kdp_ff,
               gr::sync_block,
               gr::block,
               gr::basic_block,
               std::shared_ptr<kdp_ff>>(m, "kdp_ff", D(kdp_ff))

        .def(py::init(&make_from_keywords),
             py::arg("ngates"),
             py::arg("gate_spacing_m") = 150.0,
             py::arg("window_km") = 3.0,
             py::arg("max_gap_km") = 1.0,
             py::arg("use_rhohv") = false,
             py::arg("use_snr") = false,
             py::arg("min_rhohv") = 0.8,
             py::arg("min_snr_db") = 3.0,
             py::arg("device") = "auto",
             D(kdp_ff, make))

        .def(
            "half_window_gates", &kdp_ff::half_window_gates, D(kdp_ff, half_window_gates))

        .def("backend", &kdp_ff::backend, D(kdp_ff, backend));
}
