/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MCF_SHORTEST_PATHS_H
#define INCLUDED_CUDADSP_CORE_MCF_SHORTEST_PATHS_H

#include "runtime/radix_heap.h"
#include "unwrap/mcf_flow_network.h"
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * unwrap_2d_mcf_solver::shortest_paths: successive shortest paths with node
 * potentials (Ahuja, Magnanti and Orlin, Network Flows, 1993, ch. 9, the successive
 * shortest path algorithm), exact on integer costs. docs/design/mcf_unwrapping.md,
 * "Solver".
 *
 * The potentials p keep every residual arc's reduced cost c - p(tail) + p(head)
 * non-negative (all 0 at the start, every cost being at least 1), which makes the
 * flow optimal for the supplies it has met so far. Each search runs Dijkstra's
 * algorithm on the reduced costs from one node with excess (a residue, or periods a
 * merged node or the earth supplies) and settles nodes until the deficits it
 * settled can take the excess, the last at distance D; every node it settled, at
 * distance d <= D, gains D - d of potential. That is lowering every potential by
 * min(d, D), up to a constant that changes no reduced cost, with the work limited to
 * what the search touched: reduced costs stay non-negative and the paths of the
 * search's tree become 0, so that periods sent along them (as many as the source,
 * the deficit and the path's reversed flows allow) keep the invariant.
 *
 * The search works on the grid itself: a node that is one loop finds its four arcs
 * from its loop's row and column, each difference's flow and two arc costs are flat
 * arrays (a residual arc costs the difference's arc cost in its direction, or minus
 * the opposite arc's cost while it takes back periods flowing the other way), and
 * only merged nodes and the earth have arc lists, built once per frame. Distances,
 * marks and parents live in per-node records reset lazily by a search counter; the
 * queue is a radix heap.
 *
 * Sources are taken in passes of growing reach: a search that settles more than the
 * pass's number of nodes without meeting a deficit is dropped, changing nothing, and
 * its source waits for the next pass. Residues with a partner close by are so paired
 * before far-reaching searches take those partners away, which would send more
 * searches far (docs/design/mcf_unwrapping.md measures it).
 */
class mcf_shortest_paths final : public mcf_flow_solver
{
public:
    //! Host bytes at most for a frame of \p pixels.
    static std::size_t bytes(std::size_t pixels);

    void solve(const mcf_flow_network& network, std::vector<std::int32_t>& flow) override;

private:
    struct node_record {
        std::int64_t distance;
        std::int64_t potential;
        //! 2 search: reached by that search; 2 search + 1: settled by it.
        std::uint32_t mark;
        std::int32_t excess;
        //! The arc (2 difference + direction) and the node the search reached it by;
        //! a search's source is its own parent.
        std::uint32_t parent_arc;
        std::int32_t parent;
    };
    //! An arc of a merged node's or the earth's list: its arc_cost index and head.
    struct listed_arc {
        std::uint32_t arc;
        std::int32_t head;
    };

    void prepare(const mcf_flow_network& network);
    /*! Dijkstra's algorithm from \p source, until the deficits settled can take its
     *  excess or more than \p settle_cap nodes are settled. Returns false, having
     *  changed nothing, when it settled no deficit; otherwise the potentials are
     *  updated and d_deficits holds the deficits settled, nearest first. */
    bool search(std::int32_t source, std::size_t settle_cap);
    /*! Sends periods from the search's source to each of d_deficits in turn, along
     *  the search's tree, as far as the source's excess and each path allow; returns
     *  the periods sent. */
    std::int64_t augment(std::int32_t source);

    const mcf_flow_network* d_network = nullptr;
    std::int32_t* d_flow = nullptr;
    std::uint32_t d_search = 0;
    std::vector<node_record> d_node;
    //! A node that is one loop: the loop; a merged node or the earth: ~(its index in
    //! d_list_start).
    std::vector<std::int32_t> d_place;
    std::vector<std::size_t> d_list_start;
    std::vector<listed_arc> d_list;
    //! Dijkstra's queue of (distance, node), stale entries skipped when popped.
    radix_heap<std::int32_t> d_queue;
    std::vector<std::int32_t> d_settled;
    std::vector<std::int32_t> d_deficits;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MCF_SHORTEST_PATHS_H */
