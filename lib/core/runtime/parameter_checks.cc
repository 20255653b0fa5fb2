/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/parameter_checks.h"
#include "runtime/quoted_text.h"
#include <cmath>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

void parameter_error(const std::string& field,
                     const std::string& rule,
                     double value,
                     int significant_digits)
{
    throw std::invalid_argument(field + ": must be " + rule + ", got " +
                                number_text(value, significant_digits));
}

void require_finite(double value, const std::string& field, int significant_digits)
{
    if (!std::isfinite(value))
        parameter_error(field, "finite", value, significant_digits);
}

void require_positive(double value, const std::string& field, int significant_digits)
{
    if (!std::isfinite(value) || !(value > 0.0))
        parameter_error(field, "finite and > 0", value, significant_digits);
}

void require_non_negative(double value, const std::string& field, int significant_digits)
{
    if (!std::isfinite(value) || value < 0.0)
        parameter_error(field, "finite and >= 0", value, significant_digits);
}

void require_within(double value,
                    double lo,
                    double hi,
                    const std::string& field,
                    const std::string& unit,
                    const std::string& why)
{
    if (!(value >= lo && value <= hi))
        parameter_error(field,
                        "from " + number_text(lo) + " to " + number_text(hi) + " " +
                            unit + " (" + why + ")",
                        value);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
