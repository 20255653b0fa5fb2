/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "printf_text.h"
#include <cstdarg>
#include <cstdio>

namespace gr {
namespace cudadsp {
namespace core {

std::string printf_text(const char* pattern, ...)
{
    va_list args;
    va_start(args, pattern);
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, pattern, args);
    va_end(args);
    std::string text(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
    if (n > 0)
        std::vsnprintf(&text[0], text.size() + 1, pattern, again);
    va_end(again);
    return text;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
