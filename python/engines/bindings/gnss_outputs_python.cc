/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The receiver's files as text for Python (docs/design/gnss_outputs.md): RINEX 3.04
// observation and navigation (GPS, Galileo or mixed) files of gps_receiver epochs and
// decoded ephemerides, their long names, the GeoJSON track, and when an ephemeris was
// sent. The package writes the text through its output sets. Written by hand over the
// engine library's internal headers (python/engines/CMakeLists.txt says why).

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "gnss/gnss_rinex.h"
#include "gnss/gnss_track_geojson.h"
#include "gnss/gps_receiver_outputs.h"
#include "gnss_arguments.h"
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

namespace core = gr::cudadsp::core;
using gr::cudadsp::bindings::calendar_of;
using gr::cudadsp::bindings::systems_of;
using gr::cudadsp::bindings::vec3_of;

using epoch_list = std::vector<core::gps_receiver_epoch>;

std::string rinex_observation_text(const epoch_list& epochs,
                                   int week,
                                   int interval_ms,
                                   const std::vector<double>& approximate_position_m,
                                   const std::string& marker_name,
                                   const py::tuple& created_utc,
                                   const std::vector<std::string>& systems)
{
    if (epochs.empty())
        throw py::value_error("epochs: a RINEX observation file needs one at least");
    core::gnss_rinex_observation_header header;
    header.program.created_utc = calendar_of(created_utc);
    header.marker_name = marker_name;
    header.approximate_position_m =
        vec3_of(approximate_position_m, "approximate_position_m");
    header.interval_ms = interval_ms;
    header.systems = systems_of(systems);
    std::vector<core::gnss_observation_epoch> observations;
    for (const core::gps_receiver_epoch& e : epochs)
        observations.push_back(e.observations);
    std::ostringstream out;
    core::write_rinex_observation_file(out, header, week, observations);
    return out.str();
}

//! Each of \p records as a tuple of \p size, else ValueError naming \p what it holds.
std::vector<py::tuple>
tuples_of(const py::list& records, std::size_t size, const char* name, const char* what)
{
    std::vector<py::tuple> tuples;
    for (const py::handle r : records) {
        const auto t = r.cast<py::tuple>();
        if (t.size() != size)
            throw py::value_error(std::string(name) + ": " + what + " each");
        tuples.push_back(t);
    }
    return tuples;
}

std::string
rinex_navigation_text(const py::list& gps_records,
                      const py::list& galileo_records,
                      int reference_week,
                      const py::tuple& created_utc,
                      const std::vector<std::string>& systems,
                      const std::optional<core::gps_iono_utc>& iono_utc,
                      const std::optional<core::galileo_iono_health>& galileo_iono,
                      const std::optional<core::galileo_gst_utc>& galileo_utc)
{
    core::gnss_rinex_navigation_header header;
    header.program.created_utc = calendar_of(created_utc);
    header.systems = systems_of(systems);
    header.reference_week = reference_week;
    header.has_iono_utc = iono_utc.has_value();
    if (iono_utc)
        header.iono_utc = *iono_utc;
    header.has_galileo_iono = galileo_iono.has_value();
    if (galileo_iono)
        header.galileo_iono = *galileo_iono;
    header.has_galileo_utc = galileo_utc.has_value();
    if (galileo_utc)
        header.galileo_utc = *galileo_utc;
    std::vector<core::gnss_rinex_gps_ephemeris> gps;
    for (const py::tuple& t : tuples_of(
             gps_records, 3, "gps_records", "(ephemeris, week, transmission_time_s)"))
        gps.push_back(
            { t[0].cast<core::gps_ephemeris>(), t[1].cast<int>(), t[2].cast<double>() });
    std::vector<core::gnss_rinex_galileo_ephemeris> galileo;
    for (const py::tuple& t :
         tuples_of(galileo_records,
                   4,
                   "galileo_records",
                   "(ephemeris, iono_health, week, transmission_time_s)"))
        galileo.push_back({ t[0].cast<core::galileo_ephemeris>(),
                            t[1].cast<core::galileo_iono_health>(),
                            t[2].cast<int>(),
                            t[3].cast<double>() });
    std::ostringstream out;
    core::write_rinex_navigation_file(out, header, gps, galileo);
    return out.str();
}

