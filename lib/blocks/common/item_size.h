/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_ITEM_SIZE_H
#define INCLUDED_CUDADSP_ITEM_SIZE_H

#include <cstddef>
#include <cstdint>

namespace gr {
namespace cudadsp {

/*!
 * The largest number of \p element_bytes elements one stream item may hold: GNU Radio
 * sizes an item in bytes as an int, so INT_MAX / element_bytes.
 */
std::int64_t max_item_elements(std::size_t element_bytes);

/*!
 * Size in bytes of an item of \p count elements of \p element_bytes each, checked
 * before it reaches gr::io_signature (whose own error, "gr::io_signature(3)", names
 * nothing the user set): std::invalid_argument naming \p parameter unless \p count is
 * from 1 to max_item_elements(element_bytes). Blocks call it in their base-class
 * initialiser, where the signatures are built, for every signature of that size: the
 * compiler may build them in either order.
 */
int checked_item_size(const char* parameter,
                      std::int64_t count,
                      std::size_t element_bytes);

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_ITEM_SIZE_H */
