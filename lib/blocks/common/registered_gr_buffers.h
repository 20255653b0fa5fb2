/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_REGISTERED_GR_BUFFERS_H
#define INCLUDED_CUDADSP_REGISTERED_GR_BUFFERS_H

#include "runtime/cuda_resources.h"
#include <gnuradio/block.h>
#include <vector>

namespace gr {
namespace cudadsp {

/*!
 * \brief Page-locks the GNU Radio buffers a GPU-backed block reads and writes.
 *
 * GNU Radio's buffers are pageable memory, so without this every batch is first copied
 * into pinned staging memory by the block's thread, which costs more host memory
 * bandwidth than the transfer itself. Registered, they are copied to and from the GPU
 * directly (host_pipeline sees pinned pointers). Registration happens in the block's
 * start() (the buffers exist then and do not move until stop()) and covers both
 * mappings of GNU Radio's double-mapped circular buffers. Where the driver refuses a
 * buffer the block simply stages it, as before; a debug line says so.
 */
class registered_gr_buffers
{
public:
    //! Registers the block's input buffers (the upstream blocks' outputs) and its own
    //! output buffers, with \p cuda_ordinal current; \p logger says what failed.
    void
    register_buffers(gr::block& block, int cuda_ordinal, const gr::logger_ptr& logger);
    //! Unregisters everything (stop(), or destruction).
    void release() { d_registrations.clear(); }

private:
    void register_buffer(gr::buffer& buffer, const gr::logger_ptr& logger);
    std::vector<core::host_registration> d_registrations;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_REGISTERED_GR_BUFFERS_H */
