/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// GNSS code generators and the Galileo E1 code file, against facts published outside
// the code under test: the first ten chips of every GPS C/A code in octal and the G2
// delay of every PRN (IS-GPS-200 Table 3-Ia; the test builds each code a second way,
// G1 xor G2 delayed, with its own shift registers), Gold-code correlation values, the
// GLONASS ICD's opening group 111111100 and m-sequence autocorrelation, the opening hex
// digits of Galileo E1-B PRN 1 from the OS SIS ICD, and the real recordings in
// $CUDADSP_DATA_DIR/gnss, whose satellites' delays and Dopplers their producers state.

#include "qa_support.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

const double pi = 3.14159265358979323846;

// IS-GPS-200 Table 3-Ia: first 10 chips in octal (logic 1 = chip -1) and G2 delay.
const char* const gps_first_chips_octal[32] = {
    "1440", "1620", "1710", "1744", "1133", "1455", "1131", "1454",
    "1626", "1504", "1642", "1750", "1764", "1772", "1775", "1776",
    "1156", "1467", "1633", "1715", "1746", "1763", "1063", "1706",
    "1743", "1761", "1770", "1774", "1127", "1453", "1625", "1712"
};
const int gps_g2_delay_chips[32] = { 5,   6,   7,   8,   17,  18,  139, 140,
                                     141, 251, 252, 254, 255, 256, 257, 258,
                                     469, 470, 471, 472, 473, 474, 509, 512,
                                     513, 514, 515, 516, 859, 860, 861, 862 };

//! Maximal-length sequence of a Fibonacci register with the given 1-based feedback
//! stages, all ones at first, output taken at stage \p out; one logic bit per clock.
std::vector<int> lfsr_bits(int stages, const std::vector<int>& feedback, int out, int n)
{
    std::vector<int> reg(stages, 1); // reg[0] is stage 1
    std::vector<int> bits(n);
    for (int i = 0; i < n; ++i) {
        bits[i] = reg[out - 1];
        int f = 0;
        for (int s : feedback)
            f ^= reg[s - 1];
        for (int s = stages - 1; s > 0; --s)
            reg[s] = reg[s - 1];
        reg[0] = f;
    }
    return bits;
}

long periodic_correlation(const std::vector<std::int8_t>& a,
                          const std::vector<std::int8_t>& b,
                          std::size_t lag)
{
    long sum = 0;
    const std::size_t n = a.size();
    for (std::size_t i = 0; i < n; ++i)
        sum += a[i] * b[(i + lag) % n];
    return sum;
}

std::string write_temp(const std::string& name, const std::string& text)
{
    const std::string path = "/tmp/qa_gnss_codes_" + name + ".txt";
    std::ofstream(path) << text;
    return path;
}

/*!
 * Correlation magnitude of a recording with a code replica whose period starts at
 * sample \p delay (the stated convention of the recordings' producers), carrier wiped
 * at \p doppler_hz: coherent over each block of one code period, the magnitudes summed
 * (a data bit or secondary-code chip may change between periods).
 */
double replica_correlation(const std::vector<std::complex<float>>& x,
                           const std::vector<std::int8_t>& table,
                           double entries_per_second,
                           double sample_rate,
                           double delay,
                           double doppler_hz)
{
    std::complex<double> sum = 0.0;
    double total = 0.0;
    const double entries = static_cast<double>(table.size());
    const auto period_samples = static_cast<std::size_t>(
        std::llround(entries * sample_rate / entries_per_second));
    for (std::size_t n = 0; n < x.size(); ++n) {
        if (n % period_samples == 0) {
            total += std::abs(sum);
            sum = 0.0;
        }
        double phase =
            std::fmod((double(n) - delay) * entries_per_second / sample_rate, entries);
        if (phase < 0)
            phase += entries;
        const double c = table[static_cast<std::size_t>(phase) % table.size()];
        const double angle = -2.0 * pi * doppler_hz * double(n) / sample_rate;
        sum += std::complex<double>(x[n]) * c *
               std::complex<double>(std::cos(angle), std::sin(angle));
    }
    return total + std::abs(sum);
}

