/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Fuzz target: the track-before-detect configuration (core::st_tbd_config::validate(),
// velocity_grid(); lib/core/tbd/st_tbd_config.cc), which every st_tbd_ff hypothesis
// list passes before the engine sees it. The input bytes build a configuration: grid
// size, hypotheses with transitions (sources, shifts and weights as raw float bits, so
// NaN, infinities and denormals come), strings; and the arguments of velocity_grid().
// Besides "no crash, no leak, no hang": only std::invalid_argument is thrown, naming a
// field; an accepted configuration obeys the documented limits (checked here again in
// float64) and its state layout keeps every bilinear read inside the guard; every
// velocity grid returned is accepted and its weights sum to 1.

#include "fuzz_check.h"
#include "tbd/st_tbd_internal.h"
#include <fuzzer/FuzzedDataProvider.h>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace core = gr::cudadsp::core;
using cudadsp_fuzz::require;

namespace {

const char* const fields[] = { "width",
                               "height",
                               "width * height",
                               "hypotheses",
                               "alpha",
                               "threshold",
                               "max_detections_per_frame",
                               "device",
                               "kernel",
                               "bilinear",
                               "autotune_iterations",
                               "autotune_seconds",
                               "vmax",
                               "step",
                               "spread" };

//! A refusal (std::invalid_argument): its text starts with a field's name and is one
//! short line.
void check_error_text(const std::string& what)
{
    bool named = false;
    for (const char* field : fields)
        named = named || what.rfind(field, 0) == 0;
    require(named, "an error starts with the field it is about", what);
    require(cudadsp_fuzz::printable_ascii_controls(what) && what.size() < 1024,
            "an error text is one short line",
            what);
}

template <class F>
bool accepted(F&& f)
{
    return cudadsp_fuzz::returns_or_refuses<std::invalid_argument>(f, check_error_text);
}

//! A float: one of the values at the rules' edges, or raw bits (NaN, Inf, denormals).
float float_of(FuzzedDataProvider& in)
{
    static const float edges[] = { 0.0f,   -0.0f, 1.0f,   -1.0f,   0.5f,
                                   0.25f,  64.0f, -64.0f, 64.001f, 63.999f,
                                   1e-45f, 1e30f, -1e30f, 0.999f,  1.0000001f };
    if (in.ConsumeBool())
        return edges[in.ConsumeIntegralInRange<std::size_t>(0, std::size(edges) - 1)];
    return in.ConsumeFloatingPoint<float>();
}

std::string choice_of(FuzzedDataProvider& in, std::initializer_list<const char*> values)
{
    const std::size_t i = in.ConsumeIntegralInRange<std::size_t>(0, values.size());
    if (i == values.size())
        return in.ConsumeRandomLengthString(12);
    return *(values.begin() + i);
}

core::st_tbd_config config_of(FuzzedDataProvider& in)
{
    core::st_tbd_config c;
    // Small grids mostly, the limits (2^18 per side, 2^31 - 1 cells) at times.
    c.width = in.ConsumeBool() ? in.ConsumeIntegralInRange<std::size_t>(0, 70)
                               : in.ConsumeIntegral<std::uint32_t>();
    c.height = in.ConsumeBool() ? in.ConsumeIntegralInRange<std::size_t>(0, 70)
                                : in.ConsumeIntegral<std::uint32_t>();
    const std::size_t m_count = in.ConsumeIntegralInRange<std::size_t>(0, 12);
    for (std::size_t m = 0; m < m_count; ++m) {
        core::tbd_hypothesis h;
        h.vx = float_of(in);
        h.vy = float_of(in);
        const std::size_t k_count = in.ConsumeIntegralInRange<std::size_t>(0, 6);
        for (std::size_t k = 0; k < k_count; ++k) {
            core::tbd_transition t;
            t.source = in.ConsumeBool()
                           ? in.ConsumeIntegralInRange<int>(-1, static_cast<int>(m_count))
                           : in.ConsumeIntegral<int>();
            t.dx = float_of(in);
            t.dy = float_of(in);
            t.weight = float_of(in);
            h.transitions.push_back(t);
        }
        c.hypotheses.push_back(h);
    }
    c.alpha = float_of(in);
    c.threshold = float_of(in);
    c.max_detections_per_frame = in.ConsumeIntegralInRange<std::size_t>(0, 3);
    c.device = choice_of(in, { "auto", "cpu", "cuda", "cuda:0", "cuda:12345", "cuda:" });
    c.kernel = choice_of(in, { "auto", "generic", "generated" });
    c.bilinear = choice_of(in, { "auto", "texture", "software" });
    c.autotune_iterations = in.ConsumeIntegralInRange<std::size_t>(0, 2);
    c.autotune_seconds = in.ConsumeFloatingPoint<double>();
    return c;
}

//! The documented limits of an accepted configuration, in float64.
void check_accepted(const core::st_tbd_config& c)
{
    require(c.width >= 1 && c.width <= (1u << 18) && c.height >= 1 &&
                c.height <= (1u << 18) && c.width * c.height <= 0x7fffffffu,
            "grid within the limits");
    require(!c.hypotheses.empty() && c.hypotheses.size() <= 4096, "1 to 4096 hypotheses");
    double largest = 0.0;
    for (const core::tbd_hypothesis& h : c.hypotheses) {
        require(std::fabs(h.vx) <= core::tbd_max_shift_px &&
                    std::fabs(h.vy) <= core::tbd_max_shift_px,
                "velocities finite and within tbd_max_shift_px");
        require(!h.transitions.empty(), "every hypothesis has a transition");
        double mass = 0.0;
        for (const core::tbd_transition& t : h.transitions) {
            require(t.source >= 0 && std::size_t(t.source) < c.hypotheses.size(),
                    "sources name a hypothesis");
            require(std::fabs(t.dx) <= core::tbd_max_shift_px &&
                        std::fabs(t.dy) <= core::tbd_max_shift_px,
                    "shifts finite and within tbd_max_shift_px");
            require(std::isfinite(t.weight), "weights finite");
            mass += std::fabs(double(t.weight));
            largest =
                std::max({ largest, std::fabs(double(t.dx)), std::fabs(double(t.dy)) });
        }
        require(mass <= 1.0 + double(h.transitions.size()) * 0x1p-24,
                "the magnitudes of a hypothesis' weights sum to at most 1");
    }
    require(c.alpha > 0.0f && c.alpha < 1.0f && std::isfinite(c.threshold),
            "alpha in (0, 1), threshold finite");
    // The state layout: every read of a transition (floor of -d and the next cell) of
    // every cell stays in the plane's zero guard, and the planes fit the buffer.
    const core::tbd_layout l = core::make_tbd_layout(c);
    const double reach = std::floor(largest) + 1.0;
    require(double(l.guard) >= reach && l.x0 >= l.guard && l.y0 >= l.guard,
            "the guard covers the largest shift");
    require(l.x0 % 32 == 0 && l.pitch % 32 == 0 && l.pitch >= l.x0 + l.width + l.guard &&
                l.rows >= l.y0 + l.height + l.guard,
            "rows and planes hold the grid and its guard");
    require(l.offset(l.planes - 1, l.width - 1, l.height - 1) + l.guard * (l.pitch + 1) <
                l.total(),
            "the last cell's reads lie in the buffer");
}

void check_velocity_grid(FuzzedDataProvider& in)
{
    const float vmax = float_of(in);
    const float step = float_of(in);
    const float spread = float_of(in);
    std::vector<core::tbd_hypothesis> grid;
    if (!accepted([&] { grid = core::st_tbd_config::velocity_grid(vmax, step, spread); }))
        return;
    core::st_tbd_config c;
    c.width = 1;
    c.height = 1;
    c.hypotheses = grid;
    require(accepted([&] { c.validate(); }), "a velocity grid is a valid configuration");
    for (const core::tbd_hypothesis& h : grid) {
        double sum = 0.0;
        for (const core::tbd_transition& t : h.transitions)
            sum += t.weight;
        require(std::fabs(sum - 1.0) < 1e-6, "a velocity grid's weights sum to 1");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    FuzzedDataProvider in(data, size);
    const core::st_tbd_config c = config_of(in);
    if (accepted([&] { c.validate(); }))
        check_accepted(c);
    check_velocity_grid(in);
    return 0;
}
