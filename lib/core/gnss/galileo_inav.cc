/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/galileo_inav.h"
#include <type_traits>
#include <cmath>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using word_bits = std::array<std::uint8_t, galileo_inav_word_bits>;
using part_bits = std::array<std::uint8_t, galileo_inav_part_bits>;

// 4.3.2.1 (Table 39, the nominal page): the even part carries the even/odd bit (0),
// the page type, data j (word bits 0..111) and the tail; the odd part the even/odd bit
// (1), the page type, data k (word bits 112..127), OSNMA (40), SAR (22), spare (2),
// CRC (24), SSP (8) and the tail.
constexpr int data_j_bits = 112;
constexpr int data_k_bits = 16;
constexpr int even_crc_bits = 2 + data_j_bits; // even/odd, page type, data j
constexpr int odd_crc_bits = 2 + data_k_bits + 40 + 22 + 2;
constexpr int odd_crc_at = odd_crc_bits; // the 24-bit CRC follows what it covers
constexpr int crc_bits = 24;

//! A field of a word type (4.3.5, Tables 40 to 46): its first bit in the 128-bit word
//! (0 = the word type's MSB), its width, its LSB (scale factor), two's complement or
//! not, and where it goes.
template <class S>
struct inav_field {
    int word_type;
    int offset;
    int len;
    double lsb;
    bool is_signed;
    void (*set)(S&, double);
};

#define INAV_SET(S, m) \
    [](S& s, double v) { s.m = static_cast<std::remove_reference_t<decltype(s.m)>>(v); }

const double p2_5 = std::ldexp(1.0, -5), p2_8 = std::ldexp(1.0, -8),
             p2_2 = std::ldexp(1.0, -2), p2_15 = std::ldexp(1.0, -15),
             p2_19 = std::ldexp(1.0, -19), p2_29 = std::ldexp(1.0, -29),
             p2_30 = std::ldexp(1.0, -30), p2_31 = std::ldexp(1.0, -31),
             p2_32 = std::ldexp(1.0, -32), p2_33 = std::ldexp(1.0, -33),
             p2_34 = std::ldexp(1.0, -34), p2_43 = std::ldexp(1.0, -43),
             p2_46 = std::ldexp(1.0, -46), p2_50 = std::ldexp(1.0, -50),
             p2_59 = std::ldexp(1.0, -59);

using eph = galileo_ephemeris;

// Word types 1 to 4 (Tables 40 to 43); IODnav (bits 6..15) is read on its own.
const inav_field<eph> ephemeris_fields[] = {
    { 1, 16, 14, 60.0, false, INAV_SET(eph, t0e) },
    { 1, 30, 32, p2_31, true, INAV_SET(eph, m0) },
    { 1, 62, 32, p2_33, false, INAV_SET(eph, e) },
    { 1, 94, 32, p2_19, false, INAV_SET(eph, sqrt_a) },
    { 2, 16, 32, p2_31, true, INAV_SET(eph, omega0) },
    { 2, 48, 32, p2_31, true, INAV_SET(eph, i0) },
    { 2, 80, 32, p2_31, true, INAV_SET(eph, omega) },
    { 2, 112, 14, p2_43, true, INAV_SET(eph, idot) },
    { 3, 16, 24, p2_43, true, INAV_SET(eph, omega_dot) },
    { 3, 40, 16, p2_43, true, INAV_SET(eph, delta_n) },
    { 3, 56, 16, p2_29, true, INAV_SET(eph, cuc) },
    { 3, 72, 16, p2_29, true, INAV_SET(eph, cus) },
    { 3, 88, 16, p2_5, true, INAV_SET(eph, crc) },
    { 3, 104, 16, p2_5, true, INAV_SET(eph, crs) },
    { 3, 120, 8, 1.0, false, INAV_SET(eph, sisa) },
    { 4, 16, 6, 1.0, false, INAV_SET(eph, svid) },
    { 4, 22, 16, p2_29, true, INAV_SET(eph, cic) },
    { 4, 38, 16, p2_29, true, INAV_SET(eph, cis) },
    { 4, 54, 14, 60.0, false, INAV_SET(eph, t0c) },
    { 4, 68, 31, p2_34, true, INAV_SET(eph, af0) },
    { 4, 99, 21, p2_46, true, INAV_SET(eph, af1) },
    { 4, 120, 6, p2_59, true, INAV_SET(eph, af2) },
};

using ion = galileo_iono_health;

