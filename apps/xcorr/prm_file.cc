/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "prm_file.h"
#include "regular_file.h"
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <vector>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {

bool is_space(char c)
{
    // The characters sscanf's %s stops at.
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

std::vector<std::string> split_tokens(const std::string& line)
{
    std::vector<std::string> tokens;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i]))
            ++i;
        const std::size_t start = i;
        while (i < line.size() && !is_space(line[i]))
            ++i;
        if (i > start)
            tokens.push_back(line.substr(start, i - start));
    }
    return tokens;
}

std::string canonical_key(const std::string& key)
{
    // GMTSAR's get_sio_struct stores the legacy keys in the same fields.
    if (key == "xshift")
        return "rshift";
    if (key == "yshift")
        return "ashift";
    return key;
}

} // namespace

prm_file prm_file::read(const std::string& path)
{
    return parse(read_regular_file(path, "PRM file '" + path + "'"), path);
}

prm_file prm_file::parse(const std::string& text, const std::string& path)
{
    prm_file prm;
    prm.d_path = path;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        const auto tokens = split_tokens(line);
        if (tokens.empty())
            continue; // blank line (GMTSAR: re-assigns the previous key; see the docs)
        prm.d_values[canonical_key(tokens[0])] = tokens.size() >= 3 ? tokens[2] : "";
    }
    return prm;
}

std::string prm_file::get_string(const std::string& key) const
{
    const auto it = d_values.find(key);
    if (it == d_values.end())
        throw input_error(d_path + ": key '" + key + "' is missing");
    if (it->second.empty())
        throw input_error(d_path + ": key '" + key +
                          "' has no value (expected a 'key = value' line)");
    return it->second;
}

std::int32_t prm_file::get_int(const std::string& key) const
{
    const std::string v = get_string(key);
    std::size_t i = (v[0] == '+' || v[0] == '-') ? 1 : 0;
    bool digits = i < v.size();
    for (std::size_t k = i; k < v.size(); ++k)
        digits = digits && v[k] >= '0' && v[k] <= '9';
    if (!digits)
        throw input_error(d_path + ": key '" + key + "' = '" + v + "' is not an integer");
    errno = 0;
    const long long n = std::strtoll(v.c_str(), nullptr, 10);
    if (errno == ERANGE || n < std::numeric_limits<std::int32_t>::min() ||
        n > std::numeric_limits<std::int32_t>::max())
        throw input_error(d_path + ": key '" + key + "' = '" + v +
                          "' is out of range for a 32-bit integer");
    return static_cast<std::int32_t>(n);
}

double prm_file::get_double(const std::string& key) const
{
    const std::string v = get_string(key);
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(v.c_str(), &end);
    if (end != v.c_str() + v.size() || errno == ERANGE || !std::isfinite(d))
        throw input_error(d_path + ": key '" + key + "' = '" + v +
                          "' is not a finite number");
    return d;
}

prm_keys read_prm_keys(const prm_file& prm, const prm_read_options& options)
{
    prm_keys k;
    k.path = prm.path();
    k.slc_file = prm.get_string("SLC_file");

    const bool size_keys_present =
        prm.has("num_rng_bins") || prm.has("num_patches") || prm.has("num_valid_az");
    if (options.require_size || size_keys_present) {
        const std::int32_t width = prm.get_int("num_rng_bins");
        const std::int32_t patches = prm.get_int("num_patches");
        const std::int32_t valid_az = prm.get_int("num_valid_az");
        if (width <= 0)
            throw input_error(prm.path() + ": key 'num_rng_bins' = " +
                              std::to_string(width) + " must be positive");
        if (patches <= 0)
            throw input_error(prm.path() + ": key 'num_patches' = " +
                              std::to_string(patches) + " must be positive");
        if (valid_az <= 0)
            throw input_error(prm.path() + ": key 'num_valid_az' = " +
                              std::to_string(valid_az) + " must be positive");
        k.width = width;
        k.height = std::int64_t(patches) * valid_az;
        if (!options.require_size &&
            (k.width != options.given_width || k.height != options.given_height))
            throw input_error(
                prm.path() + ": num_rng_bins x num_patches*num_valid_az = " +
                std::to_string(k.width) + " x " + std::to_string(k.height) +
                " disagrees with -cfloat32 " + std::to_string(options.given_width) + " " +
                std::to_string(options.given_height));
    }
    if (!options.require_size) {
        k.width = options.given_width;
        k.height = options.given_height;
    }

    if (options.require_prf || prm.has("PRF")) {
        k.prf = prm.get_double("PRF");
        k.prf_text = prm.get_string("PRF");
        if (!(k.prf > 0.0))
            throw input_error(prm.path() + ": key 'PRF' = '" + prm.get_string("PRF") +
                              "' must be positive");
        k.has_prf = true;
    }

    if (options.read_shifts) {
        k.rshift = prm.get_int("rshift");
        k.ashift = prm.get_int("ashift");
    }
    return k;
}

void check_prm_name(const std::string& name)
{
    if (name.size() < 4 || name.compare(name.size() - 4, 4, ".PRM") != 0)
        throw input_error("'" + name +
                          "': not a .PRM file (GMTSAR xcorr reads other names as GMT "
                          "grids, which cudadsp_xcorr does not support)");
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
