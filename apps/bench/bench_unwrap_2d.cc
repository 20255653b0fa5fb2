/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Section unwrap2d: the two-dimensional phase unwrapper on a synthetic interferogram
// (core::simulate_interferogram): the reliability method on the device and between
// host buffers, the least-squares method unweighted (against the bare cuFFT pair of
// its own transforms, the floor the issue sets) and weighted by the coherence, the CPU
// backend's rows, and the copy floors of the same bytes. Then minimum-cost-flow (MCF)
// rows on issue 24's kind of field (single look, coherence 0.7) at 1024 x 1024 and
// at the section's side, against SNAPHU's time that issue cites (unwrap_2d_mcf_rows.cc).
//
// With CUDADSP_BENCH_UNWRAP2D_DIR=<folder> in the environment the section also writes
// the field and the CUDA outputs there as raw files (wrapped.f32, true_phase.f64,
// coherence.f32, mask.u8, reliability_unwrapped.f32, least_squares_unwrapped.f32,
// weighted_unwrapped.f32, native byte order, row-major) and unwrap2d.json (width,
// height, the measured times), for tools/unwrap2d-vs-skimage.

#include "bench_harness.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "unwrap/least_squares_unwrap_cuda.h"
#include "unwrap_2d_mcf_rows.h"
#include <gnuradio/cudadsp/core/interferogram_simulator.h>
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {

namespace {

constexpr const char* section_name = "unwrap2d";
constexpr const char* dump_variable = "CUDADSP_BENCH_UNWRAP2D_DIR";

constexpr double two_pi = 6.283185307179586476925286766559;

// 4096 x 4096: 64 MiB per float32 frame, well above any current GPU's L2, and the size
// the least-squares target is stated for.
constexpr std::size_t default_side = 4096;
constexpr std::size_t min_side = 64;
// The weighted CPU solve runs up to max_iterations DCT solves per frame: on a centre
// crop of this side it stays under a minute on a two-core machine.
constexpr std::size_t cpu_weighted_side = 1024;
constexpr std::size_t weighted_max_iterations = 100;
constexpr int slow_repeats_max = 3;

constexpr std::uint64_t scene_seed = 20260415;
constexpr double scene_topography_cycles = 40.0;
constexpr double scene_deformation_cycles = 8.0;
constexpr double scene_coherence = 0.95;

// The target: the unweighted solve at most 3x its bare transforms.
constexpr double target_least_squares_x_cufft = 3.0;
// Least squares on the two backends agrees up to float32 rounding of the smooth
// solution; K differs only where that solution lies within rounding of a half period
// from the wrapped value.
constexpr double least_squares_min_agreement = 0.999;
// Weighted solves stop at a residual tolerance; iterates of two backends differ more
// than direct solves do.
constexpr double weighted_min_agreement = 0.99;

const std::string& row_d2d = floor_row_d2d;
const std::string& row_h2d = floor_row_h2d;
const std::string& row_d2h = floor_row_d2h;
const std::string& row_copies = floor_row_h2d_plus_d2h;
const std::string row_reliability_device = "cuda reliability, device buffers";
const std::string row_reliability_host = "cuda reliability, host buffers";
const std::string row_least_squares = "cuda least squares unweighted, device buffers";
const std::string row_transforms = "cuda bare cuFFT R2C + C2R of the frame";
const std::string row_weighted = "cuda least squares weighted (coherence, mask)";
const std::string crop_name = std::to_string(cpu_weighted_side) + " x " +
                              std::to_string(cpu_weighted_side) + " centre crop";
const std::string row_weighted_crop_cuda = "cuda least squares weighted, " + crop_name;
const std::string row_reliability_cpu = "cpu reliability";
const std::string row_least_squares_cpu = "cpu least squares unweighted";
const std::string row_weighted_crop_cpu =
    "cpu least squares weighted, " + crop_name +
    ", <= " + std::to_string(weighted_max_iterations) + " iterations";

//! A frame and what the engines are given of it (weight and mask may be empty).
struct frame {
    std::size_t width = 0;
    std::size_t height = 0;
    std::vector<float> wrapped;
    std::vector<float> weight;
    std::vector<std::uint8_t> mask;
    std::vector<double> truth;

    std::size_t pixels() const { return width * height; }
};

//! What the rows produce, kept for the checks, the notes and the dump.
struct outputs {
    std::vector<float> reliability_cpu;
    std::vector<float> least_squares_cpu;
    std::vector<float> weighted_crop_cpu;
    std::vector<float> reliability_cuda;
    std::vector<float> least_squares_cuda;
    std::vector<float> weighted_cuda;
    core::unwrap_2d_report weighted_report;
};

core::phase_unwrap_2d_config
make_config(const frame& f, core::unwrap_2d_method method, const std::string& device)
{
    core::phase_unwrap_2d_config config;
    config.width = f.width;
    config.height = f.height;
    config.method = method;
    config.max_iterations = weighted_max_iterations;
    config.device = device;
    return config;
}

core::unwrap_2d_buffers host_buffers(const frame& f, float* out, bool weighted)
{
    core::unwrap_2d_buffers b;
    b.wrapped = f.wrapped.data();
    b.unwrapped = out;
    if (weighted) {
        b.weight = f.weight.data();
        b.mask = f.mask.data();
    }
    return b;
}

void poison(std::vector<float>& out)
{
    std::fill(out.begin(), out.end(), std::numeric_limits<float>::quiet_NaN());
}

frame centre_crop(const frame& f, std::size_t side)
{
    frame c;
    c.width = std::min(side, f.width);
    c.height = std::min(side, f.height);
    const std::size_t row0 = (f.height - c.height) / 2;
    const std::size_t col0 = (f.width - c.width) / 2;
    for (std::size_t r = 0; r < c.height; ++r) {
        const std::size_t from = (row0 + r) * f.width + col0;
        c.wrapped.insert(c.wrapped.end(),
                         f.wrapped.begin() + from,
                         f.wrapped.begin() + from + c.width);
        c.weight.insert(
            c.weight.end(), f.weight.begin() + from, f.weight.begin() + from + c.width);
        c.mask.insert(
            c.mask.end(), f.mask.begin() + from, f.mask.begin() + from + c.width);
        c.truth.insert(
            c.truth.end(), f.truth.begin() + from, f.truth.begin() + from + c.width);
    }
    return c;
}

/*!
 * Fraction of the land pixels (mask nonzero) where \p out is finite and its whole
 * number of periods from the truth, round((out - truth) / 2pi), is the most common one
 * (a solution is only defined up to such a constant).
 */
double fraction_correct_cycles(const frame& f, const std::vector<float>& out)
{
    std::map<long long, std::size_t> counts;
    std::size_t land = 0;
    for (std::size_t p = 0; p < f.pixels(); ++p) {
        if (!f.mask[p])
            continue;
        ++land;
        if (std::isfinite(out[p]))
            ++counts[std::llround((double(out[p]) - f.truth[p]) / two_pi)];
    }
    std::size_t best = 0;
    for (const auto& count : counts)
        best = std::max(best, count.second);
    // Land pixels the method left NaN count as wrong.
    return land ? double(best) / double(land) : 0.0;
}

std::string percent(double fraction)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(3) << 100.0 * fraction << " %";
    return s.str();
}

//! The reliability method's contract across backends: the same bits (NaN where not
//! valid).
void check_identical(row& r, const std::vector<float>& out, const std::vector<float>& ref)
{
    std::size_t mismatches = 0;
    std::size_t first = 0;
    for (std::size_t p = 0; p < ref.size(); ++p) {
        const bool same = (std::isnan(out[p]) && std::isnan(ref[p])) ||
                          std::memcmp(&out[p], &ref[p], sizeof(float)) == 0;
        if (!same && mismatches++ == 0)
            first = p;
    }
    if (mismatches) {
        r.status = row_status::failed;
        r.note = "differs from the cpu backend at " + std::to_string(mismatches) +
                 " pixels, first at " + std::to_string(first);
    } else {
        r.status = row_status::ok;
    }
}

//! Least squares across backends: the same K at all but a fraction of the pixels, NaN
//! at the same pixels.
void check_agreement(row& r,
                     const std::vector<float>& out,
                     const std::vector<float>& ref,
                     const std::vector<float>& wrapped,
                     double min_fraction)
{
    std::size_t same = 0;
    std::size_t nan_mismatches = 0;
    for (std::size_t p = 0; p < ref.size(); ++p) {
        if (std::isnan(out[p]) != std::isnan(ref[p])) {
            ++nan_mismatches;
            continue;
        }
        if (std::isnan(ref[p])) {
            ++same;
            continue;
        }
        const double k_out = std::round((double(out[p]) - double(wrapped[p])) / two_pi);
        const double k_ref = std::round((double(ref[p]) - double(wrapped[p])) / two_pi);
        same += k_out == k_ref ? 1 : 0;
    }
    const double fraction = double(same) / double(ref.size());
    r.note = "K as the cpu backend's at " + percent(fraction) + " of pixels";
    r.status = nan_mismatches == 0 && fraction >= min_fraction ? row_status::ok
                                                               : row_status::failed;
    if (nan_mismatches)
        r.note += ", NaN at " + std::to_string(nan_mismatches) + " other pixels";
}

/*! The congruent output's contract, for the weighted frame no other backend solves:
 *  NaN exactly at the invalid pixels, a whole number of periods from the input at the
 *  others. */
void check_congruent(row& r, const frame& f, const std::vector<float>& out)
{
    std::size_t bad = 0;
    for (std::size_t p = 0; p < f.pixels(); ++p) {
        const bool valid = f.mask[p] && std::isfinite(f.weight[p]) && f.weight[p] > 0 &&
                           std::isfinite(f.wrapped[p]);
        if (!valid) {
            bad += std::isnan(out[p]) ? 0 : 1;
            continue;
        }
        const double turns = (double(out[p]) - double(f.wrapped[p])) / two_pi;
        bad +=
            std::isfinite(turns) && std::fabs(turns - std::round(turns)) < 1e-3 ? 0 : 1;
    }
    r.status = bad ? row_status::failed : row_status::ok;
    if (bad)
        r.note = std::to_string(bad) + " pixels break the congruent output's contract";
}

//! The frame's buffers in device memory.
struct device_frame {
    explicit device_frame(const frame& f)
        : wrapped(f.pixels()), weight(f.pixels()), mask(f.pixels()), out(f.pixels())
    {
        CUDADSP_CUDA(cudaMemcpy(
            wrapped.get(), f.wrapped.data(), wrapped.bytes(), cudaMemcpyHostToDevice));
        CUDADSP_CUDA(cudaMemcpy(
            weight.get(), f.weight.data(), weight.bytes(), cudaMemcpyHostToDevice));
        CUDADSP_CUDA(
            cudaMemcpy(mask.get(), f.mask.data(), mask.bytes(), cudaMemcpyHostToDevice));
    }
    core::unwrap_2d_buffers buffers(bool weighted) const
    {
        core::unwrap_2d_buffers b;
        b.wrapped = wrapped.get();
        b.unwrapped = out.get();
        if (weighted) {
            b.weight = weight.get();
            b.mask = mask.get();
        }
        return b;
    }
    //! Poisons the output, runs \p engine on \p stream and copies the output back.
    core::unwrap_2d_report run_once(core::phase_unwrapper_2d& engine,
                                    bool weighted,
                                    cudaStream_t stream,
                                    std::vector<float>& host_out) const
    {
        // All-ones bytes are a NaN: an unwritten valid pixel fails the checks.
        CUDADSP_CUDA(cudaMemsetAsync(out.get(), 0xff, out.bytes(), stream));
        const core::unwrap_2d_report report =
            engine.unwrap_device(buffers(weighted), stream);
        host_out.resize(out.size());
        CUDADSP_CUDA(cudaMemcpyAsync(
            host_out.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost, stream));
        CUDADSP_CUDA(cudaStreamSynchronize(stream));
        return report;
    }

    core::device_buffer<float> wrapped;
    core::device_buffer<float> weight;
    core::device_buffer<std::uint8_t> mask;
    core::device_buffer<float> out;
};

//! A device row of one engine: checked once, then timed with events.
timing time_engine_device(core::phase_unwrapper_2d& engine,
                          const device_frame& d,
                          bool weighted,
                          cudaStream_t stream,
                          int repeats)
{
    return time_cuda(
        stream, 1, repeats, [&] { engine.unwrap_device(d.buffers(weighted), stream); });
}

void fill_frame_row(row& r, const std::string& clock, const frame& f, const timing& t)
{
    r.clock = clock;
    r.samples = double(f.pixels());
    // Read the wrapped frame, write the unwrapped one.
    r.bytes = 8.0 * double(f.pixels());
    r.time = t;
}

void measure_cpu_rows(section_report& report,
                      const frame& f,
                      const frame& crop,
                      int slow_repeats,
                      outputs& o)
{
    progress(section_name, row_reliability_cpu);
    report.measure(row_reliability_cpu, [&](row& r) {
        auto engine = core::phase_unwrapper_2d::make(
            make_config(f, core::unwrap_2d_method::reliability, "cpu"));
        o.reliability_cpu.resize(f.pixels());
        poison(o.reliability_cpu);
        const auto buffers = host_buffers(f, o.reliability_cpu.data(), true);
        engine->unwrap(buffers);
        fill_frame_row(
            r, "wall", f, time_host(0, slow_repeats, [&] { engine->unwrap(buffers); }));
    });

    progress(section_name, row_least_squares_cpu);
    report.measure(row_least_squares_cpu, [&](row& r) {
        auto engine = core::phase_unwrapper_2d::make(
            make_config(f, core::unwrap_2d_method::least_squares, "cpu"));
        o.least_squares_cpu.resize(f.pixels());
        poison(o.least_squares_cpu);
        const auto buffers = host_buffers(f, o.least_squares_cpu.data(), false);
        engine->unwrap(buffers);
        fill_frame_row(
            r, "wall", f, time_host(0, slow_repeats, [&] { engine->unwrap(buffers); }));
    });

    progress(section_name, row_weighted_crop_cpu);
    report.measure(row_weighted_crop_cpu, [&](row& r) {
        auto engine = core::phase_unwrapper_2d::make(
            make_config(crop, core::unwrap_2d_method::least_squares, "cpu"));
        o.weighted_crop_cpu.resize(crop.pixels());
        poison(o.weighted_crop_cpu);
        const auto buffers = host_buffers(crop, o.weighted_crop_cpu.data(), true);
        const core::unwrap_2d_report rep = engine->unwrap(buffers);
        fill_frame_row(r, "wall", crop, time_host(0, slow_repeats, [&] {
                           engine->unwrap(buffers);
                       }));
        r.note = std::to_string(rep.iterations) + " iterations, relative residual " +
                 std::to_string(rep.relative_residual);
    });
}

void measure_cuda_rows(section_report& report,
                       const frame& f,
                       const frame& crop,
                       const bench_device& device,
                       int repeats,
                       outputs& o)
{
    const std::size_t bytes = f.pixels() * sizeof(float);
    const double n = double(f.pixels());
    warn_if_cache_resident(section_name, bytes, device);

    progress(section_name, "copy floors");
    measure_round_trip_floors(report, bytes, n, repeats);

    core::cuda_stream stream;
    const device_frame d(f);

    progress(section_name, row_reliability_device);
    report.measure(row_reliability_device, [&](row& r) {
        auto engine = core::phase_unwrapper_2d::make(
            make_config(f, core::unwrap_2d_method::reliability, device.device_string));
        d.run_once(*engine, true, stream.get(), o.reliability_cuda);
        fill_frame_row(
            r, "events", f, time_engine_device(*engine, d, true, stream.get(), repeats));
        if (!o.reliability_cpu.empty())
            check_identical(r, o.reliability_cuda, o.reliability_cpu);
    });

    progress(section_name, row_reliability_host);
    report.measure(row_reliability_host, [&](row& r) {
        auto engine = core::phase_unwrapper_2d::make(
            make_config(f, core::unwrap_2d_method::reliability, device.device_string));
        std::vector<float> out(f.pixels());
        poison(out);
        const auto buffers = host_buffers(f, out.data(), true);
        engine->unwrap(buffers);
        fill_frame_row(
            r, "wall", f, time_host(1, repeats, [&] { engine->unwrap(buffers); }));
        if (!o.reliability_cpu.empty())
            check_identical(r, out, o.reliability_cpu);
    });

    progress(section_name, row_least_squares);
    report.measure(row_least_squares, [&](row& r) {
        auto engine = core::phase_unwrapper_2d::make(
            make_config(f, core::unwrap_2d_method::least_squares, device.device_string));
        d.run_once(*engine, false, stream.get(), o.least_squares_cuda);
        fill_frame_row(
            r, "events", f, time_engine_device(*engine, d, false, stream.get(), repeats));
        if (!o.least_squares_cpu.empty())
            check_agreement(r,
                            o.least_squares_cuda,
                            o.least_squares_cpu,
                            f.wrapped,
                            least_squares_min_agreement);
    });

    progress(section_name, row_transforms);
    report.measure(row_transforms, [&](row& r) {
        // A solver of its own, constructed as the engine constructs its one.
        core::least_squares_unwrap_cuda solver(
            make_config(f, core::unwrap_2d_method::least_squares, device.device_string));
        r.clock = "events";
        r.samples = n;
        // Each transform reads and writes about one frame of float32.
        r.bytes = 16.0 * n;
        r.time = time_cuda(stream.get(), 2, repeats, [&] {
            solver.enqueue_transforms_only(stream.get());
        });
    });

    progress(section_name, row_weighted);
    report.measure(row_weighted, [&](row& r) {
        auto engine = core::phase_unwrapper_2d::make(
            make_config(f, core::unwrap_2d_method::least_squares, device.device_string));
        o.weighted_report = d.run_once(*engine, true, stream.get(), o.weighted_cuda);
        fill_frame_row(
            r, "events", f, time_engine_device(*engine, d, true, stream.get(), repeats));
        check_congruent(r, f, o.weighted_cuda);
        if (r.status == row_status::ok)
            r.note = std::to_string(o.weighted_report.iterations) +
                     " iterations, relative residual " +
                     std::to_string(o.weighted_report.relative_residual);
    });

    progress(section_name, row_weighted_crop_cuda);
    report.measure(row_weighted_crop_cuda, [&](row& r) {
        auto engine = core::phase_unwrapper_2d::make(make_config(
            crop, core::unwrap_2d_method::least_squares, device.device_string));
        const device_frame dc(crop);
        std::vector<float> out;
        const core::unwrap_2d_report rep = dc.run_once(*engine, true, stream.get(), out);
        fill_frame_row(r,
                       "events",
                       crop,
                       time_engine_device(*engine, dc, true, stream.get(), repeats));
        if (!o.weighted_crop_cpu.empty())
            check_agreement(
                r, out, o.weighted_crop_cpu, crop.wrapped, weighted_min_agreement);
        r.note +=
            (r.note.empty() ? "" : "; ") + std::to_string(rep.iterations) + " iterations";
    });
}

void skip_cuda_rows(section_report& report, const bench_device& device)
{
    progress(section_name, "CUDA rows skipped (" + device.skip_reason + ")");
    for (const auto& name : { row_d2d,
                              row_h2d,
                              row_d2h,
                              row_copies,
                              row_reliability_device,
                              row_reliability_host,
                              row_least_squares,
                              row_transforms,
                              row_weighted,
                              row_weighted_crop_cuda })
        report.skip(name, device.skip_reason);
}

void add_ratios_and_targets(section_report& report)
{
    report.ratio_to(row_least_squares, row_transforms, "cuFFT pair");
    report.target_max_ratio(
        row_least_squares, "x cuFFT pair", target_least_squares_x_cufft);
    report.ratio_to(row_weighted, row_least_squares, "unweighted");
    for (const auto& name : { row_reliability_device, row_least_squares, row_transforms })
        report.ratio_to(name, row_d2d, "d2d copy");
    report.ratio_to(row_reliability_host, row_copies, "pinned H2D+D2H");
    report.speedup_over(row_reliability_device, row_reliability_cpu, "speed-up vs cpu");
    report.speedup_over(row_reliability_host, row_reliability_cpu, "speed-up vs cpu");
    report.speedup_over(row_least_squares, row_least_squares_cpu, "speed-up vs cpu");
    report.speedup_over(row_weighted_crop_cuda, row_weighted_crop_cpu, "speed-up vs cpu");
}

void add_accuracy_notes(section_report& report,
                        const frame& f,
                        const frame& crop,
                        const outputs& o)
{
    auto note =
        [&](const std::string& what, const frame& on, const std::vector<float>& out) {
            if (out.size() == on.pixels())
                report.add_note("correct whole cycles vs the truth, " + what + ": " +
                                percent(fraction_correct_cycles(on, out)) +
                                " of the land (mask) pixels");
        };
    note("cuda reliability", f, o.reliability_cuda);
    note("cuda least squares unweighted", f, o.least_squares_cuda);
    note("cuda least squares weighted", f, o.weighted_cuda);
    note("cpu reliability", f, o.reliability_cpu);
    note("cpu least squares unweighted", f, o.least_squares_cpu);
    note("cpu least squares weighted (crop)", crop, o.weighted_crop_cpu);
    report.add_note("reliability rows use the mask; unweighted least squares has neither "
                    "weight nor mask (the direct DCT solve); weighted rows use the "
                    "coherence as weight and the mask");
    report.add_note("'x cuFFT pair': the unweighted solve over one R2C and one C2R "
                    "transform of the frame on the same plans (the issue's floor)");
}

template <typename T>
void write_raw(const std::string& folder,
               const std::string& name,
               const std::vector<T>& v)
{
    const std::string path = folder + "/" + name;
    std::ofstream file(path, std::ios::binary);
    file.write(reinterpret_cast<const char*>(v.data()),
               static_cast<std::streamsize>(v.size() * sizeof(T)));
    if (!file)
        throw std::runtime_error(std::string(dump_variable) + ": cannot write " + path);
}

double median_ms(const section_report& report, const std::string& name)
{
    for (const auto& r : report.rows())
        if (r.name == name && r.measured())
            return r.time.median_ms;
    return std::numeric_limits<double>::quiet_NaN();
}

void write_dump(const std::string& folder,
                const frame& f,
                const std::vector<float>& coherence,
                const outputs& o,
                const section_report& report)
{
    write_raw(folder, "wrapped.f32", f.wrapped);
    write_raw(folder, "true_phase.f64", f.truth);
    write_raw(folder, "coherence.f32", coherence);
    write_raw(folder, "mask.u8", f.mask);
    write_raw(folder, "reliability_unwrapped.f32", o.reliability_cuda);
    write_raw(folder, "least_squares_unwrapped.f32", o.least_squares_cuda);
    write_raw(folder, "weighted_unwrapped.f32", o.weighted_cuda);

    auto ms = [&](const std::string& name) {
        const double v = median_ms(report, name);
        std::ostringstream s;
        if (std::isfinite(v))
            s << std::setprecision(6) << v;
        else
            s << "null";
        return s.str();
    };
    const std::string path = folder + "/unwrap2d.json";
    std::ofstream json(path);
    json << "{\n  \"width\": " << f.width << ",\n  \"height\": " << f.height
         << ",\n  \"times_ms\": {\n    \"reliability_device\": "
         << ms(row_reliability_device)
         << ",\n    \"reliability_host\": " << ms(row_reliability_host)
         << ",\n    \"least_squares_unweighted\": " << ms(row_least_squares)
         << ",\n    \"cufft_pair\": " << ms(row_transforms)
         << ",\n    \"least_squares_weighted\": " << ms(row_weighted)
         << ",\n    \"cpu_reliability\": " << ms(row_reliability_cpu)
         << ",\n    \"cpu_least_squares_unweighted\": " << ms(row_least_squares_cpu)
         << "\n  },\n  \"weighted_iterations\": " << o.weighted_report.iterations
         << ",\n  \"weighted_relative_residual\": " << o.weighted_report.relative_residual
         << "\n}\n";
    if (!json)
        throw std::runtime_error(std::string(dump_variable) + ": cannot write " + path);
    progress(section_name, "wrote the field and the CUDA outputs to " + folder);
}

void run_unwrap_2d(const bench_options& options,
                   const bench_device& device,
                   section_report& report)
{
    // --samples counts pixels of a square frame.
    const auto side = std::max<std::size_t>(
        min_side,
        static_cast<std::size_t>(
            std::sqrt(double(options.samples_or(default_side * default_side)))));
    const int repeats = options.repeats;
    const int slow_repeats = std::min(repeats, slow_repeats_max);

    core::interferogram_scene_config scene_config;
    scene_config.width = side;
    scene_config.height = side;
    scene_config.seed = scene_seed;
    scene_config.topography_cycles = scene_topography_cycles;
    scene_config.deformation_cycles = scene_deformation_cycles;
    scene_config.coherence = scene_coherence;
    scene_config.water = true;
    scene_config.steep = true;

    report.add_parameter("frame", std::to_string(side) + " x " + std::to_string(side));
    report.add_parameter("repeats", std::to_string(repeats));
    report.add_parameter("cpu_repeats", std::to_string(slow_repeats));
    report.add_parameter("max_iterations", std::to_string(weighted_max_iterations));
    std::ostringstream scene;
    scene << "simulate_interferogram: topography " << scene_topography_cycles
          << " cycles, deformation " << scene_deformation_cycles << " cycles, coherence "
          << scene_coherence << ", water and steep area, seed " << scene_seed;
    report.add_parameter("input", scene.str());

    progress(section_name,
             "simulating a " + std::to_string(side) + " x " + std::to_string(side) +
                 " interferogram");
    core::interferogram_scene s = core::simulate_interferogram(scene_config);
    frame f;
    f.width = s.width;
    f.height = s.height;
    f.wrapped = std::move(s.wrapped);
    f.weight = s.coherence;
    f.mask = std::move(s.mask);
    f.truth = std::move(s.true_phase);
    const frame crop = centre_crop(f, cpu_weighted_side);
    if (side < cpu_weighted_side)
        report.add_note(
            "the frame is smaller than the crop: the crop rows solve all of it");

    outputs o;
    measure_cpu_rows(report, f, crop, slow_repeats, o);
    if (device.cuda)
        measure_cuda_rows(report, f, crop, device, repeats, o);
    else
        skip_cuda_rows(report, device);

    add_ratios_and_targets(report);
    add_accuracy_notes(report, f, crop, o);
    measure_unwrap_2d_mcf_rows(report, side, device, slow_repeats);

    if (const char* folder = std::getenv(dump_variable)) {
        if (device.cuda)
            write_dump(folder, f, s.coherence, o, report);
        else
            progress(section_name,
                     std::string(dump_variable) + " ignored: no CUDA outputs (" +
                         device.skip_reason + ")");
    }
}

} // namespace

CUDADSP_BENCH_SECTION(unwrap2d,
                      "unwrap2d",
                      "2-D phase unwrapper on a synthetic interferogram: reliability "
                      "(device and host buffers), least squares unweighted against its "
                      "bare cuFFT pair and weighted by coherence, the CPU backend, copy "
                      "floors, minimum-cost flow on a single-look field (CPU and CUDA, "
                      "1024 x 1024 and the frame's side) against SNAPHU's cited time; "
                      "CUDADSP_BENCH_UNWRAP2D_DIR=<folder> also writes the field "
                      "and the CUDA outputs for tools/unwrap2d-vs-skimage",
                      run_unwrap_2d);

} // namespace bench
} // namespace cudadsp
} // namespace gr
