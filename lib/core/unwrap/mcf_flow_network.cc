/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "unwrap/mcf_flow_network.h"
#include "unwrap/mcf_network_simplex.h"
#include "unwrap/mcf_shortest_paths.h"

namespace gr {
namespace cudadsp {
namespace core {

std::int64_t mcf_flow_cost(const mcf_flow_network& network,
                           const std::vector<std::int32_t>& flow)
{
    std::int64_t cost = 0;
    for (std::size_t edge = 0; edge < flow.size(); ++edge) {
        const std::int64_t periods = flow[edge];
        cost += periods > 0 ? periods * network.arc_cost[2 * edge]
                            : -periods * network.arc_cost[2 * edge + 1];
    }
    return cost;
}

mcf_flow_solver::~mcf_flow_solver() = default;

std::unique_ptr<mcf_flow_solver> make_mcf_flow_solver(unwrap_2d_mcf_solver kind)
{
    if (kind == unwrap_2d_mcf_solver::network_simplex)
        return std::make_unique<mcf_network_simplex>();
    return std::make_unique<mcf_shortest_paths>();
}

std::size_t mcf_flow_solver_bytes(unwrap_2d_mcf_solver kind, std::size_t pixels)
{
    return kind == unwrap_2d_mcf_solver::network_simplex
               ? mcf_network_simplex::bytes(pixels)
               : mcf_shortest_paths::bytes(pixels);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
