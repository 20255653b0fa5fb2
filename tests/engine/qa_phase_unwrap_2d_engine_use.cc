/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_phase_unwrap_2d: how the engine is used. The report's fields, unwrapping in
// place, frames one pixel thin.

#include "qa_phase_unwrap_2d.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

void qa_phase_unwrap_2d::report_fields(const std::string& device)
{
    const std::size_t W = 90, H = 70;
    frame f = noisy_frame(W, H, two_pi, 0.1, 31, true, true);
    const auto valid = qa::reference_valid_pixels(f);
    const std::size_t valid_count = std::count(valid.begin(), valid.end(), 1);

    const auto rel = run(*phase_unwrapper_2d::make(
                             make_config(device, W, H, unwrap_2d_method::reliability)),
                         f);
    CPPUNIT_ASSERT_EQUAL(valid_count, rel.report.valid_pixels);
    CPPUNIT_ASSERT_EQUAL(
        std::size_t(*std::max_element(rel.components.begin(), rel.components.end())),
        rel.report.components);
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), rel.report.iterations);
    CPPUNIT_ASSERT_EQUAL(0.0, rel.report.relative_residual);

    auto config = make_config(device, W, H, unwrap_2d_method::least_squares);
    config.tolerance = 1e-4;
    const auto weighted = run(*phase_unwrapper_2d::make(config), f);
    CPPUNIT_ASSERT_EQUAL(valid_count, weighted.report.valid_pixels);
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), weighted.report.components);
    CPPUNIT_ASSERT(weighted.report.iterations > 0);
    CPPUNIT_ASSERT(weighted.report.iterations <= config.max_iterations);
    CPPUNIT_ASSERT(weighted.report.relative_residual > 0.0);
    CPPUNIT_ASSERT(weighted.report.relative_residual <= 1e-4);

    // Too few iterations allowed: stops there, with the residual it reached.
    config.max_iterations = 2;
    config.tolerance = 1e-9;
    const auto capped = run(*phase_unwrapper_2d::make(config), f);
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), capped.report.iterations);
    CPPUNIT_ASSERT(capped.report.relative_residual > 1e-9);

    frame plain = f;
    plain.weight.clear();
    plain.mask.clear();
    for (float& x : plain.wrapped)
        if (!std::isfinite(x))
            x = 0.25f;
    const auto direct = run(*phase_unwrapper_2d::make(config), plain);
    CPPUNIT_ASSERT_EQUAL(W * H, direct.report.valid_pixels);
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), direct.report.iterations);
    CPPUNIT_ASSERT_EQUAL(0.0, direct.report.relative_residual);
}

void qa_phase_unwrap_2d::in_place(const std::string& device)
{
    const std::size_t W = 77, H = 65;
    const frame f = noisy_frame(W, H, two_pi, 0.2, 41, true, true);
    for (auto method :
         { unwrap_2d_method::reliability, unwrap_2d_method::least_squares }) {
        auto engine = phase_unwrapper_2d::make(make_config(device, W, H, method));
        const auto apart = run(*engine, f);
        const auto same = run(*engine, f, true);
        const std::string what = device + " in place " + to_string(method);
        CPPUNIT_ASSERT_MESSAGE(what, apart.cycles == same.cycles);
        CPPUNIT_ASSERT_MESSAGE(what, apart.components == same.components);
        for (std::size_t i = 0; i < W * H; ++i)
            if (std::memcmp(&apart.unwrapped[i], &same.unwrapped[i], sizeof(float)) != 0)
                fail_at(what, i, "differs from the out-of-place result");
    }
}

void qa_phase_unwrap_2d::thin_frames(const std::string& device)
{
    // A line has one spanning tree, the line: the reliability method with the pair
    // rule is the 1-D unwrapper (numpy.unwrap), and least squares (the integral of
    // the wrapped differences) is too, up to a whole number of periods.
    std::mt19937_64 rng(2026);
    for (std::size_t n : { std::size_t(1), std::size_t(2), std::size_t(1001) })
        for (bool column : { false, true }) {
            const double P = n == 2 ? 360.0 : two_pi;
            frame f;
            f.width = column ? 1 : n;
            f.height = column ? n : 1;
            f.wrapped = qa::wrapped_walk(n, P, 0.25 * P, rng);
            const auto expected = qa::reference_unwrap(f.wrapped, P);
            const std::string what =
                device + (column ? " column " : " row ") + std::to_string(n);
            const std::vector<std::uint8_t> valid(n, 1);

            auto config =
                make_config(device, f.width, f.height, unwrap_2d_method::reliability, P);
            config.gradient_window = 1;
            const auto rel = run(*phase_unwrapper_2d::make(config), f);
            check_outputs_consistent(rel, f, valid, P, what);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(1), rel.report.components);
            for (std::size_t i = 0; i < n; ++i)
                if (std::memcmp(&expected[i], &rel.unwrapped[i], sizeof(float)) != 0)
                    fail_at(what, i, "not numpy.unwrap's value");

            const auto ls =
                run(*phase_unwrapper_2d::make(make_config(
                        device, f.width, f.height, unwrap_2d_method::least_squares, P)),
                    f);
            check_outputs_consistent(ls, f, valid, P, what + " least squares");
            const std::int64_t shift =
                ls.cycles[0] - std::llround((double(expected[0]) - f.wrapped[0]) / P);
            for (std::size_t i = 0; i < n; ++i) {
                const std::int64_t k =
                    std::llround((double(expected[i]) - f.wrapped[i]) / P);
                if (ls.cycles[i] - k != shift)
                    fail_at(what + " least squares", i, "not numpy.unwrap's K + const");
            }

            // A guided window on a line averages the steps along it: exact on a
            // noise-free ramp whose step (0.2 to 0.4 periods) changes slowly.
            std::vector<double> ramp(n);
            for (std::size_t i = 0; i < n; ++i)
                ramp[i] = 0.2 * double(i) + 1e-4 * double(i) * double(i);
            const frame ramp_frame = frame_of(ramp, f.width, f.height, P);
            const auto k = true_cycles(ramp, ramp_frame, P);
            const std::vector<std::int32_t> one_region(n, 1);
            for (std::size_t window : { 5, 15 }) {
                config.gradient_window = window;
                const auto guided = run(*phase_unwrapper_2d::make(config), ramp_frame);
                const std::string guided_what =
                    what + " ramp, window " + std::to_string(window);
                check_outputs_consistent(guided, ramp_frame, valid, P, guided_what);
                check_against_truth(guided, k, one_region, true, guided_what);
            }
        }
}

} // namespace core
} // namespace cudadsp
} // namespace gr
