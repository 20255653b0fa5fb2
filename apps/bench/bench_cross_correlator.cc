/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Section xcorr: the signal cross-correlator (frames of 4096 samples, lags resolved
// to 1/16 sample) from device buffers, from pinned and pageable host buffers and on
// the CPU backend, and the cross_correlator_cc block in a flowgraph, next to floors
// measured in the same run: a d2d copy and a pinned upload of the two inputs, and the
// bare cuFFT transforms the pipeline cannot do without (the forward transforms of the
// zero-padded x and y frames and the inverse transform of their cross-spectrum,
// batched, on device buffers). Per frame the engine reads 2 x 4096 complex samples and
// writes 12 bytes, so with host buffers it is bound by the upload, and on the device
// by the transforms.

#include "bench_harness.h"
#include "pattern_source.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/cufft_plan.h"
#include "xcorr_bench_input.h"
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/cudadsp/core/cross_correlator.h>
#include <gnuradio/cudadsp/cross_correlator_cc.h>
#include <gnuradio/gr_complex.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {

namespace {

using namespace xcorr_bench;

constexpr const char* section_name = "xcorr";

// The default interpolation and the full lag range (max_lag 0 = fft_len - 1).
constexpr std::size_t interp = 16;
constexpr std::size_t max_lag = 0;

// 16384 frames: 64M samples, 512 MiB per input, 1 GiB for the pair, several times
// the L2 of any current GPU.
constexpr std::size_t default_samples = std::size_t(1) << 26;
constexpr std::size_t default_flowgraph_samples = std::size_t(1) << 26;
// The CPU rows run fewer frames (time per sample is what is compared).
constexpr std::size_t cpu_frames_max = 1024;
constexpr std::size_t cpu_flowgraph_frames_max = 1024;
// The input is a pattern of frames repeated over the run: the pattern is generated
// (band-limited noise, fractional delays) and correlated frame by frame on the CPU
// as the reference; repeating it keeps generation short and the flowgraph source in
// the host cache.
constexpr std::size_t pattern_frames_max = 256;
// Frames of a run compared with the reference, spread over it, first and last included.
constexpr std::size_t check_frame_count = 16;
constexpr int slow_repeats_max = 3;
// The cuFFT floor runs its transforms in batches of this many frames: 64 MiB per
// padded input, enough to keep cuFFT at full throughput.
constexpr std::size_t floor_batch_frames = 512;

constexpr double target_flowgraph_msamples = 200.0;

const std::string& row_d2d = floor_row_d2d;
const std::string& row_h2d = floor_row_h2d;
const std::string row_cufft = "floor: cuFFT 2 forward + 1 inverse";
const std::string row_device = "cuda engine, device buffers";
const std::string row_pinned = "cuda engine, pinned host buffers";
const std::string row_pageable = "cuda engine, pageable host buffers";
const std::string row_cpu = "cpu engine";
const std::string row_flowgraph_cuda = "flowgraph, cuda block";
const std::string row_flowgraph_cpu = "flowgraph, cpu block";

using peak = core::cross_correlation_peak;

core::cross_correlator_config make_config(const std::string& device)
{
    core::cross_correlator_config config;
    config.fft_len = fft_len;
    config.interp = interp;
    config.max_lag = max_lag;
    config.device = device;
    return config;
}

/*
 * Reference peaks of the pattern: the CPU engine, one frame per call, so that a
 * batched or CUDA run is compared with frames correlated on their own.
 */
std::vector<peak> reference_peaks(const std::vector<gr_complex>& x,
                                  const std::vector<gr_complex>& y)
{
    auto cpu = core::cross_correlator::make(make_config("cpu"));
    const std::size_t frames = x.size() / fft_len;
    std::vector<peak> out(frames);
    for (std::size_t f = 0; f < frames; ++f)
        cpu->process(x.data() + f * fft_len, y.data() + f * fft_len, 1, &out[f]);
    return out;
}

// Outputs are poisoned with all-ones bytes (a NaN) before a checked run: a peak the
// engine did not write stays NaN.
constexpr int poison_byte = 0xff;

/*
 * Two engines whose float32 FFTs round differently may pick neighbouring points of the
 * fine grid where two are nearly equal: the lags then differ by one step of 1/interp
 * and the magnitudes by a hair. Otherwise the lags agree exactly and magnitude and
 * phase to the FFTs' rounding.
 */
bool peak_matches(const peak& p, const peak& ref, std::string& why)
{
    std::ostringstream os;
    const double step = 1.0 / double(interp);
    const double dlag = std::fabs(double(p.lag) - double(ref.lag));
    const double dmag = std::fabs(double(p.magnitude) - double(ref.magnitude));
    const double dphase =
        std::fabs(std::remainder(double(p.phase) - double(ref.phase), 2 * pi));
    const bool same_lag = dlag <= 1e-4;
    const bool near_lag = dlag <= step * 1.001;
    const double mag_tol = same_lag ? 1e-4 + 1e-4 * double(ref.magnitude) : 2e-3;
    const double phase_tol = same_lag ? 2e-3 : 5e-2;
    if (std::isnan(p.lag) || std::isnan(p.magnitude) || std::isnan(p.phase)) {
        os << "not written";
    } else if (!near_lag || dmag > mag_tol || dphase > phase_tol) {
        os << "lag " << p.lag << " mag " << p.magnitude << " phase " << p.phase
           << ", reference " << ref.lag << " " << ref.magnitude << " " << ref.phase;
    } else {
        return true;
    }
    why = os.str();
    return false;
}

/*
 * Compare \p peaks (frames [0, nframes) of a run over the repeated pattern) with the
 * reference at \p check_frames, count frames never written, and set the row's status
 * and note.
 */
void check_peaks(row& r,
                 const std::vector<peak>& reference,
                 const std::vector<std::size_t>& check_frames,
                 const peak* peaks,
                 std::size_t nframes)
{
    std::size_t mismatches = 0;
    std::size_t compared = 0;
    std::string first;
    for (const std::size_t f : check_frames) {
        if (f >= nframes)
            continue;
        ++compared;
        std::string why;
        if (!peak_matches(peaks[f], reference[f % reference.size()], why)) {
            if (!mismatches)
                first = "frame " + std::to_string(f) + ": " + why;
            ++mismatches;
        }
    }
    std::size_t unwritten = 0;
    for (std::size_t f = 0; f < nframes; ++f)
        unwritten += std::isnan(peaks[f].lag) || std::isnan(peaks[f].magnitude) ||
                     std::isnan(peaks[f].phase);
    if (compared == 0) {
        r.status = row_status::failed;
        r.note = "no checked frame in the output";
    } else if (unwritten) {
        r.status = row_status::failed;
        r.note = std::to_string(unwritten) + " of " + std::to_string(nframes) +
                 " frames were not written";
    } else if (mismatches) {
        r.status = row_status::failed;
        r.note = std::to_string(mismatches) + " of " + std::to_string(compared) +
                 " checked frames differ from the cpu engine, first " + first;
    } else {
        r.status = row_status::ok;
    }
}

std::vector<std::size_t> spread_frames(std::size_t nframes, std::size_t count)
{
    std::vector<std::size_t> frames;
    for (std::size_t k = 0; k < count; ++k) {
        const std::size_t f = k * (nframes - 1) / std::max<std::size_t>(1, count - 1);
        if (frames.empty() || frames.back() != f)
            frames.push_back(f);
    }
    return frames;
}

cross_correlator_cc::sptr make_block(const std::string& device)
{
    return cross_correlator_cc::make(
        int(fft_len), int(interp), int(max_lag), false, false, device);
}

/*
 * The block between the pattern source and null sinks, \p samples samples per input
 * per run, timed on the host clock around tb->run() (flowgraph start and stop
 * included, as a user sees them). Before timing, the pattern goes once through a
 * fresh block into vector sinks and every frame is checked against the reference.
 * \p upstream_samples: the source's minimum output buffer, in samples.
 */
void measure_flowgraph(row& r,
                       const std::string& device,
                       const std::vector<gr_complex>& pattern_x,
                       const std::vector<gr_complex>& pattern_y,
                       const std::vector<peak>& reference,
                       std::size_t samples,
                       int upstream_samples,
                       int repeats)
{
    const std::size_t pattern_n = reference.size();
    {
        auto tb = gr::make_top_block("xcorr_check");
        auto source = gnuradio::make_block_sptr<pattern_source>(
            std::vector<std::vector<unsigned char>>{
                pattern_source::bytes_of(pattern_x),
                pattern_source::bytes_of(pattern_y) },
            sizeof(gr_complex),
            pattern_x.size());
        auto block = make_block(device);
        tb->connect(source, 0, block, 0);
        tb->connect(source, 1, block, 1);
        std::vector<gr::blocks::vector_sink_f::sptr> sinks;
        for (int p = 0; p < 3; ++p) {
            sinks.push_back(gr::blocks::vector_sink_f::make());
            tb->connect(block, p, sinks.back(), 0);
        }
        tb->run();
        const auto lag = sinks[0]->data();
        const auto mag = sinks[1]->data();
        const auto phase = sinks[2]->data();
        if (lag.size() != pattern_n || mag.size() != pattern_n ||
            phase.size() != pattern_n) {
            r.status = row_status::failed;
            r.note = "block produced " + std::to_string(lag.size()) + " lags, " +
                     std::to_string(mag.size()) + " magnitudes, " +
                     std::to_string(phase.size()) + " phases, expected " +
                     std::to_string(pattern_n) + " each";
        } else {
            std::vector<peak> peaks(pattern_n);
            for (std::size_t f = 0; f < pattern_n; ++f)
                peaks[f] = { lag[f], mag[f], phase[f] };
            std::vector<std::size_t> all(pattern_n);
            for (std::size_t f = 0; f < pattern_n; ++f)
                all[f] = f;
            check_peaks(r, reference, all, peaks.data(), pattern_n);
        }
    }

    // A fresh flowgraph for every run, built outside the timed region, as a user runs
    // one: GNU Radio 3.10.5 applies set_min_output_buffer only to a block's first run.
    auto build = [&](std::size_t run_samples) {
        auto tb = gr::make_top_block("xcorr_bench");
        auto source = gnuradio::make_block_sptr<pattern_source>(
            std::vector<std::vector<unsigned char>>{
                pattern_source::bytes_of(pattern_x),
                pattern_source::bytes_of(pattern_y) },
            sizeof(gr_complex),
            run_samples);
        source->set_min_output_buffer(upstream_samples);
        auto block = make_block(device);
        tb->connect(source, 0, block, 0);
        tb->connect(source, 1, block, 1);
        for (int p = 0; p < 3; ++p)
            tb->connect(block, p, gr::blocks::null_sink::make(sizeof(float)), 0);
        return tb;
    };
    // Warm-up (threads, the CUDA context and cuFFT plans, first launches).
    build(std::min(samples, 4 * pattern_x.size()))->run();

    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        auto tb = build(samples);
        const auto begin = std::chrono::steady_clock::now();
        tb->run();
        const auto end = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(end - begin).count());
    }

    r.clock = "wall";
    r.samples = double(samples);
    r.bytes = double(2 * samples * sizeof(gr_complex) + samples / fft_len * sizeof(peak));
    r.time = summarize(std::move(ms));
    if (r.note.empty()) {
        std::ostringstream os;
        os.precision(4);
        os << double(samples) / fft_len / (r.time.median_ms * 1e-3) / 1e3 << " kframes/s";
        r.note = os.str();
    }
}

