/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_xcorr_tool: the command line, GMTSAR's options in GMTSAR's order and ours, and each
// bad one named with its rule.

#include "qa_xcorr_tool.h"
#include "xcorr/prm_file.h"
#include "xcorr/xcorr_options.h"
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {

using xcorr_tool_qa::contains;

} // namespace

void qa_xcorr_tool::command_line()
{
    auto parse = [](const std::vector<std::string>& a) { return parse_command_line(a); };
    xcorr_options o = parse({ "m.PRM", "a.PRM" });
    CPPUNIT_ASSERT_EQUAL(64, o.xsearch);
    CPPUNIT_ASSERT_EQUAL(64, o.ysearch);
    CPPUNIT_ASSERT_EQUAL(16, o.nx);
    CPPUNIT_ASSERT_EQUAL(32, o.ny);
    CPPUNIT_ASSERT_EQUAL(2, o.range_interp);
    CPPUNIT_ASSERT_EQUAL(16, o.interp);
    CPPUNIT_ASSERT(o.highres);
    CPPUNIT_ASSERT(!o.noshift && !o.verbose && !o.cfloat32);
    CPPUNIT_ASSERT_EQUAL(std::string("auto"), o.device);

    o = parse({ "m.PRM",
                "a.PRM",
                "-nx",
                "20",
                "-ny",
                "50",
                "-xsearch",
                "128",
                "-ysearch",
                "256",
                "-noshift",
                "-v",
                "-device",
                "cpu",
                "-freq" });
    CPPUNIT_ASSERT_EQUAL(20, o.nx);
    CPPUNIT_ASSERT_EQUAL(50, o.ny);
    CPPUNIT_ASSERT_EQUAL(128, o.xsearch);
    CPPUNIT_ASSERT_EQUAL(256, o.ysearch);
    CPPUNIT_ASSERT(o.noshift && o.verbose);
    CPPUNIT_ASSERT_EQUAL(std::string("cpu"), o.device);

    // Order matters, as in GMTSAR.
    CPPUNIT_ASSERT_EQUAL(
        4, parse({ "m.PRM", "a.PRM", "-norange", "-range_interp", "4" }).range_interp);
    CPPUNIT_ASSERT_EQUAL(
        1, parse({ "m.PRM", "a.PRM", "-range_interp", "4", "-norange" }).range_interp);
    o = parse({ "m.PRM", "a.PRM", "-nointerp", "-interp", "8" });
    CPPUNIT_ASSERT(o.highres);
    CPPUNIT_ASSERT_EQUAL(8, o.interp);
    o = parse({ "m.PRM", "a.PRM", "-interp", "8", "-nointerp" });
    CPPUNIT_ASSERT(!o.highres);
    o = parse({ "m.PRM", "a.PRM", "-cfloat32", "512", "256" });
    CPPUNIT_ASSERT(o.cfloat32);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(512), o.cfloat32_width);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(256), o.cfloat32_height);
    CPPUNIT_ASSERT(parse({ "--help" }).help);

    auto error_of = [&](const std::vector<std::string>& a) {
        try {
            parse(a);
        } catch (const input_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CPPUNIT_ASSERT_EQUAL(
        std::string("-xsearch 48: must be a power of two from 8 to 1024"),
        error_of({ "m.PRM", "a.PRM", "-xsearch", "48" }));
    CPPUNIT_ASSERT_EQUAL(std::string("-ysearch 4: must be a power of two from 8 to 1024"),
                         error_of({ "m.PRM", "a.PRM", "-ysearch", "4" }));
    CPPUNIT_ASSERT_EQUAL(std::string("-xsearch 0: must be a power of two from 8 to 1024"),
                         error_of({ "m.PRM", "a.PRM", "-xsearch", "0" }));
    CPPUNIT_ASSERT_EQUAL(
        std::string("-range_interp 3: must be a power of two from 1 to 16"),
        error_of({ "m.PRM", "a.PRM", "-range_interp", "3" }));
    CPPUNIT_ASSERT_EQUAL(std::string("-interp 0: must be a power of two from 1 to 64"),
                         error_of({ "m.PRM", "a.PRM", "-interp", "0" }));
    CPPUNIT_ASSERT_EQUAL(
        std::string("-ysearch 2048: must be a power of two from 8 to 1024"),
        error_of({ "m.PRM", "a.PRM", "-ysearch", "2048" }));
    CPPUNIT_ASSERT_EQUAL(
        std::string("-range_interp 32: must be a power of two from 1 to 16"),
        error_of({ "m.PRM", "a.PRM", "-range_interp", "32" }));
    CPPUNIT_ASSERT_EQUAL(std::string("-interp 128: must be a power of two from 1 to 64"),
                         error_of({ "m.PRM", "a.PRM", "-interp", "128" }));
    CPPUNIT_ASSERT_EQUAL(std::string("-nx '2x': not an integer"),
                         error_of({ "m.PRM", "a.PRM", "-nx", "2x" }));
    CPPUNIT_ASSERT_EQUAL(std::string("-ny 0: must be an integer from 1 to 2147483647"),
                         error_of({ "m.PRM", "a.PRM", "-ny", "0" }));
    // Beyond 32 (and 64) bits: the rule and the value as given, not "not an
    // integer" and not a wrapped number.
    CPPUNIT_ASSERT_EQUAL(
        std::string("-ny 99999999999: must be an integer from 1 to 2147483647"),
        error_of({ "m.PRM", "a.PRM", "-ny", "99999999999" }));
    CPPUNIT_ASSERT_EQUAL(
        std::string("-nx 2147483648: must be an integer from 1 to 2147483647"),
        error_of({ "m.PRM", "a.PRM", "-nx", "2147483648" }));
    CPPUNIT_ASSERT_EQUAL(
        std::string("-xsearch 99999999999999999999999: must be a "
                    "power of two from 8 to 1024"),
        error_of({ "m.PRM", "a.PRM", "-xsearch", "99999999999999999999999" }));
    CPPUNIT_ASSERT_EQUAL(
        std::string("-interp -18446744073709551616: must be a power "
                    "of two from 1 to 64"),
        error_of({ "m.PRM", "a.PRM", "-interp", "-18446744073709551616" }));
    CPPUNIT_ASSERT_EQUAL(std::string("-cfloat32 4294967296: must be an integer from 1 "
                                     "to 2147483647"),
                         error_of({ "m.PRM", "a.PRM", "-cfloat32", "4294967296", "5" }));

    // --pairs LIST in place of the two PRM files, options after it.
    const xcorr_options st =
        parse({ "--pairs", "list.txt", "-nx", "20", "-device", "cpu" });
    CPPUNIT_ASSERT_EQUAL(std::string("list.txt"), st.pairs_list);
    CPPUNIT_ASSERT(st.master_prm.empty() && st.aligned_prm.empty());
    CPPUNIT_ASSERT_EQUAL(20, st.nx);
    CPPUNIT_ASSERT_EQUAL(std::string("cpu"), st.device);
    CPPUNIT_ASSERT(parse({ "m.PRM", "a.PRM" }).pairs_list.empty());
    CPPUNIT_ASSERT_EQUAL(std::string("--pairs: missing value (a pair list file, or - "
                                     "for standard input)"),
                         error_of({ "--pairs" }));
    CPPUNIT_ASSERT(contains(error_of({ "m.PRM", "a.PRM", "--pairs", "l" }),
                            "--pairs LIST comes first, in place of the two PRM files"));
    CPPUNIT_ASSERT_EQUAL(std::string("-nx: missing value"),
                         error_of({ "m.PRM", "a.PRM", "-nx" }));
    CPPUNIT_ASSERT_EQUAL(std::string("unknown option '-xsrch' (-h for help)"),
                         error_of({ "m.PRM", "a.PRM", "-xsrch", "64" }));
    CPPUNIT_ASSERT_EQUAL(std::string("unknown option '64' (-h for help)"),
                         error_of({ "m.PRM", "a.PRM", "-nx", "4", "64" }));
    CPPUNIT_ASSERT(contains(error_of({ "m.PRM", "a.PRM", "-time" }), "not implemented"));
    CPPUNIT_ASSERT(contains(error_of({ "m.PRM", "a.PRM", "-real" }), "not supported"));
    CPPUNIT_ASSERT(contains(error_of({ "m.grd", "a.PRM" }), "'m.grd': not a .PRM file"));
    CPPUNIT_ASSERT(contains(error_of({ "-nx", "4", "m.PRM", "a.PRM" }),
                            "the two PRM files come first"));
    CPPUNIT_ASSERT(contains(error_of({ "m.PRM" }), "expected two PRM files"));
    CPPUNIT_ASSERT_EQUAL(std::string("-cfloat32 'w': not an integer"),
                         error_of({ "m.PRM", "a.PRM", "-cfloat32", "w", "5" }));
    CPPUNIT_ASSERT_EQUAL(std::string("-cfloat32: missing value"),
                         error_of({ "m.PRM", "a.PRM", "-cfloat32", "5" }));
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
