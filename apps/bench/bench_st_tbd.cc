/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Section tbd: the spatio-temporal track-before-detect engine on the benchmark
// configuration (1000 x 1000 grid, 13 hypotheses of 3 transitions each): every CUDA
// kernel variant (generic and NVRTC-generated, software and texture bilinear, the
// LREI-tuned order) on device-resident frames, the host path, the CPU backend, and the
// st_tbd_ff block in a flowgraph, next to the copy floors.
//
// Bytes per frame: the update reads the state (M planes; each bilinear read touches
// four cells, but neighbouring threads share them through L1 or the texture cache) and
// the frame, and writes the new state, D and the argmax: about 2 x state + 3 x frame.
// The floor is a device-to-device copy of the state (read + write of the same bytes),
// so the best a frame can do is about 1.1 x that copy.

#include "bench_harness.h"
#include "pattern_source.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/splitmix64.h"
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/cudadsp/core/st_tbd.h>
#include <gnuradio/cudadsp/st_tbd_ff.h>
#include <gnuradio/top_block.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {

namespace {

constexpr const char* section_name = "tbd";

constexpr std::size_t grid_width = 1000;
constexpr std::size_t grid_height = 1000;
constexpr float alpha = 0.9f;
// Above every value noise frames of unit variance reach in the filtered map, so that
// the detection list stays short as it would in use.
constexpr float threshold = 3.0f;
// Frames per timed engine call on the device: several, so the per-call overhead of
// process_device() is shared as in a streaming run.
constexpr std::size_t device_frames = 8;
// Frames checked against the float64 reference (after each, the state has one more
// frame of history, so errors that accumulate through the recursion show).
constexpr std::size_t checked_frames = 3;
constexpr std::size_t cpu_frames = 2;
constexpr int slow_repeats_max = 3;
constexpr std::uint64_t frame_seed = 20261122;

// LREI budget of the tuned row: enough iterations to see the search work, bounded in
// time so the section stays a few minutes.
constexpr std::size_t autotune_iterations = 300;
constexpr double autotune_seconds = 60.0;

constexpr std::size_t default_flowgraph_frames = 4000;
constexpr std::size_t cpu_flowgraph_frames = 8;
// Frames in the flowgraph source's pattern (4 MB each).
constexpr std::size_t pattern_frames = 4;

// Relative to the largest |D| of the reference: float32 rounding through the recursion
// for the software path; the texture unit's 8-bit fractional weights for the texture
// path (st_tbd.h derives the bound; on noise frames it stays far below it).
constexpr double software_tolerance = 1e-4;
constexpr double texture_tolerance = 3e-2;

constexpr double target_device_x_d2d = 4.0;
constexpr double target_flowgraph_frames_per_s = 1000.0;

const std::string& row_d2d = floor_row_d2d;
const std::string& row_h2d = floor_row_h2d;
const std::string& row_d2h = floor_row_d2h;
const std::string& row_concurrent = floor_row_h2d_d2h_concurrent;
const std::string row_generic_sw = "cuda generic, software bilinear";
const std::string row_generic_tex = "cuda generic, texture bilinear";
const std::string row_generated_sw = "cuda generated, software bilinear";
const std::string row_generated_tex = "cuda generated, texture bilinear";
const std::string row_tuned = "cuda generated, LREI-tuned order";
const std::string row_auto = "cuda engine (auto), pinned host frames";
const std::string row_cpu = "cpu engine";
const std::string row_flowgraph_cuda = "flowgraph, cuda block";
const std::string row_flowgraph_cpu = "flowgraph, cpu block";

/*
 * The benchmark configuration: 13 velocities (the 3 x 3 grid of vx, vy in {-1, 0, 1} and
 * (+-2, 0), (0, +-2), scaled by 0.75 so every read is genuinely fractional), each with
 * 3 transitions: its own velocity (0.8) and its two neighbours in the list (0.1 each).
 * tools/bench_cupy_tbd.py builds the same table.
 */
std::vector<core::tbd_hypothesis> bench_hypotheses()
{
    std::vector<std::pair<float, float>> v;
    for (int vy = -1; vy <= 1; ++vy)
        for (int vx = -1; vx <= 1; ++vx)
            v.emplace_back(float(vx), float(vy));
    v.insert(v.end(), { { -2.f, 0.f }, { 2.f, 0.f }, { 0.f, -2.f }, { 0.f, 2.f } });
    const int m = int(v.size());
    std::vector<core::tbd_hypothesis> h(v.size());
    for (int i = 0; i < m; ++i) {
        const float vx = 0.75f * v[i].first;
        const float vy = 0.75f * v[i].second;
        h[i].vx = vx;
        h[i].vy = vy;
        h[i].transitions = { { i, vx, vy, 0.8f },
                             { (i + 1) % m, vx, vy, 0.1f },
                             { (i + m - 1) % m, vx, vy, 0.1f } };
    }
    return h;
}

core::st_tbd_config make_config(const std::string& device,
                                const std::string& kernel,
                                const std::string& bilinear)
{
    core::st_tbd_config c;
    c.width = grid_width;
    c.height = grid_height;
    c.hypotheses = bench_hypotheses();
    c.alpha = alpha;
    c.threshold = threshold;
    c.device = device;
    c.kernel = kernel;
    c.bilinear = bilinear;
    return c;
}

// Unit-variance Gaussian frames, the same on every platform (core::splitmix64).
std::vector<float> noise_frames(std::size_t frames, std::size_t cells, std::uint64_t seed)
{
    std::vector<float> out(frames * cells);
    core::splitmix64 rng(seed);
    for (std::size_t i = 0; i + 1 < out.size(); i += 2) {
        // Power 2: variance 1 in each of the real and imaginary parts.
        const std::complex<double> z = rng.complex_normal(2.0);
        out[i] = float(z.real());
        out[i + 1] = float(z.imag());
    }
    return out;
}

/*
 * The recursion of st_tbd.h in float64, written from its equations (bilinear
 * interpolation with cells outside the grid 0), for the first frames of \p frames:
 * returns their detection maps.
 */
std::vector<double> reference_maps(const core::st_tbd_config& config,
                                   const std::vector<float>& frames,
                                   std::size_t nframes)
{
    const long w = long(config.width), h = long(config.height);
    const std::size_t cells = config.cells();
    const std::size_t m_count = config.hypotheses.size();
    std::vector<double> state(m_count * cells, 0.0), next(m_count * cells);
    std::vector<double> maps(nframes * cells);
    auto cell = [&](std::size_t plane, long x, long y) {
        return (x < 0 || y < 0 || x >= w || y >= h)
                   ? 0.0
                   : state[plane * cells + std::size_t(y * w + x)];
    };
    for (std::size_t f = 0; f < nframes; ++f) {
        for (std::size_t m = 0; m < m_count; ++m) {
            for (long y = 0; y < h; ++y) {
                for (long x = 0; x < w; ++x) {
                    double v = 0;
                    for (const auto& t : config.hypotheses[m].transitions) {
                        const double u = double(x) - t.dx, q = double(y) - t.dy;
                        const double u0 = std::floor(u), q0 = std::floor(q);
                        const double fu = u - u0, fq = q - q0;
                        const long iu = long(u0), iq = long(q0);
                        const auto p = std::size_t(t.source);
                        v += double(t.weight) * ((1 - fq) * ((1 - fu) * cell(p, iu, iq) +
                                                             fu * cell(p, iu + 1, iq)) +
                                                 fq * ((1 - fu) * cell(p, iu, iq + 1) +
                                                       fu * cell(p, iu + 1, iq + 1)));
                    }
                    next[m * cells + std::size_t(y * w + x)] =
                        double(config.alpha) * v +
                        (1 - double(config.alpha)) *
                            double(frames[f * cells + std::size_t(y * w + x)]);
                }
            }
        }
        state.swap(next);
        for (std::size_t i = 0; i < cells; ++i) {
            double d = state[i];
            for (std::size_t m = 1; m < m_count; ++m)
                d = std::max(d, state[m * cells + i]);
            maps[f * cells + i] = d;
        }
    }
    return maps;
}

//! Worst |map - reference| over the largest |reference|, over the checked frames.
void check_maps(row& r,
                const std::vector<double>& reference,
                const float* maps,
                std::size_t nframes,
                std::size_t cells,
                double tolerance)
{
    double scale = 0, worst = 0;
    std::size_t unwritten = 0;
    for (std::size_t i = 0; i < nframes * cells; ++i)
        scale = std::max(scale, std::fabs(reference[i]));
    for (std::size_t i = 0; i < nframes * cells; ++i) {
        if (!std::isfinite(maps[i])) {
            ++unwritten;
            continue;
        }
        worst = std::max(worst, std::fabs(double(maps[i]) - reference[i]));
    }
    std::ostringstream note;
    note.precision(3);
    note << "max |D - float64| " << worst / scale << " of max |D|";
    if (unwritten) {
        r.status = row_status::failed;
        r.note = std::to_string(unwritten) + " map values unwritten (NaN)";
    } else if (!(worst <= tolerance * scale)) {
        r.status = row_status::failed;
        note << ", tolerance " << tolerance;
        r.note = note.str();
    } else {
        r.status = row_status::ok;
        r.note = note.str();
    }
}

void poison(float* p, std::size_t n)
{
    std::fill(p, p + n, std::numeric_limits<float>::quiet_NaN());
}

/*
 * One CUDA variant on device-resident frames: checked on the first frames against the
 * float64 reference (after a reset), then timed per call of device_frames frames.
 */
void measure_device_variant(row& r,
                            core::st_tbd& engine,
                            const std::vector<float>& frames,
                            const std::vector<double>& reference,
                            double tolerance)
{
    const std::size_t cells = engine.config().cells();
    core::device_buffer<float> d_frames(device_frames * cells);
    core::device_buffer<float> d_map(device_frames * cells);
    core::device_buffer<std::int32_t> d_argmax(device_frames * cells);
    core::cuda_stream stream;
    CUDADSP_CUDA(cudaMemcpyAsync(d_frames.get(),
                                 frames.data(),
                                 device_frames * cells * sizeof(float),
                                 cudaMemcpyHostToDevice,
                                 stream.get()));
    // All-ones bytes are a NaN in float32: an unwritten value fails the check.
    CUDADSP_CUDA(cudaMemsetAsync(
        d_map.get(), 0xff, device_frames * cells * sizeof(float), stream.get()));
    engine.reset();
    engine.process_device(d_frames.get(),
                          checked_frames,
                          d_map.get(),
                          d_argmax.get(),
                          nullptr,
                          stream.get());
    std::vector<float> maps(checked_frames * cells);
    CUDADSP_CUDA(cudaMemcpyAsync(maps.data(),
                                 d_map.get(),
                                 maps.size() * sizeof(float),
                                 cudaMemcpyDeviceToHost,
                                 stream.get()));
    stream.synchronize();
    check_maps(r, reference, maps.data(), checked_frames, cells, tolerance);
    r.note = engine.implementation() + "; " + r.note;

    r.clock = "events";
    r.samples = double(device_frames * cells);
    r.bytes = double(device_frames) * double(cells) * sizeof(float) *
              (2.0 * double(engine.config().hypotheses.size()) + 3.0);
    r.time = time_cuda(stream.get(), 2, 20, [&] {
        engine.process_device(d_frames.get(),
                              device_frames,
                              d_map.get(),
                              d_argmax.get(),
                              nullptr,
                              stream.get());
    });
}

/*
 * The block between a frame source and null sinks, timed on the host clock around
 * tb->run(); a first run into vector sinks is checked against the float64 reference.
 */
void measure_flowgraph(row& r,
                       const std::string& device,
                       const std::vector<float>& pattern,
                       const std::vector<double>& reference,
                       double tolerance,
                       std::size_t frames,
                       int repeats)
{
    const auto config = make_config(device, "auto", "auto");
    const std::size_t cells = config.cells();
    auto make_block = [&] {
        st_tbd_ff_config block_config;
        block_config.tbd = config;
        return st_tbd_ff::make(block_config);
    };
    {
        auto tb = gr::make_top_block("tbd_check");
        auto source = gnuradio::make_block_sptr<pattern_source>(
            std::vector<std::vector<unsigned char>>{ pattern_source::bytes_of(pattern) },
            cells * sizeof(float),
            checked_frames);
        auto block = make_block();
        auto map_sink = gr::blocks::vector_sink_f::make(int(cells));
        tb->connect(source, 0, block, 0);
        tb->connect(block, 0, map_sink, 0);
        tb->connect(block, 1, gr::blocks::null_sink::make(cells * sizeof(float)), 0);
        tb->run();
        const auto maps = map_sink->data();
        if (maps.size() != checked_frames * cells) {
            r.status = row_status::failed;
            r.note = "block produced " + std::to_string(maps.size() / cells) + " of " +
                     std::to_string(checked_frames) + " frames";
            return;
        }
        check_maps(r, reference, maps.data(), checked_frames, cells, tolerance);
    }
    const std::string check_note = r.note;

    auto build = [&](std::size_t run_frames) {
        auto tb = gr::make_top_block("tbd_bench");
        auto source = gnuradio::make_block_sptr<pattern_source>(
            std::vector<std::vector<unsigned char>>{ pattern_source::bytes_of(pattern) },
            cells * sizeof(float),
            run_frames);
        // As the block's docs ask of a GPU flowgraph: room for two batches upstream.
        source->set_min_output_buffer(
            2 * st_tbd_ff::default_batch_frames(int(grid_width), int(grid_height)));
        auto block = make_block();
        tb->connect(source, 0, block, 0);
        for (int port = 0; port < 2; ++port)
            tb->connect(
                block, port, gr::blocks::null_sink::make(cells * sizeof(float)), 0);
        return tb;
    };
    build(std::min<std::size_t>(frames, 64))->run(); // warm-up

    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        auto tb = build(frames);
        const auto begin = std::chrono::steady_clock::now();
        tb->run();
        const auto end = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(end - begin).count());
    }
    r.clock = "wall";
    r.samples = double(frames * cells);
    r.bytes = double(frames * cells) * 3 * sizeof(float);
    r.time = summarize(std::move(ms));
    r.note = std::to_string(std::llround(double(frames) / (r.time.median_ms * 1e-3))) +
             " frames/s; " + check_note;
}

