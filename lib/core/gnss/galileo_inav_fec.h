/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The channel coding of a Galileo E1-B I/NAV page part at reception (OS SIS ICD Issue
// 2.0: 4.1.4 convolutional coding and block interleaving, 4.1.5 page processing at
// reception, 4.3.2 the I/NAV page part) and the CRC-24Q that protects a nominal page
// (5.1.9.4): deinterleaving, soft-decision Viterbi decoding and the checksum.
// galileo_inav.h drives them; docs/design/galileo_inav.md has the sources.

#ifndef INCLUDED_CUDADSP_CORE_GALILEO_INAV_FEC_H
#define INCLUDED_CUDADSP_CORE_GALILEO_INAV_FEC_H

#include <gnuradio/cudadsp/core/api.h>
#include <array>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace core {

//! A page part on E1-B: 10 synchronisation symbols then 240 coded symbols (1 s).
constexpr int galileo_inav_sync_symbols = 10;
constexpr int galileo_inav_coded_symbols = 240;
constexpr int galileo_inav_part_symbols = 250;
//! 120 bits a part: 114 data bits and 6 zero tail bits.
constexpr int galileo_inav_part_bits = 120;
constexpr int galileo_inav_tail_bits = 6;
//! The synchronisation pattern 0101100000, first transmitted symbol first (4.1.4).
constexpr std::array<std::uint8_t, 10> galileo_inav_sync_pattern{
    { 0, 1, 0, 1, 1, 0, 0, 0, 0, 0 }
};

/*!
 * \brief Undoes the block interleaver of 4.1.4.2 for I/NAV: the 240 coded symbols were
 * written into 30 columns of 8 and read out by the 8 rows of 30, so the received symbol
 * r * 30 + c is the coded symbol c * 8 + r.
 */
CUDADSP_CORE_API std::array<double, galileo_inav_coded_symbols>
galileo_inav_deinterleave(const double* received);

/*!
 * \brief Maximum-likelihood decoding of one page part's 240 coded symbols (the rate-1/2,
 * K = 7 code of 4.1.4.1: G1 = 171, G2 = 133 octal, the G2 output inverted, G1's symbol
 * first), the trellis starting and ending in the zero state (the tail bits).
 *
 * Soft symbols: positive means coded 1, the magnitude the confidence, 0 an erasure.
 * Returns the 120 bits (0/1), the last six the tail (zero by construction).
 */
CUDADSP_CORE_API std::array<std::uint8_t, galileo_inav_part_bits>
galileo_inav_viterbi(const std::array<double, galileo_inav_coded_symbols>& symbols);

/*!
 * \brief CRC-24Q (generator 0x1864CFB, register starting at 0, no final XOR) of \p n
 * bits, one 0/1 value a byte, the first bit the polynomial's highest term.
 */
CUDADSP_CORE_API std::uint32_t galileo_crc24q(const std::uint8_t* bits, std::size_t n);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GALILEO_INAV_FEC_H */
