/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_DECIMATED_TAGS_H
#define INCLUDED_CUDADSP_DECIMATED_TAGS_H

#include <gnuradio/block.h>
#include <vector>

namespace gr {
namespace cudadsp {

/*!
 * For a decimating block (\p decimation input items per output item, every input
 * port feeding every output port): copies the tags of all inputs over the next
 * \p noutput_items output items' worth of input to every output, each at the output
 * item that holds its input item (offset / decimation).
 *
 * GNU Radio's own propagation (TPP_ALL_TO_ALL) rounds offset / decimation to the
 * nearest output item, so a tag late in a radial or frame would land on the next one;
 * blocks that use this set TPP_DONT.
 *
 * Tags whose key is one of \p withheld_keys are not copied: the block consumes them
 * and describes its output items with tags of its own.
 */
void copy_tags_to_containing_items(gr::block& block,
                                   uint64_t decimation,
                                   int noutput_items,
                                   const std::vector<pmt::pmt_t>& withheld_keys = {});

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_DECIMATED_TAGS_H */
