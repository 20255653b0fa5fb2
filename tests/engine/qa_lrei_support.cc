/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_lrei: the permutation helpers its cases share (declared in qa_lrei.h).

#include "qa_lrei.h"
#include <algorithm>

namespace gr {
namespace cudadsp {
namespace core {

bool is_permutation_reference(const std::vector<std::size_t>& v)
{
    std::vector<std::size_t> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i)
        if (sorted[i] != i)
            return false;
    return true;
}

std::vector<std::size_t> random_permutation(std::size_t n, qa::gaussian_source& rng)
{
    std::vector<std::size_t> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = i;
    for (std::size_t i = n; i > 1; --i)
        std::swap(v[i - 1], v[static_cast<std::size_t>(rng.integer(0, long(i) - 1))]);
    return v;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
