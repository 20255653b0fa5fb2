/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_GRID_SIZE_H
#define INCLUDED_CUDADSP_CORE_GRID_SIZE_H

#include <cstddef>

namespace gr {
namespace cudadsp {
namespace core {

//! Blocks of \p threads threads that cover \p items items, one thread each.
constexpr unsigned int blocks_for(std::size_t items, unsigned int threads)
{
    return static_cast<unsigned int>((items + threads - 1) / threads);
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GRID_SIZE_H */