std::string mebibytes(double bytes)
{
    std::ostringstream os;
    os.precision(4);
    os << bytes / double(1 << 20) << " MiB";
    return os.str();
}

//! The run's sizes, from the options.
struct run_sizes {
    core::cross_correlator_config config;
    std::size_t transform_len;
    std::size_t nframes;
    std::size_t n; // samples per input
    std::size_t input_bytes;
    std::size_t peak_bytes;
    std::size_t cpu_frames;
    std::size_t pattern_n;
    int repeats;
    int slow_repeats;
    std::size_t flowgraph_cuda_frames;
    std::size_t flowgraph_cpu_frames;
};

run_sizes make_run_sizes(const bench_options& options, const bench_device& device)
{
    run_sizes s;
    s.config = make_config(device.device_string);
    s.transform_len = s.config.transform_len();
    s.nframes = std::max<std::size_t>(1, options.samples_or(default_samples) / fft_len);
    s.n = s.nframes * fft_len;
    s.input_bytes = 2 * s.n * sizeof(gr_complex);
    s.peak_bytes = s.nframes * sizeof(peak);
    s.cpu_frames = std::min(s.nframes, cpu_frames_max);
    s.pattern_n = std::min(s.nframes, pattern_frames_max);
    s.repeats = options.repeats;
    s.slow_repeats = std::min(s.repeats, slow_repeats_max);
    s.flowgraph_cuda_frames = std::max<std::size_t>(
        1, options.flowgraph_samples_or(default_flowgraph_samples) / fft_len);
    s.flowgraph_cpu_frames = std::min(s.flowgraph_cuda_frames, cpu_flowgraph_frames_max);
    return s;
}

