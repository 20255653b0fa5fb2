/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "unwrap/mcf_network_simplex.h"
#include <lemon/network_simplex.h>
#include <lemon/static_graph.h>
#include <algorithm>
#include <stdexcept>
#include <utility>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using flow_graph = lemon::StaticDigraph;

/*! A LEMON read map over a vector indexed as the graph's arcs or nodes: the solver
 *  copies the maps it is given, so nothing is duplicated for it. */
template <typename Key_, typename Value_>
struct indexed_map {
    using Key = Key_;
    using Value = Value_;
    const std::vector<Value>* values;
    Value operator[](const Key& key) const { return (*values)[flow_graph::index(key)]; }
};

} // namespace

struct mcf_network_simplex::workspace {
    using solver_type = lemon::NetworkSimplex<flow_graph, int, long long>;

    std::vector<std::size_t> next_slot;
    std::vector<std::pair<int, int>> ends_of_arc;
    std::vector<int> cost;
    //! The arc_cost index (2 difference + direction) of every graph arc.
    std::vector<std::uint32_t> network_arc;
    flow_graph graph;
    // Network simplex rather than cost scaling: on these networks (a loop in six
    // charged, most arcs never used) it was twice as fast at 512 x 512
    // (docs/design/mcf_unwrapping.md, "Solver").
    solver_type solver{ graph };
};

mcf_network_simplex::mcf_network_simplex() : d_workspace(std::make_unique<workspace>()) {}

mcf_network_simplex::~mcf_network_simplex() = default;

std::size_t mcf_network_simplex::bytes(std::size_t pixels)
{
    // Two differences a pixel, an arc each way. An arc: its ends in the list, cost
    // and network index (four ints); the graph's four ints; the simplex's ends,
    // bounds, capacity, flow, id (seven ints), cost (long long) and state. A node:
    // the simplex's dozen tree arrays, at most a long long each.
    const std::size_t arcs_per_pixel = 4;
    const std::size_t per_arc =
        15 * sizeof(std::int32_t) + sizeof(long long) + sizeof(signed char);
    const std::size_t per_node = 12 * sizeof(long long);
    return pixels * (arcs_per_pixel * per_arc + per_node);
}

void mcf_network_simplex::solve(const mcf_flow_network& network,
                                std::vector<std::int32_t>& flow)
{
    const std::size_t nodes = std::size_t(network.nodes);
    workspace& w = *d_workspace;

    // Grouped by tail as StaticDigraph needs: a count per tail, then each arc placed
    // at its tail's next slot.
    w.next_slot.assign(nodes + 1, 0);
    mcf_for_each_arc(network,
                     [&](std::uint32_t, int tail, int) { ++w.next_slot[tail + 1]; });
    for (std::size_t node = 0; node < nodes; ++node)
        w.next_slot[node + 1] += w.next_slot[node];
    const std::size_t arcs = w.next_slot[nodes];
    w.ends_of_arc.resize(arcs);
    w.cost.resize(arcs);
    w.network_arc.resize(arcs);
    mcf_for_each_arc(network, [&](std::uint32_t network_arc, int tail, int head) {
        const std::size_t arc = w.next_slot[tail]++;
        w.ends_of_arc[arc] = { tail, head };
        w.cost[arc] = network.arc_cost[network_arc];
        w.network_arc[arc] = network_arc;
    });

    w.graph.build(static_cast<int>(nodes), w.ends_of_arc.begin(), w.ends_of_arc.end());
    using solver_type = workspace::solver_type;
    // The graph changed since the last frame: reset() sizes the solver's arrays for
    // it, reusing their memory.
    w.solver.reset();
    // No upper map: every arc is uncapacitated.
    w.solver.costMap(indexed_map<flow_graph::Arc, int>{ &w.cost })
        .supplyMap(indexed_map<flow_graph::Node, int>{ &network.supply });
    if (w.solver.run() != solver_type::OPTIMAL)
        throw std::logic_error("phase_unwrapper_2d (mcf): the flow network has no "
                               "optimal flow, which a connected grid always has");

    flow.assign(2 * std::size_t(network.width) * std::size_t(network.height), 0);
    for (std::size_t arc = 0; arc < arcs; ++arc) {
        const std::uint32_t network_arc = w.network_arc[arc];
        const int periods = w.solver.flow(flow_graph::arc(static_cast<int>(arc)));
        flow[network_arc >> 1] += (network_arc & 1u) ? -periods : periods;
    }
}

} // namespace core
} // namespace cudadsp
} // namespace gr