//! What the rows share: the grid's sizes, the frames and their float64 reference.
struct section_input {
    std::size_t cells;
    std::size_t state_bytes;
    std::size_t frame_bytes;
    int repeats;
    int slow_repeats;
    std::vector<float> frames;
    std::vector<double> reference;
};

void add_parameters(section_report& report,
                    std::size_t m_count,
                    std::size_t flowgraph_frames)
{
    report.add_parameter(
        "grid", std::to_string(grid_width) + " x " + std::to_string(grid_height));
    report.add_parameter("hypotheses", std::to_string(m_count) + " x 3 transitions");
    report.add_parameter("alpha", "0.9");
    report.add_parameter("frames per device call", std::to_string(device_frames));
    report.add_parameter("autotune budget",
                         std::to_string(autotune_iterations) + " iterations, " +
                             std::to_string(int(autotune_seconds)) + " s");
    report.add_parameter("flowgraph_frames_cuda", std::to_string(flowgraph_frames));
    report.add_parameter("flowgraph_frames_cpu", std::to_string(cpu_flowgraph_frames));
    report.add_parameter("input",
                         "unit-variance Gaussian noise frames, seed " +
                             std::to_string(frame_seed));
}

void add_notes(section_report& report, std::size_t m_count, std::size_t state_bytes)
{
    report.add_note("a sample is one cell of one frame; \"x d2d copy\" compares one "
                    "frame's update with one copy of the " +
                    std::to_string(m_count) + "-plane state (" +
                    std::to_string(state_bytes / 1000000) + " MB)");
    report.add_note("floors per frame: H2D of the frame (4 MB), D2H of the map and the "
                    "argmax (8 MB)");
}

