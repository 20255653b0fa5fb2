/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/registered_gr_buffers.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer.h>
#include <gnuradio/buffer_reader.h>

namespace gr {
namespace cudadsp {

void registered_gr_buffers::register_buffer(gr::buffer& buffer,
                                            const gr::logger_ptr& logger)
{
    void* base = const_cast<char*>(buffer.base());
    const std::size_t bytes =
        static_cast<std::size_t>(buffer.bufsize()) * buffer.get_sizeof_item();
    // A double-mapped buffer is followed by its second mapping; readers and writers
    // cross into it at the wrap, so both are registered when the driver allows it.
    core::host_registration both(base, 2 * bytes);
    if (both.registered()) {
        d_registrations.push_back(std::move(both));
        return;
    }
    core::host_registration first(base, bytes);
    if (first.registered())
        d_registrations.push_back(std::move(first));
    logger->debug("could not page-lock a {}-byte buffer{}: its transfers are staged",
                  bytes,
                  first.registered() ? "'s second mapping" : "");
}

void registered_gr_buffers::register_buffers(gr::block& block,
                                             int cuda_ordinal,
                                             const gr::logger_ptr& logger)
{
    release();
    core::device_guard guard(cuda_ordinal);
    gr::block_detail& detail = *block.detail();
    for (int i = 0; i < detail.ninputs(); ++i)
        register_buffer(*detail.input(i)->buffer(), logger);
    for (int o = 0; o < detail.noutputs(); ++o)
        register_buffer(*detail.output(o), logger);
}

} // namespace cudadsp
} // namespace gr
