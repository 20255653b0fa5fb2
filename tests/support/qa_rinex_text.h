/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_RINEX_TEXT_H
#define INCLUDED_CUDADSP_QA_RINEX_TEXT_H

// Reading RINEX text back in the tests, by the format tables' columns and apart from
// the writers: lines, Fortran numbers, header records by label.

#include <cppunit/extensions/HelperMacros.h>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

inline std::vector<std::string> lines_of(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

//! A Fortran D or E number as C reads it.
inline double fortran_number(const std::string& text)
{
    std::string t = text;
    for (char& c : t)
        if (c == 'D')
            c = 'E';
    return std::strtod(t.c_str(), nullptr);
}

//! The header line whose label (columns 61-80) is \p label.
inline std::string header_record(const std::vector<std::string>& lines,
                                 const std::string& label)
{
    for (const auto& line : lines)
        if (line.size() > 60 && line.substr(60) == label)
            return line;
    CPPUNIT_FAIL("no header line " + label);
    return "";
}

//! The index of the line after "END OF HEADER".
inline std::size_t first_record_line(const std::vector<std::string>& lines)
{
    for (std::size_t k = 0; k < lines.size(); ++k)
        if (lines[k].size() > 60 && lines[k].substr(60, 13) == "END OF HEADER")
            return k + 1;
    CPPUNIT_FAIL("no END OF HEADER");
    return lines.size();
}

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_RINEX_TEXT_H */
