/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_xcorr_tool: the binary on synthetic pairs of known integer shifts, alone and as a
// stack, and on the shared ISCE CFloat32 pair, on each backend.

#include "qa_xcorr_synthetic_pair.h"
#include "qa_xcorr_tool.h"
#include "xcorr/xcorr_output.h"
#include <sys/stat.h>
#include <unistd.h>
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
using xcorr_tool_qa::to_float;
using xcorr_tool_qa::write_binary;
using xcorr_tool_qa::write_text;

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
        CPPUNIT_ASSERT_EQUAL_MESSAGE("cpu and " + scene.device + " agree, ri 1",
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
    scene.check_lines(
        "stretch", scene.run_ok("m.PRM a.PRM -norange " + scene.grid), "-5.000", "3.000");
}

void check_cfloat32_matches_int16(const integer_shift_scene& scene)
{
    // The same pair as complex float32 rasters: the same lines.
    scene.write_prms(1679.9, 1679.9);
    const std::string from_int16 = scene.run_ok("m.PRM a.PRM " + scene.grid);
    write_text(scene.dir.file("mf.PRM"), "SLC_file = m.cf32\n");
    write_text(scene.dir.file("af.PRM"), "SLC_file = a.cf32\nrshift = -4\nashift = 2\n");
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
                                 std::to_string(scene.ys[k / 4]) + " 34.062   0.00 \n",
                             zero_lines[k]);
}

void check_verbose(const integer_shift_scene& scene)
{
    // -v: progress and the timing breakdown on stderr, nothing on stdout, and the
    // same lines as without it.
    scene.write_prms(1679.9, 1679.9);
    const std::string quiet = scene.run_ok("m.PRM a.PRM " + scene.grid);
    ::unlink(scene.dir.file("freq_xcorr.dat").c_str());
    const run_result verbose =
        run_xcorr(scene.dir, "m.PRM a.PRM -v " + scene.grid + " -device " + scene.device);
    CPPUNIT_ASSERT_EQUAL(0, verbose.status);
    CPPUNIT_ASSERT(verbose.out.empty());
    CPPUNIT_ASSERT(contains(verbose.err, "20 of 20 patches done"));
    CPPUNIT_ASSERT(contains(verbose.err, "compute"));
    CPPUNIT_ASSERT(contains(verbose.err, "time:"));
    CPPUNIT_ASSERT_EQUAL(quiet, read_text(scene.dir.file("freq_xcorr.dat")));
}

} // namespace

// A synthetic pair with a known integer shift (integer_shift_scene), run on each
// backend: aligned[y][x] = master[y - 3][x + 5], so GMTSAR reports dx = -5, dy = +3
// on every patch, whatever rshift/ashift pre-shift the windows (here -4 and 2,
// leaving residual lags of -1 and 1), with -noshift (the whole shift is inside the
// search), and with a PRF stretch that moves the aligned windows further by
// (int)(y * stretch) rows.
void qa_xcorr_tool::end_to_end_integer_shift(const std::string& device)
{
    const integer_shift_scene scene(device);
    check_every_interpolation(scene);
    check_prf_stretch(scene);
    check_cfloat32_matches_int16(scene);
    check_degenerate_patches(scene);
    check_verbose(scene);
}

// A stack of three pairs on one master, the second broken (its SLC missing), run
// on each backend with one engine: the other two files equal byte for byte those
// of single-pair runs, hold the known shifts, and replace an earlier (poisoned)
// file; the broken pair is reported and leaves nothing; the exit status is 2.
void qa_xcorr_tool::stack_of_pairs(const std::string& device)
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
    CPPUNIT_ASSERT(contains(r.err,
                            "cudadsp_xcorr: pair 2 of 3 (m.PRM a2.PRM, list.txt line 3) "
                            "-> m_a2: failed: SLC file 'a2.slc' (SLC_file of a2.PRM): "
                            "cannot open: No such file or directory\n"));
    CPPUNIT_ASSERT(contains(
        r.err, "pair 1 of 3 (m.PRM a1.PRM, list.txt line 2) -> m_a1: ok, 20 patches, "));
    CPPUNIT_ASSERT(contains(
        r.err, "pair 3 of 3 (m.PRM a3.PRM, list.txt line 4) -> third: ok, 20 patches, "));
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

void qa_xcorr_tool::shared_cfloat32_pair(const std::string& device)
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

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
