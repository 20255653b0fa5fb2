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
 * stage that computes its network's inputs on the GPU.
 */
class mcf_tiled_unwrap
{
public:
    /*! \p config must have passed validate() with method mcf; \p make_stage, where
     *  given, makes each tile solver's mcf_network_inputs_stage. */
    explicit mcf_tiled_unwrap(const phase_unwrap_2d_config& config,
                              const mcf_network_inputs_stage_factory& make_stage = {});
    ~mcf_tiled_unwrap();

    //! Host bytes at most: every worker's tile workspace and network, the tiles'
    //! solutions and the joining's per-pixel arrays; \p host_passes as
    //! mcf_unwrap_cpu::bytes() (false where a stage factory is given).
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

private:
    struct region_vote;
    struct tile_solution;
    void solve_tile(std::size_t worker, std::size_t tile, const unwrap_2d_buffers& host);
    //! Each region's constant, in periods, from the overlaps' votes.
    std::vector<std::int64_t> reconcile_regions() const;
    std::size_t integrate_frame(const unwrap_2d_buffers& host,
                                const std::vector<std::int64_t>& region_offset);

    const phase_unwrap_2d_config d_config;
    const mcf_axis_tiles d_columns, d_rows;
    //! The frame as one tile, or one tile solver (and tile copy of the inputs) per
    //! worker.
    std::vector<std::unique_ptr<mcf_unwrap_cpu>> d_solvers;
    std::vector<std::vector<float>> d_wrapped, d_weight, d_unwrapped;
    std::vector<std::vector<std::uint8_t>> d_mask;
    std::vector<tile_solution> d_tiles;
    //! The frame's K, its components and the breadth-first queue over them.
    std::vector<std::int64_t> d_cycles;
    std::vector<std::int32_t> d_component;
    std::vector<std::int32_t> d_queue;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MCF_TILED_UNWRAP_H */
