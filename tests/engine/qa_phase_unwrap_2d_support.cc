/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_phase_unwrap_2d: the frames of known truth, the engine runs and the checks
// its cases share (declared in qa_phase_unwrap_2d.h).

#include "qa_phase_unwrap_2d.h"
#include "qa_unwrap_2d_reference.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

phase_unwrap_2d_config make_config(const std::string& device,
                                   std::size_t width,
                                   std::size_t height,
                                   unwrap_2d_method method,
                                   double period)
{
    phase_unwrap_2d_config config;
    config.device = device;
    config.width = width;
    config.height = height;
    config.method = method;
    config.period = period;
    return config;
}

outputs run(phase_unwrapper_2d& engine, const frame& f, bool in_place)
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

float wrap_phase(double x, double P)
{
    return static_cast<float>(x - P * std::floor(x / P + 0.5));
}

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

frame frame_of(const std::vector<double>& truth_periods,
               std::size_t width,
               std::size_t height,
               double P,
               double noise_periods,
               std::uint64_t seed)
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

std::vector<std::int64_t>
true_cycles(const std::vector<double>& truth_periods, const frame& f, double P)
{
    std::vector<std::int64_t> k(truth_periods.size());
    for (std::size_t i = 0; i < k.size(); ++i)
        k[i] = std::llround((truth_periods[i] * P - double(f.wrapped[i])) / P);
    return k;
}

std::vector<std::int32_t> label_regions(const std::vector<std::uint8_t>& valid,
                                        std::size_t width,
                                        std::size_t height,
                                        bool wrap_x,
                                        bool wrap_y)
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

void check_against_truth(const outputs& o,
                         const std::vector<std::int64_t>& truth,
                         const std::vector<std::int32_t>& regions,
                         bool first_is_zero,
                         const std::string& what,
                         std::int32_t only_region)
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

frame noisy_frame(std::size_t width,
                  std::size_t height,
                  double P,
                  double noise_periods,
                  std::uint64_t seed,
                  bool with_weight,
                  bool with_mask,
                  double sparse_fraction)
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

} // namespace core
} // namespace cudadsp
} // namespace gr