void add_parameters(section_report& report, const run_sizes& s)
{
    report.add_parameter("fft_len", std::to_string(fft_len));
    report.add_parameter("transform_len", std::to_string(s.transform_len));
    report.add_parameter("interp", std::to_string(interp));
    report.add_parameter("max_lag", std::to_string(s.config.effective_max_lag()));
    report.add_parameter("frames", std::to_string(s.nframes));
    report.add_parameter("samples_per_input", std::to_string(s.n));
    report.add_parameter("input_bytes", std::to_string(s.input_bytes));
    report.add_parameter("repeats", std::to_string(s.repeats));
    report.add_parameter("cpu_frames", std::to_string(s.cpu_frames));
    report.add_parameter("cpu_repeats", std::to_string(s.slow_repeats));
    report.add_parameter("flowgraph_frames_cuda",
                         std::to_string(s.flowgraph_cuda_frames));
    report.add_parameter("flowgraph_frames_cpu", std::to_string(s.flowgraph_cpu_frames));
    std::ostringstream os;
    os << "band-limited noise |f| < " << bandwidth_cycles << ", x = y delayed by up to +-"
       << max_delay_samples << " samples and rotated, SNR " << snr_db << " dB, "
       << s.pattern_n << " frames repeated, seed " << input_seed;
    report.add_parameter("input", os.str());
}

