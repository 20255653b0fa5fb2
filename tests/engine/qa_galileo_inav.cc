/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The Galileo E1-B I/NAV decoder and the Galileo orbit against facts stated outside the
// code under test: an encoder written here from the OS SIS ICD Issue 2.0 (word layouts of
// 4.3.5 restated field by field, the CRC-24Q as polynomial division, the K = 7
// convolutional encoder as a shift register with the taps of 171 and 133 octal and G2
// inverted, the 30 x 8 block interleaver written by columns and read by rows, the sync
// pattern and the page parts of 4.3.2), the CRC-24Q check value of "123456789"
// (0xCDE703, the catalogued value of this polynomial with a zero start), and the orbit by
// a second formulation (Newton's method, the half-angle true anomaly, rotation matrices).

#include "gnss/galileo_ephemeris.h"
#include "gnss/galileo_inav.h"
#include <cppunit/extensions/HelperMacros.h>
#include <initializer_list>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using bits_t = std::vector<int>;

//! A field of a word as the ICD's tables list it: width and the transmitted integer
//! (two's complement when negative).
struct field {
    int width;
    long long count;
};

bits_t word(int type, std::initializer_list<field> fields)
{
    bits_t w;
    const auto put = [&](int width, long long v) {
        for (int i = width - 1; i >= 0; --i) {
            w.push_back(static_cast<int>((static_cast<unsigned long long>(v) >> i) & 1u));
        }
    };
    put(6, type);
    for (const field& f : fields) {
        put(f.width, f.count);
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t(128), w.size());
    return w;
}

// Known transmitted integers of every field; the expected values are count x LSB.
struct word_values {
    int iodnav = 679;
    long long t0e = 9000, m0 = -1234567890, e = 21474836, sqrt_a = 2852438835;
    long long omega0 = -987654321, i0 = 667236410, omega = 1357913579, idot = -4321;
    long long omega_dot = -4750, delta_n = 900, cuc = -2345, cus = 6789, crc = 5678,
              crs = -1234, sisa = 107;
    long long svid = 19, cic = -77, cis = 88, t0c = 9000, af0 = -123456789, af1 = -543210,
              af2 = -17;
    long long ai0 = 1234, ai1 = -456, ai2 = 5000, bgd_a = -200, bgd_b = 311;
    std::array<int, 5> regions{ { 1, 0, 1, 1, 0 } };
    long long e5b_hs = 2, e1b_hs = 1, e5b_dvs = 0, e1b_dvs = 1, wn = 1234, tow5 = 345678;
    long long a0 = -12345678, a1 = -54321, dt_ls = 18, t0t = 150, wn0t = 210,
              wn_lsf = 211, dn = 7, dt_lsf = 19, tow6 = 345690, tow0 = 345700;
};

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

enum class damage { none, crc_field };

//! A nominal page (4.3.2.1): even part (0, page type, data j, tail) and odd part (1,
//! page type, data k, OSNMA, SAR, spare, CRC, SSP, tail).
std::vector<double>
page_symbols(const bits_t& w, damage d = damage::none, int page_type = 0)
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

std::vector<double> stream_of(const std::vector<bits_t>& words, int lead_in)
{
    std::mt19937 rng(11);
    std::vector<double> s;
    for (int i = 0; i < lead_in; ++i) {
        s.push_back(rng() & 1u ? 1.0 : -1.0);
    }
    for (const auto& w : words) {
        const auto p = page_symbols(w);
        s.insert(s.end(), p.begin(), p.end());
    }
    return s;
}

int feed(galileo_inav_decoder& dec, const std::vector<double>& symbols)
{
    int pages = 0;
    for (double x : symbols) {
        pages += dec.push(x) ? 1 : 0;
    }
    return pages;
}

//! Per part, \p flips wrong and \p erasures zeroed coded symbols at random places, the
//! others scaled by [1 - spread, 1 + spread]: the sync symbols keep their signs.
void add_damage(std::vector<double>& s,
                std::size_t from,
                int flips,
                int erasures,
                double spread,
                unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> amplitude(1.0 - spread, 1.0 + spread);
    for (std::size_t part = from; part + 250 <= s.size(); part += 250) {
        for (std::size_t i = part; i < part + 250; ++i) {
            s[i] *= amplitude(rng);
        }
        std::vector<int> where(240);
        for (int i = 0; i < 240; ++i) {
            where[i] = i;
        }
        std::shuffle(where.begin(), where.end(), rng);
        for (int k = 0; k < flips + erasures; ++k) {
            double& x = s[part + 10 + where[k]];
            x = k < flips ? -x : 0.0;
        }
    }
}

