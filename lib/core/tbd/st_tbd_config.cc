/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The configuration of the track-before-detect filter: its checks, the velocity grid
// and the state layout. Apart from the engine (st_tbd.cc) so that the fuzz target of
// the checks (tests/fuzz) compiles them without the backends.

#include "runtime/parameter_checks.h"
#include "runtime/quoted_text.h"
#include "tbd/st_tbd_internal.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Grid limits: cell indices fit int32 and a CUDA grid of 32 x 8 cell tiles fits the
//! 65535 blocks of gridDim.y.
constexpr std::size_t max_side = std::size_t(1) << 18;
constexpr std::size_t max_cells = 0x7fffffff;
constexpr std::size_t max_hypotheses = 4096;
//! State floats (both buffers together) beyond which no device or host could hold it.
constexpr double max_state_floats = 0x1p40;

void require_shift(double value, const std::string& field)
{
    if (!std::isfinite(value) || std::fabs(value) > tbd_max_shift_px)
        throw std::invalid_argument(field + ": must be finite with magnitude <= " +
                                    number_text(tbd_max_shift_px) + " pixels, got " +
                                    number_text(value));
}

void require_one_of(const std::string& value,
                    std::initializer_list<const char*> allowed,
                    const char* field)
{
    std::string list;
    for (const char* a : allowed) {
        if (value == a)
            return;
        list += list.empty() ? "" : ", ";
        list += std::string("\"") + a + "\"";
    }
    throw std::invalid_argument(std::string(field) + ": must be one of " + list +
                                ", got " + quoted_text(value));
}

