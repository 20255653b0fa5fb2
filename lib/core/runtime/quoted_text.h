/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_RUNTIME_QUOTED_TEXT_H
#define INCLUDED_CUDADSP_CORE_RUNTIME_QUOTED_TEXT_H

// A caller's value as error messages show it. A string, whatever it holds (a name from
// Python, GRC or a message), stays one short printable line; a number is written as
// std::ostream writes it (6 significant digits unless asked for more).

#include <cstddef>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! Longest text of a caller's value in an error message.
constexpr std::size_t max_quoted_text = 80;

/*!
 * \p text in double quotes, '"' and '\' escaped with '\', C0 control bytes and DEL
 * written as \xNN, cut after max_quoted_text bytes of output (the quotes close it).
 */
std::string quoted_text(const std::string& text);

//! \p value with \p significant_digits (std::ostream's default notation: 1e+12, nan,
//! inf).
std::string number_text(double value, int significant_digits = 6);

//! Integers in order as "a, b, c"; an ascending run of three or more as "a .. b";
//! "none" when empty.
std::string integers_text(const std::vector<int>& values);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_RUNTIME_QUOTED_TEXT_H */