std::string geojson_text(const epoch_list& epochs, int week, int leap_seconds)
{
    std::vector<core::gnss_track_point> track;
    for (const core::gps_receiver_epoch& e : epochs)
        if (e.fix.valid)
            track.push_back(
                { core::gps_time_from_week(week, e.gps_time_of_week_s), e.fix.geodetic });
    std::ostringstream out;
    core::write_geojson_track(out, track, leap_seconds);
    return out.str();
}

} // namespace

void bind_gnss_outputs(py::module& m)
{
    m.def("rinex_observation_text",
          &rinex_observation_text,
          py::arg("epochs"),
          py::arg("week"),
          py::arg("interval_ms"),
          py::arg("approximate_position_m"),
          py::arg("marker_name"),
          py::arg("created_utc"),
          py::arg("systems") = std::vector<std::string>{ "gps" },
          "A RINEX 3.04 observation file of gps_receiver epochs (C1C L1C D1C S1C per "
          "satellite): week the GPS week of the first one's receiver_time_ms, "
          "created_utc (year, month, day, hour, minute, second) for PGM / RUN BY / "
          "DATE, systems \"gps\", \"galileo\" or both (a mixed file).");
    m.def("rinex_navigation_text",
          &rinex_navigation_text,
          py::arg("gps_records"),
          py::arg("galileo_records"),
          py::arg("reference_week"),
          py::arg("created_utc"),
          py::arg("systems") = std::vector<std::string>{ "gps" },
          py::arg("iono_utc") = py::none(),
          py::arg("galileo_iono") = py::none(),
          py::arg("galileo_utc") = py::none(),
          "A RINEX 3.04 navigation file (GPS, Galileo or mixed by systems): gps_records "
          "(gps_ephemeris, continuous week, transmission time of week s), "
          "galileo_records (galileo_ephemeris, its word 5 galileo_iono_health, week "
          "counted as GPS's, transmission time of week s); the header's optional "
          "records from iono_utc (a gps_iono_utc: GPSA/GPSB, GPUT, leap seconds), "
          "galileo_iono (word 5's ai0..ai2: GAL) and galileo_utc (word 6: GAUT, and "
          "the leap seconds without iono_utc); reference_week resolves their 8-bit "
          "weeks.");
    m.def("gps_geojson_track_text",
          &geojson_text,
          py::arg("epochs"),
          py::arg("week"),
          py::arg("leap_seconds"),
          "The fixes of the epochs as a GeoJSON FeatureCollection (RFC 7946).");
    m.def("gps_ephemeris_transmission_time_s",
          &core::gps_ephemeris_transmission_time_s,
          py::arg("first_used_s"),
          "The RINEX transmission time (s of week) of a GPS ephemeris first used at "
          "receiver time of week first_used_s: the frame start before first_used_s - 18 "
          "s.");
    m.def("galileo_ephemeris_transmission_time_s",
          &core::galileo_ephemeris_transmission_time_s,
          py::arg("first_used_s"),
          "The RINEX transmission time (s of the GST week) of a Galileo ephemeris first "
          "used at receiver time of week first_used_s: the I/NAV sub-frame start "
          "before first_used_s - 4 s.");
    m.def("gps_resolve_week",
          &core::gps_resolve_week,
          py::arg("truncated_week"),
          py::arg("modulus"),
          py::arg("reference_week"),
          "The continuous week whose low bits are truncated_week (modulo modulus: 1024 "
          "for LNAV's WN, 256 for WNt) nearest reference_week.");
    m.def("gps_week_of_gst_week",
          &core::gps_week_of_gst_week,
          py::arg("gst_week"),
          py::arg("reference_week"),
          "The continuous GPS week of a 12-bit GST week number (GST week 0 is GPS week "
          "1024) nearest reference_week.");
    m.def(
        "rinex_file_names",
        [](int week,
           double seconds_of_week,
           double span_s,
           int interval_ms,
           const std::vector<std::string>& systems) {
            const core::gnss_rinex_site site;
            const core::gps_time first = core::gps_time_from_week(week, seconds_of_week);
            const std::vector<core::gnss_system> s = systems_of(systems);
            return py::make_tuple(
                core::rinex_observation_file_name(site, first, span_s, interval_ms, s),
                core::rinex_navigation_file_name(site, first, span_s, s));
        },
        py::arg("week"),
        py::arg("seconds_of_week"),
        py::arg("span_s"),
        py::arg("interval_ms"),
        py::arg("systems") = std::vector<std::string>{ "gps" },
        "The RINEX 3.04 long names (observation, navigation: GO/GN, EO/EN or MO/MN by "
        "systems) of data from that GPS time on, station GRCD00XXX, source R.");
}
