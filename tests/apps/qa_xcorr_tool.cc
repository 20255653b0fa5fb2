/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

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

#include "qa_support.h"
#include "xcorr/output_file.h"
#include "xcorr/pair_list.h"
#include "xcorr/pair_setup.h"
#include "xcorr/printable.h"
#include "xcorr/prm_file.h"
#include "xcorr/regular_file.h"
#include "xcorr/slc_image.h"
#include "xcorr/xcorr_grid.h"
#include "xcorr/xcorr_options.h"
#include "xcorr/xcorr_output.h"
#include <cppunit/extensions/HelperMacros.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {

// ---------------------------------------------------------------------------------
// Helpers: temporary folders, files, running the binary.

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

struct temp_dir {
    std::string path;
    temp_dir()
    {
        const char* base = std::getenv("TMPDIR");
        std::string tmpl = std::string(base ? base : "/tmp") + "/qa_xcorr_tool.XXXXXX";
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        if (!::mkdtemp(buf.data()))
            throw std::runtime_error("mkdtemp failed");
        path = buf.data();
    }
    ~temp_dir()
    {
        const std::string cmd = "rm -rf '" + path + "'";
        if (std::system(cmd.c_str()) != 0)
            std::cerr << "could not remove " << path << std::endl;
    }
    std::string file(const std::string& name) const { return path + "/" + name; }
};

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

//! The names in folder \p path (without "." and ".."), sorted.
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

// A run that takes longer has hung (a FIFO opened without a writer, say): timeout(1)
// ends it with status 124, so the test fails instead of hanging. Generous, for runs
// under compute-sanitizer.
const char* const run_time_limit_s = "300";

// Runs the binary in \p dir with \p args (already shell-quoted where needed).
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

// A synthetic pair: band-limited complex Gaussian speckle (white noise through a
// separable low-pass of bandwidth 0.8, a Kaiser-windowed sinc of 16 taps, like a
// focused SLC; white noise would make GMTSAR's fourth-root sub-pixel step wander by
// 1/interp), int16 with about 800 per component; the aligned image is the master moved
// by (drow, dcol): aligned[y][x] = master[y - drow][x - dcol], with more of the same
// speckle where that leaves the master.
struct synthetic_pair {
    long width, height;
    std::vector<std::int16_t> master, aligned;
};

std::vector<float> lowpass_taps()
{
    const int taps = 16;
    const double B = 0.8, beta = 6.0;
    auto i0 = [](double x) { // modified Bessel function of order 0 (series)
        double sum = 1.0, term = 1.0;
        for (int k = 1; k < 40; ++k) {
            term *= (x / (2.0 * k)) * (x / (2.0 * k));
            sum += term;
        }
        return sum;
    };
    std::vector<float> h(taps);
    for (int k = 0; k < taps; ++k) {
        const double t = k - (taps / 2 - 1) - 0.5; // symmetric about the middle
        const double u = 2.0 * t / taps;
        const double x = M_PI * B * t;
        const double sinc = x == 0.0 ? 1.0 : std::sin(x) / x;
        h[k] =
            static_cast<float>(B * sinc * i0(beta * std::sqrt(1.0 - u * u)) / i0(beta));
    }
    return h;
}

synthetic_pair make_pair(long width, long height, int drow, int dcol, unsigned seed)
{
    const long pad = 32;
    const long bw = width + 2 * pad, bh = height + 2 * pad;
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::vector<std::complex<float>> white(static_cast<std::size_t>(bw * bh));
    for (auto& z : white) {
        const float re = g(rng);
        z = { re, g(rng) };
    }
    // Separable FIR, rows then columns (the borders, pad wide, are never used).
    const auto h = lowpass_taps();
    const long t = static_cast<long>(h.size());
    std::vector<std::complex<float>> tmp(white.size()), base(white.size());
    for (long y = 0; y < bh; ++y)
        for (long x = 0; x + t <= bw; ++x) {
            std::complex<float> acc = 0;
            for (long k = 0; k < t; ++k)
                acc += h[k] * white[static_cast<std::size_t>(y * bw + x + k)];
            tmp[static_cast<std::size_t>(y * bw + x + t / 2)] = acc;
        }
    for (long y = 0; y + t <= bh; ++y)
        for (long x = 0; x < bw; ++x) {
            std::complex<float> acc = 0;
            for (long k = 0; k < t; ++k)
                acc += h[k] * tmp[static_cast<std::size_t>((y + k) * bw + x)];
            base[static_cast<std::size_t>((y + t / 2) * bw + x)] = acc;
        }
    double energy = 0;
    for (long k = 0; k < t; ++k)
        energy += double(h[k]) * h[k];
    const float scale = static_cast<float>(800.0 / energy); // std per component ~800
    auto q = [&](float v) {
        return static_cast<std::int16_t>(
            std::max(-32767.0f, std::min(32767.0f, std::round(v * scale))));
    };
    synthetic_pair p{ width, height, {}, {} };
    p.master.resize(static_cast<std::size_t>(2 * width * height));
    p.aligned.resize(p.master.size());
    for (long y = 0; y < height; ++y)
        for (long x = 0; x < width; ++x) {
            const std::size_t o = static_cast<std::size_t>(2 * (y * width + x));
            const auto m = base[static_cast<std::size_t>((y + pad) * bw + x + pad)];
            const auto a =
                base[static_cast<std::size_t>((y + pad - drow) * bw + x + pad - dcol)];
            p.master[o] = q(m.real());
            p.master[o + 1] = q(m.imag());
            p.aligned[o] = q(a.real());
            p.aligned[o + 1] = q(a.imag());
        }
    return p;
}

