/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The broadcast navigation data of both systems for Python, as the receiver decodes
// them and the scenario and the RINEX writers take them: the GPS LNAV ephemeris and
// subframe 4 page 18 (ionosphere, UTC), the Galileo I/NAV ephemeris (words 1 to 4),
// word 5 (ionosphere, group delays, health) and word 6 (GST-UTC), and the nominal
// constellations of both systems for simulations. Written by hand over the engine
// library's internal headers (python/engines/CMakeLists.txt says why).

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "gnss/galileo_ephemeris.h"
#include "gnss/galileo_inav.h"
#include "gnss/galileo_inav_encoder.h"
#include "gnss/galileo_nominal_constellation.h"
#include "gnss/gps_ephemeris.h"
#include "gnss/gps_lnav.h"
#include "gnss/gps_nominal_constellation.h"
#include "gnss_arguments.h"
#include <vector>

namespace py = pybind11;

namespace {

namespace core = gr::cudadsp::core;
using gr::cudadsp::bindings::klobuchar_of;

void bind_gps(py::module& m)
{
    py::class_<core::gps_ephemeris>(
        m,
        "gps_ephemeris",
        "A GPS LNAV broadcast ephemeris and clock (IS-GPS-200 units: semicircles, "
        "seconds, metres); week is the 10-bit week as sent.")
        .def(py::init<>())
        .def_readwrite("prn", &core::gps_ephemeris::prn)
        .def_readwrite("week", &core::gps_ephemeris::week)
        .def_readwrite("health", &core::gps_ephemeris::health)
        .def_readwrite("ura_index", &core::gps_ephemeris::ura_index)
        .def_readwrite("iodc", &core::gps_ephemeris::iodc)
        .def_readwrite("iode", &core::gps_ephemeris::iode)
        .def_readwrite("tgd", &core::gps_ephemeris::tgd)
        .def_readwrite("toc", &core::gps_ephemeris::toc)
        .def_readwrite("af0", &core::gps_ephemeris::af0)
        .def_readwrite("af1", &core::gps_ephemeris::af1)
        .def_readwrite("af2", &core::gps_ephemeris::af2)
        .def_readwrite("toe", &core::gps_ephemeris::toe)
        .def_readwrite("sqrt_a", &core::gps_ephemeris::sqrt_a)
        .def_readwrite("e", &core::gps_ephemeris::e)
        .def_readwrite("m0", &core::gps_ephemeris::m0)
        .def_readwrite("delta_n", &core::gps_ephemeris::delta_n)
        .def_readwrite("crs", &core::gps_ephemeris::crs)
        .def_readwrite("crc", &core::gps_ephemeris::crc)
        .def_readwrite("cuc", &core::gps_ephemeris::cuc)
        .def_readwrite("cus", &core::gps_ephemeris::cus)
        .def_readwrite("cic", &core::gps_ephemeris::cic)
        .def_readwrite("cis", &core::gps_ephemeris::cis)
        .def_readwrite("omega0", &core::gps_ephemeris::omega0)
        .def_readwrite("i0", &core::gps_ephemeris::i0)
        .def_readwrite("omega", &core::gps_ephemeris::omega)
        .def_readwrite("omega_dot", &core::gps_ephemeris::omega_dot)
        .def_readwrite("idot", &core::gps_ephemeris::idot)
        .def_readwrite("code_on_l2", &core::gps_ephemeris::code_on_l2)
        .def_readwrite("l2p_data_flag", &core::gps_ephemeris::l2p_data_flag)
        .def_readwrite("aodo", &core::gps_ephemeris::aodo)
        .def_readwrite("fit_interval_flag", &core::gps_ephemeris::fit_interval_flag);

    py::class_<core::gps_iono_utc>(m,
                                   "gps_iono_utc",
                                   "Subframe 4 page 18: Klobuchar alpha and beta, "
                                   "GPS-UTC (a0, a1, tot, wnt) and the "
                                   "leap seconds (dt_ls, wn_lsf, dn, dt_lsf), as "
                                   "IS-GPS-200 20.3.3.5.1.6-7 give them.")
        .def(py::init<>())
        .def_property(
            "klobuchar",
            [](const core::gps_iono_utc& p) {
                return std::vector<double>{ p.alpha[0], p.alpha[1], p.alpha[2],
                                            p.alpha[3], p.beta[0],  p.beta[1],
                                            p.beta[2],  p.beta[3] };
            },
            [](core::gps_iono_utc& p, const std::vector<double>& k) {
                const core::gnss_klobuchar_coefficients c = klobuchar_of(k);
                for (int i = 0; i < 4; ++i) {
                    p.alpha[i] = c.alpha[i];
                    p.beta[i] = c.beta[i];
                }
            },
            "alpha0..3 then beta0..3")
        .def_readwrite("a0", &core::gps_iono_utc::a0)
        .def_readwrite("a1", &core::gps_iono_utc::a1)
        .def_readwrite("tot", &core::gps_iono_utc::tot)
        .def_readwrite("wnt", &core::gps_iono_utc::wnt)
        .def_readwrite("dt_ls", &core::gps_iono_utc::dt_ls)
        .def_readwrite("wn_lsf", &core::gps_iono_utc::wn_lsf)
        .def_readwrite("dn", &core::gps_iono_utc::dn)
        .def_readwrite("dt_lsf", &core::gps_iono_utc::dt_lsf);

    m.def("gps_nominal_constellation",
          &core::gps_nominal_constellation,
          py::arg("week"),
          py::arg("toe_s"),
          "30 healthy satellites, PRN 1 to 30, on a nominal geometry (6 planes of 5) for "
          "simulations: week the 10-bit week, toe_s a multiple of 16 s "
          "(docs/design/gnss_scenario.md).");
}

void bind_galileo(py::module& m)
{
    py::class_<core::galileo_ephemeris>(
        m,
        "galileo_ephemeris",
        "A Galileo I/NAV ephemeris and clock, words 1 to 4 of one IODnav (OS SIS ICD "
        "units: semicircles, seconds, metres); the clock is the E1,E5b one; svid is the "
        "PRN; sisa the SISA(E1,E5b) index (255: no accuracy prediction).")
        .def(py::init<>())
        .def_readwrite("svid", &core::galileo_ephemeris::svid)
        .def_readwrite("iodnav", &core::galileo_ephemeris::iodnav)
        .def_readwrite("t0e", &core::galileo_ephemeris::t0e)
        .def_readwrite("m0", &core::galileo_ephemeris::m0)
        .def_readwrite("e", &core::galileo_ephemeris::e)
        .def_readwrite("sqrt_a", &core::galileo_ephemeris::sqrt_a)
        .def_readwrite("omega0", &core::galileo_ephemeris::omega0)
        .def_readwrite("i0", &core::galileo_ephemeris::i0)
        .def_readwrite("omega", &core::galileo_ephemeris::omega)
        .def_readwrite("idot", &core::galileo_ephemeris::idot)
        .def_readwrite("omega_dot", &core::galileo_ephemeris::omega_dot)
        .def_readwrite("delta_n", &core::galileo_ephemeris::delta_n)
        .def_readwrite("cuc", &core::galileo_ephemeris::cuc)
        .def_readwrite("cus", &core::galileo_ephemeris::cus)
        .def_readwrite("crc", &core::galileo_ephemeris::crc)
        .def_readwrite("crs", &core::galileo_ephemeris::crs)
        .def_readwrite("sisa", &core::galileo_ephemeris::sisa)
        .def_readwrite("cic", &core::galileo_ephemeris::cic)
        .def_readwrite("cis", &core::galileo_ephemeris::cis)
        .def_readwrite("t0c", &core::galileo_ephemeris::t0c)
        .def_readwrite("af0", &core::galileo_ephemeris::af0)
        .def_readwrite("af1", &core::galileo_ephemeris::af1)
        .def_readwrite("af2", &core::galileo_ephemeris::af2);

    py::class_<core::galileo_iono_health>(
        m,
        "galileo_iono_health",
        "Galileo I/NAV word 5: NeQuick-G ai0..ai2, BGD(E1,E5a) and BGD(E1,E5b) in "
        "seconds, E5b and E1-B signal health (HS) and data validity (DVS), GST week "
        "(wn, 12 bits) and time of week.")
        .def(py::init<>())
        .def_readwrite("ai0", &core::galileo_iono_health::ai0)
        .def_readwrite("ai1", &core::galileo_iono_health::ai1)
        .def_readwrite("ai2", &core::galileo_iono_health::ai2)
        .def_readwrite("bgd_e1_e5a", &core::galileo_iono_health::bgd_e1_e5a)
        .def_readwrite("bgd_e1_e5b", &core::galileo_iono_health::bgd_e1_e5b)
        .def_readwrite("e5b_hs", &core::galileo_iono_health::e5b_hs)
        .def_readwrite("e1b_hs", &core::galileo_iono_health::e1b_hs)
        .def_readwrite("e5b_dvs", &core::galileo_iono_health::e5b_dvs)
        .def_readwrite("e1b_dvs", &core::galileo_iono_health::e1b_dvs)
        .def_readwrite("wn", &core::galileo_iono_health::wn)
        .def_readwrite("tow", &core::galileo_iono_health::tow);

    py::class_<core::galileo_gst_utc>(
        m,
        "galileo_gst_utc",
        "Galileo I/NAV word 6: GST-UTC A0, A1, t0t, WN0t (8 bits) and the leap seconds "
        "(dt_ls, wn_lsf, dn, dt_lsf).")
        .def(py::init<>())
        .def_readwrite("a0", &core::galileo_gst_utc::a0)
        .def_readwrite("a1", &core::galileo_gst_utc::a1)
        .def_readwrite("dt_ls", &core::galileo_gst_utc::dt_ls)
        .def_readwrite("t0t", &core::galileo_gst_utc::t0t)
        .def_readwrite("wn0t", &core::galileo_gst_utc::wn0t)
        .def_readwrite("wn_lsf", &core::galileo_gst_utc::wn_lsf)
        .def_readwrite("dn", &core::galileo_gst_utc::dn)
        .def_readwrite("dt_lsf", &core::galileo_gst_utc::dt_lsf)
        .def_readwrite("tow", &core::galileo_gst_utc::tow);

    py::class_<core::galileo_inav_message>(
        m,
        "galileo_inav_message",
        "What one Galileo satellite's E1-B I/NAV carries: ephemeris (words 1 to 4), "
        "iono_health (word 5) and gst_utc (word 6).")
        .def(py::init<>())
        .def_readwrite("ephemeris", &core::galileo_inav_message::ephemeris)
        .def_readwrite("iono_health", &core::galileo_inav_message::iono_health)
        .def_readwrite("gst_utc", &core::galileo_inav_message::gst_utc);

    m.def("galileo_nominal_constellation",
          &core::galileo_nominal_constellation,
          py::arg("t0e_s"),
          py::arg("iodnav"),
          "24 healthy Galileo satellites, PRN 1 to 24, on the nominal Walker 24/3/1 for "
          "simulations (galileo_inav_message each): t0e_s a multiple of 60 s, iodnav "
          "0..1023 (docs/design/gnss_scenario.md).");
}

} // namespace

void bind_gnss_navigation_data(py::module& m)
{
    bind_gps(m);
    bind_galileo(m);
}
