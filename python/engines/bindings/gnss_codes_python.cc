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
/* BINDTOOL_HEADER_FILE(core/gnss_codes.h)                                         */
/* BINDTOOL_HEADER_FILE_HASH(eb357be606957a92ac7c65a37251fa2d)                     */
/***********************************************************************************/

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include <gnuradio/cudadsp/core/gnss_codes.h>
// pydoc.h is automatically generated in the build directory
#include <gnss_codes_pydoc.h>

#include "array_arguments.h"

#include <algorithm>
#include <string>
#include <vector>

namespace {

namespace core = gr::cudadsp::core;

core::galileo_e1_component component_of(py::handle component)
{
    if (py::isinstance<core::galileo_e1_component>(component))
        return component.cast<core::galileo_e1_component>();
    if (py::isinstance<py::str>(component)) {
        std::string name = component.cast<std::string>();
        std::transform(name.begin(), name.end(), name.begin(), ::tolower);
        if (name == "b" || name == "e1b" || name == "e1-b")
            return core::galileo_e1_component::b;
        if (name == "c" || name == "e1c" || name == "e1-c")
            return core::galileo_e1_component::c;
    }
    throw py::value_error("component: must be \"b\" (E1-B, data) or \"c\" (E1-C, "
                          "pilot), got " +
                          py::repr(component).cast<std::string>());
}

} // namespace

void bind_gnss_codes(py::module& m)
{
    m.attr("gps_l1_frequency_hz") = core::gps_l1_frequency_hz;
    m.attr("gps_l1ca_chip_rate_cps") = core::gps_l1ca_chip_rate_cps;
    m.attr("gps_l1ca_code_length") = core::gps_l1ca_code_length;
    m.attr("glonass_l1of_chip_rate_cps") = core::glonass_l1of_chip_rate_cps;
    m.attr("glonass_l1of_code_length") = core::glonass_l1of_code_length;
    m.attr("galileo_e1_chip_rate_cps") = core::galileo_e1_chip_rate_cps;
    m.attr("galileo_e1_code_length") = core::galileo_e1_code_length;
    m.attr("galileo_e1_prn_count") = core::galileo_e1_prn_count;

    py::enum_<core::galileo_e1_component>(
        m, "galileo_e1_component", D(core, galileo_e1_component))
        .value("b", core::galileo_e1_component::b)
        .value("c", core::galileo_e1_component::c);

    m.def(
        "gps_l1ca_code",
        [](int prn) { return cudadsp_engines::array_of(core::gps_l1ca_code(prn)); },
        py::arg("prn"),
        D(core, gps_l1ca_code));
    m.def(
        "glonass_l1of_code",
        []() { return cudadsp_engines::array_of(core::glonass_l1of_code()); },
        D(core, glonass_l1of_code));
    m.def(
        "galileo_e1_code",
        [](int prn, py::object component) {
            return cudadsp_engines::array_of(
                core::galileo_e1_code(prn, component_of(component)));
        },
        py::arg("prn"),
        py::arg("component") = "c",
        D(core, galileo_e1_code));
    m.def(
        "boc11_expand",
        [](const py::array_t<std::int8_t, py::array::forcecast>& chips) {
            return cudadsp_engines::array_of(
                core::boc11_expand(cudadsp_engines::vector_of(chips, "chips")));
        },
        py::arg("chips"),
        D(core, boc11_expand));
}
