/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_xcorr_tool (qa_xcorr_tool.h): its registration, and the helpers its files share.

#include "qa_xcorr_tool.h"
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace xcorr_tool_qa {

namespace {

std::string xcorr_binary()
{
    if (const char* env = std::getenv("CUDADSP_XCORR"))
        return env;
#ifdef CUDADSP_XCORR_BINARY
    if (::access(CUDADSP_XCORR_BINARY, X_OK) == 0)
        return CUDADSP_XCORR_BINARY;
#endif
    // Beside this test (a GPU bundle puts all binaries in one folder).
    char self[4096];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        std::string dir(self, static_cast<std::size_t>(n));
        dir = dir.substr(0, dir.rfind('/'));
        for (const std::string& c :
             { dir + "/cudadsp_xcorr", dir + "/../apps/cudadsp_xcorr" })
            if (::access(c.c_str(), X_OK) == 0)
                return c;
    }
    return "cudadsp_xcorr";
}

// A run that takes longer has hung (a FIFO opened without a writer, say): timeout(1)
// ends it with status 124, so the test fails instead of hanging. Generous, for runs
// under compute-sanitizer.
const char* const run_time_limit_s = "300";

} // namespace

temp_dir::temp_dir()
{
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/qa_xcorr_tool.XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data()))
        throw std::runtime_error("mkdtemp failed");
    path = buf.data();
}

temp_dir::~temp_dir()
{
    const std::string cmd = "rm -rf '" + path + "'";
    if (std::system(cmd.c_str()) != 0)
        std::cerr << "could not remove " << path << std::endl;
}

void write_text(const std::string& path, const std::string& text)
{
    std::ofstream f(path, std::ios::binary);
    f << text;
    if (!f)
        throw std::runtime_error("cannot write " + path);
}

std::string read_text(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

bool file_exists(const std::string& path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> folder_names(const std::string& path)
{
    std::vector<std::string> names;
    if (DIR* d = ::opendir(path.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            const std::string name = e->d_name;
            if (name != "." && name != "..")
                names.push_back(name);
        }
        ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
}

run_result run_xcorr(const temp_dir& dir, const std::string& args)
{
    const std::string cmd = "cd '" + dir.path + "' && timeout -k 5 " + run_time_limit_s +
                            " '" + xcorr_binary() + "' " + args +
                            " > stdout.txt 2> stderr.txt";
    const int raw = std::system(cmd.c_str());
    run_result r;
    r.status = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
    r.out = read_text(dir.file("stdout.txt"));
    r.err = read_text(dir.file("stderr.txt"));
    ::unlink(dir.file("stdout.txt").c_str());
    ::unlink(dir.file("stderr.txt").c_str());
    return r;
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

std::string prm_text(
    const std::string& slc, long width, long height, double prf, int rshift, int ashift)
{
    // Keys in the order and style GMTSAR writes them, with some it has and xcorr ignores.
    std::ostringstream s;
    s << "input_file              = raw.dat\n"
      << "num_valid_az            = " << height << "\n"
      << "nrows                   = " << height + 200 << "\n"
      << "first_line              = 1\n"
      << "num_patches             = 1\n"
      << "SLC_file                = " << slc << "\n"
      << "num_rng_bins            = " << width << "\n"
      << "bytes_per_line          = " << 4 * width << "\n"
      << "PRF                     = " << prf << "\n"
      << "SC_identity             = 5\n"
      << "rshift                  = " << rshift << "\n"
      << "ashift                  = " << ashift << "\n"
      << "sub_int_r               = 0.0\n"
      << "sub_int_a               = 0.0\n";
    return s.str();
}

std::vector<std::string> split_lines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream s(text);
    std::string l;
    while (std::getline(s, l))
        lines.push_back(l + "\n");
    return lines;
}

std::vector<std::string> fields(const std::string& line)
{
    std::istringstream s(line);
    std::vector<std::string> f;
    std::string t;
    while (s >> t)
        f.push_back(t);
    return f;
}

} // namespace xcorr_tool_qa

CPPUNIT_TEST_SUITE_REGISTRATION(qa_xcorr_tool);

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
