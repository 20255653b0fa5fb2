/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "printable.h"
#include <cstdio>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {

void append_escaped(std::string& out, unsigned char byte)
{
    char hex[5];
    std::snprintf(hex, sizeof hex, "\\x%02x", byte);
    out += hex;
}

// Length of the valid UTF-8 sequence (not a C1 control) starting at s[i], or 0.
std::size_t utf8_sequence(const std::string& s, std::size_t i)
{
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b = at(i);
    std::size_t n = 0;
    unsigned min = 0;
    unsigned cp = 0;
    if (b >= 0xc2 && b <= 0xdf) {
        n = 2;
        cp = b & 0x1fu;
        min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
        n = 3;
        cp = b & 0x0fu;
        min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
        n = 4;
        cp = b & 0x07u;
        min = 0x10000;
    } else
        return 0;
    if (i + n > s.size())
        return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((at(i + k) & 0xc0u) != 0x80u)
            return 0;
        cp = (cp << 6) | (at(i + k) & 0x3fu);
    }
    const bool surrogate = cp >= 0xd800 && cp <= 0xdfff;
    const bool c1_control = cp >= 0x80 && cp <= 0x9f;
    if (cp < min || cp > 0x10ffff || surrogate || c1_control)
        return 0;
    return n;
}

} // namespace

std::string printable(const std::string& text)
{
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const auto b = static_cast<unsigned char>(text[i]);
        if (b >= 0x20 && b < 0x7f) {
            out += text[i++];
            continue;
        }
        const std::size_t n = b >= 0x80 ? utf8_sequence(text, i) : 0;
        if (n > 0) {
            out.append(text, i, n);
            i += n;
        } else {
            append_escaped(out, b);
            ++i;
        }
    }
    return out;
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
