/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MCF_NETWORK_SIMPLEX_H
#define INCLUDED_CUDADSP_CORE_MCF_NETWORK_SIMPLEX_H

#include "unwrap/mcf_flow_network.h"
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * unwrap_2d_mcf_solver::network_simplex: LEMON's network simplex (block-search
 * pivots) on a StaticDigraph of the network's nodes and arcs, the reference the
 * shortest-path solver is tested against. The graph, its arc lists and the solver are
 * kept from frame to frame: refilled, not allocated and first touched again, which
 * takes a third off every 1024 x 1024 frame after the first
 * (docs/design/mcf_unwrapping.md, "Solver").
 */
class mcf_network_simplex final : public mcf_flow_solver
{
public:
    mcf_network_simplex();
    ~mcf_network_simplex() override;

    //! Host bytes at most for a frame of \p pixels: arc lists, graph and solver.
    static std::size_t bytes(std::size_t pixels);

    void solve(const mcf_flow_network& network, std::vector<std::int32_t>& flow) override;

private:
    struct workspace;
    std::unique_ptr<workspace> d_workspace;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MCF_NETWORK_SIMPLEX_H */
