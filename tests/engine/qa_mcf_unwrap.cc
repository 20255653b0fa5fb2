/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Minimum-cost-flow (MCF) 2-D unwrapping, CPU and CUDA backends (the CUDA backend
// computes each tile's network inputs on the GPU, qa_mcf_network_inputs.cc compares
// them with the host's, solves the flow on the host and integrates a tiled frame on
// the GPU): its rules against known
// values, known truth (a noise-free field, isolated residue pairs whose
// cut is known), and single-look simulated interferograms, where it must keep the
// right-cycle fraction measured for it and never fall below the reliability method.

#include "qa_mcf_unwrap.h"
#include "qa_unwrap_2d_device.h"
#include "runtime/parallel_ranges.h"
#include "unwrap/mcf_network_inputs_cuda.h"
#include "unwrap/mcf_tiled_unwrap.h"
#include "unwrap/mcf_unwrap_rule.h"
#include <cppunit/extensions/HelperMacros.h>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

/*!
 * The reference integration of a frame's joined K (\p known, unknown_cycles where not
 * valid): the connected components of the known pixels (4 neighbours) by a
 * breadth-first search from each unnumbered pixel in row-major order, numbered from 1
 * in that order, and each pixel's K less that of its component's first pixel.
 */
outputs integrate_reference(const std::vector<std::int64_t>& known, std::size_t width)
{
    const std::size_t n = known.size();
    outputs o;
    o.cycles.assign(n, 0);
    o.components.assign(n, 0);
    std::int32_t numbered = 0;
    std::vector<std::size_t> queue;
    for (std::size_t seed = 0; seed < n; ++seed) {
        if (known[seed] == unknown_cycles || o.components[seed] != 0)
            continue;
        ++numbered;
        queue.assign(1, seed);
        o.components[seed] = numbered;
        for (std::size_t head = 0; head < queue.size(); ++head) {
            const std::size_t a = queue[head];
            const std::int64_t k = known[a] - known[seed];
            CPPUNIT_ASSERT(k > INT32_MIN && k < INT32_MAX);
            o.cycles[a] = static_cast<std::int32_t>(k);
            ++o.report.valid_pixels;
            const std::size_t col = a % width;
            for (const std::size_t b : { col + 1 < width ? a + 1 : n,
                                         col > 0 ? a - 1 : n,
                                         a + width < n ? a + width : n,
                                         a >= width ? a - width : n })
                if (b < n && known[b] != unknown_cycles && o.components[b] == 0) {
                    o.components[b] = numbered;
                    queue.push_back(b);
                }
        }
    }
    o.report.components = std::size_t(numbered);
    return o;
}

} // namespace

class qa_mcf_unwrap : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_mcf_unwrap);
    CPPUNIT_TEST(rules_match_known_values);
    CPPUNIT_TEST(bad_configuration_and_buffers);
    QA_BACKEND_TEST(noise_free_field_is_exact);
    QA_BACKEND_TEST(isolated_residue_pairs_are_cut_where_known);
    QA_BACKEND_TEST(invalid_pixels_and_components);
    QA_BACKEND_TEST(masked_areas_keep_their_rim_circulation);
    QA_BACKEND_TEST(single_look_interferograms);
    CPPUNIT_TEST(tile_layout_and_memory);
    QA_BACKEND_TEST(tiles_join_to_the_whole_frame_solution);
    QA_BACKEND_TEST(tiled_single_look_interferograms);
    QA_BACKEND_TEST(tiled_frame_integration);
    QA_CUDA_TEST(cuda_device_buffers);
    CPPUNIT_TEST_SUITE_END();

