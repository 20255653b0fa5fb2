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

//! What decides the forest's edges and the whole periods across them.
enum class forest_edges {
    /*! The reliability method: edges joined in order of reliability, the periods
     *  across each from the wrapped phases (solve()). */
    reliability,
    /*! A frame whose pixels' whole periods are known up to one constant per connected
     *  component (the MCF tiles, joined): edges joined in index order, the periods
     *  across each the difference of the known ones (integrate_known_cycles()). */
    known_cycles,
};

/*!
 * The reliability method on the device, for phase_unwrapper_2d_cuda: the minimum
 * spanning forest that the CPU backend's sequential Kruskal builds, built in parallel by
 * Boruvka's algorithm, and the same outputs bit for bit (phase_unwrap_2d.h states them).
 * The same forest integrates the MCF backend's frame (forest_edges::known_cycles): any
 * spanning forest gives one K there, since the known periods fix every edge's.
 *
 * The frame's work buffers (device_bytes()) are allocated at construction and reused;
 * created and used with the engine's device current.
 */
class reliability_unwrap_cuda
{
public:
    explicit reliability_unwrap_cuda(const phase_unwrap_2d_config& config,
                                     forest_edges edges = forest_edges::reliability);
    ~reliability_unwrap_cuda();

    /*! Device memory of the work buffers for \p config and \p edges: 103 bytes a
     *  pixel guided by the local gradient, 87 with gradient_window 1, 83 for known
     *  cycles; CUB's scratch not counted. */
    static std::size_t device_bytes(const phase_unwrap_2d_config& config,
                                    forest_edges edges = forest_edges::reliability);

    /*! One frame in device buffers (wrapped and unwrapped may alias), work ordered on
     *  \p stream; returns when finished. The host waits for the stream a few times per
     *  Boruvka iteration (about log2(pixels) iterations at most) to read how far the
     *  forest has come. For forest_edges::reliability. */
    unwrap_2d_report solve(const unwrap_2d_buffers& device, cudaStream_t stream);

    /*!
     * The outputs of a frame whose whole periods \p known_cycles (device, one int64 a
     * pixel) are right up to one constant per connected component, unknown_cycles
     * where a pixel is not valid: K[p] = known[p] - known[f] with f the first pixel
     * of p's component in row-major order, the components numbered in the order of
     * their first pixels, as the CPU backend's mcf_tiled_unwrap writes them.
     * device.weight and device.mask are not read (the known cycles say which pixels
     * are valid); the rest as solve(). For forest_edges::known_cycles.
     */
    unwrap_2d_report integrate_known_cycles(const std::int64_t* known_cycles,
                                            const unwrap_2d_buffers& device,
                                            cudaStream_t stream);

private:
    struct workspace;
    //! The forest and outputs of one frame; \p known_cycles null for the reliability
    //! method.
    unwrap_2d_report run(const unwrap_2d_buffers& device,
                         const std::int64_t* known_cycles,
                         cudaStream_t stream);
    // The steps of run(), in order, all on \p stream.
    //! Every valid pixel a tree of its own; the pixels' edge keys and existing edges.
    void plant_forest(const unwrap_2d_buffers& device,
                      const std::int64_t* known_cycles,
                      cudaStream_t stream);
    //! The existing edges in ascending index into edges[0]; returns their count.
    unsigned int select_edges(cudaStream_t stream);
    //! The \p edge_count selected edges sorted by their order keys (stable: ties keep
    //! ascending edge index); returns them.
    const std::uint32_t* sort_edges(unsigned int edge_count, cudaStream_t stream);
    //! Boruvka iterations over \p sorted_edges until no tree has an edge left to join.
    void merge_trees(const std::uint32_t* sorted_edges,
                     unsigned int edge_count,
                     const unwrap_2d_buffers& device,
                     const std::int64_t* known_cycles,
                     cudaStream_t stream);
    //! Pointer jumping on the hooks of one Boruvka iteration until each leads to a root.
    void jump_to_roots(unsigned int hook_bound, int& link_slot, cudaStream_t stream);
    //! Unwrapped phases, cycles and, when asked, component numbers from the forest.
    void write_outputs(const unwrap_2d_buffers& device, cudaStream_t stream);

    const forest_edges d_edges;
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
