/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gps_lnav.h"
#include <initializer_list>
#include <type_traits>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using subframe_words = std::array<std::uint32_t, 10>; // 24 data bits a word, d1 in bit 23

constexpr std::uint32_t data_mask = 0xFFFFFF;
constexpr int tow_count_modulus = 100800; // 604800 s / 6 s
constexpr int iono_utc_sv_id = 56;        // subframe 4 page 18

//! A run of bits in one word: word 1..10, first bit 1..24 (the ICD's numbering).
struct segment {
    int word;
    int bit;
    int len;
};

//! A field of the ICD's tables 20-I and 20-III/20-V: up to two segments (MSBs first),
//! the scale factor 2^scale_exp, two's complement or not, and the member it maps to.
template <class S>
struct lnav_field {
    const char* name;
    int subframe;
    segment first;
    segment second; // len 0: none
    int scale_exp;
    bool is_signed;
    double (*get)(const S&);
    void (*set)(S&, double);
};

#define LNAV_MEMBER(S, m)                                                     \
    [](const S& s) { return static_cast<double>(s.m); }, [](S& s, double v) { \
        s.m = static_cast<std::remove_reference_t<decltype(s.m)>>(v);         \
    }

constexpr segment none{ 0, 0, 0 };
using eph = gps_ephemeris;

// IS-GPS-200 Figure 20-1 and Table 20-III (subframe 1), Table 20-III (subframes 2, 3).
const lnav_field<eph> ephemeris_fields[] = {
    { "week", 1, { 3, 1, 10 }, none, 0, false, LNAV_MEMBER(eph, week) },
    { "code_on_l2", 1, { 3, 11, 2 }, none, 0, false, LNAV_MEMBER(eph, code_on_l2) },
    { "ura_index", 1, { 3, 13, 4 }, none, 0, false, LNAV_MEMBER(eph, ura_index) },
    { "health", 1, { 3, 17, 6 }, none, 0, false, LNAV_MEMBER(eph, health) },
    { "iodc", 1, { 3, 23, 2 }, { 8, 1, 8 }, 0, false, LNAV_MEMBER(eph, iodc) },
    { "l2p_data_flag", 1, { 4, 1, 1 }, none, 0, false, LNAV_MEMBER(eph, l2p_data_flag) },
    { "tgd", 1, { 7, 17, 8 }, none, -31, true, LNAV_MEMBER(eph, tgd) },
    { "toc", 1, { 8, 9, 16 }, none, 4, false, LNAV_MEMBER(eph, toc) },
    { "af2", 1, { 9, 1, 8 }, none, -55, true, LNAV_MEMBER(eph, af2) },
    { "af1", 1, { 9, 9, 16 }, none, -43, true, LNAV_MEMBER(eph, af1) },
    { "af0", 1, { 10, 1, 22 }, none, -31, true, LNAV_MEMBER(eph, af0) },
    { "iode", 2, { 3, 1, 8 }, none, 0, false, LNAV_MEMBER(eph, iode) },
    { "crs", 2, { 3, 9, 16 }, none, -5, true, LNAV_MEMBER(eph, crs) },
    { "delta_n", 2, { 4, 1, 16 }, none, -43, true, LNAV_MEMBER(eph, delta_n) },
    { "m0", 2, { 4, 17, 8 }, { 5, 1, 24 }, -31, true, LNAV_MEMBER(eph, m0) },
    { "cuc", 2, { 6, 1, 16 }, none, -29, true, LNAV_MEMBER(eph, cuc) },
    { "e", 2, { 6, 17, 8 }, { 7, 1, 24 }, -33, false, LNAV_MEMBER(eph, e) },
    { "cus", 2, { 8, 1, 16 }, none, -29, true, LNAV_MEMBER(eph, cus) },
    { "sqrt_a", 2, { 8, 17, 8 }, { 9, 1, 24 }, -19, false, LNAV_MEMBER(eph, sqrt_a) },
    { "toe", 2, { 10, 1, 16 }, none, 4, false, LNAV_MEMBER(eph, toe) },
    { "fit_interval_flag",
      2,
      { 10, 17, 1 },
      none,
      0,
      false,
      LNAV_MEMBER(eph, fit_interval_flag) },
    { "aodo", 2, { 10, 18, 5 }, none, 0, false, LNAV_MEMBER(eph, aodo) },
    { "cic", 3, { 3, 1, 16 }, none, -29, true, LNAV_MEMBER(eph, cic) },
    { "omega0", 3, { 3, 17, 8 }, { 4, 1, 24 }, -31, true, LNAV_MEMBER(eph, omega0) },
    { "cis", 3, { 5, 1, 16 }, none, -29, true, LNAV_MEMBER(eph, cis) },
    { "i0", 3, { 5, 17, 8 }, { 6, 1, 24 }, -31, true, LNAV_MEMBER(eph, i0) },
    { "crc", 3, { 7, 1, 16 }, none, -5, true, LNAV_MEMBER(eph, crc) },
    { "omega", 3, { 7, 17, 8 }, { 8, 1, 24 }, -31, true, LNAV_MEMBER(eph, omega) },
    { "omega_dot", 3, { 9, 1, 24 }, none, -43, true, LNAV_MEMBER(eph, omega_dot) },
    { "iode", 3, { 10, 1, 8 }, none, 0, false, LNAV_MEMBER(eph, iode) },
    { "idot", 3, { 10, 9, 14 }, none, -43, true, LNAV_MEMBER(eph, idot) },
};