struct search_result {
    double best = 0.0;
    double best_delay = 0.0;
    double best_doppler = 0.0;
};

//! Best |correlation| over a small grid around stated delay and |Doppler|.
search_result search(const std::vector<std::complex<float>>& x,
                     const std::vector<std::int8_t>& table,
                     double entries_per_second,
                     double delay,
                     double doppler_magnitude)
{
    search_result r;
    for (double sign : { -1.0, 1.0 })
        for (double dd = -2; dd <= 2; dd += 1)
            for (double df = -100; df <= 100; df += 50) {
                const double v = replica_correlation(x,
                                                     table,
                                                     entries_per_second,
                                                     4e6,
                                                     delay + dd,
                                                     sign * doppler_magnitude + df);
                if (v > r.best)
                    r = { v, delay + dd, sign * doppler_magnitude + df };
            }
    return r;
}

} // namespace

class qa_gnss_codes : public CppUnit::TestCase
{
    CPPUNIT_TEST_SUITE(qa_gnss_codes);
    CPPUNIT_TEST(gps_first_ten_chips_match_icd_octal);
    CPPUNIT_TEST(gps_codes_equal_g1_xor_delayed_g2);
    CPPUNIT_TEST(gps_gold_code_correlation_values);
    CPPUNIT_TEST(gps_bad_prn_names_parameter);
    CPPUNIT_TEST(glonass_code_matches_icd);
    CPPUNIT_TEST(galileo_file_decodes_icd_prefix);
    CPPUNIT_TEST(galileo_codes_are_distinct_and_low_correlation);
    CPPUNIT_TEST(galileo_loader_rejects_malformed_files);
    CPPUNIT_TEST(galileo_file_lookup_and_override);
    CPPUNIT_TEST(boc11_expansion_convention);
    CPPUNIT_TEST(real_gps_recording_has_prn1_at_stated_delay);
    CPPUNIT_TEST(real_galileo_recording_has_prn1_at_stated_delay);
    CPPUNIT_TEST_SUITE_END();

public:
    void gps_first_ten_chips_match_icd_octal()
    {
        for (int prn = 1; prn <= 32; ++prn) {
            const std::vector<std::int8_t> code = gps_l1ca_code(prn);
            CPPUNIT_ASSERT_EQUAL(std::size_t(1023), code.size());
            unsigned value = 0;
            for (int i = 0; i < 10; ++i)
                value = (value << 1) | (code[i] < 0 ? 1u : 0u);
            char octal[8];
            std::snprintf(octal, sizeof octal, "%o", value);
            CPPUNIT_ASSERT_EQUAL_MESSAGE("PRN " + std::to_string(prn),
                                         std::string(gps_first_chips_octal[prn - 1]),
                                         std::string(octal));
        }
    }

    void gps_codes_equal_g1_xor_delayed_g2()
    {
        const std::vector<int> g1 = lfsr_bits(10, { 3, 10 }, 10, 1023);
        const std::vector<int> g2 = lfsr_bits(10, { 2, 3, 6, 8, 9, 10 }, 10, 1023);
        for (int prn = 1; prn <= 32; ++prn) {
            const std::vector<std::int8_t> code = gps_l1ca_code(prn);
            const int delay = gps_g2_delay_chips[prn - 1];
            for (int i = 0; i < 1023; ++i) {
                const int bit = g1[i] ^ g2[(i - delay + 1023) % 1023];
                if (code[i] != (bit ? -1 : 1))
                    CPPUNIT_FAIL("PRN " + std::to_string(prn) + " chip " +
                                 std::to_string(i));
            }
        }
    }

