/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The Galileo E1-B I/NAV decoder and the Galileo orbit against facts stated outside the
// code under test: the library's encoder, written from the OS SIS ICD Issue 2.0 apart
// from the decoder (gnss/galileo_inav_encoder.h; the words' values in
// tests/support/qa_galileo_inav_words.h), the CRC-24Q check value of "123456789"
// (0xCDE703, the catalogued value of this polynomial with a zero start), and the orbit by
// a second formulation (Newton's method, the half-angle true anomaly, rotation matrices).

#include "gnss/galileo_ephemeris.h"
#include "gnss/galileo_inav.h"
#include "qa_galileo_inav_words.h"
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

using qa::bits_t;
using qa::check_every_field;
using qa::damage;
using qa::page_symbols;
using qa::word_of_type;
using qa::word_values;

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
