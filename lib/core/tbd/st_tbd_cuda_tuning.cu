/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// How the track-before-detect CUDA backend chooses its implementation: the generic or
// the generated (NVRTC) kernel, software or texture bilinear interpolation, and the
// generated kernel's line order; each given by the configuration, found in the tuning
// cache, or timed (time_update) and autotuned (LREI). st_tbd_cuda.cu runs the frames.

#include "runtime/cuda_check.h"
#include "tbd/lrei.h"
#include "tbd/st_tbd_cuda.h"
#include "tbd/tuning_cache.h"
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Timed runs per measurement: the minimum is the metric (Mazurek 2012, Sect. 4.4).
constexpr std::size_t bilinear_timing_repeats = 20;
constexpr std::size_t autotune_timing_repeats = 10;
//! The texture path addresses cells by float coordinates: below 2^13 they are rounded
//! by at most 2^-11 of a cell, small beside the texture unit's 1/256 (the bound in
//! st_tbd.h counts both).
constexpr std::size_t max_texture_extent = std::size_t(1) << 13;

tbd_autotune_progress to_public(const lrei_progress& p, double seconds)
{
    tbd_autotune_progress out;
    out.iteration = p.iteration;
    out.iterations = p.max_iterations;
    out.elapsed_s = p.elapsed_s;
    out.seconds = seconds;
    out.start_ms = p.start_ms;
    out.best_ms = p.best_ms;
    out.accepted = p.accepted;
    out.finished = p.finished;
    return out;
}

} // namespace

bool st_tbd_cuda::texture_available(std::string* why) const
{
    cudaDeviceProp props{};
    CUDADSP_CUDA(cudaGetDeviceProperties(&props, d_device.cuda_ordinal));
    const std::size_t pitch_bytes = d_layout.pitch * sizeof(float);
    std::string reason;
    if (d_layout.planes > tbd_max_texture_planes)
        reason = std::to_string(d_layout.planes) + " hypotheses, more than " +
                 std::to_string(tbd_max_texture_planes) + " texture planes";
    else if (d_layout.pitch > max_texture_extent || d_layout.rows > max_texture_extent)
        reason = "a guarded plane of " + std::to_string(d_layout.pitch) + " x " +
                 std::to_string(d_layout.rows) + " cells is beyond " +
                 std::to_string(max_texture_extent) +
                 " (float texture coordinates lose the 1/256 fraction)";
    else if (d_layout.pitch > std::size_t(props.maxTexture2DLinear[0]) ||
             d_layout.rows > std::size_t(props.maxTexture2DLinear[1]) ||
             pitch_bytes > std::size_t(props.maxTexture2DLinear[2]))
        reason = "the device's pitched 2D texture limits are smaller than a plane";
    else if (pitch_bytes % props.texturePitchAlignment != 0 ||
             (d_layout.plane_stride * sizeof(float)) % props.textureAlignment != 0)
        reason = "the device's texture alignment does not divide the plane layout";
    if (why)
        *why = reason;
    return reason.empty();
}

void st_tbd_cuda::create_textures()
{
    for (int b = 0; b < 2; ++b) {
        d_textures[b].reserve(d_layout.planes);
        for (std::size_t m = 0; m < d_layout.planes; ++m) {
            cudaResourceDesc resource{};
            resource.resType = cudaResourceTypePitch2D;
            resource.res.pitch2D.devPtr = d_state[b] + m * d_layout.plane_stride;
            resource.res.pitch2D.desc = cudaCreateChannelDesc<float>();
            resource.res.pitch2D.width = d_layout.pitch;
            resource.res.pitch2D.height = d_layout.rows;
            resource.res.pitch2D.pitchInBytes = d_layout.pitch * sizeof(float);
            cudaTextureDesc texture{};
            // Border (0) outside the plane: the guard already reads 0 there, so a plane
            // never reads its neighbour whatever the offset.
            texture.addressMode[0] = cudaAddressModeBorder;
            texture.addressMode[1] = cudaAddressModeBorder;
            texture.filterMode = cudaFilterModeLinear;
            texture.readMode = cudaReadModeElementType;
            texture.normalizedCoords = 0;
            cudaTextureObject_t object = 0;
            CUDADSP_CUDA(cudaCreateTextureObject(&object, &resource, &texture, nullptr));
            d_textures[b].push_back(object);
        }
        d_texture_table[b] = device_buffer<cudaTextureObject_t>(d_layout.planes);
        CUDADSP_CUDA(cudaMemcpy(d_texture_table[b].get(),
                                d_textures[b].data(),
                                d_texture_table[b].bytes(),
                                cudaMemcpyHostToDevice));
    }
}

