/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_phase_unwrap_2d: the reliability method against known truth (analytic fields,
// invalid pixels, disconnected regions, wrap-around) and against the float64
// references, which are checked on hand-made examples first.

#include "qa_phase_unwrap_2d.h"
#include "qa_unwrap_2d_reference.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

void qa_phase_unwrap_2d::references_match_known_values()
{
    // Reliability, by hand on a 3 x 1 line (P = 1): the steps 0.1 -> 0.45 (0.35,
    // no wrap) and 0.45 -> -0.3 (-0.75: one period up) give K = 0, 0, 1.
    frame line;
    line.width = 3;
    line.height = 1;
    line.wrapped = { 0.1f, 0.45f, -0.3f };
    const auto rel = qa::reference_reliability_unwrap(line, 1.0, false, false, 1);
    CPPUNIT_ASSERT(rel.cycles == std::vector<std::int64_t>({ 0, 0, 1 }));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), rel.component_count);
    // A line has no column or diagonal terms: every pixel is unranked.
    for (float key : rel.reliability)
        CPPUNIT_ASSERT(std::isinf(key) && key > 0);

    // The key of the centre of a 3 x 3 frame (P = 1), term by term:
    // H: wrap(0.1 - 0.3) - wrap(0.3 - 0.4) = -0.1; V: wrap(0.1 - 0.3) -
    // wrap(0.3 - 0.45) = -0.05; D1: wrap(0 - 0.3) - wrap(0.3 + 0.4) = 0; D2:
    // wrap(0.2 - 0.3) - wrap(0.3 - 0.2) = -0.2; 0.01 + 0.0025 + 0 + 0.04. The
    // border pixels have no full set of terms.
    frame square;
    square.width = 3;
    square.height = 3;
    square.wrapped = { 0.0f, 0.1f, 0.2f, 0.1f, 0.3f, 0.4f, 0.2f, 0.45f, -0.4f };
    const auto keys = qa::reference_reliability_unwrap(square, 1.0, false, false, 1);
    CPPUNIT_ASSERT_DOUBLES_EQUAL(0.0525, keys.reliability[4], 1e-6);
    for (int i : { 0, 1, 2, 3, 5, 6, 7, 8 })
        CPPUNIT_ASSERT(std::isinf(keys.reliability[i]));
    // One masked neighbour unranks the centre too.
    square.mask = { 1, 1, 1, 1, 1, 1, 1, 1, 0 };
    CPPUNIT_ASSERT(std::isinf(
        qa::reference_reliability_unwrap(square, 1.0, false, false, 1).reliability[4]));
    // Through the wrap-around edges every pixel has its eight neighbours.
    square.mask.clear();
    for (float key :
         qa::reference_reliability_unwrap(square, 1.0, true, true, 1).reliability)
        CPPUNIT_ASSERT(std::isfinite(key));

    // The guided window on a line (P = 1): truth 0, 0.3, 0.85, 1.15 wrapped to 0,
    // 0.3, -0.15, 0.15. The pair rule keeps the middle step -0.45 (|d| <= 1/2): K
    // = 0, 0, 0, 0. A window of 3 about pixel 1 sums the steps 0.3, -0.45, 0.3:
    // their mean phasor's angle is 0.374 periods, and -0.45 + 1 is nearest to it,
    // so K = 0, 0, 1, 1; the outer edges' windows (0.3, -0.45: 0.425) keep 0.3.
    frame guided_line;
    guided_line.width = 4;
    guided_line.height = 1;
    guided_line.wrapped = { 0.0f, 0.3f, -0.15f, 0.15f };
    const auto pair_rule =
        qa::reference_reliability_unwrap(guided_line, 1.0, false, false, 1);
    CPPUNIT_ASSERT(pair_rule.cycles == std::vector<std::int64_t>({ 0, 0, 0, 0 }));
    const auto guided =
        qa::reference_reliability_unwrap(guided_line, 1.0, false, false, 3);
    CPPUNIT_ASSERT(guided.cycles == std::vector<std::int64_t>({ 0, 0, 1, 1 }));
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), guided.near_half_period_joins);
    // The engine agrees with both hand results.
    for (std::size_t window : { 1, 3 }) {
        auto config = make_config("cpu", 4, 1, unwrap_2d_method::reliability, 1.0);
        config.gradient_window = window;
        const auto o = run(*phase_unwrapper_2d::make(config), guided_line);
        const std::vector<std::int32_t> expected =
            window == 1 ? std::vector<std::int32_t>{ 0, 0, 0, 0 }
                        : std::vector<std::int32_t>{ 0, 0, 1, 1 };
        CPPUNIT_ASSERT_MESSAGE("window " + std::to_string(window), o.cycles == expected);
    }

    // Least squares on the first line: the wrapped differences 0.35 and 0.25 are
    // integrable, so the solution is 0.1, 0.45, 0.7 up to a constant, and the
    // constant puts it onto the wrapped values.
    const auto ls = qa::reference_least_squares_unwrap(line, 1.0);
    const double expected[] = { 0.1, 0.45, 0.7 };
    for (int i = 0; i < 3; ++i)
        CPPUNIT_ASSERT_DOUBLES_EQUAL(expected[i], ls.solution[i], 1e-7);
    CPPUNIT_ASSERT(ls.cycles == std::vector<std::int64_t>({ 0, 0, 1 }));

    // Two pixels separated by a masked one: two components.
    line.mask = { 1, 0, 1 };
    const auto split = qa::reference_reliability_unwrap(line, 1.0, false, false, 1);
    CPPUNIT_ASSERT(split.components == std::vector<std::int32_t>({ 1, 0, 2 }));
    CPPUNIT_ASSERT(split.cycles == std::vector<std::int64_t>({ 0, 0, 0 }));
    // ... joined through the wrap-around edge.
    const auto joined = qa::reference_reliability_unwrap(line, 1.0, true, false, 1);
    CPPUNIT_ASSERT(joined.components == std::vector<std::int32_t>({ 1, 0, 1 }));
    // -0.3 -> 0.1 across the wrap edge is 0.4: no wrap, K stays 0 for both.
    CPPUNIT_ASSERT(joined.cycles == std::vector<std::int64_t>({ 0, 0, 0 }));
}

