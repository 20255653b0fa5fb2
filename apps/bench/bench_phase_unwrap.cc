/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Section phase_unwrap: the phase-unwrap engine (device-resident, pinned and pageable
// host buffers, CPU backend) and the phase_unwrap_ff block in a flowgraph, next to the
// copy floors of the same bytes. Unwrapping reads 4 and writes 4 bytes per sample and
// does a handful of flops, so it is bound by memory or the bus: a d2d copy of the
// samples is the floor for device-resident data, a pinned H2D plus D2H for host data.

#include "bench_harness.h"
#include "pattern_source.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/cudadsp/core/phase_unwrap.h>
#include <gnuradio/cudadsp/phase_unwrap_ff.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {

namespace {

constexpr const char* section_name = "phase_unwrap";

constexpr double pi = 3.14159265358979323846264338327950;
constexpr double period = 2 * pi;

// 256 MiB of float32: several times the L2 of any current GPU, so that the device
// rows measure DRAM and not the cache.
constexpr std::size_t default_samples = std::size_t(1) << 26;
// phase_unwrap_ff's default batch_samples.
constexpr int default_batch_samples = 1 << 20;
constexpr std::size_t default_flowgraph_samples = std::size_t(1) << 26;
// The CPU block runs a few hundred Msamples/s at best; a shorter run keeps the
// section quick and, with time per sample compared, still fair.
constexpr std::size_t cpu_flowgraph_samples_max = std::size_t(1) << 24;
// The flowgraph source repeats this pattern: long enough to hold many wraps, short
// enough to sit in the host cache, so that the source does not limit the block.
constexpr std::size_t pattern_samples = std::size_t(1) << 20;
constexpr int slow_repeats_max = 3;

// Steps of 0.8 rad (standard deviation) wrap about every 10 samples on average and
// jump by more than pi now and then, which exercises both K updates and their sign.
constexpr double step_std_rad = 0.8;
constexpr std::uint64_t input_seed = 20260101;
constexpr std::uint64_t pattern_seed = 20260102;

constexpr double target_device_x_d2d = 2.0;
constexpr double target_pinned_x_copies = 1.3;
constexpr double target_flowgraph_msamples = 500.0;

const std::string& row_d2d = floor_row_d2d;
const std::string& row_h2d = floor_row_h2d;
const std::string& row_d2h = floor_row_d2h;
const std::string& row_copies = floor_row_h2d_plus_d2h;
const std::string& row_concurrent = floor_row_h2d_d2h_concurrent;
const std::string row_device = "cuda engine, device buffers";
const std::string row_pinned = "cuda engine, pinned host buffers";
const std::string row_pageable = "cuda engine, pageable host buffers";
const std::string row_cpu = "cpu engine";
const std::string row_flowgraph_cuda = "flowgraph, cuda block";
const std::string row_flowgraph_cpu = "flowgraph, cpu block";

// Random walk of normal steps, wrapped to [-pi, pi) in float64 before the one
// rounding to float32. Deterministic for a given build (the C++ library defines how
// normal_distribution draws).
std::vector<float> wrapped_random_walk(std::size_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> step(0.0, step_std_rad);
    std::vector<float> x(n);
    double phase = 0;
    for (auto& sample : x) {
        phase += step(rng);
        phase -= period * std::floor((phase + pi) / period);
        sample = float(phase);
    }
    return x;
}

/*
 * Compare \p out with the engine's contract (phase_unwrap.h) evaluated in float64 on
 * finite input \p x: out[i] = x[i] + P*K[i], K the running count of jumps. Comparing
 * K = round((out - x) / P) rather than the values makes the check exact and blind to
 * the final float32 rounding; a wrong K anywhere, or an unwritten (NaN-poisoned)
 * sample, fails it. Sets the row's status and note.
 */
void check_unwrap(row& r, const float* x, const float* out, std::size_t n)
{
    std::int64_t k = 0;
    std::size_t mismatches = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (i) {
            const double d = double(x[i]) - double(x[i - 1]);
            const double excess = std::fabs(d) - period / 2;
            if (excess > 0) {
                const auto jumps = std::int64_t(std::ceil(excess / period));
                k += d > 0 ? -jumps : jumps;
            }
        }
        const double k_out = std::round((double(out[i]) - double(x[i])) / period);
        if (!(k_out == double(k))) {
            if (!mismatches)
                first = i;
            ++mismatches;
        }
    }
    if (mismatches) {
        r.status = row_status::failed;
        r.note = "K differs from the float64 reference at " + std::to_string(mismatches) +
                 " of " + std::to_string(n) + " samples, first at " +
                 std::to_string(first);
    } else {
        r.status = row_status::ok;
    }
}

std::unique_ptr<core::phase_unwrapper> make_engine(const std::string& device)
{
    core::phase_unwrap_config config;
    config.period = period;
    config.device = device;
    return core::phase_unwrapper::make(config);
}

void poison(float* out, std::size_t n)
{
    std::fill(out, out + n, std::numeric_limits<float>::quiet_NaN());
}

/*
 * The block between a pattern source and a null sink, \p items samples per
 * run, timed on the host clock around tb->run() (flowgraph start and stop included,
 * as a user sees them). Before timing, the pattern goes once through a fresh block
 * into a vector sink and is checked.
 */
void measure_flowgraph(row& r,
                       const std::string& device,
                       const std::vector<float>& pattern,
                       std::size_t items,
                       int repeats)
{
    {
        auto tb = gr::make_top_block("phase_unwrap_check");
        auto source = gr::blocks::vector_source_f::make(pattern, false);
        auto unwrap = phase_unwrap_ff::make(1, period, device);
        auto sink = gr::blocks::vector_sink_f::make(1, int(pattern.size()));
        tb->connect(source, 0, unwrap, 0);
        tb->connect(unwrap, 0, sink, 0);
        tb->run();
        const auto out = sink->data();
        if (out.size() != pattern.size()) {
            r.status = row_status::failed;
            r.note = "block produced " + std::to_string(out.size()) + " of " +
                     std::to_string(pattern.size()) + " samples";
        } else {
            check_unwrap(r, pattern.data(), out.data(), out.size());
        }
    }

    // A fresh flowgraph for every run, built outside the timed region, as a user runs
    // one: GNU Radio 3.10.5 applies set_min_output_buffer only to a block's first run.
    auto build = [&] {
        auto tb = gr::make_top_block("phase_unwrap_bench");
        auto source = gnuradio::make_block_sptr<pattern_source>(
            std::vector<std::vector<unsigned char>>{ pattern_source::bytes_of(pattern) },
            sizeof(float),
            items);
        auto unwrap = phase_unwrap_ff::make(1, period, device);
        // As the block's docs ask of a high-rate flowgraph: room for two batches
        // upstream.
        source->set_min_output_buffer(2 * default_batch_samples);
        auto sink = gr::blocks::null_sink::make(sizeof(float));
        tb->connect(source, 0, unwrap, 0);
        tb->connect(unwrap, 0, sink, 0);
        return tb;
    };
    std::vector<gr::top_block_sptr> runs;
    for (int i = 0; i < repeats; ++i)
        runs.push_back(build());
    build()->run(); // warm-up: threads, the CUDA context, first launches
    std::size_t next = 0;

    r.clock = "wall";
    r.samples = double(items);
    r.bytes = 8.0 * items;
    r.time = time_host(0, repeats, [&] { runs.at(next++)->run(); });
}

//! What the engine rows share: the input, its size and where the output goes.
struct engine_rows_context {
    std::size_t n;
    std::size_t bytes;
    int repeats;
    const std::vector<float>& x;
    std::vector<float>& out;
};

void measure_copy_floors(section_report& report, const engine_rows_context& c)
{
    const double n = double(c.n);
    measure_round_trip_floors(report, c.bytes, n, c.repeats);
    report.measure(row_concurrent, [&](row& r) {
        r = floor_h2d_d2h_concurrent_pinned(c.bytes, n, c.repeats);
    });
}

void measure_engine_device_buffers(row& r,
                                   const engine_rows_context& c,
                                   const bench_device& device)
{
    const std::size_t n = c.n;
    auto engine = make_engine(device.device_string);
    core::device_buffer<float> d_in(n);
    core::device_buffer<float> d_out(n);
    core::cuda_stream stream;
    // Everything on the one non-blocking stream: it does not order itself after the
    // legacy default stream that cudaMemcpy and cudaMemset would use.
    CUDADSP_CUDA(cudaMemcpyAsync(
        d_in.get(), c.x.data(), c.bytes, cudaMemcpyHostToDevice, stream.get()));
    // All-ones bytes are a NaN in float32: an unwritten sample fails the check.
    CUDADSP_CUDA(cudaMemsetAsync(d_out.get(), 0xff, c.bytes, stream.get()));
    engine->unwrap_device(d_in.get(), d_out.get(), n, stream.get());
    CUDADSP_CUDA(cudaMemcpyAsync(
        c.out.data(), d_out.get(), c.bytes, cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    check_unwrap(r, c.x.data(), c.out.data(), n);

    r.clock = "events";
    r.samples = double(n);
    r.bytes = 2.0 * c.bytes;
    r.time = time_cuda(stream.get(), 2, c.repeats, [&] {
        engine->unwrap_device(d_in.get(), d_out.get(), n, stream.get());
    });
}

//! unwrap() with host pointers returns once the output is in host memory.
void measure_engine_host_path(row& r,
                              const engine_rows_context& c,
                              const bench_device& device,
                              const float* in,
                              float* host_out)
{
    const std::size_t n = c.n;
    auto engine = make_engine(device.device_string);
    poison(host_out, n);
    engine->unwrap(in, host_out, n);
    check_unwrap(r, c.x.data(), host_out, n);

    r.clock = "wall";
    r.samples = double(n);
    r.bytes = 2.0 * c.bytes;
    r.time = time_host(1, c.repeats, [&] { engine->unwrap(in, host_out, n); });
}

void measure_cuda_rows(section_report& report,
                       const engine_rows_context& c,
                       const bench_device& device)
{
    warn_if_cache_resident(section_name, c.bytes, device);

    progress(section_name, "copy floors");
    measure_copy_floors(report, c);

    progress(section_name, row_device);
    report.measure(row_device,
                   [&](row& r) { measure_engine_device_buffers(r, c, device); });

    progress(section_name, row_pinned);
    report.measure(row_pinned, [&](row& r) {
        core::pinned_buffer<float> in(c.n);
        core::pinned_buffer<float> pinned_out(c.n);
        std::copy(c.x.begin(), c.x.end(), in.get());
        measure_engine_host_path(r, c, device, in.get(), pinned_out.get());
    });

    progress(section_name, row_pageable);
    report.measure(row_pageable, [&](row& r) {
        measure_engine_host_path(r, c, device, c.x.data(), c.out.data());
    });
}

void skip_cuda_rows(section_report& report, const bench_device& device)
{
    progress(section_name, "CUDA rows skipped (" + device.skip_reason + ")");
    for (const auto& name : { row_d2d,
                              row_h2d,
                              row_d2h,
                              row_copies,
                              row_concurrent,
                              row_device,
                              row_pinned,
                              row_pageable })
        report.skip(name, device.skip_reason);
}

void measure_cpu_engine(row& r, const engine_rows_context& c, int slow_repeats)
{
    const std::size_t n = c.n;
    auto engine = make_engine("cpu");
    poison(c.out.data(), n);
    engine->unwrap(c.x.data(), c.out.data(), n);
    check_unwrap(r, c.x.data(), c.out.data(), n);

    r.clock = "wall";
    r.samples = double(n);
    r.bytes = 2.0 * c.bytes;
    r.time =
        time_host(0, slow_repeats, [&] { engine->unwrap(c.x.data(), c.out.data(), n); });
}

void add_ratios_and_targets(section_report& report)
{
    report.ratio_to(row_device, row_d2d, "d2d copy");
    report.target_max_ratio(row_device, "x d2d copy", target_device_x_d2d);
    for (const auto& name : { row_pinned, row_pageable, row_flowgraph_cuda }) {
        report.ratio_to(name, row_copies, "pinned H2D+D2H");
        report.ratio_to(name, row_concurrent, "pinned H2D||D2H");
    }
    report.target_max_ratio(row_pinned, "x pinned H2D+D2H", target_pinned_x_copies);
    report.target_min_msamples(row_flowgraph_cuda, target_flowgraph_msamples);
    // The flowgraph's cost over the bare engine: scheduler, buffers, the source.
    report.ratio_to(row_flowgraph_cpu, row_cpu, "cpu engine");
    for (const auto& name : { row_device, row_pinned, row_pageable })
        report.speedup_over(name, row_cpu, "speed-up vs cpu");
    report.speedup_over(row_flowgraph_cuda, row_flowgraph_cpu, "speed-up vs cpu");
}

void run_phase_unwrap(const bench_options& options,
                      const bench_device& device,
                      section_report& report)
{
    const std::size_t n = options.samples_or(default_samples);
    const std::size_t flowgraph_cuda_items =
        options.flowgraph_samples_or(default_flowgraph_samples);
    const std::size_t flowgraph_cpu_items =
        std::min(flowgraph_cuda_items, cpu_flowgraph_samples_max);
    const int repeats = options.repeats;
    const int slow_repeats = std::min(repeats, slow_repeats_max);

    report.add_parameter("samples", std::to_string(n));
    report.add_parameter("repeats", std::to_string(repeats));
    report.add_parameter("cpu_repeats", std::to_string(slow_repeats));
    report.add_parameter("flowgraph_samples_cuda", std::to_string(flowgraph_cuda_items));
    report.add_parameter("flowgraph_samples_cpu", std::to_string(flowgraph_cpu_items));
    report.add_parameter("input",
                         "wrapped random walk, N(0, 0.8 rad) steps, seed " +
                             std::to_string(input_seed));

    progress(section_name,
             "generating " + std::to_string(n) + " wrapped random-walk samples");
    const std::vector<float> x = wrapped_random_walk(n, input_seed);
    const std::vector<float> pattern = wrapped_random_walk(pattern_samples, pattern_seed);
    std::vector<float> out(n);
    const engine_rows_context context{ n, n * sizeof(float), repeats, x, out };

    if (device.cuda)
        measure_cuda_rows(report, context, device);
    else
        skip_cuda_rows(report, device);

    progress(section_name, row_cpu);
    report.measure(row_cpu,
                   [&](row& r) { measure_cpu_engine(r, context, slow_repeats); });

    if (device.cuda) {
        progress(section_name, row_flowgraph_cuda);
        report.measure(row_flowgraph_cuda, [&](row& r) {
            measure_flowgraph(
                r, device.device_string, pattern, flowgraph_cuda_items, slow_repeats);
        });
    } else {
        report.skip(row_flowgraph_cuda, device.skip_reason);
    }
    progress(section_name, row_flowgraph_cpu);
    report.measure(row_flowgraph_cpu, [&](row& r) {
        measure_flowgraph(r, "cpu", pattern, flowgraph_cpu_items, slow_repeats);
    });

    add_ratios_and_targets(report);
}

} // namespace

CUDADSP_BENCH_SECTION(phase_unwrap,
                      "phase_unwrap",
                      "phase unwrapper: CUDA engine (device, pinned, pageable buffers), "
                      "CPU engine and the phase_unwrap_ff block in a flowgraph, against "
                      "d2d and pinned H2D+D2H copies of the same bytes",
                      run_phase_unwrap);

} // namespace bench
} // namespace cudadsp
} // namespace gr