// Word type 5 (Table 44).
const inav_field<ion> iono_health_fields[] = {
    { 5, 6, 11, p2_2, false, INAV_SET(ion, ai0) },
    { 5, 17, 11, p2_8, true, INAV_SET(ion, ai1) },
    { 5, 28, 14, p2_15, true, INAV_SET(ion, ai2) },
    { 5, 42, 1, 1.0, false, INAV_SET(ion, region_flags[0]) },
    { 5, 43, 1, 1.0, false, INAV_SET(ion, region_flags[1]) },
    { 5, 44, 1, 1.0, false, INAV_SET(ion, region_flags[2]) },
    { 5, 45, 1, 1.0, false, INAV_SET(ion, region_flags[3]) },
    { 5, 46, 1, 1.0, false, INAV_SET(ion, region_flags[4]) },
    { 5, 47, 10, p2_32, true, INAV_SET(ion, bgd_e1_e5a) },
    { 5, 57, 10, p2_32, true, INAV_SET(ion, bgd_e1_e5b) },
    { 5, 67, 2, 1.0, false, INAV_SET(ion, e5b_hs) },
    { 5, 69, 2, 1.0, false, INAV_SET(ion, e1b_hs) },
    { 5, 71, 1, 1.0, false, INAV_SET(ion, e5b_dvs) },
    { 5, 72, 1, 1.0, false, INAV_SET(ion, e1b_dvs) },
    { 5, 73, 12, 1.0, false, INAV_SET(ion, wn) },
    { 5, 85, 20, 1.0, false, INAV_SET(ion, tow) },
};

using utc = galileo_gst_utc;

// Word type 6 (Table 45).
const inav_field<utc> gst_utc_fields[] = {
    { 6, 6, 32, p2_30, true, INAV_SET(utc, a0) },
    { 6, 38, 24, p2_50, true, INAV_SET(utc, a1) },
    { 6, 62, 8, 1.0, true, INAV_SET(utc, dt_ls) },
    { 6, 70, 8, 3600.0, false, INAV_SET(utc, t0t) },
    { 6, 78, 8, 1.0, false, INAV_SET(utc, wn0t) },
    { 6, 86, 8, 1.0, false, INAV_SET(utc, wn_lsf) },
    { 6, 94, 3, 1.0, false, INAV_SET(utc, dn) },
    { 6, 97, 8, 1.0, true, INAV_SET(utc, dt_lsf) },
    { 6, 105, 20, 1.0, false, INAV_SET(utc, tow) },
};

#undef INAV_SET

// Word type 0 (Table 46): the time field says whether WN and TOW are sent ("10").
constexpr int word0_time_at = 6, word0_wn_at = 96, word0_tow_at = 108;
constexpr unsigned word0_time_valid = 2;
constexpr int iodnav_at = 6, iodnav_len = 10;

std::uint64_t field_value(const word_bits& w, int offset, int len)
{
    std::uint64_t v = 0;
    for (int i = 0; i < len; ++i) {
        v = (v << 1) | w[offset + i];
    }
    return v;
}

template <class S, std::size_t N>
void decode_fields(const inav_field<S> (&table)[N], int type, const word_bits& w, S& out)
{
    for (const auto& f : table) {
        if (f.word_type != type) {
            continue;
        }
        auto n = static_cast<long long>(field_value(w, f.offset, f.len));
        if (f.is_signed && n >= (1ll << (f.len - 1))) {
            n -= 1ll << f.len; // two's complement
        }
        f.set(out, static_cast<double>(n) * f.lsb);
    }
}

int iodnav_of(const word_bits& w)
{
    return static_cast<int>(field_value(w, iodnav_at, iodnav_len));
}

} // namespace

galileo_inav_counters& operator+=(galileo_inav_counters& sum,
                                  const galileo_inav_counters& c)
{
    sum.symbols += c.symbols;
    sum.page_parts += c.page_parts;
    sum.pages += c.pages;
    sum.crc_failures += c.crc_failures;
    sum.unpaired_parts += c.unpaired_parts;
    sum.alert_pages += c.alert_pages;
    sum.sync_losses += c.sync_losses;
    sum.iodnav_mismatches += c.iodnav_mismatches;
    sum.ephemerides += c.ephemerides;
    return sum;
}

bool galileo_inav_decoder::push(double symbol)
{
    ++d_counters.symbols;
    d_symbols.push_back(symbol);
    if (!d_synced && !try_sync()) {
        return false;
    }
    bool completed = false;
    while (d_synced && d_symbols.size() >= galileo_inav_part_symbols) {
        completed = take_part() || completed;
    }
    return completed;
}

int galileo_inav_decoder::sync_errors(std::size_t at, int polarity) const
{
    int errors = 0;
    for (int i = 0; i < galileo_inav_sync_symbols; ++i) {
        const double expected = galileo_inav_sync_pattern[i] ? 1.0 : -1.0;
        if (!(d_symbols[at + i] * polarity * expected > 0.0)) {
            ++errors; // wrong or erased
        }
    }
    return errors;
}

//! The pattern at a candidate start and again one part later, in one polarity and
//! without an error: a random start passes with probability 2^-19.
bool galileo_inav_decoder::try_sync()
{
    const std::size_t span = galileo_inav_part_symbols + galileo_inav_sync_symbols;
    for (; d_symbols.size() >= d_scan + span; ++d_scan) {
        for (int polarity : { 1, -1 }) {
            if (sync_errors(d_scan, polarity) == 0 &&
                sync_errors(d_scan + galileo_inav_part_symbols, polarity) == 0) {
                d_symbols.erase(d_symbols.begin(), d_symbols.begin() + d_scan);
                d_scan = 0;
                d_synced = true;
                d_polarity = polarity;
                return true;
            }
        }
    }
    // Keep the search's memory bounded on a stream without a pattern.
    if (d_scan > static_cast<std::size_t>(4 * galileo_inav_part_symbols)) {
        d_symbols.erase(d_symbols.begin(), d_symbols.begin() + d_scan);
        d_scan = 0;
    }
    return false;
}

