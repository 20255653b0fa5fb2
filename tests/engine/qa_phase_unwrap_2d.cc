/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Two-dimensional phase-unwrap engine, CPU and CUDA backends: against known truth
// (noise-free analytic fields, whose whole periods are known), against the float64
// references of qa_unwrap_2d_reference.h (written from the documentation, not from the
// engine's rules) on noisy fields, and the CUDA backend against the CPU backend.

#include "qa_support.h"
#include "qa_unwrap_2d_reference.h"
#include "runtime/cuda_resources.h"
#include "unwrap/phase_unwrap_2d_rule.h"
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

const double two_pi = 6.283185307179586476925286766559;
const float nan_f = std::numeric_limits<float>::quiet_NaN();
//! A K no test field can have, to catch cycles never written.
constexpr std::int32_t poison_cycles = 0x7fffffff;

using frame = qa::unwrap_2d_frame;

//! What one unwrap() gave; components empty where not asked for.
struct outputs {
    std::vector<float> unwrapped;
    std::vector<std::int32_t> cycles;
    std::vector<std::int32_t> components;
    unwrap_2d_report report;
};

phase_unwrap_2d_config make_config(const std::string& device,
                                   std::size_t width,
                                   std::size_t height,
                                   unwrap_2d_method method,
                                   double period = two_pi)
{
    phase_unwrap_2d_config config;
    config.device = device;
    config.width = width;
    config.height = height;
    config.method = method;
    config.period = period;
    return config;
}

//! Runs one frame with every output poisoned first; \p in_place unwraps in the
//! wrapped buffer's copy itself.
outputs run(phase_unwrapper_2d& engine, const frame& f, bool in_place = false)
{
    const std::size_t n = f.width * f.height;
    const bool reliability = engine.config().method == unwrap_2d_method::reliability;
    outputs o;
    o.unwrapped.assign(n, qa::poison_value);
    o.cycles.assign(n, poison_cycles);
    if (reliability)
        o.components.assign(n, poison_cycles);
    unwrap_2d_buffers b;
    if (in_place)
        o.unwrapped = f.wrapped;
    b.wrapped = in_place ? o.unwrapped.data() : f.wrapped.data();
    b.unwrapped = o.unwrapped.data();
    b.weight = f.weight.empty() ? nullptr : f.weight.data();
    b.mask = f.mask.empty() ? nullptr : f.mask.data();
    b.cycles = o.cycles.data();
    b.components = reliability ? o.components.data() : nullptr;
    o.report = engine.unwrap(b);
    return o;
}

//! x reduced to [-P/2, P/2) in float64, rounded once.
float wrap_phase(double x, double P)
{
    return static_cast<float>(x - P * std::floor(x / P + 0.5));
}

/*! A noise-free field, in periods: a plane, a Gaussian hill of 12 periods and a
 *  saddle. Its steepest step between 4-neighbours is below 0.35 periods. */
std::vector<double> hill_plane_saddle(std::size_t width, std::size_t height)
{
    std::vector<double> t(width * height);
    const double r0 = 0.45 * double(height), c0 = 0.55 * double(width), s = 30.0;
    for (std::size_t r = 0; r < height; ++r)
        for (std::size_t c = 0; c < width; ++c) {
            const double dr = double(r) - r0, dc = double(c) - c0;
            t[r * width + c] = 0.05 * double(r) - 0.03 * double(c) +
                               12.0 * std::exp(-(dr * dr + dc * dc) / (2 * s * s)) +
                               0.0005 * dr * dc;
        }
    return t;
}

//! A frame from a truth in periods: wrapped float32(truth * P) plus Gaussian noise of
//! \p noise_periods (no noise: 0).
frame frame_of(const std::vector<double>& truth_periods,
               std::size_t width,
               std::size_t height,
               double P,
               double noise_periods = 0.0,
               std::uint64_t seed = 1)
{
    qa::gaussian_source rng(seed);
    frame f;
    f.width = width;
    f.height = height;
    f.wrapped.resize(truth_periods.size());
    for (std::size_t i = 0; i < truth_periods.size(); ++i) {
        double x = truth_periods[i] * P;
        if (noise_periods > 0.0)
            x += noise_periods * P * rng.complex_normal(2.0).real();
        f.wrapped[i] = wrap_phase(x, P);
    }
    return f;
}

//! The true K of each pixel: truth = wrapped + P K (exactly, up to float rounding).
std::vector<std::int64_t>
true_cycles(const std::vector<double>& truth_periods, const frame& f, double P)
{
    std::vector<std::int64_t> k(truth_periods.size());
    for (std::size_t i = 0; i < k.size(); ++i)
        k[i] = std::llround((truth_periods[i] * P - double(f.wrapped[i])) / P);
    return k;
}

/*! Connected components of the valid pixels (4-neighbours, through the wrap-around
 *  edges where asked), numbered 1.. in row-major order of their first pixel. */
