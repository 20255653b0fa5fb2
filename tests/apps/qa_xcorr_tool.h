/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_XCORR_TOOL_H
#define INCLUDED_CUDADSP_QA_XCORR_TOOL_H

// cudadsp_xcorr: its units (PRM parsing, the patch grid, the output lines, the command
// line) against values computed by hand from GMTSAR's rules
// (docs/design/gmtsar_xcorr.md, sections 1-4 and 5.10), and the binary itself on
// temporary PRM and SLC files: every class of bad input ends with exit status 1 and a
// message naming the cause, and a synthetic pair with a known integer shift gives
// exactly that shift on every line of freq_xcorr.dat.
//
// The stack form (--pairs): its list format, and a stack with broken pairs whose good
// pairs' files equal, byte for byte, those of single-pair runs. Hostile input (issue
// 16): FIFOs and directories where files are expected, numbers beyond 32 bits, control
// bytes in PRM values, each through the binary under a timeout, so that a hang fails.
//
// The binary run is the one built beside this test, or $CUDADSP_XCORR.
//
// The cases are defined by concern in qa_xcorr_tool_<concern>.cc; qa_xcorr_tool.cc
// registers the suite and holds the helpers below (temporary folders, files, runs of
// the binary, PRM text, output lines); qa_xcorr_synthetic_pair.h makes the SLC pairs.

#include "qa_support.h"
#include <cppunit/extensions/HelperMacros.h>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace xcorr {

//! What the files of qa_xcorr_tool share.
namespace xcorr_tool_qa {

//! A temporary folder, removed with its content at the end of its scope.
struct temp_dir {
    std::string path;
    temp_dir();
    ~temp_dir();
    std::string file(const std::string& name) const { return path + "/" + name; }
};

void write_text(const std::string& path, const std::string& text);

std::string read_text(const std::string& path);

bool file_exists(const std::string& path);

//! The names in folder \p path (without "." and ".."), sorted.
std::vector<std::string> folder_names(const std::string& path);

template <typename T>
void write_binary(const std::string& path, const std::vector<T>& v)
{
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(v.data()),
            static_cast<std::streamsize>(v.size() * sizeof(T)));
    if (!f)
        throw std::runtime_error("cannot write " + path);
}

struct run_result {
    int status = -1; // exit status, or -1 when the process did not exit normally
    std::string out;
    std::string err;
};

// Runs the binary in \p dir with \p args (already shell-quoted where needed).
run_result run_xcorr(const temp_dir& dir, const std::string& args);

bool contains(const std::string& text, const std::string& part);

//! A PRM file's text for \p slc, with the keys in the order and style GMTSAR writes them.
std::string prm_text(
    const std::string& slc, long width, long height, double prf, int rshift, int ashift);

//! The lines of \p text, each with its newline.
std::vector<std::string> split_lines(const std::string& text);

// The fields of one output line, as text.
std::vector<std::string> fields(const std::string& line);

} // namespace xcorr_tool_qa

class qa_xcorr_tool : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_xcorr_tool);
    CPPUNIT_TEST(prm_parsing);
    CPPUNIT_TEST(prm_quirks);
    CPPUNIT_TEST(prm_keys_rules);
    CPPUNIT_TEST(grid_alos1_speed_case);
    CPPUNIT_TEST(grid_defaults);
    CPPUNIT_TEST(grid_errors);
    CPPUNIT_TEST(prf_stretch_overflow);
    CPPUNIT_TEST(printable_text);
    CPPUNIT_TEST(regular_files);
    CPPUNIT_TEST(pair_list_format);
    CPPUNIT_TEST(output_files);
    CPPUNIT_TEST(pairs_and_bounds);
    CPPUNIT_TEST(output_format);
    CPPUNIT_TEST(output_arithmetic);
    CPPUNIT_TEST(command_line);
    CPPUNIT_TEST(slc_mapping);
    CPPUNIT_TEST(binary_usage);
    CPPUNIT_TEST(binary_bad_inputs);
    CPPUNIT_TEST(binary_hostile_inputs);
    CPPUNIT_TEST(stack_failures);
    QA_BACKEND_TEST(end_to_end_integer_shift);
    QA_BACKEND_TEST(shared_cfloat32_pair);
    QA_BACKEND_TEST(stack_of_pairs);
    CPPUNIT_TEST_SUITE_END();

public:
    // qa_xcorr_tool_prm.cc
    void prm_parsing();
    void prm_quirks();
    void prm_keys_rules();

    // qa_xcorr_tool_grid.cc
    void grid_alos1_speed_case();
    void grid_defaults();
    void grid_errors();
    void prf_stretch_overflow();
    void pairs_and_bounds();

    // qa_xcorr_tool_inputs.cc
    void printable_text();
    void regular_files();
    void pair_list_format();
    void slc_mapping();

    // qa_xcorr_tool_output.cc
    void output_files();
    void output_format();
    void output_arithmetic();

    // qa_xcorr_tool_command_line.cc
    void command_line();

    // qa_xcorr_tool_binary_errors.cc
    void binary_usage();
    void binary_bad_inputs();
    void binary_hostile_inputs();
    void stack_failures();

    // qa_xcorr_tool_end_to_end.cc
    void end_to_end_integer_shift(const std::string& device);
    void stack_of_pairs(const std::string& device);
    void shared_cfloat32_pair(const std::string& device);
};

} // namespace xcorr
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_XCORR_TOOL_H */
