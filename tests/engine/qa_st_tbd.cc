/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_st_tbd: the CPU backend against the float64 reference and known truth
// (random transitions, large shifts and borders, whole-cell shifts, a velocity
// grid scene, argmax ties, the detection rule), and the float argmax on each
// backend.

#include "qa_st_tbd.h"
#include <cuda_runtime_api.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! One hypothesis that forgets its past (weight 0): D = (1 - alpha) X.
st_tbd_config memoryless(std::size_t w, std::size_t h)
{
    st_tbd_config c;
    c.width = w;
    c.height = h;
    c.device = "cpu";
    c.alpha = 0.5f;
    c.threshold = 1.0f;
    c.hypotheses = { { 0.5f, -0.25f, { { 0, 0.0f, 0.0f, 0.0f } } } };
    return c;
}

} // namespace

void qa_st_tbd::cpu_random_transitions()
{
    for (std::uint64_t seed : { 11u, 12u, 13u }) {
        st_tbd_config c = random_config(23, 17, seed);
        const auto frames = gaussian_frames(c.cells() * 7, 0.3, 1.0, seed + 100);
        check_against_reference(c, frames, 7, false, "cpu one call");
        check_against_reference(c, frames, 3, false, "cpu calls of 3");
    }
    // One row, one column, one cell.
    for (auto wh : { std::pair<int, int>{ 1, 9 }, { 11, 1 }, { 1, 1 } }) {
        st_tbd_config c = random_config(std::size_t(wh.first), std::size_t(wh.second), 5);
        check_against_reference(
            c, gaussian_frames(c.cells() * 4, 0.5, 1.0, 6), 2, false, "cpu thin grid");
    }
}

void qa_st_tbd::cpu_large_shifts_and_border()
{
    st_tbd_config c;
    c.width = 71;
    c.height = 9;
    c.device = "cpu";
    c.alpha = 0.7f;
    c.threshold = 0.2f;
    c.hypotheses.resize(3);
    c.hypotheses[0].transitions = { { 0, 63.75f, -0.5f, 0.5f },
                                    { 1, -64.0f, 0.25f, 0.4f } };
    c.hypotheses[1].transitions = { { 1, -2.5f, 8.75f, 0.6f }, { 2, 0.0f, 0.0f, 0.3f } };
    c.hypotheses[2].transitions = { { 0, 1.125f, -1.875f, 0.9f } };
    check_against_reference(
        c, gaussian_frames(c.cells() * 6, 1.0, 1.0, 21), 6, false, "cpu large shifts");
}

void qa_st_tbd::cpu_whole_cell_shift_known_truth()
{
    // One hypothesis moving by (+2, -1) per frame with weight 1, an impulse in the
    // first frame: known truth P_t = alpha^t (1 - alpha) at (x0 + 2t, y0 - t).
    st_tbd_config c;
    c.width = 20;
    c.height = 12;
    c.device = "cpu";
    c.alpha = 0.75f;
    c.threshold = 0.0f;
    c.hypotheses = { { 2.0f, -1.0f, { { 0, 2.0f, -1.0f, 1.0f } } } };
    auto engine = st_tbd::make(c);
    std::vector<float> frame(c.cells(), 0.0f);
    frame[9 * 20 + 3] = 8.0f;
    std::vector<float> zero(c.cells(), 0.0f);
    std::vector<float> state(c.cells());
    std::vector<tbd_detection> det;
    engine->process(frame.data(), 1, nullptr, nullptr, &det);
    for (int t = 1; t <= 9; ++t) {
        engine->process(zero.data(), 1, nullptr, nullptr, &det);
        engine->read_state(state.data());
        const int x = 3 + 2 * t, y = 9 - t;
        const double expected = 8.0 * 0.25 * std::pow(0.75, t);
        for (int yy = 0; yy < 12; ++yy)
            for (int xx = 0; xx < 20; ++xx) {
                const double v = state[std::size_t(yy * 20 + xx)];
                if (xx == x && yy == y && x < 20 && y >= 0)
                    CPPUNIT_ASSERT_DOUBLES_EQUAL(expected, v, 1e-6 * expected);
                else
                    CPPUNIT_ASSERT_EQUAL(0.0, v);
            }
    }
    // The impulse left the grid at t = 9 (x = 21): nothing re-enters.
    for (float v : state)
        CPPUNIT_ASSERT_EQUAL(0.0f, v);
    // One detection per frame while inside: at the impulse.
    CPPUNIT_ASSERT_EQUAL(std::size_t(9), det.size());
    for (std::size_t i = 0; i < det.size(); ++i) {
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(i), det[i].frame);
        CPPUNIT_ASSERT_EQUAL(std::uint32_t(3 + 2 * i), det[i].x);
        CPPUNIT_ASSERT_EQUAL(std::uint32_t(9 - i), det[i].y);
        CPPUNIT_ASSERT_EQUAL(2.0f, det[i].vx);
        CPPUNIT_ASSERT_EQUAL(-1.0f, det[i].vy);
    }
}