std::vector<std::int32_t> label_regions(const std::vector<std::uint8_t>& valid,
                                        std::size_t width,
                                        std::size_t height,
                                        bool wrap_x = false,
                                        bool wrap_y = false)
{
    std::vector<std::int32_t> label(valid.size(), 0);
    std::int32_t next = 0;
    std::vector<std::size_t> stack;
    for (std::size_t seed = 0; seed < valid.size(); ++seed) {
        if (!valid[seed] || label[seed] != 0)
            continue;
        label[seed] = ++next;
        stack.push_back(seed);
        while (!stack.empty()) {
            const std::size_t i = stack.back();
            stack.pop_back();
            const long r = long(i / width), c = long(i % width);
            const long steps[4][2] = { { 0, 1 }, { 0, -1 }, { 1, 0 }, { -1, 0 } };
            for (const auto& s : steps) {
                long rr = r + s[0], cc = c + s[1];
                if (wrap_y)
                    rr = (rr + long(height)) % long(height);
                if (wrap_x)
                    cc = (cc + long(width)) % long(width);
                if (rr < 0 || cc < 0 || rr >= long(height) || cc >= long(width))
                    continue;
                const std::size_t j = std::size_t(rr) * width + std::size_t(cc);
                if (valid[j] && label[j] == 0) {
                    label[j] = next;
                    stack.push_back(j);
                }
            }
        }
    }
    return label;
}

//! The label of the region with most pixels.
std::int32_t largest_region(const std::vector<std::int32_t>& label)
{
    std::vector<std::size_t> size;
    for (std::int32_t l : label) {
        if (l >= std::int32_t(size.size()))
            size.resize(l + 1, 0);
        if (l > 0)
            ++size[l];
    }
    return static_cast<std::int32_t>(std::max_element(size.begin(), size.end()) -
                                     size.begin());
}

void fail_at(const std::string& what, std::size_t i, const std::string& detail)
{
    std::ostringstream msg;
    msg << what << ": pixel " << i << ": " << detail;
    CPPUNIT_FAIL(msg.str());
}

/*!
 * Invalid pixels give NaN, K 0 and component 0; valid ones unwrapped = wrapped + P K
 * (the documented rounding) for the K the engine reports.
 */
void check_outputs_consistent(const outputs& o,
                              const frame& f,
                              const std::vector<std::uint8_t>& valid,
                              double P,
                              const std::string& what)
{
    std::size_t valid_count = 0;
    for (std::size_t i = 0; i < valid.size(); ++i) {
        if (!valid[i]) {
            if (!std::isnan(o.unwrapped[i]) || o.cycles[i] != 0 ||
                (!o.components.empty() && o.components[i] != 0))
                fail_at(what, i, "not valid, yet not NaN / K 0 / component 0");
            continue;
        }
        ++valid_count;
        const float expected = qa::reference_apply_cycles(f.wrapped[i], o.cycles[i], P);
        if (std::memcmp(&expected, &o.unwrapped[i], sizeof(float)) != 0)
            fail_at(what,
                    i,
                    "unwrapped " + std::to_string(o.unwrapped[i]) +
                        " is not wrapped + P K " + std::to_string(expected));
    }
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        what + ": valid_pixels", valid_count, o.report.valid_pixels);
}

/*!
 * Within each region of \p regions (or only \p only_region when > 0), K - true K is
 * one constant; with \p first_is_zero, the constant that gives the region's first
 * pixel K = 0, and the components output is the region numbering.
 */
void check_against_truth(const outputs& o,
                         const std::vector<std::int64_t>& truth,
                         const std::vector<std::int32_t>& regions,
                         bool first_is_zero,
                         const std::string& what,
                         std::int32_t only_region = 0)
{
    std::vector<std::int64_t> offset;
    std::vector<bool> seen;
    for (std::size_t i = 0; i < regions.size(); ++i) {
        const std::int32_t l = regions[i];
        if (l == 0 || (only_region > 0 && l != only_region))
            continue;
        if (l >= std::int32_t(offset.size())) {
            offset.resize(l + 1, 0);
            seen.resize(l + 1, false);
        }
        if (!seen[l]) {
            seen[l] = true;
            offset[l] = std::int64_t(o.cycles[i]) - truth[i];
            if (first_is_zero && o.cycles[i] != 0)
                fail_at(what,
                        i,
                        "first pixel of its component has K " +
                            std::to_string(o.cycles[i]));
        }
        if (std::int64_t(o.cycles[i]) - truth[i] != offset[l])
            fail_at(what,
                    i,
                    "K " + std::to_string(o.cycles[i]) + ", true K " +
                        std::to_string(truth[i]) + " + " + std::to_string(offset[l]));
        if (first_is_zero && !o.components.empty() && o.components[i] != l)
            fail_at(what,
                    i,
                    "component " + std::to_string(o.components[i]) + ", expected " +
                        std::to_string(l));
    }
}

