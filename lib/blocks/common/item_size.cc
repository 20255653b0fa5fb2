/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/item_size.h"
#include <limits>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {

std::int64_t max_item_elements(std::size_t element_bytes)
{
    return std::numeric_limits<int>::max() / static_cast<std::int64_t>(element_bytes);
}

int checked_item_size(const char* parameter,
                      std::int64_t count,
                      std::size_t element_bytes)
{
    const std::int64_t most = max_item_elements(element_bytes);
    if (count < 1 || count > most)
        throw std::invalid_argument(
            std::string(parameter) + ": must be 1 to " + std::to_string(most) +
            " (one item of " + std::to_string(element_bytes) +
            "-byte values must fit GNU Radio's item size, an int of bytes), got " +
            std::to_string(count));
    return static_cast<int>(count * static_cast<std::int64_t>(element_bytes));
}

} // namespace cudadsp
} // namespace gr