void qa_st_tbd::cpu_velocity_grid_scene()
{
    st_tbd_config c;
    c.width = 40;
    c.height = 31;
    c.device = "cpu";
    c.hypotheses = st_tbd_config::velocity_grid(1.5f, 0.5f, 0.2f);
    c.alpha = 0.9f;
    c.threshold = 0.45f;
    check_against_reference(
        c, target_scene(c.width, c.height, 8, 31), 3, false, "cpu velocity grid scene");
}

void qa_st_tbd::cpu_argmax_ties()
{
    // Hypotheses 1 and 2 are identical, 0 is half of them: with positive inputs
    // the maximum is always the tie 1 = 2, reported as 1; 0 never wins.
    st_tbd_config c;
    c.width = 13;
    c.height = 7;
    c.device = "cpu";
    c.alpha = 0.6f;
    c.hypotheses = {
        { 0.0f, 0.0f, { { 1, 0.5f, 0.25f, 0.45f } } },
        { 1.0f, 0.0f, { { 1, 0.5f, 0.25f, 0.9f } } },
        { 2.0f, 0.0f, { { 1, 0.5f, 0.25f, 0.9f } } },
    };
    auto frames = gaussian_frames(c.cells() * 4, 3.0, 0.5, 41);
    for (float& v : frames)
        v = std::fabs(v) + 0.1f;
    auto engine = st_tbd::make(c);
    const run_output out = run(*engine, frames, 4);
    // The first frame: every hypothesis is (1 - alpha) X, a three-way tie -> 0.
    for (std::size_t i = 0; i < c.cells(); ++i)
        CPPUNIT_ASSERT_EQUAL(std::int32_t(0), out.argmax[i]);
    for (std::size_t i = c.cells(); i < out.argmax.size(); ++i)
        CPPUNIT_ASSERT_EQUAL(std::int32_t(1), out.argmax[i]);
}

void qa_st_tbd::cpu_detection_rule()
{
    st_tbd_config c = memoryless(10, 8);
    auto engine = st_tbd::make(c);
    // X = 2 D; the background is below the threshold but not zero.
    std::vector<float> x(c.cells());
    qa::gaussian_source g(51);
    for (float& v : x)
        v = float(g.uniform(0.0, 1.0));
    auto set = [&](int xx, int yy, float d) { x[std::size_t(yy * 10 + xx)] = 2 * d; };
    set(0, 0, 5.0f); // corner peak
    set(4, 1, 3.0f); // 2 x 2 plateau: reported once, at its first cell
    set(5, 1, 3.0f);
    set(4, 2, 3.0f);
    set(5, 2, 3.0f);
    set(9, 4, 2.0f); // right border
    set(8, 4, 1.5f);
    set(2, 6, 1.0f); // exactly the threshold: not above it
    set(6, 6, 4.0f); // a peak with a larger neighbour below-right: not a maximum
    set(7, 7, 4.5f); // bottom border, the maximum of the two
    std::vector<tbd_detection> det;
    std::vector<float> map(c.cells(), nanf_);
    std::vector<std::int32_t> arg(c.cells(), argmax_poison);
    engine->process(x.data(), 1, map.data(), arg.data(), &det);
    const std::vector<std::pair<int, int>> expected = {
        { 0, 0 }, { 4, 1 }, { 9, 4 }, { 7, 7 }
    };
    CPPUNIT_ASSERT_EQUAL(expected.size(), det.size());
    for (std::size_t i = 0; i < det.size(); ++i) {
        CPPUNIT_ASSERT_EQUAL(std::uint32_t(expected[i].first), det[i].x);
        CPPUNIT_ASSERT_EQUAL(std::uint32_t(expected[i].second), det[i].y);
        CPPUNIT_ASSERT_EQUAL(0.5f, det[i].vx);
        CPPUNIT_ASSERT_EQUAL(-0.25f, det[i].vy);
        CPPUNIT_ASSERT_EQUAL(map[std::size_t(det[i].y * 10 + det[i].x)], det[i].value);
    }
    CPPUNIT_ASSERT_EQUAL(5.0f, det[0].value);
    // Frame numbers continue across calls and restart after reset.
    det.clear();
    engine->process(x.data(), 1, nullptr, nullptr, &det);
    CPPUNIT_ASSERT(!det.empty());
    for (const auto& d : det)
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), d.frame);
    engine->reset();
    det.clear();
    std::vector<float> two = x;
    two.insert(two.end(), x.begin(), x.end());
    engine->process(two.data(), 2, nullptr, nullptr, &det);
    CPPUNIT_ASSERT_EQUAL(std::size_t(8), det.size());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), det[0].frame);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), det[7].frame);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(2), engine->frames_processed());
}

