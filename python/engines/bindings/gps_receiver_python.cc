/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The host side of the GPS L1 C/A + Galileo E1 receiver for Python
// (docs/design/gps_receiver.md): core::gps_receiver fed with
// multichannel_correlator.process()'s records, its epochs (and their NMEA) and fixes;
// and the constellation scenario that makes signals with their truth. The navigation
// data's classes are gnss_navigation_data_python.cc's, the files' text
// gnss_outputs_python.cc's. Written by hand; the bound headers
// are the engine library's internal ones under lib/core/gnss (not public, so no binding
// hash: python/engines/CMakeLists.txt says why they are included). The engine's
// std::invalid_argument, naming the field, reaches Python as ValueError (pybind11's
// translation).

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "gnss/gnss_geodesy.h"
#include "gnss/gps_constellation_scenario.h"
#include "gnss/gps_receiver.h"
#include "gnss/gps_receiver_outputs.h"
#include "gnss_arguments.h"
#include "integer_argument.h"
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <cmath>
#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

namespace core = gr::cudadsp::core;
using gr::cudadsp::bindings::integer_argument;
using gr::cudadsp::bindings::klobuchar_of;
using gr::cudadsp::bindings::narrow;
using gr::cudadsp::bindings::system_name;
using gr::cudadsp::bindings::system_of;
using gr::cudadsp::bindings::vec3;
using gr::cudadsp::bindings::vec3_of;
constexpr double degree = gr::cudadsp::bindings::gnss_degree;

core::gnss_troposphere_model troposphere_of(const std::string& name)
{
    if (name == "saastamoinen")
        return core::gnss_troposphere_model::saastamoinen;
    if (name == "none")
        return core::gnss_troposphere_model::none;
    throw py::value_error("troposphere: must be \"saastamoinen\" or \"none\", got \"" +
                          name + "\"");
}

//! The correlator's records (the structured array of multichannel_correlator.process())
//! and correlations (records x taps) as the engine's results.
core::gnss_correlator_results results_of(const py::array& records,
                                         const py::array& correlations)
{
    const auto r =
        py::array_t<core::gnss_epoch_record, py::array::c_style>::ensure(records);
    if (!r || r.ndim() != 1)
        throw py::type_error("records: must be the records array of "
                             "multichannel_correlator.process()");
    const auto c =
        py::array_t<std::complex<float>,
                    py::array::c_style | py::array::forcecast>::ensure(correlations);
    if (!c || c.ndim() != 2 || c.shape(0) != r.shape(0))
        throw py::value_error(
            "correlations: must be (records, taps), one row per record");
    core::gnss_correlator_results results;
    results.taps = static_cast<std::size_t>(c.shape(1));
    results.records.assign(r.data(), r.data() + r.size());
    results.correlations.assign(c.data(), c.data() + c.size());
    return results;
}

/*!
 * The fix of an epoch as receive() reports it. Satellites are named by their RINEX ids
 * ("G05", "E11"). clock_bias_s is the receiver clock of the fix's time: GPS's when
 * GPS satellites are used, else Galileo's (GST); inter_system_bias_s Galileo - GPS
 * (NaN unless both are used).
 */
py::dict fix_dict(const core::gps_receiver_epoch& e)
{
    const core::gnss_pvt_result& f = e.fix;
    py::dict d;
    d["valid"] = f.valid;
    d["reason"] = f.reason;
    d["gps_time_of_week_s"] = e.gps_time_of_week_s;
    d["ecef_m"] = vec3(f.position_m);
    d["latitude_deg"] = f.geodetic.latitude_rad / degree;
    d["longitude_deg"] = f.geodetic.longitude_rad / degree;
    d["height_m"] = f.geodetic.height_m;
    const double gps_clock_s = f.clock_bias_s[static_cast<int>(core::gnss_system::gps)];
    d["clock_bias_s"] = std::isnan(gps_clock_s) && f.valid
                            ? f.clock_bias_s[static_cast<int>(core::gnss_system::galileo)]
                            : gps_clock_s;
    d["inter_system_bias_s"] = f.inter_system_bias_s;
    d["clock_drift"] = f.clock_drift;
    d["velocity_valid"] = f.velocity_valid;
    d["velocity_reason"] = f.velocity_reason;
    d["velocity_m_s"] = vec3(f.velocity_m_s);
    py::dict dops;
    dops["gdop"] = f.dops.gdop;
    dops["pdop"] = f.dops.pdop;
    dops["hdop"] = f.dops.hdop;
    dops["vdop"] = f.dops.vdop;
    dops["tdop"] = f.dops.tdop;
    d["dops"] = dops;
    py::list used, refused;
    for (const core::gnss_pvt_satellite& s : f.satellites) {
        if (s.used)
            used.append(core::gnss_satellite_id(s.system, s.prn));
        else
            refused.append(
                py::make_tuple(core::gnss_satellite_id(s.system, s.prn), s.reason));
    }
    for (const core::gps_receiver_exclusion& x : e.excluded)
        refused.append(
            py::make_tuple(core::gnss_satellite_id(x.system, x.prn), x.reason));
    d["satellites_used"] = used;
    d["satellites_not_used"] = refused;
    d["ionosphere_applied"] = e.ionosphere_applied;
    return d;
}