void st_tbd_cuda::destroy_textures() noexcept
{
    for (int b = 0; b < 2; ++b) {
        for (cudaTextureObject_t t : d_textures[b])
            cudaDestroyTextureObject(t);
        d_textures[b].clear();
    }
}

st_tbd_cuda::generated_kernel st_tbd_cuda::compile(const std::vector<std::size_t>& order,
                                                   tbd_bilinear_mode mode) const
{
    int major = 0, minor = 0;
    CUDADSP_CUDA(cudaDeviceGetAttribute(
        &major, cudaDevAttrComputeCapabilityMajor, d_device.cuda_ordinal));
    CUDADSP_CUDA(cudaDeviceGetAttribute(
        &minor, cudaDevAttrComputeCapabilityMinor, d_device.cuda_ordinal));
    const nvrtc_image image =
        nvrtc_compile(st_tbd_generated_source(d_layout, d_table, order, mode),
                      "st_tbd_generated.cu",
                      st_tbd_rule_headers(),
                      st_tbd_nvrtc_options(),
                      major,
                      minor);
    generated_kernel kernel;
    kernel.module = cuda_module(image.data);
    kernel.function = kernel.module.function(tbd_generated_kernel_name);
    return kernel;
}

void st_tbd_cuda::choose_implementation()
{
    std::string texture_reason;
    const bool texture_ok = texture_available(&texture_reason);
    if (d_config.bilinear == "texture" && !texture_ok)
        throw std::invalid_argument("bilinear: \"texture\" is not available for this "
                                    "configuration: " +
                                    texture_reason);
    if (texture_ok && d_config.bilinear != "software")
        create_textures();

    const std::vector<std::size_t> sorted = lrei_sorted_order(st_tbd_line_keys(d_config));
    choose_kernel(sorted);
    const bool generated = d_kernel == kernel_kind::generated;

    cudaDeviceProp props{};
    CUDADSP_CUDA(cudaGetDeviceProperties(&props, d_device.cuda_ordinal));
    const tuning_cache cache(d_config.cache_dir);
    auto key_for = [&](const std::string& purpose) {
        return tuning_key{ props.name,
                           props.major,
                           props.minor,
                           tuning_config_hash(
                               st_tbd_cache_description(d_config, d_layout, purpose)) };
    };

    choose_bilinear(
        sorted,
        texture_ok,
        cache,
        key_for(std::string("bilinear ") + (generated ? "generated" : "generic")));
    if (d_bilinear == tbd_bilinear_mode::software)
        destroy_textures();

    if (generated)
        choose_line_order(
            sorted, cache, key_for(std::string("order ") + to_string(d_bilinear)));
}

void st_tbd_cuda::choose_kernel(const std::vector<std::size_t>& sorted)
{
    // "auto" takes the generated kernel when NVRTC compiles it and the driver loads it.
    d_kernel = kernel_kind::generic;
    if (d_config.kernel == "generic")
        return;
    try {
        d_generated = compile(sorted, tbd_bilinear_mode::software);
        d_kernel = kernel_kind::generated;
    } catch (const std::exception& e) {
        if (d_config.kernel == "generated")
            throw;
        d_generated_failure = e.what();
    }
}

void st_tbd_cuda::choose_bilinear(const std::vector<std::size_t>& sorted,
                                  bool texture_ok,
                                  const tuning_cache& cache,
                                  const tuning_key& key)
{
    // Given, forced by the configuration, cached, or timed.
    if (d_config.bilinear == "texture") {
        d_bilinear = tbd_bilinear_mode::texture;
        return;
    }
    if (d_config.bilinear == "software" || !texture_ok) {
        d_bilinear = tbd_bilinear_mode::software;
        return;
    }
    const tuning_lookup found = cache.lookup(key, d_table.taps.size());
    if (found.hit() &&
        (found.entry.bilinear == "texture" || found.entry.bilinear == "software")) {
        d_bilinear = found.entry.bilinear == "texture" ? tbd_bilinear_mode::texture
                                                       : tbd_bilinear_mode::software;
        return;
    }
    double texture_ms, software_ms;
    if (d_kernel == kernel_kind::generated) {
        const generated_kernel with_texture = compile(sorted, tbd_bilinear_mode::texture);
        texture_ms = time_update(
            bilinear_timing_repeats, tbd_bilinear_mode::texture, &with_texture);
        software_ms = time_update(
            bilinear_timing_repeats, tbd_bilinear_mode::software, &d_generated);
    } else {
        texture_ms =
            time_update(bilinear_timing_repeats, tbd_bilinear_mode::texture, nullptr);
        software_ms =
            time_update(bilinear_timing_repeats, tbd_bilinear_mode::software, nullptr);
    }
    d_bilinear = texture_ms < software_ms ? tbd_bilinear_mode::texture
                                          : tbd_bilinear_mode::software;
    tuning_entry entry;
    entry.order = sorted;
    entry.best_ms = std::min(texture_ms, software_ms);
    entry.start_ms = std::max(texture_ms, software_ms);
    entry.bilinear = to_string(d_bilinear);
    cache.store(key, entry); // a cache that cannot be written only costs time
}