    void gps_gold_code_correlation_values()
    {
        // Gold codes of degree 10: periodic auto- (off peak) and cross-correlations take
        // only the values -65, -1 and 63.
        std::vector<std::vector<std::int8_t>> codes;
        for (int prn = 1; prn <= 32; ++prn)
            codes.push_back(gps_l1ca_code(prn));
        auto allowed = [](long v) { return v == -65 || v == -1 || v == 63; };
        for (int p = 0; p < 32; ++p) {
            CPPUNIT_ASSERT_EQUAL(1023L, periodic_correlation(codes[p], codes[p], 0));
            long ones = 0;
            for (auto c : codes[p])
                ones += c < 0;
            CPPUNIT_ASSERT(ones == 512 || ones == 480 || ones == 544);
            for (std::size_t lag = 1; lag < 1023; ++lag)
                CPPUNIT_ASSERT(allowed(periodic_correlation(codes[p], codes[p], lag)));
        }
        for (int p = 0; p < 32; p += 5)
            for (int q = p + 1; q < 32; q += 3)
                for (std::size_t lag = 0; lag < 1023; ++lag)
                    CPPUNIT_ASSERT(
                        allowed(periodic_correlation(codes[p], codes[q], lag)));
    }

    void gps_bad_prn_names_parameter()
    {
        for (int prn : { 0, 33, -1 }) {
            try {
                gps_l1ca_code(prn);
                CPPUNIT_FAIL("no exception for prn " + std::to_string(prn));
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT(std::string(e.what()).find("prn") != std::string::npos);
            }
        }
    }

    void glonass_code_matches_icd()
    {
        const std::vector<std::int8_t> code = glonass_l1of_code();
        CPPUNIT_ASSERT_EQUAL(std::size_t(511), code.size());
        const int group[9] = { 1, 1, 1, 1, 1, 1, 1, 0, 0 };
        for (int i = 0; i < 9; ++i)
            CPPUNIT_ASSERT_EQUAL(group[i] ? -1 : 1, int(code[i]));
        const std::vector<int> bits = lfsr_bits(9, { 5, 9 }, 7, 511);
        long ones = 0;
        for (int i = 0; i < 511; ++i) {
            CPPUNIT_ASSERT_EQUAL(bits[i] ? -1 : 1, int(code[i]));
            ones += bits[i];
        }
        CPPUNIT_ASSERT_EQUAL(256L, ones); // an m-sequence of degree 9
        CPPUNIT_ASSERT_EQUAL(511L, periodic_correlation(code, code, 0));
        for (std::size_t lag = 1; lag < 511; ++lag)
            CPPUNIT_ASSERT_EQUAL(-1L, periodic_correlation(code, code, lag));
    }

    void galileo_file_decodes_icd_prefix()
    {
        // OS SIS ICD Annex C, E1-B PRN 1: F5D710130573541B9DBD4FD9E9B20A0D...
        const std::string prefix = "F5D710130573541B9DBD4FD9E9B20A0D";
        const std::vector<std::int8_t> code = galileo_e1_code(1, galileo_e1_component::b);
        CPPUNIT_ASSERT_EQUAL(std::size_t(4092), code.size());
        for (std::size_t d = 0; d < prefix.size(); ++d) {
            const int v = std::stoi(prefix.substr(d, 1), nullptr, 16);
            for (int b = 0; b < 4; ++b)
                CPPUNIT_ASSERT_EQUAL(((v >> (3 - b)) & 1) ? -1 : 1, int(code[4 * d + b]));
        }
        for (auto component : { galileo_e1_component::b, galileo_e1_component::c }) {
            const auto all = load_galileo_e1_codes(galileo_e1_codes_file(), component);
            CPPUNIT_ASSERT_EQUAL(std::size_t(50), all.size());
            for (const auto& c : all) {
                CPPUNIT_ASSERT_EQUAL(std::size_t(4092), c.size());
                for (auto chip : c)
                    CPPUNIT_ASSERT(chip == 1 || chip == -1);
            }
        }
    }

