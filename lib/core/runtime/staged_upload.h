/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_STAGED_UPLOAD_H
#define INCLUDED_CUDADSP_CORE_STAGED_UPLOAD_H

#include "runtime/cuda_resources.h"
#include <cstddef>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief Host-to-device copies of large host blocks (image rows) on a stream, from
 * pinned or pageable memory.
 *
 * Pinned memory is copied by DMA directly. Pageable memory goes through a few pinned
 * staging chunks that the calling thread fills with parallel_memcpy() while the copies
 * of the chunks before are in flight; a chunk is refilled once its last copy has
 * completed, so copy() returns when the last chunk is enqueued and the host block may
 * be reused. The chunks are allocated on first use. Construct and use it with the
 * stream's device current.
 */
class staged_upload
{
public:
    //! Enqueues the copy of \p bytes from host \p src to device \p dst on \p stream.
    void copy(void* dst,
              const void* src,
              std::size_t bytes,
              bool src_pinned,
              cudaStream_t stream);

private:
    static constexpr int chunks = 3;
    static constexpr std::size_t chunk_bytes = std::size_t(8) << 20;
    pinned_buffer<unsigned char> d_staging[chunks];
    cuda_event d_free[chunks]; //!< recorded after each chunk's last copy
    int d_next = 0;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_STAGED_UPLOAD_H */