py::list observations_of(const core::gnss_observation_epoch& e)
{
    py::list out;
    for (const core::gnss_observation& o : e.observations) {
        py::dict d;
        d["satellite"] = core::gnss_satellite_id(o.system, o.prn);
        d["system"] = system_name(o.system);
        d["prn"] = o.prn;
        d["pseudorange_m"] = o.pseudorange_m;
        d["carrier_phase_cycles"] = o.carrier_phase_cycles;
        d["doppler_hz"] = o.doppler_hz;
        d["cn0_dbhz"] = o.cn0_dbhz;
        d["lli"] = o.lli;
        out.append(d);
    }
    return out;
}

//! What both systems' channels say: the satellite, its stage and restarts.
py::dict channel_dict(core::gnss_system system,
                      int prn,
                      const char* stage,
                      bool time_known,
                      int polarity,
                      std::uint64_t records,
                      std::uint64_t restarts)
{
    py::dict d;
    d["satellite"] = core::gnss_satellite_id(system, prn);
    d["system"] = system_name(system);
    d["prn"] = prn;
    d["stage"] = stage;
    d["time_known"] = time_known;
    d["polarity"] = polarity;
    d["records"] = records;
    d["restarts"] = restarts;
    return d;
}

py::dict counters_of(const core::gps_navigation_channel& n)
{
    const core::gps_lnav_counters l = n.lnav_counters();
    py::dict d = channel_dict(core::gnss_system::gps,
                              n.prn(),
                              core::to_string(n.stage()),
                              n.stage() == core::gps_navigation_stage::time_known,
                              n.decoder().polarity(),
                              n.counters().records,
                              n.counters().restarts);
    d["bit_edge"] = n.bit_edge();
    d["how_contradictions"] = n.counters().how_contradictions;
    d["subframes"] = l.subframes;
    d["parity_failures"] = l.parity_failures;
    d["discarded_subframes"] = l.discarded_subframes;
    d["ephemerides"] = l.ephemerides;
    d["iono_utc_pages"] = l.iono_utc_pages;
    return d;
}

py::dict counters_of(const core::galileo_navigation_channel& n)
{
    const core::galileo_inav_counters i = n.inav_counters();
    py::dict d = channel_dict(core::gnss_system::galileo,
                              n.prn(),
                              core::to_string(n.stage()),
                              n.stage() == core::galileo_navigation_stage::time_known,
                              n.decoder().polarity(),
                              n.counters().records,
                              n.counters().restarts);
    d["gst_contradictions"] = n.counters().gst_contradictions;
    d["pages"] = i.pages;
    d["crc_failures"] = i.crc_failures;
    d["unpaired_parts"] = i.unpaired_parts;
    d["sync_losses"] = i.sync_losses;
    d["iodnav_mismatches"] = i.iodnav_mismatches;
    d["ephemerides"] = i.ephemerides;
    return d;
}

