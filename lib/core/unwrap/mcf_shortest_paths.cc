/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "unwrap/mcf_shortest_paths.h"
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! d_place of a node while prepare() finds which nodes are merged.
constexpr std::int32_t unplaced = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t merged = -1;

/*!
 * The nodes a search may settle in each pass without meeting a deficit before it is
 * dropped, the last pass unlimited. Measured on single-look fields at 1024 x 1024
 * (docs/design/mcf_unwrapping.md, "Solver"): 1.4 to 2.3 times fewer nodes settled at
 * coherence 0.5 than one unlimited pass, the same time at 0.7; 16-256-4096 and
 * 16-128-1024-8192 did as well.
 */
constexpr std::size_t pass_reach[] = { 32,
                                       1024,
                                       std::numeric_limits<std::size_t>::max() };

} // namespace

std::size_t mcf_shortest_paths::bytes(std::size_t pixels)
{
    // A node a loop at most: its record, place, list start and settled and deficit
    // entries. Residual arcs: at most four a pixel (two differences, one from each
    // end), each in a list at most once and in the queue at most once a search,
    // counted twice for the spare capacity of the queue's buckets.
    const std::size_t per_node = sizeof(node_record) + sizeof(std::int32_t) +
                                 sizeof(std::size_t) + 2 * sizeof(std::int32_t);
    const std::size_t per_arc =
        sizeof(listed_arc) + 2 * sizeof(radix_heap<std::int32_t>::entry);
    return pixels * (per_node + 4 * per_arc);
}

void mcf_shortest_paths::prepare(const mcf_flow_network& network)
{
    const std::size_t nodes = std::size_t(network.nodes);
    const std::int32_t loops = network.loops();
    d_node.resize(nodes);
    for (std::size_t n = 0; n < nodes; ++n)
        d_node[n] = { 0, 0, 0, network.supply[n], 0, 0 };
    d_search = 0;

    // Nodes of one loop keep it; merged nodes and the earth get arc lists.
    d_place.assign(nodes, unplaced);
    for (std::int32_t loop = 0; loop < loops; ++loop) {
        std::int32_t& place = d_place[network.node_of_loop[loop]];
        place = place == unplaced ? loop : merged;
    }
    d_place[network.earth_node] = merged;
    std::size_t lists = 0;
    for (std::int32_t& place : d_place)
        if (place == merged)
            place = ~std::int32_t(lists++);
    auto list_of = [&](std::int32_t node) { return std::size_t(~d_place[node]); };

    // The arcs out of merged nodes and the earth, each to its list.
    auto for_each_listed_arc = [&](auto visit) {
        mcf_for_each_arc(network,
                         [&](std::uint32_t arc, std::int32_t tail, std::int32_t head) {
                             if (d_place[tail] < 0)
                                 visit(list_of(tail), listed_arc{ arc, head });
                         });
    };
    d_list_start.assign(lists + 1, 0);
    for_each_listed_arc(
        [&](std::size_t list, const listed_arc&) { ++d_list_start[list + 1]; });
    for (std::size_t list = 0; list < lists; ++list)
        d_list_start[list + 1] += d_list_start[list];
    d_list.resize(d_list_start[lists]);
    for_each_listed_arc([&](std::size_t list, const listed_arc& arc) {
        d_list[d_list_start[list]++] = arc;
    });
    // Filling moved each start to the next list's: shift them back.
    for (std::size_t list = lists; list > 0; --list)
        d_list_start[list] = d_list_start[list - 1];
    d_list_start[0] = 0;
}

