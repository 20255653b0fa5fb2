/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/staged_device_array.h"
#include "unwrap/least_squares_unwrap_cuda.h"
#include "unwrap/mcf_network_inputs_cuda.h"
#include "unwrap/mcf_tiled_unwrap.h"
#include "unwrap/phase_unwrap_2d_cuda.h"
#include "unwrap/reliability_unwrap_cuda.h"
#include <cuda_runtime.h>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

struct phase_unwrapper_2d_cuda::workspace {
    cuda_stream stream;
    staged_device_array<float> wrapped;
    staged_device_array<float> unwrapped;
    staged_device_array<float> weight;
    staged_device_array<std::uint8_t> mask;
    staged_device_array<std::int32_t> cycles;
    staged_device_array<std::int32_t> components;
    // MCF: the frame on the host (device frames copied through these), for the tile
    // solvers, whose network inputs come from the GPU; the outputs only where the
    // frame is one tile, solved whole on the host.
    std::vector<float> host_wrapped, host_unwrapped, host_weight;
    std::vector<std::uint8_t> host_mask;
    std::vector<std::int32_t> host_cycles, host_components;
    // MCF, a frame of several tiles: the joined tiles' K (join_tiles() writes them
    // here) and their device copy, which the frame's integration reads.
    pinned_buffer<std::int64_t> host_known_cycles;
    device_buffer<std::int64_t> known_cycles;
};

memory_need phase_unwrapper_2d_cuda::memory_needed(const phase_unwrap_2d_config& config)
{
    // One frame of each buffer of unwrap_2d_buffers, as the workspace stages them.
    const std::size_t frame_bytes =
        config.pixels() *
        (3 * sizeof(float) + sizeof(std::uint8_t) + 2 * sizeof(std::int32_t));
    memory_need need;
    if (config.method == unwrap_2d_method::mcf) {
        // The tile solvers read host frames: device frames pass through one host copy
        // of each buffer. Each tile solver's stage holds one tile on the device, and
        // pinned staging for it. A frame of several tiles is integrated on the device:
        // the joined K, pinned and on the device, the forest's buffers and, for host
        // buffers, the frame's device copies.
        const mcf_tiled_unwrap::solver_layout layout = mcf_tiled_unwrap::layout(config);
        need.host_bytes =
            mcf_tiled_unwrap::bytes(config, false) + frame_bytes +
            layout.solvers * mcf_network_inputs_cuda::host_bytes(layout.tile);
        need.device_bytes =
            layout.solvers * mcf_network_inputs_cuda::device_bytes(layout.tile);
        if (layout.tiles > 1) {
            const std::size_t known_bytes = config.pixels() * sizeof(std::int64_t);
            need.host_bytes += known_bytes;
            need.device_bytes +=
                known_bytes + frame_bytes +
                reliability_unwrap_cuda::device_bytes(config, forest_edges::known_cycles);
        }
        return need;
    }
    need.host_bytes = frame_bytes;
    need.device_bytes =
        frame_bytes + (config.method == unwrap_2d_method::least_squares
                           ? least_squares_unwrap_cuda::device_bytes(config)
                           : reliability_unwrap_cuda::device_bytes(config));
    return need;
}

phase_unwrapper_2d_cuda::phase_unwrapper_2d_cuda(const phase_unwrap_2d_config& config,
                                                 const device_selection& device)
    : phase_unwrapper_2d(config, device)
{
    device_guard guard(d_device.cuda_ordinal);
    d_ws = std::make_unique<workspace>();
    switch (config.method) {
    case unwrap_2d_method::reliability:
        d_reliability = std::make_unique<reliability_unwrap_cuda>(config);
        break;
    case unwrap_2d_method::least_squares:
        d_least_squares = std::make_unique<least_squares_unwrap_cuda>(config);
        break;
    case unwrap_2d_method::mcf: {
        const int ordinal = d_device.cuda_ordinal;
        d_mcf = std::make_unique<mcf_tiled_unwrap>(
            config, [ordinal](const phase_unwrap_2d_config& tile) {
                return std::make_unique<mcf_network_inputs_cuda>(tile, ordinal);
            });
        if (d_mcf->tiled()) {
            d_mcf_frame = std::make_unique<reliability_unwrap_cuda>(
                config, forest_edges::known_cycles);
            d_ws->host_known_cycles = pinned_buffer<std::int64_t>(config.pixels());
            d_ws->known_cycles = device_buffer<std::int64_t>(config.pixels());
        }
        break;
    }
    }
}

phase_unwrapper_2d_cuda::~phase_unwrapper_2d_cuda()
{
    try {
        device_guard guard(d_device.cuda_ordinal);
        d_least_squares.reset();
        d_reliability.reset();
        d_mcf_frame.reset();
        d_mcf.reset();
        d_ws.reset();
    } catch (...) {
        // Destructors must not throw; the device is already in an error state.
    }
}

unwrap_2d_report phase_unwrapper_2d_cuda::solve(const unwrap_2d_buffers& device,
                                                cuda_stream_t stream)
{
    if (d_mcf)
        return solve_mcf_through_host(device, stream);
    return d_reliability ? d_reliability->solve(device, stream)
                         : d_least_squares->solve(device, stream);
}

