/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Section polarimetric: the polarimetric product engine on the full antenna turn of
// Denham et al. 2017 (2242 gates x 12960 pulses x 2 polarisations, 36 pulses per
// radial, 360 radials), from device buffers (simultaneous and alternating mode, and
// with the regression and GMAP clutter filters), from pinned host buffers (with and
// without the filters) and pageable ones, on the CPU backend, and the
// polarimetric_products_cf block in a flowgraph, next to the copy floors of the same
// bytes. The engine reads 16 bytes per gate and pulse (an H and a V complex float32)
// and writes 9 floats per gate and radial (1/16 of what it reads at 36 pulses per
// radial): device-resident it is bound by reading the input, with host buffers by the
// upload of the input. A clutter filter reads every gate's pulses a second time (from
// L2) and adds float64 arithmetic per pulse; the filter rows filter every gate.

#include "bench_harness.h"
#include "bench_polarimetric_support.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <gnuradio/cudadsp/polarimetric_products_cf.h>
#include <gnuradio/gr_complex.h>
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

run_sizes make_run_sizes(const bench_options& options)
{
    run_sizes s;
    s.ngates = turn_gates;
    s.spr = s.ngates * turn_pulses_per_radial;
    s.nradials = std::max<std::size_t>(1, options.samples_or(default_samples) / s.spr);
    s.n = s.nradials * s.spr;
    s.input_bytes = s.n * input_bytes_per_sample;
    s.per_product = s.nradials * s.ngates;
    s.product_values = product_count * s.per_product;
    s.product_bytes = s.product_values * sizeof(float);
    s.flowgraph_cuda_radials = std::max<std::size_t>(
        1,
        options.flowgraph_samples ? options.flowgraph_samples / s.spr
                                  : default_flowgraph_radials);
    s.flowgraph_cpu_radials =
        std::min(s.flowgraph_cuda_radials, cpu_flowgraph_radials_max);
    s.repeats = options.repeats;
    s.slow_repeats = std::min(s.repeats, slow_repeats_max);
    return s;
}

void add_parameters(section_report& report, const run_sizes& s)
{
    report.add_parameter("gates", std::to_string(s.ngates));
    report.add_parameter("pulses", std::to_string(s.nradials * turn_pulses_per_radial));
    report.add_parameter("radials", std::to_string(s.nradials));
    report.add_parameter("pulses_per_radial", std::to_string(turn_pulses_per_radial));
    report.add_parameter("samples", std::to_string(s.n));
    report.add_parameter("input_bytes", std::to_string(s.input_bytes));
    report.add_parameter("product_bytes", std::to_string(s.product_bytes));
    report.add_parameter("repeats", std::to_string(s.repeats));
    report.add_parameter("cpu_repeats", std::to_string(s.slow_repeats));
    report.add_parameter(
        "flowgraph_pulses_cuda",
        std::to_string(s.flowgraph_cuda_radials * turn_pulses_per_radial));
    report.add_parameter(
        "flowgraph_pulses_cpu",
        std::to_string(s.flowgraph_cpu_radials * turn_pulses_per_radial));
    report.add_parameter(
        "input", "AR(1) echo + noise, SNR -5..30 dB, seed " + std::to_string(input_seed));
}

turn_input make_turn_input(const run_sizes& s, const bench_device& device)
{
    turn_input in;
    std::complex<float>* fill_h;
    std::complex<float>* fill_v;
    if (device.cuda) {
        in.pinned_h = core::pinned_buffer<std::complex<float>>(s.n);
        in.pinned_v = core::pinned_buffer<std::complex<float>>(s.n);
        fill_h = in.pinned_h.get();
        fill_v = in.pinned_v.get();
    } else {
        in.pageable_h.resize(s.n);
        in.pageable_v.resize(s.n);
        fill_h = in.pageable_h.data();
        fill_v = in.pageable_v.data();
    }
    progress(section_name,
             "generating the turn: " + std::to_string(s.nradials) + " radials x " +
                 std::to_string(turn_pulses_per_radial) + " pulses x " +
                 std::to_string(s.ngates) + " gates x 2 (" + megabytes(s.input_bytes) +
                 ")");
    turn_generator(s.ngates, input_seed).fill(s.nradials, fill_h, fill_v);
    in.h = fill_h;
    in.v = fill_v;
    return in;
}