//! One frame's worth of samples, so that "x" columns compare per frame.
void measure_copy_floors(section_report& report, const section_input& in)
{
    report.measure(row_d2d, [&](row& r) {
        r = floor_d2d_copy(in.state_bytes, double(in.cells), in.repeats);
    });
    report.measure(row_h2d, [&](row& r) {
        r = floor_h2d_pinned(in.frame_bytes, double(in.cells), in.repeats);
    });
    report.measure(row_d2h, [&](row& r) {
        r = floor_d2h_pinned(2 * in.frame_bytes, double(in.cells), in.repeats);
    });
    report.measure(row_concurrent, [&](row& r) {
        r = floor_h2d_d2h_concurrent_pinned(
            in.frame_bytes, 2 * in.frame_bytes, double(in.cells), in.repeats);
    });
}

//! A fresh cache folder \p name under the temporary directory, so that no order tuned
//! by an earlier run stands in for the one the row means to time.
std::string fresh_cache_dir(const char* name)
{
    const std::string dir = (std::filesystem::temp_directory_path() / name).string();
    std::filesystem::remove_all(dir);
    return dir;
}

//! The kernel and bilinear variants in the sorted start order, each on its own row.
void measure_untuned_variants(section_report& report,
                              const section_input& in,
                              const bench_device& device)
{
    struct variant {
        const std::string& row_name;
        const char* kernel;
        const char* bilinear;
        double tolerance;
    };
    for (const auto& v :
         { variant{ row_generic_sw, "generic", "software", software_tolerance },
           variant{ row_generic_tex, "generic", "texture", texture_tolerance },
           variant{ row_generated_sw, "generated", "software", software_tolerance },
           variant{ row_generated_tex, "generated", "texture", texture_tolerance } }) {
        progress(section_name, v.row_name);
        report.measure(v.row_name, [&](row& r) {
            auto config = make_config(device.device_string, v.kernel, v.bilinear);
            config.cache_dir = fresh_cache_dir("cudadsp_bench_tbd_untuned");
            auto engine = core::st_tbd::make(config);
            measure_device_variant(r, *engine, in.frames, in.reference, v.tolerance);
        });
    }
}

