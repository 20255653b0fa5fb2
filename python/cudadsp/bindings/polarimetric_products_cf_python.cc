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
/* BINDTOOL_HEADER_FILE(polarimetric_products_cf.h)                                */
/* BINDTOOL_HEADER_FILE_HASH(8dffe0e326460f50c6cadfe1d839cdb5)                     */
/***********************************************************************************/

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include "integer_argument.h"

#include <gnuradio/cudadsp/polarimetric_products_cf.h>
// pydoc.h is automatically generated in the build directory
#include <polarimetric_products_cf_pydoc.h>

#include <cstddef>
#include <string>

namespace {

using gr::cudadsp::bindings::int_count;
using gr::cudadsp::bindings::integer_argument;

/*!
 * The block's configuration from the Python keyword arguments: the one place where
 * they become polarimetric_products_cf_config fields (qa_block_defaults reads these
 * assignments to compare each keyword's default with its field's).
 */
gr::cudadsp::polarimetric_products_cf::sptr
make_from_keywords(const integer_argument& ngates,
                   const integer_argument& pulses_per_radial,
                   double wavelength_m,
                   double prt_s,
                   double first_gate_m,
                   double gate_spacing_m,
                   double zcal_db,
                   double zdr_cal_db,
                   double phidp_offset_deg,
                   double noise_h,
                   double noise_v,
                   double snr_threshold_db,
                   const std::string& mode,
                   const std::string& device,
                   const std::string& clutter_filter,
                   bool clutter_only_where_detected,
                   double cpa_threshold,
                   double antenna_rate_deg_s,
                   double beamwidth_deg,
                   bool invert_velocity,
                   bool invert_phidp,
                   double scan_start_azimuth_deg,
                   double scan_elevation_deg)
{
    namespace core = gr::cudadsp::core;
    gr::cudadsp::polarimetric_products_cf_config config;
    config.processing.ngates = int_count("ngates", ngates);
    config.processing.pulses_per_radial =
        int_count("pulses_per_radial", pulses_per_radial);
    config.processing.wavelength_m = wavelength_m;
    config.processing.prt_s = prt_s;
    config.processing.first_gate_m = first_gate_m;
    config.processing.gate_spacing_m = gate_spacing_m;
    config.processing.calibration.zcal_db = zcal_db;
    config.processing.calibration.zdr_cal_db = zdr_cal_db;
    config.processing.calibration.phidp_offset_deg = phidp_offset_deg;
    config.processing.calibration.noise_h = noise_h;
    config.processing.calibration.noise_v = noise_v;
    config.processing.calibration.snr_threshold_db = snr_threshold_db;
    config.processing.mode = core::parse_polarimetric_mode(mode, "mode");
    config.processing.device = device;
    config.processing.clutter.kind =
        core::parse_clutter_filter(clutter_filter, "clutter_filter");
    config.processing.clutter.only_where_detected = clutter_only_where_detected;
    config.processing.clutter.cpa_threshold = cpa_threshold;
    config.processing.clutter.antenna_rate_deg_s = antenna_rate_deg_s;
    config.processing.clutter.beamwidth_deg = beamwidth_deg;
    config.processing.invert_velocity = invert_velocity;
    config.processing.invert_phidp = invert_phidp;
    config.scan_start_azimuth_deg = scan_start_azimuth_deg;
    config.scan_elevation_deg = scan_elevation_deg;
    return gr::cudadsp::polarimetric_products_cf::make(config);
}

} // namespace