    void galileo_codes_are_distinct_and_low_correlation()
    {
        // Memory codes optimised for low correlation: every zero-lag cross-correlation
        // and every off-peak autocorrelation of these is far below the 4092 peak.
        std::vector<std::vector<std::int8_t>> codes;
        for (auto component : { galileo_e1_component::b, galileo_e1_component::c })
            for (int prn = 1; prn <= 50; ++prn)
                codes.push_back(galileo_e1_code(prn, component));
        long worst_cross = 0;
        for (std::size_t p = 0; p < codes.size(); ++p)
            for (std::size_t q = p + 1; q < codes.size(); ++q)
                worst_cross = std::max(
                    worst_cross, std::abs(periodic_correlation(codes[p], codes[q], 0)));
        std::cout << "qa_gnss_codes: Galileo E1 worst zero-lag cross-correlation "
                  << worst_cross << " of 4092" << std::endl;
        CPPUNIT_ASSERT(worst_cross < 400);
        for (std::size_t p : { std::size_t(0), std::size_t(49), std::size_t(50) }) {
            long worst_auto = 0;
            for (std::size_t lag = 1; lag < 4092; lag += 7)
                worst_auto = std::max(
                    worst_auto, std::abs(periodic_correlation(codes[p], codes[p], lag)));
            CPPUNIT_ASSERT(worst_auto < 400);
        }
    }

    void galileo_loader_rejects_malformed_files()
    {
        const std::string good(1023, 'A');
        auto expect_error = [](const std::string& path, const std::string& needle) {
            try {
                load_galileo_e1_codes(path, galileo_e1_component::b);
                CPPUNIT_FAIL("no exception for " + path);
            } catch (const std::runtime_error& e) {
                const std::string what = e.what();
                if (what.find(needle) == std::string::npos)
                    CPPUNIT_FAIL("message lacks \"" + needle + "\": " + what);
            }
        };
        expect_error(write_temp("short", "# c\nE1B 1 ABC\n"), "line 2");
        expect_error(write_temp("component", "E1X 1 " + good + "\n"), "E1B or E1C");
        expect_error(write_temp("prn", "E1B 51 " + good + "\n"), "PRN must be 1 to 50");
        expect_error(write_temp("digit", "E1B 1 " + good.substr(1) + "G\n"),
                     "not a hex digit");
        expect_error(write_temp("twice", "E1B 3 " + good + "\nE1B 3 " + good + "\n"),
                     "appears twice");
        expect_error("/nonexistent/galileo.txt", "cannot be opened");

        // A valid small file: lower-case digits, comments, tabs; absent PRNs empty.
        const std::string path = write_temp(
            "valid", "# test\n\nE1C\t7\t" + std::string(1022, 'f') + "0  # trailing\n");
        const auto c = load_galileo_e1_codes(path, galileo_e1_component::c);
        CPPUNIT_ASSERT(c[0].empty());
        CPPUNIT_ASSERT_EQUAL(std::size_t(4092), c[6].size());
        CPPUNIT_ASSERT_EQUAL(-1, int(c[6][0]));
        CPPUNIT_ASSERT_EQUAL(1, int(c[6][4091]));
        CPPUNIT_ASSERT(load_galileo_e1_codes(path, galileo_e1_component::b)[6].empty());
        CPPUNIT_ASSERT_THROW(galileo_e1_code(1, galileo_e1_component::c, path),
                             std::runtime_error);
        CPPUNIT_ASSERT_THROW(galileo_e1_code(51, galileo_e1_component::b),
                             std::invalid_argument);
    }