//! How closely the reliability method must follow the reference.
enum class agreement {
    //! Every K. Asserted only where the reference measured no join near half a period.
    exact,
    /*! Where a window > 1 decides a join within 1e-6 periods of half a period, float64
     *  trigonometry (the reference) and the engine's float32 phasors may choose
     *  differently, and the subtree below that join follows: identical K on at least
     *  99.9 % of the valid pixels, components identical. */
    most,
};

//! The reliability method's outputs against the reference's.
void check_reliability_reference(const outputs& o,
                                 const frame& f,
                                 double P,
                                 bool wrap_x,
                                 bool wrap_y,
                                 std::size_t gradient_window,
                                 agreement level,
                                 const std::string& what)
{
    const auto ref =
        qa::reference_reliability_unwrap(f, P, wrap_x, wrap_y, gradient_window);
    const auto valid = qa::reference_valid_pixels(f);
    check_outputs_consistent(o, f, valid, P, what);
    if (level == agreement::exact)
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            what + ": joins near half a period, where the reference may not be exact",
            std::size_t(0),
            ref.near_half_period_joins);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < valid.size(); ++i) {
        if (o.components[i] != ref.components[i])
            fail_at(what,
                    i,
                    "component " + std::to_string(o.components[i]) + ", reference " +
                        std::to_string(ref.components[i]));
        if (std::int64_t(o.cycles[i]) == ref.cycles[i])
            continue;
        if (level == agreement::exact)
            fail_at(what,
                    i,
                    "K " + std::to_string(o.cycles[i]) + ", reference " +
                        std::to_string(ref.cycles[i]));
        ++differing;
    }
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        what + ": components", ref.component_count, o.report.components);
    if (level == agreement::most) {
        std::ostringstream msg;
        msg << what << ": K differs from the reference on " << differing << " of "
            << o.report.valid_pixels << " valid pixels (" << ref.near_half_period_joins
            << " joins near half a period)";
        CPPUNIT_ASSERT_MESSAGE(msg.str(), differing * 1000 <= o.report.valid_pixels);
    }
}

/*!
 * A noisy frame with everything that invalidates a pixel: a masked disc (water),
 * weights uniform in [0.2, 1] with a few zero, negative, NaN or infinite, and a few
 * NaN or infinite wrapped values. \p sparse_fraction of the pixels each.
 */
frame noisy_frame(std::size_t width,
                  std::size_t height,
                  double P,
                  double noise_periods,
                  std::uint64_t seed,
                  bool with_weight,
                  bool with_mask,
                  double sparse_fraction = 0.01)
{
    frame f =
        frame_of(hill_plane_saddle(width, height), width, height, P, noise_periods, seed);
    qa::gaussian_source rng(seed * 7919 + 13);
    const float inf = std::numeric_limits<float>::infinity();
    for (float& x : f.wrapped)
        if (rng.uniform() < sparse_fraction)
            x = rng.uniform() < 0.5 ? nan_f : (rng.uniform() < 0.5 ? inf : -inf);
    if (with_weight) {
        f.weight.resize(f.wrapped.size());
        const float bad[] = { 0.0f, -0.5f, nan_f, inf };
        for (float& w : f.weight)
            w = rng.uniform() < sparse_fraction
                    ? bad[rng.integer(0, 3)]
                    : static_cast<float>(rng.uniform(0.2, 1.0));
    }
    if (with_mask) {
        f.mask.assign(f.wrapped.size(), 1);
        const double rc = 0.3 * double(height), cc = 0.25 * double(width);
        const double radius = 0.12 * double(std::min(width, height));
        for (std::size_t r = 0; r < height; ++r)
            for (std::size_t c = 0; c < width; ++c) {
                const double dr = double(r) - rc, dc = double(c) - cc;
                if (dr * dr + dc * dc < radius * radius ||
                    rng.uniform() < sparse_fraction)
                    f.mask[r * width + c] = 0;
            }
    }
    return f;
}

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

class qa_phase_unwrap_2d : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_phase_unwrap_2d);
    CPPUNIT_TEST(references_match_known_values);
    CPPUNIT_TEST(bad_configuration_and_buffers);
    QA_BACKEND_TEST(analytic_fields_are_exact);
    QA_BACKEND_TEST(invalid_pixels);
    QA_BACKEND_TEST(disconnected_regions);
    QA_BACKEND_TEST(wrap_around);
    QA_BACKEND_TEST(reliability_matches_reference);
    QA_BACKEND_TEST(guided_window_accuracy);
    QA_BACKEND_TEST(least_squares_matches_reference);
    QA_BACKEND_TEST(report_fields);
    QA_BACKEND_TEST(in_place);
    QA_BACKEND_TEST(thin_frames);
    CPPUNIT_TEST(memory_checked_before_allocation);
    QA_BACKEND_TEST(least_squares_weights_are_relative);
    CPPUNIT_TEST(relative_weight_is_the_float64_quotient_rounded);
    QA_CUDA_TEST(cuda_reliability_bit_identical_to_cpu);
    QA_CUDA_TEST(cuda_least_squares_agrees_with_cpu);
    QA_CUDA_TEST(cuda_device_buffers);
    CPPUNIT_TEST_SUITE_END();

