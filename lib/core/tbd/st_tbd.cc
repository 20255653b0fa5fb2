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
    validate_tbd_alpha(alpha);
    d_config.alpha = alpha;
}

void st_tbd::set_threshold(float threshold)
{
    validate_tbd_threshold(threshold);
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