bool is_device_string(const std::string& d)
{
    if (d == "auto" || d == "cpu" || d == "cuda")
        return true;
    if (d.rfind("cuda:", 0) != 0 || d.size() == 5 || d.size() > 9)
        return false;
    return std::all_of(
        d.begin() + 5, d.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::size_t round_up(std::size_t value, std::size_t multiple)
{
    return (value + multiple - 1) / multiple * multiple;
}

} // namespace

void st_tbd_config::validate() const
{
    if (width < 1 || width > max_side)
        throw std::invalid_argument("width: must be 1 to " + std::to_string(max_side) +
                                    ", got " + std::to_string(width));
    if (height < 1 || height > max_side)
        throw std::invalid_argument("height: must be 1 to " + std::to_string(max_side) +
                                    ", got " + std::to_string(height));
    if (width * height > max_cells)
        throw std::invalid_argument(
            "width * height: must be <= " + std::to_string(max_cells) + ", got " +
            std::to_string(width * height));
    if (hypotheses.empty() || hypotheses.size() > max_hypotheses)
        throw std::invalid_argument("hypotheses: must hold 1 to " +
                                    std::to_string(max_hypotheses) + " hypotheses, got " +
                                    std::to_string(hypotheses.size()));
    const std::size_t m_count = hypotheses.size();
    for (std::size_t m = 0; m < m_count; ++m) {
        const std::string h = "hypotheses[" + std::to_string(m) + "]";
        // A velocity no transition can follow (|shift| <= tbd_max_shift_px) is no
        // hypothesis this filter can hold.
        require_shift(hypotheses[m].vx, h + ".vx");
        require_shift(hypotheses[m].vy, h + ".vy");
        const auto& transitions = hypotheses[m].transitions;
        if (transitions.empty())
            throw std::invalid_argument(h + ".transitions: must hold at least one "
                                            "transition, got none");
        for (std::size_t k = 0; k < transitions.size(); ++k) {
            const std::string t = h + ".transitions[" + std::to_string(k) + "]";
            const tbd_transition& tr = transitions[k];
            if (tr.source < 0 || static_cast<std::size_t>(tr.source) >= m_count)
                throw std::invalid_argument(t + ".source: must be 0 to " +
                                            std::to_string(m_count - 1) + ", got " +
                                            std::to_string(tr.source));
            require_shift(tr.dx, t + ".dx");
            require_shift(tr.dy, t + ".dy");
            require_finite(tr.weight, t + ".weight");
        }
        // The weights are the fractions of the sources' mass the hypothesis receives:
        // in magnitude at most all of it, the bound under which the state stays finite
        // (alpha < 1). Allowed beyond 1: half a float32 ulp per weight, so weights meant
        // to sum to 1 pass after rounding.
        double mass = 0.0;
        for (const tbd_transition& tr : transitions)
            mass += std::fabs(double(tr.weight));
        const double mass_limit = 1.0 + double(transitions.size()) * 0x1p-24;
        if (!(mass <= mass_limit))
            throw std::invalid_argument(
                h +
                ".transitions: the magnitudes of the weights must sum to at most 1 "
                "(the fraction of the sources' mass the hypothesis receives; beyond "
                "it the state grows without bound), got " +
                number_text(mass));
    }
    validate_tbd_alpha(alpha);
    validate_tbd_threshold(threshold);
    if (max_detections_per_frame < 1)
        throw std::invalid_argument("max_detections_per_frame: must be >= 1, got 0");
    if (!is_device_string(device))
        throw std::invalid_argument("device: must be \"auto\", \"cpu\", \"cuda\" or "
                                    "\"cuda:N\", got " +
                                    quoted_text(device));
    require_one_of(kernel, { "auto", "generic", "generated" }, "kernel");
    require_one_of(bilinear, { "auto", "texture", "software" }, "bilinear");
    if (autotune_iterations < 1)
        throw std::invalid_argument("autotune_iterations: must be >= 1, got 0");
    if (!std::isfinite(autotune_seconds) || !(autotune_seconds > 0.0))
        throw std::invalid_argument("autotune_seconds: must be finite and > 0, got " +
                                    number_text(autotune_seconds));
    const tbd_layout layout = make_tbd_layout(*this);
    if (2.0 * double(layout.total()) > max_state_floats)
        throw std::invalid_argument(
            "hypotheses, width, height: the state (" +
            number_text(double(layout.total())) +
            " floats per buffer) is beyond any device or host memory");
}

std::vector<tbd_hypothesis>
st_tbd_config::velocity_grid(float vmax, float step, float spread)
{
    if (!std::isfinite(vmax) || vmax < 0.0f || vmax > tbd_max_shift_px)
        throw std::invalid_argument(
            "vmax: must be finite, >= 0 and <= " + number_text(tbd_max_shift_px) +
            ", got " + number_text(vmax));
    if (!std::isfinite(step) || !(step > 0.0f))
        throw std::invalid_argument("step: must be finite and > 0, got " +
                                    number_text(step));
    if (!(spread >= 0.0f && spread < 1.0f))
        throw std::invalid_argument("spread: must be in [0, 1), got " +
                                    number_text(spread));
    const double per_axis_d = std::floor(2.0 * double(vmax) / double(step) + 1e-6) + 1.0;
    if (per_axis_d * per_axis_d > double(max_hypotheses))
        throw std::invalid_argument(
            "vmax, step: the grid would have " + number_text(per_axis_d * per_axis_d) +
            " hypotheses, more than " + std::to_string(max_hypotheses));
    const int n = static_cast<int>(per_axis_d);
    auto velocity = [&](int i) {
        return static_cast<float>(-double(vmax) + double(i) * double(step));
    };
    std::vector<tbd_hypothesis> grid(std::size_t(n) * n);
    for (int iy = 0; iy < n; ++iy) {
        for (int ix = 0; ix < n; ++ix) {
            const int m = iy * n + ix;
            tbd_hypothesis& h = grid[m];
            h.vx = velocity(ix);
            h.vy = velocity(iy);
            // Neighbours by increasing index: (vy - step), (vx - step), (vx + step),
            // (vy + step).
            std::vector<int> neighbours;
            if (iy > 0)
                neighbours.push_back(m - n);
            if (ix > 0)
                neighbours.push_back(m - 1);
            if (ix + 1 < n)
                neighbours.push_back(m + 1);
            if (iy + 1 < n)
                neighbours.push_back(m + n);
            const float share = spread / 4.0f;
            h.transitions.push_back(
                { m, h.vx, h.vy, 1.0f - static_cast<float>(neighbours.size()) * share });
            if (spread > 0.0f)
                for (int nb : neighbours)
                    h.transitions.push_back({ nb, h.vx, h.vy, share });
        }
    }
    return grid;
}

tbd_layout make_tbd_layout(const st_tbd_config& config)
{
    float largest = 0.0f;
    for (const auto& h : config.hypotheses)
        for (const auto& t : h.transitions)
            largest = std::max({ largest, std::fabs(t.dx), std::fabs(t.dy) });
    tbd_layout l;
    l.width = config.width;
    l.height = config.height;
    l.planes = config.hypotheses.size();
    l.guard = static_cast<std::size_t>(std::ceil(largest)) + 1;
    l.x0 = round_up(l.guard, 32);
    l.y0 = l.guard;
    l.pitch = round_up(l.x0 + l.width + l.guard, 32);
    // 32-float rows are 128 bytes: a plane of a multiple of 4 rows is 512-byte aligned.
    l.rows = round_up(l.y0 + l.height + l.guard, 4);
    l.plane_stride = l.rows * l.pitch;
    return l;
}


void validate_tbd_alpha(float alpha)
{
    if (!(alpha > 0.0f && alpha < 1.0f))
        throw std::invalid_argument("alpha: must be in (0, 1), got " +
                                    number_text(alpha));
}

void validate_tbd_threshold(float threshold) { require_finite(threshold, "threshold"); }

} // namespace core
} // namespace cudadsp
} // namespace gr
