/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_phase_unwrap_2d: the least-squares method against the float64 reference, and
// its weights: relative, the float32 quotient the float64 one rounded.

#include "qa_phase_unwrap_2d.h"
#include "qa_unwrap_2d_reference.h"
#include "unwrap/phase_unwrap_2d_rule.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

/*!
 * Least squares against the float64 reference, on the valid pixels of the largest
 * region: the problem leaves one free constant per connected component and the
 * documented rule fixes one overall, so on islands cut off by invalid pixels the
 * constant is each solver's own. There: the smooth outputs within
 * \p smooth_tolerance_periods * P, and the congruent K equal wherever the reference is
 * not within that tolerance of a rounding boundary.
 */
void check_least_squares_reference(const std::string& device,
                                   const frame& f,
                                   double P,
                                   double smooth_tolerance_periods,
                                   const std::string& what)
{
    const auto ref = qa::reference_least_squares_unwrap(f, P);
    const auto valid = qa::reference_valid_pixels(f);
    const auto regions = label_regions(valid, f.width, f.height);
    const std::int32_t main = largest_region(regions);
    auto config =
        make_config(device, f.width, f.height, unwrap_2d_method::least_squares, P);
    config.tolerance = 1e-6;
    config.max_iterations = 1000;
    const bool weighted = !f.weight.empty() || !f.mask.empty() ||
                          std::count(valid.begin(), valid.end(), 1) != long(valid.size());
    config.congruent = false;
    const outputs smooth = run(*phase_unwrapper_2d::make(config), f);
    config.congruent = true;
    const outputs congruent = run(*phase_unwrapper_2d::make(config), f);
    check_outputs_consistent(congruent, f, valid, P, what + " congruent");
    if (weighted) {
        CPPUNIT_ASSERT_MESSAGE(what, congruent.report.iterations > 0);
        CPPUNIT_ASSERT_MESSAGE(what, congruent.report.relative_residual <= 1e-6);
    } else {
        CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(0), congruent.report.iterations);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 0.0, congruent.report.relative_residual);
    }
    CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(0), congruent.report.components);
    const double tolerance = smooth_tolerance_periods * P;
    std::size_t compared = 0;
    for (std::size_t i = 0; i < valid.size(); ++i) {
        if (!valid[i]) {
            if (!std::isnan(smooth.unwrapped[i]) || smooth.cycles[i] != 0)
                fail_at(what + " smooth", i, "not valid, yet not NaN / K 0");
            continue;
        }
        if (regions[i] != main)
            continue;
        ++compared;
        const double error = std::fabs(double(smooth.unwrapped[i]) - ref.solution[i]);
        if (!(error <= tolerance))
            fail_at(what + " smooth",
                    i,
                    "off the reference by " + std::to_string(error / P) + " periods");
        const double turns = (ref.solution[i] - double(f.wrapped[i])) / P;
        const double to_boundary = std::fabs(turns - std::floor(turns) - 0.5);
        if (to_boundary > smooth_tolerance_periods &&
            std::int64_t(congruent.cycles[i]) != ref.cycles[i])
            fail_at(what + " congruent",
                    i,
                    "K " + std::to_string(congruent.cycles[i]) + ", reference " +
                        std::to_string(ref.cycles[i]));
        // The smooth output's K: round((unwrapped - wrapped) / P).
        if (std::fabs(smooth.cycles[i] -
                      (double(smooth.unwrapped[i]) - f.wrapped[i]) / P) > 0.5 + 1e-6)
            fail_at(what + " smooth", i, "cycles do not round the smooth output");
    }
    CPPUNIT_ASSERT_MESSAGE(what, compared > valid.size() / 2);
}

} // namespace

void qa_phase_unwrap_2d::least_squares_matches_reference(const std::string& device)
{
    // The smooth tolerance: float32 arrays and transforms on a solution of up to ~15
    // periods, and the PCG stopped at a residual of 1e-6, against float64 to 1e-12.
    const double tolerance_periods = 2e-4;
    check_least_squares_reference(device,
                                  noisy_frame(48, 40, two_pi, 0.1, 21, false, false, 0.0),
                                  two_pi,
                                  tolerance_periods,
                                  device + " unweighted");
    check_least_squares_reference(device,
                                  noisy_frame(61, 47, 360.0, 0.12, 22, true, false),
                                  360.0,
                                  tolerance_periods,
                                  device + " weighted");
    check_least_squares_reference(device,
                                  noisy_frame(53, 44, two_pi, 0.15, 23, true, true),
                                  two_pi,
                                  tolerance_periods,
                                  device + " weighted, masked");
    check_least_squares_reference(device,
                                  noisy_frame(50, 39, 1.0, 0.1, 24, false, true),
                                  1.0,
                                  tolerance_periods,
                                  device + " masked");
}