//! The pattern of frames the run repeats, and its reference peaks.
struct input_pattern {
    std::vector<gr_complex> x, y;
    std::vector<peak> reference;
};

input_pattern make_input_pattern(section_report& report, std::size_t pattern_n)
{
    progress(section_name,
             "pattern: " + std::to_string(pattern_n) + " frames of " +
                 std::to_string(fft_len) +
                 " samples, and its reference (cpu engine, "
                 "frame by frame)");
    input_pattern pattern;
    std::vector<double> delays;
    make_pattern(pattern_n, pattern.x, pattern.y, delays);
    pattern.reference = reference_peaks(pattern.x, pattern.y);
    // A sanity line on the input itself: the reference finds the planted delays.
    double worst = 0;
    for (std::size_t f = 0; f < pattern_n; ++f)
        worst = std::max(worst, std::fabs(double(pattern.reference[f].lag) - delays[f]));
    std::ostringstream os;
    os.precision(3);
    os << worst << " samples";
    report.add_parameter("reference_worst_lag_error", os.str());
    return pattern;
}

/*!
 * The run's input, in pinned memory where a device is there (the pinned rows use it
 * as is); the CPU rows read the first frames of the same buffers. Without a device
 * only the CPU rows' frames are filled, in pageable memory.
 */
struct run_input {
    core::pinned_buffer<gr_complex> pinned_x, pinned_y;
    std::vector<gr_complex> pageable_x, pageable_y;
    const gr_complex* x = nullptr;
    const gr_complex* y = nullptr;
};

run_input make_run_input(const input_pattern& pattern,
                         const run_sizes& s,
                         const bench_device& device)
{
    run_input input;
    const std::size_t fill_frames = device.cuda ? s.nframes : s.cpu_frames;
    gr_complex* fill_x;
    gr_complex* fill_y;
    if (device.cuda) {
        input.pinned_x = core::pinned_buffer<gr_complex>(s.n);
        input.pinned_y = core::pinned_buffer<gr_complex>(s.n);
        fill_x = input.pinned_x.get();
        fill_y = input.pinned_y.get();
    } else {
        input.pageable_x.resize(fill_frames * fft_len);
        input.pageable_y.resize(fill_frames * fft_len);
        fill_x = input.pageable_x.data();
        fill_y = input.pageable_y.data();
    }
    tile(pattern.x, fill_frames, fill_x);
    tile(pattern.y, fill_frames, fill_y);
    input.x = fill_x;
    input.y = fill_y;
    return input;
}