using iono = gps_iono_utc;

// IS-GPS-200 Figure 20-1 sheet 8 and Table 20-X: subframe 4 page 18.
const lnav_field<iono> iono_utc_fields[] = {
    { "alpha0", 4, { 3, 9, 8 }, none, -30, true, LNAV_MEMBER(iono, alpha[0]) },
    { "alpha1", 4, { 3, 17, 8 }, none, -27, true, LNAV_MEMBER(iono, alpha[1]) },
    { "alpha2", 4, { 4, 1, 8 }, none, -24, true, LNAV_MEMBER(iono, alpha[2]) },
    { "alpha3", 4, { 4, 9, 8 }, none, -24, true, LNAV_MEMBER(iono, alpha[3]) },
    { "beta0", 4, { 4, 17, 8 }, none, 11, true, LNAV_MEMBER(iono, beta[0]) },
    { "beta1", 4, { 5, 1, 8 }, none, 14, true, LNAV_MEMBER(iono, beta[1]) },
    { "beta2", 4, { 5, 9, 8 }, none, 16, true, LNAV_MEMBER(iono, beta[2]) },
    { "beta3", 4, { 5, 17, 8 }, none, 16, true, LNAV_MEMBER(iono, beta[3]) },
    { "a1", 4, { 6, 1, 24 }, none, -50, true, LNAV_MEMBER(iono, a1) },
    { "a0", 4, { 7, 1, 24 }, { 8, 1, 8 }, -30, true, LNAV_MEMBER(iono, a0) },
    { "tot", 4, { 8, 9, 8 }, none, 12, false, LNAV_MEMBER(iono, tot) },
    { "wnt", 4, { 8, 17, 8 }, none, 0, false, LNAV_MEMBER(iono, wnt) },
    { "dt_ls", 4, { 9, 1, 8 }, none, 0, true, LNAV_MEMBER(iono, dt_ls) },
    { "wn_lsf", 4, { 9, 9, 8 }, none, 0, false, LNAV_MEMBER(iono, wn_lsf) },
    { "dn", 4, { 9, 17, 8 }, none, 0, false, LNAV_MEMBER(iono, dn) },
    { "dt_lsf", 4, { 10, 1, 8 }, none, 0, true, LNAV_MEMBER(iono, dt_lsf) },
};