    void galileo_file_lookup_and_override()
    {
        const std::string found = galileo_e1_codes_file();
        CPPUNIT_ASSERT(found.find("galileo_e1_primary_codes.txt") != std::string::npos);
        const std::string dir = "/tmp/qa_gnss_codes_override";
        std::system(("mkdir -p " + dir).c_str());
        std::ofstream(dir + "/galileo_e1_primary_codes.txt")
            << "E1B 2 " << std::string(1023, '0') << "\n";
        setenv("CUDADSP_GNSS_CODES_DIR", dir.c_str(), 1);
        CPPUNIT_ASSERT_EQUAL(dir + "/galileo_e1_primary_codes.txt",
                             galileo_e1_codes_file());
        const auto code = galileo_e1_code(2, galileo_e1_component::b);
        unsetenv("CUDADSP_GNSS_CODES_DIR");
        CPPUNIT_ASSERT_EQUAL(std::size_t(4092),
                             std::size_t(std::count(code.begin(), code.end(), 1)));
        CPPUNIT_ASSERT_EQUAL(found, galileo_e1_codes_file());
    }

    void boc11_expansion_convention()
    {
        const std::vector<std::int8_t> chips = { 1, -1, -1, 1 };
        const std::vector<std::int8_t> expected = { 1, -1, -1, 1, -1, 1, 1, -1 };
        CPPUNIT_ASSERT(boc11_expand(chips) == expected);
        CPPUNIT_ASSERT(boc11_expand({}).empty());
    }

    void real_gps_recording_has_prn1_at_stated_delay()
    {
        const std::string path = qa::data_file_or_skip(
            "qa_gnss_codes::real_gps_recording", "gnss/GPS_L1_CA_ID_1_Fs_4Msps_2ms.dat");
        if (path.empty())
            return;
        const auto x = qa::read_binary<std::complex<float>>(path);
        CPPUNIT_ASSERT_EQUAL(std::size_t(8000), x.size());
        const search_result p1 = search(x, gps_l1ca_code(1), 1.023e6, 524, 1680);
        double others = 0.0;
        for (int prn = 2; prn <= 32; prn += 3)
            others =
                std::max(others, search(x, gps_l1ca_code(prn), 1.023e6, 524, 1680).best);
        std::cout << "qa_gnss_codes: GPS PRN 1 |R| " << p1.best << " at delay "
                  << p1.best_delay << ", Doppler " << p1.best_doppler
                  << " Hz; other PRNs at most " << others << std::endl;
        CPPUNIT_ASSERT(p1.best > 5.0 * others);
        CPPUNIT_ASSERT(std::abs(p1.best_delay - 524) <= 1.0);
        CPPUNIT_ASSERT(std::abs(std::abs(p1.best_doppler) - 1680) <= 100.0);
    }

    void real_galileo_recording_has_prn1_at_stated_delay()
    {
        const std::string path =
            qa::data_file_or_skip("qa_gnss_codes::real_galileo_recording",
                                  "gnss/Galileo_E1_ID_1_Fs_4Msps_8ms.dat");
        if (path.empty())
            return;
        const auto x = qa::read_binary<std::complex<float>>(path);
        CPPUNIT_ASSERT_EQUAL(std::size_t(32000), x.size());
        // BOC(1,1) tables of the pilot, at two entries per chip.
        auto table = [](int prn) {
            return boc11_expand(galileo_e1_code(prn, galileo_e1_component::c));
        };
        const search_result p1 = search(x, table(1), 2 * 1.023e6, 2920, 632);
        double others = 0.0;
        for (int prn = 2; prn <= 50; prn += 4)
            others = std::max(others, search(x, table(prn), 2 * 1.023e6, 2920, 632).best);
        std::cout << "qa_gnss_codes: Galileo E1-C PRN 1 |R| " << p1.best << " at delay "
                  << p1.best_delay << ", Doppler " << p1.best_doppler
                  << " Hz; other PRNs at most " << others << std::endl;
        CPPUNIT_ASSERT(p1.best > 5.0 * others);
        CPPUNIT_ASSERT(std::abs(p1.best_delay - 2920) <= 1.0);
        CPPUNIT_ASSERT(std::abs(std::abs(p1.best_doppler) - 632) <= 100.0);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_gnss_codes);

} // namespace core
} // namespace cudadsp
} // namespace gr
