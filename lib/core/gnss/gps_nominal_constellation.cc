/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gps_lnav.h"
#include "gnss/gps_nominal_constellation.h"
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr int planes = 6;
constexpr int slots_per_plane = 5;

// Semicircles in (-1, 1], the range of the LNAV angle fields.
double wrap_semicircles(double sc)
{
    const double wrapped = std::fmod(sc + 1.0, 2.0);
    return (wrapped < 0.0 ? wrapped + 2.0 : wrapped) - 1.0;
}

// The values a receiver decodes from the subframes 1 to 3 made of `eph`.
gps_ephemeris as_broadcast(const gps_ephemeris& eph)
{
    gps_lnav_message message;
    message.ephemeris = eph;
    gps_lnav_decoder decoder(eph.prn);
    for (std::uint8_t bit : gps_lnav_encode(message, 0, 3))
        decoder.push(bit);
    if (!decoder.has_ephemeris())
        throw std::logic_error("gps_nominal_constellation: PRN " +
                               std::to_string(eph.prn) +
                               " did not survive the LNAV round trip");
    gps_ephemeris broadcast = decoder.ephemeris();
    broadcast.prn = eph.prn;
    return broadcast;
}

} // namespace

std::vector<gps_ephemeris> gps_nominal_constellation(int week, double toe_s)
{
    if (week < 0 || week > 1023)
        throw std::invalid_argument("gps_nominal_constellation: week must be in "
                                    "[0, 1023], got " +
                                    std::to_string(week));
    if (!(toe_s >= 0.0 && toe_s <= 604784.0 && std::fmod(toe_s, 16.0) == 0.0))
        throw std::invalid_argument("gps_nominal_constellation: toe_s must be a "
                                    "multiple of 16 in [0, 604784], got " +
                                    std::to_string(toe_s));
    std::vector<gps_ephemeris> constellation;
    for (int plane = 0; plane < planes; ++plane) {
        for (int slot = 0; slot < slots_per_plane; ++slot) {
            const int index = plane * slots_per_plane + slot;
            // Alternating signs and index-dependent magnitudes, so that every
            // satellite's corrections differ and both signs of each field occur.
            const double sign = (index % 2 == 0) ? 1.0 : -1.0;
            gps_ephemeris e;
            e.prn = index + 1;
            e.week = week;
            e.ura_index = 0;
            e.iodc = 16 + index;
            e.iode = e.iodc;
            e.toe = toe_s;
            e.toc = toe_s;
            e.sqrt_a = std::sqrt(26560e3);
            e.e = 0.005 + 0.015 * index / (planes * slots_per_plane - 1);
            e.i0 = 55.0 / 180.0 + sign * 0.004 * (index % 3);
            e.omega0 = wrap_semicircles(plane / 3.0 - 0.9);
            e.m0 = wrap_semicircles(slot * 0.4 + plane / 12.0);
            e.omega = wrap_semicircles(0.37 * index - 0.5);
            e.delta_n = 1.4e-9 + 1e-11 * index;
            e.omega_dot = -2.6e-9;
            e.idot = sign * 1e-11 * (index % 5);
            e.crs = sign * (20.0 + 3.0 * index);
            e.crc = 200.0 + 5.0 * index;
            e.cuc = sign * 1.5e-6;
            e.cus = -sign * 8e-6;
            e.cic = sign * 1e-7;
            e.cis = -sign * 6e-8;
            e.af0 = sign * (1e-5 + 2e-5 * index);
            e.af1 = -sign * 3e-12 * (1 + index % 4);
            e.af2 = 0.0;
            e.tgd = -sign * 4.7e-9 * (1 + index % 3);
            constellation.push_back(as_broadcast(e));
        }
    }
    return constellation;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
