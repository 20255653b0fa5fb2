/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_RUNTIME_QUOTED_TEXT_H
#define INCLUDED_CUDADSP_CORE_RUNTIME_QUOTED_TEXT_H

// A caller's string as error messages show it: whatever it holds (a name from Python,
// GRC or a message), the message stays one short printable line.

#include <cstddef>
#include <string>

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

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_RUNTIME_QUOTED_TEXT_H */
