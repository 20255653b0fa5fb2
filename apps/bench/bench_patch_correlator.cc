/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Section patch: the image-patch correlator (GMTSAR xcorr's frequency method) on the
// speed case: 1000 patch pairs (GMTSAR's -nx 20 -ny 50 grid), xsearch = ysearch = 64
// (patches of 256 x 256 complex samples), range interpolation 2, high-resolution
// interpolation 16, the patches already extracted and in device memory; next to floors
// measured in the same run: the bare cuFFT transforms the CUDA backend runs on them
// (range rows forward and back, the 2D real transforms of both images and the inverse
// of their product, with the engine's layouts and batches) and a d2d copy of the patch
// bytes. For information: the engine from pinned host patches, and correlate() from a
// whole pinned int16 image pair of the paper's largest ALOS-1 size (11304 x 9216) on
// the grid of cudadsp_xcorr's speed target (-nx 20 -ny 50 -xsearch 128 -ysearch 128),
// next to the upload of that pair and the cuFFT transforms of its patches. The CPU
// engine runs a spread sample of the patches; its results are the check column's
// reference (dx and dy equal, corr within 1e-3 percent).

#include "bench_harness.h"
#include "cross_correlation/patch_correlator_cuda.h"
#include "patch_bench_case.h"
#include "patch_bench_checks.h"
#include "patch_cufft_floor.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/cufft_plan.h"
#include "speckle_field.h"
#include "xcorr/xcorr_grid.h"
#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {

namespace {

using namespace patch_bench;

constexpr const char* section_name = "patch";

const std::string& row_d2d = floor_row_d2d;
const std::string& row_h2d = floor_row_h2d;
const std::string row_cufft = "floor: cuFFT transforms";
const std::string row_device = "cuda engine, device patches";
const std::string row_pinned = "cuda engine, pinned host patches";
const std::string row_cpu = "cpu engine";
const std::string row_image_h2d = "floor: pinned H2D, int16 image pair";
const std::string row_image_cufft = "floor: cuFFT transforms, xs=ys=128";
const std::string row_image_make = "cuda engine make(), xs=ys=128";
const std::string row_image = "cuda correlate(), int16 image, xs=ys=128";
const std::string row_image_cpu = "cpu correlate(), int16 image, xs=ys=128";

geometry geometry_of(const core::patch_correlator_config& c)
{
    return { c.npx(), c.npy(), c.range_interp };
}

//! The CUDA engine's batch (patches per launch of each transform).
std::size_t engine_batch(const core::patch_correlator& engine)
{
    return static_cast<const core::patch_correlator_cuda&>(engine).batch_patches();
}

// ---------------------------------------------------------------------------------
// The section
// ---------------------------------------------------------------------------------

//! The patch rows' sizes (xs = ys = 64), from the options.
struct patch_case {
    std::size_t npatches;
    int repeats;
    int slow_repeats;
    int image_repeats;
    core::patch_correlator_config config;
    geometry g;
    std::size_t patch_elements;
    std::size_t patch_bytes;
    // A bench sample is one complex sample of a patch window, either image: a pair is
    // 2 npy npx samples.
    double pair_samples;
    std::vector<std::size_t> sample; //!< the patches the CPU engine runs
};

patch_case make_patch_case(const bench_options& options, const bench_device& device)
{
    patch_case p;
    p.npatches = options.samples_or(default_patches);
    p.repeats = options.repeats;
    p.slow_repeats = std::min(p.repeats, slow_repeats_max);
    p.image_repeats = std::min(p.repeats, image_repeats_max);
    p.config = make_config(search, device.device_string);
    p.g = geometry_of(p.config);
    p.patch_elements = std::size_t(p.g.npy) * p.g.npx;
    p.patch_bytes = 2 * p.npatches * p.patch_elements * sizeof(cfloat);
    p.pair_samples = 2.0 * double(p.patch_elements);
    p.sample = spread(p.npatches, cpu_patches_max);
    return p;
}

//! The image case: GMTSAR's grid and windows on the int16 image pair.
struct image_case {
    std::vector<core::patch_pair> pairs;
    std::size_t image_patches;
    std::size_t image_samples;
    std::size_t image_bytes;
    double image_pair_samples;
    std::vector<std::size_t> image_sample; //!< the pairs the CPU engine runs
    core::patch_correlator_config image_config;
};

image_case make_image_case(const bench_device& device)
{
    xcorr::grid_config gc;
    gc.width = image_width;
    gc.height = image_height;
    gc.nx = grid_nx;
    gc.ny = grid_ny;
    gc.xsearch = image_search;
    gc.ysearch = image_search;
    const xcorr::xcorr_grid grid = xcorr::make_grid(gc);
    image_case c;
    c.pairs = xcorr::make_pairs(
        grid, image_search, image_search, image_rshift, image_ashift, 0.0);
    xcorr::check_pairs_inside(grid,
                              c.pairs,
                              image_search,
                              image_search,
                              image_width,
                              image_height,
                              image_width,
                              image_height);
    c.image_patches = c.pairs.size();
    c.image_samples = std::size_t(image_width) * image_height;
    c.image_bytes = 2 * c.image_samples * 2 * sizeof(std::int16_t);
    c.image_pair_samples = 2.0 * 16.0 * image_search * image_search;
    c.image_sample = spread(c.image_patches, cpu_image_patches_max);
    c.image_config = make_config(image_search, device.device_string);
    return c;
}

void add_parameters(section_report& report, const patch_case& p, const image_case& c)
{
    report.add_parameter("patches", std::to_string(p.npatches));
    report.add_parameter("patch",
                         std::to_string(p.g.npy) + "x" + std::to_string(p.g.npx));
    report.add_parameter("xsearch", std::to_string(search));
    report.add_parameter("ysearch", std::to_string(search));
    report.add_parameter("range_interp", std::to_string(range_interp));
    report.add_parameter("interp", std::to_string(interp));
    report.add_parameter("patch_bytes", std::to_string(p.patch_bytes));
    report.add_parameter("repeats", std::to_string(p.repeats));
    report.add_parameter("cpu_patches", std::to_string(p.sample.size()));
    report.add_parameter("cpu_repeats", std::to_string(p.slow_repeats));
    report.add_parameter(
        "image",
        std::to_string(image_width) + "x" + std::to_string(image_height) +
            " int16, grid -nx " + std::to_string(grid_nx) + " -ny " +
            std::to_string(grid_ny) + " -xsearch " + std::to_string(image_search) +
            " -ysearch " + std::to_string(image_search) + ", " +
            std::to_string(c.image_patches) + " patches, rshift " +
            std::to_string(image_rshift) + " ashift " + std::to_string(image_ashift));
    report.add_parameter("image_repeats", std::to_string(p.image_repeats));
    report.add_parameter("cpu_image_patches", std::to_string(c.image_sample.size()));
    std::ostringstream os;
    os << "band-limited complex speckle (bandwidth " << speckle_bandwidth << "), std "
       << component_std << " per component rounded to integers, "
       << "aligned moved by uniform +-" << max_shift << " px per patch, coherence "
       << coherence << ", seed " << input_seed << "; image: offset (" << image_dx << ", "
       << image_dy << ") px, tile " << image_tile;
    report.add_parameter("input", os.str());
}

/*!
 * The patches: all of them in pinned memory with a device (the pinned row uses them as
 * they are, the device rows upload them), and the CPU sample's copies; the CPU sample
 * alone without a device.
 */
struct patch_input {
    core::pinned_buffer<cfloat> pinned_master, pinned_aligned;
    std::vector<cfloat> cpu_master, cpu_aligned;
};

patch_input make_patch_input(const patch_case& p, const bench_device& device)
{
    const std::size_t patch_elements = p.patch_elements;
    const std::vector<std::size_t>& sample = p.sample;
    progress(section_name,
             "input: " + std::to_string(device.cuda ? p.npatches : sample.size()) +
                 " patch pairs of " + std::to_string(p.g.npy) + " x " +
                 std::to_string(p.g.npx));
    patch_input in;
    in.cpu_master.resize(sample.size() * patch_elements);
    in.cpu_aligned.resize(sample.size() * patch_elements);
    if (device.cuda) {
        in.pinned_master = core::pinned_buffer<cfloat>(p.npatches * patch_elements);
        in.pinned_aligned = core::pinned_buffer<cfloat>(p.npatches * patch_elements);
        parallel_for(p.npatches, [&](std::size_t k) {
            make_patch_pair(k,
                            p.g.npy,
                            p.g.npx,
                            in.pinned_master.get() + k * patch_elements,
                            in.pinned_aligned.get() + k * patch_elements);
        });
        for (std::size_t i = 0; i < sample.size(); ++i) {
            std::memcpy(in.cpu_master.data() + i * patch_elements,
                        in.pinned_master.get() + sample[i] * patch_elements,
                        patch_elements * sizeof(cfloat));
            std::memcpy(in.cpu_aligned.data() + i * patch_elements,
                        in.pinned_aligned.get() + sample[i] * patch_elements,
                        patch_elements * sizeof(cfloat));
        }
    } else {
        parallel_for(sample.size(), [&](std::size_t i) {
            make_patch_pair(sample[i],
                            p.g.npy,
                            p.g.npx,
                            in.cpu_master.data() + i * patch_elements,
                            in.cpu_aligned.data() + i * patch_elements);
        });
    }
    return in;
}

//! The patches and the results in device memory, uploaded on their own stream.
struct device_patches {
    core::device_buffer<cfloat> master, aligned;
    core::device_buffer<patch_result> results;
    core::cuda_stream stream;

    device_patches(const patch_case& p, const patch_input& in)
        : master(p.npatches * p.patch_elements),
          aligned(p.npatches * p.patch_elements),
          results(p.npatches)
    {
        CUDADSP_CUDA(cudaMemcpyAsync(master.get(),
                                     in.pinned_master.get(),
                                     master.size() * sizeof(cfloat),
                                     cudaMemcpyHostToDevice,
                                     stream.get()));
        CUDADSP_CUDA(cudaMemcpyAsync(aligned.get(),
                                     in.pinned_aligned.get(),
                                     aligned.size() * sizeof(cfloat),
                                     cudaMemcpyHostToDevice,
                                     stream.get()));
        stream.synchronize();
    }
};

void measure_engine_device_patches(row& r,
                                   core::patch_correlator& engine,
                                   device_patches& d,
                                   const patch_case& p,
                                   const std::vector<patch_result>& reference)
{
    const std::size_t npatches = p.npatches;
    std::vector<patch_result> results(npatches);
    CUDADSP_CUDA(cudaMemsetAsync(
        d.results.get(), poison_byte, npatches * sizeof(patch_result), d.stream.get()));
    engine.correlate_patches_device(
        d.master.get(), d.aligned.get(), npatches, d.results.get(), d.stream.get());
    CUDADSP_CUDA(cudaMemcpyAsync(results.data(),
                                 d.results.get(),
                                 npatches * sizeof(patch_result),
                                 cudaMemcpyDeviceToHost,
                                 d.stream.get()));
    d.stream.synchronize();
    check_results(r, results.data(), npatches, p.sample, reference);
    r.clock = "events";
    r.samples = double(npatches) * p.pair_samples;
    r.bytes = double(p.patch_bytes + npatches * sizeof(patch_result));
    r.time = time_cuda(d.stream.get(), 2, p.repeats, [&] {
        engine.correlate_patches_device(
            d.master.get(), d.aligned.get(), npatches, d.results.get(), d.stream.get());
    });
    if (r.status == row_status::ok)
        r.note = per_patch(r, npatches);
}

void measure_engine_pinned_patches(row& r,
                                   core::patch_correlator& engine,
                                   const patch_input& in,
                                   const patch_case& p,
                                   const std::vector<patch_result>& reference)
{
    const std::size_t npatches = p.npatches;
    core::pinned_buffer<patch_result> out(npatches);
    std::memset(out.get(), poison_byte, npatches * sizeof(patch_result));
    engine.correlate_patches(
        in.pinned_master.get(), in.pinned_aligned.get(), npatches, out.get());
    check_results(r, out.get(), npatches, p.sample, reference);
    r.clock = "wall";
    r.samples = double(npatches) * p.pair_samples;
    r.bytes = double(p.patch_bytes + npatches * sizeof(patch_result));
    r.time = time_host(1, p.repeats, [&] {
        engine.correlate_patches(
            in.pinned_master.get(), in.pinned_aligned.get(), npatches, out.get());
    });
    if (r.status == row_status::ok)
        r.note = per_patch(r, npatches);
}

void measure_patch_cuda_rows(section_report& report,
                             const patch_case& p,
                             const patch_input& in,
                             const std::vector<patch_result>& reference)
{
    device_patches d(p, in);
    auto engine = core::patch_correlator::make(p.config);
    const std::size_t batch = engine_batch(*engine);
    report.add_parameter("engine_batch", std::to_string(batch));

    progress(section_name, "floors");
    report.measure(row_d2d, [&](row& r) {
        r = floor_d2d_copy(p.patch_bytes, double(p.npatches) * p.pair_samples, p.repeats);
        r.note = "both images' patches, " + mebibytes(p.patch_bytes) +
                 "; read + write counted";
    });
    report.measure(row_h2d, [&](row& r) {
        r = floor_h2d_pinned(
            p.patch_bytes, double(p.npatches) * p.pair_samples, p.repeats);
        r.note = "both images' patches, " + mebibytes(p.patch_bytes);
    });
    report.measure(row_cufft, [&](row& r) {
        r = cufft_floor(
            p.g, p.npatches, batch, d.master.get(), d.aligned.get(), nullptr, p.repeats);
        r.name = row_cufft;
    });

    progress(section_name, row_device);
    report.measure(row_device, [&](row& r) {
        measure_engine_device_patches(r, *engine, d, p, reference);
    });

    progress(section_name, row_pinned);
    report.measure(row_pinned, [&](row& r) {
        measure_engine_pinned_patches(r, *engine, in, p, reference);
    });
}

void measure_cpu_patches(row& r, const patch_case& p, const patch_input& in)
{
    const std::vector<std::size_t>& sample = p.sample;
    auto engine = core::patch_correlator::make(make_config(search, "cpu"));
    std::vector<patch_result> out(sample.size());
    r.clock = "wall";
    r.samples = double(sample.size()) * p.pair_samples;
    r.bytes = double(2 * sample.size() * p.patch_elements * sizeof(cfloat));
    r.time = time_host(1, p.slow_repeats, [&] {
        engine->correlate_patches(
            in.cpu_master.data(), in.cpu_aligned.data(), sample.size(), out.data());
    });
    set_truth_status(r, compare_with_planted(out, sample), sample.size());
}

/*!
 * The image pair: in pinned memory with a device (as cudadsp_xcorr's pinned-or-mapped
 * input would be at best), pageable without; the views on it and the CPU's sample of
 * its pairs.
 */
struct image_input {
    core::pinned_buffer<std::int16_t> pinned_images[2];
    std::vector<std::int16_t> pageable_images[2];
    core::image_view master_view, aligned_view;
    std::vector<core::patch_pair> sample_pairs;
};

void fill_image_input(image_input& in, const image_case& c, const bench_device& device)
{
    progress(section_name,
             "image pair: " + std::to_string(image_width) + " x " +
                 std::to_string(image_height) + " int16");
    std::int16_t* images[2];
    for (int img = 0; img < 2; ++img) {
        if (device.cuda) {
            in.pinned_images[img] =
                core::pinned_buffer<std::int16_t>(2 * c.image_samples);
            images[img] = in.pinned_images[img].get();
        } else {
            in.pageable_images[img].resize(2 * c.image_samples);
            images[img] = in.pageable_images[img].data();
        }
    }
    make_image_pair(images[0], images[1]);
    in.master_view = { images[0],
                       core::slc_sample_type::complex_int16,
                       std::size_t(image_width),
                       std::size_t(image_height) };
    in.aligned_view = { images[1],
                        core::slc_sample_type::complex_int16,
                        std::size_t(image_width),
                        std::size_t(image_height) };
    for (const std::size_t k : c.image_sample)
        in.sample_pairs.push_back(c.pairs[k]);
}

//! The reference of the image rows: the CPU engine's correlate() on the sample pairs.
std::vector<patch_result> cpu_image_reference(const image_input& in)
{
    progress(section_name,
             "reference: cpu correlate() on " + std::to_string(in.sample_pairs.size()) +
                 " pairs");
    std::vector<patch_result> image_reference(in.sample_pairs.size());
    auto cpu = core::patch_correlator::make(make_config(image_search, "cpu"));
    std::memset(image_reference.data(),
                poison_byte,
                image_reference.size() * sizeof(patch_result));
    cpu->correlate(in.master_view,
                   in.aligned_view,
                   in.sample_pairs.data(),
                   in.sample_pairs.size(),
                   image_reference.data());
    return image_reference;
}

//! make() of the image case's CUDA engine; \p image_batch: the engine's batch.
void measure_image_make(row& r,
                        const image_case& c,
                        int slow_repeats,
                        std::size_t& image_batch)
{
    std::vector<double> ms;
    for (int i = 0; i < slow_repeats; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        auto e = core::patch_correlator::make(c.image_config);
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        image_batch = engine_batch(*e);
    }
    r.clock = "wall";
    r.time = summarize(ms);
    r.note = "buffers and cuFFT plans, batch " + std::to_string(image_batch) +
             " patches (the device context exists already)";
}

//! The image case's transforms on one batch of input, reused: filled from the xs=64
//! patches' bytes.
void measure_image_cufft_floor(row& r,
                               const image_case& c,
                               std::size_t image_batch,
                               const patch_case& p,
                               const patch_input& patches)
{
    if (image_batch == 0)
        throw std::runtime_error("needs the engine's batch (row '" + row_image_make +
                                 "')");
    core::device_buffer<cfloat> fill(2 * image_batch * std::size_t(4 * image_search) *
                                     std::size_t(4 * image_search));
    CUDADSP_CUDA(cudaMemset(fill.get(), 0, fill.size() * sizeof(cfloat)));
    CUDADSP_CUDA(
        cudaMemcpy(fill.get(),
                   patches.pinned_master.get(),
                   std::min(fill.size(), p.npatches * p.patch_elements) * sizeof(cfloat),
                   cudaMemcpyHostToDevice));
    r = cufft_floor(geometry_of(c.image_config),
                    c.image_patches,
                    image_batch,
                    nullptr,
                    nullptr,
                    fill.get(),
                    p.repeats);
    r.name = row_image_cufft;
}

void measure_image_correlate(row& r,
                             const image_case& c,
                             const image_input& in,
                             const std::vector<patch_result>& image_reference,
                             int image_repeats)
{
    auto e = core::patch_correlator::make(c.image_config);
    std::vector<patch_result> out(c.image_patches);
    std::memset(out.data(), poison_byte, out.size() * sizeof(patch_result));
    e->correlate(
        in.master_view, in.aligned_view, c.pairs.data(), c.image_patches, out.data());
    check_results(r, out.data(), c.image_patches, c.image_sample, image_reference);
    r.clock = "wall";
    r.samples = double(c.image_patches) * c.image_pair_samples;
    r.bytes = double(c.image_bytes);
    r.time = time_host(1, image_repeats, [&] {
        e->correlate(
            in.master_view, in.aligned_view, c.pairs.data(), c.image_patches, out.data());
    });
    if (r.status == row_status::ok)
        r.note = per_patch(r, c.image_patches) + "; pairs in strip order";
}

void measure_image_cuda_rows(section_report& report,
                             const patch_case& p,
                             const patch_input& patches,
                             const image_case& c,
                             const image_input& in,
                             const std::vector<patch_result>& image_reference)
{
    report.measure(row_image_h2d, [&](row& r) {
        r = floor_h2d_pinned(
            c.image_bytes, double(c.image_patches) * c.image_pair_samples, p.repeats);
        r.name = row_image_h2d;
        r.note = "both images, " + mebibytes(c.image_bytes);
    });

    std::size_t image_batch = 0;
    progress(section_name, row_image_make);
    report.measure(row_image_make, [&](row& r) {
        measure_image_make(r, c, p.slow_repeats, image_batch);
    });

    report.measure(row_image_cufft, [&](row& r) {
        measure_image_cufft_floor(r, c, image_batch, p, patches);
    });

    progress(section_name, row_image);
    report.measure(row_image, [&](row& r) {
        measure_image_correlate(r, c, in, image_reference, p.image_repeats);
    });
}

void measure_image_cpu(row& r,
                       const image_case& c,
                       const image_input& in,
                       int slow_repeats)
{
    auto cpu = core::patch_correlator::make(make_config(image_search, "cpu"));
    std::vector<patch_result> out(in.sample_pairs.size());
    r.clock = "wall";
    r.samples = double(in.sample_pairs.size()) * c.image_pair_samples;
    r.time = time_host(1, slow_repeats, [&] {
        cpu->correlate(in.master_view,
                       in.aligned_view,
                       in.sample_pairs.data(),
                       in.sample_pairs.size(),
                       out.data());
    });
    set_truth_status(r, compare_image_with_planted(out), in.sample_pairs.size());
}

void add_ratios_and_targets(section_report& report)
{
    report.ratio_to(row_device, row_cufft, "cuFFT floor");
    report.ratio_to(row_device, row_d2d, "d2d copy");
    report.target_max_ratio(row_device, "x cuFFT floor", target_cufft_ratio);
    report.ratio_to(row_pinned, row_h2d, "pinned H2D");
    report.speedup_over(row_device, row_cpu, "speed-up vs cpu");
    report.speedup_over(row_pinned, row_cpu, "speed-up vs cpu");
    report.ratio_to(row_image, row_image_cufft, "cuFFT floor");
    report.ratio_to(row_image, row_image_h2d, "pinned H2D");
    report.speedup_over(row_image, row_image_cpu, "speed-up vs cpu");
}

void add_notes(section_report& report, std::size_t cpu_patches, std::size_t cpu_pairs)
{
    report.add_note("a sample is one complex sample of a patch window of either image "
                    "(a pair of 256 x 256 windows is 131072 samples, of 512 x 512 "
                    "524288): ratios compare time per pair; the xs=ys=64 rows are "
                    "compared with each other, the image rows (xs=ys=128) with each "
                    "other");
    report.add_note(
        "'floor: cuFFT transforms': the engine's transforms alone, with its "
        "plans' layouts and its batch, out of place on device buffers; the "
        "engine adds the range spectra's spread, the amplitudes, means, mask, "
        "cross spectrum and the peak and high-resolution kernel");
    report.add_note(
        "check: dx and dy (GMTSAR's formulas, float32) equal and corr within " +
        format(corr_tolerance) + " percent against the cpu engine on " +
        std::to_string(cpu_patches) +
        " patches spread over the run (image rows: " + std::to_string(cpu_pairs) +
        " pairs); every result checked for being written; the cpu rows against the "
        "planted offsets");
}

void run_patch(const bench_options& options,
               const bench_device& device,
               section_report& report)
{
    const patch_case p = make_patch_case(options, device);
    const image_case c = make_image_case(device);
    add_parameters(report, p, c);

    const patch_input patches = make_patch_input(p, device);
    // The reference: the CPU engine on the sample, one call (its rows' times later).
    progress(section_name,
             "reference: cpu engine on " + std::to_string(p.sample.size()) + " patches");
    const std::vector<patch_result> reference = cpu_reference(
        search, p.sample.size(), patches.cpu_master.data(), patches.cpu_aligned.data());
    report.add_parameter("reference_vs_planted",
                         compare_with_planted(reference, p.sample).text());

    if (device.cuda) {
        measure_patch_cuda_rows(report, p, patches, reference);
    } else {
        progress(section_name, "CUDA rows skipped (" + device.skip_reason + ")");
        for (const auto& name : { row_d2d, row_h2d, row_cufft, row_device, row_pinned })
            report.skip(name, device.skip_reason);
    }

    progress(section_name, row_cpu);
    report.measure(row_cpu, [&](row& r) { measure_cpu_patches(r, p, patches); });

    image_input images;
    fill_image_input(images, c, device);
    const std::vector<patch_result> image_reference = cpu_image_reference(images);
    report.add_parameter("image_reference_vs_planted",
                         compare_image_with_planted(image_reference).text());

    if (device.cuda) {
        measure_image_cuda_rows(report, p, patches, c, images, image_reference);
    } else {
        for (const auto& name :
             { row_image_h2d, row_image_make, row_image_cufft, row_image })
            report.skip(name, device.skip_reason);
    }

    progress(section_name, row_image_cpu);
    report.measure(row_image_cpu,
                   [&](row& r) { measure_image_cpu(r, c, images, p.slow_repeats); });

    add_ratios_and_targets(report);
    add_notes(report, p.sample.size(), c.image_sample.size());
}

} // namespace

CUDADSP_BENCH_SECTION(
    patch,
    "patch",
    "image-patch correlator (GMTSAR xcorr), 1000 patches of 256 x 256, xsearch = "
    "ysearch = 64, range_interp 2, interp 16: CUDA engine on device patches (target <= "
    "2x the bare cuFFT transforms) and on pinned host patches, CPU engine on a sample; "
    "correlate() on a pinned 11304 x 9216 int16 pair with -xsearch 128 -ysearch 128 "
    "next to its upload and its cuFFT transforms",
    run_patch);

} // namespace bench
} // namespace cudadsp
} // namespace gr