void check_every_field(const galileo_inav_decoder& dec, const word_values& v)
{
    const auto p = [](int k) { return std::ldexp(1.0, k); };
    CPPUNIT_ASSERT(dec.has_ephemeris());
    const galileo_ephemeris& e = dec.ephemeris();
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
    const galileo_iono_health& h = dec.iono_health();
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
    const galileo_gst_utc& u = dec.gst_utc();
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

//! Word types 0 to 6, then word 0 last, so that the GST comes from word 0.
std::vector<bits_t> all_words(const word_values& v)
{
    std::vector<bits_t> words;
    for (int type : { 1, 2, 3, 4, 5, 6, 0 }) {
        words.push_back(word_of_type(type, v));
    }
    return words;
}

void check_all_words_decoded(const galileo_inav_decoder& dec, const word_values& v)
{
    check_every_field(dec, v);
    CPPUNIT_ASSERT(dec.has_gst());
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.wn), dec.gst().wn);
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.tow0), dec.gst().tow);
    CPPUNIT_ASSERT_EQUAL(0, dec.last_word_type());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(7), dec.counters().pages);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), dec.counters().crc_failures);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), dec.counters().sync_losses);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), dec.counters().ephemerides);
}

//! The orbit as the test's own formulation with Galileo's constants (OS SIS ICD 5.1.1,
//! 5.1.4): position = R3(-Omega) R1(-i) R3(-u) (r, 0, 0).
struct reference_state {
    double pos[3];
    double clock;
};

reference_state reference_orbit(const galileo_ephemeris& e, double t, double bgd)
{
    const double pi = 3.1415926535898, mu = 3.986004418e14, we = 7.2921151467e-5;
    const double a = e.sqrt_a * e.sqrt_a;
    double tk = t - e.t0e;
    tk += tk > 302400.0 ? -604800.0 : tk < -302400.0 ? 604800.0 : 0.0;
    const double n = std::sqrt(mu / (a * a * a)) + e.delta_n * pi;
    const double m = e.m0 * pi + n * tk;
    double ek = m;
    for (int i = 0; i < 20; ++i) {
        ek -= (ek - e.e * std::sin(ek) - m) / (1.0 - e.e * std::cos(ek));
    }
    const double nu =
        2.0 * std::atan(std::sqrt((1.0 + e.e) / (1.0 - e.e)) * std::tan(ek / 2.0));
    const double phi = nu + e.omega * pi;
    const double u = phi + e.cuc * std::cos(2 * phi) + e.cus * std::sin(2 * phi);
    const double r = a * (1.0 - e.e * std::cos(ek)) + e.crc * std::cos(2 * phi) +
                     e.crs * std::sin(2 * phi);
    const double inc = e.i0 * pi + e.idot * pi * tk + e.cic * std::cos(2 * phi) +
                       e.cis * std::sin(2 * phi);
    const double node = e.omega0 * pi + (e.omega_dot * pi - we) * tk - we * e.t0e;
    using mat = std::array<std::array<double, 3>, 3>;
    const auto r3 = [](double x) {
        return mat{ { { std::cos(x), std::sin(x), 0 },
                      { -std::sin(x), std::cos(x), 0 },
                      { 0, 0, 1 } } };
    };
    const auto r1 = [](double x) {
        return mat{ { { 1, 0, 0 },
                      { 0, std::cos(x), std::sin(x) },
                      { 0, -std::sin(x), std::cos(x) } } };
    };
    const auto apply = [](const mat& mm, const std::array<double, 3>& v) {
        std::array<double, 3> o{};
        for (int i = 0; i < 3; ++i) {
            o[i] = mm[i][0] * v[0] + mm[i][1] * v[1] + mm[i][2] * v[2];
        }
        return o;
    };
    const auto p = apply(r3(-node), apply(r1(-inc), apply(r3(-u), { r, 0.0, 0.0 })));
    double tc = t - e.t0c;
    tc += tc > 302400.0 ? -604800.0 : tc < -302400.0 ? 604800.0 : 0.0;
    const double rel = -4.442807309e-10 * e.e * e.sqrt_a * std::sin(ek);
    return { { p[0], p[1], p[2] }, e.af0 + e.af1 * tc + e.af2 * tc * tc + rel - bgd };
}

} // namespace