#undef LNAV_MEMBER

// TLM and HOW (IS-GPS-200 20.3.3.1, 20.3.3.2) and the page's data ID and SV ID.
constexpr segment tlm_preamble{ 1, 1, 8 }, tlm_message{ 1, 9, 14 },
    tlm_integrity{ 1, 23, 1 };
constexpr segment how_tow{ 2, 1, 17 }, how_alert{ 2, 18, 1 }, how_anti_spoof{ 2, 19, 1 },
    how_subframe_id{ 2, 20, 3 };
constexpr segment page_data_id{ 3, 1, 2 }, page_sv_id{ 3, 3, 6 };

std::uint32_t get_bits(const subframe_words& w, segment s)
{
    return (w[s.word - 1] >> (24 - s.bit - s.len + 1)) & ((1u << s.len) - 1u);
}

void put_bits(subframe_words& w, segment s, std::uint32_t value)
{
    const int shift = 24 - s.bit - s.len + 1;
    const std::uint32_t mask = ((1u << s.len) - 1u) << shift;
    w[s.word - 1] = (w[s.word - 1] & ~mask) | ((value << shift) & mask);
}

template <class S>
void encode_field(const lnav_field<S>& f, const S& values, subframe_words& w)
{
    const int bits = f.first.len + f.second.len;
    const double value = f.get(values);
    const double scaled = std::ldexp(value, -f.scale_exp);
    const long long lo = f.is_signed ? -(1ll << (bits - 1)) : 0;
    const long long hi = f.is_signed ? (1ll << (bits - 1)) - 1 : (1ll << bits) - 1;
    if (!std::isfinite(scaled) || std::llround(scaled) < lo ||
        std::llround(scaled) > hi) {
        throw std::invalid_argument(std::string("gps_lnav_encode: ") + f.name + " = " +
                                    std::to_string(value) + " does not fit its " +
                                    std::to_string(bits) + "-bit field (LSB 2^" +
                                    std::to_string(f.scale_exp) + ")");
    }
    const auto n =
        static_cast<std::uint64_t>(std::llround(scaled)) & ((1ull << bits) - 1ull);
    put_bits(w, f.first, static_cast<std::uint32_t>(n >> f.second.len));
    if (f.second.len > 0) {
        put_bits(
            w, f.second, static_cast<std::uint32_t>(n & ((1ull << f.second.len) - 1ull)));
    }
}

template <class S>
void decode_field(const lnav_field<S>& f, const subframe_words& w, S& values)
{
    const int bits = f.first.len + f.second.len;
    long long n = get_bits(w, f.first);
    if (f.second.len > 0) {
        n = (n << f.second.len) | get_bits(w, f.second);
    }
    if (f.is_signed && n >= (1ll << (bits - 1))) {
        n -= 1ll << bits; // two's complement
    }
    f.set(values, std::ldexp(static_cast<double>(n), f.scale_exp));
}

template <class S, std::size_t N>
void encode_fields(const lnav_field<S> (&table)[N],
                   int subframe,
                   const S& v,
                   subframe_words& w)
{
    for (const auto& f : table) {
        if (f.subframe == subframe) {
            encode_field(f, v, w);
        }
    }
}

template <class S, std::size_t N>
void decode_fields(const lnav_field<S> (&table)[N],
                   int subframe,
                   const subframe_words& w,
                   S& v)
{
    for (const auto& f : table) {
        if (f.subframe == subframe) {
            decode_field(f, w, v);
        }
    }
}

//! Mask over d1..d24 (d1 in bit 23) of the data bits one parity equation sums.
constexpr std::uint32_t parity_mask(std::initializer_list<int> bits)
{
    std::uint32_t m = 0;
    for (int b : bits) {
        m |= 1u << (24 - b);
    }
    return m;
}

