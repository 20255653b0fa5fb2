/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_support.h"
#include "qa_unwrap_2d_device.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include <cuda_runtime.h>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

namespace {

//! A device copy of \p host (none, null, where it is empty).
template <typename T>
core::device_buffer<T> upload(const std::vector<T>& host)
{
    core::device_buffer<T> copy(host.size());
    if (!host.empty())
        CUDADSP_CUDA(
            cudaMemcpy(copy.get(), host.data(), copy.bytes(), cudaMemcpyHostToDevice));
    return copy;
}

template <typename T>
void download(const core::device_buffer<T>& device, std::vector<T>& host)
{
    host.resize(device.size());
    CUDADSP_CUDA(
        cudaMemcpy(host.data(), device.get(), device.bytes(), cudaMemcpyDeviceToHost));
}

} // namespace

unwrap_2d_outputs run_unwrap_2d_on_device(core::phase_unwrapper_2d& engine,
                                          const unwrap_2d_frame& frame,
                                          core::cuda_stream_t stream,
                                          std::int32_t poison_integer)
{
    const std::size_t n = frame.width * frame.height;
    const bool with_components =
        engine.config().method != core::unwrap_2d_method::least_squares;
    const core::device_buffer<float> wrapped = upload(frame.wrapped);
    const core::device_buffer<float> weight = upload(frame.weight);
    const core::device_buffer<std::uint8_t> mask = upload(frame.mask);
    core::device_buffer<float> unwrapped = upload(std::vector<float>(n, poison_value));
    const std::vector<std::int32_t> poison(n, poison_integer);
    core::device_buffer<std::int32_t> cycles = upload(poison);
    core::device_buffer<std::int32_t> components =
        upload(with_components ? poison : std::vector<std::int32_t>());

    core::unwrap_2d_buffers b;
    b.wrapped = wrapped.get();
    b.unwrapped = unwrapped.get();
    b.weight = weight.get();
    b.mask = mask.get();
    b.cycles = cycles.get();
    b.components = components.get();
    unwrap_2d_outputs o;
    o.report = engine.unwrap_device(b, stream);
    download(unwrapped, o.unwrapped);
    download(cycles, o.cycles);
    if (with_components)
        download(components, o.components);
    return o;
}

} // namespace qa
} // namespace cudadsp
} // namespace gr
