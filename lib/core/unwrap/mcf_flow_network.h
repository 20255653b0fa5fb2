/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MCF_FLOW_NETWORK_H
#define INCLUDED_CUDADSP_CORE_MCF_FLOW_NETWORK_H

#include "unwrap/mcf_unwrap_rule.h"
#include "unwrap/phase_unwrap_2d_rule.h"
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * The minimum-cost-flow problem of one frame (docs/design/mcf_unwrapping.md,
 * "Network"), as mcf_unwrap_cpu builds it for either solver: the dual grid of the
 * frame's 2 x 2 loops (mcf_difference_ends() numbers them, the earth last), loops
 * joined by free differences merged into one node, and each difference's two arcs.
 */
struct mcf_flow_network {
    //! Pixels of the frame.
    std::int32_t width = 0;
    std::int32_t height = 0;
    //! The flow node of every loop and of the earth (the last entry): nodes are
    //! numbered 0..nodes - 1 in the order of their first loop.
    std::vector<std::int32_t> node_of_loop;
    std::int32_t nodes = 0;
    std::int32_t earth_node = 0;
    //! Whole periods each node supplies (minus its residue and its differences' base
    //! periods); they sum to 0.
    std::vector<std::int32_t> supply;
    /*!
     * Two entries per difference, at 2 unwrap_2d_edge_index() + k: the cost of each
     * period that flows from the difference's plus loop to its minus loop (k = 0,
     * adding a period to the difference) or back (k = 1, taking one away), at least
     * 1 and with no bound on the periods; 0 where the difference is no arc (free, or
     * between loops of one node).
     */
    std::vector<std::int32_t> arc_cost;

    //! 2 x 2 loops of the frame; the earth's index.
    std::int32_t loops() const { return (width - 1) * (height - 1); }
};

/*!
 * Calls \p visit(arc, tail, head) for every arc of \p network, row by row of the
 * frame: arc is its arc_cost index (2 unwrap_2d_edge_index() + 0 from the
 * difference's plus loop's node to its minus loop's, + 1 back), tail and head its
 * nodes.
 */
template <typename Visit>
void mcf_for_each_arc(const mcf_flow_network& network, Visit&& visit)
{
    const std::int32_t width = network.width, height = network.height;
    for (std::int32_t row = 0; row < height; ++row)
        for (std::int32_t col = 0; col < width; ++col)
            for (std::int32_t direction = 0; direction < 2; ++direction) {
                const std::uint32_t edge =
                    unwrap_2d_edge_index(row * width + col, direction);
                if (network.arc_cost[2 * edge] == 0)
                    continue;
                const mcf_dual_ends ends =
                    mcf_difference_ends(row, col, direction, width, height);
                const std::int32_t plus = network.node_of_loop[ends.plus];
                const std::int32_t minus = network.node_of_loop[ends.minus];
                visit(2 * edge, plus, minus);
                visit(2 * edge + 1, minus, plus);
            }
}

/*!
 * The total cost of \p flow on \p network: each difference's net periods (its entry
 * of \p flow, indexed by unwrap_2d_edge_index(), positive from plus to minus) times
 * the cost of its arc in that direction. An optimal flow never sends periods both
 * ways across one difference (the two arcs form a cycle of positive cost), so this
 * is also the sum over arcs of cost times flow that a general solver minimises.
 */
std::int64_t mcf_flow_cost(const mcf_flow_network& network,
                           const std::vector<std::int32_t>& flow);

/*!
 * A minimum-cost-flow solver of mcf_flow_network (phase_unwrap_2d_config::mcf_solver),
 * its workspace kept from frame to frame.
 */
class mcf_flow_solver
{
public:
    virtual ~mcf_flow_solver();
    /*! Writes into \p flow (resized to two entries a pixel, indexed by
     *  unwrap_2d_edge_index()) the net periods of an optimal flow across every
     *  difference: positive from its plus loop to its minus loop, 0 where it is no
     *  arc. \p network must balance (its supplies sum to 0). */
    virtual void solve(const mcf_flow_network& network,
                       std::vector<std::int32_t>& flow) = 0;
};

//! The solver \p kind names.
std::unique_ptr<mcf_flow_solver> make_mcf_flow_solver(unwrap_2d_mcf_solver kind);

//! Host bytes the workspace of solver \p kind takes at most for a frame of \p pixels.
std::size_t mcf_flow_solver_bytes(unwrap_2d_mcf_solver kind, std::size_t pixels);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MCF_FLOW_NETWORK_H */