/*!
 * The cuFFT floor: in place on two padded buffers of a batch of frames, X = FFT(x),
 * Y = FFT(y), then the inverse of X; the padding, the spectrum product and the peak
 * search are the engine's own work on top.
 */
void measure_cufft_floor(row& r, const run_sizes& s)
{
    const std::size_t nframes = s.nframes;
    const std::size_t transform_len = s.transform_len;
    const std::size_t batch = std::min(nframes, floor_batch_frames);
    core::device_buffer<cufftComplex> d_a(batch * transform_len);
    core::device_buffer<cufftComplex> d_b(batch * transform_len);
    core::cuda_stream stream;
    CUDADSP_CUDA(
        cudaMemsetAsync(d_a.get(), 0, d_a.size() * sizeof(cufftComplex), stream.get()));
    CUDADSP_CUDA(
        cudaMemsetAsync(d_b.get(), 0, d_b.size() * sizeof(cufftComplex), stream.get()));
    core::cufft_plan full(int(transform_len), CUFFT_C2C, int(batch));
    full.set_stream(stream.get());
    const std::size_t tail = nframes % batch;
    core::cufft_plan last;
    if (tail) {
        last = core::cufft_plan(int(transform_len), CUFFT_C2C, int(tail));
        last.set_stream(stream.get());
    }
    auto transforms = [](const core::cufft_plan& plan, cufftComplex* a, cufftComplex* b) {
        CUDADSP_CUFFT(cufftExecC2C(plan.get(), a, a, CUFFT_FORWARD));
        CUDADSP_CUFFT(cufftExecC2C(plan.get(), b, b, CUFFT_FORWARD));
        CUDADSP_CUFFT(cufftExecC2C(plan.get(), a, a, CUFFT_INVERSE));
    };
    r.clock = "events";
    r.samples = double(s.n);
    // Each transform reads and writes its padded buffer once at least.
    r.bytes = 3.0 * 2.0 * double(nframes * transform_len * sizeof(cufftComplex));
    r.time = time_cuda(stream.get(), 2, s.repeats, [&] {
        for (std::size_t f = 0; f + batch <= nframes; f += batch)
            transforms(full, d_a.get(), d_b.get());
        if (tail)
            transforms(last, d_a.get(), d_b.get());
    });
    r.note = std::to_string(3 * nframes) + " transforms of " +
             std::to_string(transform_len) + " points, batches of " +
             std::to_string(batch) + " frames";
}

//! What the engine rows check their peaks against, and where they leave them.
struct engine_rows_context {
    const run_sizes& s;
    const run_input& input;
    const std::vector<peak>& reference;
    const std::vector<std::size_t>& check_frames;
    std::vector<peak>& peaks;
};

void measure_engine_device_buffers(row& r, const engine_rows_context& c)
{
    const run_sizes& s = c.s;
    const std::size_t n = s.n;
    const std::size_t nframes = s.nframes;
    auto engine = core::cross_correlator::make(s.config);
    core::device_buffer<gr_complex> d_x(n);
    core::device_buffer<gr_complex> d_y(n);
    core::device_buffer<peak> d_peaks(nframes);
    core::cuda_stream stream;
    // Everything on the one non-blocking stream: it does not order itself after the
    // legacy default stream that cudaMemcpy and cudaMemset would use.
    CUDADSP_CUDA(cudaMemcpyAsync(d_x.get(),
                                 c.input.x,
                                 n * sizeof(gr_complex),
                                 cudaMemcpyHostToDevice,
                                 stream.get()));
    CUDADSP_CUDA(cudaMemcpyAsync(d_y.get(),
                                 c.input.y,
                                 n * sizeof(gr_complex),
                                 cudaMemcpyHostToDevice,
                                 stream.get()));
    CUDADSP_CUDA(cudaMemsetAsync(d_peaks.get(), poison_byte, s.peak_bytes, stream.get()));
    engine->process_device(
        d_x.get(), d_y.get(), nframes, d_peaks.get(), nullptr, nullptr, stream.get());
    CUDADSP_CUDA(cudaMemcpyAsync(c.peaks.data(),
                                 d_peaks.get(),
                                 s.peak_bytes,
                                 cudaMemcpyDeviceToHost,
                                 stream.get()));
    stream.synchronize();
    check_peaks(r, c.reference, c.check_frames, c.peaks.data(), nframes);

    r.clock = "events";
    r.samples = double(n);
    r.bytes = double(s.input_bytes + s.peak_bytes);
    r.time = time_cuda(stream.get(), 2, s.repeats, [&] {
        engine->process_device(
            d_x.get(), d_y.get(), nframes, d_peaks.get(), nullptr, nullptr, stream.get());
    });
}