// IS-GPS-200 Table 20-XIV: D25..D30, each with D29* (true) or D30* (false).
struct parity_equation {
    bool uses_d29_star;
    std::uint32_t mask;
};
constexpr parity_equation parity_equations[6] = {
    { true, parity_mask({ 1, 2, 3, 5, 6, 10, 11, 12, 13, 14, 17, 18, 20, 23 }) },
    { false, parity_mask({ 2, 3, 4, 6, 7, 11, 12, 13, 14, 15, 18, 19, 21, 24 }) },
    { true, parity_mask({ 1, 3, 4, 5, 7, 8, 12, 13, 14, 15, 16, 19, 20, 22 }) },
    { false, parity_mask({ 2, 4, 5, 6, 8, 9, 13, 14, 15, 16, 17, 20, 21, 23 }) },
    { false, parity_mask({ 1, 3, 5, 6, 7, 9, 10, 14, 15, 16, 17, 18, 21, 22, 24 }) },
    { true, parity_mask({ 3, 5, 6, 8, 9, 10, 11, 13, 15, 19, 22, 23, 24 }) },
};

unsigned popcount_parity(std::uint32_t v)
{
    unsigned p = 0;
    for (; v; v &= v - 1) {
        p ^= 1u;
    }
    return p;
}

//! Appends one word as transmitted (data inverted when D30* is 1, then parity).
void emit_word(std::uint32_t d,
               unsigned& d29,
               unsigned& d30,
               std::vector<std::uint8_t>& out)
{
    const unsigned parity = gps_lnav_parity(d, d29, d30);
    const std::uint32_t sent = (d30 ? ~d : d) & data_mask;
    for (int b = 23; b >= 0; --b) {
        out.push_back(static_cast<std::uint8_t>((sent >> b) & 1u));
    }
    for (int b = 5; b >= 0; --b) {
        out.push_back(static_cast<std::uint8_t>((parity >> b) & 1u));
    }
    d29 = (parity >> 1) & 1u;
    d30 = parity & 1u;
}

//! Bits 23 and 24 of words 2 and 10 make that word's D29 and D30 zero (20.3.5.2), so
//! the next word, the next preamble included, goes out upright.
std::uint32_t solve_parity_bits(std::uint32_t d, unsigned d29, unsigned d30)
{
    for (std::uint32_t t = 0; t < 4; ++t) {
        const std::uint32_t candidate = (d & ~3u) | t;
        if ((gps_lnav_parity(candidate, d29, d30) & 3u) == 0) {
            return candidate;
        }
    }
    throw std::logic_error(
        "gps_lnav: no parity-solving bits"); // Table 20-XIV: unreachable
}

void fill_dummy_page(subframe_words& w)
{
    for (int k = 2; k < 10; ++k) {
        w[k] = 0xAAAAAA; // alternating 1 and 0
    }
    put_bits(w, page_data_id, 1);
    put_bits(w, page_sv_id, 0);
}

subframe_words subframe_data(const gps_lnav_message& msg, int tow_s)
{
    const int id = (tow_s / 6) % 5 + 1;
    const int page = (tow_s / 30) % 25 + 1;
    subframe_words w{};
    put_bits(w, tlm_preamble, gps_lnav_preamble);
    put_bits(w, tlm_message, static_cast<std::uint32_t>(msg.tlm_message));
    put_bits(w, tlm_integrity, static_cast<std::uint32_t>(msg.integrity_status_flag));
    put_bits(w, how_tow, static_cast<std::uint32_t>((tow_s / 6 + 1) % tow_count_modulus));
    put_bits(w, how_alert, static_cast<std::uint32_t>(msg.alert_flag));
    put_bits(w, how_anti_spoof, static_cast<std::uint32_t>(msg.anti_spoof_flag));
    put_bits(w, how_subframe_id, static_cast<std::uint32_t>(id));
    if (id <= 3) {
        encode_fields(ephemeris_fields, id, msg.ephemeris, w);
    } else if (id == 4 && page == 18) {
        put_bits(w, page_data_id, 1);
        put_bits(w, page_sv_id, iono_utc_sv_id);
        encode_fields(iono_utc_fields, 4, msg.iono_utc, w);
    } else {
        fill_dummy_page(w);
    }
    return w;
}

