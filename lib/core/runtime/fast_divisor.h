/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_FAST_DIVISOR_H
#define INCLUDED_CUDADSP_CORE_FAST_DIVISOR_H

// No standard header: NVRTC programs include this one too (embed_text.cmake).
#include "runtime/host_device.h"

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * Division by a divisor fixed at run time, d in [1, 2^31], of any n < 2^31, as one wide
 * multiply and a shift: quotient(n) = (n m) >> s with l = ceil(log2 d), s = 31 + l and
 * m = ceil(2^s / d), which is below 2^32. Exact: with m = 2^s / d + e, 0 <= e < 1,
 * n m / 2^s = n / d + n e / 2^s, and n e / 2^s < 2^31 / 2^(31 + l) <= 1 / d is too
 * little to reach the next multiple of d. For code that divides in every element of a
 * large array (a 32-bit division by a run-time value is some twenty instructions).
 */
struct fast_divisor {
    unsigned int divisor;
    unsigned int magic;
    unsigned int shift;

    //! n / divisor for n < 2^31.
    CUDADSP_HOST_DEVICE unsigned int quotient(unsigned int n) const
    {
        return static_cast<unsigned int>((static_cast<unsigned long long>(n) * magic) >>
                                         shift);
    }
};

//! The fast_divisor of \p d, 1 <= d <= 2^31 (not checked).
CUDADSP_HOST_DEVICE fast_divisor make_fast_divisor(unsigned int d)
{
    unsigned int l = 0;
    while ((1ull << l) < d)
        ++l;
    const unsigned int s = 31 + l;
    fast_divisor f;
    f.divisor = d;
    f.magic = static_cast<unsigned int>(((1ull << s) + d - 1) / d);
    f.shift = s;
    return f;
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_FAST_DIVISOR_H */
