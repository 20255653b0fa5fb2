/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/cuda_resources.h"

namespace gr {
namespace cudadsp {
namespace core {

device_guard::device_guard(int ordinal)
{
    CUDADSP_CUDA(cudaGetDevice(&d_previous));
    if (d_previous != ordinal)
        CUDADSP_CUDA(cudaSetDevice(ordinal));
}

device_guard::~device_guard()
{
    int current = -1;
    if (cudaGetDevice(&current) == cudaSuccess && current != d_previous)
        cudaSetDevice(d_previous);
}

cuda_stream::cuda_stream()
{
    CUDADSP_CUDA(cudaStreamCreateWithFlags(&d_stream, cudaStreamNonBlocking));
}

cuda_stream::~cuda_stream()
{
    if (d_stream)
        cudaStreamDestroy(d_stream);
}

void cuda_stream::synchronize() const { CUDADSP_CUDA(cudaStreamSynchronize(d_stream)); }

cuda_event::cuda_event(bool timing_enabled)
{
    CUDADSP_CUDA(cudaEventCreateWithFlags(
        &d_event, timing_enabled ? cudaEventDefault : cudaEventDisableTiming));
}

cuda_event::~cuda_event()
{
    if (d_event)
        cudaEventDestroy(d_event);
}

void cuda_event::record(cudaStream_t stream) const
{
    CUDADSP_CUDA(cudaEventRecord(d_event, stream));
}

void cuda_event::synchronize() const { CUDADSP_CUDA(cudaEventSynchronize(d_event)); }

void cuda_event::wait_on(cudaStream_t stream) const
{
    CUDADSP_CUDA(cudaStreamWaitEvent(stream, d_event, 0));
}

float cuda_event::elapsed_ms_since(const cuda_event& start) const
{
    float ms = 0.0f;
    CUDADSP_CUDA(cudaEventElapsedTime(&ms, start.d_event, d_event));
    return ms;
}

void stream_order::switch_to(cudaStream_t stream)
{
    if (stream == d_last)
        return;
    cuda_event handoff;
    handoff.record(d_last);
    handoff.wait_on(stream);
    d_last = stream;
}

bool is_pinned_host_pointer(const void* ptr)
{
    cudaPointerAttributes attributes{};
    // Pageable memory is reported as cudaMemoryTypeUnregistered (no error since CUDA 11).
    CUDADSP_CUDA(cudaPointerGetAttributes(&attributes, ptr));
    return attributes.type == cudaMemoryTypeHost;
}

host_registration::host_registration(void* ptr, std::size_t bytes)
{
    if (ptr && bytes &&
        cudaHostRegister(ptr, bytes, cudaHostRegisterPortable) == cudaSuccess)
        d_ptr = ptr;
    else
        cudaGetLastError(); // a failed registration leaves no sticky error; clear it
}

host_registration::~host_registration()
{
    if (d_ptr)
        cudaHostUnregister(d_ptr);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