void check_flag(const char* name, int value, int bits)
{
    if (value < 0 || value >= (1 << bits)) {
        throw std::invalid_argument(std::string("gps_lnav_encode: ") + name + " = " +
                                    std::to_string(value) + " does not fit its " +
                                    std::to_string(bits) + "-bit field");
    }
}

//! Data bits of the first \p n_words words of bits[2..) (bits[0], bits[1]: D29*, D30*
//! of the word before); returns how many of them fail their parity.
int read_words(const std::uint8_t* bits, int n_words, subframe_words& w)
{
    int failures = 0;
    unsigned d29 = bits[0], d30 = bits[1];
    for (int k = 0; k < n_words; ++k) {
        const std::uint8_t* b = bits + 2 + k * gps_lnav_word_bits;
        std::uint32_t sent = 0;
        unsigned parity = 0;
        for (int i = 0; i < 24; ++i) {
            sent = (sent << 1) | b[i];
        }
        for (int i = 24; i < 30; ++i) {
            parity = (parity << 1) | b[i];
        }
        w[k] = (d30 ? ~sent : sent) & data_mask;
        failures += gps_lnav_parity(w[k], d29, d30) != parity;
        d29 = b[28];
        d30 = b[29];
    }
    return failures;
}

bool valid_start(const subframe_words& w)
{
    const auto id = get_bits(w, how_subframe_id);
    return get_bits(w, tlm_preamble) == gps_lnav_preamble && id >= 1 && id <= 5;
}

} // namespace

unsigned gps_lnav_parity(std::uint32_t d, unsigned d29_star, unsigned d30_star)
{
    unsigned parity = 0;
    for (const auto& eq : parity_equations) {
        const unsigned star = eq.uses_d29_star ? d29_star : d30_star;
        parity = (parity << 1) | (popcount_parity(d & eq.mask) ^ (star & 1u));
    }
    return parity;
}

std::vector<std::uint8_t>
gps_lnav_encode(const gps_lnav_message& msg, int start_tow_s, int n_subframes)
{
    if (start_tow_s < 0 || start_tow_s >= 604800 || start_tow_s % 6 != 0) {
        throw std::invalid_argument(
            "gps_lnav_encode: start_tow_s = " + std::to_string(start_tow_s) +
            " must be a multiple of 6 in [0, 604800)");
    }
    if (n_subframes < 0) {
        throw std::invalid_argument(
            "gps_lnav_encode: n_subframes = " + std::to_string(n_subframes) +
            " must not be negative");
    }
    check_flag("tlm_message", msg.tlm_message, 14);
    check_flag("integrity_status_flag", msg.integrity_status_flag, 1);
    check_flag("alert_flag", msg.alert_flag, 1);
    check_flag("anti_spoof_flag", msg.anti_spoof_flag, 1);
    std::vector<std::uint8_t> out;
    out.reserve(static_cast<std::size_t>(n_subframes) * gps_lnav_subframe_bits);
    unsigned d29 = 0, d30 = 0; // as after a word 10, whose last two bits are solved to 0
    for (int k = 0; k < n_subframes; ++k) {
        subframe_words w = subframe_data(msg, (start_tow_s + 6 * k) % 604800);
        for (int i = 0; i < 10; ++i) {
            if (i == 1 || i == 9) {
                w[i] = solve_parity_bits(w[i], d29, d30);
            }
            emit_word(w[i], d29, d30, out);
        }
    }
    return out;
}

