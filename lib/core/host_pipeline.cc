/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "host_pipeline.h"
#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

host_pipeline::host_pipeline(std::size_t chunk_items,
                             std::size_t in_item_bytes,
                             std::size_t out_item_bytes)
    : d_chunk_items(chunk_items),
      d_in_item_bytes(in_item_bytes),
      d_out_item_bytes(out_item_bytes)
{
    if (chunk_items == 0 || in_item_bytes == 0 || out_item_bytes == 0)
        throw std::invalid_argument("host_pipeline: chunk and item sizes must be > 0");
}

void host_pipeline::allocate(bool staging)
{
    if (d_slots.empty()) {
        d_slots.resize(slots);
        for (auto& s : d_slots) {
            s.device_in = device_buffer<unsigned char>(d_chunk_items * d_in_item_bytes);
            s.device_out = device_buffer<unsigned char>(d_chunk_items * d_out_item_bytes);
        }
    }
    if (staging && !d_has_staging) {
        for (auto& s : d_slots) {
            s.staging_in = pinned_buffer<unsigned char>(d_chunk_items * d_in_item_bytes);
            s.staging_out =
                pinned_buffer<unsigned char>(d_chunk_items * d_out_item_bytes);
        }
        d_has_staging = true;
    }
}

void host_pipeline::run(const void* host_in,
                        void* host_out,
                        std::size_t items,
                        cudaStream_t compute_stream,
                        const compute_fn& compute)
{
    if (items == 0)
        return;
    const bool in_pinned = is_pinned_host_pointer(host_in);
    const bool out_pinned = is_pinned_host_pointer(host_out);
    allocate(!(in_pinned && out_pinned));

    const auto* in = static_cast<const unsigned char*>(host_in);
    auto* out = static_cast<unsigned char*>(host_out);
    const std::size_t chunks = (items + d_chunk_items - 1) / d_chunk_items;
    auto chunk_items = [&](std::size_t c) {
        return std::min(d_chunk_items, items - c * d_chunk_items);
    };
    // Pageable output is copied out of the staging buffer by this thread once the
    // chunk's download has finished; that also frees the slot's staging_out.
    auto retire = [&](std::size_t c) {
        slot& s = d_slots[c % slots];
        s.downloaded.synchronize();
        if (!out_pinned)
            std::memcpy(out + c * d_chunk_items * d_out_item_bytes,
                        s.staging_out.get(),
                        chunk_items(c) * d_out_item_bytes);
    };

    for (std::size_t c = 0; c < chunks; ++c) {
        slot& s = d_slots[c % slots];
        const std::size_t n = chunk_items(c);
        const std::size_t in_bytes = n * d_in_item_bytes;
        const unsigned char* chunk_in = in + c * d_chunk_items * d_in_item_bytes;
        if (c >= slots) {
            // The slot's previous chunk must be fully downloaded (and retired) before
            // its buffers are reused; retire() of chunk c - slots ran earlier.
            s.uploaded.synchronize();
        }
        if (!in_pinned) {
            std::memcpy(s.staging_in.get(), chunk_in, in_bytes);
            chunk_in = s.staging_in.get();
        }
        if (c >= slots)
            s.computed.wait_on(d_upload_stream.get());
        CUDADSP_CUDA(cudaMemcpyAsync(s.device_in.get(),
                                     chunk_in,
                                     in_bytes,
                                     cudaMemcpyHostToDevice,
                                     d_upload_stream.get()));
        s.uploaded.record(d_upload_stream.get());

        s.uploaded.wait_on(compute_stream);
        if (c >= slots)
            s.downloaded.wait_on(compute_stream);
        compute(s.device_in.get(), s.device_out.get(), n, compute_stream);
        s.computed.record(compute_stream);

        s.computed.wait_on(d_download_stream.get());
        void* chunk_out = out_pinned ? out + c * d_chunk_items * d_out_item_bytes
                                     : static_cast<void*>(s.staging_out.get());
        CUDADSP_CUDA(cudaMemcpyAsync(chunk_out,
                                     s.device_out.get(),
                                     n * d_out_item_bytes,
                                     cudaMemcpyDeviceToHost,
                                     d_download_stream.get()));
        s.downloaded.record(d_download_stream.get());

        if (c >= 1)
            retire(c - 1);
    }
    retire(chunks - 1);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
