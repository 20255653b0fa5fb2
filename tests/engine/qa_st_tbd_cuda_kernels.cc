/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_st_tbd: the CUDA kernels. The generated source compiled by NVRTC, the four
// variants against the reference, the automatic choice, detections against the
// CPU, the generated kernel's line order, the autotuner and its cache.

#include "qa_st_tbd.h"
#include "runtime/nvrtc_program.h"
#include "tbd/st_tbd_kernel_source.h"
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

std::string temp_dir()
{
    char pattern[] = "/tmp/qa_st_tbd_XXXXXX";
    const char* dir = mkdtemp(pattern);
    CPPUNIT_ASSERT(dir != nullptr);
    return dir;
}

void check_cuda_variant(const std::string& kernel, const std::string& bilinear)
{
    const bool texture = bilinear == "texture";
    for (std::uint64_t seed : { 211u, 212u }) {
        st_tbd_config c = random_config(37, 29, seed);
        c.device = "cuda";
        c.kernel = kernel;
        c.bilinear = bilinear;
        const auto frames = gaussian_frames(c.cells() * 7, 0.3, 1.0, seed + 7);
        check_against_reference(c, frames, 3, texture, "cuda " + kernel + " " + bilinear);
    }
    st_tbd_config c;
    c.width = 71;
    c.height = 9;
    c.device = "cuda";
    c.kernel = kernel;
    c.bilinear = bilinear;
    c.alpha = 0.7f;
    c.threshold = 0.2f;
    c.hypotheses.resize(3);
    c.hypotheses[0].transitions = { { 0, 63.75f, -0.5f, 0.5f },
                                    { 1, -64.0f, 0.25f, 0.4f } };
    c.hypotheses[1].transitions = { { 1, -2.5f, 8.75f, 0.6f }, { 2, 0.0f, 0.0f, 0.3f } };
    c.hypotheses[2].transitions = { { 0, 1.125f, -1.875f, 0.9f } };
    check_against_reference(c,
                            gaussian_frames(c.cells() * 6, 1.0, 1.0, 21),
                            4,
                            texture,
                            "cuda large shifts " + kernel + " " + bilinear);
    st_tbd_config g;
    g.width = 300;
    g.height = 170;
    g.device = "cuda";
    g.kernel = kernel;
    g.bilinear = bilinear;
    g.hypotheses = st_tbd_config::velocity_grid(1.5f, 0.5f, 0.2f);
    g.threshold = 0.45f;
    check_against_reference(g,
                            target_scene(g.width, g.height, 5, 33),
                            5,
                            texture,
                            "cuda velocity grid " + kernel + " " + bilinear);
}

} // namespace

void qa_st_tbd::generated_source_compiles_with_nvrtc()
{
    // Needs no GPU: NVRTC compiles to PTX for compute_90 on any host.
    st_tbd_config c;
    c.width = 1000;
    c.height = 1000;
    c.hypotheses = st_tbd_config::velocity_grid(1.0f, 1.0f, 0.1f);
    c.hypotheses[4].transitions[0].dx = -2.375f;
    c.hypotheses[4].transitions[0].dy = 0.6f;
    const tbd_layout layout = make_tbd_layout(c);
    const tbd_table table = make_tbd_table(c);
    const std::vector<std::size_t> sorted = lrei_sorted_order(st_tbd_line_keys(c));
    std::vector<std::size_t> shuffled = sorted;
    qa::gaussian_source g(101);
    for (std::size_t i = shuffled.size(); i > 1; --i)
        std::swap(shuffled[i - 1], shuffled[std::size_t(g.integer(0, long(i) - 1))]);
    const std::regex mac_line(R"(^\s+v(\d+) \+= ([-0-9.e]+)f \* (tex2D|tap)<)");
    for (tbd_bilinear_mode mode :
         { tbd_bilinear_mode::software, tbd_bilinear_mode::texture }) {
        for (const std::vector<std::size_t>* order :
             { &sorted, static_cast<const std::vector<std::size_t>*>(&shuffled) }) {
            const std::string source =
                st_tbd_generated_source(layout, table, *order, mode);
            // One multiply-accumulate line per transition, in the order given.
            std::istringstream lines(source);
            std::string line;
            std::vector<std::size_t> hypotheses;
            std::vector<float> weights;
            std::smatch match;
            while (std::getline(lines, line))
                if (std::regex_search(line, match, mac_line)) {
                    hypotheses.push_back(std::stoul(match[1]));
                    weights.push_back(std::stof(match[2]));
                }
            CPPUNIT_ASSERT_EQUAL(table.taps.size(), hypotheses.size());
            const auto all_lines = st_tbd::lines(c);
            for (std::size_t i = 0; i < order->size(); ++i) {
                const tbd_line l = all_lines[(*order)[i]];
                CPPUNIT_ASSERT_EQUAL(l.hypothesis, hypotheses[i]);
                CPPUNIT_ASSERT_EQUAL(
                    c.hypotheses[l.hypothesis].transitions[l.transition].weight,
                    weights[i]);
            }
            const nvrtc_image image = nvrtc_compile(source,
                                                    "st_tbd_generated.cu",
                                                    st_tbd_rule_headers(),
                                                    st_tbd_nvrtc_options(),
                                                    9,
                                                    0,
                                                    true);
            CPPUNIT_ASSERT(!image.cubin);
            CPPUNIT_ASSERT_EQUAL(std::string("compute_90"), image.target);
            CPPUNIT_ASSERT(image.data.find(tbd_generated_kernel_name) !=
                           std::string::npos);
        }
    }
    std::cout << "generated kernel: NVRTC " << nvrtc_version() << " compiled "
              << table.taps.size() << " lines, software and texture, to PTX" << std::endl;
    // A broken program reports the compile log.
    try {
        nvrtc_compile(
            "__global__ void k() { undefined_name(); }", "broken.cu", {}, {}, 9, 0, true);
        CPPUNIT_FAIL("a broken program compiled");
    } catch (const cuda_error& e) {
        CPPUNIT_ASSERT(std::string(e.what()).find("undefined_name") != std::string::npos);
    }
}

