/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_RUNTIME_PRINTF_TEXT_H
#define INCLUDED_CUDADSP_CORE_RUNTIME_PRINTF_TEXT_H

#include <string>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * The text std::snprintf() makes of \p pattern and its arguments, whatever its length:
 * for the fixed-column records of file formats (RINEX, NMEA) that are specified as
 * Fortran/C formats, where the format string is the clearest statement of the column.
 */
std::string printf_text(const char* pattern, ...) __attribute__((format(printf, 1, 2)));

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_RUNTIME_PRINTF_TEXT_H */
