/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/parallel_copy.h"
#include "runtime/staged_upload.h"
#include <algorithm>

namespace gr {
namespace cudadsp {
namespace core {

void staged_upload::copy(
    void* dst, const void* src, std::size_t bytes, bool src_pinned, cudaStream_t stream)
{
    auto* out = static_cast<unsigned char*>(dst);
    const auto* in = static_cast<const unsigned char*>(src);
    if (src_pinned) {
        CUDADSP_CUDA(cudaMemcpyAsync(out, in, bytes, cudaMemcpyHostToDevice, stream));
        return;
    }
    for (std::size_t done = 0; done < bytes; done += chunk_bytes) {
        const std::size_t n = std::min(chunk_bytes, bytes - done);
        const int s = d_next;
        d_next = (d_next + 1) % chunks;
        if (d_staging[s].get() == nullptr)
            d_staging[s] = pinned_buffer<unsigned char>(chunk_bytes);
        d_free[s].synchronize();
        parallel_memcpy(d_staging[s].get(), in + done, n);
        CUDADSP_CUDA(cudaMemcpyAsync(
            out + done, d_staging[s].get(), n, cudaMemcpyHostToDevice, stream));
        d_free[s].record(stream);
    }
}

} // namespace core
} // namespace cudadsp
} // namespace gr
