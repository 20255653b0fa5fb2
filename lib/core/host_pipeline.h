/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_HOST_PIPELINE_H
#define INCLUDED_CUDADSP_CORE_HOST_PIPELINE_H

#include "cuda_resources.h"
#include <functional>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief Runs a device computation over host data in chunks, with the host-to-device
 * copy of one chunk, the computation of the one before and the device-to-host copy of
 * the one before that all in flight together.
 *
 * Each engine with a host-pointer entry point owns one. Host buffers may be pinned
 * (copied by DMA directly) or pageable (staged through pinned buffers by the calling
 * thread, which then overlaps its memcpy with the device's work). The computations run
 * in chunk order on \p compute_stream, so an engine may carry state from one chunk to
 * the next on the device. Device and pinned buffers are allocated on first use and
 * reused.
 *
 * Contract of \p compute(d_in, d_out, items, stream): enqueue work on \p stream that
 * reads items * in_item_bytes from d_in and writes items * out_item_bytes to d_out.
 */
class host_pipeline
{
public:
    using compute_fn = std::function<void(
        const void* d_in, void* d_out, std::size_t items, cudaStream_t stream)>;

    host_pipeline(std::size_t chunk_items,
                  std::size_t in_item_bytes,
                  std::size_t out_item_bytes);

    //! Processes \p items; returns when the output is in \p host_out.
    void run(const void* host_in,
             void* host_out,
             std::size_t items,
             cudaStream_t compute_stream,
             const compute_fn& compute);

    std::size_t chunk_items() const { return d_chunk_items; }

private:
    static constexpr int slots = 3;
    struct slot {
        device_buffer<unsigned char> device_in, device_out;
        pinned_buffer<unsigned char> staging_in, staging_out;
        cuda_event uploaded, computed, downloaded;
    };
    void allocate(bool staging);

    std::size_t d_chunk_items;
    std::size_t d_in_item_bytes;
    std::size_t d_out_item_bytes;
    cuda_stream d_upload_stream;
    cuda_stream d_download_stream;
    std::vector<slot> d_slots;
    bool d_has_staging = false;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_HOST_PIPELINE_H */