//! process() with host pointers returns once the peaks are in host memory.
void measure_engine_host_path(row& r,
                              const engine_rows_context& c,
                              const gr_complex* in_x,
                              const gr_complex* in_y,
                              peak* out)
{
    const run_sizes& s = c.s;
    auto engine = core::cross_correlator::make(s.config);
    std::memset(out, poison_byte, s.peak_bytes);
    engine->process(in_x, in_y, s.nframes, out);
    check_peaks(r, c.reference, c.check_frames, out, s.nframes);

    r.clock = "wall";
    r.samples = double(s.n);
    r.bytes = double(s.input_bytes + s.peak_bytes);
    r.time =
        time_host(1, s.repeats, [&] { engine->process(in_x, in_y, s.nframes, out); });
}

void measure_cuda_rows(section_report& report,
                       const engine_rows_context& c,
                       const bench_device& device)
{
    const run_sizes& s = c.s;
    warn_if_cache_resident(section_name, s.input_bytes, device);

    progress(section_name, "floors");
    report.measure(row_d2d, [&](row& r) {
        r = floor_d2d_copy(s.input_bytes, double(s.n), s.repeats);
        r.note = "x and y, " + mebibytes(s.input_bytes) + "; read + write counted";
    });
    report.measure(row_h2d, [&](row& r) {
        r = floor_h2d_pinned(s.input_bytes, double(s.n), s.repeats);
        r.note = "x and y, " + mebibytes(s.input_bytes);
    });
    report.measure(row_cufft, [&](row& r) { measure_cufft_floor(r, s); });

    progress(section_name, row_device);
    report.measure(row_device, [&](row& r) { measure_engine_device_buffers(r, c); });

    progress(section_name, row_pinned);
    report.measure(row_pinned, [&](row& r) {
        core::pinned_buffer<peak> out(s.nframes);
        measure_engine_host_path(r, c, c.input.x, c.input.y, out.get());
    });

    progress(section_name, row_pageable);
    report.measure(row_pageable, [&](row& r) {
        const std::vector<gr_complex> in_x(c.input.x, c.input.x + s.n);
        const std::vector<gr_complex> in_y(c.input.y, c.input.y + s.n);
        measure_engine_host_path(r, c, in_x.data(), in_y.data(), c.peaks.data());
    });
}

void measure_cpu_engine(row& r, const engine_rows_context& c)
{
    const std::size_t cpu_frames = c.s.cpu_frames;
    auto engine = core::cross_correlator::make(make_config("cpu"));
    std::vector<peak> out(cpu_frames);
    std::memset(out.data(), poison_byte, cpu_frames * sizeof(peak));
    engine->process(c.input.x, c.input.y, cpu_frames, out.data());
    check_peaks(r,
                c.reference,
                spread_frames(cpu_frames, check_frame_count),
                out.data(),
                cpu_frames);

    r.clock = "wall";
    r.samples = double(cpu_frames * fft_len);
    r.bytes =
        double(2 * cpu_frames * fft_len * sizeof(gr_complex) + cpu_frames * sizeof(peak));
    r.time = time_host(0, c.s.slow_repeats, [&] {
        engine->process(c.input.x, c.input.y, cpu_frames, out.data());
    });
}