bool mcf_shortest_paths::search(std::int32_t source, std::size_t settle_cap)
{
    // Marks of earlier searches read as unreached; when the counter would wrap, every
    // mark is cleared once.
    if (d_search == std::numeric_limits<std::uint32_t>::max() / 2) {
        for (node_record& n : d_node)
            n.mark = 0;
        d_search = 0;
    }
    ++d_search;
    const std::uint32_t reached = 2 * d_search, settled = reached + 1;
    const std::int32_t* const arc_cost = d_network->arc_cost.data();
    const std::int32_t* const flow = d_flow;
    const std::int32_t* const node_of_loop = d_network->node_of_loop.data();
    const std::int32_t loop_width = d_network->width - 1;
    const std::int32_t loop_height = d_network->height - 1;
    const std::int32_t earth = d_network->loops();
    const std::uint32_t pixel_width = std::uint32_t(d_network->width);

    d_queue.clear();
    d_settled.clear();
    d_deficits.clear();
    node_record& s = d_node[source];
    s.mark = reached;
    s.distance = 0;
    s.parent = source;
    std::int64_t excess = s.excess;
    d_queue.push(0, source);
    // The residual arc of arc_cost index arc (2 difference + direction) from node,
    // reached at base + p(node), to head.
    auto relax =
        [&](std::int32_t node, std::int64_t base, std::uint32_t arc, std::int32_t head) {
            node_record& v = d_node[head];
            if (v.mark == settled)
                return;
            const std::int32_t periods = flow[arc >> 1];
            const bool against = (arc & 1u) ? periods > 0 : periods < 0;
            const std::int64_t cost = against ? -arc_cost[arc ^ 1u] : arc_cost[arc];
            const std::int64_t reached_at = base + cost + v.potential;
            if (v.mark == reached && reached_at >= v.distance)
                return;
            v.mark = reached;
            v.distance = reached_at;
            v.parent_arc = arc;
            v.parent = node;
            d_queue.push(std::uint64_t(reached_at), head);
        };
    while (!d_queue.empty()) {
        const auto [key, node] = d_queue.pop();
        const std::int64_t distance = std::int64_t(key);
        node_record& u = d_node[node];
        if (u.mark == settled || distance != u.distance)
            continue;
        u.mark = settled;
        d_settled.push_back(node);
        if (u.excess < 0) {
            d_deficits.push_back(node);
            excess += u.excess;
        }
        if (excess <= 0 || d_settled.size() > settle_cap) {
            if (d_deficits.empty())
                return false;
            for (std::int32_t v : d_settled)
                d_node[v].potential += distance - d_node[v].distance;
            return true;
        }
        const std::int64_t base = distance - u.potential;
        const std::int32_t place = d_place[node];
        if (place < 0) {
            const std::size_t list = std::size_t(~place);
            for (std::size_t a = d_list_start[list]; a < d_list_start[list + 1]; ++a)
                relax(node, base, d_list[a].arc, d_list[a].head);
            continue;
        }
        // A loop runs along its top and right differences (arcs from it add periods)
        // and against its bottom and left ones (mcf_difference_ends()).
        const std::int32_t row = place / loop_width, col = place - row * loop_width;
        const std::uint32_t pixel = std::uint32_t(row) * pixel_width + std::uint32_t(col);
        const std::uint32_t below = pixel + pixel_width;
        relax(node, base, 4 * pixel, node_of_loop[row > 0 ? place - loop_width : earth]);
        relax(node,
              base,
              4 * (pixel + 1) + 2,
              node_of_loop[col + 1 < loop_width ? place + 1 : earth]);
        relax(node,
              base,
              4 * below + 1,
              node_of_loop[row + 1 < loop_height ? place + loop_width : earth]);
        relax(node, base, 4 * pixel + 3, node_of_loop[col > 0 ? place - 1 : earth]);
    }
    throw std::logic_error("phase_unwrapper_2d (mcf): the deficits reachable from an "
                           "excess cannot take it, which never happens in a balanced "
                           "connected network");
}

std::int64_t mcf_shortest_paths::augment(std::int32_t source)
{
    const std::int32_t* const arc_cost = d_network->arc_cost.data();
    std::int64_t sent = 0;
    for (std::int32_t sink : d_deficits) {
        // The path must still be one of zero reduced cost: an arc that took back
        // periods flowing the other way when the search crossed it, and whose periods
        // an earlier path of this search took back to the last one, now costs its
        // forward cost, so the path is left for a later search. Periods flowing
        // against an arc can only be taken back as far as they go.
        std::int32_t periods = std::min(d_node[source].excess, -d_node[sink].excess);
        for (std::int32_t v = sink; v != source && periods > 0; v = d_node[v].parent) {
            const std::uint32_t arc = d_node[v].parent_arc;
            const std::int32_t along = (arc & 1u) ? -d_flow[arc >> 1] : d_flow[arc >> 1];
            const std::int64_t cost = along < 0 ? -arc_cost[arc ^ 1u] : arc_cost[arc];
            if (cost - d_node[d_node[v].parent].potential + d_node[v].potential != 0)
                periods = 0;
            else if (along < 0)
                periods = std::min(periods, -along);
        }
        if (periods <= 0)
            continue;
        for (std::int32_t v = sink; v != source; v = d_node[v].parent) {
            const std::uint32_t arc = d_node[v].parent_arc;
            d_flow[arc >> 1] += (arc & 1u) ? -periods : periods;
        }
        d_node[source].excess -= periods;
        d_node[sink].excess += periods;
        sent += periods;
    }
    return sent;
}

void mcf_shortest_paths::solve(const mcf_flow_network& network,
                               std::vector<std::int32_t>& flow)
{
    flow.assign(2 * std::size_t(network.width) * std::size_t(network.height), 0);
    d_network = &network;
    d_flow = flow.data();
    prepare(network);
    for (std::size_t reach : pass_reach)
        for (std::int32_t node = 0; node < network.nodes; ++node)
            while (d_node[node].excess > 0 && search(node, reach))
                // The first path of a search is one of zero reduced cost whose
                // reversed flows are those the search saw: it always carries a period.
                if (augment(node) == 0)
                    throw std::logic_error("phase_unwrapper_2d (mcf): a shortest path "
                                           "carried no flow");
}

} // namespace core
} // namespace cudadsp
} // namespace gr