void bind_polarimetric_products_cf(py::module& m)
{
    using block = gr::cudadsp::polarimetric_products_cf;
    using gr::cudadsp::bindings::checked_integers;

    py::class_<block,
               gr::sync_decimator,
               gr::sync_block,
               gr::block,
               gr::basic_block,
               std::shared_ptr<block>>(
        m, "polarimetric_products_cf", D(polarimetric_products_cf))

        .def(py::init(&make_from_keywords),
             py::arg("ngates"),
             py::arg("pulses_per_radial") = 36,
             py::arg("wavelength_m") = 0.0531,
             py::arg("prt_s") = 1e-3,
             py::arg("first_gate_m") = 0.0,
             py::arg("gate_spacing_m") = 150.0,
             py::arg("zcal_db") = 0.0,
             py::arg("zdr_cal_db") = 0.0,
             py::arg("phidp_offset_deg") = 0.0,
             py::arg("noise_h") = 0.0,
             py::arg("noise_v") = 0.0,
             py::arg("snr_threshold_db") = -1e9,
             py::arg("mode") = "simultaneous",
             py::arg("device") = "auto",
             py::arg("clutter_filter") = "none",
             py::arg("clutter_only_where_detected") = false,
             py::arg("cpa_threshold") = 0.7,
             py::arg("antenna_rate_deg_s") = 0.0,
             py::arg("beamwidth_deg") = 1.0,
             py::arg("invert_velocity") = false,
             py::arg("invert_phidp") = false,
             py::arg("scan_start_azimuth_deg") = 0.0,
             py::arg("scan_elevation_deg") = 0.5,
             D(polarimetric_products_cf, make))

        .def_static("upstream_buffer_pulses",
                    checked_integers(
                        &block::upstream_buffer_pulses, "ngates", "pulses_per_radial"),
                    py::arg("ngates"),
                    py::arg("pulses_per_radial"),
                    D(polarimetric_products_cf, upstream_buffer_pulses))
        .def("set_zcal_db",
             &block::set_zcal_db,
             py::arg("zcal_db"),
             D(polarimetric_products_cf, set_zcal_db))
        .def("set_zdr_cal_db",
             &block::set_zdr_cal_db,
             py::arg("zdr_cal_db"),
             D(polarimetric_products_cf, set_zdr_cal_db))
        .def("set_phidp_offset_deg",
             &block::set_phidp_offset_deg,
             py::arg("phidp_offset_deg"),
             D(polarimetric_products_cf, set_phidp_offset_deg))
        .def("set_noise_h",
             &block::set_noise_h,
             py::arg("noise_h"),
             D(polarimetric_products_cf, set_noise_h))
        .def("set_noise_v",
             &block::set_noise_v,
             py::arg("noise_v"),
             D(polarimetric_products_cf, set_noise_v))
        .def("set_snr_threshold_db",
             &block::set_snr_threshold_db,
             py::arg("snr_threshold_db"),
             D(polarimetric_products_cf, set_snr_threshold_db))
        .def("zcal_db", &block::zcal_db, D(polarimetric_products_cf, zcal_db))
        .def("zdr_cal_db", &block::zdr_cal_db, D(polarimetric_products_cf, zdr_cal_db))
        .def("phidp_offset_deg",
             &block::phidp_offset_deg,
             D(polarimetric_products_cf, phidp_offset_deg))
        .def("noise_h", &block::noise_h, D(polarimetric_products_cf, noise_h))
        .def("noise_v", &block::noise_v, D(polarimetric_products_cf, noise_v))
        .def("snr_threshold_db",
             &block::snr_threshold_db,
             D(polarimetric_products_cf, snr_threshold_db))
        .def("set_scan",
             &block::set_scan,
             py::arg("start_azimuth_deg"),
             py::arg("elevation_deg"),
             py::arg("rate_deg_s"),
             D(polarimetric_products_cf, set_scan))
        .def("scan_start_azimuth_deg",
             &block::scan_start_azimuth_deg,
             D(polarimetric_products_cf, scan_start_azimuth_deg))
        .def("scan_elevation_deg",
             &block::scan_elevation_deg,
             D(polarimetric_products_cf, scan_elevation_deg))
        .def("scan_rate_deg_s",
             &block::scan_rate_deg_s,
             D(polarimetric_products_cf, scan_rate_deg_s))
        .def("clutter_filter",
             &block::clutter_filter,
             D(polarimetric_products_cf, clutter_filter))
        .def("clutter_only_where_detected",
             &block::clutter_only_where_detected,
             D(polarimetric_products_cf, clutter_only_where_detected))
        .def("cpa_threshold",
             &block::cpa_threshold,
             D(polarimetric_products_cf, cpa_threshold))
        .def("antenna_rate_deg_s",
             &block::antenna_rate_deg_s,
             D(polarimetric_products_cf, antenna_rate_deg_s))
        .def("beamwidth_deg",
             &block::beamwidth_deg,
             D(polarimetric_products_cf, beamwidth_deg))
        .def("invert_velocity",
             &block::invert_velocity,
             D(polarimetric_products_cf, invert_velocity))
        .def("invert_phidp",
             &block::invert_phidp,
             D(polarimetric_products_cf, invert_phidp))
        .def("nyquist_velocity",
             &block::nyquist_velocity,
             D(polarimetric_products_cf, nyquist_velocity))
        .def("backend", &block::backend, D(polarimetric_products_cf, backend));
}