void st_tbd_cuda::choose_line_order(const std::vector<std::size_t>& sorted,
                                    const tuning_cache& cache,
                                    const tuning_key& key)
{
    // Cached, autotuned, or the sorted start.
    const tuning_lookup found = cache.lookup(key, d_table.taps.size());
    std::vector<std::size_t> order = sorted;
    d_order_source = "sorted";
    if (found.hit()) {
        order = found.entry.order;
        d_order_source = "cache";
    } else if (d_config.autotune) {
        const tuning_entry entry = autotune_line_order(sorted);
        order = entry.order;
        d_order_source = "autotune";
        cache.store(key, entry);
    }
    if (order != sorted || d_bilinear != tbd_bilinear_mode::software)
        d_generated = compile(order, d_bilinear);
    d_order = order;
}

tuning_entry st_tbd_cuda::autotune_line_order(const std::vector<std::size_t>& sorted)
{
    const tbd_bilinear_mode mode = d_bilinear;
    auto metric = [&](const std::vector<std::size_t>& candidate) {
        const generated_kernel kernel = compile(candidate, mode);
        return time_update(autotune_timing_repeats, mode, &kernel);
    };
    lrei_budget budget;
    budget.max_iterations = d_config.autotune_iterations;
    budget.max_seconds = d_config.autotune_seconds;
    lrei_progress_callback progress;
    if (d_config.autotune_progress) {
        const double seconds = d_config.autotune_seconds;
        progress = [&, seconds](const lrei_progress& p) {
            d_config.autotune_progress(to_public(p, seconds));
        };
    }
    const lrei_result result = lrei_search(sorted, metric, budget, progress);
    // The search kept the child only when it timed faster; one more comparison of the
    // two, side by side, guards against a lucky measurement.
    tuning_entry entry;
    entry.order = result.order;
    entry.start_ms = result.start_ms;
    entry.best_ms = result.start_ms;
    if (entry.order != sorted) {
        entry.best_ms = metric(entry.order);
        entry.start_ms = metric(sorted);
        if (!(entry.best_ms < entry.start_ms)) {
            entry.order = sorted;
            entry.best_ms = entry.start_ms;
        }
    }
    entry.bilinear = to_string(d_bilinear);
    return entry;
}

double st_tbd_cuda::time_update(std::size_t repeats,
                                tbd_bilinear_mode mode,
                                const generated_kernel* kernel)
{
    const cudaStream_t stream = d_stream->get();
    d_state_stream.switch_to(stream);
    const cuda_event start(true), stop(true);
    // Warm-up: first launch of a module, caches, clocks.
    enqueue_update(d_scratch_frame.get(),
                   d_scratch_map.get(),
                   d_scratch_argmax.get(),
                   stream,
                   mode,
                   kernel);
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t r = 0; r < std::max<std::size_t>(1, repeats); ++r) {
        start.record(stream);
        enqueue_update(d_scratch_frame.get(),
                       d_scratch_map.get(),
                       d_scratch_argmax.get(),
                       stream,
                       mode,
                       kernel);
        stop.record(stream);
        stop.synchronize();
        best = std::min(best, double(stop.elapsed_ms_since(start)));
    }
    return best;
}

double st_tbd_cuda::frame_time_ms(std::size_t repeats)
{
    device_guard guard(d_device.cuda_ordinal);
    return time_update(
        repeats, d_bilinear, d_kernel == kernel_kind::generated ? &d_generated : nullptr);
}

std::vector<std::size_t> st_tbd_cuda::line_order() const
{
    return d_kernel == kernel_kind::generated ? d_order : std::vector<std::size_t>{};
}

void st_tbd_cuda::set_line_order(const std::vector<std::size_t>& order)
{
    if (d_kernel != kernel_kind::generated)
        st_tbd::set_line_order(order);
    if (order.size() != d_table.taps.size() || !lrei_is_permutation(order))
        throw std::invalid_argument("order: must be a permutation of 0.." +
                                    std::to_string(d_table.taps.size() - 1));
    device_guard guard(d_device.cuda_ordinal);
    generated_kernel kernel = compile(order, d_bilinear);
    // The old module may still be running enqueued frames.
    CUDADSP_CUDA(cudaStreamSynchronize(d_state_stream.last()));
    d_generated = std::move(kernel);
    d_order = order;
    d_order_source = "set";
}

} // namespace core
} // namespace cudadsp
} // namespace gr
