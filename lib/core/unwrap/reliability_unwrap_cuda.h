/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_RELIABILITY_UNWRAP_CUDA_H
#define INCLUDED_CUDADSP_CORE_RELIABILITY_UNWRAP_CUDA_H

#include "unwrap/phase_unwrap_2d_rule.h"
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <cuda_runtime.h>
#include <memory>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * The reliability method on the device, for phase_unwrapper_2d_cuda: the minimum
 * spanning forest that the CPU backend's sequential Kruskal builds, built in parallel by
 * Boruvka's algorithm, and the same outputs bit for bit (phase_unwrap_2d.h states them).
 *
 * The frame's work buffers (device_bytes()) are allocated at construction and reused;
 * created and used with the engine's device current.
 */
class reliability_unwrap_cuda
{
public:
    explicit reliability_unwrap_cuda(const phase_unwrap_2d_config& config);
    ~reliability_unwrap_cuda();

    /*! Device memory of the work buffers for \p config: 103 bytes a pixel guided by
     *  the local gradient, 87 with gradient_window 1; CUB's scratch not counted. */
    static std::size_t device_bytes(const phase_unwrap_2d_config& config);

    /*! One frame in device buffers (wrapped and unwrapped may alias), work ordered on
     *  \p stream; returns when finished. The host waits for the stream a few times per
     *  Boruvka iteration (about log2(pixels) iterations at most) to read how far the
     *  forest has come. */
    unwrap_2d_report solve(const unwrap_2d_buffers& device, cudaStream_t stream);

private:
    struct workspace;
    // The steps of solve(), in order, all on \p stream.
    //! Every valid pixel a tree of its own; the pixels' edge keys and existing edges.
    void plant_forest(const unwrap_2d_buffers& device, cudaStream_t stream);
    //! The existing edges in ascending index into edges[0]; returns their count.
    unsigned int select_edges(cudaStream_t stream);
    //! The \p edge_count selected edges sorted by their order keys (stable: ties keep
    //! ascending edge index); returns them.
    const std::uint32_t* sort_edges(unsigned int edge_count, cudaStream_t stream);
    //! Boruvka iterations over \p sorted_edges until no tree has an edge left to join.
    void merge_trees(const std::uint32_t* sorted_edges,
                     unsigned int edge_count,
                     const unwrap_2d_buffers& device,
                     cudaStream_t stream);
    //! Pointer jumping on the hooks of one Boruvka iteration until each leads to a root.
    void jump_to_roots(unsigned int hook_bound, int& link_slot, cudaStream_t stream);
    //! Unwrapped phases, cycles and, when asked, component numbers from the forest.
    void write_outputs(const unwrap_2d_buffers& device, cudaStream_t stream);

    const unwrap_2d_geometry d_geometry;
    const unwrap_period d_period;
    const unsigned int d_pixels;
    //! Half the side of the window of guided_edge_cycles() (0: edge_cycles()).
    const std::int32_t d_gradient_half_window;
    std::unique_ptr<workspace> d_ws;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_RELIABILITY_UNWRAP_CUDA_H */
