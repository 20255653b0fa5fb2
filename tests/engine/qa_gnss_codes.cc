/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// GNSS code generators, the Galileo E1 table the library carries and its file loader,
// against facts published outside the code under test: the first ten chips of every GPS
// C/A code in octal and the G2 delay of every PRN (IS-GPS-200 Table 3-Ia; the test
// builds each code a second way, G1 xor G2 delayed, with its own shift registers),
// Gold-code correlation values, the GLONASS ICD's opening group 111111100 and m-sequence
// autocorrelation, the opening and closing hex digits of Galileo E1 codes of the OS SIS
// ICD (as GNSS-SDR transcribes them), the balance of the Galileo memory codes, and the
// real recordings of the data folder, whose satellites' delays and Dopplers their
// producers state.

#include "qa_support.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <cppunit/extensions/HelperMacros.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <filesystem>
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
    const std::string path =
        (std::filesystem::temp_directory_path() /
         ("qa_gnss_codes_" + std::to_string(::getpid()) + "_" + name + ".txt"))
            .string();
    std::ofstream(path) << text;
    return path;
}

/*!
 * Opening and closing hex digits of Galileo E1 primary codes, OS SIS ICD Annex C, as
 * GNSS-SDR's Galileo_E1.h transcribes them (a source apart from this module's table).
 * The first and last PRN of each component: a table cut short or shifted by a line
 * fails here.
 */
struct galileo_published_digits {
    galileo_e1_component component;
    int prn;
    const char* first_digits;
    const char* last_digits;
};
const galileo_published_digits galileo_published[] = {
    { galileo_e1_component::b,
      1,
      "F5D710130573541B9DBD4FD9E9B20A0D",
      "654C834B6699421A" },
    { galileo_e1_component::b,
      50,
      "97051FC67ACA30E8AEE73D3A8CF38BB1",
      "C7EF323ADE493020" },
    { galileo_e1_component::c,
      1,
      "B39340CA1C817D81EF4FAE4E95BF3504",
      "0D22EDAF431FD340" },
    { galileo_e1_component::c,
      50,
      "ADDCEDB50E907D20E826E6E8A0D30C20",
      "4456C7818601BD0C" },
};

