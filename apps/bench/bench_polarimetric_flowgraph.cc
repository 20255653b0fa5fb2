/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Section polarimetric, the flowgraph rows: the polarimetric_products_cf block between a
// pulse source that repeats the first radials of the turn and null sinks, its products
// first checked against the reference through vector sinks.

#include "bench_polarimetric_support.h"
#include "pattern_source.h"
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <gnuradio/cudadsp/polarimetric_products_cf.h>
#include <gnuradio/gr_complex.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {
namespace polarimetric_bench {

namespace {

//! The block on the engine rows' \p config, on \p device.
polarimetric_products_cf::sptr make_block(const core::polarimetric_config& config,
                                          const std::string& device)
{
    polarimetric_products_cf_config block;
    block.processing = config;
    block.processing.device = device;
    return polarimetric_products_cf::make(block);
}

/*
 * The block between a pulse source and null sinks, \p pulses pulses per run, timed on
 * the host clock around tb->run() (flowgraph start and stop included, as a user sees
 * them). Before timing, the pattern goes once through a fresh block into vector sinks
 * and is checked against the reference. \p upstream_pulses: the source's minimum
 * output buffer, in pulses.
 */
void measure_flowgraph(row& r,
                       const std::string& device,
                       const core::polarimetric_config& config,
                       const std::vector<gr_complex>& pattern_h,
                       const std::vector<gr_complex>& pattern_v,
                       const reference_products& reference,
                       std::size_t pulses,
                       int upstream_pulses,
                       int repeats)
{
    const std::size_t ngates = config.ngates;
    const std::size_t pattern_pulses = pattern_h.size() / ngates;
    const std::size_t pattern_radials_n = pattern_pulses / config.pulses_per_radial;
    {
        auto tb = gr::make_top_block("polarimetric_check");
        auto source = gnuradio::make_block_sptr<pattern_source>(
            std::vector<std::vector<unsigned char>>{
                pattern_source::bytes_of(pattern_h),
                pattern_source::bytes_of(pattern_v) },
            ngates * sizeof(gr_complex),
            pattern_pulses);
        auto block = make_block(config, device);
        tb->connect(source, 0, block, 0);
        tb->connect(source, 1, block, 1);
        std::vector<gr::blocks::vector_sink_f::sptr> sinks;
        for (int p = 0; p < product_count; ++p) {
            sinks.push_back(gr::blocks::vector_sink_f::make(int(ngates)));
            tb->connect(block, p, sinks.back(), 0);
        }
        tb->run();
        std::vector<float> products(product_count * pattern_radials_n * ngates);
        std::memset(products.data(), poison_byte, products.size() * sizeof(float));
        bool complete = true;
        for (int p = 0; p < product_count; ++p) {
            const auto data = sinks[p]->data();
            if (data.size() != pattern_radials_n * ngates) {
                complete = false;
                r.status = row_status::failed;
                r.note = std::string("block produced ") + std::to_string(data.size()) +
                         " values of " + core::product_name(p) + ", expected " +
                         std::to_string(pattern_radials_n * ngates);
                break;
            }
            std::copy(data.begin(),
                      data.end(),
                      products.begin() + std::ptrdiff_t(p * pattern_radials_n * ngates));
        }
        if (complete)
            check_products(r, reference, config, products.data(), pattern_radials_n);
    }

    // A fresh flowgraph for every run, built outside the timed region, as a user runs
    // one: GNU Radio 3.10.5 applies set_min_output_buffer only to a block's first run.
    auto build = [&](std::size_t run_pulses) {
        auto tb = gr::make_top_block("polarimetric_bench");
        auto source = gnuradio::make_block_sptr<pattern_source>(
            std::vector<std::vector<unsigned char>>{
                pattern_source::bytes_of(pattern_h),
                pattern_source::bytes_of(pattern_v) },
            ngates * sizeof(gr_complex),
            run_pulses);
        source->set_min_output_buffer(upstream_pulses);
        auto block = make_block(config, device);
        tb->connect(source, 0, block, 0);
        tb->connect(source, 1, block, 1);
        for (int p = 0; p < product_count; ++p)
            tb->connect(block, p, gr::blocks::null_sink::make(sizeof(float) * ngates), 0);
        return tb;
    };
    // Warm-up (threads, the CUDA context, first launches) on a shorter run.
    build(std::min(pulses, 16 * pattern_pulses))->run();

    // Built one at a time and released after its run: each holds large buffers.
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        auto tb = build(pulses);
        const auto begin = std::chrono::steady_clock::now();
        tb->run();
        const auto end = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(end - begin).count());
    }

    const std::size_t radials = pulses / config.pulses_per_radial;
    r.clock = "wall";
    r.samples = double(pulses * ngates);
    r.bytes = double(pulses * ngates * input_bytes_per_sample +
                     radials * ngates * product_count * sizeof(float));
    r.time = summarize(std::move(ms));
    if (r.note.empty())
        r.note =
            std::to_string(std::llround(double(pulses) / (r.time.median_ms * 1e-3))) +
            " pulses/s";
}

} // namespace

void measure_flowgraph_rows(section_report& report,
                            const run_sizes& s,
                            const engine_rows_context& c,
                            std::size_t pattern_n,
                            const bench_device& device)
{
    const std::vector<gr_complex> pattern_h(c.input.h, c.input.h + pattern_n * s.spr);
    const std::vector<gr_complex> pattern_v(c.input.v, c.input.v + pattern_n * s.spr);
    // The block's CUDA backend gathers GPU batches of radials in work(); its upstream
    // buffer must hold two of them, or it warns and launches small ones (batch_gate).
    const int upstream_pulses = polarimetric_products_cf::upstream_buffer_pulses(
        int(s.ngates), int(turn_pulses_per_radial));
    report.add_parameter("flowgraph_source_min_output_buffer",
                         std::to_string(upstream_pulses) + " pulses");
    if (device.cuda) {
        progress(section_name, row_flowgraph_cuda);
        report.measure(row_flowgraph_cuda, [&](row& r) {
            measure_flowgraph(r,
                              device.device_string,
                              c.simultaneous,
                              pattern_h,
                              pattern_v,
                              c.reference,
                              s.flowgraph_cuda_radials * turn_pulses_per_radial,
                              upstream_pulses,
                              s.slow_repeats);
        });
    } else {
        report.skip(row_flowgraph_cuda, device.skip_reason);
    }
    progress(section_name, row_flowgraph_cpu);
    report.measure(row_flowgraph_cpu, [&](row& r) {
        measure_flowgraph(r,
                          "cpu",
                          c.simultaneous,
                          pattern_h,
                          pattern_v,
                          c.reference,
                          s.flowgraph_cpu_radials * turn_pulses_per_radial,
                          upstream_pulses,
                          s.slow_repeats);
    });
}

} // namespace polarimetric_bench
} // namespace bench
} // namespace cudadsp
} // namespace gr
