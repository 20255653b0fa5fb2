/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_xcorr_tool: the patch grid (GMTSAR's x_inc, y_inc and locations), its errors, the
// PRF stretch, and the patch pairs with their bounds.

#include "qa_xcorr_tool.h"
#include "xcorr/pair_setup.h"
#include "xcorr/prm_file.h"
#include "xcorr/xcorr_grid.h"
#include "xcorr/xcorr_options.h"
#include <cstdint>
#include <string>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {

using xcorr_tool_qa::contains;
using xcorr_tool_qa::prm_text;
using xcorr_tool_qa::temp_dir;
using xcorr_tool_qa::write_text;

} // namespace

void qa_xcorr_tool::grid_alos1_speed_case()
{
    // The paper's ALOS-1 size with the scripts' options: x_inc = (11304 - 768)/23
    // = 458, y_inc = (9216 - 768)/51 = 165 (integer division), x = 512 + 458 i
    // (i = 2..21), y = 512 + 165 j (j = 1..50), strips outer.
    grid_config c;
    c.width = 11304;
    c.height = 9216;
    c.nx = 20;
    c.ny = 50;
    c.xsearch = 128;
    c.ysearch = 128;
    const xcorr_grid g = make_grid(c);
    CPPUNIT_ASSERT_EQUAL(458, g.x_inc);
    CPPUNIT_ASSERT_EQUAL(165, g.y_inc);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1000), g.locations.size());
    for (int j = 1; j <= 50; ++j)
        for (int i = 2; i <= 21; ++i) {
            const auto& l = g.locations[static_cast<std::size_t>((j - 1) * 20 + i - 2)];
            CPPUNIT_ASSERT_EQUAL(512 + 458 * i, l.x);
            CPPUNIT_ASSERT_EQUAL(512 + 165 * j, l.y);
            CPPUNIT_ASSERT_EQUAL(j - 1, l.strip);
            CPPUNIT_ASSERT_EQUAL(i - 2, l.index);
        }
    CPPUNIT_ASSERT_EQUAL(1428, g.locations.front().x);
    CPPUNIT_ASSERT_EQUAL(677, g.locations.front().y);
    CPPUNIT_ASSERT_EQUAL(10130, g.locations[19].x);
    CPPUNIT_ASSERT_EQUAL(677, g.locations[19].y);
    CPPUNIT_ASSERT_EQUAL(1428, g.locations[20].x);
    CPPUNIT_ASSERT_EQUAL(842, g.locations[20].y);
    CPPUNIT_ASSERT_EQUAL(10130, g.locations.back().x);
    CPPUNIT_ASSERT_EQUAL(8762, g.locations.back().y);

    // All windows (512 x 512) lie inside the image, the last one 2*458 + 1 columns
    // and 165 + ... rows from the edges.
    const auto pairs = make_pairs(g, 128, 128, 0, 0, 0.0);
    check_pairs_inside(g, pairs, 128, 128, 11304, 9216, 11304, 9216);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1428 - 256), pairs.front().master_col);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(677 - 256), pairs.front().master_row);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(10130 + 255), pairs.back().master_col + 511);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(8762 + 255), pairs.back().master_row + 511);
}