void measure_flowgraph_rows(section_report& report,
                            const run_sizes& s,
                            const input_pattern& pattern,
                            const bench_device& device)
{
    // The block's CUDA backend gathers GPU batches of frames in work(); its upstream
    // buffers must hold two of them, or it warns and launches small ones (batch_gate).
    const int upstream_samples = cross_correlator_cc::upstream_buffer_items(int(fft_len));
    report.add_parameter("flowgraph_source_min_output_buffer",
                         std::to_string(upstream_samples) + " samples");
    if (device.cuda) {
        progress(section_name, row_flowgraph_cuda);
        report.measure(row_flowgraph_cuda, [&](row& r) {
            measure_flowgraph(r,
                              device.device_string,
                              pattern.x,
                              pattern.y,
                              pattern.reference,
                              s.flowgraph_cuda_frames * fft_len,
                              upstream_samples,
                              s.slow_repeats);
        });
    } else {
        report.skip(row_flowgraph_cuda, device.skip_reason);
    }
    progress(section_name, row_flowgraph_cpu);
    report.measure(row_flowgraph_cpu, [&](row& r) {
        measure_flowgraph(r,
                          "cpu",
                          pattern.x,
                          pattern.y,
                          pattern.reference,
                          s.flowgraph_cpu_frames * fft_len,
                          upstream_samples,
                          s.slow_repeats);
    });
}

void add_ratios_and_targets(section_report& report)
{
    report.ratio_to(row_device, row_cufft, "cuFFT floor");
    report.ratio_to(row_device, row_d2d, "d2d copy");
    for (const auto& name : { row_pinned, row_pageable, row_flowgraph_cuda })
        report.ratio_to(name, row_h2d, "pinned H2D");
    report.target_min_msamples(row_flowgraph_cuda, target_flowgraph_msamples);
    // The flowgraph's cost over the bare engine: scheduler, buffers, the source.
    report.ratio_to(row_flowgraph_cpu, row_cpu, "cpu engine");
    for (const auto& name : { row_device, row_pinned, row_pageable })
        report.speedup_over(name, row_cpu, "speed-up vs cpu");
    report.speedup_over(row_flowgraph_cuda, row_flowgraph_cpu, "speed-up vs cpu");
}

void add_notes(section_report& report,
               const run_sizes& s,
               const std::vector<std::size_t>& check_frames)
{
    report.add_note("a sample is one complex float32 of each input (x and y, 16 bytes "
                    "together): Msamples/s is per input; a frame is " +
                    std::to_string(fft_len) + " samples, zero-padded to " +
                    std::to_string(s.transform_len) + " for the transforms");
    report.add_note("'x cuFFT floor': the engine's time over that of the three batched "
                    "cuFFT transforms per frame alone (forward x, forward y, inverse), "
                    "on device buffers already padded");
    std::string frame_list;
    for (const auto f : check_frames)
        frame_list += (frame_list.empty() ? "" : ",") + std::to_string(f);
    report.add_note("check: the peaks of frames " + frame_list +
                    " (cpu engine: the same spread over its frames; flowgraphs: every "
                    "frame of one pattern) against the cpu engine run frame by frame; "
                    "lags equal, or one grid step of 1/" +
                    std::to_string(interp) +
                    " apart where two grid points nearly tie; every frame checked for "
                    "being written");
}

void run_xcorr(const bench_options& options,
               const bench_device& device,
               section_report& report)
{
    const run_sizes s = make_run_sizes(options, device);
    add_parameters(report, s);
    const input_pattern pattern = make_input_pattern(report, s.pattern_n);
    const std::vector<std::size_t> check_frames =
        spread_frames(s.nframes, check_frame_count);
    const run_input input = make_run_input(pattern, s, device);
    std::vector<peak> peaks(s.nframes);
    const engine_rows_context context{ s, input, pattern.reference, check_frames, peaks };

    if (device.cuda) {
        measure_cuda_rows(report, context, device);
    } else {
        progress(section_name, "CUDA rows skipped (" + device.skip_reason + ")");
        for (const auto& name :
             { row_d2d, row_h2d, row_cufft, row_device, row_pinned, row_pageable })
            report.skip(name, device.skip_reason);
    }

    progress(section_name, row_cpu);
    report.measure(row_cpu, [&](row& r) { measure_cpu_engine(r, context); });

    measure_flowgraph_rows(report, s, pattern, device);
    add_ratios_and_targets(report);
    add_notes(report, s, check_frames);
}

} // namespace

CUDADSP_BENCH_SECTION(
    xcorr,
    "xcorr",
    "signal cross-correlator, 4096-sample frames, interp 16: CUDA engine (device "
    "buffers; pinned and pageable host buffers), CPU engine and the cross_correlator_cc "
    "block in a flowgraph, against a d2d copy and a pinned H2D of both inputs and the "
    "bare cuFFT transforms",
    run_xcorr);

} // namespace bench
} // namespace cudadsp
} // namespace gr