void bind_scenario(py::module& m)
{
    py::class_<core::gps_constellation_scenario>(
        m,
        "gps_constellation_scenario",
        "GPS L1 C/A satellites, and Galileo E1 ones (galileo: galileo_inav_message each, "
        "E1-B with I/NAV and the E1-C pilot, their clocks keeping GST, gst_minus_gps_s "
        "off GPS time; galileo_week the GST week the pages state) as a receiver at a "
        "known place sees them: code, carrier and navigation data from their broadcast "
        "orbits and clocks, light time with the Earth's rotation and, when klobuchar is "
        "given, that ionosphere (broadcast on subframe 4 page 18 too). signal() makes "
        "the samples (generate, generate_ci16, ...); truth(sat, n) says what they hold "
        "(docs/design/gnss_scenario.md). The visible satellites are numbered GPS first.")
        .def(py::init([](const std::vector<core::gps_ephemeris>& ephemerides,
                         const std::vector<double>& receiver_position_m,
                         double start_tow_s,
                         double duration_s,
                         double sample_rate_hz,
                         double cn0_dbhz,
                         double elevation_mask_deg,
                         std::optional<std::vector<double>> klobuchar,
                         double intermediate_frequency_hz,
                         double noise_power,
                         integer_argument seed,
                         const std::vector<core::galileo_inav_message>& galileo,
                         int galileo_week,
                         double gst_minus_gps_s) {
                 core::gps_scenario_config c;
                 for (const core::gps_ephemeris& e : ephemerides)
                     c.satellites.push_back({ e, cn0_dbhz });
                 for (const core::galileo_inav_message& g : galileo)
                     c.galileo_satellites.push_back({ g, cn0_dbhz });
                 c.galileo_week = galileo_week;
                 c.gst_minus_gps_s = gst_minus_gps_s;
                 c.receiver.position_m =
                     vec3_of(receiver_position_m, "receiver_position_m");
                 c.start_tow_s = start_tow_s;
                 c.duration_s = duration_s;
                 c.elevation_mask_deg = elevation_mask_deg;
                 if (klobuchar) {
                     c.ionosphere = core::gnss_ionosphere_model::klobuchar;
                     c.klobuchar = klobuchar_of(*klobuchar);
                 }
                 c.signal.sample_rate_hz = sample_rate_hz;
                 c.signal.intermediate_frequency_hz = intermediate_frequency_hz;
                 c.signal.noise_power = noise_power;
                 c.signal.seed = narrow<std::uint64_t>("seed", seed);
                 return std::make_unique<core::gps_constellation_scenario>(c);
             }),
             py::arg("ephemerides"),
             py::arg("receiver_position_m"),
             py::arg("start_tow_s"),
             py::arg("duration_s"),
             py::arg("sample_rate_hz"),
             py::arg("cn0_dbhz") = 45.0,
             py::arg("elevation_mask_deg") = 10.0,
             py::arg("klobuchar") = py::none(),
             py::arg("intermediate_frequency_hz") = 0.0,
             py::arg("noise_power") = 1.0,
             py::arg("seed") = 1,
             py::arg("galileo") = std::vector<core::galileo_inav_message>{},
             py::arg("galileo_week") = 0,
             py::arg("gst_minus_gps_s") = 0.0)
        .def("signal",
             py::overload_cast<>(&core::gps_constellation_scenario::signal),
             py::return_value_policy::reference_internal,
             "The gnss_signal_simulator of the visible satellites (its satellite index "
             "is this scenario's).")
        .def("satellite_count", &core::gps_constellation_scenario::satellite_count)
        .def("prn",
             &core::gps_constellation_scenario::prn,
             py::arg("sat"),
             "The PRN of visible satellite sat.")
        .def(
            "system",
            [](const core::gps_constellation_scenario& s, std::size_t sat) {
                return system_name(s.system(sat));
            },
            py::arg("sat"),
            "\"gps\" or \"galileo\": the system of visible satellite sat.")
        .def(
            "satellite",
            [](const core::gps_constellation_scenario& s, std::size_t sat) {
                return core::gnss_satellite_id(s.system(sat), s.prn(sat));
            },
            py::arg("sat"),
            "The RINEX id of visible satellite sat (\"G05\", \"E11\").")
        .def("code_reference_tow_s",
             &core::gps_constellation_scenario::code_reference_tow_s)
        .def(
            "truth",
            [](const core::gps_constellation_scenario& s, std::size_t sat, double n) {
                if (sat >= s.satellite_count())
                    throw py::index_error("sat: must be below " +
                                          std::to_string(s.satellite_count()));
                const core::gps_scenario_truth t = s.truth(sat, n);
                py::dict d;
                d["transmit_tow_s"] = t.transmit_tow_s;
                d["geometric_range_m"] = t.geometric_range_m;
                d["ionosphere_m"] = t.ionosphere_m;
                d["satellite_clock_s"] = t.satellite_clock_s;
                d["pseudorange_m"] = t.pseudorange_m;
                d["doppler_hz"] = t.doppler_hz;
                d["elevation_deg"] = t.direction.elevation_rad / degree;
                d["satellite_position_m"] = vec3(t.satellite_position_m);
                return d;
            },
            py::arg("sat"),
            py::arg("n"),
            "The exact solution for satellite sat at (fractional) sample n: "
            "transmit_tow_s, geometric_range_m, ionosphere_m, satellite_clock_s, "
            "pseudorange_m, doppler_hz, elevation_deg, satellite_position_m.");

    m.def(
        "gnss_geodetic_to_ecef",
        [](double latitude_deg, double longitude_deg, double height_m) {
            return vec3(core::geodetic_to_ecef(
                { latitude_deg * degree, longitude_deg * degree, height_m }));
        },
        py::arg("latitude_deg"),
        py::arg("longitude_deg"),
        py::arg("height_m"),
        "WGS-84 geodetic to ECEF (x, y, z) metres.");
}

