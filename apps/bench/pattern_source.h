/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BENCH_PATTERN_SOURCE_H
#define INCLUDED_CUDADSP_BENCH_PATTERN_SOURCE_H

#include <gnuradio/sync_block.h>
#include <cstddef>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {

/*!
 * \brief The flowgraph rows' source: repeats patterns with (parallel) memcpy, so that it
 * is not what limits a flowgraph (blocks::vector_source copies item by item).
 *
 * One output per pattern, items of \p item_bytes bytes (a sample, or a vector such as
 * a pulse); every pattern holds the same whole number of items. Stops after \p items
 * items on each output.
 */
class pattern_source : public gr::sync_block
{
public:
    pattern_source(std::vector<std::vector<unsigned char>> patterns,
                   std::size_t item_bytes,
                   std::size_t items);

    //! The bytes of \p values, for the constructor.
    template <typename T>
    static std::vector<unsigned char> bytes_of(const std::vector<T>& values)
    {
        const auto* p = reinterpret_cast<const unsigned char*>(values.data());
        return std::vector<unsigned char>(p, p + values.size() * sizeof(T));
    }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    const std::vector<std::vector<unsigned char>> d_patterns;
    const std::size_t d_item_bytes;
    const std::size_t d_pattern_items;
    const std::size_t d_items;
    std::size_t d_produced = 0;
};

} // namespace bench
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BENCH_PATTERN_SOURCE_H */