//! The check's tolerance for whichever bilinear path \p engine chose.
double tolerance_of(const core::st_tbd& engine)
{
    const bool texture = engine.implementation().find("texture") != std::string::npos;
    return texture ? texture_tolerance : software_tolerance;
}

//! The generated kernel in the line order LREI finds within the autotune budget.
void measure_tuned(row& r, const section_input& in, const bench_device& device)
{
    auto config = make_config(device.device_string, "generated", "auto");
    config.autotune = true;
    config.autotune_iterations = autotune_iterations;
    config.autotune_seconds = autotune_seconds;
    config.cache_dir = fresh_cache_dir("cudadsp_bench_tbd_tuned");
    std::size_t last_reported = 0;
    config.autotune_progress = [&](const core::tbd_autotune_progress& p) {
        if (p.iteration == p.iterations || p.iteration >= last_reported + 50) {
            last_reported = p.iteration;
            std::ostringstream os;
            os.precision(4);
            os << "LREI " << p.iteration << "/" << p.iterations << " " << p.elapsed_s
               << " s: best " << p.best_ms << " ms (start " << p.start_ms << " ms)";
            progress(section_name, os.str());
        }
    };
    auto engine = core::st_tbd::make(config);
    measure_device_variant(r, *engine, in.frames, in.reference, tolerance_of(*engine));
    r.note += "; order: " + engine->line_order_source();
}