class qa_galileo_inav : public CppUnit::TestCase
{
    CPPUNIT_TEST_SUITE(qa_galileo_inav);
    CPPUNIT_TEST(crc24q_matches_check_value);
    CPPUNIT_TEST(every_word_type_round_trips);
    CPPUNIT_TEST(errors_and_erasures_within_the_code_are_corrected);
    CPPUNIT_TEST(inverted_polarity_decodes);
    CPPUNIT_TEST(crc_failures_are_counted_and_not_used);
    CPPUNIT_TEST(mixed_iodnav_does_not_complete_an_ephemeris);
    CPPUNIT_TEST(alert_pages_are_not_decoded);
    CPPUNIT_TEST(lost_sync_is_found_again);
    CPPUNIT_TEST(orbit_and_clock_match_reference_formulation);
    CPPUNIT_TEST(bad_orbit_names_parameter);
    CPPUNIT_TEST_SUITE_END();

public:
    void crc24q_matches_check_value()
    {
        const char* text = "123456789";
        std::vector<std::uint8_t> bits;
        for (std::size_t i = 0; i < std::strlen(text); ++i) {
            for (int b = 7; b >= 0; --b) {
                bits.push_back((static_cast<unsigned>(text[i]) >> b) & 1u);
            }
        }
        CPPUNIT_ASSERT_EQUAL(std::uint32_t(0xCDE703),
                             galileo_crc24q(bits.data(), bits.size()));
    }

