/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_GPS_SAMPLE_EPHEMERIS_H
#define INCLUDED_CUDADSP_QA_GPS_SAMPLE_EPHEMERIS_H

// One plausible GPS broadcast ephemeris (PRN 7, IODC > 255), shared by the LNAV and the
// RINEX tests: its orbit and clock terms. Week, reference times, fit interval and AODO
// are each test's own.

#include "gnss/gps_ephemeris.h"

namespace gr {
namespace cudadsp {
namespace qa {

inline core::gps_ephemeris sample_gps_ephemeris()
{
    core::gps_ephemeris e;
    e.prn = 7;
    e.code_on_l2 = 1;
    e.ura_index = 2;
    e.health = 0;
    e.iodc = 0x1A5; // > 255: IODE is its 8 LSBs
    e.iode = 0xA5;
    e.l2p_data_flag = 1;
    e.tgd = -1.1641532182693e-8;
    e.af2 = 5.55e-17;
    e.af1 = -3.524291969370e-12;
    e.af0 = 2.3126322776079e-4;
    e.crs = -28.96875;
    e.delta_n = 1.4662266620e-9;
    e.m0 = 0.2816123;
    e.cuc = -1.5273690223694e-6;
    e.e = 0.0101538452413;
    e.cus = 8.0149993300438e-6;
    e.sqrt_a = 5153.6573257446;
    e.cic = 1.6763806343079e-8;
    e.omega0 = -0.6123409;
    e.cis = -9.1269612312317e-8;
    e.i0 = 0.3080254;
    e.crc = 225.71875;
    e.omega = -0.4213377;
    e.omega_dot = -2.6139e-9;
    e.idot = 1.5e-11;
    return e;
}

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_GPS_SAMPLE_EPHEMERIS_H */
