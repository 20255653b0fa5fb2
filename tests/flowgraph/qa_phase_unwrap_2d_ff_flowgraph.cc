/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// phase_unwrap_2d_ff inside GNU Radio flowgraphs, from C++ (the block tier that runs on
// the GPU host). The frames are noise-free, unaliased analytic fields (a Gaussian hill
// of several cycles on a plane), so the truth is known exactly: every valid pixel's
// whole number of periods must be the truth's, up to one constant per connected group
// of valid pixels, and the reliability method must fix that constant at the group's
// first pixel. Groups are found here by a flood fill, not by the engine. The MCF
// method's tiles are checked against the engine's own output on single-look frames,
// where no analytic truth is exact.

#include "qa_support.h"
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/cudadsp/core/interferogram_simulator.h>
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <gnuradio/cudadsp/phase_unwrap_2d_ff.h>
#include <gnuradio/top_block.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <vector>

namespace gr {
namespace cudadsp {

namespace {

const double two_pi = 6.283185307179586476925286766559;

//! The block's configuration of a width x height frame with \p method on \p device,
//! the other fields at their defaults for the caller to change.
phase_unwrap_2d_ff_config frame_config(std::size_t width,
                                       std::size_t height,
                                       const std::string& method,
                                       const std::string& device)
{
    phase_unwrap_2d_ff_config c;
    c.unwrapping.width = width;
    c.unwrapping.height = height;
    c.unwrapping.method = core::parse_unwrap_2d_method(method);
    c.unwrapping.device = device;
    return c;
}
const float nan_value = std::numeric_limits<float>::quiet_NaN();

// Odd sizes, width != height: a transposed or padded frame cannot pass.
constexpr int width = 97;
constexpr int height = 61;
constexpr std::size_t pixels = std::size_t(width) * height;

//! One analytic frame: its truth (float64) and its wrapped phase in [-pi, pi).
struct frame {
    std::vector<double> truth;
    std::vector<float> wrapped;
};

/*!
 * A Gaussian hill of up to about 5 cycles on a plane of up to 6 cycles across the
 * frame, with an offset, drawn from \p seed. Its steepest step between neighbours is
 * below 1.8 rad, far from pi: unaliased, so the truth is the only right answer.
 */
frame hill_frame(std::uint64_t seed)
{
    qa::gaussian_source rng(seed);
    const double amplitude = rng.uniform(-30.0, 30.0);
    const double sigma = rng.uniform(14.0, 20.0);
    const double centre_row = rng.uniform(10.0, height - 10.0);
    const double centre_col = rng.uniform(10.0, width - 10.0);
    const double slope_row = rng.uniform(-0.4, 0.4);
    const double slope_col = rng.uniform(-0.4, 0.4);
    const double offset = rng.uniform(-50.0, 50.0);
    frame f;
    f.truth.resize(pixels);
    f.wrapped.resize(pixels);
    for (int r = 0; r < height; ++r)
        for (int c = 0; c < width; ++c) {
            const double dr = r - centre_row;
            const double dc = c - centre_col;
            const double t =
                amplitude * std::exp(-(dr * dr + dc * dc) / (2.0 * sigma * sigma)) +
                slope_row * r + slope_col * c + offset;
            const std::size_t p = std::size_t(r) * width + c;
            f.truth[p] = t;
            f.wrapped[p] = static_cast<float>(t - two_pi * std::floor(t / two_pi + 0.5));
        }
    return f;
}

//! 4-neighbour connected groups of valid pixels, numbered 1.. in row-major order of
//! their first pixel (0: not valid).
std::vector<int> flood_fill_components(const std::vector<bool>& valid)
{
    std::vector<int> label(pixels, 0);
    int next = 0;
    std::vector<std::size_t> stack;
    for (std::size_t start = 0; start < pixels; ++start) {
        if (!valid[start] || label[start] != 0)
            continue;
        label[start] = ++next;
        stack.push_back(start);
        while (!stack.empty()) {
            const std::size_t p = stack.back();
            stack.pop_back();
            const int r = static_cast<int>(p / width);
            const int c = static_cast<int>(p % width);
            const int neighbours[4][2] = {
                { r, c + 1 }, { r, c - 1 }, { r + 1, c }, { r - 1, c }
            };
            for (const auto& n : neighbours) {
                if (n[0] < 0 || n[0] >= height || n[1] < 0 || n[1] >= width)
                    continue;
                const std::size_t q = std::size_t(n[0]) * width + n[1];
                if (valid[q] && label[q] == 0) {
                    label[q] = next;
                    stack.push_back(q);
                }
            }
        }
    }
    return label;
}

//! The "unwrap_2d" tag's fields, read back from the PMT dict.
struct tag_report {
    std::uint64_t valid_pixels;
    std::uint64_t components;
    std::uint64_t iterations;
    double relative_residual;
};

tag_report read_tag(const gr::tag_t& tag)
{
    const auto field = [&](const char* key) {
        const pmt::pmt_t value = pmt::dict_ref(tag.value, pmt::intern(key), pmt::PMT_NIL);
        CPPUNIT_ASSERT_MESSAGE(std::string("tag field ") + key, !pmt::is_null(value));
        return value;
    };
    return { pmt::to_uint64(field("valid_pixels")),
             pmt::to_uint64(field("components")),
             pmt::to_uint64(field("iterations")),
             pmt::to_double(field("relative_residual")) };
}

/*!
 * Checks one output frame: NaN exactly where not valid; elsewhere the output equals the
 * truth plus a whole number of periods that is constant over each connected group (to
 * float32 precision), and with \p anchored (reliability) that group's first pixel is
 * its wrapped input unchanged. Returns the number of groups.
 */
std::size_t check_frame(const float* out,
                        const frame& f,
                        const std::vector<bool>& valid,
                        bool anchored,
                        const std::string& what)
{
    const std::vector<int> component = flood_fill_components(valid);
    std::map<int, long long> shift_of_component; // output minus truth, in periods
    for (std::size_t p = 0; p < pixels; ++p) {
        const std::string at = what + ", pixel " + std::to_string(p);
        if (!valid[p]) {
            CPPUNIT_ASSERT_MESSAGE(at + ": NaN expected", std::isnan(out[p]));
            continue;
        }
        CPPUNIT_ASSERT_MESSAGE(at + ": finite expected", std::isfinite(out[p]));
        const double shift_periods = (double(out[p]) - f.truth[p]) / two_pi;
        const long long shift = std::llround(shift_periods);
        // |truth| < 110 rad: float32 resolves it to 1e-5 rad; anything more is wrong.
        CPPUNIT_ASSERT_MESSAGE(at + ": output " + std::to_string(out[p]) + ", truth " +
                                   std::to_string(f.truth[p]),
                               std::abs(shift_periods - double(shift)) * two_pi < 2e-5);
        const auto found = shift_of_component.emplace(component[p], shift);
        if (found.second) {
            if (anchored)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    at + ": a group's first pixel keeps K = 0", f.wrapped[p], out[p]);
        } else {
            CPPUNIT_ASSERT_EQUAL_MESSAGE(at + ": whole periods off the truth differ "
                                              "within one group",
                                         found.first->second,
                                         shift);
        }
    }
    return shift_of_component.size();
}

//! Frames of hill_frame(first_seed + i), concatenated, with their truths.
std::vector<frame> hill_frames(std::size_t count, std::uint64_t first_seed)
{
    std::vector<frame> frames;
    for (std::size_t i = 0; i < count; ++i)
        frames.push_back(hill_frame(first_seed + i));
    return frames;
}

std::vector<float> concatenated(const std::vector<frame>& frames)
{
    std::vector<float> all;
    for (const frame& f : frames)
        all.insert(all.end(), f.wrapped.begin(), f.wrapped.end());
    return all;
}

//! The tags of \p tags with key "unwrap_2d", by output item; each item once.
std::map<std::uint64_t, tag_report> unwrap_tags(const std::vector<gr::tag_t>& tags)
{
    std::map<std::uint64_t, tag_report> by_item;
    for (const gr::tag_t& tag : tags) {
        if (pmt::symbol_to_string(tag.key) != "unwrap_2d")
            continue;
        CPPUNIT_ASSERT_MESSAGE("one unwrap_2d tag per item, item " +
                                   std::to_string(tag.offset),
                               by_item.emplace(tag.offset, read_tag(tag)).second);
    }
    return by_item;
}

} // namespace

class qa_phase_unwrap_2d_ff_flowgraph : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_phase_unwrap_2d_ff_flowgraph);
    QA_BACKEND_TEST(reliability_frames_over_many_work_calls);
    QA_BACKEND_TEST(least_squares_frames);
    QA_BACKEND_TEST(reliability_with_weights);
    QA_BACKEND_TEST(least_squares_with_weights);
    QA_BACKEND_TEST(least_squares_weights_are_relative);
    QA_BACKEND_TEST(tiled_mcf_frames_equal_the_engines);
    CPPUNIT_TEST(bad_parameters);
    CPPUNIT_TEST(memory_checked_before_allocation);
    CPPUNIT_TEST(getters);
    CPPUNIT_TEST_SUITE_END();

    /*!
     * Runs \p frames (and \p weights, when not empty) through the block, with at most
     * \p max_items frames per work() call (0: no limit), and checks that every frame
     * comes out once, in order, with one tag. Returns the output and the tags.
     */
    static std::pair<std::vector<float>, std::map<std::uint64_t, tag_report>>
    run(const std::vector<frame>& frames,
        const std::vector<float>& weights,
        const std::string& method,
        const std::string& device,
        int max_items,
        int max_iterations = 100,
        double tolerance = 1e-5,
        int gradient_window = 5)
    {
        const bool weighted = !weights.empty();
        // An input tag on frame 2 must arrive on output frame 2.
        gr::tag_t passing;
        passing.offset = 2;
        passing.key = pmt::intern("frame_marker");
        passing.value = pmt::from_long(2);
        auto tb = gr::make_top_block("unwrap_2d");
        auto src = gr::blocks::vector_source_f::make(
            concatenated(frames), false, pixels, { passing });
        phase_unwrap_2d_ff_config config = frame_config(width, height, method, device);
        config.unwrapping.gradient_window = gradient_window;
        config.unwrapping.max_iterations = max_iterations;
        config.unwrapping.tolerance = tolerance;
        config.weight_input = weighted;
        auto block = phase_unwrap_2d_ff::make(config);
        if (max_items > 0)
            block->set_max_noutput_items(max_items);
        auto sink = gr::blocks::vector_sink_f::make(pixels);
        tb->connect(src, 0, block, 0);
        if (weighted)
            tb->connect(
                gr::blocks::vector_source_f::make(weights, false, pixels), 0, block, 1);
        tb->connect(block, 0, sink, 0);
        tb->run();
        CPPUNIT_ASSERT_EQUAL(device == "cpu" ? std::string("cpu") : std::string("cuda:0"),
                             block->backend());

        // No frame lost or repeated across work() calls.
        std::vector<float> out = sink->data();
        CPPUNIT_ASSERT_EQUAL(frames.size() * pixels, out.size());
        const auto tags = unwrap_tags(sink->tags());
        CPPUNIT_ASSERT_EQUAL(frames.size(), tags.size());
        for (std::size_t i = 0; i < frames.size(); ++i)
            CPPUNIT_ASSERT_MESSAGE("tag of frame " + std::to_string(i),
                                   tags.count(i) == 1);
        bool marker_found = false;
        for (const gr::tag_t& tag : sink->tags())
            if (pmt::symbol_to_string(tag.key) == "frame_marker") {
                CPPUNIT_ASSERT_EQUAL(std::uint64_t(2), tag.offset);
                marker_found = true;
            }
        CPPUNIT_ASSERT_MESSAGE("input tag passed through", marker_found);
        return { std::move(out), tags };
    }