void qa_phase_unwrap_2d::analytic_fields_are_exact(const std::string& device)
{
    const std::size_t sizes[][2] = { { 173, 119 }, { 64, 201 }, { 31, 33 } };
    for (const auto& size : sizes)
        for (double P : { two_pi, 360.0, 1.0 }) {
            const std::size_t W = size[0], H = size[1];
            const auto truth = hill_plane_saddle(W, H);
            const frame f = frame_of(truth, W, H, P);
            const auto k = true_cycles(truth, f, P);
            const std::vector<std::uint8_t> valid(W * H, 1);
            const std::vector<std::int32_t> one_region(W * H, 1);
            const std::string what = device + " " + std::to_string(W) + "x" +
                                     std::to_string(H) + " P=" + std::to_string(P);

            // The pair rule and guided windows: a smooth field's gradient changes
            // by far less than half a period across a window, so all are exact.
            for (std::size_t window : { 1, 5, 7 }) {
                auto config = make_config(device, W, H, unwrap_2d_method::reliability, P);
                config.gradient_window = window;
                const auto rel = run(*phase_unwrapper_2d::make(config), f);
                const std::string rel_what =
                    what + " reliability, window " + std::to_string(window);
                check_outputs_consistent(rel, f, valid, P, rel_what);
                check_against_truth(rel, k, one_region, true, rel_what);
                CPPUNIT_ASSERT_EQUAL(std::size_t(1), rel.report.components);
            }

            auto config = make_config(device, W, H, unwrap_2d_method::least_squares, P);
            const auto ls = run(*phase_unwrapper_2d::make(config), f);
            check_outputs_consistent(ls, f, valid, P, what + " least squares");
            check_against_truth(ls, k, one_region, false, what + " least squares");

            // Smooth output: the solution itself, which for consistent
            // differences is the truth up to float32 rounding of the solve, shifted
            // by the whole periods the congruent output shows.
            config.congruent = false;
            const auto smooth = run(*phase_unwrapper_2d::make(config), f);
            for (std::size_t i = 0; i < W * H; ++i) {
                const double expected = (truth[i] + double(ls.cycles[0] - k[0])) * P;
                if (!(std::fabs(double(smooth.unwrapped[i]) - expected) <= 1e-4 * P))
                    fail_at(what + " smooth",
                            i,
                            std::to_string(smooth.unwrapped[i]) + " vs truth " +
                                std::to_string(expected));
                CPPUNIT_ASSERT_EQUAL(ls.cycles[i], smooth.cycles[i]);
            }

            // Weighted (PCG) on the same consistent field: the same solution.
            qa::gaussian_source rng(W * H);
            frame weighted = f;
            weighted.weight.resize(W * H);
            for (float& w : weighted.weight)
                w = static_cast<float>(rng.uniform(0.3, 1.0));
            config.congruent = true;
            const auto wls = run(*phase_unwrapper_2d::make(config), weighted);
            check_outputs_consistent(wls, weighted, valid, P, what + " weighted");
            check_against_truth(wls, k, one_region, false, what + " weighted");
            CPPUNIT_ASSERT_MESSAGE(what, wls.report.iterations > 0);
        }
}

