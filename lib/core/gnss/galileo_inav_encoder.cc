/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/galileo_inav_encoder.h"
#include "runtime/quoted_text.h"
#include <initializer_list>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr int gst_week_s = 604800;
constexpr int part_symbols = 250;

//! A field as the ICD's tables list it: width, LSB, two's complement or not, value.
struct field {
    const char* name;
    int width;
    double lsb;
    bool is_signed;
    double value;
};

void put(galileo_inav_word& w, int& at, int width, std::uint64_t count)
{
    for (int i = width - 1; i >= 0; --i) {
        w[at++] = i < 64 ? static_cast<std::uint8_t>((count >> i) & 1u) : 0;
    }
}

//! The word: the 6-bit type, then \p fields in order, each rounded to its LSB.
galileo_inav_word word(int type, std::initializer_list<field> fields)
{
    galileo_inav_word w{};
    int at = 0;
    put(w, at, 6, static_cast<std::uint64_t>(type));
    for (const field& f : fields) {
        const double count = std::round(f.value / f.lsb);
        const double low = f.is_signed ? -std::ldexp(1.0, f.width - 1) : 0.0;
        const double high = std::ldexp(1.0, f.is_signed ? f.width - 1 : f.width);
        if (!(count >= low && count < high)) {
            throw std::invalid_argument(
                std::string("galileo_inav_encode_word: word ") + std::to_string(type) +
                " field " + f.name + ": " + number_text(f.value) + " does not fit " +
                std::to_string(f.width) + " bits of " + number_text(f.lsb));
        }
        // Two's complement of a negative count: its low width bits.
        put(w, at, f.width, static_cast<std::uint64_t>(static_cast<long long>(count)));
    }
    return w;
}

//! CRC-24Q (5.1.9.4) as the remainder of M(x) x^24 divided by the generator 0x1864CFB.
std::uint32_t crc24q_by_division(const std::vector<std::uint8_t>& message)
{
    const std::uint8_t generator[25] = { 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0,
                                         1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1 };
    std::vector<std::uint8_t> r = message;
    r.resize(message.size() + 24, 0);
    for (std::size_t i = 0; i < message.size(); ++i) {
        if (r[i]) {
            for (std::size_t j = 0; j < 25; ++j) {
                r[i + j] ^= generator[j];
            }
        }
    }
    std::uint32_t crc = 0;
    for (std::size_t i = message.size(); i < r.size(); ++i) {
        crc = (crc << 1) | r[i];
    }
    return crc;
}

/*! One page part's 250 symbols: the sync pattern 0101100000, then the 120 bits
 *  encoded (4.1.4: rate 1/2, K = 7, from the zero state, G1 = 171 and G2 = 133 octal
 *  read as the taps of the register (input, D1..D6), G1's symbol first and G2's
 *  inverted) and interleaved (4.1.4.2: written into 30 columns of 8, read by rows). */
void append_part(const std::vector<std::uint8_t>& part, std::vector<std::uint8_t>& out)
{
    const int g1[7] = { 1, 1, 1, 1, 0, 0, 1 };
    const int g2[7] = { 1, 0, 1, 1, 0, 1, 1 };
    int reg[7] = { 0, 0, 0, 0, 0, 0, 0 };
    std::vector<std::uint8_t> coded;
    for (std::uint8_t b : part) {
        for (int i = 6; i > 0; --i) {
            reg[i] = reg[i - 1];
        }
        reg[0] = b;
        int c1 = 0, c2 = 0;
        for (int i = 0; i < 7; ++i) {
            c1 ^= g1[i] & reg[i];
            c2 ^= g2[i] & reg[i];
        }
        coded.push_back(static_cast<std::uint8_t>(c1));
        coded.push_back(static_cast<std::uint8_t>(c2 ^ 1));
    }
    for (std::uint8_t s : { 0, 1, 0, 1, 1, 0, 0, 0, 0, 0 }) {
        out.push_back(s);
    }
    for (int row = 0; row < 8; ++row) {
        for (int column = 0; column < 30; ++column) {
            out.push_back(coded[column * 8 + row]);
        }
    }
}

} // namespace

