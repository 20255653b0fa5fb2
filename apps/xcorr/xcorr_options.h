/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_XCORR_XCORR_OPTIONS_H
#define INCLUDED_CUDADSP_XCORR_XCORR_OPTIONS_H

// cudadsp_xcorr's command line: GMTSAR xcorr's options, parsed strictly.

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace xcorr {

struct xcorr_options {
    std::string master_prm; //!< the positional form: GMTSAR's two PRM files
    std::string aligned_prm;
    std::string pairs_list; //!< --pairs LIST: a stack (pair_list.h); "" otherwise
    int xsearch = 64;
    int ysearch = 64;
    int nx = 16;
    int ny = 32;
    int range_interp = 2;
    bool highres = true;
    int interp = 16;
    bool noshift = false;
    bool verbose = false;
    std::string device = "auto";
    bool cfloat32 = false; //!< -cfloat32 WIDTH HEIGHT: both SLC files are complex float32
    std::int64_t cfloat32_width = 0;
    std::int64_t cfloat32_height = 0;
    bool help = false; //!< -h / --help: print the usage, exit 0
};

/*!
 * Parses arguments (without the program name) as GMTSAR does: the two PRM files (or
 * --pairs LIST) first, then the options in order, a later one overriding an earlier one
 * (-norange then -range_interp 4 gives 4; -nointerp then -interp 8 turns the step back
 * on). Throws input_error naming the option, its value as given and the rule it broke for
 * unknown options, missing or malformed numbers, counts outside 1 .. 2^31 - 1, and search
 * sizes and factors outside the engine's ranges (powers of two: searches 8 to 1024,
 * range_interp 1 to 16, interp 1 to 64).
 */
xcorr_options parse_command_line(const std::vector<std::string>& args);

extern const char* const usage_text;

} // namespace xcorr
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_XCORR_XCORR_OPTIONS_H */
