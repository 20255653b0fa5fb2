/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_mcf_unwrap.h"
#include "unwrap/mcf_unwrap_cpu.h"
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace gr {
namespace cudadsp {
namespace core {

std::unique_ptr<phase_unwrapper_2d> make_engine(const std::string& device,
                                                const frame& f,
                                                unwrap_2d_method method,
                                                std::size_t tile_size,
                                                std::size_t tile_overlap)
{
    phase_unwrap_2d_config config;
    config.device = device;
    config.width = f.width;
    config.height = f.height;
    config.method = method;
    config.tile_size = tile_size;
    config.tile_overlap = tile_overlap;
    return phase_unwrapper_2d::make(config);
}

frame scene_frame(const interferogram_scene& scene, std::vector<std::uint8_t>& judged)
{
    frame f;
    f.width = scene.width;
    f.height = scene.height;
    f.wrapped = scene.wrapped;
    f.weight = scene.coherence;
    f.mask = scene.mask;
    judged.resize(scene.mask.size());
    for (std::size_t i = 0; i < judged.size(); ++i)
        judged[i] = scene.mask[i] && !scene.aliased[i];
    return f;
}

outputs run(phase_unwrapper_2d& engine, const frame& f, bool in_place)
{
    const std::size_t n = f.width * f.height;
    const bool with_components =
        engine.config().method != unwrap_2d_method::least_squares;
    outputs o;
    o.unwrapped = in_place ? f.wrapped : std::vector<float>(n, qa::poison_value);
    o.cycles.assign(n, poison_integer);
    if (with_components)
        o.components.assign(n, poison_integer);
    unwrap_2d_buffers b;
    b.wrapped = in_place ? o.unwrapped.data() : f.wrapped.data();
    b.unwrapped = o.unwrapped.data();
    b.weight = f.weight.empty() ? nullptr : f.weight.data();
    b.mask = f.mask.empty() ? nullptr : f.mask.data();
    b.cycles = o.cycles.data();
    b.components = with_components ? o.components.data() : nullptr;
    o.report = engine.unwrap(b);
    return o;
}

void check_outputs_consistent(const outputs& o, const frame& f, const std::string& what)
{
    const std::vector<std::uint8_t> valid = qa::reference_valid_pixels(f);
    std::size_t valid_count = 0;
    std::vector<bool> component_seen(1, true);
    for (std::size_t i = 0; i < valid.size(); ++i) {
        const std::string at = what + ": pixel " + std::to_string(i);
        if (!valid[i]) {
            CPPUNIT_ASSERT_MESSAGE(at + " not valid, yet not NaN / K 0 / component 0",
                                   std::isnan(o.unwrapped[i]) && o.cycles[i] == 0 &&
                                       o.components[i] == 0);
            continue;
        }
        ++valid_count;
        const float expected =
            qa::reference_apply_cycles(f.wrapped[i], o.cycles[i], two_pi);
        CPPUNIT_ASSERT_MESSAGE(at + ": unwrapped is not wrapped + P K",
                               std::memcmp(&expected, &o.unwrapped[i], sizeof(float)) ==
                                   0);
        const std::int32_t c = o.components[i];
        CPPUNIT_ASSERT_MESSAGE(at + ": component " + std::to_string(c),
                               c >= 1 && c <= std::int32_t(component_seen.size()));
        if (c == std::int32_t(component_seen.size())) {
            component_seen.push_back(true);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                at + ": first pixel of its component", std::int32_t(0), o.cycles[i]);
        }
    }
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        what + ": valid_pixels", valid_count, o.report.valid_pixels);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        what + ": components", component_seen.size() - 1, o.report.components);
}

double right_cycle_fraction(const outputs& o,
                            const std::vector<double>& truth,
                            const std::vector<std::uint8_t>& judged)
{
    std::map<std::int32_t, std::map<long, std::size_t>> votes;
    auto component = [&](std::size_t i) {
        return o.components.empty() ? 1 : o.components[i];
    };
    for (std::size_t i = 0; i < truth.size(); ++i)
        if (judged[i] && !std::isnan(o.unwrapped[i]))
            ++votes[component(i)][std::lround((o.unwrapped[i] - truth[i]) / two_pi)];
    std::map<std::int32_t, long> offset;
    for (const auto& [c, counts] : votes)
        offset[c] = std::max_element(
                        counts.begin(),
                        counts.end(),
                        [](const auto& a, const auto& b) { return a.second < b.second; })
                        ->first;
    std::size_t right = 0;
    std::size_t total = 0;
    for (std::size_t i = 0; i < truth.size(); ++i) {
        if (!judged[i])
            continue;
        ++total;
        right += !std::isnan(o.unwrapped[i]) &&
                 std::fabs(o.unwrapped[i] - truth[i] - two_pi * offset[component(i)]) <
                     0.5 * two_pi;
    }
    return double(right) / double(total);
}

float wrap_phase(double x)
{
    return static_cast<float>(x - two_pi * std::floor(x / two_pi + 0.5));
}

std::vector<double> smooth_field(std::size_t width, std::size_t height)
{
    std::vector<double> t(width * height);
    const double r0 = 0.4 * double(height), c0 = 0.6 * double(width), s = 25.0;
    for (std::size_t r = 0; r < height; ++r)
        for (std::size_t c = 0; c < width; ++c) {
            const double dr = double(r) - r0, dc = double(c) - c0;
            t[r * width + c] =
                two_pi *
                (0.04 * double(r) - 0.07 * double(c) +
                 10.0 * std::exp(-(dr * dr + dc * dc) / (2 * s * s)) + 0.0004 * dr * dc);
        }
    return t;
}

frame frame_of(const std::vector<double>& truth, std::size_t width, std::size_t height)
{
    frame f;
    f.width = width;
    f.height = height;
    for (double t : truth)
        f.wrapped.push_back(wrap_phase(t));
    return f;
}

solved_frame solve_frame(const frame& f,
                         unwrap_2d_mcf_solver solver,
                         std::size_t looks,
                         std::size_t row_workers)
{
    phase_unwrap_2d_config config;
    config.width = f.width;
    config.height = f.height;
    config.method = unwrap_2d_method::mcf;
    config.looks = looks;
    config.mcf_solver = solver;
    config.validate();
    mcf_unwrap_cpu unwrapper(config, row_workers);
    const std::size_t n = f.width * f.height;
    solved_frame s;
    s.o.unwrapped.assign(n, qa::poison_value);
    s.o.cycles.assign(n, poison_integer);
    s.o.components.assign(n, poison_integer);
    unwrap_2d_buffers b;
    b.wrapped = f.wrapped.data();
    b.unwrapped = s.o.unwrapped.data();
    b.weight = f.weight.empty() ? nullptr : f.weight.data();
    b.mask = f.mask.empty() ? nullptr : f.mask.data();
    b.cycles = s.o.cycles.data();
    b.components = s.o.components.data();
    s.o.report = unwrapper.unwrap(b);
    s.cost = unwrapper.flow_cost();
    return s;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
