/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_RUNTIME_PARAMETER_CHECKS_H
#define INCLUDED_CUDADSP_CORE_RUNTIME_PARAMETER_CHECKS_H

// The checks that engine configurations share for numeric parameters, with the
// module's one form of error text: "<field>: must be <rule>, got <value>", the value
// written by number_text() with \p significant_digits.

#include <string>

namespace gr {
namespace cudadsp {
namespace core {

//! Throws std::invalid_argument "<field>: must be <rule>, got <value>".
[[noreturn]] void parameter_error(const std::string& field,
                                  const std::string& rule,
                                  double value,
                                  int significant_digits = 6);

//! \p value must be finite.
void require_finite(double value, const std::string& field, int significant_digits = 6);

//! \p value must be finite and > 0.
void require_positive(double value, const std::string& field, int significant_digits = 6);

//! \p value must be finite and >= 0.
void require_non_negative(double value,
                          const std::string& field,
                          int significant_digits = 6);

//! \p value must lie in [lo, hi]: "<field>: must be from <lo> to <hi> <unit> (<why>),
//! got <value>" otherwise (NaN fails).
void require_within(double value,
                    double lo,
                    double hi,
                    const std::string& field,
                    const std::string& unit,
                    const std::string& why);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_RUNTIME_PARAMETER_CHECKS_H */