void qa_phase_unwrap_2d::invalid_pixels(const std::string& device)
{
    const std::size_t W = 151, H = 97;
    const double P = two_pi;
    const auto truth = hill_plane_saddle(W, H);
    frame f = noisy_frame(W, H, P, 0.0, 5, true, true, 0.05);
    // noisy_frame(noise 0) keeps the truth where it leaves a pixel finite.
    const frame clean = frame_of(truth, W, H, P);
    const auto k = true_cycles(truth, clean, P);
    const auto valid = qa::reference_valid_pixels(f);
    const auto regions = label_regions(valid, W, H);
    const std::size_t invalid = std::count(valid.begin(), valid.end(), 0);
    CPPUNIT_ASSERT(invalid > W * H / 20);

    // The guided window leaves out the pairs with an invalid pixel.
    for (std::size_t window : { 1, 5 }) {
        auto config = make_config(device, W, H, unwrap_2d_method::reliability);
        config.gradient_window = window;
        const auto rel = run(*phase_unwrapper_2d::make(config), f);
        const std::string what =
            device + " reliability, window " + std::to_string(window);
        check_outputs_consistent(rel, f, valid, P, what);
        check_against_truth(rel, k, regions, true, what);
        CPPUNIT_ASSERT_EQUAL(
            std::size_t(*std::max_element(regions.begin(), regions.end())),
            rel.report.components);
    }

    const auto ls = run(*phase_unwrapper_2d::make(
                            make_config(device, W, H, unwrap_2d_method::least_squares)),
                        f);
    check_outputs_consistent(ls, f, valid, P, device + " least squares");
    check_against_truth(
        ls, k, regions, false, device + " least squares", largest_region(regions));

    // Nothing valid at all: every output says so.
    frame none = f;
    std::fill(none.mask.begin(), none.mask.end(), 0);
    const std::vector<std::uint8_t> no_pixel(W * H, 0);
    for (auto method :
         { unwrap_2d_method::reliability, unwrap_2d_method::least_squares }) {
        const auto o =
            run(*phase_unwrapper_2d::make(make_config(device, W, H, method)), none);
        check_outputs_consistent(o, none, no_pixel, P, device + " nothing valid");
        CPPUNIT_ASSERT_EQUAL(std::size_t(0), o.report.components);
        CPPUNIT_ASSERT_EQUAL(std::size_t(0), o.report.iterations);
    }
}

void qa_phase_unwrap_2d::disconnected_regions(const std::string& device)
{
    // Region A: rows 0..40, columns 60..100, first pixel (0, 60); region B: rows
    // 2..60, columns 0..50, first pixel (2, 0), so A is component 1 although B
    // holds the leftmost pixels; and a single pixel at (70, 120).
    const std::size_t W = 130, H = 80;
    const auto truth = hill_plane_saddle(W, H);
    frame f = frame_of(truth, W, H, two_pi);
    f.mask.assign(W * H, 0);
    std::vector<std::int32_t> expected(W * H, 0);
    for (std::size_t r = 0; r < H; ++r)
        for (std::size_t c = 0; c < W; ++c) {
            std::int32_t region = 0;
            if (r <= 40 && c >= 60 && c <= 100)
                region = 1;
            if (r >= 2 && r <= 60 && c <= 50)
                region = 2;
            if (r == 70 && c == 120)
                region = 3;
            f.mask[r * W + c] = region != 0;
            expected[r * W + c] = region;
        }
    const auto k = true_cycles(truth, f, two_pi);
    const auto valid = qa::reference_valid_pixels(f);
    const auto o = run(*phase_unwrapper_2d::make(
                           make_config(device, W, H, unwrap_2d_method::reliability)),
                       f);
    check_outputs_consistent(o, f, valid, two_pi, device + " regions");
    check_against_truth(o, k, expected, true, device + " regions");
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), o.report.components);
    CPPUNIT_ASSERT_EQUAL(std::int32_t(1), o.components[60]);
    CPPUNIT_ASSERT_EQUAL(std::int32_t(2), o.components[2 * W]);
    CPPUNIT_ASSERT_EQUAL(std::int32_t(3), o.components[70 * W + 120]);
}

