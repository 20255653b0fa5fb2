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
/* BINDTOOL_HEADER_FILE(core/gnss_signal_simulator.h)                              */
/* BINDTOOL_HEADER_FILE_HASH(2fbaaba6393ffd5b9488153be0369fef)                     */
/***********************************************************************************/

#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
// pydoc.h is automatically generated in the build directory
#include <gnss_signal_simulator_pydoc.h>

#include "array_arguments.h"

#include <string>
#include <vector>

namespace {

namespace core = gr::cudadsp::core;
using simulator = core::gnss_signal_simulator;

std::size_t count_of(long long n)
{
    if (n < 0)
        throw py::value_error("n: must be >= 0, got " + std::to_string(n));
    return static_cast<std::size_t>(n);
}

//! A truth function of (satellite, sample) applied to a scalar or an array of samples.
template <typename F>
py::object truth(const simulator& sim, std::size_t sat, py::handle n, F f)
{
    if (sat >= sim.satellite_count())
        throw py::index_error("sat: must be below " +
                              std::to_string(sim.satellite_count()) + ", got " +
                              std::to_string(sat));
    if (py::isinstance<py::float_>(n) || py::isinstance<py::int_>(n))
        return py::cast(f(sat, n.cast<double>()));
    const auto samples = py::array_t<double, py::array::forcecast>::ensure(n);
    if (!samples)
        throw py::value_error("n: must be a number or an array of numbers");
    py::array_t<double> out(samples.request().shape);
    const double* in = samples.data();
    double* o = out.mutable_data();
    for (py::ssize_t i = 0; i < samples.size(); ++i)
        o[i] = f(sat, in[i]);
    return std::move(out);
}

void bind_simulated_satellite(py::module& m)
{
    py::class_<core::gnss_simulated_satellite>(
        m, "gnss_simulated_satellite", D(core, gnss_simulated_satellite))
        .def(py::init<>())
        .def_property(
            "code",
            [](const core::gnss_simulated_satellite& s) {
                return cudadsp_engines::array_of(s.code);
            },
            [](core::gnss_simulated_satellite& s,
               const py::array_t<std::int8_t, py::array::forcecast>& a) {
                s.code = cudadsp_engines::vector_of(a, "code");
            })
        .def_property(
            "pilot_code",
            [](const core::gnss_simulated_satellite& s) {
                return cudadsp_engines::array_of(s.pilot_code);
            },
            [](core::gnss_simulated_satellite& s,
               const py::array_t<std::int8_t, py::array::forcecast>& a) {
                s.pilot_code = cudadsp_engines::vector_of(a, "pilot_code");
            })
        .def_readwrite("code_entries_per_chip",
                       &core::gnss_simulated_satellite::code_entries_per_chip)
        .def_readwrite("chip_rate_cps", &core::gnss_simulated_satellite::chip_rate_cps)
        .def_readwrite("carrier_frequency_hz",
                       &core::gnss_simulated_satellite::carrier_frequency_hz)
        .def_readwrite("code_phase_chips",
                       &core::gnss_simulated_satellite::code_phase_chips)
        .def_readwrite("doppler_hz", &core::gnss_simulated_satellite::doppler_hz)
        .def_readwrite("doppler_rate_hz_per_s",
                       &core::gnss_simulated_satellite::doppler_rate_hz_per_s)
        .def_readwrite("carrier_phase_rad",
                       &core::gnss_simulated_satellite::carrier_phase_rad)
        .def_readwrite("cn0_dbhz", &core::gnss_simulated_satellite::cn0_dbhz)
        .def_readwrite("code_periods_per_bit",
                       &core::gnss_simulated_satellite::code_periods_per_bit)
        .def_property(
            "bits",
            [](const core::gnss_simulated_satellite& s) {
                return cudadsp_engines::array_of(s.bits);
            },
            [](core::gnss_simulated_satellite& s,
               const py::array_t<std::int8_t, py::array::forcecast>& a) {
                s.bits = cudadsp_engines::vector_of(a, "bits");
            });
}

void bind_simulator_config(py::module& m)
{
    py::class_<core::gnss_simulator_config>(
        m, "gnss_simulator_config", D(core, gnss_simulator_config))
        .def(py::init<>())
        .def_readwrite("sample_rate_hz", &core::gnss_simulator_config::sample_rate_hz)
        .def_readwrite("intermediate_frequency_hz",
                       &core::gnss_simulator_config::intermediate_frequency_hz)
        .def_readwrite("noise_power", &core::gnss_simulator_config::noise_power)
        .def_readwrite("seed", &core::gnss_simulator_config::seed);
}

void bind_simulator(py::module& m)
{
    py::class_<simulator>(m, "gnss_signal_simulator", D(core, gnss_signal_simulator))
        .def(py::init<const core::gnss_simulator_config&,
                      const std::vector<core::gnss_simulated_satellite>&>(),
             py::arg("config"),
             py::arg("satellites"),
             D(core, gnss_signal_simulator, gnss_signal_simulator))
        .def(
            "generate",
            [](simulator& self, long long n) {
                auto out = cudadsp_engines::new_vector<std::complex<float>>(
                    static_cast<py::ssize_t>(count_of(n)));
                std::complex<float>* data = out.mutable_data();
                {
                    py::gil_scoped_release release;
                    self.generate(data, static_cast<std::size_t>(n));
                }
                return out;
            },
            py::arg("n"),
            D(core, gnss_signal_simulator, generate))
        .def(
            "generate_ci16",
            [](simulator& self, long long n, double scale) {
                auto out = cudadsp_engines::new_vector<std::int16_t>(
                    static_cast<py::ssize_t>(2 * count_of(n)));
                std::int16_t* data = out.mutable_data();
                {
                    py::gil_scoped_release release;
                    self.generate_ci16(data, static_cast<std::size_t>(n), scale);
                }
                return out;
            },
            py::arg("n"),
            py::arg("scale"),
            D(core, gnss_signal_simulator, generate_ci16))
        .def(
            "generate_ci8",
            [](simulator& self, long long n, double scale) {
                auto out = cudadsp_engines::new_vector<std::int8_t>(
                    static_cast<py::ssize_t>(2 * count_of(n)));
                std::int8_t* data = out.mutable_data();
                {
                    py::gil_scoped_release release;
                    self.generate_ci8(data, static_cast<std::size_t>(n), scale);
                }
                return out;
            },
            py::arg("n"),
            py::arg("scale"),
            D(core, gnss_signal_simulator, generate_ci8))
        .def("position", &simulator::position, D(core, gnss_signal_simulator, position))
        .def("satellite_count",
             &simulator::satellite_count,
             D(core, gnss_signal_simulator, satellite_count))
        .def(
            "code_phase_total_chips",
            [](const simulator& s, std::size_t sat, py::handle n) {
                return truth(s, sat, n, [&](std::size_t k, double x) {
                    return s.code_phase_total_chips(k, x);
                });
            },
            py::arg("sat"),
            py::arg("n"),
            D(core, gnss_signal_simulator, code_phase_total_chips))
        .def(
            "code_phase_chips",
            [](const simulator& s, std::size_t sat, py::handle n) {
                return truth(s, sat, n, [&](std::size_t k, double x) {
                    return s.code_phase_chips(k, x);
                });
            },
            py::arg("sat"),
            py::arg("n"),
            D(core, gnss_signal_simulator, code_phase_chips))
        .def(
            "code_rate_cps",
            [](const simulator& s, std::size_t sat, py::handle n) {
                return truth(s, sat, n, [&](std::size_t k, double x) {
                    return s.code_rate_cps(k, x);
                });
            },
            py::arg("sat"),
            py::arg("n"),
            D(core, gnss_signal_simulator, code_rate_cps))
        .def(
            "doppler_hz",
            [](const simulator& s, std::size_t sat, py::handle n) {
                return truth(s, sat, n, [&](std::size_t k, double x) {
                    return s.doppler_hz(k, x);
                });
            },
            py::arg("sat"),
            py::arg("n"),
            D(core, gnss_signal_simulator, doppler_hz))
        .def(
            "carrier_phase_rad",
            [](const simulator& s, std::size_t sat, py::handle n) {
                return truth(s, sat, n, [&](std::size_t k, double x) {
                    return s.carrier_phase_rad(k, x);
                });
            },
            py::arg("sat"),
            py::arg("n"),
            D(core, gnss_signal_simulator, carrier_phase_rad))
        .def(
            "bit_index",
            [](const simulator& s, std::size_t sat, double n) {
                if (sat >= s.satellite_count())
                    throw py::index_error("sat: out of range");
                return s.bit_index(sat, n);
            },
            py::arg("sat"),
            py::arg("n"),
            D(core, gnss_signal_simulator, bit_index))
        .def(
            "bit",
            [](const simulator& s, std::size_t sat, std::int64_t index) {
                if (sat >= s.satellite_count())
                    throw py::index_error("sat: out of range");
                return s.bit(sat, index);
            },
            py::arg("sat"),
            py::arg("index"),
            D(core, gnss_signal_simulator, bit))
        .def(
            "amplitude",
            [](const simulator& s, std::size_t sat) {
                if (sat >= s.satellite_count())
                    throw py::index_error("sat: out of range");
                return s.amplitude(sat);
            },
            py::arg("sat"),
            D(core, gnss_signal_simulator, amplitude));
}

} // namespace

void bind_gnss_signal_simulator(py::module& m)
{
    bind_simulated_satellite(m);
    bind_simulator_config(m);
    bind_simulator(m);
}
