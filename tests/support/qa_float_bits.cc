/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_float_bits.h"
#include <cppunit/TestAssert.h>
#include <cmath>
#include <cstring>
#include <sstream>

namespace gr {
namespace cudadsp {
namespace qa {

float poison_nan()
{
    float f;
    std::memcpy(&f, &poison_nan_bits, sizeof f);
    return f;
}

std::uint32_t bits_of(float f)
{
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

bool poisoned(float f) { return bits_of(f) == poison_nan_bits; }

bool same_bits_or_nan(float a, float b)
{
    return (std::isnan(a) && std::isnan(b)) || bits_of(a) == bits_of(b);
}

void assert_same_floats(const std::vector<float>& expected,
                        const std::vector<float>& got,
                        std::size_t per_record,
                        const std::string& what,
                        const std::string& record_word,
                        const std::string& element_word)
{
    CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": " + record_word + "s",
                                 expected.size() / per_record,
                                 got.size() / per_record);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": items", expected.size(), got.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!same_bits_or_nan(expected[i], got[i])) {
            std::ostringstream msg;
            msg.precision(9);
            msg << what << ": " << record_word << " " << i / per_record << " "
                << element_word << " " << i % per_record << ": engine " << expected[i]
                << ", block " << got[i];
            CPPUNIT_FAIL(msg.str());
        }
}

} // namespace qa
} // namespace cudadsp
} // namespace gr