void qa_phase_unwrap_2d::relative_weight_is_the_float64_quotient_rounded()
{
    // relative_weight() divides in float32 (cheaper in the kernels than float64);
    // its comment's claim, that this is the float64 quotient rounded to float32,
    // on a million pairs over the whole float32 exponent range, quotients
    // down to subnormal. The CUDA backend's agreement with the CPU one covers the
    // device side.
    std::mt19937_64 rng(20261205);
    std::uniform_int_distribution<int> exponent(-149, 127);
    std::uniform_real_distribution<double> mantissa(1.0, 2.0);
    const auto draw = [&] {
        const float v = static_cast<float>(std::ldexp(mantissa(rng), exponent(rng)));
        return v > 0.0f && std::isfinite(v) ? v : 1.0f;
    };
    for (int i = 0; i < 1000000; ++i) {
        const float a = draw();
        const float b = draw();
        const float weight = std::min(a, b);
        const float largest = std::max(a, b);
        const float expected = static_cast<float>(static_cast<double>(weight) / largest);
        const float got = relative_weight(weight, largest);
        if (got != expected) {
            std::ostringstream text;
            text << std::hexfloat << "relative_weight(" << weight << ", " << largest
                 << ") = " << got << ", float64 quotient rounded: " << expected;
            CPPUNIT_FAIL(text.str());
        }
    }
}

void qa_phase_unwrap_2d::least_squares_weights_are_relative(const std::string& device)
{
    // Weights are relative. A frame's weights times 1e10, 1e30, 1e-20 or 1e-30 give
    // the same K as the weights themselves, the truth's up to a constant (scaled as
    // given, 1e10 made every pixel -1.349e10, K INT32_MIN and the residual NaN);
    // and weights that are one constant, however large or small, give what weights
    // of 1 give, which is what no weights (the invalid ones masked) give.
    const std::size_t W = 151, H = 97;
    const double P = two_pi;
    const auto truth = hill_plane_saddle(W, H);
    const frame f = noisy_frame(W, H, P, 0.0, 5, true, true, 0.05);
    const auto k = true_cycles(truth, frame_of(truth, W, H, P), P);
    const auto valid = qa::reference_valid_pixels(f);
    const auto regions = label_regions(valid, W, H);
    auto engine = phase_unwrapper_2d::make(
        make_config(device, W, H, unwrap_2d_method::least_squares));
    const auto base = run(*engine, f);
    check_against_truth(
        base, k, regions, false, device + " unit scale", largest_region(regions));
    // Under a sanitizer the two extremes only: each scale is a full PCG solve, and
    // racecheck made the four of them take 150 s.
    const std::vector<float> scales =
        qa::scaled(std::vector<float>{ 1e10f, 1e30f, 1e-20f, 1e-30f },
                   std::vector<float>{ 1e30f, 1e-30f });
    for (const float scale : scales) {
        const std::string what = device + " weights times " + std::to_string(scale);
        frame scaled = f;
        for (float& w : scaled.weight)
            w *= scale;
        const auto o = run(*engine, scaled);
        check_outputs_consistent(o, scaled, valid, P, what);
        check_against_truth(o, k, regions, false, what, largest_region(regions));
        CPPUNIT_ASSERT_MESSAGE(what, o.cycles == base.cycles);
        CPPUNIT_ASSERT_MESSAGE(what + ": residual " +
                                   std::to_string(o.report.relative_residual),
                               o.report.relative_residual <=
                                   std::max(1e-5, 2 * base.report.relative_residual));
    }

    frame unit = f;
    frame unweighted = f;
    unweighted.weight.clear();
    for (std::size_t i = 0; i < valid.size(); ++i) {
        unweighted.mask[i] = valid[i];
        if (valid[i])
            unit.weight[i] = 1.0f;
    }
    const auto unit_result = run(*engine, unit);
    const auto unweighted_result = run(*engine, unweighted);
    // Bit for bit (NaN where not valid, so compared as bytes).
    CPPUNIT_ASSERT_MESSAGE(device + ": weights of 1 and no weights differ",
                           std::memcmp(unit_result.unwrapped.data(),
                                       unweighted_result.unwrapped.data(),
                                       valid.size() * sizeof(float)) == 0);
    for (const float constant : { 1e10f, 1e-20f, 3e38f }) {
        frame same = unit;
        for (std::size_t i = 0; i < valid.size(); ++i)
            if (valid[i])
                same.weight[i] = constant;
        const auto o = run(*engine, same);
        CPPUNIT_ASSERT_MESSAGE(device + ": constant weights " + std::to_string(constant),
                               std::memcmp(o.unwrapped.data(),
                                           unit_result.unwrapped.data(),
                                           valid.size() * sizeof(float)) == 0);
        CPPUNIT_ASSERT_MESSAGE(device + ": constant weights, cycles",
                               o.cycles == unit_result.cycles);
    }
}

} // namespace core
} // namespace cudadsp
} // namespace gr
