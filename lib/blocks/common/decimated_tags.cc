/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/decimated_tags.h"
#include <gnuradio/block_detail.h>
#include <algorithm>
#include <vector>

namespace gr {
namespace cudadsp {

void copy_tags_to_containing_items(gr::block& block,
                                   uint64_t decimation,
                                   int noutput_items,
                                   const std::vector<pmt::pmt_t>& withheld_keys)
{
    gr::block_detail& detail = *block.detail();
    const uint64_t span = static_cast<uint64_t>(noutput_items) * decimation;
    std::vector<gr::tag_t> tags;
    for (int port = 0; port < detail.ninputs(); ++port) {
        const uint64_t start = block.nitems_read(port);
        detail.get_tags_in_range(tags, port, start, start + span, block.unique_id());
        for (gr::tag_t tag : tags) {
            if (std::any_of(
                    withheld_keys.begin(),
                    withheld_keys.end(),
                    [&tag](const pmt::pmt_t& key) { return pmt::eq(key, tag.key); }))
                continue;
            tag.offset /= decimation;
            for (int out = 0; out < detail.noutputs(); ++out)
                detail.add_item_tag(out, tag);
        }
    }
}

} // namespace cudadsp
} // namespace gr
