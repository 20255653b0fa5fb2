/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_HOST_PIPELINE_H
#define INCLUDED_CUDADSP_CORE_HOST_PIPELINE_H

#include "runtime/cuda_resources.h"
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
 * An engine may have several inputs and outputs (separate host arrays, all indexed by
 * the same item): \p in_item_bytes and \p out_item_bytes give one item's size in each.
 * Contract of \p compute(d_in, d_out, items, stream): enqueue work on \p stream that
 * reads items * in_item_bytes[i] from d_in[i] for every input i and writes
 * items * out_item_bytes[o] to d_out[o] for every output o (all device pointers to the
 * starts of this chunk's buffers).
 */
class host_pipeline
{
public:
    using compute_fn = std::function<void(const void* const* d_in,
                                          void* const* d_out,
                                          std::size_t items,
                                          cudaStream_t stream)>;

    host_pipeline(std::size_t chunk_items,
                  std::vector<std::size_t> in_item_bytes,
                  std::vector<std::size_t> out_item_bytes);

    /*! Processes \p items; returns when the outputs are in \p host_out. \p host_in and
     *  \p host_out hold one pointer per input and output. */
    void run(const void* const* host_in,
             void* const* host_out,
             std::size_t items,
             cudaStream_t compute_stream,
             const compute_fn& compute);

    std::size_t chunk_items() const { return d_chunk_items; }

private:
    static constexpr int slots = 3;
    //! One array (an input or an output) of one slot.
    struct slot_array {
        device_buffer<unsigned char> device;
        pinned_buffer<unsigned char>
            staging; //!< allocated when the host side is pageable
    };
    struct slot {
        std::vector<slot_array> in, out;
        cuda_event uploaded, computed, downloaded;
    };
    void allocate(const std::vector<bool>& in_pinned,
                  const std::vector<bool>& out_pinned);

    std::size_t d_chunk_items;
    std::vector<std::size_t> d_in_item_bytes;
    std::vector<std::size_t> d_out_item_bytes;
    cuda_stream d_upload_stream;
    cuda_stream d_download_stream;
    std::vector<slot> d_slots;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_HOST_PIPELINE_H */
