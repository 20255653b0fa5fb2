/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_galileo_inav_encoder.h"
#include <cppunit/TestAssert.h>
#include <cmath>
#include <cstddef>

namespace gr {
namespace cudadsp {
namespace qa {

bits_t word(int type, std::initializer_list<field> fields)
{
    bits_t w;
    const auto put = [&](int width, long long v) {
        // Bits 64 and up of a 64-bit value are 0 (the 88 spare bits of word 0); shifting
        // by 64 or more is undefined.
        for (int i = width - 1; i >= 0; --i) {
            w.push_back(
                i < 64 ? static_cast<int>((static_cast<unsigned long long>(v) >> i) & 1u)
                       : 0);
        }
    };
    put(6, type);
    for (const field& f : fields) {
        put(f.width, f.count);
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t(128), w.size());
    return w;
}

// OS SIS ICD 4.3.5, Tables 40 to 46: word types 0 to 6 in transmission order.
bits_t word_of_type(int type, const word_values& v)
{
    switch (type) {
    case 0:
        return word(0, { { 2, 2 }, { 88, 0 }, { 12, v.wn }, { 20, v.tow0 } });
    case 1:
        return word(1,
                    { { 10, v.iodnav },
                      { 14, v.t0e },
                      { 32, v.m0 },
                      { 32, v.e },
                      { 32, v.sqrt_a },
                      { 2, 0 } });
    case 2:
        return word(2,
                    { { 10, v.iodnav },
                      { 32, v.omega0 },
                      { 32, v.i0 },
                      { 32, v.omega },
                      { 14, v.idot },
                      { 2, 0 } });
    case 3:
        return word(3,
                    { { 10, v.iodnav },
                      { 24, v.omega_dot },
                      { 16, v.delta_n },
                      { 16, v.cuc },
                      { 16, v.cus },
                      { 16, v.crc },
                      { 16, v.crs },
                      { 8, v.sisa } });
    case 4:
        return word(4,
                    { { 10, v.iodnav },
                      { 6, v.svid },
                      { 16, v.cic },
                      { 16, v.cis },
                      { 14, v.t0c },
                      { 31, v.af0 },
                      { 21, v.af1 },
                      { 6, v.af2 },
                      { 2, 0 } });
    case 5:
        return word(5,
                    { { 11, v.ai0 },
                      { 11, v.ai1 },
                      { 14, v.ai2 },
                      { 1, v.regions[0] },
                      { 1, v.regions[1] },
                      { 1, v.regions[2] },
                      { 1, v.regions[3] },
                      { 1, v.regions[4] },
                      { 10, v.bgd_a },
                      { 10, v.bgd_b },
                      { 2, v.e5b_hs },
                      { 2, v.e1b_hs },
                      { 1, v.e5b_dvs },
                      { 1, v.e1b_dvs },
                      { 12, v.wn },
                      { 20, v.tow5 },
                      { 23, 0 } });
    default:
        return word(6,
                    { { 32, v.a0 },
                      { 24, v.a1 },
                      { 8, v.dt_ls },
                      { 8, v.t0t },
                      { 8, v.wn0t },
                      { 8, v.wn_lsf },
                      { 3, v.dn },
                      { 8, v.dt_lsf },
                      { 20, v.tow6 },
                      { 3, 0 } });
    }
}

//! CRC-24Q as the remainder of M(x) x^24 divided by the generator (5.1.9.4).
std::uint32_t crc_by_division(const bits_t& message)
{
    const bits_t generator = { 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0,
                               1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1 }; // 0x1864CFB
    bits_t r = message;
    r.resize(message.size() + 24, 0);
    for (std::size_t i = 0; i < message.size(); ++i) {
        if (r[i]) {
            for (std::size_t j = 0; j < generator.size(); ++j) {
                r[i + j] ^= generator[j];
            }
        }
    }
    std::uint32_t crc = 0;
    for (std::size_t i = message.size(); i < r.size(); ++i) {
        crc = (crc << 1) | static_cast<std::uint32_t>(r[i]);
    }
    return crc;
}

//! 4.1.4: the encoder's register (input, D1..D6) and the generators' taps read from
//! their octal digits 171 and 133; G2's output inverted; G1's symbol first.
bits_t convolutional_encode(const bits_t& bits)
{
    const int g1[7] = { 1, 1, 1, 1, 0, 0, 1 };
    const int g2[7] = { 1, 0, 1, 1, 0, 1, 1 };
    int reg[7] = { 0, 0, 0, 0, 0, 0, 0 };
    bits_t out;
    for (int b : bits) {
        for (int i = 6; i > 0; --i) {
            reg[i] = reg[i - 1];
        }
        reg[0] = b;
        int c1 = 0, c2 = 0;
        for (int i = 0; i < 7; ++i) {
            c1 ^= g1[i] & reg[i];
            c2 ^= g2[i] & reg[i];
        }
        out.push_back(c1);
        out.push_back(c2 ^ 1);
    }
    return out;
}

//! 4.1.4.2: written into 30 columns of 8, read out by the 8 rows.
bits_t interleave(const bits_t& coded)
{
    int matrix[8][30];
    for (int c = 0; c < 30; ++c) {
        for (int r = 0; r < 8; ++r) {
            matrix[r][c] = coded[c * 8 + r];
        }
    }
    bits_t out;
    for (int r = 0; r < 8; ++r) {
        for (int c = 0; c < 30; ++c) {
            out.push_back(matrix[r][c]);
        }
    }
    return out;
}

//! One page part's 250 symbols, logic 1 as +1 (the decoder's convention).
std::vector<double> part_symbols(const bits_t& part)
{
    const int sync[10] = { 0, 1, 0, 1, 1, 0, 0, 0, 0, 0 };
    std::vector<double> s;
    for (int b : sync) {
        s.push_back(b ? 1.0 : -1.0);
    }
    for (int b : interleave(convolutional_encode(part))) {
        s.push_back(b ? 1.0 : -1.0);
    }
    return s;
}


//! A nominal page (4.3.2.1): even part (0, page type, data j, tail) and odd part (1,
//! page type, data k, OSNMA, SAR, spare, CRC, SSP, tail).
std::vector<double> page_symbols(const bits_t& w, damage d, int page_type)
{
    bits_t even = { 0, page_type };
    even.insert(even.end(), w.begin(), w.begin() + 112);
    bits_t odd = { 1, page_type };
    odd.insert(odd.end(), w.begin() + 112, w.end());
    for (int i = 0; i < 40 + 22 + 2; ++i) {
        odd.push_back((i * 7 + 3) % 5 == 0); // OSNMA, SAR, spare: some content
    }
    bits_t covered = even;
    covered.insert(covered.end(), odd.begin(), odd.end());
    CPPUNIT_ASSERT_EQUAL(std::size_t(196), covered.size());
    std::uint32_t crc = crc_by_division(covered);
    if (d == damage::crc_field) {
        crc ^= 0x000410; // two bits wrong past the FEC: the check must catch them
    }
    for (int i = 23; i >= 0; --i) {
        odd.push_back((crc >> i) & 1u);
    }
    for (int i = 0; i < 8; ++i) {
        odd.push_back(i & 1); // SSP
    }
    even.resize(120, 0); // tail
    odd.resize(120, 0);
    std::vector<double> s = part_symbols(even);
    const std::vector<double> o = part_symbols(odd);
    s.insert(s.end(), o.begin(), o.end());
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
