/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tbd/st_tbd_cpu.h"
#include "tbd/st_tbd_cuda.h"
#include "tbd/st_tbd_internal.h"
#include <algorithm>
#include <cmath>
#include <sstream>
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

std::string number(double value)
{
    std::ostringstream text;
    text << value;
    return text.str();
}

void require_finite(double value, const std::string& field)
{
    if (!std::isfinite(value))
        throw std::invalid_argument(field + ": must be finite, got " + number(value));
}

void require_shift(double value, const std::string& field)
{
    if (!std::isfinite(value) || std::fabs(value) > tbd_max_shift_px)
        throw std::invalid_argument(
            field + ": must be finite with magnitude <= " + number(tbd_max_shift_px) +
            " pixels, got " + number(value));
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
                                ", got \"" + value + "\"");
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
                number(mass));
    }
    if (!(alpha > 0.0f && alpha < 1.0f))
        throw std::invalid_argument("alpha: must be in (0, 1), got " + number(alpha));
    require_finite(threshold, "threshold");
    if (max_detections_per_frame < 1)
        throw std::invalid_argument("max_detections_per_frame: must be >= 1, got 0");
    if (!is_device_string(device))
        throw std::invalid_argument("device: must be \"auto\", \"cpu\", \"cuda\" or "
                                    "\"cuda:N\", got \"" +
                                    device + "\"");
    require_one_of(kernel, { "auto", "generic", "generated" }, "kernel");
    require_one_of(bilinear, { "auto", "texture", "software" }, "bilinear");
    if (autotune_iterations < 1)
        throw std::invalid_argument("autotune_iterations: must be >= 1, got 0");
    if (!std::isfinite(autotune_seconds) || !(autotune_seconds > 0.0))
        throw std::invalid_argument("autotune_seconds: must be finite and > 0, got " +
                                    number(autotune_seconds));
    const tbd_layout layout = make_tbd_layout(*this);
    if (2.0 * double(layout.total()) > max_state_floats)
        throw std::invalid_argument(
            "hypotheses, width, height: the state (" + number(double(layout.total())) +
            " floats per buffer) is beyond any device or host memory");
}

