/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/galileo_inav_fec.h"
#include <limits>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr int interleaver_columns = 30;
constexpr int interleaver_rows = 8;
constexpr int states = 64; // 2^(K - 1), K = 7
// 4.1.4.1: the generators over (input, D1, ..., D6), the input the highest bit.
constexpr unsigned g1 = 0171;
constexpr unsigned g2 = 0133;
constexpr std::uint32_t crc24q_generator = 0x1864CFB;

unsigned parity(unsigned v)
{
    unsigned p = 0;
    for (; v; v &= v - 1) {
        p ^= 1u;
    }
    return p;
}

//! The two coded symbols (G1's in bit 1, G2's inverted in bit 0) leaving the encoder
//! when \p bit enters with the six previous bits \p state (D1 the highest).
unsigned branch_symbols(unsigned state, unsigned bit)
{
    const unsigned reg = (bit << 6) | state;
    return (parity(reg & g1) << 1) | (parity(reg & g2) ^ 1u);
}

} // namespace

std::array<double, galileo_inav_coded_symbols>
galileo_inav_deinterleave(const double* received)
{
    std::array<double, galileo_inav_coded_symbols> coded{};
    for (int r = 0; r < interleaver_rows; ++r) {
        for (int c = 0; c < interleaver_columns; ++c) {
            coded[c * interleaver_rows + r] = received[r * interleaver_columns + c];
        }
    }
    return coded;
}

std::array<std::uint8_t, galileo_inav_part_bits>
galileo_inav_viterbi(const std::array<double, galileo_inav_coded_symbols>& symbols)
{
    // Path metric: the correlation of the received soft symbols with the path's coded
    // symbols mapped to +-1; the largest is the most likely path. An erasure (0) adds
    // nothing to any path.
    constexpr double unreachable = -std::numeric_limits<double>::infinity();
    std::array<double, states> metric;
    metric.fill(unreachable);
    metric[0] = 0.0;
    // decision[k][s]: the oldest bit (D6) of the predecessor of state s at step k.
    std::array<std::array<std::uint8_t, states>, galileo_inav_part_bits> decision{};
    for (int k = 0; k < galileo_inav_part_bits; ++k) {
        const double y1 = symbols[2 * k];
        const double y2 = symbols[2 * k + 1];
        std::array<double, states> next;
        next.fill(unreachable);
        for (unsigned s = 0; s < states; ++s) {
            if (metric[s] == unreachable) {
                continue;
            }
            // The tail: the last six inputs are zeros, the trellis ends in state 0.
            const unsigned last_bit = k < galileo_inav_part_bits - galileo_inav_tail_bits;
            for (unsigned bit = 0; bit <= last_bit; ++bit) {
                const unsigned out = branch_symbols(s, bit);
                const double m =
                    metric[s] + ((out & 2u) ? y1 : -y1) + ((out & 1u) ? y2 : -y2);
                const unsigned to = (bit << 5) | (s >> 1);
                if (m > next[to]) {
                    next[to] = m;
                    decision[k][to] = static_cast<std::uint8_t>(s & 1u);
                }
            }
        }
        metric = next;
    }
    std::array<std::uint8_t, galileo_inav_part_bits> bits{};
    unsigned s = 0;
    for (int k = galileo_inav_part_bits - 1; k >= 0; --k) {
        bits[k] = static_cast<std::uint8_t>(s >> 5); // the bit that entered at step k
        s = ((s << 1) & (states - 1)) | decision[k][s];
    }
    return bits;
}

std::uint32_t galileo_crc24q(const std::uint8_t* bits, std::size_t n)
{
    std::uint32_t reg = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t feedback = ((reg >> 23) & 1u) ^ (bits[i] & 1u);
        reg = (reg << 1) & 0xFFFFFF;
        if (feedback) {
            reg ^= crc24q_generator & 0xFFFFFF;
        }
    }
    return reg;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