public:
    void references_match_known_values()
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
        CPPUNIT_ASSERT(
            std::isinf(qa::reference_reliability_unwrap(square, 1.0, false, false, 1)
                           .reliability[4]));
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
            CPPUNIT_ASSERT_MESSAGE("window " + std::to_string(window),
                                   o.cycles == expected);
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

    void bad_configuration_and_buffers()
    {
        const auto good = make_config("cpu", 16, 8, unwrap_2d_method::reliability);
        auto expect_error = [](const phase_unwrap_2d_config& c, const std::string& name) {
            try {
                phase_unwrapper_2d::make(c);
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(e.what(),
                                       std::string(e.what()).rfind(name, 0) == 0);
                return;
            }
            CPPUNIT_FAIL("no std::invalid_argument for a bad " + name);
        };
        auto c = good;
        c.width = 0;
        expect_error(c, "width");
        c = good;
        c.period = std::numeric_limits<double>::quiet_NaN();
        expect_error(c, "period");
        // Beyond 1e-30 .. 1e30 float32 samples resolve no phase (issue 16 item 9).
        for (double bad : { 1e-31, 1e31, 1e300 }) {
            c.period = bad;
            expect_error(c, "period");
        }
        for (double good_period : { 1e-30, 1e30 }) {
            c.period = good_period;
            phase_unwrapper_2d::make(c);
        }
        c = good;
        c.method = unwrap_2d_method::least_squares;
        c.wrap_around_x = true;
        expect_error(c, "wrap_around_x");
        c.wrap_around_x = false;
        c.wrap_around_y = true;
        expect_error(c, "wrap_around_y");
        c = good;
        c.width = 2;
        c.wrap_around_x = true;
        expect_error(c, "wrap_around_x");
        for (std::size_t window : { 0, 2, 17 }) {
            c = good;
            c.gradient_window = window;
            expect_error(c, "gradient_window");
        }
        c = good;
        c.max_iterations = 0;
        expect_error(c, "max_iterations");
        for (double tolerance : { 0.0, 1.0 }) {
            c = good;
            c.tolerance = tolerance;
            expect_error(c, "tolerance");
        }
        c = good;
        c.device = "gpu";
        expect_error(c, "device");

        auto expect_buffer_error = [](phase_unwrapper_2d& e,
                                      const unwrap_2d_buffers& b,
                                      const std::string& name) {
            try {
                e.unwrap(b);
            } catch (const std::invalid_argument& err) {
                CPPUNIT_ASSERT_MESSAGE(err.what(),
                                       std::string(err.what()).rfind(name, 0) == 0);
                return;
            }
            CPPUNIT_FAIL("no std::invalid_argument for a bad " + name);
        };
        std::vector<float> x(16 * 8, 0.5f), y(16 * 8);
        std::vector<std::int32_t> components(16 * 8);
        auto reliability = phase_unwrapper_2d::make(good);
        unwrap_2d_buffers b;
        b.unwrapped = y.data();
        expect_buffer_error(*reliability, b, "wrapped");
        b.wrapped = x.data();
        b.unwrapped = nullptr;
        expect_buffer_error(*reliability, b, "unwrapped");
        c = good;
        c.method = unwrap_2d_method::least_squares;
        auto least_squares = phase_unwrapper_2d::make(c);
        b.unwrapped = y.data();
        b.components = components.data();
        expect_buffer_error(*least_squares, b, "components");
        b.components = nullptr;
        CPPUNIT_ASSERT_THROW(reliability->unwrap_device(b), std::logic_error);
    }

    void analytic_fields_are_exact(const std::string& device)
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
                    auto config =
                        make_config(device, W, H, unwrap_2d_method::reliability, P);
                    config.gradient_window = window;
                    const auto rel = run(*phase_unwrapper_2d::make(config), f);
                    const std::string rel_what =
                        what + " reliability, window " + std::to_string(window);
                    check_outputs_consistent(rel, f, valid, P, rel_what);
                    check_against_truth(rel, k, one_region, true, rel_what);
                    CPPUNIT_ASSERT_EQUAL(std::size_t(1), rel.report.components);
                }

                auto config =
                    make_config(device, W, H, unwrap_2d_method::least_squares, P);
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

    void invalid_pixels(const std::string& device)
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

        const auto ls = run(*phase_unwrapper_2d::make(make_config(
                                device, W, H, unwrap_2d_method::least_squares)),
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

    void disconnected_regions(const std::string& device)
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

    void wrap_around(const std::string& device)
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
                torus[r * W + c] =
                    5.0 * std::sin(u) + 4.0 * std::cos(v) * std::sin(u + 1.0);
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
                    if ((wc.band_x && c >= 80 && c < 100) ||
                        (wc.band_y && r >= 50 && r < 60))
                        f.mask[r * W + c] = 0;
            const auto k = true_cycles(*wc.truth, f, P);
            const auto valid = qa::reference_valid_pixels(f);
            const auto regions = label_regions(valid, W, H, wc.wrap_x, wc.wrap_y);
            // A guided window reaches across the wrap-around edges too.
            for (std::size_t window : { 1, 5 }) {
                std::ostringstream what;
                what << device << " wrap x " << wc.wrap_x << " y " << wc.wrap_y
                     << " bands " << wc.band_x << wc.band_y << " window " << window;
                auto config = make_config(device, W, H, unwrap_2d_method::reliability, P);
                config.wrap_around_x = wc.wrap_x;
                config.wrap_around_y = wc.wrap_y;
                config.gradient_window = window;
                const auto o = run(*phase_unwrapper_2d::make(config), f);
                check_outputs_consistent(o, f, valid, P, what.str());
                check_against_truth(o, k, regions, true, what.str());
                // The bands cut the frame; only the wrap-around edges join it again.
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    what.str(), std::size_t(1), o.report.components);
                if (wc.band_x || wc.band_y) {
                    config.wrap_around_x = config.wrap_around_y = false;
                    const auto cut = run(*phase_unwrapper_2d::make(config), f);
                    const std::size_t pieces = (wc.band_x ? 2 : 1) * (wc.band_y ? 2 : 1);
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(
                        what.str(), pieces, cut.report.components);
                }
            }
        }
    }

    void reliability_matches_reference(const std::string& device)
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
                                                window == 1 ? agreement::exact
                                                            : nc.guided,
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
            auto config = make_config(
                device, f.width, f.height, unwrap_2d_method::reliability, 360.0);
            config.wrap_around_x = config.wrap_around_y = wrap;
            config.gradient_window = 1;
            check_reliability_reference(run(*phase_unwrapper_2d::make(config), f),
                                        f,
                                        360.0,
                                        wrap,
                                        wrap,
                                        1,
                                        agreement::exact,
                                        device + " quantised, wrap " +
                                            std::to_string(wrap));
        }
    }

    void guided_window_accuracy(const std::string& device)
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
                truth[r * W + c] =
                    25.0 * std::exp(-(dr * dr + dc * dc) / (2 * 80.0 * 80.0));
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
                  << " rad: window 1 " << 100 * right[0] << " %, window 5 "
                  << 100 * right[1] << " %, window 7 " << 100 * right[2] << " %"
                  << std::endl;
        CPPUNIT_ASSERT(right[1] >= right[0]);
        CPPUNIT_ASSERT(right[2] >= right[0]);
    }

    void least_squares_matches_reference(const std::string& device)
    {
        // The smooth tolerance: float32 arrays and transforms on a solution of up to ~15
        // periods, and the PCG stopped at a residual of 1e-6, against float64 to 1e-12.
        const double tolerance_periods = 2e-4;
        check_least_squares_reference(
            device,
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

    void memory_checked_before_allocation()
    {
        // The CPU workspace of an 8192 x 8192 frame, counted from the code
        // (phase_unwrap_2d.h): reliability 89 bytes a pixel (49 with gradient_window
        // 1) and the sort's 1 MiB of histograms, least squares 33 bytes a pixel. With
        // 256 MiB of address space to spare, make() refuses each before allocating,
        // naming the frame, the bytes it needs and the limit (no std::bad_alloc).
        const std::size_t side = 8192;
        const std::size_t histograms = 1 << 20;
        struct request {
            unwrap_2d_method method;
            std::size_t gradient_window;
            std::size_t bytes_per_pixel;
            std::size_t fixed_bytes;
            std::size_t bytes(std::size_t pixels) const
            {
                return bytes_per_pixel * pixels + fixed_bytes;
            }
        };
        const request requests[] = {
            { unwrap_2d_method::reliability, 7, 89, histograms },
            { unwrap_2d_method::reliability, 1, 49, histograms },
            { unwrap_2d_method::least_squares, 7, 33, 0 },
        };
        {
            qa::address_space_limit limit(std::size_t(256) << 20);
            for (const request& r : requests) {
                auto config = make_config("cpu", side, side, r.method);
                config.gradient_window = r.gradient_window;
                const std::string what =
                    to_string(r.method) + ", window " + std::to_string(r.gradient_window);
                try {
                    phase_unwrapper_2d::make(config);
                    CPPUNIT_FAIL(what + ": made an engine beyond the limit");
                } catch (const std::runtime_error& e) {
                    const std::string message = e.what();
                    for (const std::string& part :
                         { std::string("8192 x 8192 frame"),
                           "needs " + std::to_string(r.bytes(side * side)) + " bytes",
                           std::string("of host memory"),
                           std::string("RLIMIT_AS") })
                        CPPUNIT_ASSERT_MESSAGE(what + ": \"" + message + "\" lacks \"" +
                                                   part + "\"",
                                               message.find(part) != std::string::npos);
                }
            }
        }

        // The counts are not too low: with them, the outputs run() allocates (12 bytes a
        // pixel) and 16 MiB more to spare, a 1024 x 1024 frame of each is made and
        // unwrapped (with a count more than 16 bytes a pixel short, it would not be).
        const std::size_t W = 1024, H = 1024;
        const frame f = frame_of(hill_plane_saddle(W, H), W, H, two_pi);
        for (const request& r : requests) {
            auto config = make_config("cpu", W, H, r.method);
            config.gradient_window = r.gradient_window;
            qa::address_space_limit limit(r.bytes(W * H) + 12 * W * H +
                                          (std::size_t(16) << 20));
            const auto o = run(*phase_unwrapper_2d::make(config), f);
            CPPUNIT_ASSERT_EQUAL(W * H, o.report.valid_pixels);
        }
    }

    void relative_weight_is_the_float64_quotient_rounded()
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
            const float expected =
                static_cast<float>(static_cast<double>(weight) / largest);
            const float got = relative_weight(weight, largest);
            if (got != expected) {
                std::ostringstream text;
                text << std::hexfloat << "relative_weight(" << weight << ", " << largest
                     << ") = " << got << ", float64 quotient rounded: " << expected;
                CPPUNIT_FAIL(text.str());
            }
        }
    }

    void least_squares_weights_are_relative(const std::string& device)
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
            CPPUNIT_ASSERT_MESSAGE(device + ": constant weights " +
                                       std::to_string(constant),
                                   std::memcmp(o.unwrapped.data(),
                                               unit_result.unwrapped.data(),
                                               valid.size() * sizeof(float)) == 0);
            CPPUNIT_ASSERT_MESSAGE(device + ": constant weights, cycles",
                                   o.cycles == unit_result.cycles);
        }
    }

    void report_fields(const std::string& device)
    {
        const std::size_t W = 90, H = 70;
        frame f = noisy_frame(W, H, two_pi, 0.1, 31, true, true);
        const auto valid = qa::reference_valid_pixels(f);
        const std::size_t valid_count = std::count(valid.begin(), valid.end(), 1);

        const auto rel = run(*phase_unwrapper_2d::make(make_config(
                                 device, W, H, unwrap_2d_method::reliability)),
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

    void in_place(const std::string& device)
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
                if (std::memcmp(&apart.unwrapped[i], &same.unwrapped[i], sizeof(float)) !=
                    0)
                    fail_at(what, i, "differs from the out-of-place result");
        }
    }

    void thin_frames(const std::string& device)
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

                auto config = make_config(
                    device, f.width, f.height, unwrap_2d_method::reliability, P);
                config.gradient_window = 1;
                const auto rel = run(*phase_unwrapper_2d::make(config), f);
                check_outputs_consistent(rel, f, valid, P, what);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(1), rel.report.components);
                for (std::size_t i = 0; i < n; ++i)
                    if (std::memcmp(&expected[i], &rel.unwrapped[i], sizeof(float)) != 0)
                        fail_at(what, i, "not numpy.unwrap's value");

                const auto ls = run(
                    *phase_unwrapper_2d::make(make_config(
                        device, f.width, f.height, unwrap_2d_method::least_squares, P)),
                    f);
                check_outputs_consistent(ls, f, valid, P, what + " least squares");
                const std::int64_t shift =
                    ls.cycles[0] - std::llround((double(expected[0]) - f.wrapped[0]) / P);
                for (std::size_t i = 0; i < n; ++i) {
                    const std::int64_t k =
                        std::llround((double(expected[i]) - f.wrapped[i]) / P);
                    if (ls.cycles[i] - k != shift)
                        fail_at(
                            what + " least squares", i, "not numpy.unwrap's K + const");
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
                    const auto guided =
                        run(*phase_unwrapper_2d::make(config), ramp_frame);
                    const std::string guided_what =
                        what + " ramp, window " + std::to_string(window);
                    check_outputs_consistent(guided, ramp_frame, valid, P, guided_what);
                    check_against_truth(guided, k, one_region, true, guided_what);
                }
            }
    }

    void cuda_reliability_bit_identical_to_cpu(const std::string&)
    {
        // The pair rule and guided windows, whose phasor sums reach across the
        // wrap-around edges; a window wider than the 7-row frame.
        struct cuda_case {
            std::size_t width, height;
            double noise;
            bool wrap_x, wrap_y, inputs;
        };
        // Under a sanitizer the large frames shrink but still span many thread blocks.
        const std::size_t W = qa::scaled<std::size_t>(1024, 320);
        const std::size_t H = qa::scaled<std::size_t>(768, 240);
        const cuda_case cases[] = {
            { W, H, 0.2, false, false, true },    { W, H, 0.35, true, true, true },
            { 257, 131, 0.1, true, false, true }, { 257, 131, 0.1, false, true, false },
            { 300, 200, 0.5, true, true, false }, { 1, 999, 0.2, false, true, true },
            { 500, 7, 0.3, true, false, true },   { 20, 3, 0.2, false, true, true },
            { 3, 20, 0.2, true, false, true }
        };
        std::uint64_t seed = 500;
        for (const cuda_case& cc : cases) {
            const frame f = noisy_frame(
                cc.width, cc.height, two_pi, cc.noise, ++seed, cc.inputs, cc.inputs);
            for (std::size_t window : { 1, 5, 15 }) {
                auto config = make_config(
                    "cpu", cc.width, cc.height, unwrap_2d_method::reliability);
                config.wrap_around_x = cc.wrap_x;
                config.wrap_around_y = cc.wrap_y;
                config.gradient_window = window;
                const auto cpu = run(*phase_unwrapper_2d::make(config), f);
                config.device = "cuda";
                const auto cuda = run(*phase_unwrapper_2d::make(config), f);
                std::ostringstream what;
                what << cc.width << "x" << cc.height << " wrap " << cc.wrap_x << cc.wrap_y
                     << " inputs " << cc.inputs << " window " << window;
                assert_bit_identical(cpu, cuda, what.str());
            }
        }
    }

    void cuda_least_squares_agrees_with_cpu(const std::string&)
    {
        // Smooth outputs within 1e-3 periods (two float32 solvers, different transforms
        // and summation orders, PCG stopped at 1e-6); congruent K identical on at least
        // 99.9% of the valid pixels of a noisy field, everywhere on a noise-free one.
        struct ls_case {
            std::size_t width, height;
            double noise;
            bool weight, mask;
        };
        // Under a sanitizer the large frames shrink (still several transform blocks).
        const std::size_t W = qa::scaled<std::size_t>(1024, 320);
        const std::size_t H = qa::scaled<std::size_t>(768, 240);
        const ls_case cases[] = { { W, H, 0.0, false, false },
                                  { W, H, 0.0, true, true },
                                  { W / 2, H / 2, 0.15, false, false },
                                  { 400, 300, 0.15, true, true },
                                  { 333, 1, 0.1, false, false } };
        std::uint64_t seed = 900;
        for (const ls_case& lc : cases) {
            const frame f = noisy_frame(lc.width,
                                        lc.height,
                                        two_pi,
                                        lc.noise,
                                        ++seed,
                                        lc.weight,
                                        lc.mask,
                                        lc.noise > 0.0 ? 0.01 : 0.0);
            std::ostringstream what;
            what << lc.width << "x" << lc.height << " noise " << lc.noise << " weight "
                 << lc.weight << " mask " << lc.mask;
            const auto valid = qa::reference_valid_pixels(f);
            for (bool congruent : { true, false }) {
                auto config = make_config(
                    "cpu", lc.width, lc.height, unwrap_2d_method::least_squares);
                config.tolerance = 1e-6;
                config.max_iterations = 500;
                config.congruent = congruent;
                const auto cpu = run(*phase_unwrapper_2d::make(config), f);
                config.device = "cuda";
                const auto cuda = run(*phase_unwrapper_2d::make(config), f);
                if (congruent)
                    check_outputs_consistent(cuda, f, valid, two_pi, what.str());
                CPPUNIT_ASSERT_EQUAL(cpu.report.valid_pixels, cuda.report.valid_pixels);
                CPPUNIT_ASSERT_EQUAL(cpu.report.iterations == 0,
                                     cuda.report.iterations == 0);
                CPPUNIT_ASSERT(cuda.report.relative_residual <= 1e-6);
                const std::size_t valid_count = cuda.report.valid_pixels;
                const std::size_t differing = count_differing_cycles(cpu, cuda, valid);
                for (std::size_t i = 0; i < valid.size(); ++i) {
                    if (valid[i] && !congruent &&
                        !(std::fabs(cpu.unwrapped[i] - cuda.unwrapped[i]) <=
                          1e-3 * two_pi))
                        fail_at(what.str() + " smooth",
                                i,
                                std::to_string(cuda.unwrapped[i]) + " vs CPU " +
                                    std::to_string(cpu.unwrapped[i]));
                }
                if (lc.noise == 0.0)
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(what.str(), std::size_t(0), differing);
                else
                    CPPUNIT_ASSERT_MESSAGE(what.str() + ": " + std::to_string(differing) +
                                               " K differ",
                                           differing * 1000 <= valid_count);
            }
        }
    }

    void cuda_device_buffers(const std::string&)
    {
        const std::size_t W = 301, H = 203, n = W * H;
        const frame f = noisy_frame(W, H, two_pi, 0.2, 1234, true, true);
        for (auto method :
             { unwrap_2d_method::reliability, unwrap_2d_method::least_squares }) {
            const bool reliability = method == unwrap_2d_method::reliability;
            const auto valid = qa::reference_valid_pixels(f);
            auto engine = phase_unwrapper_2d::make(make_config("cuda", W, H, method));
            const auto host = run(*engine, f);

            device_buffer<float> d_wrapped(n), d_unwrapped(n), d_weight(n);
            device_buffer<std::uint8_t> d_mask(n);
            device_buffer<std::int32_t> d_cycles(n), d_components(n);
            CUDADSP_CUDA(cudaMemcpy(d_wrapped.get(),
                                    f.wrapped.data(),
                                    d_wrapped.bytes(),
                                    cudaMemcpyHostToDevice));
            CUDADSP_CUDA(cudaMemcpy(d_weight.get(),
                                    f.weight.data(),
                                    d_weight.bytes(),
                                    cudaMemcpyHostToDevice));
            CUDADSP_CUDA(cudaMemcpy(
                d_mask.get(), f.mask.data(), d_mask.bytes(), cudaMemcpyHostToDevice));
            cuda_stream stream;
            for (cuda_stream_t s :
                 { static_cast<cuda_stream_t>(nullptr), stream.get() }) {
                outputs o;
                o.unwrapped.assign(n, qa::poison_value);
                o.cycles.assign(n, poison_cycles);
                if (reliability)
                    o.components.assign(n, poison_cycles);
                CUDADSP_CUDA(cudaMemcpy(d_unwrapped.get(),
                                        o.unwrapped.data(),
                                        d_unwrapped.bytes(),
                                        cudaMemcpyHostToDevice));
                CUDADSP_CUDA(cudaMemcpy(d_cycles.get(),
                                        o.cycles.data(),
                                        d_cycles.bytes(),
                                        cudaMemcpyHostToDevice));
                unwrap_2d_buffers b;
                b.wrapped = d_wrapped.get();
                b.unwrapped = d_unwrapped.get();
                b.weight = d_weight.get();
                b.mask = d_mask.get();
                b.cycles = d_cycles.get();
                b.components = reliability ? d_components.get() : nullptr;
                if (reliability)
                    CUDADSP_CUDA(cudaMemcpy(d_components.get(),
                                            o.components.data(),
                                            d_components.bytes(),
                                            cudaMemcpyHostToDevice));
                o.report = engine->unwrap_device(b, s);
                CUDADSP_CUDA(cudaMemcpy(o.unwrapped.data(),
                                        d_unwrapped.get(),
                                        d_unwrapped.bytes(),
                                        cudaMemcpyDeviceToHost));
                CUDADSP_CUDA(cudaMemcpy(o.cycles.data(),
                                        d_cycles.get(),
                                        d_cycles.bytes(),
                                        cudaMemcpyDeviceToHost));
                if (reliability)
                    CUDADSP_CUDA(cudaMemcpy(o.components.data(),
                                            d_components.get(),
                                            d_components.bytes(),
                                            cudaMemcpyDeviceToHost));
                const std::string what = std::string("device buffers, ") +
                                         to_string(method) +
                                         (s ? ", caller's stream" : ", own stream");
                // The same engine and frame through host and device buffers: the
                // reliability method to the bit; least squares (whose float32 sums
                // the backend may order differently) to the congruent K.
                check_outputs_consistent(o, f, valid, two_pi, what);
                if (reliability)
                    assert_bit_identical(host, o, what);
                else
                    CPPUNIT_ASSERT_MESSAGE(
                        what,
                        1000 * count_differing_cycles(host, o, valid) <=
                            o.report.valid_pixels);
            }
            if (reliability)
                check_reliability_reference(host,
                                            f,
                                            two_pi,
                                            false,
                                            false,
                                            engine->config().gradient_window,
                                            agreement::exact,
                                            "cuda host path");
        }
    }