void qa_phase_unwrap_2d::wrap_around(const std::string& device)
{
    const std::size_t W = 181, H = 127;
    const double P = two_pi;
    // Periodic across the left and right edges, in periods.
    std::vector<double> periodic_x(W * H), periodic_y(W * H), torus(W * H);
    for (std::size_t r = 0; r < H; ++r)
        for (std::size_t c = 0; c < W; ++c) {
            const double u = two_pi * double(c) / double(W);
            const double v = two_pi * double(r) / double(H);
            periodic_x[r * W + c] = 6.0 * std::sin(u + double(r) / 30.0) + 0.05 * r;
            periodic_y[r * W + c] = 5.0 * std::cos(v + double(c) / 40.0) - 0.04 * c;
            torus[r * W + c] = 5.0 * std::sin(u) + 4.0 * std::cos(v) * std::sin(u + 1.0);
        }
    struct wrap_case {
        const std::vector<double>* truth;
        bool wrap_x, wrap_y;
        bool band_x, band_y; // a masked band that the wrap edge bridges
    };
    const wrap_case cases[] = { { &periodic_x, true, false, true, false },
                                { &periodic_y, false, true, false, true },
                                { &torus, true, true, true, true },
                                { &torus, true, true, false, false } };
    for (const wrap_case& wc : cases) {
        frame f = frame_of(*wc.truth, W, H, P);
        f.mask.assign(W * H, 1);
        for (std::size_t r = 0; r < H; ++r)
            for (std::size_t c = 0; c < W; ++c)
                if ((wc.band_x && c >= 80 && c < 100) || (wc.band_y && r >= 50 && r < 60))
                    f.mask[r * W + c] = 0;
        const auto k = true_cycles(*wc.truth, f, P);
        const auto valid = qa::reference_valid_pixels(f);
        const auto regions = label_regions(valid, W, H, wc.wrap_x, wc.wrap_y);
        // A guided window reaches across the wrap-around edges too.
        for (std::size_t window : { 1, 5 }) {
            std::ostringstream what;
            what << device << " wrap x " << wc.wrap_x << " y " << wc.wrap_y << " bands "
                 << wc.band_x << wc.band_y << " window " << window;
            auto config = make_config(device, W, H, unwrap_2d_method::reliability, P);
            config.wrap_around_x = wc.wrap_x;
            config.wrap_around_y = wc.wrap_y;
            config.gradient_window = window;
            const auto o = run(*phase_unwrapper_2d::make(config), f);
            check_outputs_consistent(o, f, valid, P, what.str());
            check_against_truth(o, k, regions, true, what.str());
            // The bands cut the frame; only the wrap-around edges join it again.
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what.str(), std::size_t(1), o.report.components);
            if (wc.band_x || wc.band_y) {
                config.wrap_around_x = config.wrap_around_y = false;
                const auto cut = run(*phase_unwrapper_2d::make(config), f);
                const std::size_t pieces = (wc.band_x ? 2 : 1) * (wc.band_y ? 2 : 1);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what.str(), pieces, cut.report.components);
            }
        }
    }
}

