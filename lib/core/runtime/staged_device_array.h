/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_STAGED_DEVICE_ARRAY_H
#define INCLUDED_CUDADSP_CORE_STAGED_DEVICE_ARRAY_H

#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/parallel_copy.h"
#include <cuda_runtime.h>
#include <cstddef>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * An array an engine moves between host and device whole, call after call: its device
 * copy and, for pageable host memory, a pinned staging buffer (copies from and to
 * pinned host memory are direct DMA; pageable memory is staged with parallel_memcpy).
 * Both are allocated on first use, for \p count elements, so optional arrays cost
 * nothing until a call gives them, and reused: every call must pass the same count.
 */
template <typename T>
struct staged_device_array {
    device_buffer<T> device;
    pinned_buffer<T> staging;

    T* device_copy(std::size_t count)
    {
        if (!device.get())
            device = device_buffer<T>(count);
        return device.get();
    }

    //! Enqueues the copy of \p host to the device copy; \p host may be reused on return.
    T* upload(const T* host, std::size_t count, cudaStream_t stream)
    {
        const T* source = host;
        if (!is_pinned_host_pointer(host)) {
            if (!staging.get())
                staging = pinned_buffer<T>(count);
            parallel_memcpy(staging.get(), host, count * sizeof(T));
            source = staging.get();
        }
        CUDADSP_CUDA(cudaMemcpyAsync(device_copy(count),
                                     source,
                                     count * sizeof(T),
                                     cudaMemcpyHostToDevice,
                                     stream));
        return device.get();
    }

    //! Enqueues the copy of the device copy towards \p host; finish_download() after
    //! the stream is synchronised completes it.
    void start_download(T* host, std::size_t count, cudaStream_t stream)
    {
        T* destination = host;
        if (!is_pinned_host_pointer(host)) {
            if (!staging.get())
                staging = pinned_buffer<T>(count);
            destination = staging.get();
        }
        CUDADSP_CUDA(cudaMemcpyAsync(destination,
                                     device.get(),
                                     count * sizeof(T),
                                     cudaMemcpyDeviceToHost,
                                     stream));
    }

    void finish_download(T* host, std::size_t count)
    {
        if (!is_pinned_host_pointer(host))
            parallel_memcpy(host, staging.get(), count * sizeof(T));
    }
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_STAGED_DEVICE_ARRAY_H */