gps_lnav_counters& operator+=(gps_lnav_counters& sum, const gps_lnav_counters& c)
{
    sum.bits += c.bits;
    sum.subframes += c.subframes;
    sum.parity_failures += c.parity_failures;
    sum.discarded_subframes += c.discarded_subframes;
    sum.sync_losses += c.sync_losses;
    sum.iod_contradictions += c.iod_contradictions;
    sum.ephemerides += c.ephemerides;
    sum.iono_utc_pages += c.iono_utc_pages;
    return sum;
}

gps_lnav_decoder::gps_lnav_decoder(int prn) : d_prn(prn) {}

bool gps_lnav_decoder::push(int bit)
{
    const std::uint8_t raw = bit > 0 ? 1 : 0;
    d_bits.push_back(d_synced && d_polarity < 0 ? raw ^ 1u : raw);
    ++d_counters.bits;
    bool completed = false;
    for (;;) {
        if (!d_synced && !try_sync()) {
            return completed;
        }
        if (d_bits.size() < 2 + gps_lnav_subframe_bits) {
            return completed;
        }
        completed = take_subframe() || completed;
    }
}

//! Looks at the candidate starts not looked at yet (d_scan on); the TLM and HOW must
//! pass their parity with the preamble and a subframe ID 1..5, in either polarity.
bool gps_lnav_decoder::try_sync()
{
    constexpr std::size_t probe = 2 * gps_lnav_word_bits;
    while (d_scan + probe <= d_bits.size()) {
        for (std::uint8_t invert = 0; invert < 2; ++invert) {
            std::array<std::uint8_t, 2 + probe>
                b{}; // before the first bit: D29* = D30* = 0
            for (std::size_t i = 0; i < b.size(); ++i) {
                const std::size_t at = d_scan + i; // b[i] is d_bits[at - 2]
                b[i] = at >= 2 ? static_cast<std::uint8_t>(d_bits[at - 2] ^ invert) : 0;
            }
            subframe_words w{};
            if (read_words(b.data(), 2, w) == 0 && valid_start(w)) {
                lock(invert != 0);
                return true;
            }
        }
        ++d_scan;
    }
    if (d_scan > 2) { // keep the two bits before the next candidate
        d_bits.erase(d_bits.begin(),
                     d_bits.begin() + static_cast<std::ptrdiff_t>(d_scan - 2));
        d_scan = 2;
    }
    return false;
}

//! The buffer becomes D29*, D30* and the subframe on, corrected for polarity.
void gps_lnav_decoder::lock(bool inverted)
{
    if (inverted) {
        for (auto& b : d_bits) {
            b ^= 1u;
        }
    }
    if (d_scan >= 2) {
        d_bits.erase(d_bits.begin(),
                     d_bits.begin() + static_cast<std::ptrdiff_t>(d_scan - 2));
    } else {
        d_bits.insert(d_bits.begin(), 2 - d_scan, std::uint8_t{ 0 });
    }
    d_synced = true;
    d_polarity = inverted ? -1 : 1;
}

//! Back to the search, from the bit after the lost subframe's start.
void gps_lnav_decoder::lose_sync()
{
    if (d_polarity < 0) {
        for (auto& b : d_bits) {
            b ^= 1u;
        }
    }
    d_synced = false;
    d_scan = 3;
    ++d_counters.sync_losses;
}

bool gps_lnav_decoder::take_subframe()
{
    subframe_words w{};
    const int failures = read_words(d_bits.data(), 10, w);
    if (failures > 0) {
        d_counters.parity_failures += static_cast<std::uint64_t>(failures);
        ++d_counters.discarded_subframes;
    }
    if (!valid_start(w)) { // no preamble where the next one belongs: the sync is gone
        lose_sync();
        return false;
    }
    d_bits.erase(d_bits.begin(), d_bits.begin() + gps_lnav_subframe_bits);
    if (failures > 0) {
        return false;
    }
    ++d_counters.subframes;
    use_subframe(w);
    return true;
}

