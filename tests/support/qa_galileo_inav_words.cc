/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/galileo_inav_encoder.h"
#include "qa_galileo_inav_words.h"
#include <cppunit/TestAssert.h>
#include <cmath>
#include <cstddef>

namespace gr {
namespace cudadsp {
namespace qa {

namespace {

//! The message whose fields are the counts \p v times their LSBs (4.3.5, Tables 40
//! to 45).
core::galileo_inav_message message_of(const word_values& v)
{
    const auto p = [](int k) { return std::ldexp(1.0, k); };
    core::galileo_inav_message m;
    core::galileo_ephemeris& e = m.ephemeris;
    e.iodnav = v.iodnav;
    e.t0e = v.t0e * 60.0;
    e.m0 = v.m0 * p(-31);
    e.e = v.e * p(-33);
    e.sqrt_a = v.sqrt_a * p(-19);
    e.omega0 = v.omega0 * p(-31);
    e.i0 = v.i0 * p(-31);
    e.omega = v.omega * p(-31);
    e.idot = v.idot * p(-43);
    e.omega_dot = v.omega_dot * p(-43);
    e.delta_n = v.delta_n * p(-43);
    e.cuc = v.cuc * p(-29);
    e.cus = v.cus * p(-29);
    e.crc = v.crc * p(-5);
    e.crs = v.crs * p(-5);
    e.sisa = static_cast<int>(v.sisa);
    e.svid = static_cast<int>(v.svid);
    e.cic = v.cic * p(-29);
    e.cis = v.cis * p(-29);
    e.t0c = v.t0c * 60.0;
    e.af0 = v.af0 * p(-34);
    e.af1 = v.af1 * p(-46);
    e.af2 = v.af2 * p(-59);
    core::galileo_iono_health& h = m.iono_health;
    h.ai0 = v.ai0 * p(-2);
    h.ai1 = v.ai1 * p(-8);
    h.ai2 = v.ai2 * p(-15);
    h.region_flags = v.regions;
    h.bgd_e1_e5a = v.bgd_a * p(-32);
    h.bgd_e1_e5b = v.bgd_b * p(-32);
    h.e5b_hs = static_cast<int>(v.e5b_hs);
    h.e1b_hs = static_cast<int>(v.e1b_hs);
    h.e5b_dvs = static_cast<int>(v.e5b_dvs);
    h.e1b_dvs = static_cast<int>(v.e1b_dvs);
    core::galileo_gst_utc& u = m.gst_utc;
    u.a0 = v.a0 * p(-30);
    u.a1 = v.a1 * p(-50);
    u.dt_ls = static_cast<int>(v.dt_ls);
    u.t0t = v.t0t * 3600.0;
    u.wn0t = static_cast<int>(v.wn0t);
    u.wn_lsf = static_cast<int>(v.wn_lsf);
    u.dn = static_cast<int>(v.dn);
    u.dt_lsf = static_cast<int>(v.dt_lsf);
    return m;
}

} // namespace

bits_t word_of_type(int type, const word_values& v)
{
    const long long tow = type == 0 ? v.tow0 : type == 5 ? v.tow5 : v.tow6;
    const core::galileo_gst gst{ static_cast<int>(v.wn), static_cast<int>(tow) };
    const core::galileo_inav_word w =
        core::galileo_inav_encode_word(type, message_of(v), gst);
    return bits_t(w.begin(), w.end());
}

std::vector<double> page_symbols(const bits_t& w, damage d, int page_type)
{
    core::galileo_inav_word word{};
    CPPUNIT_ASSERT_EQUAL(word.size(), w.size());
    for (std::size_t i = 0; i < w.size(); ++i) {
        word[i] = static_cast<std::uint8_t>(w[i]);
    }
    // Two bits wrong past the FEC: the check must catch them.
    const std::uint32_t crc_error = d == damage::crc_field ? 0x000410 : 0;
    std::vector<double> s;
    for (std::uint8_t b : core::galileo_inav_page_symbols(word, page_type, crc_error)) {
        s.push_back(b ? 1.0 : -1.0);
    }
    return s;
}

void check_every_field(const core::galileo_inav_decoder& dec, const word_values& v)
{
    const auto p = [](int k) { return std::ldexp(1.0, k); };
    CPPUNIT_ASSERT(dec.has_ephemeris());
    const core::galileo_ephemeris& e = dec.ephemeris();
    CPPUNIT_ASSERT_EQUAL(v.iodnav, e.iodnav);
    CPPUNIT_ASSERT_EQUAL(v.t0e * 60.0, e.t0e);
    CPPUNIT_ASSERT_EQUAL(v.m0 * p(-31), e.m0);
    CPPUNIT_ASSERT_EQUAL(v.e * p(-33), e.e);
    CPPUNIT_ASSERT_EQUAL(v.sqrt_a * p(-19), e.sqrt_a);
    CPPUNIT_ASSERT_EQUAL(v.omega0 * p(-31), e.omega0);
    CPPUNIT_ASSERT_EQUAL(v.i0 * p(-31), e.i0);
    CPPUNIT_ASSERT_EQUAL(v.omega * p(-31), e.omega);
    CPPUNIT_ASSERT_EQUAL(v.idot * p(-43), e.idot);
    CPPUNIT_ASSERT_EQUAL(v.omega_dot * p(-43), e.omega_dot);
    CPPUNIT_ASSERT_EQUAL(v.delta_n * p(-43), e.delta_n);
    CPPUNIT_ASSERT_EQUAL(v.cuc * p(-29), e.cuc);
    CPPUNIT_ASSERT_EQUAL(v.cus * p(-29), e.cus);
    CPPUNIT_ASSERT_EQUAL(v.crc * p(-5), e.crc);
    CPPUNIT_ASSERT_EQUAL(v.crs * p(-5), e.crs);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.sisa), e.sisa);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.svid), e.svid);
    CPPUNIT_ASSERT_EQUAL(v.cic * p(-29), e.cic);
    CPPUNIT_ASSERT_EQUAL(v.cis * p(-29), e.cis);
    CPPUNIT_ASSERT_EQUAL(v.t0c * 60.0, e.t0c);
    CPPUNIT_ASSERT_EQUAL(v.af0 * p(-34), e.af0);
    CPPUNIT_ASSERT_EQUAL(v.af1 * p(-46), e.af1);
    CPPUNIT_ASSERT_EQUAL(v.af2 * p(-59), e.af2);

    CPPUNIT_ASSERT(dec.has_iono_health());
    const core::galileo_iono_health& h = dec.iono_health();
    CPPUNIT_ASSERT_EQUAL(v.ai0 * p(-2), h.ai0);
    CPPUNIT_ASSERT_EQUAL(v.ai1 * p(-8), h.ai1);
    CPPUNIT_ASSERT_EQUAL(v.ai2 * p(-15), h.ai2);
    for (int k = 0; k < 5; ++k) {
        CPPUNIT_ASSERT_EQUAL(v.regions[k], h.region_flags[k]);
    }
    CPPUNIT_ASSERT_EQUAL(v.bgd_a * p(-32), h.bgd_e1_e5a);
    CPPUNIT_ASSERT_EQUAL(v.bgd_b * p(-32), h.bgd_e1_e5b);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.e5b_hs), h.e5b_hs);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.e1b_hs), h.e1b_hs);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.e5b_dvs), h.e5b_dvs);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.e1b_dvs), h.e1b_dvs);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.wn), h.wn);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.tow5), h.tow);

    CPPUNIT_ASSERT(dec.has_gst_utc());
    const core::galileo_gst_utc& u = dec.gst_utc();
    CPPUNIT_ASSERT_EQUAL(v.a0 * p(-30), u.a0);
    CPPUNIT_ASSERT_EQUAL(v.a1 * p(-50), u.a1);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.dt_ls), u.dt_ls);
    CPPUNIT_ASSERT_EQUAL(v.t0t * 3600.0, u.t0t);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.wn0t), u.wn0t);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.wn_lsf), u.wn_lsf);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.dn), u.dn);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.dt_lsf), u.dt_lsf);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.tow6), u.tow);
}

} // namespace qa
} // namespace cudadsp
} // namespace gr