void qa_st_tbd::generic_kernel_software_bilinear(const std::string&)
{
    check_cuda_variant("generic", "software");
}

void qa_st_tbd::generic_kernel_texture_bilinear(const std::string&)
{
    check_cuda_variant("generic", "texture");
}

void qa_st_tbd::generated_kernel_software_bilinear(const std::string&)
{
    check_cuda_variant("generated", "software");
}

void qa_st_tbd::generated_kernel_texture_bilinear(const std::string&)
{
    check_cuda_variant("generated", "texture");
}

void qa_st_tbd::auto_choice(const std::string&)
{
    const std::string dir = temp_dir();
    st_tbd_config c = random_config(200, 120, 301);
    c.device = "cuda";
    c.cache_dir = dir;
    auto engine = st_tbd::make(c);
    const std::string impl = engine->implementation();
    std::cout << "auto: " << impl << std::endl;
    CPPUNIT_ASSERT(impl.rfind("cuda generated ", 0) == 0); // NVRTC works on the GPU host
    CPPUNIT_ASSERT_EQUAL(std::string("sorted"), engine->line_order_source());
    // The choice was cached and is reused.
    auto again = st_tbd::make(c);
    CPPUNIT_ASSERT_EQUAL(impl, again->implementation());
    const bool texture = impl.find("texture") != std::string::npos;
    check_against_reference(
        c, gaussian_frames(c.cells() * 4, 0.3, 1.0, 302), 4, texture, "cuda auto");
    std::remove((dir + "/tuning.json").c_str());
    std::remove((dir + "/tuning.json.lock").c_str());
    rmdir(dir.c_str());
}

void qa_st_tbd::detections_match_cpu(const std::string&)
{
    st_tbd_config c;
    c.width = 64;
    c.height = 48;
    c.hypotheses = st_tbd_config::velocity_grid(2.0f, 1.0f, 0.1f);
    c.alpha = 0.8f;
    c.threshold = 0.9f;
    const std::size_t n = 12;
    const auto frames = target_scene(c.width, c.height, n, 401);
    c.device = "cpu";
    auto cpu = st_tbd::make(c);
    const run_output expected = run(*cpu, frames, n);
    // The targets are found by the CPU: (10 + f, 12) moving (1, 0) and
    // (52 - f, 8 + f) moving (-1, 1), after a few frames.
    auto found = [&](const std::vector<tbd_detection>& det,
                     std::uint64_t f,
                     int x,
                     int y,
                     float vx,
                     float vy) {
        for (const auto& d : det)
            if (d.frame == f && int(d.x) == x && int(d.y) == y)
                return d.vx == vx && d.vy == vy;
        return false;
    };
    for (std::uint64_t f = 6; f < n; ++f) {
        CPPUNIT_ASSERT(found(expected.detections, f, 10 + int(f), 12, 1.0f, 0.0f));
        CPPUNIT_ASSERT(
            found(expected.detections, f, 52 - int(f), 8 + int(f), -1.0f, 1.0f));
    }
    for (const char* kernel : { "generic", "generated" })
        for (const char* bilinear : { "software", "texture" }) {
            st_tbd_config g = c;
            g.device = "cuda";
            g.kernel = kernel;
            g.bilinear = bilinear;
            auto cuda = st_tbd::make(g);
            const run_output got = run(*cuda, frames, 5);
            const std::string what = std::string(kernel) + " " + bilinear;
            for (std::uint64_t f = 6; f < n; ++f) {
                CPPUNIT_ASSERT_MESSAGE(
                    what, found(got.detections, f, 10 + int(f), 12, 1.0f, 0.0f));
                CPPUNIT_ASSERT_MESSAGE(
                    what, found(got.detections, f, 52 - int(f), 8 + int(f), -1.0f, 1.0f));
            }
            if (std::string(bilinear) == "software") {
                // Same arithmetic up to float rounding: the same list, values close.
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    what, expected.detections.size(), got.detections.size());
                for (std::size_t i = 0; i < got.detections.size(); ++i) {
                    const auto& a = expected.detections[i];
                    const auto& b = got.detections[i];
                    CPPUNIT_ASSERT(a.frame == b.frame && a.x == b.x && a.y == b.y);
                    CPPUNIT_ASSERT_EQUAL(a.vx, b.vx);
                    CPPUNIT_ASSERT_EQUAL(a.vy, b.vy);
                    CPPUNIT_ASSERT_DOUBLES_EQUAL(
                        a.value, b.value, 1e-5 * std::fabs(a.value));
                }
            }
        }
}