    void every_word_type_round_trips()
    {
        const word_values v;
        galileo_inav_decoder dec;
        // Poisoned start: 137 random symbols before the first page part.
        CPPUNIT_ASSERT_EQUAL(7, feed(dec, stream_of(all_words(v), 137)));
        check_all_words_decoded(dec, v);
        CPPUNIT_ASSERT_EQUAL(1, dec.polarity());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), dec.counters().unpaired_parts);
    }

    void errors_and_erasures_within_the_code_are_corrected()
    {
        // The code's free distance is 10: with every other path at least 10 coded
        // symbols away, 2 wrong and 3 erased symbols a part with amplitudes in
        // [0.7, 1.3] (2 x 1.3 against 5 x 0.7), or 4 wrong at full amplitude, never
        // let a wrong path win.
        const word_values v;
        const std::size_t lead_in = 61;
        for (unsigned seed = 1; seed <= 3; ++seed) {
            auto s = stream_of(all_words(v), static_cast<int>(lead_in));
            add_damage(s, lead_in, 2, 3, 0.3, seed);
            galileo_inav_decoder dec;
            feed(dec, s);
            check_all_words_decoded(dec, v);
        }
        auto s = stream_of(all_words(v), static_cast<int>(lead_in));
        add_damage(s, lead_in, 4, 0, 0.0, 9);
        galileo_inav_decoder dec;
        feed(dec, s);
        check_all_words_decoded(dec, v);
    }

    void inverted_polarity_decodes()
    {
        const word_values v;
        auto s = stream_of(all_words(v), 250 + 33);
        for (double& x : s) {
            x = -x;
        }
        galileo_inav_decoder dec;
        feed(dec, s);
        check_all_words_decoded(dec, v);
        CPPUNIT_ASSERT_EQUAL(-1, dec.polarity());
    }

    void crc_failures_are_counted_and_not_used()
    {
        word_values v;
        galileo_inav_decoder dec;
        std::vector<double> s = stream_of({ word_of_type(1, v), word_of_type(2, v) }, 17);
        const auto add = [&](const std::vector<double>& p) {
            s.insert(s.end(), p.begin(), p.end());
        };
        add(page_symbols(word_of_type(3, v)));
        // Word 4 with wrong CRC bits: it would complete the ephemeris if it were used.
        add(page_symbols(word_of_type(4, v), damage::crc_field));
        CPPUNIT_ASSERT_EQUAL(3, feed(dec, s));
        CPPUNIT_ASSERT(!dec.has_ephemeris());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), dec.counters().crc_failures);
        CPPUNIT_ASSERT_EQUAL(3, dec.last_word_type());

        // Far beyond the code's power: every third coded symbol of the even part wrong.
        auto wrecked = page_symbols(word_of_type(4, v));
        for (int i = 10; i < 250; i += 3) {
            wrecked[i] = -wrecked[i];
        }
        CPPUNIT_ASSERT_EQUAL(0, feed(dec, wrecked));
        CPPUNIT_ASSERT(!dec.has_ephemeris());
        CPPUNIT_ASSERT(dec.counters().crc_failures + dec.counters().unpaired_parts >= 2);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(3), dec.counters().pages);

        CPPUNIT_ASSERT_EQUAL(1, feed(dec, page_symbols(word_of_type(4, v))));
        CPPUNIT_ASSERT(dec.has_ephemeris());
        CPPUNIT_ASSERT_EQUAL(static_cast<int>(v.svid), dec.ephemeris().svid);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), dec.counters().sync_losses);
    }

    void mixed_iodnav_does_not_complete_an_ephemeris()
    {
        word_values v;
        word_values next = v;
        next.iodnav = 680;
        next.t0e = 9010;
        galileo_inav_decoder dec;
        std::vector<bits_t> words = { word_of_type(1, v),
                                      word_of_type(2, v),
                                      word_of_type(3, v),
                                      word_of_type(4, next) };
        feed(dec, stream_of(words, 5));
        CPPUNIT_ASSERT(!dec.has_ephemeris());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), dec.counters().iodnav_mismatches);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(4), dec.counters().pages);
        // The newest batch's word 4 is kept: words 1 to 3 of IODnav 680 complete it.
        for (int type : { 1, 2, 3 }) {
            feed(dec, page_symbols(word_of_type(type, next)));
        }
        CPPUNIT_ASSERT(dec.has_ephemeris());
        CPPUNIT_ASSERT_EQUAL(680, dec.ephemeris().iodnav);
        CPPUNIT_ASSERT_EQUAL(9010 * 60.0, dec.ephemeris().t0e);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), dec.counters().ephemerides);
    }

    void alert_pages_are_not_decoded()
    {
        const word_values v;
        galileo_inav_decoder dec;
        auto s = stream_of({ word_of_type(5, v) }, 0);
        const auto alert = page_symbols(word_of_type(6, v), damage::none, 1);
        s.insert(s.end(), alert.begin(), alert.end());
        CPPUNIT_ASSERT_EQUAL(1, feed(dec, s));
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), dec.counters().alert_pages);
        CPPUNIT_ASSERT(!dec.has_gst_utc());
    }

    void lost_sync_is_found_again()
    {
        const word_values v;
        galileo_inav_decoder dec;
        auto s = stream_of({ word_of_type(6, v) }, 40);
        // 97 symbols dropped (a tracking slip): the next part is not where it belongs.
        const std::vector<double> slip(97, 1.0);
        s.insert(s.end(), slip.begin(), slip.end());
        const auto rest = stream_of(all_words(v), 0);
        s.insert(s.end(), rest.begin(), rest.end());
        feed(dec, s);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), dec.counters().sync_losses);
        check_every_field(dec, v);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(8), dec.counters().pages);
    }

    void orbit_and_clock_match_reference_formulation()
    {
        const word_values v;
        galileo_inav_decoder dec;
        feed(dec, stream_of(all_words(v), 3));
        const galileo_ephemeris& e = dec.ephemeris();
        const double bgd = dec.iono_health().bgd_e1_e5b;
        for (double dt : { -14400.0, -3600.0, 0.0, 1234.5, 10000.0, 14400.0 }) {
            const double t = e.t0e + dt;
            const auto s = galileo_satellite_at(e, t, bgd);
            const auto ref = reference_orbit(e, t, bgd);
            for (int i = 0; i < 3; ++i) {
                CPPUNIT_ASSERT_DOUBLES_EQUAL(ref.pos[i], s.position[i], 1e-3);
            }
            CPPUNIT_ASSERT_DOUBLES_EQUAL(ref.clock, s.clock_bias, 1e-15);
            const double radius =
                std::sqrt(s.position[0] * s.position[0] + s.position[1] * s.position[1] +
                          s.position[2] * s.position[2]);
            CPPUNIT_ASSERT(radius > 2.9e7 && radius < 3.0e7); // a Galileo orbit
        }
    }

    void bad_orbit_names_parameter()
    {
        galileo_ephemeris e;
        e.sqrt_a = 5440.6;
        e.e = 1.0;
        try {
            galileo_satellite_at(e, 0.0, 0.0);
            CPPUNIT_FAIL("e = 1 accepted");
        } catch (const std::invalid_argument& x) {
            CPPUNIT_ASSERT(std::string(x.what()).find("galileo_satellite_at") !=
                           std::string::npos);
            CPPUNIT_ASSERT(std::string(x.what()).find("eccentricity") !=
                           std::string::npos);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_galileo_inav);

} // namespace core
} // namespace cudadsp
} // namespace gr