void qa_st_tbd::cpu_max_detections_keeps_largest()
{
    st_tbd_config c = memoryless(12, 5);
    c.max_detections_per_frame = 3;
    std::vector<float> x(c.cells(), 0.2f);
    auto set = [&](int xx, int yy, float d) { x[std::size_t(yy * 12 + xx)] = 2 * d; };
    set(1, 0, 2.0f);
    set(10, 0, 6.0f);
    set(5, 2, 4.0f);
    set(1, 4, 4.0f); // ties with (5, 2) and (9, 4): the earlier rows win
    set(9, 4, 4.0f);
    auto engine = st_tbd::make(c);
    std::vector<tbd_detection> det;
    engine->process(x.data(), 1, nullptr, nullptr, &det);
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), det.size());
    CPPUNIT_ASSERT_EQUAL(std::uint32_t(10), det[0].x); // sorted by (y, x)
    CPPUNIT_ASSERT_EQUAL(std::uint32_t(0), det[0].y);
    CPPUNIT_ASSERT_EQUAL(std::uint32_t(5), det[1].x);
    CPPUNIT_ASSERT_EQUAL(std::uint32_t(2), det[1].y);
    CPPUNIT_ASSERT_EQUAL(std::uint32_t(1), det[2].x);
    CPPUNIT_ASSERT_EQUAL(std::uint32_t(4), det[2].y);
    // The reference rule agrees on random maps with many maxima.
    c.max_detections_per_frame = 7;
    const auto frames = gaussian_frames(c.cells() * 5, 2.0, 1.0, 61);
    check_against_reference(c, frames, 2, false, "cpu max detections");
}

/*
 * process_float_argmax() gives the int32 argmax of process() as floats, with the
 * same maps and detections, in calls of several frames, into pageable memory and
 * (CUDA) page-locked memory.
 */
void qa_st_tbd::float_argmax(const std::string& device)
{
    st_tbd_config c = random_config(96, 40, 921);
    c.device = device;
    c.bilinear = "software";
    const std::size_t n = 6, cells = c.cells();
    const auto frames = gaussian_frames(cells * n, 0.3, 1.0, 922);
    auto reference_engine = st_tbd::make(c);
    const run_output expected = run(*reference_engine, frames, 2);
    for (const bool pinned : { false, true }) {
        if (pinned && device == "cpu")
            continue;
        auto engine = st_tbd::make(c);
        std::vector<float> map_storage, arg_storage;
        float* map = nullptr;
        float* arg = nullptr;
        if (pinned) {
            CPPUNIT_ASSERT(cudaMallocHost(reinterpret_cast<void**>(&map),
                                          cells * n * 4) == cudaSuccess);
            CPPUNIT_ASSERT(cudaMallocHost(reinterpret_cast<void**>(&arg),
                                          cells * n * 4) == cudaSuccess);
        } else {
            map_storage.resize(cells * n);
            arg_storage.resize(cells * n);
            map = map_storage.data();
            arg = arg_storage.data();
        }
        std::fill(map, map + cells * n, nanf_);
        std::fill(arg, arg + cells * n, nanf_);
        std::vector<tbd_detection> det;
        for (std::size_t f = 0; f < n; f += 3)
            engine->process_float_argmax(
                frames.data() + f * cells, 3, map + f * cells, arg + f * cells, &det);
        std::size_t arg_mismatches = 0;
        for (std::size_t i = 0; i < cells * n; ++i)
            if (!(arg[i] == static_cast<float>(expected.argmax[i])))
                ++arg_mismatches;
        const bool same_map = std::equal(expected.map.begin(), expected.map.end(), map);
        if (pinned) {
            cudaFreeHost(map);
            cudaFreeHost(arg);
        }
        CPPUNIT_ASSERT_EQUAL(std::size_t(0), arg_mismatches);
        CPPUNIT_ASSERT(same_map);
        CPPUNIT_ASSERT_EQUAL(expected.detections.size(), det.size());
        for (std::size_t i = 0; i < det.size(); ++i) {
            CPPUNIT_ASSERT_EQUAL(expected.detections[i].frame, det[i].frame);
            CPPUNIT_ASSERT_EQUAL(expected.detections[i].x, det[i].x);
            CPPUNIT_ASSERT_EQUAL(expected.detections[i].y, det[i].y);
        }
    }
}

CPPUNIT_TEST_SUITE_REGISTRATION(qa_st_tbd);

} // namespace core
} // namespace cudadsp
} // namespace gr
