/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_FUZZ_CHECK_H
#define INCLUDED_CUDADSP_FUZZ_CHECK_H

// What the fuzz targets check besides "no crash": a broken property aborts, which
// libFuzzer reports as a crash and saves the input (docs/fuzzing.md).

#include <cstdio>
#include <cstdlib>
#include <string>

namespace cudadsp_fuzz {

//! Aborts with \p what and \p detail on stderr unless \p ok.
inline void require(bool ok, const char* what, const std::string& detail = "")
{
    if (ok)
        return;
    std::fprintf(stderr, "fuzz property broken: %s\n%s\n", what, detail.c_str());
    std::abort();
}

//! True when \p text holds no C0 control byte and no DEL: an error text that a log
//! line or terminal shows as it is.
inline bool printable_ascii_controls(const std::string& text)
{
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f)
            return false;
    }
    return true;
}

/*!
 * Runs \p f: true when it returns, false when it throws \p Error, whose text
 * \p check_text then checks. Any other exception escapes and ends the run as a crash:
 * the parsers document the one exception type they throw.
 */
template <class Error, class F, class Check>
bool returns_or_refuses(F&& f, Check&& check_text)
{
    try {
        f();
        return true;
    } catch (const Error& e) {
        check_text(std::string(e.what()));
        return false;
    }
}

} // namespace cudadsp_fuzz

#endif /* INCLUDED_CUDADSP_FUZZ_CHECK_H */