public:
    void rules_match_known_values()
    {
        const unwrap_period p = make_unwrap_period(two_pi);
        // Differences around the loop summing to one period, to none, to minus one.
        CPPUNIT_ASSERT_EQUAL(std::int32_t(1),
                             mcf_loop_residue(3.0, 3.0, -0.1, -0.183, p));
        CPPUNIT_ASSERT_EQUAL(std::int32_t(0), mcf_loop_residue(1.0, 1.0, 1.0, 1.0, p));
        CPPUNIT_ASSERT_EQUAL(std::int32_t(-1),
                             mcf_loop_residue(-3.0, -3.0, 0.1, 0.183, p));

        // One look: pi/4 gamma 2F1(1/2, 1/2; 2; gamma^2), summed here directly.
        for (double gamma : { 0.1, 0.3, 0.7, 0.95 }) {
            double term = 1.0, sum = 1.0;
            for (int n = 0; n < 5000; ++n) {
                term *= (0.5 + n) * (0.5 + n) / ((2.0 + n) * (1.0 + n)) * gamma * gamma;
                sum += term;
            }
            CPPUNIT_ASSERT_DOUBLES_EQUAL(
                0.25 * M_PI * gamma * sum, mcf_phase_moment(gamma, 1), 1e-6);
        }
        // Four looks: Monte Carlo of the four-look product (1e5 draws, standard error
        // below 0.002).
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.4847, mcf_phase_moment(0.3, 4), 0.008);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.8982, mcf_phase_moment(0.7, 4), 0.005);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.9908, mcf_phase_moment(0.95, 4), 0.003);
        CPPUNIT_ASSERT_EQUAL(0.0, mcf_phase_moment(0.0, 1));

        // Costs: least at the base, non-negative, convex, symmetric about the base.
        const mcf_difference_cost c =
            mcf_cost_of(0.45, -0.45, mcf_difference_variance(0.5));
        CPPUNIT_ASSERT_EQUAL(std::int32_t(-1), c.base_cycles);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(-0.1, c.offset, 1e-6);
        for (std::int32_t direction : { 1, -1 }) {
            std::int32_t previous = 0;
            for (std::int32_t step = 1; step <= 4; ++step) {
                const std::int32_t cost = mcf_step_cost(c, direction, step);
                CPPUNIT_ASSERT(cost >= previous);
                previous = cost;
            }
        }
        const mcf_difference_cost centred = mcf_cost_of(0.2, 0.2, 0.01);
        CPPUNIT_ASSERT_EQUAL(std::int32_t(0), centred.base_cycles);
        CPPUNIT_ASSERT_EQUAL(mcf_step_cost(centred, 1, 1), mcf_step_cost(centred, -1, 1));
        CPPUNIT_ASSERT_EQUAL(std::int32_t(5000), mcf_step_cost(centred, 1, 1)); // 50 nats

        // The network of a 3 x 3 frame: loops 0..3, earth 4.
        const mcf_dual_ends top = mcf_difference_ends(0, 0, 0, 3, 3);
        CPPUNIT_ASSERT(top.plus == 0 && top.minus == 4);
        const mcf_dual_ends middle = mcf_difference_ends(1, 1, 1, 3, 3);
        CPPUNIT_ASSERT(middle.plus == 2 && middle.minus == 3);
        const mcf_dual_ends right = mcf_difference_ends(0, 2, 1, 3, 3);
        CPPUNIT_ASSERT(right.plus == 1 && right.minus == 4);
    }

    void bad_configuration_and_buffers()
    {
        CPPUNIT_ASSERT(parse_unwrap_2d_method("mcf", "method") == unwrap_2d_method::mcf);
        CPPUNIT_ASSERT_EQUAL(std::string("mcf"), to_string(unwrap_2d_method::mcf));
        auto expect_invalid = [](const std::string& name, auto&& call) {
            try {
                call();
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(
                    e.what(), std::string(e.what()).find(name) != std::string::npos);
                return;
            }
            CPPUNIT_FAIL("no std::invalid_argument for a bad " + name);
        };
        expect_invalid("method", [] { parse_unwrap_2d_method("MCF", "method"); });
        phase_unwrap_2d_config good;
        good.width = good.height = 8;
        good.method = unwrap_2d_method::mcf;
        good.device = "cpu";
        for (std::size_t looks : { std::size_t(0), std::size_t(1001) }) {
            phase_unwrap_2d_config c = good;
            c.looks = looks;
            expect_invalid("looks", [&] { phase_unwrapper_2d::make(c); });
        }
        phase_unwrap_2d_config around = good;
        around.wrap_around_x = true;
        expect_invalid("wrap_around_x", [&] { phase_unwrapper_2d::make(around); });
        phase_unwrap_2d_config window = good;
        window.gradient_window = 4;
        expect_invalid("gradient_window", [&] { phase_unwrapper_2d::make(window); });
        for (std::size_t tile_size : { std::size_t(63), std::size_t(32769) }) {
            phase_unwrap_2d_config c = good;
            c.tile_size = tile_size;
            expect_invalid("tile_size", [&] { phase_unwrapper_2d::make(c); });
        }
        for (std::size_t overlap : { std::size_t(15), std::size_t(65) }) {
            phase_unwrap_2d_config c = good;
            c.tile_size = 128;
            c.tile_overlap = overlap;
            expect_invalid("tile_overlap", [&] { phase_unwrapper_2d::make(c); });
        }

        auto engine = phase_unwrapper_2d::make(good);
        std::vector<float> x(64, 0.0f), y(64);
        unwrap_2d_buffers b;
        b.unwrapped = y.data();
        expect_invalid("wrapped", [&] { engine->unwrap(b); });
        b.wrapped = x.data();
        b.unwrapped = nullptr;
        expect_invalid("unwrapped", [&] { engine->unwrap(b); });
    }

    void noise_free_field_is_exact(const std::string& device)
    {
        const std::size_t W = 203, H = 151;
        const std::vector<double> truth = smooth_field(W, H);
        const frame f = frame_of(truth, W, H);
        auto engine = make_engine(device, f, unwrap_2d_method::mcf);
        for (bool in_place : { false, true }) {
            const outputs o = run(*engine, f, in_place);
            const std::string what = device + (in_place ? ", in place" : "");
            check_outputs_consistent(o, f, what);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(0), o.report.residues);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(0), o.report.flow);
            for (std::size_t i = 0; i < truth.size(); ++i) {
                const double error =
                    o.unwrapped[i] - (truth[i] - truth[0] + f.wrapped[0]);
                CPPUNIT_ASSERT_MESSAGE(what + ": pixel " + std::to_string(i),
                                       std::fabs(error) < 1e-3);
            }
        }
    }

    /*!
     * A smooth field where, at a few places far apart, two neighbouring pixels are
     * pushed 0.3 periods apart in opposite directions: their difference wraps the
     * wrong way and the two loops beside it take residues +1 and -1. The cheapest cut
     * crosses that difference alone, and then every pixel lies within 0.3 periods of
     * the truth.
     */
    void isolated_residue_pairs_are_cut_where_known(const std::string& device)
    {
        const std::size_t W = 160, H = 120;
        std::vector<double> truth = smooth_field(W, H);
        std::vector<double> observed = truth;
        const std::size_t pairs[][3] = {
            { 20, 30, 0 }, { 60, 100, 1 }, { 95, 40, 0 }, { 100, 130, 1 }
        };
        for (const auto& pair : pairs) {
            const std::size_t a = pair[0] * W + pair[1];
            const std::size_t b = a + (pair[2] == 0 ? 1 : W);
            observed[a] += 0.3 * two_pi;
            observed[b] -= 0.3 * two_pi;
        }
        const frame f = frame_of(observed, W, H);
        auto engine = make_engine(device, f, unwrap_2d_method::mcf);
        const outputs o = run(*engine, f);
        check_outputs_consistent(o, f, device);
        CPPUNIT_ASSERT_EQUAL(std::size_t(8), o.report.residues);
        CPPUNIT_ASSERT_EQUAL(std::size_t(4), o.report.flow);
        const double offset = truth[0] - o.unwrapped[0];
        for (std::size_t i = 0; i < truth.size(); ++i)
            CPPUNIT_ASSERT_MESSAGE(device + ": pixel " + std::to_string(i),
                                   std::fabs(o.unwrapped[i] + offset - truth[i]) <
                                       0.31 * two_pi);
    }

    //! \p truth wrapped, coherence 0.9, columns \p first and \p second masked: three
    //! components.
    static frame cut_by_masked_columns(const std::vector<double>& truth,
                                       std::size_t W,
                                       std::size_t H,
                                       std::size_t first,
                                       std::size_t second)
    {
        frame f = frame_of(truth, W, H);
        f.mask.assign(W * H, 1);
        f.weight.assign(W * H, 0.9f);
        for (std::size_t r = 0; r < H; ++r) {
            f.mask[r * W + first] = 0;
            f.mask[r * W + second] = 0;
        }
        return f;
    }

    /*!
     * Masked columns cut the frame into three components; NaN samples and weights of
     * 0 and NaN are invalid pixels too. Each component is exact up to its constant.
     */
    void invalid_pixels_and_components(const std::string& device)
    {
        const std::size_t W = 150, H = 90;
        const std::vector<double> truth = smooth_field(W, H);
        frame f = cut_by_masked_columns(truth, W, H, 50, 100);
        f.wrapped[10 * W + 10] = std::numeric_limits<float>::quiet_NaN();
        f.weight[20 * W + 70] = 0.0f;
        f.weight[30 * W + 120] = std::numeric_limits<float>::quiet_NaN();
        auto engine = make_engine(device, f, unwrap_2d_method::mcf);
        const outputs o = run(*engine, f);
        check_outputs_consistent(o, f, device);
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), o.report.components);
        CPPUNIT_ASSERT_EQUAL(std::int32_t(2), o.components[51]);
        CPPUNIT_ASSERT_EQUAL(std::int32_t(3), o.components[(H - 1) * W + W - 1]);
        const std::vector<std::uint8_t> valid = qa::reference_valid_pixels(f);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0, right_cycle_fraction(o, truth, valid), 0.0);
    }

    /*!
     * A steep noise-free plane (0.3 and -0.28 periods a pixel) with two masked
     * disks, and after them in row-major order an isolated residue pair as in
     * isolated_residue_pairs_are_cut_where_known(). The loops on a disk's rim sum
     * fractions of a period (their differences into the disk count as 0), which
     * rounded one by one add up to whole periods the rim does not have; only their
     * total, the rim's circulation (0 here), may be rounded. Then the only cut is the
     * pair's and every pixel lies within 0.3 periods of the truth.
     */
    void masked_areas_keep_their_rim_circulation(const std::string& device)
    {
        const std::size_t W = 140, H = 120;
        std::vector<double> truth(W * H);
        for (std::size_t r = 0; r < H; ++r)
            for (std::size_t c = 0; c < W; ++c)
                truth[r * W + c] = two_pi * (0.3 * double(c) - 0.28 * double(r));
        std::vector<double> observed = truth;
        const std::size_t a = 100 * W + 70;
        observed[a] += 0.3 * two_pi;
        observed[a + 1] -= 0.3 * two_pi;
        frame f = frame_of(observed, W, H);
        f.mask.assign(W * H, 1);
        const double disks[][3] = { { 30.0, 40.0, 12.5 }, { 55.0, 100.0, 9.5 } };
        for (const auto& disk : disks)
            for (std::size_t r = 0; r < H; ++r)
                for (std::size_t c = 0; c < W; ++c)
                    if (std::hypot(double(r) - disk[0], double(c) - disk[1]) < disk[2])
                        f.mask[r * W + c] = 0;
        auto engine = make_engine(device, f, unwrap_2d_method::mcf);
        const outputs o = run(*engine, f);
        check_outputs_consistent(o, f, device);
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), o.report.components);
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), o.report.flow);
        const double offset = truth[0] - o.unwrapped[0];
        for (std::size_t i = 0; i < truth.size(); ++i)
            CPPUNIT_ASSERT_MESSAGE(device + ": pixel " + std::to_string(i),
                                   !f.mask[i] || std::fabs(o.unwrapped[i] + offset -
                                                           truth[i]) < 0.31 * two_pi);
    }

    /*!
     * Single-look simulated interferograms (512 x 512, water and vegetation, the
     * simulator's true coherence as weight, where real data would give a noisier
     * estimate, the water as mask): the right-cycle fraction on the valid,
     * non-aliased pixels must stay at what this implementation was measured to reach
     * (each figure a little below the measurement) and never fall below the
     * reliability method's on the same field.
     */
    void single_look_interferograms(const std::string& device)
    {
        struct field {
            double coherence;
            bool steep;
            double least_right;
        };
        const field fields[] = {
            { 0.5, false, 0.93 }, // measured 0.9377
            { 0.7, false, 0.97 }, // measured 0.9771
            { 0.8, false, 0.98 }, // measured 0.9881
            { 0.7, true, 0.97 },  // measured 0.9763
        };
        for (const field& test : fields) {
            interferogram_scene_config scene_config;
            scene_config.width = scene_config.height = 512;
            scene_config.coherence = test.coherence;
            scene_config.steep = test.steep;
            const interferogram_scene scene = simulate_interferogram(scene_config);
            std::vector<std::uint8_t> judged;
            const frame f = scene_frame(scene, judged);

            auto mcf = make_engine(device, f, unwrap_2d_method::mcf);
            const outputs o = run(*mcf, f);
            std::ostringstream what;
            what << device << ", coherence " << test.coherence
                 << (test.steep ? ", steep" : "");
            check_outputs_consistent(o, f, what.str());
            const double right = right_cycle_fraction(o, scene.true_phase, judged);
            auto reliability = make_engine("cpu", f, unwrap_2d_method::reliability);
            const double reliability_right =
                right_cycle_fraction(run(*reliability, f), scene.true_phase, judged);
            what << ": MCF " << right << ", reliability " << reliability_right;
            CPPUNIT_ASSERT_MESSAGE(what.str(), right >= test.least_right);
            CPPUNIT_ASSERT_MESSAGE(what.str(), right >= reliability_right);
            CPPUNIT_ASSERT(o.report.residues > 0 && o.report.flow > 0);
        }
    }

    //! Tiles cover the axis, overlap by at least the overlap, and their cores
    //! partition it, each inside its tile at least half the overlap from a seam; the
    //! automatic tiles of a large frame and their workspace.
    void tile_layout_and_memory()
    {
        const mcf_axis_tiles whole = mcf_tiles_of_axis(300, 512, 64);
        CPPUNIT_ASSERT_EQUAL(std::size_t(300), whole.extent);
        CPPUNIT_ASSERT(whole.start.size() == 1 && whole.core_end.back() == 300);
        for (std::size_t length : { 513, 1000, 1024, 4097 })
            for (std::size_t tile : { 128, 544 })
                for (std::size_t overlap : { 16, 64 }) {
                    if (length <= tile)
                        continue;
                    const mcf_axis_tiles axis = mcf_tiles_of_axis(length, tile, overlap);
                    const std::size_t n = axis.start.size();
                    CPPUNIT_ASSERT(n >= 2 && axis.extent == tile);
                    CPPUNIT_ASSERT_EQUAL(std::size_t(0), axis.start.front());
                    CPPUNIT_ASSERT_EQUAL(length, axis.start.back() + tile);
                    CPPUNIT_ASSERT_EQUAL(length, axis.core_end.back());
                    for (std::size_t i = 0; i + 1 < n; ++i) {
                        CPPUNIT_ASSERT(axis.start[i] + tile >=
                                       axis.start[i + 1] + overlap);
                        CPPUNIT_ASSERT(axis.core_end[i] >=
                                       axis.start[i + 1] + overlap / 2);
                        CPPUNIT_ASSERT(axis.core_end[i] + overlap / 2 <=
                                       axis.start[i] + tile);
                    }
                    // As few tiles as that overlap allows.
                    CPPUNIT_ASSERT((n - 1) * (tile - overlap) < length - overlap);
                }

        // The automatic tiles of a 4096 x 4096 frame: 8 x 8 of 624. The workspace is
        // one tile solver for each worker (as many as tiles or hardware threads) and
        // under 1 GB besides, where the whole frame's network would take 8 GB.
        phase_unwrap_2d_config large;
        large.width = large.height = 4096;
        large.method = unwrap_2d_method::mcf;
        CPPUNIT_ASSERT_EQUAL(std::size_t(624), large.mcf_tile_size());
        CPPUNIT_ASSERT_EQUAL(
            std::size_t(8),
            mcf_tiles_of_axis(4096, 624, large.tile_overlap).start.size());
        phase_unwrap_2d_config tile = large;
        tile.width = tile.height = 624;
        const std::size_t solvers =
            parallel_workers(64, 64) * mcf_unwrap_cpu::bytes(tile);
        const std::size_t bytes = mcf_tiled_unwrap::bytes(large);
        CPPUNIT_ASSERT(bytes > solvers && bytes < solvers + (std::size_t(1) << 30));
        // A solver given a stage (the GPU's) never makes the host passes' 12 floats a
        // pixel.
        CPPUNIT_ASSERT_EQUAL(tile.pixels() * 12 * sizeof(float),
                             mcf_unwrap_cpu::bytes(tile) -
                                 mcf_unwrap_cpu::bytes(tile, false));
        // Nor, integrating the frame on the device, the host's frame arrays: K,
        // component and queue.
        CPPUNIT_ASSERT_EQUAL(bytes - mcf_tiled_unwrap::bytes(large, false),
                             parallel_workers(64, 64) * tile.pixels() * 12 *
                                     sizeof(float) +
                                 large.pixels() * 16);
        phase_unwrap_2d_config small = large;
        small.width = small.height = 512;
        CPPUNIT_ASSERT_EQUAL(std::size_t(512), small.mcf_tile_size());
    }

    /*!
     * A noise-free field in 3 x 3 tiles, with masked columns that cut it into three
     * components across tile seams and invalid pixels inside tiles: the joined tiles
     * give exactly the whole frame's outputs, constants and component numbers
     * included.
     */
    void tiles_join_to_the_whole_frame_solution(const std::string& device)
    {
        const std::size_t W = 300, H = 260;
        const std::vector<double> truth = smooth_field(W, H);
        frame f = cut_by_masked_columns(truth, W, H, 100, 201);
        f.wrapped[10 * W + 10] = std::numeric_limits<float>::quiet_NaN();
        f.weight[120 * W + 150] = 0.0f;
        const outputs whole = run(*make_engine(device, f, unwrap_2d_method::mcf), f);
        const outputs tiled =
            run(*make_engine(device, f, unwrap_2d_method::mcf, 128, 32), f);
        check_outputs_consistent(tiled, f, device + ", tiled");
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), tiled.report.components);
        CPPUNIT_ASSERT(tiled.cycles == whole.cycles);
        CPPUNIT_ASSERT(tiled.components == whole.components);
        CPPUNIT_ASSERT_EQUAL(whole.report.valid_pixels, tiled.report.valid_pixels);
        CPPUNIT_ASSERT_EQUAL(std::size_t(0), tiled.report.flow);
        const std::vector<std::uint8_t> valid = qa::reference_valid_pixels(f);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0, right_cycle_fraction(tiled, truth, valid), 0.0);
    }

    /*!
     * The single-look scenes of single_look_interferograms() in 256 x 256 tiles of
     * overlap 64 (3 x 3 tiles, more seams than the automatic choice makes at this
     * size): each figure a little below its measurement, on both backends (the
     * CUDA backend's tiles take their network inputs from the GPU).
     */
    void tiled_single_look_interferograms(const std::string& device)
    {
        struct field {
            double coherence;
            double least_right;
        };
        const field fields[] = {
            { 0.5, 0.93 }, // measured 0.9366 (whole frame 0.9377)
            { 0.8, 0.98 }, // measured 0.9881 (whole frame 0.9881)
        };
        for (const field& test : fields) {
            interferogram_scene_config scene_config;
            scene_config.width = scene_config.height = 512;
            scene_config.coherence = test.coherence;
            scene_config.steep = false;
            std::vector<std::uint8_t> judged;
            const interferogram_scene scene = simulate_interferogram(scene_config);
            const frame f = scene_frame(scene, judged);
            const outputs o =
                run(*make_engine(device, f, unwrap_2d_method::mcf, 256, 64), f);
            std::ostringstream what;
            what << "coherence " << test.coherence;
            check_outputs_consistent(o, f, what.str());
            const double right = right_cycle_fraction(o, scene.true_phase, judged);
            what << ": tiled MCF " << right;
            CPPUNIT_ASSERT_MESSAGE(what.str(), right >= test.least_right);
        }
    }

    /*!
     * A single-look frame in 4 x 3 tiles, with masked bands that cut it into
     * components across the seams and one that joins two of them only through
     * another tile: the frame's integration (the CPU backend's breadth-first search,
     * the CUDA backend's spanning forest on the device) against integrate_reference()
     * of the same joined K (mcf_tiled_unwrap::join_tiles() with the backend's
     * stage), on host buffers, in place and, for CUDA, on device buffers.
     */
    void tiled_frame_integration(const std::string& device)
    {
        interferogram_scene_config scene_config;
        scene_config.width = 360;
        scene_config.height = 300;
        scene_config.coherence = 0.7;
        scene_config.steep = false;
        const interferogram_scene scene = simulate_interferogram(scene_config);
        std::vector<std::uint8_t> judged;
        frame f = scene_frame(scene, judged);
        // A full-height band at columns 150-152 and, left of it, one down from the top
        // at columns 70-72 that stops at row 250: the frame's right part is one
        // component, its left part another, whose two halves (top tiles) meet only
        // below row 250 (bottom tiles), reached from the first pixel by going down,
        // across and up again.
        for (std::size_t row = 0; row < f.height; ++row)
            for (std::size_t col = 0; col < f.width; ++col)
                if ((col >= 150 && col <= 152) || (col >= 70 && col <= 72 && row < 250))
                    f.mask[row * f.width + col] = 0;

        phase_unwrap_2d_config config;
        config.device = device;
        config.width = f.width;
        config.height = f.height;
        config.method = unwrap_2d_method::mcf;
        config.tile_size = 128;
        config.tile_overlap = 32;
        config.validate();
        mcf_network_inputs_stage_factory stage;
        if (device == "cuda")
            stage = [](const phase_unwrap_2d_config& tile) {
                return std::make_unique<mcf_network_inputs_cuda>(tile, 0);
            };
        mcf_tiled_unwrap tiles(config, stage);
        CPPUNIT_ASSERT(tiles.tiled());
        const std::size_t n = f.width * f.height;
        std::vector<std::int64_t> known(n, 0);
        unwrap_2d_buffers inputs;
        inputs.wrapped = f.wrapped.data();
        inputs.weight = f.weight.data();
        inputs.mask = f.mask.data();
        const unwrap_2d_report joined = tiles.join_tiles(inputs, known.data());
        const outputs expected = integrate_reference(known, f.width);
        CPPUNIT_ASSERT(expected.report.components >= 2);
        CPPUNIT_ASSERT(joined.residues > 0);

        auto engine = make_engine(device, f, unwrap_2d_method::mcf, 128, 32);
        auto check = [&](const outputs& o, const std::string& what) {
            check_outputs_consistent(o, f, what);
            CPPUNIT_ASSERT_MESSAGE(what + ": cycles", o.cycles == expected.cycles);
            CPPUNIT_ASSERT_MESSAGE(what + ": components",
                                   o.components == expected.components);
            CPPUNIT_ASSERT_EQUAL(expected.report.valid_pixels, o.report.valid_pixels);
            CPPUNIT_ASSERT_EQUAL(expected.report.components, o.report.components);
            CPPUNIT_ASSERT_EQUAL(joined.residues, o.report.residues);
            CPPUNIT_ASSERT_EQUAL(joined.flow, o.report.flow);
        };
        check(run(*engine, f), device + ", host buffers");
        check(run(*engine, f, true), device + ", in place");
        if (device == "cuda")
            check(qa::run_unwrap_2d_on_device(*engine, f, nullptr, poison_integer),
                  device + ", device buffers");
    }

    //! Device buffers, a frame of one tile: the frame copied to the host for the
    //! solver and the outputs copied back, equal to the host path's outputs.
    void cuda_device_buffers(const std::string&)
    {
        interferogram_scene_config scene_config;
        scene_config.width = 301;
        scene_config.height = 203;
        scene_config.coherence = 0.7;
        const interferogram_scene scene = simulate_interferogram(scene_config);
        std::vector<std::uint8_t> judged;
        const frame f = scene_frame(scene, judged);
        auto engine = make_engine("cuda", f, unwrap_2d_method::mcf);
        const outputs host = run(*engine, f);
        const outputs o =
            qa::run_unwrap_2d_on_device(*engine, f, nullptr, poison_integer);
        check_outputs_consistent(o, f, "device buffers");
        CPPUNIT_ASSERT(o.cycles == host.cycles);
        CPPUNIT_ASSERT(o.components == host.components);
        CPPUNIT_ASSERT_EQUAL(host.report.flow, o.report.flow);
        CPPUNIT_ASSERT_EQUAL(host.report.residues, o.report.residues);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_mcf_unwrap);

} // namespace core
} // namespace cudadsp
} // namespace gr