std::vector<float> to_float(const std::vector<std::int16_t>& v)
{
    return std::vector<float>(v.begin(), v.end());
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

// The fields of one output line, as text.
std::vector<std::string> fields(const std::string& line)
{
    std::istringstream s(line);
    std::vector<std::string> f;
    std::string t;
    while (s >> t)
        f.push_back(t);
    return f;
}

/*!
 * The scene of end_to_end_integer_shift: a 640 x 768 synthetic pair with a shift of
 * (3, -5) rows and columns, as int16 SLCs (m.slc, a.slc) and complex float32 rasters
 * (m.cf32, a.cf32) in a temporary folder, the patch grid, and the binary run there on
 * one device.
 */
struct integer_shift_scene {
    explicit integer_shift_scene(std::string device_name)
        : device(std::move(device_name)), pair(make_pair(width, height, 3, -5, 11))
    {
        write_binary(dir.file("m.slc"), pair.master);
        write_binary(dir.file("a.slc"), pair.aligned);
        write_binary(dir.file("m.cf32"), to_float(pair.master));
        write_binary(dir.file("a.cf32"), to_float(pair.aligned));
    }

    //! m.PRM and a.PRM for m.slc and a.slc, the aligned one pre-shifted by rshift -4,
    //! ashift 2.
    void write_prms(double master_prf, double aligned_prf) const
    {
        write_text(dir.file("m.PRM"), prm_text("m.slc", width, height, master_prf, 0, 0));
        write_text(dir.file("a.PRM"),
                   prm_text("a.slc", width, height, aligned_prf, -4, 2));
    }

    //! freq_xcorr.dat of a run with \p args on \p run_device (the scene's by default),
    //! which must succeed.
    std::string run_ok(const std::string& args, const std::string& run_device = "") const
    {
        ::unlink(dir.file("freq_xcorr.dat").c_str());
        const std::string command =
            args + " -device " + (run_device.empty() ? device : run_device);
        const run_result r = run_xcorr(dir, command);
        if (r.status != 0)
            std::cerr << command << ": " << r.err;
        CPPUNIT_ASSERT_EQUAL_MESSAGE(command, 0, r.status);
        return read_text(dir.file("freq_xcorr.dat"));
    }

    //! Every line of \p text at its patch centre with offsets \p dx, \p dy (within
    //! one sub-pixel step when \p one_step), in GMTSAR's exact layout.
    void check_lines(const std::string& case_name,
                     const std::string& text,
                     const std::string& dx,
                     const std::string& dy,
                     bool one_step = false) const
    {
        const std::string what = case_name + ", " + device;
        const auto lines = split_lines(text);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(20), lines.size());
        int exact = 0;
        double sum_dx = 0, sum_dy = 0;
        for (std::size_t k = 0; k < lines.size(); ++k) {
            const auto f = fields(lines[k]);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(5), f.size());
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::to_string(xs[k % 4]), f[0]);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::to_string(ys[k / 4]), f[2]);
            if (!one_step && (f[1] != dx || f[3] != dy))
                std::cerr << what << ": " << lines[k];
            exact += f[1] == dx && f[3] == dy;
            sum_dx += std::stod(f[1]) - std::stod(dx);
            sum_dy += std::stod(f[3]) - std::stod(dy);
            if (one_step) {
                // Within one sub-pixel step: 1/32 in range, 1/16 in azimuth.
                CPPUNIT_ASSERT_MESSAGE(what + ": dx " + f[1],
                                       std::abs(std::stod(f[1]) - std::stod(dx)) < 0.032);
                CPPUNIT_ASSERT_MESSAGE(what + ": dy " + f[3],
                                       std::abs(std::stod(f[3]) - std::stod(dy)) < 0.063);
            } else {
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, dx, f[1]);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, dy, f[3]);
            }
            // Identical content: corr close to 100 (the two patch means are over
            // different areas, so not exactly).
            CPPUNIT_ASSERT_MESSAGE(what + ": corr " + f[4], std::stod(f[4]) > 99.0);
            // The exact GMTSAR layout.
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what,
                                         format_line(xs[k % 4],
                                                     std::stof(f[1]),
                                                     ys[k / 4],
                                                     std::stof(f[3]),
                                                     std::stof(f[4])),
                                         lines[k]);
        }
        // Mean offsets within 0.01 px of the truth.
        CPPUNIT_ASSERT_MESSAGE(what + ": mean dx", std::abs(sum_dx / 20) < 0.01);
        CPPUNIT_ASSERT_MESSAGE(what + ": mean dy", std::abs(sum_dy / 20) < 0.01);
        if (one_step)
            std::cout << what << ": " << exact << " of 20 lines exact" << std::endl;
    }

    static constexpr long width = 640, height = 768;
    // Patches of 128 x 128: with 64 x 64 (xsearch 16), GMTSAR's fourth-root sub-pixel
    // step puts a few integer shifts 1/16 off (as the float64 numpy sketch of the
    // design note does on the same data).
    const std::string grid = "-xsearch 32 -ysearch 32 -nx 4 -ny 5";
    // x_inc = (640 - 192)/7 = 64, y_inc = (768 - 192)/6 = 96.
    const std::vector<int> xs = { 256, 320, 384, 448 };
    const std::vector<int> ys = { 224, 320, 416, 512, 608 };
    const std::string device;
    const temp_dir dir;
    const synthetic_pair pair;
};

} // namespace

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
    // -----------------------------------------------------------------------------
    void prm_parsing()
    {
        const prm_file p = prm_file::parse("SLC_file = IMG-HH-ALPSRP.SLC\n"
                                           "num_rng_bins    =   11304\n"
                                           "PRF = 2159.827213\n"
                                           "rshift = -27\n"
                                           "ashift = +38\n"
                                           "earth_radius = 6371776.4060 extra tokens\n",
                                           "m.PRM");
        CPPUNIT_ASSERT_EQUAL(std::string("IMG-HH-ALPSRP.SLC"), p.get_string("SLC_file"));
        CPPUNIT_ASSERT_EQUAL(11304, p.get_int("num_rng_bins"));
        CPPUNIT_ASSERT_EQUAL(-27, p.get_int("rshift"));
        CPPUNIT_ASSERT_EQUAL(38, p.get_int("ashift"));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(2159.827213, p.get_double("PRF"), 0.0);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(6371776.4060, p.get_double("earth_radius"), 0.0);

        // Errors name the file, the key and the text.
        auto message = [](const prm_file& f, const std::string& key, bool as_int) {
            try {
                if (as_int)
                    f.get_int(key);
                else
                    f.get_double(key);
            } catch (const input_error& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        const prm_file bad = prm_file::parse("num_valid_az = 12.7\n"
                                             "num_patches = abc\n"
                                             "PRF = 1e400\n"
                                             "SC_clock_start = nan\n"
                                             "rshift = 99999999999\n"
                                             "ashift = 3x\n"
                                             "x = -\n",
                                             "a.PRM");
        CPPUNIT_ASSERT_EQUAL(
            std::string("a.PRM: key 'num_valid_az' = '12.7' is not an integer"),
            message(bad, "num_valid_az", true));
        CPPUNIT_ASSERT(
            contains(message(bad, "num_patches", true), "'abc' is not an integer"));
        CPPUNIT_ASSERT(contains(message(bad, "ashift", true), "'3x' is not an integer"));
        CPPUNIT_ASSERT(contains(message(bad, "x", true), "'-' is not an integer"));
        CPPUNIT_ASSERT(contains(message(bad, "rshift", true), "out of range"));
        CPPUNIT_ASSERT(
            contains(message(bad, "PRF", false), "'1e400' is not a finite number"));
        CPPUNIT_ASSERT(
            contains(message(bad, "SC_clock_start", false), "not a finite number"));
        CPPUNIT_ASSERT_EQUAL(std::string("a.PRM: key 'SLC_file' is missing"),
                             message(bad, "SLC_file", true));
    }

    void prm_quirks()
    {
        // Reproduced from GMTSAR: the second token is not checked, the third is the
        // value, a later line replaces an earlier one, xshift/yshift are rshift/ashift,
        // CR LF line ends, tabs.
        const prm_file p = prm_file::parse("num_rng_bins : 100\r\n"
                                           "rshift = 5\n"
                                           "xshift = 7\n"
                                           "yshift = -2\n"
                                           "\tnum_patches\t=\t3\t\n"
                                           "num_rng_bins = 200\n",
                                           "q.PRM");
        CPPUNIT_ASSERT_EQUAL(200, p.get_int("num_rng_bins"));
        CPPUNIT_ASSERT_EQUAL(7, p.get_int("rshift"));
        CPPUNIT_ASSERT_EQUAL(-2, p.get_int("ashift"));
        CPPUNIT_ASSERT_EQUAL(3, p.get_int("num_patches"));
        CPPUNIT_ASSERT(!p.has("xshift"));

        // Deviations: a blank line does not reset the previous key (GMTSAR sets it to
        // 0); "key = " and "key value" give an empty value, an error when the key is
        // used (GMTSAR: 0); "key=value" is one token, i.e. no such key (as GMTSAR).
        const prm_file d = prm_file::parse("ashift = 12\n"
                                           "\n"
                                           "   \n"
                                           "rshift =\n"
                                           "num_patches 4\n"
                                           "num_valid_az=9216\n",
                                           "d.PRM");
        CPPUNIT_ASSERT_EQUAL(12, d.get_int("ashift"));
        for (const std::string key : { "rshift", "num_patches" }) {
            try {
                d.get_int(key);
                CPPUNIT_FAIL("an empty value was accepted");
            } catch (const input_error& e) {
                CPPUNIT_ASSERT_EQUAL("d.PRM: key '" + key +
                                         "' has no value (expected a 'key = value' line)",
                                     std::string(e.what()));
            }
        }
        CPPUNIT_ASSERT(!d.has("num_valid_az"));
        CPPUNIT_ASSERT(d.has("num_valid_az=9216"));

        // Files: a missing one is named.
        try {
            prm_file::read("/nonexistent/dir/x.PRM");
            CPPUNIT_FAIL("a missing PRM file was accepted");
        } catch (const input_error& e) {
            CPPUNIT_ASSERT_EQUAL(std::string("PRM file '/nonexistent/dir/x.PRM': cannot "
                                             "open: No such file or directory"),
                                 std::string(e.what()));
        }
    }

    void prm_keys_rules()
    {
        const std::string text = prm_text("s.SLC", 11304, 9216, 2159.8, 3, -4);
        prm_read_options o;
        const prm_keys k = read_prm_keys(prm_file::parse(text, "m.PRM"), o);
        CPPUNIT_ASSERT_EQUAL(std::string("s.SLC"), k.slc_file);
        CPPUNIT_ASSERT_EQUAL(std::int64_t(11304), k.width);
        CPPUNIT_ASSERT_EQUAL(std::int64_t(9216), k.height);
        CPPUNIT_ASSERT(k.has_prf);
        CPPUNIT_ASSERT_EQUAL(0, k.rshift); // read only for the aligned file
        o.read_shifts = true;
        const prm_keys a = read_prm_keys(prm_file::parse(text, "a.PRM"), o);
        CPPUNIT_ASSERT_EQUAL(3, a.rshift);
        CPPUNIT_ASSERT_EQUAL(-4, a.ashift);

        // height = num_patches * num_valid_az
        const prm_keys h = read_prm_keys(
            prm_file::parse("SLC_file = x\nnum_rng_bins = 10\nnum_patches = 3\n"
                            "num_valid_az = 2800\nPRF = 1000\n",
                            "h.PRM"),
            prm_read_options());
        CPPUNIT_ASSERT_EQUAL(std::int64_t(8400), h.height);

        auto error_of = [](const std::string& t, const prm_read_options& ro) {
            try {
                read_prm_keys(prm_file::parse(t, "e.PRM"), ro);
            } catch (const input_error& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        const prm_read_options plain;
        CPPUNIT_ASSERT_EQUAL(std::string("e.PRM: key 'SLC_file' is missing"),
                             error_of("num_rng_bins = 10\n", plain));
        CPPUNIT_ASSERT_EQUAL(std::string("e.PRM: key 'num_rng_bins' is missing"),
                             error_of("SLC_file = x\n", plain));
        CPPUNIT_ASSERT_EQUAL(
            std::string("e.PRM: key 'num_valid_az' is missing"),
            error_of("SLC_file = x\nnum_rng_bins = 10\nnum_patches = 1\n", plain));
        CPPUNIT_ASSERT_EQUAL(std::string("e.PRM: key 'PRF' is missing"),
                             error_of("SLC_file = x\nnum_rng_bins = 10\nnum_patches = 1\n"
                                      "num_valid_az = 10\n",
                                      plain));
        CPPUNIT_ASSERT_EQUAL(
            std::string("e.PRM: key 'num_rng_bins' = 0 must be positive"),
            error_of("SLC_file = x\nnum_rng_bins = 0\nnum_patches = 1\n"
                     "num_valid_az = 10\nPRF = 1\n",
                     plain));
        CPPUNIT_ASSERT_EQUAL(
            std::string("e.PRM: key 'PRF' = '-99999.9999' must be positive"),
            error_of("SLC_file = x\nnum_rng_bins = 5\nnum_patches = 1\n"
                     "num_valid_az = 10\nPRF = -99999.9999\n",
                     plain));
        prm_read_options shifts;
        shifts.read_shifts = true;
        CPPUNIT_ASSERT_EQUAL(std::string("e.PRM: key 'ashift' is missing"),
                             error_of("SLC_file = x\nnum_rng_bins = 5\nnum_patches = 1\n"
                                      "num_valid_az = 10\nPRF = 1\nrshift = 2\n",
                                      shifts));

        // -cfloat32: the size keys and PRF are optional; present size keys must agree.
        prm_read_options cf;
        cf.require_size = false;
        cf.require_prf = false;
        cf.given_width = 512;
        cf.given_height = 256;
        const prm_keys c =
            read_prm_keys(prm_file::parse("SLC_file = img1\n", "c.PRM"), cf);
        CPPUNIT_ASSERT_EQUAL(std::int64_t(512), c.width);
        CPPUNIT_ASSERT_EQUAL(std::int64_t(256), c.height);
        CPPUNIT_ASSERT(!c.has_prf);
        CPPUNIT_ASSERT(
            contains(error_of("SLC_file = x\nnum_rng_bins = 500\nnum_patches = 1\n"
                              "num_valid_az = 256\n",
                              cf),
                     "500 x 256 disagrees with -cfloat32 512 256"));
    }

    // -----------------------------------------------------------------------------
    void grid_alos1_speed_case()
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
                const auto& l =
                    g.locations[static_cast<std::size_t>((j - 1) * 20 + i - 2)];
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

    void grid_defaults()
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

    void grid_errors()
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

    void prf_stretch_overflow()
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

    // -----------------------------------------------------------------------------
    void printable_text()
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

    void regular_files()
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
            slc_image img(dir.path,
                          core::slc_sample_type::complex_int16,
                          1,
                          1,
                          "SLC_file of m.PRM");
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

    // -----------------------------------------------------------------------------
    void pair_list_format()
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
        CPPUNIT_ASSERT_EQUAL(std::string("m_a"),
                             default_pair_folder("x/m.PRM", "/y/a.PRM"));

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
        CPPUNIT_ASSERT(contains(error_of("m.PRM a.grd\n"),
                                "l.txt line 1: 'a.grd': not a .PRM file"));
        CPPUNIT_ASSERT_EQUAL(
            std::string("l.txt line 3: folder 'm_a/' is also the folder "
                        "of line 1 (each pair needs a folder of its own; "
                        "give a third word)"),
            error_of("m.PRM a.PRM\nm.PRM b.PRM\nx/m.PRM y/a.PRM m_a/\n"));
        CPPUNIT_ASSERT(contains(error_of("m.PRM a.PRM out\nm.PRM b.PRM ./out\n"),
                                "line 2: folder './out' is also the folder of line 1"));
        CPPUNIT_ASSERT_EQUAL(std::string("l.txt: no pairs (one 'master.PRM aligned.PRM "
                                         "[FOLDER]' a line is expected)"),
                             error_of("# nothing\n\n"));
    }

    void output_files()
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

    void pairs_and_bounds()
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

    // -----------------------------------------------------------------------------
    void output_format()
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

    void output_arithmetic()
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
        std::vector<core::patch_result> res(
            4, core::patch_result{ 1, -2, 0.0f, 0.0f, 50.0f });
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

    // -----------------------------------------------------------------------------
    void command_line()
    {
        auto parse = [](const std::vector<std::string>& a) {
            return parse_command_line(a);
        };
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
            4,
            parse({ "m.PRM", "a.PRM", "-norange", "-range_interp", "4" }).range_interp);
        CPPUNIT_ASSERT_EQUAL(
            1,
            parse({ "m.PRM", "a.PRM", "-range_interp", "4", "-norange" }).range_interp);
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
        CPPUNIT_ASSERT_EQUAL(
            std::string("-ysearch 4: must be a power of two from 8 to 1024"),
            error_of({ "m.PRM", "a.PRM", "-ysearch", "4" }));
        CPPUNIT_ASSERT_EQUAL(
            std::string("-xsearch 0: must be a power of two from 8 to 1024"),
            error_of({ "m.PRM", "a.PRM", "-xsearch", "0" }));
        CPPUNIT_ASSERT_EQUAL(
            std::string("-range_interp 3: must be a power of two from 1 to 16"),
            error_of({ "m.PRM", "a.PRM", "-range_interp", "3" }));
        CPPUNIT_ASSERT_EQUAL(
            std::string("-interp 0: must be a power of two from 1 to 64"),
            error_of({ "m.PRM", "a.PRM", "-interp", "0" }));
        CPPUNIT_ASSERT_EQUAL(
            std::string("-ysearch 2048: must be a power of two from 8 to 1024"),
            error_of({ "m.PRM", "a.PRM", "-ysearch", "2048" }));
        CPPUNIT_ASSERT_EQUAL(
            std::string("-range_interp 32: must be a power of two from 1 to 16"),
            error_of({ "m.PRM", "a.PRM", "-range_interp", "32" }));
        CPPUNIT_ASSERT_EQUAL(
            std::string("-interp 128: must be a power of two from 1 to 64"),
            error_of({ "m.PRM", "a.PRM", "-interp", "128" }));
        CPPUNIT_ASSERT_EQUAL(std::string("-nx '2x': not an integer"),
                             error_of({ "m.PRM", "a.PRM", "-nx", "2x" }));
        CPPUNIT_ASSERT_EQUAL(
            std::string("-ny 0: must be an integer from 1 to 2147483647"),
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
        CPPUNIT_ASSERT_EQUAL(
            std::string("-cfloat32 4294967296: must be an integer from 1 "
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
        CPPUNIT_ASSERT(
            contains(error_of({ "m.PRM", "a.PRM", "--pairs", "l" }),
                     "--pairs LIST comes first, in place of the two PRM files"));
        CPPUNIT_ASSERT_EQUAL(std::string("-nx: missing value"),
                             error_of({ "m.PRM", "a.PRM", "-nx" }));
        CPPUNIT_ASSERT_EQUAL(std::string("unknown option '-xsrch' (-h for help)"),
                             error_of({ "m.PRM", "a.PRM", "-xsrch", "64" }));
        CPPUNIT_ASSERT_EQUAL(std::string("unknown option '64' (-h for help)"),
                             error_of({ "m.PRM", "a.PRM", "-nx", "4", "64" }));
        CPPUNIT_ASSERT(
            contains(error_of({ "m.PRM", "a.PRM", "-time" }), "not implemented"));
        CPPUNIT_ASSERT(
            contains(error_of({ "m.PRM", "a.PRM", "-real" }), "not supported"));
        CPPUNIT_ASSERT(
            contains(error_of({ "m.grd", "a.PRM" }), "'m.grd': not a .PRM file"));
        CPPUNIT_ASSERT(contains(error_of({ "-nx", "4", "m.PRM", "a.PRM" }),
                                "the two PRM files come first"));
        CPPUNIT_ASSERT(contains(error_of({ "m.PRM" }), "expected two PRM files"));
        CPPUNIT_ASSERT_EQUAL(std::string("-cfloat32 'w': not an integer"),
                             error_of({ "m.PRM", "a.PRM", "-cfloat32", "w", "5" }));
        CPPUNIT_ASSERT_EQUAL(std::string("-cfloat32: missing value"),
                             error_of({ "m.PRM", "a.PRM", "-cfloat32", "5" }));
    }

    void slc_mapping()
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
            CPPUNIT_ASSERT(
                contains(e.what(), "3 x 2 complex float32 samples (48 bytes)"));
        }
        std::vector<float> f = { 1.5f, -2.5f, 3.25f, 4.0f };
        write_binary(dir.file("f.raw"), f);
        slc_image img(
            dir.file("f.raw"), core::slc_sample_type::complex_float32, 2, 1, "t");
        CPPUNIT_ASSERT(img.at(0, 1) == std::complex<float>(3.25f, 4.0f));
        CPPUNIT_ASSERT(img.view().type == core::slc_sample_type::complex_float32);
        CPPUNIT_ASSERT_THROW(
            slc_image(dir.file("none"), core::slc_sample_type::complex_int16, 1, 1, "t"),
            input_error);
        CPPUNIT_ASSERT_THROW(
            slc_image(dir.path, core::slc_sample_type::complex_int16, 1, 1, "t"),
            input_error);
    }

    // -----------------------------------------------------------------------------
    void binary_usage()
    {
        temp_dir dir;
        const run_result help = run_xcorr(dir, "-h");
        CPPUNIT_ASSERT_EQUAL(0, help.status);
        CPPUNIT_ASSERT(contains(help.out, "usage: cudadsp_xcorr master.PRM aligned.PRM"));
        const run_result none = run_xcorr(dir, "");
        CPPUNIT_ASSERT_EQUAL(1, none.status);
        CPPUNIT_ASSERT(
            contains(none.err, "cudadsp_xcorr: error: expected two PRM files"));
    }

    void binary_bad_inputs()
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

    // -----------------------------------------------------------------------------
    // Issue 16: input a hostile user gives. Each case failed before its fix: the FIFO
    // hung (here: timeout's status 124), the directory was "key 'SLC_file' is missing",
    // the numbers were wrapped, the control bytes reached the terminal.
    void binary_hostile_inputs()
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
                CPPUNIT_ASSERT_MESSAGE(c.what + ": " + c.absent,
                                       !contains(r.err, c.absent));
            for (const char raw : { '\x07', '\x1b', '\x9b' })
                CPPUNIT_ASSERT_MESSAGE(c.what + ": a raw control byte on stderr",
                                       !contains(r.err, std::string(1, raw)));
        }
    }

    // -----------------------------------------------------------------------------
    // A stack (--pairs) with broken pairs: each failure is reported naming the pair and
    // the parameter, the others run, the exit status is 2, and no failed pair leaves a
    // file; list errors stop before any pair (status 1).
    void stack_failures()
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
            r.err,
            "pair 1 of 6 (m.PRM a.PRM, list.txt line 1) -> one: ok, 16 patches, "));
        CPPUNIT_ASSERT(contains(
            r.err,
            "pair 6 of 6 (m.PRM a.PRM, list.txt line 6) -> six: ok, 16 patches, "));
        CPPUNIT_ASSERT(contains(
            r.err, "cudadsp_xcorr: summary: 6 pairs, 2 ok, 4 failed; engine on cpu"));
        CPPUNIT_ASSERT(
            contains(r.err, "  pair  status  patches  seconds  folder: reason\n"));
        CPPUNIT_ASSERT(contains(r.err, "     2  failed        -  "));
        CPPUNIT_ASSERT(
            contains(r.err, "  two: nokey.PRM: key 'num_rng_bins' is missing\n"));
        // The good pairs' files, equal to each other (same pair); the failed pairs'
        // folders absent (the setup failed before any folder was made).
        const std::string one = read_text(dir.file("one/freq_xcorr.dat"));
        CPPUNIT_ASSERT_EQUAL(std::size_t(16), split_lines(one).size());
        for (const auto& line : split_lines(one)) {
            // The known shift (aligned[y][x] = master[y - 2][x + 3]) within 0.2 px: 64 x
            // 64 patches with range interpolation 2 put some a few sub-pixel steps off.
            CPPUNIT_ASSERT_MESSAGE(line,
                                   std::abs(std::stod(fields(line)[1]) + 3.0) < 0.2);
            CPPUNIT_ASSERT_MESSAGE(line,
                                   std::abs(std::stod(fields(line)[3]) - 2.0) < 0.2);
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

    // -----------------------------------------------------------------------------
    // A synthetic pair with a known integer shift (integer_shift_scene), run on each
    // backend: aligned[y][x] = master[y - 3][x + 5], so GMTSAR reports dx = -5, dy = +3
    // on every patch, whatever rshift/ashift pre-shift the windows (here -4 and 2,
    // leaving residual lags of -1 and 1), with -noshift (the whole shift is inside the
    // search), and with a PRF stretch that moves the aligned windows further by
    // (int)(y * stretch) rows.
    void end_to_end_integer_shift(const std::string& device)
    {
        const integer_shift_scene scene(device);
        check_every_interpolation(scene);
        check_prf_stretch(scene);
        check_cfloat32_matches_int16(scene);
        check_degenerate_patches(scene);
        check_verbose(scene);
    }

    // -----------------------------------------------------------------------------
    // A stack of three pairs on one master, the second broken (its SLC missing), run
    // on each backend with one engine: the other two files equal byte for byte those
    // of single-pair runs, hold the known shifts, and replace an earlier (poisoned)
    // file; the broken pair is reported and leaves nothing; the exit status is 2.
    void stack_of_pairs(const std::string& device)
    {
        temp_dir dir;
        const long w = 640, h = 768;
        // aligned[y][x] = master[y - drow][x - dcol]: GMTSAR's dx = dcol, dy = drow.
        const synthetic_pair p1 = make_pair(w, h, 3, -5, 11);
        const synthetic_pair p3 = make_pair(w, h, -2, 4, 11);
        CPPUNIT_ASSERT(p1.master == p3.master);
        write_binary(dir.file("m.slc"), p1.master);
        write_binary(dir.file("a1.slc"), p1.aligned);
        write_binary(dir.file("a3.slc"), p3.aligned);
        write_text(dir.file("m.PRM"), prm_text("m.slc", w, h, 1679.9, 0, 0));
        write_text(dir.file("a1.PRM"), prm_text("a1.slc", w, h, 1679.9, -4, 2));
        write_text(dir.file("a2.PRM"), prm_text("a2.slc", w, h, 1679.9, 0, 0));
        write_text(dir.file("a3.PRM"), prm_text("a3.slc", w, h, 1679.9, 3, -1));
        write_text(dir.file("list.txt"),
                   "# three pairs on one master\n"
                   "m.PRM a1.PRM\n"
                   "m.PRM a2.PRM    # a2.slc is missing\n"
                   "m.PRM a3.PRM third\n");
        ::mkdir(dir.file("m_a1").c_str(), 0755);
        write_text(dir.file("m_a1/freq_xcorr.dat"), "poison\n");
        const std::string grid =
            " -norange -xsearch 32 -ysearch 32 -nx 4 -ny 5 -device " + device;

        const run_result r = run_xcorr(dir, "--pairs list.txt -v" + grid);
        if (r.status != 2)
            std::cerr << r.err;
        CPPUNIT_ASSERT_EQUAL(2, r.status);
        CPPUNIT_ASSERT(r.out.empty());
        CPPUNIT_ASSERT(
            contains(r.err,
                     "cudadsp_xcorr: pair 2 of 3 (m.PRM a2.PRM, list.txt line 3) "
                     "-> m_a2: failed: SLC file 'a2.slc' (SLC_file of a2.PRM): "
                     "cannot open: No such file or directory\n"));
        CPPUNIT_ASSERT(contains(
            r.err,
            "pair 1 of 3 (m.PRM a1.PRM, list.txt line 2) -> m_a1: ok, 20 patches, "));
        CPPUNIT_ASSERT(contains(
            r.err,
            "pair 3 of 3 (m.PRM a3.PRM, list.txt line 4) -> third: ok, 20 patches, "));
        CPPUNIT_ASSERT(contains(r.err, "summary: 3 pairs, 2 ok, 1 failed; engine on "));
        CPPUNIT_ASSERT(contains(r.err, "created once in"));
        for (const std::string k : { "1", "2", "3" })
            CPPUNIT_ASSERT(
                contains(r.err, "cudadsp_xcorr: pair " + k + " of 3: time: setup "));
        CPPUNIT_ASSERT(contains(r.err, "20 of 20 patches done"));
        CPPUNIT_ASSERT(!file_exists(dir.file("m_a2")));
        CPPUNIT_ASSERT(folder_names(dir.file("m_a1")) ==
                       std::vector<std::string>{ "freq_xcorr.dat" });
        CPPUNIT_ASSERT(folder_names(dir.file("third")) ==
                       std::vector<std::string>{ "freq_xcorr.dat" });
        const std::string stack1 = read_text(dir.file("m_a1/freq_xcorr.dat"));
        const std::string stack3 = read_text(dir.file("third/freq_xcorr.dat"));

        // The same pairs alone, GMTSAR's form, in the working directory.
        auto single = [&](const std::string& aligned_prm) {
            ::unlink(dir.file("freq_xcorr.dat").c_str());
            const run_result s1 = run_xcorr(dir, "m.PRM " + aligned_prm + grid);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(s1.err, 0, s1.status);
            return read_text(dir.file("freq_xcorr.dat"));
        };
        CPPUNIT_ASSERT_EQUAL(single("a1.PRM"), stack1);
        CPPUNIT_ASSERT_EQUAL(single("a3.PRM"), stack3);

        // The known shifts: every line within one sub-pixel step (1/16), the means
        // within 0.01 px.
        auto check_shift = [&](const std::string& text, double dx, double dy) {
            const auto lines = split_lines(text);
            CPPUNIT_ASSERT_EQUAL(std::size_t(20), lines.size());
            double sdx = 0, sdy = 0;
            for (const auto& line : lines) {
                const auto f = fields(line);
                CPPUNIT_ASSERT_MESSAGE(line, std::abs(std::stod(f[1]) - dx) < 0.063);
                CPPUNIT_ASSERT_MESSAGE(line, std::abs(std::stod(f[3]) - dy) < 0.063);
                sdx += std::stod(f[1]) - dx;
                sdy += std::stod(f[3]) - dy;
            }
            CPPUNIT_ASSERT_MESSAGE(text, std::abs(sdx / 20) < 0.01);
            CPPUNIT_ASSERT_MESSAGE(text, std::abs(sdy / 20) < 0.01);
        };
        check_shift(stack1, -5.0, 3.0);
        check_shift(stack3, 4.0, -2.0);
    }

private:
    void check_every_interpolation(const integer_shift_scene& scene)
    {
        scene.write_prms(1679.9, 1679.9);
        const std::string& grid = scene.grid;
        const std::string ri1 = scene.run_ok("m.PRM a.PRM -norange " + grid);
        scene.check_lines("ri 1", ri1, "-5.000", "3.000");
        scene.check_lines("ri 1 nointerp",
                          scene.run_ok("m.PRM a.PRM -norange -nointerp " + grid),
                          "-5.000",
                          "3.000");
        scene.check_lines("ri 1 noshift",
                          scene.run_ok("m.PRM a.PRM -norange -noshift " + grid),
                          "-5.000",
                          "3.000");
        // With range interpolation 2, GMTSAR's periodic row interpolation of windows
        // that differ at their edges moves a few offsets by one sub-pixel step (the
        // numpy sketch of the design note does the same).
        const std::string ri2 = scene.run_ok("m.PRM a.PRM " + grid);
        scene.check_lines("ri 2", ri2, "-5.000", "3.000", true);
        if (scene.device != "cpu") {
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                "cpu and " + scene.device + " agree, ri 1",
                scene.run_ok("m.PRM a.PRM -norange " + grid, "cpu"),
                ri1);
            CPPUNIT_ASSERT_EQUAL_MESSAGE("cpu and " + scene.device + " agree, ri 2",
                                         scene.run_ok("m.PRM a.PRM " + grid, "cpu"),
                                         ri2);
        }
    }

    void check_prf_stretch(const integer_shift_scene& scene)
    {
        // A PRF stretch of 1%: the aligned windows move by (int)(0.01 y) = 2..6 more
        // rows; the content is not stretched, so dy stays 3.
        scene.write_prms(1000.0, 1010.0);
        scene.check_lines("stretch",
                          scene.run_ok("m.PRM a.PRM -norange " + scene.grid),
                          "-5.000",
                          "3.000");
    }

    void check_cfloat32_matches_int16(const integer_shift_scene& scene)
    {
        // The same pair as complex float32 rasters: the same lines.
        scene.write_prms(1679.9, 1679.9);
        const std::string from_int16 = scene.run_ok("m.PRM a.PRM " + scene.grid);
        write_text(scene.dir.file("mf.PRM"), "SLC_file = m.cf32\n");
        write_text(scene.dir.file("af.PRM"),
                   "SLC_file = a.cf32\nrshift = -4\nashift = 2\n");
        const std::string from_float =
            scene.run_ok("mf.PRM af.PRM -cfloat32 640 768 " + scene.grid);
        CPPUNIT_ASSERT_EQUAL(from_int16, from_float);
    }

    void check_degenerate_patches(const integer_shift_scene& scene)
    {
        // An aligned image of zeros: every patch is degenerate and gets GMTSAR's fixed
        // line (design note 5.11): jpeak = -xsearch, ipeak = -ysearch, fractions -1/16,
        // corr 0: dx = (32 + 1/16)/2 - 4 = 12.03125, dy = 32 + 1/16 + 2 = 34.0625.
        scene.write_prms(1679.9, 1679.9);
        write_binary(scene.dir.file("z.slc"),
                     std::vector<std::int16_t>(scene.pair.aligned.size(), 0));
        write_text(scene.dir.file("z.PRM"),
                   prm_text("z.slc", scene.width, scene.height, 1679.9, -4, 2));
        const auto zero_lines = split_lines(scene.run_ok("m.PRM z.PRM " + scene.grid));
        CPPUNIT_ASSERT_EQUAL(std::size_t(20), zero_lines.size());
        for (std::size_t k = 0; k < zero_lines.size(); ++k)
            CPPUNIT_ASSERT_EQUAL(" " + std::to_string(scene.xs[k % 4]) + " 12.031 " +
                                     std::to_string(scene.ys[k / 4]) +
                                     " 34.062   0.00 \n",
                                 zero_lines[k]);
    }

    void check_verbose(const integer_shift_scene& scene)
    {
        // -v: progress and the timing breakdown on stderr, nothing on stdout, and the
        // same lines as without it.
        scene.write_prms(1679.9, 1679.9);
        const std::string quiet = scene.run_ok("m.PRM a.PRM " + scene.grid);
        ::unlink(scene.dir.file("freq_xcorr.dat").c_str());
        const run_result verbose = run_xcorr(
            scene.dir, "m.PRM a.PRM -v " + scene.grid + " -device " + scene.device);
        CPPUNIT_ASSERT_EQUAL(0, verbose.status);
        CPPUNIT_ASSERT(verbose.out.empty());
        CPPUNIT_ASSERT(contains(verbose.err, "20 of 20 patches done"));
        CPPUNIT_ASSERT(contains(verbose.err, "compute"));
        CPPUNIT_ASSERT(contains(verbose.err, "time:"));
        CPPUNIT_ASSERT_EQUAL(quiet, read_text(scene.dir.file("freq_xcorr.dat")));
    }