std::vector<tbd_hypothesis>
st_tbd_config::velocity_grid(float vmax, float step, float spread)
{
    if (!std::isfinite(vmax) || vmax < 0.0f || vmax > tbd_max_shift_px)
        throw std::invalid_argument("vmax: must be finite, >= 0 and <= " +
                                    number(tbd_max_shift_px) + ", got " + number(vmax));
    if (!std::isfinite(step) || !(step > 0.0f))
        throw std::invalid_argument("step: must be finite and > 0, got " + number(step));
    if (!(spread >= 0.0f && spread < 1.0f))
        throw std::invalid_argument("spread: must be in [0, 1), got " + number(spread));
    const double per_axis_d = std::floor(2.0 * double(vmax) / double(step) + 1e-6) + 1.0;
    if (per_axis_d * per_axis_d > double(max_hypotheses))
        throw std::invalid_argument(
            "vmax, step: the grid would have " + number(per_axis_d * per_axis_d) +
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

tbd_tap make_tbd_tap(const tbd_transition& t)
{
    // -dx is exact, so are floor and the difference: the fraction is exact in float.
    const double u = -double(t.dx);
    const double v = -double(t.dy);
    const double iu = std::floor(u);
    const double iv = std::floor(v);
    tbd_tap tap;
    tap.source = t.source;
    tap.ix = static_cast<int>(iu);
    tap.iy = static_cast<int>(iv);
    tap.fx = static_cast<float>(u - iu);
    tap.fy = static_cast<float>(v - iv);
    tap.weight = t.weight;
    return tap;
}

tbd_table make_tbd_table(const st_tbd_config& config)
{
    tbd_table table;
    table.first.push_back(0);
    for (const auto& h : config.hypotheses) {
        for (const auto& t : h.transitions)
            table.taps.push_back(make_tbd_tap(t));
        table.first.push_back(static_cast<int>(table.taps.size()));
    }
    return table;
}

void find_tbd_candidates(const float* map,
                         const std::int32_t* argmax,
                         std::size_t width,
                         std::size_t height,
                         float threshold,
                         std::size_t y_begin,
                         std::size_t y_end,
                         std::vector<tbd_candidate>& out)
{
    const float outside = tbd_outside();
    auto at = [&](std::size_t x, std::size_t y, long dx, long dy) {
        const long u = long(x) + dx;
        const long v = long(y) + dy;
        if (u < 0 || v < 0 || u >= long(width) || v >= long(height))
            return outside;
        return map[std::size_t(v) * width + std::size_t(u)];
    };
    for (std::size_t y = y_begin; y < y_end; ++y)
        for (std::size_t x = 0; x < width; ++x) {
            const float d = map[y * width + x];
            if (!(d > threshold))
                continue;
            if (tbd_is_detection(d,
                                 threshold,
                                 at(x, y, -1, -1),
                                 at(x, y, 0, -1),
                                 at(x, y, 1, -1),
                                 at(x, y, -1, 0),
                                 at(x, y, 1, 0),
                                 at(x, y, -1, 1),
                                 at(x, y, 0, 1),
                                 at(x, y, 1, 1)))
                out.push_back(
                    { std::uint32_t(x), std::uint32_t(y), d, argmax[y * width + x] });
        }
}

void append_tbd_detections(std::vector<tbd_candidate>& candidates,
                           std::size_t max_detections,
                           std::uint64_t frame,
                           const std::vector<tbd_hypothesis>& hypotheses,
                           std::vector<tbd_detection>& detections)
{
    if (candidates.size() > max_detections) {
        auto stronger = [](const tbd_candidate& a, const tbd_candidate& b) {
            if (a.value != b.value)
                return a.value > b.value;
            return a.y != b.y ? a.y < b.y : a.x < b.x;
        };
        std::nth_element(candidates.begin(),
                         candidates.begin() + max_detections,
                         candidates.end(),
                         stronger);
        candidates.resize(max_detections);
    }
    std::sort(candidates.begin(),
              candidates.end(),
              [](const tbd_candidate& a, const tbd_candidate& b) {
                  return a.y != b.y ? a.y < b.y : a.x < b.x;
              });
    for (const tbd_candidate& c : candidates) {
        const tbd_hypothesis& h = hypotheses[c.hypothesis];
        detections.push_back({ frame, c.x, c.y, h.vx, h.vy, c.value });
    }
}

st_tbd::st_tbd(const st_tbd_config& config, const device_selection& device)
    : d_config(config), d_device(device)
{
}

st_tbd::~st_tbd() = default;

std::vector<tbd_line> st_tbd::lines(const st_tbd_config& config)
{
    std::vector<tbd_line> out;
    for (std::size_t m = 0; m < config.hypotheses.size(); ++m)
        for (std::size_t k = 0; k < config.hypotheses[m].transitions.size(); ++k)
            out.push_back({ m, k });
    return out;
}

void st_tbd::set_alpha(float alpha)
{
    if (!(alpha > 0.0f && alpha < 1.0f))
        throw std::invalid_argument("alpha: must be in (0, 1), got " + number(alpha));
    d_config.alpha = alpha;
}

void st_tbd::set_threshold(float threshold)
{
    require_finite(threshold, "threshold");
    d_config.threshold = threshold;
}

void st_tbd::set_line_order(const std::vector<std::size_t>&)
{
    throw std::logic_error("set_line_order: implementation \"" + implementation() +
                           "\" has no generated kernel (kernel = \"generated\" on a "
                           "CUDA device has)");
}

std::unique_ptr<st_tbd> st_tbd::make(const st_tbd_config& config)
{
    config.validate();
    const device_selection device = select_device(config.device, "device");
    if (device.backend == backend_kind::cuda)
        return std::make_unique<st_tbd_cuda>(config, device);
    return std::make_unique<st_tbd_cpu>(config, device);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