//! The engine as a block uses it: process() on pinned host frames.
void measure_auto_pinned(row& r, const section_input& in, const bench_device& device)
{
    const std::size_t cells = in.cells;
    auto config = make_config(device.device_string, "auto", "auto");
    auto engine = core::st_tbd::make(config);
    core::pinned_buffer<float> frames(device_frames * cells);
    core::pinned_buffer<float> map(device_frames * cells);
    core::pinned_buffer<std::int32_t> argmax(device_frames * cells);
    std::copy(in.frames.begin(), in.frames.end(), frames.get());
    poison(map.get(), device_frames * cells);
    engine->process(frames.get(), checked_frames, map.get(), argmax.get(), nullptr);
    check_maps(r, in.reference, map.get(), checked_frames, cells, tolerance_of(*engine));
    r.note = engine->implementation() + "; " + r.note;
    std::vector<core::tbd_detection> detections;
    r.clock = "wall";
    r.samples = double(device_frames * cells);
    r.bytes = double(device_frames * in.frame_bytes * 3);
    r.time = time_host(1, in.repeats, [&] {
        detections.clear();
        engine->process(
            frames.get(), device_frames, map.get(), argmax.get(), &detections);
    });
}

void measure_cuda_rows(section_report& report,
                       const section_input& in,
                       const bench_device& device)
{
    warn_if_cache_resident(section_name, in.state_bytes, device);
    progress(section_name, "copy floors");
    measure_copy_floors(report, in);

    measure_untuned_variants(report, in, device);

    progress(section_name,
             row_tuned + " (LREI search, up to " + std::to_string(int(autotune_seconds)) +
                 " s)");
    report.measure(row_tuned, [&](row& r) { measure_tuned(r, in, device); });

    progress(section_name, row_auto);
    report.measure(row_auto, [&](row& r) { measure_auto_pinned(r, in, device); });
}