void bind_epoch(py::module& m)
{
    py::class_<core::gps_receiver_epoch>(
        m,
        "gps_receiver_epoch",
        "One observation epoch of gps_receiver and its fix (valid or not, with the "
        "reason).")
        .def_property_readonly("receiver_time_ms",
                               [](const core::gps_receiver_epoch& e) {
                                   return e.observations.receiver_time_ms;
                               })
        .def_property_readonly(
            "sample_index",
            [](const core::gps_receiver_epoch& e) { return e.observations.sample_index; })
        .def_property_readonly("observations",
                               [](const core::gps_receiver_epoch& e) {
                                   return observations_of(e.observations);
                               })
        .def_property_readonly("fix", &fix_dict)
        .def(
            "nmea",
            [](const core::gps_receiver_epoch& e, int week, int leap_seconds) {
                return core::gps_receiver_nmea(e, week, leap_seconds);
            },
            py::arg("week"),
            py::arg("leap_seconds"),
            "The NMEA 0183 sentences of the epoch (GGA, RMC, GSA, GSV, each ending in "
            "CR LF); week is the GPS week of its receiver_time_ms.");
}

void bind_receiver(py::module& m)
{
    py::class_<core::gps_receiver>(
        m,
        "gps_receiver",
        "The host side of a GPS L1 C/A + Galileo E1 receiver: multichannel_correlator "
        "records in, observation epochs and fixes out (docs/design/gps_receiver.md). "
        "Assign each correlator channel its system and PRN (a Galileo channel tracks "
        "the E1-B code, 4-ms records), then give process() every process() call's "
        "records and correlations with the correlator's samples_processed().")
        .def(py::init([](double sample_rate_hz,
                         int interval_ms,
                         double elevation_mask_deg,
                         const std::string& troposphere,
                         bool ionosphere,
                         std::optional<std::vector<double>> klobuchar,
                         integer_argument prompt_tap) {
                 core::gps_receiver_config c;
                 c.observables.sample_rate_hz = sample_rate_hz;
                 c.observables.interval_ms = interval_ms;
                 c.pvt.elevation_mask_rad = elevation_mask_deg * degree;
                 c.pvt.troposphere = troposphere_of(troposphere);
                 c.pvt.ionosphere = ionosphere ? core::gnss_ionosphere_model::klobuchar
                                               : core::gnss_ionosphere_model::none;
                 if (klobuchar) {
                     c.has_iono_utc = true;
                     const core::gnss_klobuchar_coefficients k = klobuchar_of(*klobuchar);
                     for (int i = 0; i < 4; ++i) {
                         c.iono_utc.alpha[i] = k.alpha[i];
                         c.iono_utc.beta[i] = k.beta[i];
                     }
                 }
                 c.prompt_tap = narrow<std::size_t>("prompt_tap", prompt_tap);
                 return std::make_unique<core::gps_receiver>(c);
             }),
             py::arg("sample_rate_hz"),
             py::arg("interval_ms") = 1000,
             py::arg("elevation_mask_deg") = 10.0,
             py::arg("troposphere") = "saastamoinen",
             py::arg("ionosphere") = true,
             py::arg("klobuchar") = py::none(),
             py::arg("prompt_tap") = 1,
             "interval_ms between epochs (20 to any whole ms); troposphere "
             "\"saastamoinen\" or \"none\"; ionosphere: Klobuchar with the broadcast "
             "parameters, or klobuchar (alpha0..3, beta0..3) known before page 18 "
             "arrives; prompt_tap the correlator channels' prompt.")
        .def(
            "assign_channel",
            [](core::gps_receiver& r,
               integer_argument id,
               int prn,
               const std::string& system) {
                r.assign_channel(
                    narrow<std::uint32_t>("id", id), system_of(system, "system"), prn);
            },
            py::arg("id"),
            py::arg("prn"),
            py::arg("system") = "gps",
            "Give correlator channel id to PRN prn of system \"gps\" (1..32) or "
            "\"galileo\" (1..50; an E1-B channel), with a fresh navigation channel.")
        .def(
            "release_channel",
            [](core::gps_receiver& r, integer_argument id) {
                r.release_channel(narrow<std::uint32_t>("id", id));
            },
            py::arg("id"))
        .def(
            "process",
            [](core::gps_receiver& r,
               const py::array& records,
               const py::array& correlations,
               std::uint64_t complete_through_sample) {
                const core::gnss_correlator_results results =
                    results_of(records, correlations);
                py::gil_scoped_release release;
                return r.process(results, complete_through_sample);
            },
            py::arg("records"),
            py::arg("correlations"),
            py::arg("complete_through_sample"),
            "Take one multichannel_correlator.process() call's records and "
            "correlations and the correlator's samples_processed() after it; returns "
            "the epochs completed (gps_receiver_epoch), in time order.")
        .def(
            "channel",
            [](const core::gps_receiver& r, integer_argument id) -> py::object {
                const std::uint32_t wanted = narrow<std::uint32_t>("id", id);
                if (const core::gps_navigation_channel* n = r.channel(wanted))
                    return counters_of(*n);
                if (const core::galileo_navigation_channel* n = r.galileo_channel(wanted))
                    return counters_of(*n);
                return py::none();
            },
            py::arg("id"),
            "Where channel id's navigation stands: satellite (\"G05\", \"E11\"), "
            "system, prn, stage (its text), time_known (transmit times stated), "
            "polarity, records, restarts and the system's counters (GPS: bit_edge, "
            "how_contradictions, subframes, parity_failures, discarded_subframes, "
            "ephemerides, iono_utc_pages; Galileo: gst_contradictions, pages, "
            "crc_failures, unpaired_parts, sync_losses, iodnav_mismatches, "
            "ephemerides); None for an unknown id.")
        .def(
            "galileo_ephemerides",
            [](const core::gps_receiver& r) { return r.galileo_ephemerides(); },
            "The latest Galileo ephemeris per PRN (a dict).")
        .def(
            "galileo_iono_health",
            [](const core::gps_receiver& r) { return r.galileo_iono_health_words(); },
            "The latest Galileo word 5 per PRN (a dict of galileo_iono_health).")
        .def(
            "galileo_gst_utc",
            [](const core::gps_receiver& r) -> std::optional<core::galileo_gst_utc> {
                if (!r.has_galileo_gst_utc())
                    return std::nullopt;
                return r.galileo_gst_utc_word();
            },
            "The latest Galileo word 6 (GST-UTC, leap seconds) of any satellite, or "
            "None.")
        .def(
            "ephemerides",
            [](const core::gps_receiver& r) { return r.ephemerides(); },
            "The latest ephemeris per PRN (a dict).")
        .def(
            "iono_utc",
            [](const core::gps_receiver& r) -> std::optional<core::gps_iono_utc> {
                if (!r.has_iono_utc())
                    return std::nullopt;
                return r.iono_utc();
            },
            "The ionosphere and UTC parameters in use (given or broadcast), or None.")
        .def("waiting_for",
             &core::gps_receiver::waiting_for,
             "Before the first epoch, what each channel waits for; \"\" after.");
}

} // namespace

void bind_gps_receiver(py::module& m)
{
    bind_scenario(m);
    bind_epoch(m);
    bind_receiver(m);
}
