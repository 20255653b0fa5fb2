/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_GALILEO_INAV_ENCODER_H
#define INCLUDED_CUDADSP_QA_GALILEO_INAV_ENCODER_H

// An E1-B I/NAV encoder written from the OS SIS ICD Issue 2.0, independent of the
// decoder under test, shared by the decoder's tests (qa_galileo_inav) and the channel's
// (qa_galileo_navigation_channel): the word layouts of 4.3.5 restated field by field,
// the CRC-24Q as polynomial division, the K = 7 convolutional encoder as a shift
// register with the taps of 171 and 133 octal and G2 inverted, the 30 x 8 block
// interleaver written by columns and read by rows, the sync pattern and the page parts
// of 4.3.2; and the check of every decoded field against the integers sent.

#include "gnss/galileo_inav.h"
#include <initializer_list>
#include <array>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

using bits_t = std::vector<int>;

//! A field of a word as the ICD's tables list it: width and the transmitted integer
//! (two's complement when negative).
struct field {
    int width;
    long long count;
};

//! A 128-bit word: the 6-bit type, then \p fields in order.
bits_t word(int type, std::initializer_list<field> fields);

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

//! Word \p type (0 to 6; any other gives word 6) with the values \p v.
bits_t word_of_type(int type, const word_values& v);

//! CRC-24Q as the remainder of M(x) x^24 divided by the generator (5.1.9.4).
std::uint32_t crc_by_division(const bits_t& message);
//! 4.1.4: rate 1/2, K = 7, from the zero state; G1's symbol first, G2's inverted.
bits_t convolutional_encode(const bits_t& bits);
//! 4.1.4.2: written into 30 columns of 8, read out by the 8 rows.
bits_t interleave(const bits_t& coded);
//! One page part's 250 symbols, logic 1 as +1 (the decoder's convention).
std::vector<double> part_symbols(const bits_t& part);

enum class damage { none, crc_field };

//! A nominal page (4.3.2.1), 500 symbols, logic 1 as +1: even part (0, page type,
//! data j, tail) and odd part (1, page type, data k, OSNMA, SAR, spare, CRC, SSP,
//! tail).
std::vector<double>
page_symbols(const bits_t& w, damage d = damage::none, int page_type = 0);

//! Every field of words 1 to 6 the decoder holds against the integers \p v sent, each
//! count x LSB exactly.
void check_every_field(const core::galileo_inav_decoder& dec, const word_values& v);

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_GALILEO_INAV_ENCODER_H */