galileo_inav_word galileo_inav_encode_word(int type,
                                           const galileo_inav_message& msg,
                                           const galileo_gst& gst)
{
    const auto p = [](int k) { return std::ldexp(1.0, k); };
    const galileo_ephemeris& e = msg.ephemeris;
    const galileo_iono_health& h = msg.iono_health;
    const galileo_gst_utc& u = msg.gst_utc;
    const double iodnav = e.iodnav;
    // OS SIS ICD 4.3.5, Tables 40 to 46, in transmission order.
    switch (type) {
    case 0:
        return word(0,
                    { { "time field", 2, 1.0, false, 2.0 },
                      { "spare", 88, 1.0, false, 0.0 },
                      { "WN", 12, 1.0, false, double(gst.wn) },
                      { "TOW", 20, 1.0, false, double(gst.tow) } });
    case 1:
        return word(1,
                    { { "IODnav", 10, 1.0, false, iodnav },
                      { "t0e", 14, 60.0, false, e.t0e },
                      { "M0", 32, p(-31), true, e.m0 },
                      { "e", 32, p(-33), false, e.e },
                      { "sqrt(A)", 32, p(-19), false, e.sqrt_a },
                      { "reserved", 2, 1.0, false, 0.0 } });
    case 2:
        return word(2,
                    { { "IODnav", 10, 1.0, false, iodnav },
                      { "Omega0", 32, p(-31), true, e.omega0 },
                      { "i0", 32, p(-31), true, e.i0 },
                      { "omega", 32, p(-31), true, e.omega },
                      { "IDOT", 14, p(-43), true, e.idot },
                      { "reserved", 2, 1.0, false, 0.0 } });
    case 3:
        return word(3,
                    { { "IODnav", 10, 1.0, false, iodnav },
                      { "Omega dot", 24, p(-43), true, e.omega_dot },
                      { "delta n", 16, p(-43), true, e.delta_n },
                      { "Cuc", 16, p(-29), true, e.cuc },
                      { "Cus", 16, p(-29), true, e.cus },
                      { "Crc", 16, p(-5), true, e.crc },
                      { "Crs", 16, p(-5), true, e.crs },
                      { "SISA", 8, 1.0, false, double(e.sisa) } });
    case 4:
        return word(4,
                    { { "IODnav", 10, 1.0, false, iodnav },
                      { "SVID", 6, 1.0, false, double(e.svid) },
                      { "Cic", 16, p(-29), true, e.cic },
                      { "Cis", 16, p(-29), true, e.cis },
                      { "t0c", 14, 60.0, false, e.t0c },
                      { "af0", 31, p(-34), true, e.af0 },
                      { "af1", 21, p(-46), true, e.af1 },
                      { "af2", 6, p(-59), true, e.af2 },
                      { "spare", 2, 1.0, false, 0.0 } });
    case 5:
        return word(5,
                    { { "ai0", 11, p(-2), false, h.ai0 },
                      { "ai1", 11, p(-8), true, h.ai1 },
                      { "ai2", 14, p(-15), true, h.ai2 },
                      { "region 1", 1, 1.0, false, double(h.region_flags[0]) },
                      { "region 2", 1, 1.0, false, double(h.region_flags[1]) },
                      { "region 3", 1, 1.0, false, double(h.region_flags[2]) },
                      { "region 4", 1, 1.0, false, double(h.region_flags[3]) },
                      { "region 5", 1, 1.0, false, double(h.region_flags[4]) },
                      { "BGD(E1,E5a)", 10, p(-32), true, h.bgd_e1_e5a },
                      { "BGD(E1,E5b)", 10, p(-32), true, h.bgd_e1_e5b },
                      { "E5b HS", 2, 1.0, false, double(h.e5b_hs) },
                      { "E1-B HS", 2, 1.0, false, double(h.e1b_hs) },
                      { "E5b DVS", 1, 1.0, false, double(h.e5b_dvs) },
                      { "E1-B DVS", 1, 1.0, false, double(h.e1b_dvs) },
                      { "WN", 12, 1.0, false, double(gst.wn) },
                      { "TOW", 20, 1.0, false, double(gst.tow) },
                      { "spare", 23, 1.0, false, 0.0 } });
    case 6:
        return word(6,
                    { { "A0", 32, p(-30), true, u.a0 },
                      { "A1", 24, p(-50), true, u.a1 },
                      { "delta t_LS", 8, 1.0, true, double(u.dt_ls) },
                      { "t0t", 8, 3600.0, false, u.t0t },
                      { "WN0t", 8, 1.0, false, double(u.wn0t) },
                      { "WN_LSF", 8, 1.0, false, double(u.wn_lsf) },
                      { "DN", 3, 1.0, false, double(u.dn) },
                      { "delta t_LSF", 8, 1.0, true, double(u.dt_lsf) },
                      { "TOW", 20, 1.0, false, double(gst.tow) },
                      { "spare", 3, 1.0, false, 0.0 } });
    default:
        throw std::invalid_argument(
            "galileo_inav_encode_word: type: must be 0 to 6, got " +
            std::to_string(type));
    }
}

