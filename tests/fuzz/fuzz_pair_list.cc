/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Fuzz target: the pair list of cudadsp_xcorr --pairs (apps/xcorr/pair_list.h). The
// input is the list's text. Besides "no crash, no leak, no hang": only input_error is
// thrown, naming the list, and an accepted list obeys the documented rules.

#include "fuzz_check.h"
#include "xcorr/pair_list.h"
#include "xcorr/prm_file.h"
#include <cstdint>
#include <set>
#include <string>

namespace xc = gr::cudadsp::xcorr;
using cudadsp_fuzz::require;

namespace {

bool ends_in_prm(const std::string& name)
{
    return name.size() >= 4 && name.compare(name.size() - 4, 4, ".PRM") == 0;
}

bool is_word(const std::string& w)
{
    for (const char c : w)
        if (c == ' ' || c == '\t' || c == '\n' || c == '#')
            return false;
    return !w.empty();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::vector<xc::pair_entry> pairs;
    try {
        pairs = xc::parse_pair_list(text, "list");
    } catch (const xc::input_error& e) {
        require(std::string(e.what()).rfind("list", 0) == 0, "an error names the list");
        return 0;
    }
    require(!pairs.empty(), "an accepted list holds a pair");
    std::size_t previous_line = 0;
    std::set<std::string> folders;
    for (const xc::pair_entry& p : pairs) {
        require(p.line > previous_line, "pairs are in the order of their lines");
        previous_line = p.line;
        require(ends_in_prm(p.master_prm) && ends_in_prm(p.aligned_prm),
                "PRM names end in .PRM",
                p.master_prm + " " + p.aligned_prm);
        require(is_word(p.master_prm) && is_word(p.aligned_prm) && is_word(p.folder),
                "names are words without blanks or comments",
                p.folder);
        require(folders.insert(p.folder).second, "no two pairs share a folder", p.folder);
    }
    return 0;
}