//! The radials checked against the reference: spread over the turn, the first and the
//! last included.
std::vector<std::size_t> spread_check_radials(std::size_t nradials)
{
    std::vector<std::size_t> check_radials;
    for (std::size_t k = 0; k < check_radial_count; ++k) {
        const std::size_t radial =
            k * (nradials - 1) / std::max<std::size_t>(1, check_radial_count - 1);
        if (check_radials.empty() || check_radials.back() != radial)
            check_radials.push_back(radial);
    }
    return check_radials;
}

//! \p check_radials and the first \p pattern_n radials (the flowgraphs' pattern).
std::vector<std::size_t> with_pattern_radials(std::vector<std::size_t> check_radials,
                                              std::size_t pattern_n)
{
    for (std::size_t radial = 0; radial < pattern_n; ++radial)
        if (std::find(check_radials.begin(), check_radials.end(), radial) ==
            check_radials.end())
            check_radials.push_back(radial);
    return check_radials;
}

void measure_copy_floors(section_report& report, const run_sizes& s)
{
    report.measure(row_d2d, [&](row& r) {
        r = floor_d2d_copy(s.input_bytes, double(s.n), s.repeats);
        r.note = "input, " + megabytes(s.input_bytes) + "; read + write counted";
    });
    report.measure(row_h2d, [&](row& r) {
        r = floor_h2d_pinned(s.input_bytes, double(s.n), s.repeats);
        r.note = "input, " + megabytes(s.input_bytes);
    });
    report.measure(row_d2h, [&](row& r) {
        r = floor_d2h_pinned(s.product_bytes, double(s.n), s.repeats);
        r.note = "products, " + megabytes(s.product_bytes);
    });
    report.measure(row_concurrent, [&](row& r) {
        r = floor_h2d_d2h_concurrent_pinned(
            s.input_bytes, s.product_bytes, double(s.n), s.repeats);
        r.note = "input up, products down";
    });
}

/*!
 * Device-resident: the kernels alone, inputs and products in device memory.
 * \p read_bytes: the input bytes the mode's products need.
 */
void measure_engine_device_buffers(row& r,
                                   const engine_rows_context& c,
                                   const core::polarimetric_config& config,
                                   const reference_products& ref,
                                   double read_bytes)
{
    const run_sizes& s = c.s;
    const std::size_t n = s.n;
    auto engine = core::polarimetric_processor::make(config);
    core::device_buffer<std::complex<float>> d_h(n);
    core::device_buffer<std::complex<float>> d_v(n);
    core::device_buffer<float> d_products(s.product_values);
    const auto d_ptrs = product_pointers(d_products.get(), s.per_product);
    core::cuda_stream stream;
    // Everything on the one non-blocking stream: it does not order itself after the
    // legacy default stream that cudaMemcpy and cudaMemset would use.
    CUDADSP_CUDA(cudaMemcpyAsync(d_h.get(),
                                 c.input.h,
                                 n * sizeof(std::complex<float>),
                                 cudaMemcpyHostToDevice,
                                 stream.get()));
    CUDADSP_CUDA(cudaMemcpyAsync(d_v.get(),
                                 c.input.v,
                                 n * sizeof(std::complex<float>),
                                 cudaMemcpyHostToDevice,
                                 stream.get()));
    CUDADSP_CUDA(
        cudaMemsetAsync(d_products.get(), poison_byte, s.product_bytes, stream.get()));
    engine->process_device(d_h.get(), d_v.get(), s.nradials, d_ptrs.data(), stream.get());
    CUDADSP_CUDA(cudaMemcpyAsync(c.products.data(),
                                 d_products.get(),
                                 s.product_bytes,
                                 cudaMemcpyDeviceToHost,
                                 stream.get()));
    stream.synchronize();
    check_products(r, ref, config, c.products.data(), s.nradials);

    r.clock = "events";
    r.samples = double(n);
    r.bytes = read_bytes + double(s.product_bytes);
    r.time = time_cuda(stream.get(), 2, s.repeats, [&] {
        engine->process_device(
            d_h.get(), d_v.get(), s.nradials, d_ptrs.data(), stream.get());
    });
}