void qa_phase_unwrap_2d::reliability_matches_reference(const std::string& device)
{
    // The pair rule (window 1) exactly everywhere; guided windows exactly on the
    // moderately noisy fields, where the reference measures no join near half a
    // period, and on at least 99.9 % of the pixels of the noisiest.
    struct noisy_case {
        std::size_t width, height;
        double period, noise;
        bool wrap_x, wrap_y;
        agreement guided;
    };
    const noisy_case cases[] = {
        { 97, 61, two_pi, 0.15, false, false, agreement::exact },
        { 97, 61, two_pi, 0.15, true, false, agreement::exact },
        { 64, 75, 360.0, 0.25, false, true, agreement::exact },
        { 83, 59, 1.0, 0.1, true, true, agreement::exact },
        { 120, 90, two_pi, 0.4, true, true, agreement::most },
        // Frames narrower than the guided window, across wrap-around edges: the
        // window goes around them more than once.
        { 20, 3, two_pi, 0.15, false, true, agreement::exact },
        { 3, 20, two_pi, 0.15, true, false, agreement::exact }
    };
    std::uint64_t seed = 100;
    for (const noisy_case& nc : cases)
        for (bool inputs : { false, true }) {
            const frame f = noisy_frame(
                nc.width, nc.height, nc.period, nc.noise, ++seed, inputs, inputs);
            for (std::size_t window : { 1, 5, 7 }) {
                auto config = make_config(device,
                                          nc.width,
                                          nc.height,
                                          unwrap_2d_method::reliability,
                                          nc.period);
                config.wrap_around_x = nc.wrap_x;
                config.wrap_around_y = nc.wrap_y;
                config.gradient_window = window;
                std::ostringstream what;
                what << device << " " << nc.width << "x" << nc.height
                     << " P=" << nc.period << " noise " << nc.noise << " wrap "
                     << nc.wrap_x << nc.wrap_y << " inputs " << inputs << " window "
                     << window;
                check_reliability_reference(run(*phase_unwrapper_2d::make(config), f),
                                            f,
                                            nc.period,
                                            nc.wrap_x,
                                            nc.wrap_y,
                                            window,
                                            window == 1 ? agreement::exact : nc.guided,
                                            what.str());
            }
        }
    // Quantised phases (multiples of 45 degrees, exact in float32): many equal
    // keys, so the order rests on the edge index; and steps of exactly half a
    // period, which the pair rule keeps (a guided window would tie there).
    qa::gaussian_source rng(77);
    for (bool wrap : { false, true }) {
        frame f;
        f.width = 45;
        f.height = 37;
        for (std::size_t i = 0; i < f.width * f.height; ++i)
            f.wrapped.push_back(45.0f * float(rng.integer(-4, 3)));
        auto config =
            make_config(device, f.width, f.height, unwrap_2d_method::reliability, 360.0);
        config.wrap_around_x = config.wrap_around_y = wrap;
        config.gradient_window = 1;
        check_reliability_reference(run(*phase_unwrapper_2d::make(config), f),
                                    f,
                                    360.0,
                                    wrap,
                                    wrap,
                                    1,
                                    agreement::exact,
                                    device + " quantised, wrap " + std::to_string(wrap));
    }
}

void qa_phase_unwrap_2d::guided_window_accuracy(const std::string& device)
{
    // A Gaussian hill of 25 periods (steepest step 0.19 periods) in Gaussian phase
    // noise of 0.7 rad: K right (up to the frame's constant) on a larger share of
    // the pixels with a guided window than with the pair rule.
    const std::size_t W = 256, H = 256;
    const double P = two_pi;
    std::vector<double> truth(W * H);
    for (std::size_t r = 0; r < H; ++r)
        for (std::size_t c = 0; c < W; ++c) {
            const double dr = double(r) - 0.5 * H, dc = double(c) - 0.45 * W;
            truth[r * W + c] = 25.0 * std::exp(-(dr * dr + dc * dc) / (2 * 80.0 * 80.0));
        }
    const double noise_rad = 0.7;
    const frame f = frame_of(truth, W, H, P, noise_rad / P, 2718);
    const auto k = true_cycles(truth, f, P);
    double right[3] = {};
    const std::size_t windows[3] = { 1, 5, 7 };
    for (int w = 0; w < 3; ++w) {
        auto config = make_config(device, W, H, unwrap_2d_method::reliability, P);
        config.gradient_window = windows[w];
        const auto o = run(*phase_unwrapper_2d::make(config), f);
        // The share of pixels whose K - true K is the most common offset.
        std::vector<std::int64_t> offsets(W * H);
        for (std::size_t i = 0; i < W * H; ++i)
            offsets[i] = std::int64_t(o.cycles[i]) - k[i];
        std::sort(offsets.begin(), offsets.end());
        std::size_t best = 0;
        for (std::size_t i = 0; i < offsets.size();) {
            std::size_t j = i;
            while (j < offsets.size() && offsets[j] == offsets[i])
                ++j;
            best = std::max(best, j - i);
            i = j;
        }
        right[w] = double(best) / double(W * H);
    }
    std::cout << "  " << device << ": K right with noise " << noise_rad
              << " rad: window 1 " << 100 * right[0] << " %, window 5 " << 100 * right[1]
              << " %, window 7 " << 100 * right[2] << " %" << std::endl;
    CPPUNIT_ASSERT(right[1] >= right[0]);
    CPPUNIT_ASSERT(right[2] >= right[0]);
}

CPPUNIT_TEST_SUITE_REGISTRATION(qa_phase_unwrap_2d);

} // namespace core
} // namespace cudadsp
} // namespace gr
