/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MCF_TILED_UNWRAP_H
#define INCLUDED_CUDADSP_CORE_MCF_TILED_UNWRAP_H

#include "unwrap/mcf_unwrap_cpu.h"
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * Tiles of one axis: tile i spans [start[i], start[i] + extent), neighbours share at
 * least the overlap, and tile i keeps its core [core_end[i - 1], core_end[i]) (from 0),
 * which ends in the middle of its overlap with tile i + 1.
 */
struct mcf_axis_tiles {
    std::size_t extent = 0;
    std::vector<std::size_t> start;
    std::vector<std::size_t> core_end;
};

//! The tiles of an axis of \p length pixels for tiles of side \p tile (one tile when
//! the axis is not longer) overlapping by at least \p overlap (at most tile / 2).
mcf_axis_tiles
mcf_tiles_of_axis(std::size_t length, std::size_t tile, std::size_t overlap);

/*!
 * MCF unwrapping of a frame in overlapping tiles (phase_unwrap_2d_config::tile_size,
 * docs/design/mcf_unwrapping.md, "Tiles"). Each tile is a frame of its own for
 * mcf_unwrap_cpu, solved on one of the runtime's workers (parallel_ranges()); a
 * pixel takes the whole periods of the tile whose core holds it. The constants of
 * the tiles' components ("regions") are then made to agree: each pair of regions
 * that share overlap pixels votes on the periods between them (the most frequent
 * difference, weighted by how many pixels give it), and a maximum spanning forest of
 * those votes fixes every region's constant. Cuts that cross a seam are not
 * reconciled, only constants. A frame that is one tile goes to mcf_unwrap_cpu whole.
 * Both backends run this on host buffers; the CUDA backend gives each tile solver a
 * stage that computes its network's inputs on the GPU, and integrates the joined
 * frame there (join_tiles(), then reliability_unwrap_cuda's forest) where unwrap()
 * does it on the host.
 */
class mcf_tiled_unwrap
{
public:
    /*! \p config must have passed validate() with method mcf; \p make_stage, where
     *  given, makes each tile solver's mcf_network_inputs_stage. */
    explicit mcf_tiled_unwrap(const phase_unwrap_2d_config& config,
                              const mcf_network_inputs_stage_factory& make_stage = {});
    ~mcf_tiled_unwrap();

    /*! Host bytes at most: every worker's tile workspace and network, the tiles'
     *  solutions and, with \p host_passes, the frame integration's per-pixel arrays
     *  (unwrap()); \p host_passes as mcf_unwrap_cpu::bytes() otherwise. The CUDA
     *  backend passes false: its stages compute the network inputs and it integrates
     *  the frame on the device (join_tiles()). */
    static std::size_t bytes(const phase_unwrap_2d_config& config,
                             bool host_passes = true);

    //! The tiles of a frame of \p config and their solvers: the tiles'
    //! configuration (the whole frame's when it is one tile), how many tiles and how
    //! many solvers run at once.
    struct solver_layout {
        phase_unwrap_2d_config tile;
        std::size_t tiles;
        std::size_t solvers;
    };
    static solver_layout layout(const phase_unwrap_2d_config& config);

    //! Unwraps one frame; every output of \p host that is not null is written whole.
    unwrap_2d_report unwrap(const unwrap_2d_buffers& host);

    //! Whether the frame is cut into several tiles (join_tiles() serves), not solved
    //! whole.
    bool tiled() const { return !d_tiles.empty(); }

    /*!
     * The first half of unwrap() for a tiled() frame: solves every tile and joins
     * them. \p cycles[i] (one a frame pixel) = pixel i's whole periods, from the tile
     * whose core holds it plus its region's constant, or unknown_cycles where the pixel
     * is not valid; they are right up to one constant per connected component of the
     * frame, which the integration then fixes (K = 0 at each component's first pixel).
     * Returns the residues and the flow; the valid pixels and components are the
     * integration's. Reads only host.wrapped, host.weight and host.mask.
     */
    unwrap_2d_report join_tiles(const unwrap_2d_buffers& host, std::int64_t* cycles);

private:
    struct region_vote;
    struct tile_solution;
    void solve_tile(std::size_t worker, std::size_t tile, const unwrap_2d_buffers& host);
    //! Each region's constant, in periods, from the overlaps' votes.
    std::vector<std::int64_t> reconcile_regions() const;
    //! Workers of the per-pixel passes over the whole frame.
    std::size_t frame_row_workers() const;
    //! The second half of unwrap() on the host: the components of the joined
    //! d_cycles, numbered by breadth-first search, and the outputs; returns the
    //! number of components.
    std::size_t integrate_frame(const unwrap_2d_buffers& host);

    const phase_unwrap_2d_config d_config;
    const mcf_axis_tiles d_columns, d_rows;
    //! The frame as one tile, or one tile solver (and tile copy of the inputs) per
    //! worker.
    std::vector<std::unique_ptr<mcf_unwrap_cpu>> d_solvers;
    std::vector<std::vector<float>> d_wrapped, d_weight, d_unwrapped;
    std::vector<std::vector<std::uint8_t>> d_mask;
    std::vector<tile_solution> d_tiles;
    //! unwrap()'s frame: its K, its components and the breadth-first queue over them
    //! (made on first use: the CUDA backend integrates on the device).
    std::vector<std::int64_t> d_cycles;
    std::vector<std::int32_t> d_component;
    std::vector<std::int32_t> d_queue;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MCF_TILED_UNWRAP_H */