public:
    void reliability_frames_over_many_work_calls(const std::string& device)
    {
        // The pair rule (gradient_window 1) and a guided window: both exact on
        // noise-free frames.
        const std::vector<bool> all_valid(pixels, true);
        for (int max_items : { 0, 1, 3 })
            for (int gradient_window : { 1, 5 }) {
                const auto frames = hill_frames(7, 100 + max_items);
                const auto [out, tags] = run(frames,
                                             {},
                                             "reliability",
                                             device,
                                             max_items,
                                             100,
                                             1e-5,
                                             gradient_window);
                for (std::size_t i = 0; i < frames.size(); ++i) {
                    const std::string what = device + " frame " + std::to_string(i) +
                                             " max_items " + std::to_string(max_items) +
                                             " gradient_window " +
                                             std::to_string(gradient_window);
                    // Each frame anchored at its own first pixel: nothing carried over.
                    check_frame(
                        out.data() + i * pixels, frames[i], all_valid, true, what);
                    const tag_report& report = tags.at(i);
                    CPPUNIT_ASSERT_EQUAL(std::uint64_t(pixels), report.valid_pixels);
                    CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), report.components);
                    CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), report.iterations);
                    CPPUNIT_ASSERT_EQUAL(0.0, report.relative_residual);
                }
            }
    }

    void least_squares_frames(const std::string& device)
    {
        // No weights, no invalid pixel: the direct DCT solve, exact for a field whose
        // wrapped differences are its true differences.
        const std::vector<bool> all_valid(pixels, true);
        const auto frames = hill_frames(5, 200);
        const auto [out, tags] = run(frames, {}, "least_squares", device, 2);
        for (std::size_t i = 0; i < frames.size(); ++i) {
            check_frame(out.data() + i * pixels,
                        frames[i],
                        all_valid,
                        false,
                        device + " frame " + std::to_string(i));
            const tag_report& report = tags.at(i);
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(pixels), report.valid_pixels);
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), report.components);
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), report.iterations);
            CPPUNIT_ASSERT_EQUAL(0.0, report.relative_residual);
        }
    }

    void reliability_with_weights(const std::string& device)
    {
        // Weights of 1 but: a strip of zero weight across all rows (two groups, each
        // anchored at its own first pixel), a negative, an infinite and a NaN weight,
        // and a NaN wrapped phase. Those pixels come out NaN. The strip moves from frame
        // to frame, so that a NaN left in GNU Radio's buffer by an earlier frame cannot
        // stand in for one the block failed to write.
        auto frames = hill_frames(3, 300);
        std::vector<std::vector<bool>> valid(frames.size(),
                                             std::vector<bool>(pixels, true));
        std::vector<float> weights(frames.size() * pixels, 1.0f);
        for (std::size_t i = 0; i < frames.size(); ++i) {
            const auto invalidate = [&](std::size_t p, float w) {
                weights[i * pixels + p] = w;
                valid[i][p] = false;
            };
            for (int r = 0; r < height; ++r)
                for (int c = 40 + 5 * int(i); c < 43 + 5 * int(i); ++c)
                    invalidate(std::size_t(r) * width + c, 0.0f);
            invalidate(5 * width + 7 + i, -1.0f);
            invalidate(30 * width + 70 + i, std::numeric_limits<float>::infinity());
            invalidate(50 * width + 90 - i, nan_value);
            // Coherence-like values elsewhere: the reliability method only excludes.
            for (std::size_t p = i; p < pixels; p += 13)
                if (valid[i][p])
                    weights[i * pixels + p] = 0.25f;
            frames[i].wrapped[20 * width + 20 + i] = nan_value;
            valid[i][20 * width + 20 + i] = false;
        }

        const auto [out, tags] = run(frames, weights, "reliability", device, 0);
        for (std::size_t i = 0; i < frames.size(); ++i) {
            const std::size_t groups =
                check_frame(out.data() + i * pixels,
                            frames[i],
                            valid[i],
                            true,
                            device + " frame " + std::to_string(i));
            CPPUNIT_ASSERT_EQUAL(std::size_t(2), groups);
            std::uint64_t valid_count = 0;
            for (bool b : valid[i])
                valid_count += b ? 1 : 0;
            CPPUNIT_ASSERT_EQUAL(valid_count, tags.at(i).valid_pixels);
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(2), tags.at(i).components);
        }
    }

    void least_squares_with_weights(const std::string& device)
    {
        // Holes of zero weight that leave the valid pixels connected, and weights that
        // vary: conjugate gradients, whose solution for consistent differences is still
        // the truth up to a constant.
        const auto frames = hill_frames(3, 400);
        std::vector<bool> valid(pixels, true);
        std::vector<float> weight(pixels);
        for (std::size_t p = 0; p < pixels; ++p)
            weight[p] = 0.3f + 0.7f * static_cast<float>((p * 7919) % 101) / 100.0f;
        for (int r = 20; r < 30; ++r)
            for (int c = 50; c < 65; ++c) {
                weight[std::size_t(r) * width + c] = 0.0f;
                valid[std::size_t(r) * width + c] = false;
            }
        for (std::size_t p = 3; p < pixels; p += 211) {
            weight[p] = 0.0f;
            valid[p] = false;
        }
        std::vector<float> weights;
        for (std::size_t i = 0; i < frames.size(); ++i)
            weights.insert(weights.end(), weight.begin(), weight.end());
        const int max_iterations = 1000;
        const double tolerance = 1e-6;
        const auto [out, tags] =
            run(frames, weights, "least_squares", device, 1, max_iterations, tolerance);
        for (std::size_t i = 0; i < frames.size(); ++i) {
            const std::size_t groups =
                check_frame(out.data() + i * pixels,
                            frames[i],
                            valid,
                            false,
                            device + " frame " + std::to_string(i));
            CPPUNIT_ASSERT_EQUAL(std::size_t(1), groups);
            const tag_report& report = tags.at(i);
            std::uint64_t valid_count = 0;
            for (bool b : valid)
                valid_count += b ? 1 : 0;
            CPPUNIT_ASSERT_EQUAL(valid_count, report.valid_pixels);
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), report.components);
            // Converged, by the tolerance rather than the iteration limit.
            CPPUNIT_ASSERT(report.iterations >= 1);
            CPPUNIT_ASSERT(report.iterations < std::uint64_t(max_iterations));
            CPPUNIT_ASSERT_MESSAGE(std::to_string(report.relative_residual),
                                   report.relative_residual <= tolerance);
        }
    }

    void least_squares_weights_are_relative(const std::string& device)
    {
        // Coherence-like weights, and the same times 1e10 and 1e-20: each gives the
        // truth up to a constant and the same frames (weights are relative; scaled as
        // given, 1e10 made every pixel -1.349e10).
        const auto frames = hill_frames(3, 500);
        std::vector<float> weight(pixels);
        for (std::size_t p = 0; p < pixels; ++p)
            weight[p] = 0.3f + 0.7f * static_cast<float>((p * 7919) % 101) / 100.0f;
        const std::vector<bool> valid(pixels, true);
        std::vector<float> unit_scale_output;
        for (const float scale : { 1.0f, 1e10f, 1e-20f }) {
            std::vector<float> weights;
            for (std::size_t i = 0; i < frames.size(); ++i)
                for (float w : weight)
                    weights.push_back(w * scale);
            const auto [out, tags] = run(frames, weights, "least_squares", device, 1);
            const std::string what = device + ", weights times " + std::to_string(scale);
            for (std::size_t i = 0; i < frames.size(); ++i) {
                check_frame(out.data() + i * pixels, frames[i], valid, false, what);
                CPPUNIT_ASSERT_EQUAL(std::uint64_t(pixels), tags.at(i).valid_pixels);
                CPPUNIT_ASSERT_MESSAGE(what, std::isfinite(tags.at(i).relative_residual));
            }
            if (unit_scale_output.empty())
                unit_scale_output = out;
            CPPUNIT_ASSERT_MESSAGE(what + ": differs from the unit scale",
                                   out == unit_scale_output);
        }
    }

    /*!
     * Single-look frames (simulate_interferogram, coherence 0.7, a different seed
     * each, the water given as weight 0) through the block with MCF in 3 x 2 tiles,
     * one frame per work() call: each output frame equals, bit for bit, what the
     * engine configured with the same tiles gives for it, and its tag reports the
     * engine's valid pixels and components. The frames are taken as of 4 looks. The same
     * frames solved whole, or as single-look ones, differ from these, so a block that
     * dropped the tile parameters or the looks would fail.
     */
    void tiled_mcf_frames_equal_the_engines(const std::string& device)
    {
        const int mcf_width = 250;
        const int mcf_height = 180;
        const int tile_size = 112;
        const int tile_overlap = 32;
        const int looks = 4;
        const std::size_t n = std::size_t(mcf_width) * mcf_height;
        std::vector<float> wrapped, weights;
        for (std::uint64_t seed : { 11, 12, 13 }) {
            core::interferogram_scene_config scene_config;
            scene_config.width = mcf_width;
            scene_config.height = mcf_height;
            scene_config.coherence = 0.7;
            scene_config.steep = false;
            scene_config.seed = seed;
            const core::interferogram_scene scene =
                core::simulate_interferogram(scene_config);
            wrapped.insert(wrapped.end(), scene.wrapped.begin(), scene.wrapped.end());
            for (std::size_t p = 0; p < n; ++p)
                weights.push_back(scene.mask[p] ? scene.coherence[p] : 0.0f);
        }
        const std::size_t frames = wrapped.size() / n;

        auto tb = gr::make_top_block("unwrap_2d_mcf");
        phase_unwrap_2d_ff_config block_config =
            frame_config(mcf_width, mcf_height, "mcf", device);
        block_config.unwrapping.tile_size = tile_size;
        block_config.unwrapping.tile_overlap = tile_overlap;
        block_config.unwrapping.looks = looks;
        block_config.weight_input = true;
        auto block = phase_unwrap_2d_ff::make(block_config);
        CPPUNIT_ASSERT_EQUAL(tile_size, block->tile_size());
        CPPUNIT_ASSERT_EQUAL(tile_overlap, block->tile_overlap());
        CPPUNIT_ASSERT_EQUAL(looks, block->looks());
        block->set_max_noutput_items(1);
        auto sink = gr::blocks::vector_sink_f::make(n);
        tb->connect(gr::blocks::vector_source_f::make(wrapped, false, n), 0, block, 0);
        tb->connect(gr::blocks::vector_source_f::make(weights, false, n), 0, block, 1);
        tb->connect(block, 0, sink, 0);
        tb->run();
        const std::vector<float> out = sink->data();
        CPPUNIT_ASSERT_EQUAL(frames * n, out.size());
        const auto tags = unwrap_tags(sink->tags());
        CPPUNIT_ASSERT_EQUAL(frames, tags.size());

        core::phase_unwrap_2d_config config;
        config.width = mcf_width;
        config.height = mcf_height;
        config.method = core::unwrap_2d_method::mcf;
        config.device = device;
        config.tile_size = tile_size;
        config.tile_overlap = tile_overlap;
        config.looks = looks;
        auto tiled = core::phase_unwrapper_2d::make(config);
        config.looks = 1;
        auto single_look = core::phase_unwrapper_2d::make(config);
        config.looks = looks;
        config.tile_size = 0;
        auto whole = core::phase_unwrapper_2d::make(config);
        std::size_t frames_tiles_changed = 0, frames_looks_changed = 0;
        for (std::size_t i = 0; i < frames; ++i) {
            const std::string what = device + ", frame " + std::to_string(i);
            std::vector<float> expected(n, nan_value), untiled(n, nan_value);
            core::unwrap_2d_buffers b;
            b.wrapped = wrapped.data() + i * n;
            b.weight = weights.data() + i * n;
            b.unwrapped = expected.data();
            const core::unwrap_2d_report report = tiled->unwrap(b);
            b.unwrapped = untiled.data();
            whole->unwrap(b);
            std::vector<float> one_look(n, nan_value);
            b.unwrapped = one_look.data();
            single_look->unwrap(b);
            frames_looks_changed +=
                std::memcmp(expected.data(), one_look.data(), n * sizeof(float)) != 0;
            CPPUNIT_ASSERT_MESSAGE(
                what + ": differs from the engine's tiled frame",
                std::memcmp(out.data() + i * n, expected.data(), n * sizeof(float)) == 0);
            frames_tiles_changed +=
                std::memcmp(expected.data(), untiled.data(), n * sizeof(float)) != 0;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                what, std::uint64_t(report.valid_pixels), tags.at(i).valid_pixels);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                what, std::uint64_t(report.components), tags.at(i).components);
        }
        CPPUNIT_ASSERT_MESSAGE("the tiles changed none of the frames",
                               frames_tiles_changed > 0);
        CPPUNIT_ASSERT_MESSAGE("the looks changed none of the frames",
                               frames_looks_changed > 0);
    }

    void memory_checked_before_allocation()
    {
        // The block's engine is made through the engine's factory, which checks the
        // memory first: an 8192 x 8192 frame (5.6 GiB of workspace on the CPU) with
        // 256 MiB of address space to spare is refused by name.
        qa::address_space_limit limit(std::size_t(256) << 20);
        try {
            phase_unwrap_2d_ff::make(frame_config(8192, 8192, "reliability", "cpu"));
            CPPUNIT_FAIL("made a block beyond the memory limit");
        } catch (const std::runtime_error& e) {
            const std::string message = e.what();
            CPPUNIT_ASSERT_MESSAGE(message,
                                   message.find("8192 x 8192 frame") !=
                                           std::string::npos &&
                                       message.find("RLIMIT_AS") != std::string::npos);
        }
    }

    void bad_parameters()
    {
        const auto throws_naming = [](const std::string& parameter, auto make) {
            try {
                make();
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(
                    std::string(e.what()) + " should name " + parameter,
                    std::string(e.what()).find(parameter) != std::string::npos);
                return;
            }
            CPPUNIT_FAIL("no std::invalid_argument naming " + parameter);
        };
        // The block made from an 8 x 8 reliability configuration on the CPU, with its
        // engine fields changed by \p change.
        const auto made_with = [](auto change) {
            phase_unwrap_2d_ff_config c = frame_config(8, 8, "reliability", "cpu");
            change(c.unwrapping);
            return phase_unwrap_2d_ff::make(c);
        };
        using fields = core::phase_unwrap_2d_config;
        throws_naming("width", [&] { made_with([](fields& f) { f.width = 0; }); });
        throws_naming("width", [&] {
            made_with([](fields& f) { f.width = std::size_t(1) << 31; });
        });
        throws_naming("height", [&] { made_with([](fields& f) { f.height = 0; }); });
        throws_naming("height", [&] {
            made_with([](fields& f) { f.height = std::size_t(1) << 40; });
        });
        // Products beyond what an int item size holds (and beyond 2^30, and beyond
        // 2^31 where an int product would overflow).
        for (std::size_t side : { 65536, 1 << 15, 46341 })
            throws_naming("width, height", [&] {
                made_with([side](fields& f) { f.width = f.height = side; });
            });
        throws_naming("period", [&] { made_with([](fields& f) { f.period = 0.0; }); });
        throws_naming("period",
                      [&] { made_with([](fields& f) { f.period = std::nan(""); }); });
        throws_naming("wrap_around_x", [&] {
            made_with([](fields& f) {
                f.method = core::unwrap_2d_method::least_squares;
                f.wrap_around_x = true;
            });
        });
        throws_naming("wrap_around_y", [&] {
            made_with([](fields& f) {
                f.height = 2;
                f.wrap_around_y = true;
            });
        });
        for (std::size_t gradient_window : { 0, 2, 17 })
            throws_naming("gradient_window", [&] {
                made_with([gradient_window](fields& f) {
                    f.gradient_window = gradient_window;
                });
            });
        throws_naming("max_iterations", [&] {
            made_with([](fields& f) {
                f.method = core::unwrap_2d_method::least_squares;
                f.max_iterations = 0;
            });
        });
        throws_naming("tolerance", [&] {
            made_with([](fields& f) {
                f.method = core::unwrap_2d_method::least_squares;
                f.tolerance = 1.0;
            });
        });
        // MCF with the given tiles (the defaults are 0 and 128) or looks.
        const auto mcf_with =
            [&](std::size_t tile_size, std::size_t tile_overlap, std::size_t looks) {
                made_with([=](fields& f) {
                    f.method = core::unwrap_2d_method::mcf;
                    f.tile_size = tile_size;
                    f.tile_overlap = tile_overlap;
                    f.looks = looks;
                });
            };
        for (std::size_t tile_size : { 63, 32769 })
            throws_naming("tile_size", [&] { mcf_with(tile_size, 128, 1); });
        for (std::size_t tile_overlap : { 15, 65 })
            throws_naming("tile_overlap", [&] { mcf_with(128, tile_overlap, 1); });
        for (std::size_t looks : { 0, 1001 })
            throws_naming("looks", [&] { mcf_with(0, 128, looks); });
        throws_naming("device", [&] { made_with([](fields& f) { f.device = "gpu"; }); });
    }

    void getters()
    {
        phase_unwrap_2d_ff_config mcf = frame_config(600, 500, "mcf", "cpu");
        mcf.unwrapping.tile_size = 256;
        mcf.unwrapping.tile_overlap = 64;
        mcf.unwrapping.looks = 9;
        auto tiled = phase_unwrap_2d_ff::make(mcf);
        CPPUNIT_ASSERT_EQUAL(256, tiled->tile_size());
        CPPUNIT_ASSERT_EQUAL(64, tiled->tile_overlap());
        CPPUNIT_ASSERT_EQUAL(9, tiled->looks());

        phase_unwrap_2d_ff_config least_squares =
            frame_config(31, 17, "least_squares", "cpu");
        least_squares.unwrapping.period = 360.0;
        least_squares.unwrapping.gradient_window = 9;
        least_squares.unwrapping.congruent = false;
        least_squares.unwrapping.max_iterations = 250;
        least_squares.unwrapping.tolerance = 1e-4;
        least_squares.weight_input = true;
        auto block = phase_unwrap_2d_ff::make(least_squares);
        CPPUNIT_ASSERT_EQUAL(31, block->width());
        CPPUNIT_ASSERT_EQUAL(17, block->height());
        CPPUNIT_ASSERT_EQUAL(std::string("least_squares"), block->method());
        CPPUNIT_ASSERT_EQUAL(360.0, block->period());
        CPPUNIT_ASSERT_EQUAL(9, block->gradient_window());
        CPPUNIT_ASSERT(!block->congruent());
        CPPUNIT_ASSERT_EQUAL(250, block->max_iterations());
        CPPUNIT_ASSERT_EQUAL(1e-4, block->tolerance());
        CPPUNIT_ASSERT(block->weight_input());
        CPPUNIT_ASSERT_EQUAL(std::string("cpu"), block->backend());
        CPPUNIT_ASSERT_EQUAL(2, block->input_signature()->min_streams());
        CPPUNIT_ASSERT_EQUAL(int(sizeof(float)) * 31 * 17,
                             block->input_signature()->sizeof_stream_item(0));

        phase_unwrap_2d_ff_config only_the_frame;
        only_the_frame.unwrapping.width = 5;
        only_the_frame.unwrapping.height = 4;
        auto defaults = phase_unwrap_2d_ff::make(only_the_frame);
        CPPUNIT_ASSERT_EQUAL(std::string("reliability"), defaults->method());
        CPPUNIT_ASSERT_EQUAL(two_pi, defaults->period());
        CPPUNIT_ASSERT(!defaults->wrap_around_x() && !defaults->wrap_around_y());
        CPPUNIT_ASSERT_EQUAL(7, defaults->gradient_window());
        CPPUNIT_ASSERT(defaults->congruent());
        CPPUNIT_ASSERT_EQUAL(100, defaults->max_iterations());
        CPPUNIT_ASSERT_EQUAL(1e-5, defaults->tolerance());
        CPPUNIT_ASSERT(!defaults->weight_input());
        CPPUNIT_ASSERT_EQUAL(0, defaults->tile_size());
        CPPUNIT_ASSERT_EQUAL(128, defaults->tile_overlap());
        CPPUNIT_ASSERT_EQUAL(1, defaults->looks());
        CPPUNIT_ASSERT_EQUAL(1, defaults->input_signature()->max_streams());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_phase_unwrap_2d_ff_flowgraph);

} // namespace cudadsp
} // namespace gr
