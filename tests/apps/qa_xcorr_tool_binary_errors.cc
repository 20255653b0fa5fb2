/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_xcorr_tool: the binary on bad input: usage, every class of bad input ending with
// exit status 1 and a message naming the cause, hostile input (issue 16) under a
// timeout, and a stack with broken pairs.

#include "qa_xcorr_synthetic_pair.h"
#include "qa_xcorr_tool.h"
#include <sys/stat.h>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {

using xcorr_tool_qa::contains;
using xcorr_tool_qa::fields;
using xcorr_tool_qa::file_exists;
using xcorr_tool_qa::folder_names;
using xcorr_tool_qa::make_pair;
using xcorr_tool_qa::prm_text;
using xcorr_tool_qa::read_text;
using xcorr_tool_qa::run_result;
using xcorr_tool_qa::run_xcorr;
using xcorr_tool_qa::split_lines;
using xcorr_tool_qa::synthetic_pair;
using xcorr_tool_qa::temp_dir;
using xcorr_tool_qa::write_binary;
using xcorr_tool_qa::write_text;

} // namespace

void qa_xcorr_tool::binary_usage()
{
    temp_dir dir;
    const run_result help = run_xcorr(dir, "-h");
    CPPUNIT_ASSERT_EQUAL(0, help.status);
    CPPUNIT_ASSERT(contains(help.out, "usage: cudadsp_xcorr master.PRM aligned.PRM"));
    const run_result none = run_xcorr(dir, "");
    CPPUNIT_ASSERT_EQUAL(1, none.status);
    CPPUNIT_ASSERT(contains(none.err, "cudadsp_xcorr: error: expected two PRM files"));
}

void qa_xcorr_tool::binary_bad_inputs()
{
    temp_dir dir;
    const long w = 400, h = 480;
    const synthetic_pair p = make_pair(w, h, 0, 0, 7);
    write_binary(dir.file("m.slc"), p.master);
    write_binary(dir.file("a.slc"), p.aligned);
    std::vector<std::int16_t> short_file(p.master.begin(), p.master.end() - 2);
    write_binary(dir.file("short.slc"), short_file);
    write_text(dir.file("m.PRM"), prm_text("m.slc", w, h, 1000.0, 0, 0));
    write_text(dir.file("a.PRM"), prm_text("a.slc", w, h, 1000.0, 0, 0));
    const std::string grid = " -xsearch 16 -ysearch 16 -nx 4 -ny 4 -device cpu";

    struct bad_case {
        std::string what;
        std::string master_prm; // "" keeps m.PRM's text
        std::string aligned_prm;
        std::string args;
        std::string message;
    };
    const std::string good_m = prm_text("m.slc", w, h, 1000.0, 0, 0);
    const std::string good_a = prm_text("a.slc", w, h, 1000.0, 0, 0);
    auto without = [](std::string t, const std::string& key) {
        const std::size_t at = t.find(key);
        const std::size_t end = t.find('\n', at);
        return t.erase(at, end - at + 1);
    };
    auto replace = [](std::string t, const std::string& from, const std::string& to) {
        return t.replace(t.find(from), from.size(), to);
    };
    const std::vector<bad_case> cases = {
        { "missing key",
          without(good_m, "num_rng_bins"),
          good_a,
          grid,
          "error: m.PRM: key 'num_rng_bins' is missing" },
        { "missing SLC_file",
          good_m,
          without(good_a, "SLC_file"),
          grid,
          "error: a.PRM: key 'SLC_file' is missing" },
        { "missing rshift",
          good_m,
          without(good_a, "rshift"),
          grid,
          "error: a.PRM: key 'rshift' is missing" },
        { "malformed number",
          good_m,
          replace(good_a, "num_valid_az            = 480", "num_valid_az = 480.5"),
          grid,
          "error: a.PRM: key 'num_valid_az' = '480.5' is not an integer" },
        { "malformed PRF",
          replace(good_m, "PRF                     = 1000", "PRF = 1,000"),
          good_a,
          grid,
          "error: m.PRM: key 'PRF' = '1,000' is not a finite number" },
        { "missing SLC",
          good_m,
          replace(good_a, "a.slc", "nothere.slc"),
          grid,
          "error: SLC file 'nothere.slc' (SLC_file of a.PRM): cannot open: No such "
          "file" },
        { "short SLC",
          replace(good_m, "m.slc", "short.slc"),
          good_a,
          grid,
          "error: SLC file 'short.slc' (SLC_file of m.PRM) holds 767996 bytes, fewer "
          "than the 400 x 480 complex int16 samples (768000 bytes) it should hold" },
        { "grid too large",
          good_m,
          good_a,
          grid + " -nx 400",
          "error: the master SLC is too narrow for the grid: 400 columns give x_inc "
          "= "
          "(width - 6*xsearch)/(nx + 3) = (400 - 96)/403 = 0" },
        { "search not a power of two",
          good_m,
          good_a,
          grid + " -xsearch 24",
          "error: -xsearch 24: must be a power of two from 8 to 1024" },
        { "patch outside",
          good_m,
          replace(good_a, "ashift                  = 0", "ashift = 100"),
          grid,
          "leaves the aligned SLC (480 rows x 400 columns) by" },
        { "unknown option",
          good_m,
          good_a,
          grid + " -xsearh 16",
          "error: unknown option '-xsearh'" },
        { "bad device", good_m, good_a, grid + " -device gpu7", "error: " },
        { "PRF in one file only (cfloat32)",
          "SLC_file = m.slc\nPRF = 1000\n",
          "SLC_file = a.slc\nrshift = 0\nashift = 0\n",
          grid + " -cfloat32 200 480",
          "error: key 'PRF' is in m.PRM but not in a.PRM" },
    };
    for (const auto& c : cases) {
        write_text(dir.file("m.PRM"), c.master_prm);
        write_text(dir.file("a.PRM"), c.aligned_prm);
        const run_result r = run_xcorr(dir, "m.PRM a.PRM" + c.args);
        if (r.status != 1 || !contains(r.err, c.message))
            std::cerr << c.what << ": status " << r.status << ", stderr: " << r.err;
        CPPUNIT_ASSERT_EQUAL_MESSAGE(c.what, 1, r.status);
        CPPUNIT_ASSERT_MESSAGE(c.what, contains(r.err, "cudadsp_xcorr: error: "));
        CPPUNIT_ASSERT_MESSAGE(c.what, contains(r.err, c.message));
        CPPUNIT_ASSERT_MESSAGE(c.what + ": no freq_xcorr.dat after an error",
                               !file_exists(dir.file("freq_xcorr.dat")));
    }
    // Not in the grid: the working directory is where the SLC names start.
    write_text(dir.file("m.PRM"), good_m);
    write_text(dir.file("a.PRM"), good_a);
    ::mkdir(dir.file("sub").c_str(), 0755);
    write_text(dir.file("sub/m.PRM"), good_m);
    write_text(dir.file("sub/a.PRM"), good_a);
    const run_result r = run_xcorr(dir, "sub/m.PRM sub/a.PRM" + grid);
    CPPUNIT_ASSERT_EQUAL(0, r.status);
    CPPUNIT_ASSERT(file_exists(dir.file("freq_xcorr.dat")));
}

