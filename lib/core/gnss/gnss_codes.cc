/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <array>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <utility>

#ifndef CUDADSP_GNSS_CODES_INSTALL_DIR
#error "CUDADSP_GNSS_CODES_INSTALL_DIR must be defined by the build"
#endif
#ifndef CUDADSP_GNSS_CODES_SOURCE_DIR
#error "CUDADSP_GNSS_CODES_SOURCE_DIR must be defined by the build"
#endif

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr const char* galileo_e1_file_name = "galileo_e1_primary_codes.txt";

std::int8_t chip_of_bit(unsigned bit) { return bit ? std::int8_t(-1) : std::int8_t(1); }

bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

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

using galileo_file_codes = std::array<std::vector<std::vector<std::int8_t>>, 2>;

galileo_file_codes parse_galileo_file(const std::string& file)
{
    std::ifstream in(file);
    if (!in)
        throw std::runtime_error("Galileo E1 code file " + file + ": cannot be opened");
    galileo_file_codes codes;
    for (auto& component : codes)
        component.resize(galileo_e1_prn_count);
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        const std::string::size_type hash = line.find('#');
        if (hash != std::string::npos)
            line.erase(hash);
        std::istringstream fields(line);
        std::string component, prn_text, hex, extra;
        if (!(fields >> component))
            continue; // blank or comment-only
        const std::string where =
            "Galileo E1 code file " + file + " line " + std::to_string(number) + ": ";
        if (!(fields >> prn_text >> hex) || (fields >> extra))
            throw std::runtime_error(where + "expected \"E1B|E1C PRN HEX\"");
        int index;
        if (component == "E1B")
            index = 0;
        else if (component == "E1C")
            index = 1;
        else
            throw std::runtime_error(where + "component must be E1B or E1C, got \"" +
                                     component + "\"");
        char* end = nullptr;
        const long prn = std::strtol(prn_text.c_str(), &end, 10);
        if (prn_text.empty() || *end != '\0' || prn < 1 || prn > galileo_e1_prn_count)
            throw std::runtime_error(where + "PRN must be 1 to 50, got \"" + prn_text +
                                     "\"");
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
    return codes;
}

const galileo_file_codes& cached_galileo_file(const std::string& file)
{
    static std::mutex lock;
    static std::map<std::string, galileo_file_codes> cache;
    std::lock_guard<std::mutex> guard(lock);
    auto it = cache.find(file);
    if (it == cache.end())
        it = cache.emplace(file, parse_galileo_file(file)).first;
    return it->second;
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

std::string galileo_e1_codes_file()
{
    std::vector<std::string> tried;
    if (const char* dir = std::getenv("CUDADSP_GNSS_CODES_DIR")) {
        tried.push_back(std::string(dir) + "/" + galileo_e1_file_name);
        if (file_exists(tried.back()))
            return tried.back();
    }
    for (const char* dir :
         { CUDADSP_GNSS_CODES_INSTALL_DIR, CUDADSP_GNSS_CODES_SOURCE_DIR }) {
        tried.push_back(std::string(dir) + "/" + galileo_e1_file_name);
        if (file_exists(tried.back()))
            return tried.back();
    }
    std::string list;
    for (const std::string& path : tried)
        list += (list.empty() ? "" : ", ") + path;
    throw std::runtime_error("Galileo E1 code file not found (tried " + list +
                             "); set CUDADSP_GNSS_CODES_DIR to its folder");
}

std::vector<std::vector<std::int8_t>>
load_galileo_e1_codes(const std::string& file, galileo_e1_component component)
{
    return cached_galileo_file(file)[component == galileo_e1_component::b ? 0 : 1];
}

std::vector<std::int8_t>
galileo_e1_code(int prn, galileo_e1_component component, const std::string& file)
{
    if (prn < 1 || prn > galileo_e1_prn_count)
        throw std::invalid_argument("prn: must be 1 to 50 for Galileo E1, got " +
                                    std::to_string(prn));
    const std::string path = file.empty() ? galileo_e1_codes_file() : file;
    const std::vector<std::int8_t>& code =
        cached_galileo_file(path)[component == galileo_e1_component::b ? 0 : 1][prn - 1];
    if (code.empty())
        throw std::runtime_error("Galileo E1 code file " + path + " has no " +
                                 (component == galileo_e1_component::b ? "E1B" : "E1C") +
                                 " PRN " + std::to_string(prn));
    return code;
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
