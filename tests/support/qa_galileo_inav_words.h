/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_GALILEO_INAV_WORDS_H
#define INCLUDED_CUDADSP_QA_GALILEO_INAV_WORDS_H

// The I/NAV words the decoder's tests (qa_galileo_inav) and the channel's
// (qa_galileo_navigation_channel) send: known transmitted integers of every field, the
// library's encoder (gnss/galileo_inav_encoder.h, written from the ICD apart from the
// decoder) turning them into words and page symbols, and the check of every decoded
// field against the integers sent, count x LSB as the ICD's tables give them.

#include "gnss/galileo_inav.h"
#include <array>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

using bits_t = std::vector<int>;

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

//! Word \p type (0 to 6) with the values \p v (word 0 states tow0, 5 tow5, 6 tow6).
bits_t word_of_type(int type, const word_values& v);

enum class damage { none, crc_field };

//! The nominal page carrying \p w, 500 symbols, logic 1 as +1 (the decoder's
//! convention); damage::crc_field makes two bits of its CRC wrong before the FEC.
std::vector<double>
page_symbols(const bits_t& w, damage d = damage::none, int page_type = 0);

//! Every field of words 1 to 6 the decoder holds against the integers \p v sent, each
//! count x LSB exactly.
void check_every_field(const core::galileo_inav_decoder& dec, const word_values& v);

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_GALILEO_INAV_WORDS_H */
