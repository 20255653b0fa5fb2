/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Fuzz target: cudadsp_xcorr's PRM files (apps/xcorr/prm_file.h). The input is the text
// of a PRM file; it is read as the master and as the aligned file, with and without
// -cfloat32, as apps/xcorr/pair_setup.cc reads them. Besides "no crash, no leak, no
// hang": only input_error is thrown, its text passes printable() to valid UTF-8 without
// control characters, and what is accepted obeys the documented rules.

#include "fuzz_check.h"
#include "xcorr/printable.h"
#include "xcorr/prm_file.h"
#include <iconv.h>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace xc = gr::cudadsp::xcorr;
using cudadsp_fuzz::require;

namespace {

/*!
 * The code points of \p text, or false when it is not valid UTF-8 (decoded by glibc's
 * iconv, independently of printable()).
 */
bool decode_utf8(const std::string& text, std::vector<char32_t>& code_points)
{
    // Opened once: iconv_open loads a conversion module.
    static const iconv_t cd = iconv_open("UTF-32LE", "UTF-8");
    require(cd != reinterpret_cast<iconv_t>(-1), "iconv_open(UTF-32LE, UTF-8)");
    iconv(cd, nullptr, nullptr, nullptr, nullptr); // the initial state
    std::string in = text;
    code_points.assign(text.size(), 0);
    char* src = in.data();
    std::size_t src_left = in.size();
    char* dst = reinterpret_cast<char*>(code_points.data());
    std::size_t dst_left = code_points.size() * sizeof(char32_t);
    const std::size_t done = iconv(cd, &src, &src_left, &dst, &dst_left);
    code_points.resize(code_points.size() - dst_left / sizeof(char32_t));
    return done != static_cast<std::size_t>(-1) && src_left == 0;
}

//! printable(text) is what cudadsp_xcorr prints: valid UTF-8 with no C0 or C1 control
//! and no DEL, and printable text is left as it is.
void check_printable(const std::string& text)
{
    const std::string shown = xc::printable(text);
    std::vector<char32_t> cps;
    require(decode_utf8(shown, cps), "printable() gives valid UTF-8", shown);
    for (const char32_t cp : cps)
        require(cp >= 0x20 && !(cp >= 0x7f && cp <= 0x9f),
                "printable() leaves no control character",
                shown);
    require(xc::printable(shown) == shown, "printable() is idempotent", shown);
}

//! A refusal (input_error alone): its text names the file first and prints safely.
void check_error_text(const std::string& what)
{
    require(what.rfind("f.PRM: ", 0) == 0, "an error names the file first", what);
    check_printable(what);
}

template <class F>
bool accepted(F&& f)
{
    return cudadsp_fuzz::returns_or_refuses<xc::input_error>(f, check_error_text);
}

bool is_int32_text(const std::string& v)
{
    std::size_t i = (v[0] == '+' || v[0] == '-') ? 1 : 0;
    if (i == v.size())
        return false;
    for (std::size_t k = i; k < v.size(); ++k)
        if (v[k] < '0' || v[k] > '9')
            return false;
    return true;
}

void check_keys(const xc::prm_file& prm,
                const xc::prm_keys& k,
                const xc::prm_read_options& o)
{
    require(k.path == "f.PRM", "prm_keys.path is the file");
    require(!k.slc_file.empty() && prm.values().at("SLC_file") == k.slc_file,
            "SLC_file is the file's value");
    require(k.width > 0 && k.height > 0, "the raster size is positive");
    if (!o.require_size)
        require(k.width == o.given_width && k.height == o.given_height,
                "with -cfloat32 the raster size is the given one");
    else
        require(k.height % prm.get_int("num_patches") == 0,
                "height is num_patches * num_valid_az");
    if (k.has_prf)
        require(std::isfinite(k.prf) && k.prf > 0.0 &&
                    k.prf_text == prm.values().at("PRF"),
                "an accepted PRF is finite, positive and as written");
    else
        require(!o.require_prf && !prm.has("PRF"), "PRF is absent only where optional");
    if (o.read_shifts)
        for (const char* key : { "rshift", "ashift" })
            require(is_int32_text(prm.values().at(key)), "a shift is an integer", key);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    const xc::prm_file prm = xc::prm_file::parse(text, "f.PRM");
    for (const auto& entry : prm.values()) {
        // Named copies: lambdas of C++17 cannot capture structured bindings.
        const std::string& key = entry.first;
        const std::string& value = entry.second;
        require(!key.empty(), "no empty key");
        require(key != "xshift" && key != "yshift", "legacy keys are stored as r/ashift");
        for (const char c : key + value)
            require(c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' &&
                        c != '\f',
                    "keys and values hold no white space",
                    key);
        std::int32_t n = 0;
        double d = 0.0;
        if (accepted([&] { n = prm.get_int(key); }))
            require(is_int32_text(value) &&
                        std::to_string(n) == std::to_string(std::stoll(value)),
                    "get_int reads the decimal integer written",
                    value);
        if (accepted([&] { d = prm.get_double(key); }))
            require(std::isfinite(d), "get_double gives a finite number", value);
    }
    // The option sets cudadsp_xcorr uses: master and aligned, GMTSAR's SLC or -cfloat32
    // (its size given on the command line), shifts read or not (-noshift).
    for (const bool cfloat32 : { false, true }) {
        for (const bool shifts : { false, true }) {
            xc::prm_read_options o;
            o.require_size = !cfloat32;
            o.require_prf = !cfloat32;
            o.given_width = cfloat32 ? 1024 : 0;
            o.given_height = cfloat32 ? 4096 : 0;
            o.read_shifts = shifts;
            xc::prm_keys k;
            if (accepted([&] { k = xc::read_prm_keys(prm, o); }))
                check_keys(prm, k, o);
        }
    }
    return 0;
}