void skip_cuda_rows(section_report& report, const bench_device& device)
{
    progress(section_name, "CUDA rows skipped (" + device.skip_reason + ")");
    for (const auto& name : { row_d2d,
                              row_h2d,
                              row_d2h,
                              row_concurrent,
                              row_generic_sw,
                              row_generic_tex,
                              row_generated_sw,
                              row_generated_tex,
                              row_tuned,
                              row_auto })
        report.skip(name, device.skip_reason);
}

void measure_cpu_engine(row& r, const section_input& in)
{
    const std::size_t cells = in.cells;
    auto engine = core::st_tbd::make(make_config("cpu", "auto", "auto"));
    std::vector<float> map(checked_frames * cells);
    std::vector<std::int32_t> argmax(checked_frames * cells);
    poison(map.data(), map.size());
    engine->process(in.frames.data(), checked_frames, map.data(), argmax.data(), nullptr);
    check_maps(r, in.reference, map.data(), checked_frames, cells, software_tolerance);
    std::vector<core::tbd_detection> detections;
    r.clock = "wall";
    r.samples = double(cpu_frames * cells);
    r.bytes = double(cpu_frames * in.frame_bytes * 3);
    r.time = time_host(0, in.slow_repeats, [&] {
        detections.clear();
        engine->process(
            in.frames.data(), cpu_frames, map.data(), argmax.data(), &detections);
    });
}