void qa_xcorr_tool::grid_defaults()
{
    // GMTSAR's defaults (nx 16, ny 32, xsearch = ysearch = 64) on the same image:
    // x_inc = (11304 - 384)/19 = 574 (10920/19 = 574.7), y_inc = (9216 - 384)/33 =
    // 267 (8832/33 = 267.6); x = 256 + 574 i, i = 2..17; y = 256 + 267 j, j = 1..32.
    grid_config c;
    c.width = 11304;
    c.height = 9216;
    const xcorr_grid g = make_grid(c);
    CPPUNIT_ASSERT_EQUAL(574, g.x_inc);
    CPPUNIT_ASSERT_EQUAL(267, g.y_inc);
    CPPUNIT_ASSERT_EQUAL(std::size_t(512), g.locations.size());
    CPPUNIT_ASSERT_EQUAL(1404, g.locations.front().x);
    CPPUNIT_ASSERT_EQUAL(523, g.locations.front().y);
    CPPUNIT_ASSERT_EQUAL(10014, g.locations[15].x);
    CPPUNIT_ASSERT_EQUAL(8800, g.locations.back().y);
    for (std::size_t k = 0; k < g.locations.size(); ++k) {
        CPPUNIT_ASSERT_EQUAL(256 + 574 * (int(k % 16) + 2), g.locations[k].x);
        CPPUNIT_ASSERT_EQUAL(256 + 267 * (int(k / 16) + 1), g.locations[k].y);
    }

    // The design note's small example: 2048 x 2048, nx = ny = 5, 64: x_inc 208,
    // y_inc 277; x 672, 880, 1088, 1296, 1504; y 533, 810, 1087, 1364, 1641.
    c.width = c.height = 2048;
    c.nx = c.ny = 5;
    const xcorr_grid s = make_grid(c);
    CPPUNIT_ASSERT_EQUAL(208, s.x_inc);
    CPPUNIT_ASSERT_EQUAL(277, s.y_inc);
    const int xs[] = { 672, 880, 1088, 1296, 1504 };
    const int ys[] = { 533, 810, 1087, 1364, 1641 };
    for (std::size_t k = 0; k < 25; ++k) {
        CPPUNIT_ASSERT_EQUAL(xs[k % 5], s.locations[k].x);
        CPPUNIT_ASSERT_EQUAL(ys[k / 5], s.locations[k].y);
    }

    // Non-square search (ALOS-2 ScanSAR style): x and y follow their own search.
    c.width = 4000;
    c.height = 20000;
    c.nx = 32;
    c.ny = 128;
    c.xsearch = 32;
    c.ysearch = 256;
    const xcorr_grid n = make_grid(c);
    CPPUNIT_ASSERT_EQUAL((4000 - 192) / 35, n.x_inc);
    CPPUNIT_ASSERT_EQUAL((20000 - 1536) / 129, n.y_inc);
    CPPUNIT_ASSERT_EQUAL(128 + 2 * n.x_inc, n.locations.front().x);
    CPPUNIT_ASSERT_EQUAL(1024 + n.y_inc, n.locations.front().y);
}

void qa_xcorr_tool::grid_errors()
{
    grid_config c;
    c.width = 384 + 18; // (402 - 384)/19 = 0
    c.height = 9216;
    try {
        make_grid(c);
        CPPUNIT_FAIL("x_inc 0 was accepted");
    } catch (const input_error& e) {
        CPPUNIT_ASSERT(contains(e.what(),
                                "too narrow for the grid: 402 columns give "
                                "x_inc = (width - 6*xsearch)/(nx + 3) = "
                                "(402 - 384)/19 = 0; it needs at least 403 "
                                "columns"));
    }
    c.width = 403; // x_inc = 1: the smallest accepted
    CPPUNIT_ASSERT_EQUAL(1, make_grid(c).x_inc);
    c.height = 100; // negative numerator
    try {
        make_grid(c);
        CPPUNIT_FAIL("a short image was accepted");
    } catch (const input_error& e) {
        CPPUNIT_ASSERT(contains(e.what(), "too short for the grid: 100 rows"));
        CPPUNIT_ASSERT(contains(e.what(), "at least 417 rows"));
    }
    c.height = 9216;
    c.nx = 0;
    CPPUNIT_ASSERT_THROW(make_grid(c), input_error);

    // The largest -ny: the message's numbers are computed in 64 bits (ny + 1 =
    // 2^31 and the rows needed), not wrapped to negative values.
    c.nx = 16;
    c.ny = 2147483647;
    try {
        make_grid(c);
        CPPUNIT_FAIL("ny 2^31 - 1 was accepted");
    } catch (const input_error& e) {
        CPPUNIT_ASSERT_EQUAL(std::string("the master SLC is too short for the grid: "
                                         "9216 rows give y_inc = (height - "
                                         "6*ysearch)/(ny + 1) = (9216 - "
                                         "384)/2147483648 = 0; it needs at least "
                                         "2147484032 rows (reduce -ny or -ysearch)"),
                             std::string(e.what()));
    }
    c.ny = 32;
    c.nx = 2147483647;
    c.width = 11304;
    try {
        make_grid(c);
        CPPUNIT_FAIL("nx 2^31 - 1 was accepted");
    } catch (const input_error& e) {
        CPPUNIT_ASSERT(contains(e.what(), "(11304 - 384)/2147483650 = 0"));
        CPPUNIT_ASSERT(contains(e.what(), "at least 2147484034 columns"));
    }
}

