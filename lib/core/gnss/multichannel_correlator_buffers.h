/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_BUFFERS_H
#define INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_BUFFERS_H

/*
 * How the multichannel correlator's CUDA backend grows its buffers: by half again at
 * least, so that calls of slowly growing sizes reallocate rarely (grow), or keeping
 * the contents (regrow_keeping). Shared by the engine (multichannel_correlator_cuda.cu)
 * and its calls (multichannel_correlator_cuda_call.cu).
 */

#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include <algorithm>
#include <cstddef>
#include <utility>

namespace gr {
namespace cudadsp {
namespace core {

template <typename T>
void grow(device_buffer<T>& buffer, std::size_t count)
{
    if (buffer.size() < count)
        buffer = device_buffer<T>(std::max(count, buffer.size() + buffer.size() / 2));
}

template <typename T>
void grow(pinned_buffer<T>& buffer, std::size_t count)
{
    if (buffer.size() < count)
        buffer = pinned_buffer<T>(std::max(count, buffer.size() + buffer.size() / 2));
}

//! Replaces \p buffer by one of \p count elements that starts with its contents.
template <typename T>
void regrow_keeping(device_buffer<T>& buffer, std::size_t count, cudaStream_t stream)
{
    device_buffer<T> bigger(count);
    if (buffer.size())
        CUDADSP_CUDA(cudaMemcpyAsync(bigger.get(),
                                     buffer.get(),
                                     buffer.bytes(),
                                     cudaMemcpyDeviceToDevice,
                                     stream));
    // The old buffer is freed below: cudaFree waits for the copy.
    buffer = std::move(bigger);
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_BUFFERS_H */
