/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_xcorr_tool: what the tool reads: text made printable, regular files only (not
// directories or FIFOs), pair lists, and SLC files mapped as images.

#include "qa_xcorr_tool.h"
#include "xcorr/pair_list.h"
#include "xcorr/printable.h"
#include "xcorr/prm_file.h"
#include "xcorr/regular_file.h"
#include "xcorr/slc_image.h"
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {

using xcorr_tool_qa::contains;
using xcorr_tool_qa::temp_dir;
using xcorr_tool_qa::write_binary;
using xcorr_tool_qa::write_text;

} // namespace

void qa_xcorr_tool::printable_text()
{
    // Terminal controls become \xNN; printable ASCII and valid UTF-8 stay.
    CPPUNIT_ASSERT_EQUAL(std::string("a.SLC"), printable("a.SLC"));
    CPPUNIT_ASSERT_EQUAL(std::string("a\\x07b\\x1b[31mred\\x0d\\x0a\\x09"),
                         printable("a\x07"
                                   "b\x1b[31mred\r\n\t"));
    CPPUNIT_ASSERT_EQUAL(std::string("\\x7f\\x00z"),
                         printable(std::string("\x7f\0z", 3)));
    CPPUNIT_ASSERT_EQUAL(std::string("B\xc3\xbc"
                                     "cher/\xe6\x97\xa5.PRM \xf0\x9f\x9b\xb0"),
                         printable("B\xc3\xbc"
                                   "cher/\xe6\x97\xa5.PRM \xf0\x9f\x9b\xb0"));
    // A lone CSI byte, a C1 control encoded in UTF-8, a truncated sequence, an
    // overlong encoding and a surrogate are escaped byte by byte.
    CPPUNIT_ASSERT_EQUAL(std::string("\\x9b2J"),
                         printable("\x9b"
                                   "2J"));
    CPPUNIT_ASSERT_EQUAL(std::string("\\xc2\\x9b"), printable("\xc2\x9b"));
    CPPUNIT_ASSERT_EQUAL(std::string("x\\xe6\\x97"), printable("x\xe6\x97"));
    CPPUNIT_ASSERT_EQUAL(std::string("\\xc0\\xaf"), printable("\xc0\xaf"));
    CPPUNIT_ASSERT_EQUAL(std::string("\\xed\\xa0\\x80"), printable("\xed\xa0\x80"));
}

void qa_xcorr_tool::regular_files()
{
    // Directories and FIFOs are named for what they are, before any open() (a FIFO
    // without a writer would block it: this test would hang, so its FIFO case runs
    // in a child process with a time limit).
    temp_dir dir;
    ::mkdir(dir.file("d.PRM").c_str(), 0755);
    try {
        prm_file::read(dir.file("d.PRM"));
        CPPUNIT_FAIL("a directory was read as a PRM file");
    } catch (const input_error& e) {
        CPPUNIT_ASSERT_EQUAL("PRM file '" + dir.file("d.PRM") +
                                 "': is a directory, not a file",
                             std::string(e.what()));
    }
    try {
        slc_image img(
            dir.path, core::slc_sample_type::complex_int16, 1, 1, "SLC_file of m.PRM");
        CPPUNIT_FAIL("a directory was mapped as an SLC file");
    } catch (const input_error& e) {
        CPPUNIT_ASSERT_EQUAL("SLC file '" + dir.path +
                                 "' (SLC_file of m.PRM): is a directory, not a file",
                             std::string(e.what()));
    }
    CPPUNIT_ASSERT_EQUAL(0, ::mkfifo(dir.file("f.PRM").c_str(), 0600));
    std::fflush(nullptr);
    const pid_t child = ::fork();
    if (child == 0) {
        ::alarm(20); // a regression blocks in open(): SIGALRM ends the child
        try {
            prm_file::read(dir.file("f.PRM"));
        } catch (const input_error& e) {
            ::_exit(std::string(e.what()) == "PRM file '" + dir.file("f.PRM") +
                                                 "': is a FIFO (named pipe), not a "
                                                 "regular file"
                        ? 0
                        : 3);
        }
        ::_exit(4);
    }
    int status = 0;
    CPPUNIT_ASSERT_EQUAL(child, ::waitpid(child, &status, 0));
    CPPUNIT_ASSERT_MESSAGE("the FIFO check did not finish (blocked in open?)",
                           WIFEXITED(status));
    CPPUNIT_ASSERT_EQUAL_MESSAGE("the FIFO's message", 0, WEXITSTATUS(status));
    try {
        read_regular_file("/dev/null", "pair list '/dev/null'");
        CPPUNIT_FAIL("a character device was read");
    } catch (const input_error& e) {
        CPPUNIT_ASSERT_EQUAL(std::string("pair list '/dev/null': is a character "
                                         "device, not a regular file"),
                             std::string(e.what()));
    }
    write_text(dir.file("ok.txt"), "text\n");
    CPPUNIT_ASSERT_EQUAL(std::string("text\n"),
                         read_regular_file(dir.file("ok.txt"), "t"));
}

void qa_xcorr_tool::pair_list_format()
{
    const std::vector<pair_entry> p =
        parse_pair_list("# a stack on one master\n"
                        "master.PRM s1.PRM\n"
                        "\n"
                        "   \t \n"
                        "master.PRM\tstack/s2.PRM   out/two/   # a comment\r\n"
                        "../m/S1_20190704.PRM  ../a/S1_20190716.PRM#tight comment\n",
                        "pairs.txt");
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), p.size());
    CPPUNIT_ASSERT_EQUAL(std::string("master.PRM"), p[0].master_prm);
    CPPUNIT_ASSERT_EQUAL(std::string("s1.PRM"), p[0].aligned_prm);
    CPPUNIT_ASSERT_EQUAL(std::string("master_s1"), p[0].folder);
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), p[0].line);
    CPPUNIT_ASSERT_EQUAL(std::string("stack/s2.PRM"), p[1].aligned_prm);
    CPPUNIT_ASSERT_EQUAL(std::string("out/two/"), p[1].folder);
    CPPUNIT_ASSERT_EQUAL(std::size_t(5), p[1].line);
    CPPUNIT_ASSERT_EQUAL(std::string("S1_20190704_S1_20190716"), p[2].folder);
    CPPUNIT_ASSERT_EQUAL(std::string("../a/S1_20190716.PRM"), p[2].aligned_prm);
    CPPUNIT_ASSERT_EQUAL(std::size_t(6), p[2].line);
    CPPUNIT_ASSERT_EQUAL(std::string("m_a"), default_pair_folder("x/m.PRM", "/y/a.PRM"));

    auto error_of = [](const std::string& text) {
        try {
            parse_pair_list(text, "l.txt");
        } catch (const input_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CPPUNIT_ASSERT_EQUAL(std::string("l.txt line 2: expected 'master.PRM aligned.PRM "
                                     "[FOLDER]', found 1 word"),
                         error_of("m.PRM a.PRM\nm.PRM\n"));
    CPPUNIT_ASSERT_EQUAL(std::string("l.txt line 1: expected 'master.PRM aligned.PRM "
                                     "[FOLDER]', found 4 words"),
                         error_of("m.PRM a.PRM f g\n"));
    CPPUNIT_ASSERT(
        contains(error_of("m.PRM a.grd\n"), "l.txt line 1: 'a.grd': not a .PRM file"));
    CPPUNIT_ASSERT_EQUAL(std::string("l.txt line 3: folder 'm_a/' is also the folder "
                                     "of line 1 (each pair needs a folder of its own; "
                                     "give a third word)"),
                         error_of("m.PRM a.PRM\nm.PRM b.PRM\nx/m.PRM y/a.PRM m_a/\n"));
    CPPUNIT_ASSERT(contains(error_of("m.PRM a.PRM out\nm.PRM b.PRM ./out\n"),
                            "line 2: folder './out' is also the folder of line 1"));
    CPPUNIT_ASSERT_EQUAL(std::string("l.txt: no pairs (one 'master.PRM aligned.PRM "
                                     "[FOLDER]' a line is expected)"),
                         error_of("# nothing\n\n"));
}

void qa_xcorr_tool::slc_mapping()
{
    temp_dir dir;
    std::vector<std::int16_t> s = { 1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12 };
    write_binary(dir.file("a.slc"), s);
    {
        slc_image img(
            dir.file("a.slc"), core::slc_sample_type::complex_int16, 3, 2, "test");
        CPPUNIT_ASSERT_EQUAL(std::size_t(24), img.file_bytes());
        CPPUNIT_ASSERT(img.view().data != nullptr);
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), img.view().width);
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), img.view().height);
        CPPUNIT_ASSERT(img.at(1, 2) == std::complex<float>(11.0f, -12.0f));
        CPPUNIT_ASSERT(img.at(0, 1) == std::complex<float>(3.0f, -4.0f));
        CPPUNIT_ASSERT_EQUAL(std::size_t(12), img.touch_rows(1, 5));
    }
    {
        // A longer file is fine (its tail unused).
        slc_image img(
            dir.file("a.slc"), core::slc_sample_type::complex_int16, 2, 2, "test");
        CPPUNIT_ASSERT(img.at(1, 1) == std::complex<float>(7.0f, -8.0f));
    }
    try {
        slc_image img(dir.file("a.slc"),
                      core::slc_sample_type::complex_int16,
                      4,
                      2,
                      "SLC_file of m.PRM");
        CPPUNIT_FAIL("a short file was accepted");
    } catch (const input_error& e) {
        CPPUNIT_ASSERT(contains(e.what(),
                                "(SLC_file of m.PRM) holds 24 bytes, fewer "
                                "than the 4 x 2 complex int16 samples (32 "
                                "bytes) it should hold"));
    }
    try {
        slc_image img(
            dir.file("a.slc"), core::slc_sample_type::complex_float32, 3, 2, "t");
        CPPUNIT_FAIL("a short float file was accepted");
    } catch (const input_error& e) {
        CPPUNIT_ASSERT(contains(e.what(), "3 x 2 complex float32 samples (48 bytes)"));
    }
    std::vector<float> f = { 1.5f, -2.5f, 3.25f, 4.0f };
    write_binary(dir.file("f.raw"), f);
    slc_image img(dir.file("f.raw"), core::slc_sample_type::complex_float32, 2, 1, "t");
    CPPUNIT_ASSERT(img.at(0, 1) == std::complex<float>(3.25f, 4.0f));
    CPPUNIT_ASSERT(img.view().type == core::slc_sample_type::complex_float32);
    CPPUNIT_ASSERT_THROW(
        slc_image(dir.file("none"), core::slc_sample_type::complex_int16, 1, 1, "t"),
        input_error);
    CPPUNIT_ASSERT_THROW(
        slc_image(dir.path, core::slc_sample_type::complex_int16, 1, 1, "t"),
        input_error);
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
