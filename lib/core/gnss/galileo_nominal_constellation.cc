/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/galileo_nominal_constellation.h"
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr int planes = 3;
constexpr int slots_per_plane = 8;
constexpr int satellites = planes * slots_per_plane;

// Semicircles in [-1, 1), the range of the I/NAV angle fields.
double wrap_semicircles(double sc)
{
    const double wrapped = std::fmod(sc + 1.0, 2.0);
    return (wrapped < 0.0 ? wrapped + 2.0 : wrapped) - 1.0;
}

// The values a receiver decodes from one sub-frame of `message` (words 1 to 6).
galileo_inav_message as_broadcast(const galileo_inav_message& message)
{
    galileo_inav_decoder decoder;
    // One sub-frame and the first page of the next: a part is taken once the next
    // part's pattern has confirmed the sync.
    for (std::uint8_t b : galileo_inav_encode(message, { 0, 0 }, 16)) {
        decoder.push(b ? 1.0 : -1.0);
    }
    if (!decoder.has_ephemeris() || !decoder.has_iono_health() ||
        !decoder.has_gst_utc()) {
        throw std::logic_error("galileo_nominal_constellation: SVID " +
                               std::to_string(message.ephemeris.svid) +
                               " did not survive the I/NAV round trip");
    }
    galileo_inav_message broadcast;
    broadcast.ephemeris = decoder.ephemeris();
    broadcast.iono_health = decoder.iono_health();
    broadcast.gst_utc = decoder.gst_utc();
    return broadcast;
}

} // namespace

std::vector<galileo_inav_message> galileo_nominal_constellation(double t0e_s, int iodnav)
{
    if (!(t0e_s >= 0.0 && t0e_s < 604800.0 && std::fmod(t0e_s, 60.0) == 0.0)) {
        throw std::invalid_argument("galileo_nominal_constellation: t0e_s must be a "
                                    "multiple of 60 in [0, 604800), got " +
                                    std::to_string(t0e_s));
    }
    if (iodnav < 0 || iodnav > 1023) {
        throw std::invalid_argument("galileo_nominal_constellation: iodnav must be in "
                                    "[0, 1023], got " +
                                    std::to_string(iodnav));
    }
    std::vector<galileo_inav_message> constellation;
    for (int plane = 0; plane < planes; ++plane) {
        for (int slot = 0; slot < slots_per_plane; ++slot) {
            const int index = plane * slots_per_plane + slot;
            // Alternating signs and index-dependent magnitudes, so that every
            // satellite's corrections differ and both signs of each field occur.
            const double sign = (index % 2 == 0) ? 1.0 : -1.0;
            galileo_inav_message m;
            galileo_ephemeris& e = m.ephemeris;
            e.svid = index + 1;
            e.iodnav = iodnav;
            e.t0e = t0e_s;
            e.t0c = t0e_s;
            e.sqrt_a = std::sqrt(29600e3);
            e.e = 0.0002 + 0.0008 * index / (satellites - 1);
            e.i0 = 56.0 / 180.0 + sign * 0.002 * (index % 3);
            e.omega0 = wrap_semicircles(2.0 * plane / 3.0 - 0.7);
            e.omega = wrap_semicircles(0.29 * index - 0.4);
            // The argument of latitude omega + M0 of the Walker pattern.
            e.m0 = wrap_semicircles(slot / 4.0 + plane / 12.0 - e.omega);
            e.delta_n = 1.0e-9 + 1e-11 * index;
            e.omega_dot = -1.8e-9;
            e.idot = sign * 1e-11 * (index % 5);
            e.crs = sign * (15.0 + 2.0 * index);
            e.crc = 150.0 + 4.0 * index;
            e.cuc = sign * 1.2e-6;
            e.cus = -sign * 6e-6;
            e.cic = sign * 8e-8;
            e.cis = -sign * 5e-8;
            e.af0 = sign * (2e-5 + 1.5e-5 * index);
            e.af1 = -sign * 2e-12 * (1 + index % 4);
            e.af2 = 0.0;
            e.sisa = 107;
            m.iono_health.ai0 = 60.0;
            m.iono_health.ai1 = 0.2;
            m.iono_health.ai2 = 0.003;
            m.iono_health.bgd_e1_e5a = sign * 1.1e-9 * (1 + index % 4);
            m.iono_health.bgd_e1_e5b = -sign * 1.3e-9 * (1 + index % 3);
            m.gst_utc.dt_ls = 18;
            m.gst_utc.dt_lsf = 18;
            m.gst_utc.dn = 7;
            constellation.push_back(as_broadcast(m));
        }
    }
    return constellation;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