private:
    static std::size_t count_differing_cycles(const outputs& a,
                                              const outputs& b,
                                              const std::vector<std::uint8_t>& valid)
    {
        std::size_t differing = 0;
        for (std::size_t i = 0; i < valid.size(); ++i)
            differing += valid[i] && a.cycles[i] != b.cycles[i];
        return differing;
    }

    //! Same outputs to the bit (NaN where NaN: its payload is not part of the
    //! contract), same report.
    static void assert_bit_identical(const outputs& expected,
                                     const outputs& actual,
                                     const std::string& what)
    {
        const std::size_t n = expected.unwrapped.size();
        CPPUNIT_ASSERT_MESSAGE(what + ": cycles",
                               std::memcmp(expected.cycles.data(),
                                           actual.cycles.data(),
                                           n * sizeof(std::int32_t)) == 0);
        CPPUNIT_ASSERT_MESSAGE(what + ": components",
                               expected.components == actual.components);
        for (std::size_t i = 0; i < n; ++i) {
            const bool both_nan =
                std::isnan(expected.unwrapped[i]) && std::isnan(actual.unwrapped[i]);
            if (!both_nan && std::memcmp(&expected.unwrapped[i],
                                         &actual.unwrapped[i],
                                         sizeof(float)) != 0)
                fail_at(what,
                        i,
                        "unwrapped " + std::to_string(actual.unwrapped[i]) +
                            ", expected " + std::to_string(expected.unwrapped[i]));
        }
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            what, expected.report.valid_pixels, actual.report.valid_pixels);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            what, expected.report.components, actual.report.components);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            what, expected.report.iterations, actual.report.iterations);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_phase_unwrap_2d);

} // namespace core
} // namespace cudadsp
} // namespace gr
