/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MCF_UNWRAP_CPU_H
#define INCLUDED_CUDADSP_CORE_MCF_UNWRAP_CPU_H

#include "unwrap/mcf_flow_network.h"
#include "unwrap/mcf_network_inputs.h"
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * Minimum-cost-flow unwrapping of one frame on the host (the method is described in
 * phase_unwrap_2d.h and docs/design/mcf_unwrapping.md): costs from mcf_unwrap_rule.h,
 * the network of mcf_flow_network.h, the flow from the configured solver
 * (mcf_shortest_paths or mcf_network_simplex), K integrated along a breadth-first
 * spanning tree of each component. mcf_tiled_unwrap runs it on the whole frame, or on
 * one tile at a time in each of its workers.
 *
 * The per-pixel and per-difference passes (phasors, box sums, the filter along the
 * gradients, expected gradients, costs, residues, arc costs, outputs) are shared by
 * rows among up to row_workers of the runtime's workers (parallel_ranges()): each
 * worker writes only its rows and does the same arithmetic as one thread would, so
 * the outputs do not depend on the number of workers. The union-find of the network,
 * the solve and the breadth-first integration stay on the calling thread.
 *
 * Given an mcf_network_inputs_stage, the solver takes every value before the network
 * from it (the CUDA backend's kernels) instead of its own passes.
 */
class mcf_unwrap_cpu
{
public:
    /*! \p config must have passed validate() with method mcf; at most \p row_workers
     *  workers share the row passes (1: the calling thread alone); \p stage, where
     *  given, computes the network's inputs in place of the host passes. */
    explicit mcf_unwrap_cpu(const phase_unwrap_2d_config& config,
                            std::size_t row_workers = 1,
                            std::unique_ptr<mcf_network_inputs_stage> stage = nullptr);
    ~mcf_unwrap_cpu();

    /*! Host bytes the workspace and one frame's flow network take at most: the
     *  per-pixel arrays allocated here and the network each unwrap() builds (arcs,
     *  graph and the solver's own arrays), for the factory's memory check. Without
     *  \p host_passes (a solver given a stage) the host passes' work arrays, which
     *  only compute_network_inputs() makes, are not counted. */
    static std::size_t bytes(const phase_unwrap_2d_config& config,
                             bool host_passes = true);

    //! Unwraps one frame; every output of \p host that is not null is written whole.
    unwrap_2d_report unwrap(const unwrap_2d_buffers& host);

    /*! The host passes alone, into network_inputs(): their definition, which a stage
     *  given at construction replaces in unwrap(). Their work arrays (12 floats a
     *  pixel) are made on the first call. */
    mcf_input_counts compute_network_inputs(const unwrap_2d_buffers& host);

    //! The solver's arrays that hold the network's inputs of the current frame.
    mcf_network_inputs network_inputs();

    /*! The total cost (mcf_flow_cost(), integer units of 1/100 nat) of the last
     *  frame's flow: the optimum, whichever the solver. */
    std::int64_t flow_cost() const { return d_flow_cost; }

private:
    /*! Runs \p rows(worker, first, end) over shares of the rows [0, \p count) on at
     *  most d_row_workers workers (parallel_ranges()). */
    void for_row_ranges(
        std::size_t count,
        const std::function<
            void(std::size_t worker, std::int32_t first, std::int32_t end)>& rows) const;
    //! Sizes the host passes' work arrays (d_moment to d_window_sum) to the frame.
    void allocate_host_pass_arrays();
    void estimate_difference_costs(const unwrap_2d_buffers& host);
    /*! Box sums over the gradient window (d_window_sum) of the steps from each
     *  pixel a to its neighbour b in \p direction, over pairs of valid pixels: re
     *  and im of F_b conj(F_a), F = d_filtered, or with \p unit_steps the unit
     *  phasor of the wrapped step x[b] - x[a]; and the number of pairs. */
    void sum_window_steps(const float* x, std::int32_t direction, bool unit_steps);
    //! d_offset of every difference between valid pixels: its expected value in
    //! periods, the angle of the window's sum of filtered steps.
    void estimate_expected_gradients(const float* x);
    /*! d_filtered: each valid pixel's sum of the phasors of the gradient window
     *  around it, each turned back by the phase its offset from the pixel has
     *  along the pixel's expected gradients (d_offset), so that a ramp adds up
     *  instead of cancelling. */
    void filter_along_gradients();
    //! Every loop's supply before the base periods; returns the residues.
    std::size_t count_residues_and_supplies(const float* wrapped);
    //! Moves the base periods of every difference into its loops' supplies.
    void add_base_cycles_to_supplies();
    //! d_network from the costs and supplies; false when no node supplies anything.
    bool build_network();
    //! The flow added to d_cycles; returns the periods it moved.
    std::size_t solve_flow();
    std::size_t integrate(const unwrap_2d_buffers& host);

    const phase_unwrap_2d_config d_config;
    const std::size_t d_row_workers;
    //! mcf_phase_moment() at coherence j / (table size - 1), interpolated linearly.
    std::vector<double> d_moment_table;

    std::vector<std::uint8_t> d_valid;
    //! The host passes' work arrays, empty until compute_network_inputs().
    //! Each valid pixel's phase moment (1 without weights, 0 where not valid).
    std::vector<float> d_moment;
    //! Each pixel's phasor scaled by its moment, and filtered (re, im).
    std::vector<float> d_phasor[2], d_filtered[2];
    //! One direction's steps (re, im, pair count), box-sum scratch and sums.
    std::vector<float> d_step[3], d_row_sum, d_window_sum[3];
    //! Per difference (unwrap_2d_edge_index()): the cost model (d_offset holds the
    //! expected gradient until the model is made), then its whole periods once the
    //! flow is solved.
    std::vector<std::int32_t> d_cycles;
    std::vector<float> d_offset, d_curvature;
    /*! Supply of every loop, in periods, the earth last: minus the loop's residue,
     *  or, for a loop touching an invalid pixel, minus the sum of its valid
     *  differences (a fraction: only the sum over all the loops merged with it is
     *  whole), then the base periods of its differences. */
    std::vector<double> d_supply;
    //! Each node's sum of its loops' d_supply, before rounding.
    std::vector<double> d_summed_supply;
    mcf_flow_network d_network;
    //! The solver's net periods across every difference.
    std::vector<std::int32_t> d_flow;
    std::int64_t d_flow_cost = 0;
    std::vector<std::int64_t> d_pixel_cycles;
    std::vector<std::int32_t> d_component;
    std::vector<std::int32_t> d_queue;
    std::unique_ptr<mcf_flow_solver> d_solver;
    std::unique_ptr<mcf_network_inputs_stage> d_stage;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MCF_UNWRAP_CPU_H */
