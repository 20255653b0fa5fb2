/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pattern_source.h"
#include "runtime/parallel_copy.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace bench {

pattern_source::pattern_source(std::vector<std::vector<unsigned char>> patterns,
                               std::size_t item_bytes,
                               std::size_t items)
    : gr::sync_block("pattern_source",
                     gr::io_signature::make(0, 0, 0),
                     gr::io_signature::make(static_cast<int>(patterns.size()),
                                            static_cast<int>(patterns.size()),
                                            item_bytes)),
      d_patterns(std::move(patterns)),
      d_item_bytes(item_bytes),
      d_pattern_items(d_patterns.empty() ? 0 : d_patterns[0].size() / item_bytes),
      d_items(items)
{
    for (const auto& p : d_patterns)
        if (d_pattern_items == 0 || p.size() != d_pattern_items * item_bytes)
            throw std::invalid_argument(
                "pattern_source: patterns must hold the same whole number of items");
}

int pattern_source::work(int noutput_items,
                         gr_vector_const_void_star&,
                         gr_vector_void_star& output_items)
{
    if (d_produced == d_items)
        return WORK_DONE;
    const std::size_t n = std::min<std::size_t>(noutput_items, d_items - d_produced);
    for (std::size_t done = 0; done < n;) {
        const std::size_t at = (d_produced + done) % d_pattern_items;
        const std::size_t m = std::min(n - done, d_pattern_items - at);
        for (std::size_t o = 0; o < d_patterns.size(); ++o)
            core::parallel_memcpy(static_cast<unsigned char*>(output_items[o]) +
                                      done * d_item_bytes,
                                  d_patterns[o].data() + at * d_item_bytes,
                                  m * d_item_bytes);
        done += m;
    }
    d_produced += n;
    return static_cast<int>(n);
}

} // namespace bench
} // namespace cudadsp
} // namespace gr