void measure_flowgraph_rows(section_report& report,
                            const section_input& in,
                            std::size_t flowgraph_frames,
                            const bench_device& device)
{
    const std::vector<float> pattern(
        in.frames.begin(), in.frames.begin() + std::ptrdiff_t(pattern_frames * in.cells));
    if (device.cuda) {
        progress(section_name, row_flowgraph_cuda);
        report.measure(row_flowgraph_cuda, [&](row& r) {
            measure_flowgraph(r,
                              device.device_string,
                              pattern,
                              in.reference,
                              texture_tolerance,
                              flowgraph_frames,
                              in.slow_repeats);
        });
    } else {
        report.skip(row_flowgraph_cuda, device.skip_reason);
    }
    progress(section_name, row_flowgraph_cpu);
    report.measure(row_flowgraph_cpu, [&](row& r) {
        measure_flowgraph(
            r, "cpu", pattern, in.reference, software_tolerance, cpu_flowgraph_frames, 1);
    });
}

void add_ratios_and_targets(section_report& report, std::size_t cells)
{
    for (const auto& name : { row_generic_sw,
                              row_generic_tex,
                              row_generated_sw,
                              row_generated_tex,
                              row_tuned }) {
        report.ratio_to(name, row_d2d, "d2d copy");
        report.speedup_over(name, row_cpu, "speed-up vs cpu");
    }
    // Variants against the generated kernel in the sorted order with software bilinear.
    for (const auto& name :
         { row_generic_sw, row_generic_tex, row_generated_tex, row_tuned })
        report.ratio_to(name, row_generated_sw, "generated sw");
    for (const auto& name : { row_generic_sw,
                              row_generic_tex,
                              row_generated_sw,
                              row_generated_tex,
                              row_tuned })
        report.target_max_ratio(name, "x d2d copy", target_device_x_d2d);
    report.ratio_to(row_auto, row_concurrent, "pinned H2D||D2H");
    report.speedup_over(row_auto, row_cpu, "speed-up vs cpu");
    report.target_min_rate(
        row_flowgraph_cuda, double(cells), target_flowgraph_frames_per_s, "frames");
    report.speedup_over(row_flowgraph_cuda, row_flowgraph_cpu, "speed-up vs cpu");
}

void run_tbd(const bench_options& options,
             const bench_device& device,
             section_report& report)
{
    const std::size_t cells = grid_width * grid_height;
    const std::size_t m_count = bench_hypotheses().size();
    const std::size_t state_bytes = m_count * cells * sizeof(float);
    const std::size_t flowgraph_frames =
        options.flowgraph_samples
            ? std::max<std::size_t>(1, options.flowgraph_samples / cells)
            : default_flowgraph_frames;
    add_parameters(report, m_count, flowgraph_frames);
    add_notes(report, m_count, state_bytes);

    progress(section_name, "generating frames and the float64 reference");
    section_input in{ cells,
                      state_bytes,
                      cells * sizeof(float),
                      options.repeats,
                      std::min(options.repeats, slow_repeats_max),
                      noise_frames(device_frames, cells, frame_seed),
                      {} };
    in.reference =
        reference_maps(make_config("cpu", "auto", "auto"), in.frames, checked_frames);

    if (device.cuda)
        measure_cuda_rows(report, in, device);
    else
        skip_cuda_rows(report, device);

    progress(section_name, row_cpu);
    report.measure(row_cpu, [&](row& r) { measure_cpu_engine(r, in); });

    measure_flowgraph_rows(report, in, flowgraph_frames, device);
    add_ratios_and_targets(report, cells);
}

} // namespace

CUDADSP_BENCH_SECTION(tbd,
                      "tbd",
                      "track-before-detect filter, 1000 x 1000 x 13 hypotheses: CUDA "
                      "kernels (generic / generated / LREI-tuned, texture / software "
                      "bilinear), host path, CPU engine and the st_tbd_ff block in a "
                      "flowgraph, against a d2d copy of the state",
                      run_tbd);

} // namespace bench
} // namespace cudadsp
} // namespace gr