void qa_xcorr_tool::prf_stretch_overflow()
{
    // A PRF stretch whose row shift (int)(y * stretch) cannot be an int (GMTSAR's
    // conversion is undefined there; it printed rows near -2^31): the error names
    // PRF, both values as written and the rule. A stretch that fits passes.
    temp_dir dir;
    const std::string m = prm_text("m.slc", 400, 480, 1679.902, 0, 0);
    write_text(dir.file("m.PRM"), m);
    write_text(dir.file("a.PRM"), prm_text("a.slc", 400, 480, 1e300, 0, 0));
    const xcorr_options o;
    try {
        read_pair_inputs(dir.file("m.PRM"), dir.file("a.PRM"), o);
        CPPUNIT_FAIL("a PRF of 1e300 was accepted");
    } catch (const input_error& e) {
        const std::string what = e.what();
        CPPUNIT_ASSERT(contains(what, "key 'PRF': the azimuth stretch"));
        CPPUNIT_ASSERT(contains(what, "(1e+300 - 1679.9) / 1679.9"));
        CPPUNIT_ASSERT(contains(what, "beyond a 32-bit integer"));
        CPPUNIT_ASSERT(!contains(what, "-2147483"));
    }
    // 480 rows: the largest accepted |stretch| is just below 2^31 / 480 = 4473924.3.
    write_text(dir.file("m.PRM"), prm_text("m.slc", 400, 480, 1000, 0, 0));
    write_text(dir.file("a.PRM"), prm_text("a.slc", 400, 480, 4e9, 0, 0));
    const pair_inputs in = read_pair_inputs(dir.file("m.PRM"), dir.file("a.PRM"), o);
    CPPUNIT_ASSERT_DOUBLES_EQUAL(4e6 - 1.0, in.stretch, 1e-6);
    write_text(dir.file("a.PRM"), prm_text("a.slc", 400, 480, 5e9, 0, 0));
    CPPUNIT_ASSERT_THROW(read_pair_inputs(dir.file("m.PRM"), dir.file("a.PRM"), o),
                         input_error);
}

void qa_xcorr_tool::pairs_and_bounds()
{
    grid_config c;
    c.width = 2048;
    c.height = 2048;
    c.nx = c.ny = 5;
    const xcorr_grid g = make_grid(c);
    // PRF stretch -0.001: (int)(533 * -0.001) = 0 (truncation toward zero, not
    // floor), (int)(1641 * -0.001) = -1; +0.002: 1, 3.
    CPPUNIT_ASSERT_EQUAL(0, core::gmtsar_stretch_shift(533, -0.001));
    CPPUNIT_ASSERT_EQUAL(-1, core::gmtsar_stretch_shift(1641, -0.001));
    CPPUNIT_ASSERT_EQUAL(1, core::gmtsar_stretch_shift(533, 0.002));
    CPPUNIT_ASSERT_EQUAL(3, core::gmtsar_stretch_shift(1641, 0.002));
    const auto p = make_pairs(g, 64, 64, -27, 38, 0.002);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(672 - 128), p[0].master_col);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(533 - 128), p[0].master_row);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(672 - 27 - 128), p[0].aligned_col);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(533 + 38 + 1 - 128), p[0].aligned_row);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1641 + 38 + 3 - 128), p[24].aligned_row);
    check_pairs_inside(g, p, 64, 64, 2048, 2048, 2048, 2048);

    // Windows leaving the aligned image: the message names the patch and why.
    const auto up = make_pairs(g, 64, 64, 0, -500, 0.0);
    try {
        check_pairs_inside(g, up, 64, 64, 2048, 2048, 2048, 2048);
        CPPUNIT_FAIL("a window above the image was accepted");
    } catch (const input_error& e) {
        CPPUNIT_ASSERT_EQUAL(
            std::string("patch 1 (strip 1, x 672, y 533): the aligned window (rows "
                        "-95..160, columns 544..799) leaves the aligned SLC (2048 "
                        "rows x 2048 columns) by 95 rows above row 0 (rshift, ashift "
                        "and the PRF stretch place it; reduce the search sizes or "
                        "the grid, or check the shifts)"),
            std::string(e.what()));
    }
    const auto right = make_pairs(g, 64, 64, 500, 0, 0.0);
    try {
        check_pairs_inside(g, right, 64, 64, 2048, 2048, 2048, 2048);
        CPPUNIT_FAIL("a window right of the image was accepted");
    } catch (const input_error& e) {
        // x 1504 + 500 - 128 .. + 255 = 1876..2131: 84 columns too far.
        CPPUNIT_ASSERT(contains(e.what(), "patch 5 (strip 1, x 1504, y 533)"));
        CPPUNIT_ASSERT(contains(e.what(), "by 84 columns right of the last column"));
    }
    // A smaller aligned image (its own PRM size).
    try {
        check_pairs_inside(g, p, 64, 64, 2048, 2048, 2048, 1700);
        CPPUNIT_FAIL("a window below the aligned image was accepted");
    } catch (const input_error& e) {
        // Strip 5: rows 1641 + 41 - 128 = 1554 .. 1809: 110 rows too far.
        CPPUNIT_ASSERT(contains(e.what(), "patch 21 (strip 5, x 672, y 1641)"));
        CPPUNIT_ASSERT(contains(e.what(), "by 110 rows below the last row"));
    }
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