// Issue 16: input a hostile user gives. Each case failed before its fix: the FIFO
// hung (here: timeout's status 124), the directory was "key 'SLC_file' is missing",
// the numbers were wrapped, the control bytes reached the terminal.
void qa_xcorr_tool::binary_hostile_inputs()
{
    temp_dir dir;
    const long w = 400, h = 480;
    const synthetic_pair p = make_pair(w, h, 0, 0, 7);
    write_binary(dir.file("m.slc"), p.master);
    write_binary(dir.file("a.slc"), p.aligned);
    const std::string good_m = prm_text("m.slc", w, h, 1000.0, 0, 0);
    const std::string good_a = prm_text("a.slc", w, h, 1000.0, 0, 0);
    write_text(dir.file("m.PRM"), good_m);
    write_text(dir.file("a.PRM"), good_a);
    CPPUNIT_ASSERT_EQUAL(0, ::mkfifo(dir.file("fifo.slc").c_str(), 0600));
    CPPUNIT_ASSERT_EQUAL(0, ::mkfifo(dir.file("fifo.PRM").c_str(), 0600));
    CPPUNIT_ASSERT_EQUAL(0, ::mkfifo(dir.file("fifo.txt").c_str(), 0600));
    ::mkdir(dir.file("d.PRM").c_str(), 0755);
    ::mkdir(dir.file("d.slc").c_str(), 0755);
    auto replace = [](std::string t, const std::string& from, const std::string& to) {
        return t.replace(t.find(from), from.size(), to);
    };
    write_text(dir.file("fifo_slc.PRM"), replace(good_a, "a.slc", "fifo.slc"));
    write_text(dir.file("dir_slc.PRM"), replace(good_m, "m.slc", "d.slc"));
    write_text(dir.file("prf.PRM"),
               replace(good_a, "PRF                     = 1000", "PRF = 1e300"));
    write_text(dir.file("ctl.PRM"),
               replace(good_m,
                       "num_valid_az            = 480",
                       "num_valid_az = 480\x07\x1b[2J\x9b"));
    const std::string grid = " -xsearch 16 -ysearch 16 -nx 4 -ny 4 -device cpu";

    struct hostile_case {
        std::string what, args, message, absent;
    };
    const std::vector<hostile_case> cases = {
        { "SLC_file a FIFO",
          "m.PRM fifo_slc.PRM" + grid,
          "error: SLC file 'fifo.slc' (SLC_file of fifo_slc.PRM): is a FIFO (named "
          "pipe), not a regular file",
          "" },
        { "PRM file a FIFO",
          "fifo.PRM a.PRM" + grid,
          "error: PRM file 'fifo.PRM': is a FIFO (named pipe), not a regular file",
          "" },
        { "pair list a FIFO",
          "--pairs fifo.txt" + grid,
          "error: pair list 'fifo.txt': is a FIFO (named pipe), not a regular file",
          "" },
        { "PRM file a directory",
          "m.PRM d.PRM" + grid,
          "error: PRM file 'd.PRM': is a directory, not a file",
          "missing" },
        { "SLC_file a directory",
          "dir_slc.PRM a.PRM" + grid,
          "error: SLC file 'd.slc' (SLC_file of dir_slc.PRM): is a directory, not a "
          "file",
          "" },
        { "-ny 2^31 - 1",
          "m.PRM a.PRM" + grid + " -ny 2147483647",
          "y_inc = (height - 6*ysearch)/(ny + 1) = (480 - 96)/2147483648 = 0; it "
          "needs "
          "at least 2147483744 rows",
          "-2147483648" },
        { "-ny beyond 32 bits",
          "m.PRM a.PRM" + grid + " -ny 99999999999",
          "error: -ny 99999999999: must be an integer from 1 to 2147483647",
          "not an integer" },
        { "PRF 1e300",
          "m.PRM prf.PRM" + grid,
          "error: key 'PRF': the azimuth stretch (PRF of prf.PRM - PRF of m.PRM) / "
          "PRF "
          "of m.PRM = (1e300 - 1000) / 1000 = 1e+297",
          "-2147483" },
        { "control bytes in a PRM value",
          "ctl.PRM a.PRM" + grid,
          "error: ctl.PRM: key 'num_valid_az' = '480\\x07\\x1b[2J\\x9b' is not an "
          "integer",
          "\x07" },
    };
    for (const auto& c : cases) {
        const run_result r = run_xcorr(dir, c.args);
        if (r.status != 1 || !contains(r.err, c.message))
            std::cerr << c.what << ": status " << r.status << ", stderr: " << r.err;
        CPPUNIT_ASSERT_MESSAGE(c.what + ": timed out (hung)", r.status != 124);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(c.what, 1, r.status);
        CPPUNIT_ASSERT_MESSAGE(c.what, contains(r.err, c.message));
        if (!c.absent.empty())
            CPPUNIT_ASSERT_MESSAGE(c.what + ": " + c.absent, !contains(r.err, c.absent));
        for (const char raw : { '\x07', '\x1b', '\x9b' })
            CPPUNIT_ASSERT_MESSAGE(c.what + ": a raw control byte on stderr",
                                   !contains(r.err, std::string(1, raw)));
    }
}