unwrap_2d_report
phase_unwrapper_2d_cuda::solve_mcf_through_host(const unwrap_2d_buffers& device,
                                                cuda_stream_t stream)
{
    workspace& ws = *d_ws;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    const std::size_t n = d_config.pixels();
    auto download = [&](auto& host, const auto* from) {
        host.resize(n);
        CUDADSP_CUDA(cudaMemcpyAsync(
            host.data(), from, n * sizeof(host[0]), cudaMemcpyDeviceToHost, s));
    };
    auto upload = [&](auto* to, const auto& host) {
        CUDADSP_CUDA(cudaMemcpyAsync(
            to, host.data(), n * sizeof(host[0]), cudaMemcpyHostToDevice, s));
    };
    unwrap_2d_buffers host;
    download(ws.host_wrapped, device.wrapped);
    host.wrapped = ws.host_wrapped.data();
    if (device.weight != nullptr) {
        download(ws.host_weight, device.weight);
        host.weight = ws.host_weight.data();
    }
    if (device.mask != nullptr) {
        download(ws.host_mask, device.mask);
        host.mask = ws.host_mask.data();
    }
    if (d_mcf->tiled()) {
        CUDADSP_CUDA(cudaStreamSynchronize(s));
        return solve_mcf_tiles(host, device, s);
    }
    ws.host_unwrapped.resize(n);
    host.unwrapped = ws.host_unwrapped.data();
    if (device.cycles != nullptr) {
        ws.host_cycles.resize(n);
        host.cycles = ws.host_cycles.data();
    }
    if (device.components != nullptr) {
        ws.host_components.resize(n);
        host.components = ws.host_components.data();
    }
    CUDADSP_CUDA(cudaStreamSynchronize(s));
    const unwrap_2d_report report = d_mcf->unwrap(host);
    upload(device.unwrapped, ws.host_unwrapped);
    if (device.cycles != nullptr)
        upload(device.cycles, ws.host_cycles);
    if (device.components != nullptr)
        upload(device.components, ws.host_components);
    // The host copies must outlive the copies from them.
    CUDADSP_CUDA(cudaStreamSynchronize(s));
    return report;
}

unwrap_2d_report phase_unwrapper_2d_cuda::solve_mcf_tiles(const unwrap_2d_buffers& host,
                                                          const unwrap_2d_buffers& device,
                                                          cuda_stream_t stream)
{
    workspace& ws = *d_ws;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    unwrap_2d_report report = d_mcf->join_tiles(host, ws.host_known_cycles.get());
    CUDADSP_CUDA(cudaMemcpyAsync(ws.known_cycles.get(),
                                 ws.host_known_cycles.get(),
                                 ws.known_cycles.bytes(),
                                 cudaMemcpyHostToDevice,
                                 s));
    // Returns with the stream finished: the pinned K may be written again.
    const unwrap_2d_report frame =
        d_mcf_frame->integrate_known_cycles(ws.known_cycles.get(), device, s);
    report.valid_pixels = frame.valid_pixels;
    report.components = frame.components;
    return report;
}

unwrap_2d_report phase_unwrapper_2d_cuda::unwrap_host(const unwrap_2d_buffers& host)
{
    device_guard guard(d_device.cuda_ordinal);
    if (d_mcf && !d_mcf->tiled())
        return d_mcf->unwrap(host);
    workspace& ws = *d_ws;
    const cudaStream_t stream = ws.stream.get();
    const std::size_t n = d_config.pixels();
    // The inputs are read (staged or enqueued) before any output is written, so
    // host.unwrapped may alias host.wrapped.
    // MCF reads the weight and mask on the host only.
    unwrap_2d_buffers device;
    device.wrapped = ws.wrapped.upload(host.wrapped, n, stream);
    if (host.weight != nullptr && !d_mcf)
        device.weight = ws.weight.upload(host.weight, n, stream);
    if (host.mask != nullptr && !d_mcf)
        device.mask = ws.mask.upload(host.mask, n, stream);
    device.unwrapped = ws.unwrapped.device_copy(n);
    if (host.cycles != nullptr)
        device.cycles = ws.cycles.device_copy(n);
    if (host.components != nullptr)
        device.components = ws.components.device_copy(n);

    const unwrap_2d_report report =
        d_mcf ? solve_mcf_tiles(host, device, stream) : solve(device, stream);

    ws.unwrapped.start_download(host.unwrapped, n, stream);
    if (host.cycles != nullptr)
        ws.cycles.start_download(host.cycles, n, stream);
    if (host.components != nullptr)
        ws.components.start_download(host.components, n, stream);
    ws.stream.synchronize();
    ws.unwrapped.finish_download(host.unwrapped, n);
    if (host.cycles != nullptr)
        ws.cycles.finish_download(host.cycles, n);
    if (host.components != nullptr)
        ws.components.finish_download(host.components, n);
    return report;
}

unwrap_2d_report
phase_unwrapper_2d_cuda::unwrap_on_device(const unwrap_2d_buffers& device,
                                          cuda_stream_t stream)
{
    device_guard guard(d_device.cuda_ordinal);
    // Each call returns with its frame finished, so no work of an earlier call, on
    // whichever stream, can still be using the workspace: no stream_order needed.
    return solve(device, stream != nullptr ? stream : d_ws->stream.get());
}

} // namespace core
} // namespace cudadsp
} // namespace gr
