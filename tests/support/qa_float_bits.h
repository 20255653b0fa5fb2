/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_FLOAT_BITS_H
#define INCLUDED_CUDADSP_QA_FLOAT_BITS_H

// float32 outputs compared by their bits: the poison NaN that marks elements an engine
// or block never wrote, and bit equality where NaN is a legitimate output.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

//! The bits of poison_nan(): a NaN payload no arithmetic produces.
constexpr std::uint32_t poison_nan_bits = 0x7fbadbadu;

/*! A NaN to fill outputs with before a call: an output that is legitimately NaN
 *  (censored, invalid) has the default payload, one left unwritten keeps this one. */
float poison_nan();

std::uint32_t bits_of(float f);

//! \p f still holds poison_nan().
bool poisoned(float f);

//! The same bits, or both NaN (whatever their payloads).
bool same_bits_or_nan(float a, float b);

/*!
 * Asserts that \p got is \p expected, element by element by same_bits_or_nan(): what a
 * block must output when it wraps an engine. Both hold records of \p per_record floats;
 * a failure names the record and the element in the caller's words (\p record_word,
 * \p element_word: "radial", "gate").
 */
void assert_same_floats(const std::vector<float>& expected,
                        const std::vector<float>& got,
                        std::size_t per_record,
                        const std::string& what,
                        const std::string& record_word = "frame",
                        const std::string& element_word = "element");

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_FLOAT_BITS_H */
