/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_xcorr_tool: what the tool writes: output files that appear whole or not at all, and
// freq_xcorr.dat's lines in GMTSAR's layout and arithmetic.

#include "qa_xcorr_tool.h"
#include "xcorr/output_file.h"
#include "xcorr/xcorr_grid.h"
#include "xcorr/xcorr_output.h"
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {

using xcorr_tool_qa::contains;
using xcorr_tool_qa::file_exists;
using xcorr_tool_qa::folder_names;
using xcorr_tool_qa::read_text;
using xcorr_tool_qa::temp_dir;
using xcorr_tool_qa::write_text;

} // namespace

void qa_xcorr_tool::output_files()
{
    temp_dir dir;
    // Folders are created with their parents; the file appears complete, only once
    // committed, and no temporary file stays.
    {
        output_file out(dir.file("a/b/c"), "freq_xcorr.dat");
        CPPUNIT_ASSERT(!file_exists(dir.file("a/b/c/freq_xcorr.dat")));
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), folder_names(dir.file("a/b/c")).size());
        out.commit(" 1 2.000 3 4.000 99.00 \n");
    }
    CPPUNIT_ASSERT_EQUAL(std::string(" 1 2.000 3 4.000 99.00 \n"),
                         read_text(dir.file("a/b/c/freq_xcorr.dat")));
    CPPUNIT_ASSERT(folder_names(dir.file("a/b/c")) ==
                   std::vector<std::string>{ "freq_xcorr.dat" });
    // Not committed (a failure): the earlier file stays as it was, nothing else.
    {
        output_file out(dir.file("a/b/c"), "freq_xcorr.dat");
    }
    CPPUNIT_ASSERT_EQUAL(std::string(" 1 2.000 3 4.000 99.00 \n"),
                         read_text(dir.file("a/b/c/freq_xcorr.dat")));
    CPPUNIT_ASSERT(folder_names(dir.file("a/b/c")) ==
                   std::vector<std::string>{ "freq_xcorr.dat" });
    // A folder that is a file.
    write_text(dir.file("plain"), "x");
    try {
        output_file out(dir.file("plain"), "freq_xcorr.dat");
        CPPUNIT_FAIL("a file was used as a folder");
    } catch (const std::runtime_error& e) {
        CPPUNIT_ASSERT_EQUAL("folder '" + dir.file("plain") +
                                 "': exists and is not a directory",
                             std::string(e.what()));
    }
    try {
        output_file out(dir.file("plain/sub"), "freq_xcorr.dat");
        CPPUNIT_FAIL("a folder below a file was accepted");
    } catch (const std::runtime_error& e) {
        CPPUNIT_ASSERT(contains(e.what(),
                                "cannot create folder '" + dir.file("plain/sub") +
                                    "': Not a directory"));
    }
}

