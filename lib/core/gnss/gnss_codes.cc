/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "galileo_e1_primary_codes_lines.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <array>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

std::int8_t chip_of_bit(unsigned bit) { return bit ? std::int8_t(-1) : std::int8_t(1); }

int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

//! Both components' codes, E1-B first: element p - 1 is PRN p, empty where absent.
using galileo_table = std::array<std::vector<std::vector<std::int8_t>>, 2>;

std::size_t table_index(galileo_e1_component component)
{
    return component == galileo_e1_component::b ? 0 : 1;
}

/*!
 * Adds one line of a code table in the format of load_galileo_e1_codes() to \p codes;
 * \p source names the table in messages ("Galileo E1 code file PATH").
 */
void parse_galileo_line(std::string line,
                        std::size_t number,
                        const std::string& source,
                        galileo_table& codes)
{
    const std::string::size_type hash = line.find('#');
    if (hash != std::string::npos)
        line.erase(hash);
    std::istringstream fields(line);
    std::string component, prn_text, hex, extra;
    if (!(fields >> component))
        return; // blank or comment-only
    const std::string where = source + " line " + std::to_string(number) + ": ";
    if (!(fields >> prn_text >> hex) || (fields >> extra))
        throw std::runtime_error(where + "expected \"E1B|E1C PRN HEX\"");
    std::size_t index;
    if (component == "E1B")
        index = table_index(galileo_e1_component::b);
    else if (component == "E1C")
        index = table_index(galileo_e1_component::c);
    else
        throw std::runtime_error(where + "component must be E1B or E1C, got \"" +
                                 component + "\"");
    char* end = nullptr;
    const long prn = std::strtol(prn_text.c_str(), &end, 10);
    if (prn_text.empty() || *end != '\0' || prn < 1 || prn > galileo_e1_prn_count)
        throw std::runtime_error(where + "PRN must be 1 to 50, got \"" + prn_text + "\"");
    if (hex.size() != galileo_e1_code_length / 4)
        throw std::runtime_error(where + "expected 1023 hex digits, got " +
                                 std::to_string(hex.size()));
    std::vector<std::int8_t>& code = codes[index][prn - 1];
    if (!code.empty())
        throw std::runtime_error(where + component + " PRN " + prn_text +
                                 " appears twice");
    code.reserve(galileo_e1_code_length);
    for (char c : hex) {
        const int v = hex_value(c);
        if (v < 0)
            throw std::runtime_error(where + "'" + std::string(1, c) +
                                     "' is not a hex digit");
        for (int bit = 3; bit >= 0; --bit)
            code.push_back(chip_of_bit((v >> bit) & 1));
    }
}

galileo_table empty_galileo_table()
{
    galileo_table codes;
    for (auto& component : codes)
        component.resize(galileo_e1_prn_count);
    return codes;
}

/*!
 * The ICD's codes, compiled into the library from share/gnss/galileo_e1_primary_codes.txt
 * (one string per line, see lib/core/CMakeLists.txt) and parsed on first use, so the
 * library finds them wherever it is installed or copied.
 */
const galileo_table& embedded_galileo_table()
{
    static const galileo_table table = [] {
        galileo_table codes = empty_galileo_table();
        std::size_t number = 0;
        for (const char* line : galileo_e1_primary_codes_txt_lines)
            parse_galileo_line(
                line, ++number, "the embedded Galileo E1 code table", codes);
        for (const auto& component : codes)
            for (const auto& code : component)
                if (code.empty())
                    throw std::logic_error(
                        "the embedded Galileo E1 code table lacks a PRN: the build "
                        "embedded an incomplete share/gnss/galileo_e1_primary_codes.txt");
        return codes;
    }();
    return table;
}

} // namespace

std::vector<std::int8_t> gps_l1ca_code(int prn)
{
    // IS-GPS-200 Table 3-Ia: the two G2 stages (1-based) whose sum is G2i.
    static const int selector[32][2] = {
        { 2, 6 }, { 3, 7 },  { 4, 8 }, { 5, 9 }, { 1, 9 }, { 2, 10 }, { 1, 8 },
        { 2, 9 }, { 3, 10 }, { 2, 3 }, { 3, 4 }, { 5, 6 }, { 6, 7 },  { 7, 8 },
        { 8, 9 }, { 9, 10 }, { 1, 4 }, { 2, 5 }, { 3, 6 }, { 4, 7 },  { 5, 8 },
        { 6, 9 }, { 1, 3 },  { 4, 6 }, { 5, 7 }, { 6, 8 }, { 7, 9 },  { 8, 10 },
        { 1, 6 }, { 2, 7 },  { 3, 8 }, { 4, 9 }
    };
    if (prn < 1 || prn > 32)
        throw std::invalid_argument("prn: must be 1 to 32 for GPS L1 C/A, got " +
                                    std::to_string(prn));
    // Bit k of a register word is stage k + 1; stage 1 receives the feedback.
    unsigned g1 = 0x3ff, g2 = 0x3ff;
    const int s1 = selector[prn - 1][0] - 1, s2 = selector[prn - 1][1] - 1;
    std::vector<std::int8_t> code(gps_l1ca_code_length);
    for (int i = 0; i < gps_l1ca_code_length; ++i) {
        const unsigned g2i = ((g2 >> s1) ^ (g2 >> s2)) & 1u;
        code[i] = chip_of_bit(((g1 >> 9) ^ g2i) & 1u);
        const unsigned f1 = ((g1 >> 2) ^ (g1 >> 9)) & 1u;
        const unsigned f2 =
            ((g2 >> 1) ^ (g2 >> 2) ^ (g2 >> 5) ^ (g2 >> 7) ^ (g2 >> 8) ^ (g2 >> 9)) & 1u;
        g1 = ((g1 << 1) | f1) & 0x3ffu;
        g2 = ((g2 << 1) | f2) & 0x3ffu;
    }
    return code;
}

std::vector<std::int8_t> glonass_l1of_code()
{
    unsigned reg = 0x1ff; // bit k is stage k + 1
    std::vector<std::int8_t> code(glonass_l1of_code_length);
    for (int i = 0; i < glonass_l1of_code_length; ++i) {
        code[i] = chip_of_bit((reg >> 6) & 1u);
        const unsigned feedback = ((reg >> 4) ^ (reg >> 8)) & 1u;
        reg = ((reg << 1) | feedback) & 0x1ffu;
    }
    return code;
}

std::vector<std::vector<std::int8_t>>
load_galileo_e1_codes(const std::string& file, galileo_e1_component component)
{
    std::ifstream in(file);
    if (!in)
        throw std::runtime_error("Galileo E1 code file " + file + ": cannot be opened");
    galileo_table codes = empty_galileo_table();
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number)
        parse_galileo_line(line, number, "Galileo E1 code file " + file, codes);
    return std::move(codes[table_index(component)]);
}

std::vector<std::int8_t> galileo_e1_code(int prn, galileo_e1_component component)
{
    if (prn < 1 || prn > galileo_e1_prn_count)
        throw std::invalid_argument("prn: must be 1 to 50 for Galileo E1, got " +
                                    std::to_string(prn));
    return embedded_galileo_table()[table_index(component)][prn - 1];
}

std::vector<std::int8_t> boc11_expand(const std::vector<std::int8_t>& chips)
{
    std::vector<std::int8_t> table;
    table.reserve(2 * chips.size());
    for (std::int8_t c : chips) {
        table.push_back(c);
        table.push_back(static_cast<std::int8_t>(-c));
    }
    return table;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