bool galileo_inav_decoder::take_part()
{
    if (sync_errors(0, d_polarity) > max_sync_errors) {
        // Not where a part belongs: search again from the next symbol on.
        ++d_counters.sync_losses;
        d_synced = false;
        d_scan = 1;
        if (d_have_even) {
            ++d_counters.unpaired_parts;
            d_have_even = false;
        }
        return false;
    }
    std::array<double, galileo_inav_coded_symbols> received;
    for (int i = 0; i < galileo_inav_coded_symbols; ++i) {
        received[i] = d_symbols[galileo_inav_sync_symbols + i] * d_polarity;
    }
    d_symbols.erase(d_symbols.begin(), d_symbols.begin() + galileo_inav_part_symbols);
    const part_bits bits =
        galileo_inav_viterbi(galileo_inav_deinterleave(received.data()));
    ++d_counters.page_parts;
    const bool odd = bits[0] != 0;
    if (!odd) {
        if (d_have_even) {
            ++d_counters.unpaired_parts; // the previous even part lost its odd part
        }
        d_even = bits;
        d_have_even = true;
        return false;
    }
    if (!d_have_even) {
        ++d_counters.unpaired_parts;
        return false;
    }
    d_have_even = false;
    return take_page(bits);
}

bool galileo_inav_decoder::take_page(const part_bits& odd)
{
    if (d_even[1] || odd[1]) {
        ++d_counters.alert_pages;
        return false;
    }
    std::array<std::uint8_t, even_crc_bits + odd_crc_bits> covered;
    for (int i = 0; i < even_crc_bits; ++i) {
        covered[i] = d_even[i];
    }
    for (int i = 0; i < odd_crc_bits; ++i) {
        covered[even_crc_bits + i] = odd[i];
    }
    std::uint32_t sent = 0;
    for (int i = 0; i < crc_bits; ++i) {
        sent = (sent << 1) | odd[odd_crc_at + i];
    }
    if (galileo_crc24q(covered.data(), covered.size()) != sent) {
        ++d_counters.crc_failures;
        return false;
    }
    ++d_counters.pages;
    for (int i = 0; i < data_j_bits; ++i) {
        d_word[i] = d_even[2 + i];
    }
    for (int i = 0; i < data_k_bits; ++i) {
        d_word[data_j_bits + i] = odd[2 + i];
    }
    use_word();
    return true;
}

void galileo_inav_decoder::use_word()
{
    const int type = static_cast<int>(field_value(d_word, 0, 6));
    d_last_word_type = type;
    d_last_page_stated_gst = false;
    if (type >= 1 && type <= 4) {
        hold_ephemeris_word(type);
    } else if (type == 5) {
        decode_fields(iono_health_fields, 5, d_word, d_iono_health);
        d_has_iono_health = true;
        d_gst = { d_iono_health.wn, d_iono_health.tow };
        d_has_gst = true;
        d_last_page_stated_gst = true;
    } else if (type == 6) {
        decode_fields(gst_utc_fields, 6, d_word, d_gst_utc);
        d_has_gst_utc = true;
    } else if (type == 0 && field_value(d_word, word0_time_at, 2) == word0_time_valid) {
        d_gst.wn = static_cast<int>(field_value(d_word, word0_wn_at, 12));
        d_gst.tow = static_cast<int>(field_value(d_word, word0_tow_at, 20));
        d_has_gst = true;
        d_last_page_stated_gst = true;
    }
}

//! Words 1 to 4 wait until all four are held; they make an ephemeris only with one
//! IODnav (4.3.5: the IODnav ties the batch together). Otherwise those not of the
//! newest word's IODnav are dropped and counted.
void galileo_inav_decoder::hold_ephemeris_word(int type)
{
    d_held_words[type - 1] = d_word;
    d_held[type - 1] = true;
    for (bool held : d_held) {
        if (!held) {
            return;
        }
    }
    const int iodnav = iodnav_of(d_word);
    bool one_batch = true;
    for (int k = 0; k < 4; ++k) {
        if (iodnav_of(d_held_words[k]) != iodnav) {
            d_held[k] = false;
            one_batch = false;
        }
    }
    if (!one_batch) {
        ++d_counters.iodnav_mismatches;
        return;
    }
    galileo_ephemeris e;
    e.iodnav = iodnav;
    for (int k = 0; k < 4; ++k) {
        decode_fields(ephemeris_fields, k + 1, d_held_words[k], e);
        d_held[k] = false;
    }
    d_ephemeris = e;
    d_has_ephemeris = true;
    ++d_counters.ephemerides;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
