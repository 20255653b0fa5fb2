/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/parallel_ranges.h"
#include "tbd/st_tbd_cpu.h"
#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Least work (cells times transitions) worth a thread of its own.
constexpr std::size_t min_work_per_thread = std::size_t(1) << 17;

} // namespace

st_tbd_cpu::st_tbd_cpu(const st_tbd_config& config, const device_selection& device)
    : st_tbd(config, device),
      d_layout(make_tbd_layout(config)),
      d_table(make_tbd_table(config))
{
    d_state[0].assign(d_layout.total(), 0.0f);
    d_state[1].assign(d_layout.total(), 0.0f);
}

std::size_t st_tbd_cpu::max_workers_by_size() const
{
    const std::size_t work =
        d_config.cells() * std::max<std::size_t>(1, d_table.taps.size());
    return work / min_work_per_thread;
}

void st_tbd_cpu::update_rows(const float* cur,
                             float* next,
                             const float* frame,
                             float* detection_map,
                             std::int32_t* argmax,
                             std::size_t y_begin,
                             std::size_t y_end,
                             std::vector<float>& accumulator) const
{
    const tbd_layout& l = d_layout;
    const std::size_t width = l.width;
    const std::size_t planes = l.planes;
    const float alpha = d_config.alpha;
    accumulator.resize(planes * width);
    for (std::size_t y = y_begin; y < y_end; ++y) {
        for (std::size_t m = 0; m < planes; ++m) {
            float* acc = accumulator.data() + m * width;
            std::fill(acc, acc + width, 0.0f);
            for (int k = d_table.first[m]; k < d_table.first[m + 1]; ++k) {
                const tbd_tap tap = d_table.taps[k];
                // The guard keeps every read inside the buffer: no bounds checks.
                const float* top = cur + tap.source * l.plane_stride +
                                   (l.y0 + y + tap.iy) * l.pitch + l.x0 + tap.ix;
                const float* bottom = top + l.pitch;
                const float w = tap.weight;
                for (std::size_t x = 0; x < width; ++x)
                    acc[x] +=
                        w *
                        tbd_bilinear(
                            top[x], top[x + 1], bottom[x], bottom[x + 1], tap.fx, tap.fy);
            }
        }
        const float* in = frame + y * width;
        float* d_row = detection_map + y * width;
        std::int32_t* a_row = argmax + y * width;
        for (std::size_t m = 0; m < planes; ++m) {
            const float* acc = accumulator.data() + m * width;
            float* out = next + l.offset(m, 0, y);
            for (std::size_t x = 0; x < width; ++x) {
                const float p = tbd_information_update(acc[x], tbd_input(in[x]), alpha);
                out[x] = p;
                float best = d_row[x];
                int arg = a_row[x];
                tbd_argmax_step(p, static_cast<int>(m), best, arg);
                d_row[x] = best;
                a_row[x] = arg;
            }
        }
    }
}

void st_tbd_cpu::update_frame(const float* frame,
                              float* detection_map,
                              std::int32_t* argmax)
{
    const std::size_t by_size = max_workers_by_size();
    std::vector<std::vector<float>> accumulators(
        parallel_workers(d_layout.height, by_size));
    parallel_ranges(
        d_layout.height, by_size, [&](std::size_t w, std::size_t y0, std::size_t y1) {
            update_rows(d_state[d_current].data(),
                        d_state[1 - d_current].data(),
                        frame,
                        detection_map,
                        argmax,
                        y0,
                        y1,
                        accumulators[w]);
        });
}

void st_tbd_cpu::process(const float* frames,
                         std::size_t nframes,
                         float* detection_map,
                         std::int32_t* argmax,
                         std::vector<tbd_detection>* detections)
{
    const std::size_t cells = d_config.cells();
    if (nframes > 0 && (!detection_map || !argmax)) {
        d_map_scratch.resize(cells);
        d_argmax_scratch.resize(cells);
    }
    for (std::size_t f = 0; f < nframes; ++f) {
        float* map = detection_map ? detection_map + f * cells : d_map_scratch.data();
        std::int32_t* arg = argmax ? argmax + f * cells : d_argmax_scratch.data();
        update_frame(frames + f * cells, map, arg);
        d_current = 1 - d_current;
        if (detections) {
            const std::size_t by_size = max_workers_by_size();
            std::vector<std::vector<tbd_candidate>> found(
                parallel_workers(d_layout.height, by_size));
            parallel_ranges(d_layout.height,
                            by_size,
                            [&](std::size_t w, std::size_t y0, std::size_t y1) {
                                find_tbd_candidates(map,
                                                    arg,
                                                    d_layout.width,
                                                    d_layout.height,
                                                    d_config.threshold,
                                                    y0,
                                                    y1,
                                                    found[w]);
                            });
            std::vector<tbd_candidate> candidates;
            for (const auto& part : found)
                candidates.insert(candidates.end(), part.begin(), part.end());
            append_tbd_detections(candidates,
                                  d_config.max_detections_per_frame,
                                  d_frames,
                                  d_config.hypotheses,
                                  *detections);
        }
        ++d_frames;
    }
}

void st_tbd_cpu::process_float_argmax(const float* frames,
                                      std::size_t nframes,
                                      float* detection_map,
                                      float* argmax,
                                      std::vector<tbd_detection>* detections)
{
    if (!argmax) {
        process(frames, nframes, detection_map, nullptr, detections);
        return;
    }
    // Frame by frame through the int32 scratch: the conversion reads it while it is
    // still in cache.
    const std::size_t cells = d_config.cells();
    d_argmax_scratch.resize(cells);
    for (std::size_t f = 0; f < nframes; ++f) {
        process(frames + f * cells,
                1,
                detection_map ? detection_map + f * cells : nullptr,
                d_argmax_scratch.data(),
                detections);
        std::transform(d_argmax_scratch.begin(),
                       d_argmax_scratch.end(),
                       argmax + f * cells,
                       [](std::int32_t m) { return static_cast<float>(m); });
    }
}

void st_tbd_cpu::process_device(const float*,
                                std::size_t,
                                float*,
                                std::int32_t*,
                                std::vector<tbd_detection>*,
                                cuda_stream_t)
{
    throw std::logic_error("process_device: this track-before-detect engine runs on the "
                           "CPU backend; use process() with host buffers");
}

double st_tbd_cpu::frame_time_ms(std::size_t repeats)
{
    const std::size_t cells = d_config.cells();
    d_map_scratch.resize(cells);
    d_argmax_scratch.resize(cells);
    // Any finite frame does: the work does not depend on the values.
    const std::vector<float> frame(cells, 0.0f);
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t r = 0; r < std::max<std::size_t>(1, repeats); ++r) {
        const auto start = std::chrono::steady_clock::now();
        update_frame(frame.data(), d_map_scratch.data(), d_argmax_scratch.data());
        const std::chrono::duration<double, std::milli> took =
            std::chrono::steady_clock::now() - start;
        best = std::min(best, took.count());
    }
    return best;
}

void st_tbd_cpu::reset()
{
    std::fill(d_state[0].begin(), d_state[0].end(), 0.0f);
    std::fill(d_state[1].begin(), d_state[1].end(), 0.0f);
    d_current = 0;
    d_frames = 0;
}

void st_tbd_cpu::read_state(float* state)
{
    const tbd_layout& l = d_layout;
    const float* cur = d_state[d_current].data();
    for (std::size_t m = 0; m < l.planes; ++m)
        for (std::size_t y = 0; y < l.height; ++y)
            std::copy_n(
                cur + l.offset(m, 0, y), l.width, state + (m * l.height + y) * l.width);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
