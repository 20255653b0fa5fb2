/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/host_pipeline.h"
#include "runtime/parallel_copy.h"
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

host_pipeline::host_pipeline(std::size_t chunk_items,
                             std::vector<std::size_t> in_item_bytes,
                             std::vector<std::size_t> out_item_bytes)
    : d_chunk_items(chunk_items),
      d_in_item_bytes(std::move(in_item_bytes)),
      d_out_item_bytes(std::move(out_item_bytes))
{
    auto has_zero = [](const std::vector<std::size_t>& sizes) {
        return std::find(sizes.begin(), sizes.end(), 0) != sizes.end();
    };
    if (chunk_items == 0 || d_in_item_bytes.empty() || d_out_item_bytes.empty() ||
        has_zero(d_in_item_bytes) || has_zero(d_out_item_bytes))
        throw std::invalid_argument(
            "host_pipeline: chunk size, inputs, outputs and item sizes must be > 0");
}

void host_pipeline::allocate(const std::vector<bool>& in_pinned,
                             const std::vector<bool>& out_pinned)
{
    if (d_slots.empty()) {
        d_slots.resize(slots);
        for (auto& s : d_slots) {
            s.in.resize(d_in_item_bytes.size());
            s.out.resize(d_out_item_bytes.size());
            for (std::size_t i = 0; i < s.in.size(); ++i)
                s.in[i].device =
                    device_buffer<unsigned char>(d_chunk_items * d_in_item_bytes[i]);
            for (std::size_t o = 0; o < s.out.size(); ++o)
                s.out[o].device =
                    device_buffer<unsigned char>(d_chunk_items * d_out_item_bytes[o]);
        }
    }
    // Staging buffers are made the first time an array is pageable, then kept.
    for (auto& s : d_slots) {
        for (std::size_t i = 0; i < s.in.size(); ++i)
            if (!in_pinned[i] && s.in[i].staging.get() == nullptr)
                s.in[i].staging =
                    pinned_buffer<unsigned char>(d_chunk_items * d_in_item_bytes[i]);
        for (std::size_t o = 0; o < s.out.size(); ++o)
            if (!out_pinned[o] && s.out[o].staging.get() == nullptr)
                s.out[o].staging =
                    pinned_buffer<unsigned char>(d_chunk_items * d_out_item_bytes[o]);
    }
}

void host_pipeline::run(const void* const* host_in,
                        void* const* host_out,
                        std::size_t items,
                        cudaStream_t compute_stream,
                        const compute_fn& compute)
{
    if (items == 0)
        return;
    const std::size_t inputs = d_in_item_bytes.size();
    const std::size_t outputs = d_out_item_bytes.size();
    std::vector<bool> in_pinned(inputs), out_pinned(outputs);
    for (std::size_t i = 0; i < inputs; ++i)
        in_pinned[i] = is_pinned_host_pointer(host_in[i]);
    for (std::size_t o = 0; o < outputs; ++o)
        out_pinned[o] = is_pinned_host_pointer(host_out[o]);
    allocate(in_pinned, out_pinned);

    const std::size_t chunks = (items + d_chunk_items - 1) / d_chunk_items;
    auto chunk_items = [&](std::size_t c) {
        return std::min(d_chunk_items, items - c * d_chunk_items);
    };
    auto host_in_chunk = [&](std::size_t i, std::size_t c) {
        return static_cast<const unsigned char*>(host_in[i]) +
               c * d_chunk_items * d_in_item_bytes[i];
    };
    auto host_out_chunk = [&](std::size_t o, std::size_t c) {
        return static_cast<unsigned char*>(host_out[o]) +
               c * d_chunk_items * d_out_item_bytes[o];
    };
    // Pageable outputs are copied out of their staging buffers by this thread once the
    // chunk's download has finished; that also frees the slot's staging buffers.
    auto retire = [&](std::size_t c) {
        slot& s = d_slots[c % slots];
        s.downloaded.synchronize();
        for (std::size_t o = 0; o < outputs; ++o)
            if (!out_pinned[o])
                parallel_memcpy(host_out_chunk(o, c),
                                s.out[o].staging.get(),
                                chunk_items(c) * d_out_item_bytes[o]);
    };

    std::vector<const void*> device_in(inputs);
    std::vector<void*> device_out(outputs);
    for (std::size_t c = 0; c < chunks; ++c) {
        slot& s = d_slots[c % slots];
        const std::size_t n = chunk_items(c);
        if (c >= slots) {
            // The slot's previous chunk must be fully downloaded (and retired) before
            // its buffers are reused; retire() of chunk c - slots ran earlier.
            s.uploaded.synchronize();
        }
        for (std::size_t i = 0; i < inputs; ++i)
            if (!in_pinned[i])
                parallel_memcpy(
                    s.in[i].staging.get(), host_in_chunk(i, c), n * d_in_item_bytes[i]);
        if (c >= slots)
            s.computed.wait_on(d_upload_stream.get());
        for (std::size_t i = 0; i < inputs; ++i) {
            const void* source = in_pinned[i]
                                     ? host_in_chunk(i, c)
                                     : static_cast<const void*>(s.in[i].staging.get());
            CUDADSP_CUDA(cudaMemcpyAsync(s.in[i].device.get(),
                                         source,
                                         n * d_in_item_bytes[i],
                                         cudaMemcpyHostToDevice,
                                         d_upload_stream.get()));
            device_in[i] = s.in[i].device.get();
        }
        s.uploaded.record(d_upload_stream.get());

        s.uploaded.wait_on(compute_stream);
        if (c >= slots)
            s.downloaded.wait_on(compute_stream);
        for (std::size_t o = 0; o < outputs; ++o)
            device_out[o] = s.out[o].device.get();
        compute(device_in.data(), device_out.data(), n, compute_stream);
        s.computed.record(compute_stream);

        s.computed.wait_on(d_download_stream.get());
        for (std::size_t o = 0; o < outputs; ++o) {
            void* destination = out_pinned[o]
                                    ? static_cast<void*>(host_out_chunk(o, c))
                                    : static_cast<void*>(s.out[o].staging.get());
            CUDADSP_CUDA(cudaMemcpyAsync(destination,
                                         s.out[o].device.get(),
                                         n * d_out_item_bytes[o],
                                         cudaMemcpyDeviceToHost,
                                         d_download_stream.get()));
        }
        s.downloaded.record(d_download_stream.get());

        if (c >= 1)
            retire(c - 1);
    }
    retire(chunks - 1);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