// A stack (--pairs) with broken pairs: each failure is reported naming the pair and
// the parameter, the others run, the exit status is 2, and no failed pair leaves a
// file; list errors stop before any pair (status 1).
void qa_xcorr_tool::stack_failures()
{
    temp_dir dir;
    const long w = 400, h = 480;
    const synthetic_pair p = make_pair(w, h, 2, -3, 7);
    write_binary(dir.file("m.slc"), p.master);
    write_binary(dir.file("a.slc"), p.aligned);
    std::vector<std::int16_t> short_file(p.aligned.begin(), p.aligned.end() - 2);
    write_binary(dir.file("short.slc"), short_file);
    const std::string good_a = prm_text("a.slc", w, h, 1000.0, 0, 0);
    write_text(dir.file("m.PRM"), prm_text("m.slc", w, h, 1000.0, 0, 0));
    write_text(dir.file("a.PRM"), good_a);
    std::string no_key = good_a;
    no_key.erase(no_key.find("num_rng_bins"),
                 no_key.find('\n', no_key.find("num_rng_bins")) -
                     no_key.find("num_rng_bins") + 1);
    write_text(dir.file("nokey.PRM"), no_key);
    write_text(dir.file("short.PRM"), prm_text("short.slc", w, h, 1000.0, 0, 0));
    write_text(dir.file("taken"), "a file where a folder should be");
    write_text(dir.file("list.txt"),
               "m.PRM a.PRM one\n"
               "m.PRM nokey.PRM two\n"
               "m.PRM short.PRM three\n"
               "m.PRM a.PRM taken\n"
               "m.PRM none.PRM\n"
               "m.PRM a.PRM six\n");
    const std::string grid = " -xsearch 16 -ysearch 16 -nx 4 -ny 4 -device cpu";
    const run_result r = run_xcorr(dir, "--pairs list.txt" + grid);
    if (r.status != 2)
        std::cerr << r.err;
    CPPUNIT_ASSERT_EQUAL(2, r.status);
    CPPUNIT_ASSERT(r.out.empty());
    const std::vector<std::string> reasons = {
        "pair 2 of 6 (m.PRM nokey.PRM, list.txt line 2) -> two: failed: nokey.PRM: "
        "key "
        "'num_rng_bins' is missing",
        "pair 3 of 6 (m.PRM short.PRM, list.txt line 3) -> three: failed: SLC file "
        "'short.slc' (SLC_file of short.PRM) holds 767996 bytes, fewer than the 400 "
        "x "
        "480 complex int16 samples (768000 bytes) it should hold",
        "pair 4 of 6 (m.PRM a.PRM, list.txt line 4) -> taken: failed: folder "
        "'taken': "
        "exists and is not a directory",
        "pair 5 of 6 (m.PRM none.PRM, list.txt line 5) -> m_none: failed: PRM file "
        "'none.PRM': cannot open: No such file or directory",
    };
    for (const auto& reason : reasons)
        CPPUNIT_ASSERT_MESSAGE(reason,
                               contains(r.err, "cudadsp_xcorr: " + reason + "\n"));
    CPPUNIT_ASSERT(contains(
        r.err, "pair 1 of 6 (m.PRM a.PRM, list.txt line 1) -> one: ok, 16 patches, "));
    CPPUNIT_ASSERT(contains(
        r.err, "pair 6 of 6 (m.PRM a.PRM, list.txt line 6) -> six: ok, 16 patches, "));
    CPPUNIT_ASSERT(contains(
        r.err, "cudadsp_xcorr: summary: 6 pairs, 2 ok, 4 failed; engine on cpu"));
    CPPUNIT_ASSERT(contains(r.err, "  pair  status  patches  seconds  folder: reason\n"));
    CPPUNIT_ASSERT(contains(r.err, "     2  failed        -  "));
    CPPUNIT_ASSERT(contains(r.err, "  two: nokey.PRM: key 'num_rng_bins' is missing\n"));
    // The good pairs' files, equal to each other (same pair); the failed pairs'
    // folders absent (the setup failed before any folder was made).
    const std::string one = read_text(dir.file("one/freq_xcorr.dat"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(16), split_lines(one).size());
    for (const auto& line : split_lines(one)) {
        // The known shift (aligned[y][x] = master[y - 2][x + 3]) within 0.2 px: 64 x
        // 64 patches with range interpolation 2 put some a few sub-pixel steps off.
        CPPUNIT_ASSERT_MESSAGE(line, std::abs(std::stod(fields(line)[1]) + 3.0) < 0.2);
        CPPUNIT_ASSERT_MESSAGE(line, std::abs(std::stod(fields(line)[3]) - 2.0) < 0.2);
    }
    CPPUNIT_ASSERT_EQUAL(one, read_text(dir.file("six/freq_xcorr.dat")));
    for (const std::string folder : { "two", "three", "m_none" })
        CPPUNIT_ASSERT_MESSAGE(folder, !file_exists(dir.file(folder)));
    CPPUNIT_ASSERT_EQUAL(std::string("a file where a folder should be"),
                         read_text(dir.file("taken")));
    CPPUNIT_ASSERT(folder_names(dir.file("one")) ==
                   std::vector<std::string>{ "freq_xcorr.dat" });

    // List errors: status 1 before any pair, no folder made.
    write_text(dir.file("bad.txt"), "m.PRM a.PRM x\nm.PRM a.PRM x/\n");
    const run_result dup = run_xcorr(dir, "--pairs bad.txt" + grid);
    CPPUNIT_ASSERT_EQUAL(1, dup.status);
    CPPUNIT_ASSERT(contains(dup.err,
                            "cudadsp_xcorr: error: pair list 'bad.txt' line 2: "
                            "folder 'x/' is also the folder of line 1"));
    CPPUNIT_ASSERT(!file_exists(dir.file("x")));
    const run_result missing = run_xcorr(dir, "--pairs nolist.txt" + grid);
    CPPUNIT_ASSERT_EQUAL(1, missing.status);
    CPPUNIT_ASSERT(contains(missing.err,
                            "error: pair list 'nolist.txt': cannot open: No "
                            "such file or directory"));
    // Standard input.
    const run_result piped = run_xcorr(dir, "--pairs - " + grid + " < list.txt");
    CPPUNIT_ASSERT_EQUAL(2, piped.status);
    CPPUNIT_ASSERT(
        contains(piped.err, "(m.PRM a.PRM, standard input line 6) -> six: ok"));
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