//! process() with host pointers returns once the products are in host memory.
void measure_engine_host_path(row& r,
                              const engine_rows_context& c,
                              const core::polarimetric_config& config,
                              const reference_products& ref,
                              const std::complex<float>* in_h,
                              const std::complex<float>* in_v,
                              float* out)
{
    const run_sizes& s = c.s;
    auto engine = core::polarimetric_processor::make(config);
    const auto out_ptrs = product_pointers(out, s.per_product);
    std::memset(out, poison_byte, s.product_bytes);
    engine->process(in_h, in_v, s.nradials, out_ptrs.data());
    check_products(r, ref, config, out, s.nradials);

    r.clock = "wall";
    r.samples = double(s.n);
    r.bytes = double(s.input_bytes + s.product_bytes);
    r.time = time_host(
        1, s.repeats, [&] { engine->process(in_h, in_v, s.nradials, out_ptrs.data()); });
}

void measure_cuda_rows(section_report& report,
                       const engine_rows_context& c,
                       const bench_device& device)
{
    const run_sizes& s = c.s;
    warn_if_cache_resident(section_name, s.input_bytes, device);

    progress(section_name, "copy floors");
    measure_copy_floors(report, s);

    progress(section_name, row_device);
    report.measure(row_device, [&](row& r) {
        measure_engine_device_buffers(
            r, c, c.simultaneous, c.reference, double(s.input_bytes));
    });
    progress(section_name, row_device_alternating);
    report.measure(row_device_alternating, [&](row& r) {
        // The products use the co-polar input only; GB/s counts what they need.
        measure_engine_device_buffers(
            r, c, c.alternating, c.reference_alternating, double(s.input_bytes) / 2);
        if (r.status == row_status::ok)
            r.note = "GB/s counts the co-polar input (the products' input) only";
    });

    progress(section_name, row_pinned);
    report.measure(row_pinned, [&](row& r) {
        core::pinned_buffer<float> out(s.product_values);
        measure_engine_host_path(
            r, c, c.simultaneous, c.reference, c.input.h, c.input.v, out.get());
    });

    progress(section_name, row_pageable);
    report.measure(row_pageable, [&](row& r) {
        const std::vector<std::complex<float>> in_h(c.input.h, c.input.h + s.n);
        const std::vector<std::complex<float>> in_v(c.input.v, c.input.v + s.n);
        measure_engine_host_path(r,
                                 c,
                                 c.simultaneous,
                                 c.reference,
                                 in_h.data(),
                                 in_v.data(),
                                 c.products.data());
    });

    const struct {
        const std::string& device_row;
        const std::string& pinned_row;
        const core::polarimetric_config& config;
        const reference_products& ref;
    } filters[] = {
        { row_device_regression,
          row_pinned_regression,
          c.regression,
          c.reference_regression },
        { row_device_gmap, row_pinned_gmap, c.gmap, c.reference_gmap },
    };
    for (const auto& f : filters) {
        progress(section_name, f.device_row);
        report.measure(f.device_row, [&](row& r) {
            measure_engine_device_buffers(r, c, f.config, f.ref, double(s.input_bytes));
        });
        progress(section_name, f.pinned_row);
        report.measure(f.pinned_row, [&](row& r) {
            core::pinned_buffer<float> out(s.product_values);
            measure_engine_host_path(
                r, c, f.config, f.ref, c.input.h, c.input.v, out.get());
        });
    }
}