//! Chips of hex digits, most significant bit first, logic 1 -> -1 (the ICD's rule).
std::vector<int> chips_of_hex(const std::string& digits)
{
    std::vector<int> chips;
    for (const char digit : digits) {
        const int value = std::stoi(std::string(1, digit), nullptr, 16);
        for (int bit = 3; bit >= 0; --bit)
            chips.push_back(((value >> bit) & 1) ? -1 : 1);
    }
    return chips;
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
    CPPUNIT_TEST(galileo_table_matches_published_digits);
    CPPUNIT_TEST(galileo_codes_are_balanced);
    CPPUNIT_TEST(galileo_bad_prn_names_parameter);
    CPPUNIT_TEST(galileo_codes_are_distinct_and_low_correlation);
    CPPUNIT_TEST(galileo_loader_rejects_malformed_files);
    CPPUNIT_TEST(galileo_loader_reads_a_table_apart);
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

    void galileo_table_matches_published_digits()
    {
        for (const galileo_published_digits& published : galileo_published) {
            const std::vector<std::int8_t> code =
                galileo_e1_code(published.prn, published.component);
            CPPUNIT_ASSERT_EQUAL(std::size_t(4092), code.size());
            const std::string what =
                std::string(published.component == galileo_e1_component::b ? "E1B"
                                                                           : "E1C") +
                " PRN " + std::to_string(published.prn);
            const std::vector<int> first = chips_of_hex(published.first_digits);
            const std::vector<int> last = chips_of_hex(published.last_digits);
            for (std::size_t i = 0; i < first.size(); ++i)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    what + " chip " + std::to_string(i), first[i], int(code[i]));
            const std::size_t last_start = code.size() - last.size();
            for (std::size_t i = 0; i < last.size(); ++i)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what + " chip " +
                                                 std::to_string(last_start + i),
                                             last[i],
                                             int(code[last_start + i]));
        }
    }

    void galileo_codes_are_balanced()
    {
        // The E1 memory codes were chosen balanced: 2046 chips of each sign in every
        // 4092-chip code, E1-B and E1-C, all 50 PRNs.
        for (auto component : { galileo_e1_component::b, galileo_e1_component::c })
            for (int prn = 1; prn <= galileo_e1_prn_count; ++prn) {
                const std::vector<std::int8_t> code = galileo_e1_code(prn, component);
                CPPUNIT_ASSERT_EQUAL(std::size_t(4092), code.size());
                long plus = 0, minus = 0;
                for (const std::int8_t chip : code) {
                    plus += chip == 1;
                    minus += chip == -1;
                }
                CPPUNIT_ASSERT_EQUAL_MESSAGE("PRN " + std::to_string(prn), 2046L, plus);
                CPPUNIT_ASSERT_EQUAL_MESSAGE("PRN " + std::to_string(prn), 2046L, minus);
            }
    }

    void galileo_bad_prn_names_parameter()
    {
        for (int prn : { 0, 51, -1 }) {
            try {
                galileo_e1_code(prn, galileo_e1_component::c);
                CPPUNIT_FAIL("no exception for prn " + std::to_string(prn));
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT(std::string(e.what()).find("prn") != std::string::npos);
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
            std::filesystem::remove(path);
        };
        expect_error(write_temp("short", "# c\nE1B 1 ABC\n"), "line 2");
        expect_error(write_temp("component", "E1X 1 " + good + "\n"), "E1B or E1C");
        expect_error(write_temp("prn", "E1B 51 " + good + "\n"), "PRN must be 1 to 50");
        expect_error(write_temp("digit", "E1B 1 " + good.substr(1) + "G\n"),
                     "not a hex digit");
        expect_error(write_temp("twice", "E1B 3 " + good + "\nE1B 3 " + good + "\n"),
                     "appears twice");
        expect_error("/nonexistent/galileo.txt", "cannot be opened");
    }

    void galileo_loader_reads_a_table_apart()
    {
        // Lower-case digits, comments, tabs; absent PRNs empty.
        const std::string path = write_temp(
            "valid", "# test\n\nE1C\t7\t" + std::string(1022, 'f') + "0  # trailing\n");
        const auto c = load_galileo_e1_codes(path, galileo_e1_component::c);
        CPPUNIT_ASSERT_EQUAL(std::size_t(50), c.size());
        CPPUNIT_ASSERT(c[0].empty());
        CPPUNIT_ASSERT_EQUAL(std::size_t(4092), c[6].size());
        for (std::size_t i = 0; i < 4088; ++i)
            CPPUNIT_ASSERT_EQUAL(-1, int(c[6][i]));
        for (std::size_t i = 4088; i < 4092; ++i)
            CPPUNIT_ASSERT_EQUAL(1, int(c[6][i]));
        const auto b = load_galileo_e1_codes(path, galileo_e1_component::b);
        for (const auto& code : b)
            CPPUNIT_ASSERT(code.empty());
        // The library's own table is not replaced by a file read beside it.
        const std::vector<std::int8_t> icd = galileo_e1_code(7, galileo_e1_component::c);
        CPPUNIT_ASSERT(icd != c[6]);
        CPPUNIT_ASSERT_EQUAL(std::size_t(2046),
                             std::size_t(std::count(icd.begin(), icd.end(), 1)));
        std::filesystem::remove(path);
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
        const std::string path = qa::data_file("gnss/GPS_L1_CA_ID_1_Fs_4Msps_2ms.dat");
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
        const std::string path = qa::data_file("gnss/Galileo_E1_ID_1_Fs_4Msps_8ms.dat");
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