void gps_lnav_decoder::use_subframe(const std::array<std::uint32_t, 10>& w)
{
    d_header = gps_lnav_subframe_header{};
    d_words = w;
    d_header.subframe_id = static_cast<int>(get_bits(w, how_subframe_id));
    d_header.tow_count = static_cast<int>(get_bits(w, how_tow));
    d_header.tlm_message = static_cast<int>(get_bits(w, tlm_message));
    d_header.integrity_status_flag = static_cast<int>(get_bits(w, tlm_integrity));
    d_header.alert_flag = static_cast<int>(get_bits(w, how_alert));
    d_header.anti_spoof_flag = static_cast<int>(get_bits(w, how_anti_spoof));
    const int id = d_header.subframe_id;
    if (id <= 3) {
        d_frame[id - 1] = w;
        d_frame_tow[id - 1] = d_header.tow_count;
        if (id == 3) {
            assemble_ephemeris();
        }
        return;
    }
    d_header.page = static_cast<int>(get_bits(w, page_sv_id));
    if (id == 4 && d_header.page == iono_utc_sv_id && get_bits(w, page_data_id) == 1) {
        gps_iono_utc v;
        decode_fields(iono_utc_fields, 4, w, v);
        d_iono_utc = v;
        d_has_iono_utc = true;
        ++d_counters.iono_utc_pages;
    }
}

//! Subframes 1, 2, 3 of one frame (consecutive TOW counts) whose IODs agree
//! (IS-GPS-200 20.3.4.4: IODE = the 8 LSBs of IODC) replace the ephemeris.
void gps_lnav_decoder::assemble_ephemeris()
{
    const auto next = [](int a, int b) { return (a + 1) % tow_count_modulus == b; };
    const bool one_frame = d_frame_tow[0] >= 0 && next(d_frame_tow[0], d_frame_tow[1]) &&
                           next(d_frame_tow[1], d_frame_tow[2]);
    d_frame_tow = { { -1, -1, -1 } };
    if (!one_frame) {
        return;
    }
    gps_ephemeris e;
    decode_fields(ephemeris_fields, 1, d_frame[0], e);
    decode_fields(ephemeris_fields, 2, d_frame[1], e);
    const int iode2 = e.iode;
    decode_fields(ephemeris_fields, 3, d_frame[2], e);
    if (e.iode != iode2 || (e.iodc & 0xFF) != iode2) {
        ++d_counters.iod_contradictions;
        return;
    }
    e.prn = d_prn;
    d_ephemeris = e;
    d_has_ephemeris = true;
    ++d_counters.ephemerides;
}

gps_bit_sync_result gps_bit_sync(const std::vector<double>& prompt_i)
{
    std::array<int, 20> changes{};
    gps_bit_sync_result r;
    for (std::size_t k = 1; k < prompt_i.size(); ++k) {
        if ((prompt_i[k] >= 0.0) != (prompt_i[k - 1] >= 0.0)) {
            ++changes[k % 20]; // a bit starts at k
            ++r.total_changes;
        }
    }
    for (int phase = 0; phase < 20; ++phase) {
        if (changes[phase] > r.edge_changes) {
            r.edge_changes = changes[phase];
            r.edge_ms = phase;
        }
    }
    return r;
}

std::vector<int> gps_bits_from_prompt(const std::vector<double>& prompt_i, int edge_ms)
{
    if (edge_ms < 0 || edge_ms >= 20) {
        throw std::invalid_argument("gps_bits_from_prompt: edge_ms = " +
                                    std::to_string(edge_ms) + " must lie in 0..19");
    }
    std::vector<int> bits;
    for (std::size_t k = static_cast<std::size_t>(edge_ms); k + 20 <= prompt_i.size();
         k += 20) {
        double sum = 0.0;
        for (std::size_t i = k; i < k + 20; ++i) {
            sum += prompt_i[i];
        }
        bits.push_back(sum >= 0.0 ? 1 : -1);
    }
    return bits;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