void skip_cuda_rows(section_report& report, const bench_device& device)
{
    progress(section_name, "CUDA rows skipped (" + device.skip_reason + ")");
    for (const auto& name : { row_d2d,
                              row_h2d,
                              row_d2h,
                              row_concurrent,
                              row_device,
                              row_device_alternating,
                              row_pinned,
                              row_pageable,
                              row_device_regression,
                              row_pinned_regression,
                              row_device_gmap,
                              row_pinned_gmap })
        report.skip(name, device.skip_reason);
}

void measure_cpu_engine(row& r, const engine_rows_context& c)
{
    const run_sizes& s = c.s;
    const auto product_ptrs = product_pointers(c.products.data(), s.per_product);
    auto engine = core::polarimetric_processor::make(
        make_config(s.ngates, c.simultaneous.mode, "cpu"));
    std::memset(c.products.data(), poison_byte, s.product_bytes);
    engine->process(c.input.h, c.input.v, s.nradials, product_ptrs.data());
    check_products(r, c.reference, c.simultaneous, c.products.data(), s.nradials);

    r.clock = "wall";
    r.samples = double(s.n);
    r.bytes = double(s.input_bytes + s.product_bytes);
    r.time = time_host(0, s.slow_repeats, [&] {
        engine->process(c.input.h, c.input.v, s.nradials, product_ptrs.data());
    });
}

void add_ratios_and_targets(section_report& report, std::size_t ngates)
{
    for (const auto& name :
         { row_device, row_device_alternating, row_device_regression, row_device_gmap }) {
        report.ratio_to(name, row_d2d, "d2d copy");
        report.bandwidth_fraction_of(name, row_d2d, column_bandwidth);
    }
    report.target_min_ratio(
        row_device, column_bandwidth, target_device_bandwidth_fraction);
    for (const auto& name : { row_pinned,
                              row_pageable,
                              row_flowgraph_cuda,
                              row_pinned_regression,
                              row_pinned_gmap }) {
        report.ratio_to(name, row_h2d, "pinned H2D");
        report.ratio_to(name, row_concurrent, "pinned H2D||D2H");
    }
    report.target_max_ratio(row_pinned, "x pinned H2D", target_pinned_x_h2d);
    report.target_max_ratio(
        row_pinned_regression, "x pinned H2D", target_pinned_regression_x_h2d);
    report.target_min_rate(
        row_flowgraph_cuda, double(ngates), target_flowgraph_pulses_per_s, "pulses");
    // The flowgraph's cost over the bare engine: scheduler, buffers, the source.
    report.ratio_to(row_flowgraph_cpu, row_cpu, "cpu engine");
    for (const auto& name :
         { row_device, row_device_alternating, row_pinned, row_pageable })
        report.speedup_over(name, row_cpu, "speed-up vs cpu");
    report.speedup_over(row_flowgraph_cuda, row_flowgraph_cpu, "speed-up vs cpu");
}

//! The paper's times for the turn, next to the pinned row's time per turn.
std::string paper_comparison(const section_report& report)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(2)
       << "paper (Denham et al. 2017, the same turn, 4x4 blocks, pinned memory): "
       << paper_best_ms << " to " << paper_worst_ms
       << " ms per turn including transfers (GTX 970 to GTX 570)";
    for (const auto& r : report.rows()) {
        if (r.name == row_pinned && r.status == row_status::ok && r.samples > 0) {
            const double turn_ms = r.time.median_ms * double(default_samples) / r.samples;
            os << "; cuda engine, pinned host buffers: " << turn_ms << " ms per turn, "
               << std::setprecision(1) << paper_best_ms / turn_ms
               << "x faster than their best";
        }
    }
    return os.str();
}