void qa_st_tbd::line_order_permutation(const std::string&)
{
    st_tbd_config c;
    c.width = 150;
    c.height = 97;
    c.device = "cuda";
    c.kernel = "generated";
    c.bilinear = "software";
    c.hypotheses = random_hypotheses(6, 4, 5.3, 501);
    const auto frames = gaussian_frames(c.cells() * 5, 0.5, 1.0, 502);
    auto sorted = st_tbd::make(c);
    const auto start = sorted->line_order();
    CPPUNIT_ASSERT_EQUAL(st_tbd::lines(c).size(), start.size());
    CPPUNIT_ASSERT(start == lrei_sorted_order(st_tbd_line_keys(c)));
    const run_output a = run(*sorted, frames, 5);
    auto shuffled = st_tbd::make(c);
    std::vector<std::size_t> order = start;
    qa::gaussian_source g(503);
    for (std::size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[std::size_t(g.integer(0, long(i) - 1))]);
    shuffled->set_line_order(order);
    CPPUNIT_ASSERT(shuffled->line_order() == order);
    CPPUNIT_ASSERT_EQUAL(std::string("set"), shuffled->line_order_source());
    const run_output b = run(*shuffled, frames, 2);
    reference ref(c);
    for (std::size_t f = 0; f < 5; ++f)
        ref.step(frames.data() + f * c.cells());
    const double tol = ref.software_tolerance();
    for (std::size_t i = 0; i < a.state.size(); ++i)
        CPPUNIT_ASSERT_DOUBLES_EQUAL(a.state[i], b.state[i], tol);
    check_against_reference(c, frames, 5, false, "cuda generated sorted order");
    std::vector<std::size_t> bad = order;
    bad[0] = bad[1];
    expect_invalid([&] { shuffled->set_line_order(bad); }, "order");
    expect_invalid([&] { shuffled->set_line_order({ 0, 1 }); }, "order");
}

void qa_st_tbd::autotune_and_cache(const std::string&)
{
    const std::string dir = temp_dir();
    st_tbd_config c;
    c.width = 256;
    c.height = 256;
    c.device = "cuda";
    c.kernel = "generated";
    c.bilinear = "software";
    c.hypotheses = st_tbd_config::velocity_grid(1.0f, 1.0f, 0.2f);
    c.autotune = true;
    c.autotune_iterations = 6;
    c.autotune_seconds = 60.0;
    c.cache_dir = dir;
    std::size_t reports = 0;
    bool finished = false;
    c.autotune_progress = [&](const tbd_autotune_progress& p) {
        ++reports;
        finished = finished || p.finished;
        CPPUNIT_ASSERT(p.best_ms <= p.start_ms);
    };
    auto tuned = st_tbd::make(c);
    CPPUNIT_ASSERT_EQUAL(std::string("autotune"), tuned->line_order_source());
    CPPUNIT_ASSERT(reports >= 2 && finished);
    const auto order = tuned->line_order();
    auto cached = st_tbd::make(c);
    CPPUNIT_ASSERT_EQUAL(std::string("cache"), cached->line_order_source());
    CPPUNIT_ASSERT(cached->line_order() == order);
    c.autotune = false;
    auto plain = st_tbd::make(c);
    CPPUNIT_ASSERT_EQUAL(std::string("cache"), plain->line_order_source());
    const auto frames = gaussian_frames(c.cells() * 3, 0.3, 1.0, 802);
    check_against_reference(c, frames, 3, false, "cuda autotuned order");
    std::cout << "autotune: " << reports << " progress reports, frame "
              << tuned->frame_time_ms(10) << " ms" << std::endl;
    std::remove((dir + "/tuning.json").c_str());
    std::remove((dir + "/tuning.json.lock").c_str());
    rmdir(dir.c_str());
}

} // namespace core
} // namespace cudadsp
} // namespace gr
