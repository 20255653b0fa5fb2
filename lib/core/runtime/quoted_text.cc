/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/quoted_text.h"
#include <sstream>

namespace gr {
namespace cudadsp {
namespace core {

std::string quoted_text(const std::string& text)
{
    static const char hex[] = "0123456789abcdef";
    std::string out = "\"";
    for (const char c : text) {
        if (out.size() > max_quoted_text)
            break;
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            out += "\\x";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            if (c == '"' || c == '\\')
                out += '\\';
            out += c;
        }
    }
    return out + "\"";
}

std::string number_text(double value, int significant_digits)
{
    std::ostringstream text;
    text.precision(significant_digits);
    text << value;
    return text.str();
}

std::string integers_text(const std::vector<int>& values)
{
    if (values.empty())
        return "none";
    const bool run =
        values.size() > 2 &&
        static_cast<std::size_t>(values.back() - values.front()) + 1 == values.size();
    if (run)
        return std::to_string(values.front()) + " .. " + std::to_string(values.back());
    std::string text;
    for (const int v : values)
        text += (text.empty() ? "" : ", ") + std::to_string(v);
    return text;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