void add_notes(section_report& report,
               std::size_t ngates,
               const std::vector<std::size_t>& check_radials,
               std::size_t pattern_n)
{
    report.add_note(
        "a sample is one range gate of one pulse, H and V (2 complex float32, " +
        std::to_string(input_bytes_per_sample) + " bytes); a radial's " +
        std::to_string(product_count) +
        " products are float32 per gate; pulses/s = Msamples/s * 1e6 / " +
        std::to_string(ngates));
    report.add_note("'" + column_bandwidth +
                    "': (input bytes read + product bytes written) per second over the "
                    "d2d copy's (bytes read + bytes written) per second; 'x d2d copy' "
                    "compares times: the kernel's over a copy of the input bytes");
    std::string radial_list;
    for (const auto radial : check_radials)
        radial_list += (radial_list.empty() ? "" : ",") + std::to_string(radial);
    report.add_note("check: the products of radials " + radial_list +
                    " (flowgraphs: radials 0.." + std::to_string(pattern_n - 1) +
                    ") against the cpu engine run radial by radial; every product of "
                    "the turn checked for being written");
    report.add_note(paper_comparison(report));
}

void run_polarimetric(const bench_options& options,
                      const bench_device& device,
                      section_report& report)
{
    const run_sizes s = make_run_sizes(options);
    const auto simultaneous = make_config(
        s.ngates, core::polarimetric_mode::simultaneous, device.device_string);
    const auto alternating =
        make_config(s.ngates, core::polarimetric_mode::alternating, device.device_string);
    add_parameters(report, s);

    const turn_input input = make_turn_input(s, device);
    const std::vector<std::size_t> check_radials = spread_check_radials(s.nradials);
    const std::size_t pattern_n = std::min(pattern_radials, s.nradials);

    progress(section_name, "reference products (cpu engine, radial by radial)");
    const reference_products reference(
        simultaneous, input.h, input.v, with_pattern_radials(check_radials, pattern_n));
    const reference_products reference_alternating(
        alternating, input.h, input.v, check_radials);
    const auto regression = make_filter_config(
        s.ngates, core::clutter_filter_kind::regression, device.device_string);
    const auto gmap = make_filter_config(
        s.ngates, core::clutter_filter_kind::gmap, device.device_string);
    const reference_products reference_regression(
        regression, input.h, input.v, check_radials);
    const reference_products reference_gmap(gmap, input.h, input.v, check_radials);
    std::ostringstream censored;
    censored.precision(3);
    censored << 100.0 * reference.censored_fraction() << "%";
    report.add_parameter("censored", censored.str());

    std::vector<float> products(s.product_values);
    const engine_rows_context context{ s,
                                       input,
                                       simultaneous,
                                       alternating,
                                       reference,
                                       reference_alternating,
                                       regression,
                                       gmap,
                                       reference_regression,
                                       reference_gmap,
                                       products };

    if (device.cuda)
        measure_cuda_rows(report, context, device);
    else
        skip_cuda_rows(report, device);

    progress(section_name, row_cpu);
    report.measure(row_cpu, [&](row& r) { measure_cpu_engine(r, context); });

    measure_flowgraph_rows(report, s, context, pattern_n, device);
    add_ratios_and_targets(report, s.ngates);
    add_notes(report, s.ngates, check_radials, pattern_n);
}

} // namespace
} // namespace polarimetric_bench

CUDADSP_BENCH_SECTION(
    polarimetric,
    "polarimetric",
    "polarimetric products on the paper's turn (2242 gates x 12960 pulses x 2 pol): "
    "CUDA engine (device buffers, simultaneous and alternating, regression and GMAP "
    "clutter filters; pinned host buffers with and without the filters, pageable "
    "host buffers), CPU engine and the polarimetric_products_cf block in a flowgraph, "
    "against d2d, pinned H2D and D2H copies of the same bytes",
    polarimetric_bench::run_polarimetric);

} // namespace bench
} // namespace cudadsp
} // namespace gr