void qa_xcorr_tool::output_format()
{
    // " %d %6.3f %d %6.3f %6.2f \n": leading and trailing space, width 6.
    CPPUNIT_ASSERT_EQUAL(std::string(" 1428 -5.000 677  3.000  99.99 \n"),
                         format_line(1428, -5.0f, 677, 3.0f, 99.99f));
    CPPUNIT_ASSERT_EQUAL(std::string(" 10130 -27.125 8762 38.500 100.00 \n"),
                         format_line(10130, -27.125f, 8762, 38.5f, 100.0f));
    CPPUNIT_ASSERT_EQUAL(std::string(" 0  0.000 0  0.000   0.00 \n"),
                         format_line(0, 0.0f, 0, 0.0f, 0.0f));
    CPPUNIT_ASSERT_EQUAL(std::string(" 1 -123.031 2 1234.500 1234.57 \n"),
                         format_line(1, -123.03125f, 2, 1234.5f, 1234.567f));
    // Exact decimal ties (odd multiples of 1/16 at 3 decimals) go to even, as C
    // printf rounds the exact binary value: 0.0625 -> 0.062, 0.1875 -> 0.188,
    // 0.3125 -> 0.312, 0.4375 -> 0.438; non-ties round normally.
    CPPUNIT_ASSERT_EQUAL(std::string(" 1  0.062 2 -0.062   0.12 \n"),
                         format_line(1, 0.0625f, 2, -0.0625f, 0.125f));
    CPPUNIT_ASSERT_EQUAL(std::string(" 1  0.188 2  0.312  50.38 \n"),
                         format_line(1, 0.1875f, 2, 0.3125f, 50.375f));
    CPPUNIT_ASSERT_EQUAL(std::string(" 1  0.438 2 -0.688  50.62 \n"),
                         format_line(1, 0.4375f, 2, -0.6875f, 50.625f));
    CPPUNIT_ASSERT_EQUAL(std::string(" 1  0.031 2  0.094  12.35 \n"),
                         format_line(1, 0.03125f, 2, 0.09375f, 12.345f));
    // GMTSAR's degenerate-patch line (design note 5.11): 32.03125 and 64.0625.
    CPPUNIT_ASSERT_EQUAL(std::string(" 672 32.031 533 64.062   0.00 \n"),
                         format_line(672, 32.03125f, 533, 64.0625f, 0.0f));
    // Negative zero prints as GMTSAR's printf prints it.
    CPPUNIT_ASSERT_EQUAL(std::string(" 1 -0.000 2  0.000   0.00 \n"),
                         format_line(1, -0.0f, 2, 0.0f, 0.0f));
}

void qa_xcorr_tool::output_arithmetic()
{
    // dx = -(jpeak + xfrac)/ri + rshift, dy = -(ipeak + yfrac) + ashift + ishft, in
    // float32 in print_results' order.
    core::patch_result r{ -7, 5, 0.5625f, -0.25f, 87.5f };
    patch_offset o = combine(r, 2, -27, 38, 3);
    CPPUNIT_ASSERT_EQUAL(-27.0f + 3.5f - 0.28125f, o.dx);
    CPPUNIT_ASSERT_EQUAL(-5.0f + 0.25f + 38.0f + 3.0f, o.dy);
    CPPUNIT_ASSERT_EQUAL(87.5f, o.corr);
    CPPUNIT_ASSERT_EQUAL(std::string(" 100 -23.781 200 36.250  87.50 \n"),
                         format_line(100, o.dx, 200, o.dy, o.corr));

    // The degenerate patch of 5.11: jpeak = -xsearch, ipeak = -ysearch, fractions
    // -1/ifc: xs = ys = 64, ri 2, ifc 16 -> 32.031 and 64.062.
    core::patch_result z{ -64, -64, -1.0f / 16, -1.0f / 16, 0.0f };
    o = combine(z, 2, 0, 0, 0);
    CPPUNIT_ASSERT_EQUAL(32.03125f, o.dx);
    CPPUNIT_ASSERT_EQUAL(64.0625f, o.dy);

    // A run's lines: strip-major order, the stretch shift per patch's y.
    grid_config c;
    c.width = c.height = 2048;
    c.nx = 2;
    c.ny = 2;
    const xcorr_grid g = make_grid(c);
    std::vector<core::patch_result> res(4,
                                        core::patch_result{ 1, -2, 0.0f, 0.0f, 50.0f });
    res[3].jpeak = -3;
    res[3].xfrac = 0.0625f;
    // x_inc = (2048-384)/5 = 332, y_inc = (2048-384)/3 = 554; x 920, 1252; y 810,
    // 1364; stretch 0.001 -> ishft 0, 1.
    const std::string text = format_results(g, res, 2, 4, -6, 0.001);
    CPPUNIT_ASSERT_EQUAL(std::string(" 920  3.500 810 -4.000  50.00 \n"
                                     " 1252  3.500 810 -4.000  50.00 \n"
                                     " 920  3.500 1364 -3.000  50.00 \n"
                                     " 1252  5.469 1364 -3.000  50.00 \n"),
                         text);
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