public:
    void shared_cfloat32_pair(const std::string& device)
    {
        // The shared ISCE test pair (512 x 512 CFloat32, a true offset of a few
        // hundredths of a pixel) through -cfloat32: 64 patches, mean offsets within
        // 0.1 px of zero on both axes, with and without range interpolation.
        const std::string img1 = qa::data_file("insar/img1_WN_512x512_1x1_128");
        const std::string dir_data = img1.substr(0, img1.rfind('/'));
        temp_dir dir;
        write_text(dir.file("img1.PRM"), "SLC_file = " + img1 + "\n");
        write_text(dir.file("img2.PRM"),
                   "SLC_file = " + dir_data +
                       "/img2_WN_512x512_1x1_128\nrshift = 0\nashift = 0\n");
        for (const std::string ri : { "-norange", "-range_interp 2" }) {
            ::unlink(dir.file("freq_xcorr.dat").c_str());
            const run_result r = run_xcorr(dir,
                                           "img1.PRM img2.PRM -cfloat32 512 512 -xsearch "
                                           "32 -ysearch 32 -nx 8 -ny 8 -device " +
                                               device + " " + ri);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(r.err, 0, r.status);
            const auto lines = split_lines(read_text(dir.file("freq_xcorr.dat")));
            CPPUNIT_ASSERT_EQUAL(std::size_t(64), lines.size());
            double sdx = 0, sdy = 0;
            for (const auto& l : lines) {
                const auto f = fields(l);
                sdx += std::stod(f[1]);
                sdy += std::stod(f[3]);
            }
            std::cout << "shared pair " << device << " " << ri << ": mean dx " << sdx / 64
                      << ", mean dy " << sdy / 64 << std::endl;
            CPPUNIT_ASSERT(std::abs(sdx / 64) < 0.1);
            CPPUNIT_ASSERT(std::abs(sdy / 64) < 0.1);
            CPPUNIT_ASSERT_EQUAL(std::string("186"), fields(lines.front())[0]);
            CPPUNIT_ASSERT_EQUAL(std::string("163"), fields(lines.front())[2]);
            CPPUNIT_ASSERT_EQUAL(std::string("389"), fields(lines.back())[0]);
            CPPUNIT_ASSERT_EQUAL(std::string("408"), fields(lines.back())[2]);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_xcorr_tool);

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
