/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BINDINGS_GNSS_ARGUMENTS_H
#define INCLUDED_CUDADSP_BINDINGS_GNSS_ARGUMENTS_H

// GNSS values between Python and the engine library, shared by the receiver's, the
// navigation data's and the outputs' bindings: ECEF tuples, the 8 Klobuchar numbers,
// calendar times, system names ("gps", "galileo"). Each refuses a bad value with a
// ValueError naming the argument.

#include <pybind11/pybind11.h>

#include "gnss/gnss_atmosphere.h"
#include "gnss/gnss_geodesy.h"
#include "gnss/gnss_pvt.h"
#include "gnss/gnss_time.h"
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bindings {

constexpr double gnss_degree = 3.14159265358979323846 / 180.0;

inline pybind11::tuple vec3(const core::gnss_vec3& v)
{
    return pybind11::make_tuple(v[0], v[1], v[2]);
}

inline core::gnss_vec3 vec3_of(const std::vector<double>& v, const char* name)
{
    if (v.size() != 3)
        throw pybind11::value_error(std::string(name) +
                                    ": must hold 3 numbers (ECEF x, y, z)");
    return { v[0], v[1], v[2] };
}

//! Klobuchar alpha and beta (IS-GPS-200 20.3.3.5.1.7 units) from 8 numbers.
inline core::gnss_klobuchar_coefficients klobuchar_of(const std::vector<double>& k)
{
    if (k.size() != 8)
        throw pybind11::value_error(
            "klobuchar: must hold 8 numbers, alpha0..3 then beta0..3");
    core::gnss_klobuchar_coefficients c{};
    for (int i = 0; i < 4; ++i) {
        c.alpha[i] = k[i];
        c.beta[i] = k[4 + i];
    }
    return c;
}

inline core::gnss_calendar_time calendar_of(const pybind11::tuple& t)
{
    if (t.size() != 6)
        throw pybind11::value_error(
            "created_utc: must be (year, month, day, hour, minute, second)");
    core::gnss_calendar_time c;
    c.year = t[0].cast<int>();
    c.month = t[1].cast<int>();
    c.day = t[2].cast<int>();
    c.hour = t[3].cast<int>();
    c.minute = t[4].cast<int>();
    c.second = t[5].cast<double>();
    return c;
}

//! "gps" or "galileo" as the engine's system; \p name the argument's, for the error.
inline core::gnss_system system_of(const std::string& text, const std::string& name)
{
    if (text == "gps")
        return core::gnss_system::gps;
    if (text == "galileo")
        return core::gnss_system::galileo;
    throw pybind11::value_error(name + ": must be \"gps\" or \"galileo\", got \"" + text +
                                "\"");
}

//! "gps" or "galileo", as system_of() reads it.
inline const char* system_name(core::gnss_system system)
{
    return system == core::gnss_system::gps ? "gps" : "galileo";
}

//! A list of system names, none twice and at least one.
inline std::vector<core::gnss_system> systems_of(const std::vector<std::string>& texts)
{
    std::vector<core::gnss_system> systems;
    for (std::size_t k = 0; k < texts.size(); ++k) {
        const core::gnss_system s =
            system_of(texts[k], "systems[" + std::to_string(k) + "]");
        for (core::gnss_system earlier : systems)
            if (earlier == s)
                throw pybind11::value_error("systems: \"" + texts[k] + "\" given twice");
        systems.push_back(s);
    }
    if (systems.empty())
        throw pybind11::value_error("systems: must name \"gps\", \"galileo\" or both");
    return systems;
}

} // namespace bindings
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BINDINGS_GNSS_ARGUMENTS_H */
