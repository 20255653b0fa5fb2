/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "prm_file.h"
#include "xcorr_options.h"
#include <cstdlib>
#include <limits>

namespace gr {
namespace cudadsp {
namespace xcorr {

const char* const usage_text =
    R"(usage: cudadsp_xcorr master.PRM aligned.PRM [options]
       cudadsp_xcorr --pairs LIST [options]

GMTSAR xcorr's frequency-domain patch correlation on the GPU (or the CPU). Reads the
SLC files the two PRM files name (SLC_file, relative to the working directory) and
writes freq_xcorr.dat in the working directory, one line per patch:
" x dx y dy corr" as GMTSAR's xcorr writes it.

--pairs LIST: a stack in one process, with one engine for all pairs. LIST (a file,
or - for standard input) has one pair a line, "master.PRM aligned.PRM [FOLDER]",
'#' to the end of the line a comment. Each pair's freq_xcorr.dat goes to FOLDER
(created; default MASTER_ALIGNED, the PRM names without .PRM, in the working
directory). A line on stderr per pair, a summary table at the end; a pair that
fails is reported and the others still run.

options (as GMTSAR xcorr's; a later option overrides an earlier one):
  -xsearch N        range search half-width, samples after range interpolation;
                    a power of two, 8 to 1024 (default 64); patches are 4N wide
  -ysearch N        azimuth search half-width, rows; a power of two, 8 to 1024
                    (default 64); patches are 4N high
  -nx N             patches per strip, across range (default 16)
  -ny N             strips, down azimuth (default 32)
  -range_interp N   range interpolation factor, a power of two, 1 to 16 (default 2)
  -norange          no range interpolation (-range_interp 1)
  -interp N         sub-pixel interpolation factor, a power of two, 1 to 64
                    (default 16);
                    also turns the sub-pixel step on
  -nointerp         integer offsets only (no sub-pixel step)
  -noshift          ignore rshift and ashift of aligned.PRM (the PRF stretch stays)
  -freq             the frequency method (the only one; accepted for scripts)
  -v                progress and a timing breakdown on stderr
options of cudadsp_xcorr alone:
  -device D         auto (default: the first CUDA device, else the CPU), cpu, cuda
                    or cuda:N
  -cfloat32 W H     both SLC files are raw complex float32 rasters (I, Q float32
                    interleaved, host byte order, row-major) of W columns and H rows;
                    PRM size keys become optional (where present they must agree)
                    and PRF too (both or neither; neither: no azimuth stretch)
  -h, --help        this text

Exit status: 0 on success; 1 on any error, with a message naming its cause (with
--pairs: an error in the list or the options, before any pair ran); 2 with --pairs
when one or more pairs failed (the others' files are written).
)";

namespace {

// A decimal integer ([+-]digits); one beyond 64 bits saturates, so that every range
// check below rejects it and reports the text as given, never a wrapped value.
std::int64_t parse_integer(const std::string& option, const std::string& text)
{
    std::size_t i = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
    bool ok = i < text.size();
    for (std::size_t k = i; k < text.size(); ++k)
        ok = ok && text[k] >= '0' && text[k] <= '9';
    if (!ok)
        throw input_error(option + " '" + text + "': not an integer");
    const long long v = std::strtoll(text.c_str(), nullptr, 10);
    // strtoll saturates at the 64-bit limits on overflow (ERANGE).
    return v;
}

bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

} // namespace

xcorr_options parse_command_line(const std::vector<std::string>& args)
{
    xcorr_options o;
    for (const auto& a : args)
        if (a == "-h" || a == "--help" || a == "-help") {
            o.help = true;
            return o;
        }
    if (!args.empty() && args[0] == "--pairs") {
        if (args.size() < 2)
            throw input_error("--pairs: missing value (a pair list file, or - for "
                              "standard input)");
        o.pairs_list = args[1];
    } else {
        if (args.size() < 2)
            throw input_error("expected two PRM files, master.PRM and aligned.PRM, or "
                              "--pairs LIST, before the options (-h for help)");
        o.master_prm = args[0];
        o.aligned_prm = args[1];
        for (const std::string& prm : { o.master_prm, o.aligned_prm }) {
            if (!prm.empty() && prm[0] == '-')
                throw input_error("'" + prm +
                                  "': the two PRM files come first, then the options");
            check_prm_name(prm);
        }
    }

    std::size_t n = 2;
    auto value = [&](const std::string& option) -> const std::string& {
        if (n + 1 >= args.size())
            throw input_error(option + ": missing value");
        return args[++n];
    };
    auto power_of_two =
        [&](const std::string& option, std::int64_t min, std::int64_t max) {
            const std::string& text = value(option);
            const std::int64_t v = parse_integer(option, text);
            if (!is_power_of_two(v) || v < min || v > max)
                throw input_error(option + " " + text + ": must be a power of two from " +
                                  std::to_string(min) + " to " + std::to_string(max));
            return static_cast<int>(v);
        };
    auto positive = [&](const std::string& option) {
        const std::string& text = value(option);
        const std::int64_t v = parse_integer(option, text);
        const std::int64_t max = std::numeric_limits<std::int32_t>::max();
        if (v < 1 || v > max)
            throw input_error(option + " " + text + ": must be an integer from 1 to " +
                              std::to_string(max));
        return v;
    };
    for (; n < args.size(); ++n) {
        const std::string& a = args[n];
        if (a == "-xsearch")
            o.xsearch = power_of_two(a, 8, 1024);
        else if (a == "-ysearch")
            o.ysearch = power_of_two(a, 8, 1024);
        else if (a == "-nx")
            o.nx = static_cast<int>(positive(a));
        else if (a == "-ny")
            o.ny = static_cast<int>(positive(a));
        else if (a == "-range_interp")
            o.range_interp = power_of_two(a, 1, 16);
        else if (a == "-norange")
            o.range_interp = 1;
        else if (a == "-interp") {
            o.interp = power_of_two(a, 1, 64);
            o.highres = true;
        } else if (a == "-nointerp")
            o.highres = false;
        else if (a == "-noshift")
            o.noshift = true;
        else if (a == "-v")
            o.verbose = true;
        else if (a == "-freq")
            ; // GMTSAR's default method, the only one here
        else if (a == "-time" || a == "-time4")
            throw input_error(a + ": GMTSAR's time-domain method is not implemented "
                                  "(only the frequency method, -freq)");
        else if (a == "-real")
            throw input_error("-real: real float32 SLC files are not supported "
                              "(complex int16, or complex float32 with -cfloat32)");
        else if (a == "--pairs")
            throw input_error("--pairs LIST comes first, in place of the two PRM files "
                              "(-h for help)");
        else if (a == "-device")
            o.device = value(a);
        else if (a == "-cfloat32") {
            o.cfloat32 = true;
            o.cfloat32_width = positive(a);
            o.cfloat32_height = positive(a);
        } else
            throw input_error("unknown option '" + a + "' (-h for help)");
    }
    return o;
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