std::vector<std::uint8_t> galileo_inav_page_symbols(const galileo_inav_word& word,
                                                    int page_type,
                                                    std::uint32_t crc_error)
{
    // 4.3.2.1, Table 39: even part (0, page type, data j, tail), odd part (1, page
    // type, data k, OSNMA, SAR, spare, CRC, SSP, tail).
    const std::uint8_t type_bit = page_type ? 1 : 0;
    std::vector<std::uint8_t> even = { 0, type_bit };
    even.insert(even.end(), word.begin(), word.begin() + 112);
    std::vector<std::uint8_t> odd = { 1, type_bit };
    odd.insert(odd.end(), word.begin() + 112, word.end());
    for (int i = 0; i < 40 + 22 + 2; ++i) {
        odd.push_back((i * 7 + 3) % 5 == 0); // OSNMA, SAR, spare: some content
    }
    std::vector<std::uint8_t> covered = even;
    covered.insert(covered.end(), odd.begin(), odd.end());
    const std::uint32_t crc = crc24q_by_division(covered) ^ crc_error;
    for (int i = 23; i >= 0; --i) {
        odd.push_back((crc >> i) & 1u);
    }
    for (int i = 0; i < 8; ++i) {
        odd.push_back(i & 1); // SSP
    }
    even.resize(120, 0); // the tail
    odd.resize(120, 0);
    std::vector<std::uint8_t> symbols;
    symbols.reserve(2 * part_symbols);
    append_part(even, symbols);
    append_part(odd, symbols);
    return symbols;
}

int galileo_inav_nominal_word_type(int tow_s)
{
    static const int schedule[15] = { 2, 4, 6, 0, 0, 0, 0, 0, 0, 0, 1, 3, 5, 0, 0 };
    return schedule[(tow_s % 30) / 2];
}

std::vector<std::uint8_t> galileo_inav_encode(const galileo_inav_message& msg,
                                              const galileo_gst& start,
                                              int n_pages)
{
    if (start.tow < 0 || start.tow >= gst_week_s || start.tow % 2 != 0) {
        throw std::invalid_argument("galileo_inav_encode: start.tow: must be an even "
                                    "second of the week, got " +
                                    std::to_string(start.tow));
    }
    if (n_pages < 1) {
        throw std::invalid_argument("galileo_inav_encode: n_pages: must be >= 1, got " +
                                    std::to_string(n_pages));
    }
    std::vector<std::uint8_t> symbols;
    symbols.reserve(static_cast<std::size_t>(n_pages) * 2 * part_symbols);
    galileo_gst gst = start;
    for (int k = 0; k < n_pages; ++k) {
        const galileo_inav_word w =
            galileo_inav_encode_word(galileo_inav_nominal_word_type(gst.tow), msg, gst);
        const std::vector<std::uint8_t> page = galileo_inav_page_symbols(w);
        symbols.insert(symbols.end(), page.begin(), page.end());
        gst.tow += 2;
        if (gst.tow == gst_week_s) {
            gst.tow = 0;
            gst.wn = (gst.wn + 1) % 4096;
        }
    }
    return symbols;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
