/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_NMEA_TEXT_H
#define INCLUDED_CUDADSP_QA_NMEA_TEXT_H

// Reading NMEA 0183 sentences back in the tests, apart from the writers: the framing
// ("$", "*", two hex digits, CR LF), the checksum recomputed here, the fields.

#include <cppunit/extensions/HelperMacros.h>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

//! "$" body "*" checksum "\r\n", the XOR of the body computed here.
inline std::string sentence_of(const std::string& body)
{
    unsigned sum = 0;
    for (char c : body)
        sum ^= static_cast<unsigned char>(c);
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02X", sum);
    return "$" + body + "*" + hex + "\r\n";
}

/*!
 * The comma-separated fields of \p sentence, the address field ("GPGSA") first, after
 * checking its framing and that its checksum is the XOR of the characters between "$"
 * and "*".
 */
inline std::vector<std::string> nmea_fields(const std::string& sentence)
{
    CPPUNIT_ASSERT_MESSAGE(sentence, sentence.size() > 6 && sentence[0] == '$');
    const std::string body = sentence.substr(1, sentence.size() - 6);
    CPPUNIT_ASSERT_EQUAL(sentence_of(body), sentence);
    std::vector<std::string> fields;
    std::istringstream in(body);
    for (std::string field; std::getline(in, field, ',');)
        fields.push_back(field);
    if (body.back() == ',')
        fields.emplace_back();
    return fields;
}

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_NMEA_TEXT_H */
