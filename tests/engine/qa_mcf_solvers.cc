/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The MCF method's two minimum-cost-flow solvers (phase_unwrap_2d_config::mcf_solver):
// successive shortest paths must find flows exactly as cheap as LEMON's network
// simplex, the reference, on every network. Random networks built here (merged
// nodes, an earth merged with loops, costs wide apart or all equal, supplies of
// several periods), each flow checked for conservation and costed by this file's own
// sums; and the networks of interferograms of every kind the method meets (single
// and four looks, coherence 0.5 to 0.95, masks, a low-coherence band, residues only
// at the frame's edges, tiny frames, no residues), where both must also unwrap as
// well against the truth.

#include "qa_mcf_unwrap.h"
#include "runtime/splitmix64.h"
#include "unwrap/mcf_flow_network.h"
#include "unwrap/mcf_unwrap_rule.h"
#include "unwrap/phase_unwrap_2d_rule.h"
#include <cppunit/extensions/HelperMacros.h>
#include <cmath>
#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! A random network of a width x height frame (see random_network()).
struct network_case {
    std::int32_t width, height;
    //! Chance that a node other than the earth supplies or demands periods.
    double charged;
    //! Arc costs are drawn from 1 to this.
    std::int32_t max_cost;
    //! Merge a block of loops into one node and a strip at the left edge into the
    //! earth.
    bool merge;
    std::uint64_t seed;
};

/*!
 * The network as mcf_flow_network documents it, drawn at random: nodes numbered in
 * the order of their first loop, supplies of -2 to 2 periods (merged nodes -5 to 5)
 * that the earth balances, each difference between two nodes an arc each way of its
 * own random cost, the others no arc.
 */
mcf_flow_network random_network(const network_case& c)
{
    splitmix64 random(c.seed);
    mcf_flow_network n;
    n.width = c.width;
    n.height = c.height;
    const std::int32_t loop_width = c.width - 1, loop_height = c.height - 1;
    const std::int32_t loops = loop_width * loop_height;
    // Each loop's group: its own, a block's first loop, or the earth's.
    std::vector<std::int32_t> group(loops + 1);
    for (std::int32_t loop = 0; loop <= loops; ++loop)
        group[loop] = loop;
    if (c.merge && loop_width >= 8 && loop_height >= 8) {
        for (std::int32_t r = 2; r < 5; ++r)
            for (std::int32_t col = 3; col < 7; ++col)
                group[r * loop_width + col] = 2 * loop_width + 3;
        for (std::int32_t r = loop_height / 2; r < loop_height; ++r)
            for (std::int32_t col = 0; col < 2; ++col)
                group[r * loop_width + col] = loops;
    }
    std::vector<std::int32_t> node_of_group(loops + 1, -1);
    n.node_of_loop.resize(loops + 1);
    for (std::int32_t loop = 0; loop <= loops; ++loop) {
        std::int32_t& node = node_of_group[group[loop]];
        if (node < 0)
            node = n.nodes++;
        n.node_of_loop[loop] = node;
    }
    n.earth_node = n.node_of_loop[loops];
    std::vector<std::int32_t> members(n.nodes, 0);
    for (std::int32_t loop = 0; loop < loops; ++loop)
        ++members[n.node_of_loop[loop]];
    n.supply.assign(n.nodes, 0);
    std::int32_t balance = 0;
    for (std::int32_t node = 0; node < n.nodes; ++node) {
        if (node == n.earth_node || !(random.uniform() < c.charged))
            continue;
        const std::int32_t most = members[node] > 1 ? 5 : 2;
        std::int32_t s = 0;
        while (s == 0)
            s = std::int32_t(random.next() % std::uint64_t(2 * most + 1)) - most;
        n.supply[node] = s;
        balance += s;
    }
    n.supply[n.earth_node] = -balance;
    n.arc_cost.assign(4 * std::size_t(c.width) * std::size_t(c.height), 0);
    for (std::int32_t row = 0; row < c.height; ++row)
        for (std::int32_t col = 0; col < c.width; ++col)
            for (std::int32_t direction = 0; direction < 2; ++direction) {
                if ((direction == 0 && col + 1 == c.width) ||
                    (direction == 1 && row + 1 == c.height))
                    continue;
                const mcf_dual_ends ends =
                    mcf_difference_ends(row, col, direction, c.width, c.height);
                if (n.node_of_loop[ends.plus] == n.node_of_loop[ends.minus])
                    continue;
                const std::size_t edge =
                    unwrap_2d_edge_index(row * c.width + col, direction);
                for (std::size_t k = 0; k < 2; ++k)
                    n.arc_cost[2 * edge + k] =
                        1 + std::int32_t(random.next() % std::uint64_t(c.max_cost));
            }
    return n;
}

/*!
 * Checks that \p flow is a flow of \p network (periods only across arcs, every
 * node's supply sent out: its flow out of plus ends less its flow into minus ends)
 * and returns its cost, each difference's periods times its arc's cost in their
 * direction.
 */
std::int64_t checked_cost(const mcf_flow_network& network,
                          const std::vector<std::int32_t>& flow,
                          const std::string& what)
{
    const std::int32_t width = network.width, height = network.height;
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        what + ": flow size", 2 * std::size_t(width) * std::size_t(height), flow.size());
    std::vector<std::int64_t> sent(network.nodes, 0);
    std::int64_t cost = 0;
    for (std::int32_t row = 0; row < height; ++row)
        for (std::int32_t col = 0; col < width; ++col)
            for (std::int32_t direction = 0; direction < 2; ++direction) {
                const std::size_t edge =
                    unwrap_2d_edge_index(row * width + col, direction);
                const std::int64_t periods = flow[edge];
                if (network.arc_cost[2 * edge] == 0) {
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": periods across no arc, edge " +
                                                     std::to_string(edge),
                                                 std::int64_t(0),
                                                 periods);
                    continue;
                }
                const mcf_dual_ends ends =
                    mcf_difference_ends(row, col, direction, width, height);
                sent[network.node_of_loop[ends.plus]] += periods;
                sent[network.node_of_loop[ends.minus]] -= periods;
                cost += periods > 0 ? periods * network.arc_cost[2 * edge]
                                    : -periods * network.arc_cost[2 * edge + 1];
            }
    for (std::int32_t node = 0; node < network.nodes; ++node)
        CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": node " + std::to_string(node) +
                                         " sends other than its supply",
                                     std::int64_t(network.supply[node]),
                                     sent[node]);
    return cost;
}

//! A field with known truth (radians) and the pixels to judge it on.
struct truth_frame {
    std::string name;
    frame f;
    std::vector<double> truth;
    std::vector<std::uint8_t> judged;
    std::size_t looks = 1;
};

/*!
 * smooth_field() with Gaussian phase noise of \p noisy_periods where \p noisy(row,
 * col) and 0.02 periods elsewhere, the coherence 0.2 there and 0.95 elsewhere as
 * weight: a low-coherence area of that shape.
 */
template <typename Where>
truth_frame noisy_area_frame(const std::string& name,
                             std::size_t width,
                             std::size_t height,
                             double noisy_periods,
                             Where noisy)
{
    truth_frame t;
    t.name = name;
    t.truth = smooth_field(width, height);
    splitmix64 random(7);
    std::vector<double> observed = t.truth;
    t.f.weight.resize(width * height);
    for (std::size_t r = 0; r < height; ++r)
        for (std::size_t c = 0; c < width; ++c) {
            const bool low = noisy(r, c);
            // complex_normal(2): unit variance in each part.
            observed[r * width + c] +=
                two_pi * (low ? noisy_periods : 0.02) * random.complex_normal(2.0).real();
            t.f.weight[r * width + c] = low ? 0.2f : 0.95f;
        }
    const frame wrapped = frame_of(observed, width, height);
    t.f.width = width;
    t.f.height = height;
    t.f.wrapped = wrapped.wrapped;
    t.judged.assign(width * height, 1);
    return t;
}

//! The fields both solvers must solve alike: every kind the method meets.
std::vector<truth_frame> judged_fields()
{
    std::vector<truth_frame> fields;
    const double coherences[] = { 0.5, 0.7, 0.95 };
    for (std::size_t looks : { 1, 4 })
        for (std::size_t k = 0; k < 3; ++k) {
            interferogram_scene_config config;
            config.width = 192;
            config.height = 160;
            config.coherence = coherences[k];
            config.steep = false;
            config.seed = 10 + k + looks;
            const interferogram_scene scene = simulate_interferogram(config);
            truth_frame t;
            t.f = scene_frame(scene, t.judged);
            t.truth = scene.true_phase;
            t.looks = looks;
            t.name = "scene, coherence " + std::to_string(coherences[k]) + ", looks " +
                     std::to_string(looks);
            fields.push_back(t);
        }
    fields.push_back(noisy_area_frame(
        "low-coherence band", 160, 120, 0.35, [](std::size_t r, std::size_t) {
            return r >= 50 && r < 70;
        }));
    fields.push_back(noisy_area_frame(
        "residues at the edges", 150, 110, 0.4, [](std::size_t r, std::size_t c) {
            return r < 3 || c < 3 || r + 3 >= 110 || c + 3 >= 150;
        }));
    // Masks: a strip along the left edge (merged with the earth), a block inside
    // (one node with its rim) and single pixels, over a noisy scene.
    interferogram_scene_config config;
    config.width = config.height = 160;
    config.coherence = 0.6;
    config.steep = false;
    const interferogram_scene scene = simulate_interferogram(config);
    truth_frame masked;
    masked.name = "masks";
    masked.f = scene_frame(scene, masked.judged);
    masked.truth = scene.true_phase;
    for (std::size_t r = 0; r < 160; ++r)
        for (std::size_t c = 0; c < 160; ++c) {
            const bool strip = c < 4 && r > 40 && r < 120;
            const bool block = r >= 70 && r < 90 && c >= 100 && c < 125;
            const bool single = (r * 160 + c) % 997 == 0;
            if (strip || block || single)
                masked.f.mask[r * 160 + c] = masked.judged[r * 160 + c] = 0;
        }
    fields.push_back(masked);
    return fields;
}

} // namespace

class qa_mcf_solvers : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_mcf_solvers);
    CPPUNIT_TEST(configuration_names_the_solver);
    CPPUNIT_TEST(random_networks_reach_the_reference_optimum);
    CPPUNIT_TEST(interferograms_reach_the_reference_optimum);
    CPPUNIT_TEST(tiny_frames_and_frames_without_residues);
    CPPUNIT_TEST(tiled_frames_with_either_solver);
    CPPUNIT_TEST_SUITE_END();

public:
    void configuration_names_the_solver()
    {
        CPPUNIT_ASSERT(phase_unwrap_2d_config().mcf_solver ==
                       unwrap_2d_mcf_solver::shortest_paths);
        for (auto solver : { unwrap_2d_mcf_solver::shortest_paths,
                             unwrap_2d_mcf_solver::network_simplex })
            CPPUNIT_ASSERT(parse_unwrap_2d_mcf_solver(to_string(solver)) == solver);
        CPPUNIT_ASSERT_EQUAL(std::string("network_simplex"),
                             to_string(unwrap_2d_mcf_solver::network_simplex));
        auto expect_invalid = [](auto&& call) {
            try {
                call();
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(e.what(),
                                       std::string(e.what()).find("mcf_solver") !=
                                           std::string::npos);
                return;
            }
            CPPUNIT_FAIL("no std::invalid_argument naming mcf_solver");
        };
        expect_invalid([] { parse_unwrap_2d_mcf_solver("simplex"); });
        phase_unwrap_2d_config config;
        config.width = config.height = 8;
        config.method = unwrap_2d_method::mcf;
        config.mcf_solver = static_cast<unwrap_2d_mcf_solver>(7);
        expect_invalid([&] { config.validate(); });
    }

    /*!
     * Random networks, one solver object of each kind reused across them (a solver
     * keeps its workspace from frame to frame) and its flow poisoned before each: the
     * same least cost, each flow conserving every node's supply.
     */
    void random_networks_reach_the_reference_optimum()
    {
        const network_case cases[] = {
            { 2, 2, 1.0, 100, false, 1 },    { 3, 5, 0.8, 50, false, 2 },
            { 5, 3, 0.8, 50, false, 3 },     { 12, 12, 0.9, 1000, true, 4 },
            { 40, 30, 0.3, 50000, true, 5 }, { 64, 64, 0.15, 3, true, 6 },
            { 64, 48, 0.5, 1, true, 7 },     { 100, 80, 0.05, 50000, false, 8 },
            { 90, 70, 0.25, 600, true, 9 },  { 50, 50, 0.0, 100, true, 10 },
        };
        auto shortest_paths = make_mcf_flow_solver(unwrap_2d_mcf_solver::shortest_paths);
        auto network_simplex =
            make_mcf_flow_solver(unwrap_2d_mcf_solver::network_simplex);
        for (const network_case& c : cases) {
            const mcf_flow_network network = random_network(c);
            std::ostringstream what;
            what << c.width << " x " << c.height << ", seed " << c.seed;
            std::vector<std::int32_t> fast(7, poison_integer),
                reference(7, poison_integer);
            shortest_paths->solve(network, fast);
            network_simplex->solve(network, reference);
            const std::int64_t fast_cost = checked_cost(network, fast, what.str());
            const std::int64_t reference_cost =
                checked_cost(network, reference, what.str() + ", reference");
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what.str(), reference_cost, fast_cost);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                what.str(), fast_cost, mcf_flow_cost(network, fast));
            if (c.charged > 0.0)
                CPPUNIT_ASSERT_MESSAGE(what.str() + ": no flow", fast_cost > 0);
        }
    }

    /*!
     * Every kind of field: the same least cost and residues, each solver's outputs
     * consistent, and right-cycle fractions within 0.003 of each other (optimal flows
     * of equal cost may differ where costs tie).
     */
    void interferograms_reach_the_reference_optimum()
    {
        for (const truth_frame& t : judged_fields()) {
            const solved_frame fast =
                solve_frame(t.f, unwrap_2d_mcf_solver::shortest_paths, t.looks);
            const solved_frame reference =
                solve_frame(t.f, unwrap_2d_mcf_solver::network_simplex, t.looks);
            check_outputs_consistent(fast.o, t.f, t.name);
            check_outputs_consistent(reference.o, t.f, t.name + ", reference");
            CPPUNIT_ASSERT_EQUAL_MESSAGE(t.name, reference.cost, fast.cost);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                t.name, reference.o.report.residues, fast.o.report.residues);
            CPPUNIT_ASSERT_MESSAGE(t.name + ": no residues", fast.o.report.residues > 0);
            const double fast_right = right_cycle_fraction(fast.o, t.truth, t.judged);
            const double reference_right =
                right_cycle_fraction(reference.o, t.truth, t.judged);
            std::ostringstream what;
            what << t.name << ": shortest paths " << fast_right << ", network simplex "
                 << reference_right;
            CPPUNIT_ASSERT_MESSAGE(what.str(),
                                   std::fabs(fast_right - reference_right) <= 0.003);
        }
    }

    /*!
     * Frames of one row or column (no loop: only the earth), of a single loop, and
     * a few loops of pure noise; and a noise-free field without residues, which
     * needs no flow at all.
     */
    void tiny_frames_and_frames_without_residues()
    {
        const std::size_t sizes[][2] = { { 1, 9 }, { 9, 1 }, { 2, 2 },
                                         { 2, 3 }, { 3, 2 }, { 4, 4 } };
        splitmix64 random(3);
        for (const auto& size : sizes) {
            frame f;
            f.width = size[0];
            f.height = size[1];
            for (std::size_t i = 0; i < f.width * f.height; ++i)
                f.wrapped.push_back(wrap_phase(two_pi * random.uniform()));
            const std::string what =
                std::to_string(f.width) + " x " + std::to_string(f.height);
            const solved_frame fast =
                solve_frame(f, unwrap_2d_mcf_solver::shortest_paths);
            const solved_frame reference =
                solve_frame(f, unwrap_2d_mcf_solver::network_simplex);
            check_outputs_consistent(fast.o, f, what);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, reference.cost, fast.cost);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                what, reference.o.report.flow, fast.o.report.flow);
        }
        const std::vector<double> truth = smooth_field(64, 48);
        const frame smooth = frame_of(truth, 64, 48);
        for (auto solver : { unwrap_2d_mcf_solver::shortest_paths,
                             unwrap_2d_mcf_solver::network_simplex }) {
            const solved_frame s = solve_frame(smooth, solver);
            check_outputs_consistent(s.o, smooth, to_string(solver));
            CPPUNIT_ASSERT_EQUAL(std::size_t(0), s.o.report.residues);
            CPPUNIT_ASSERT_EQUAL(std::int64_t(0), s.cost);
            const std::vector<std::uint8_t> all(truth.size(), 1);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0, right_cycle_fraction(s.o, truth, all), 0.0);
        }
    }

    /*!
     * The tiled path (3 x 3 tiles of 192 on a 512 x 512 single-look scene, each
     * worker's solver kept from tile to tile) with either solver: consistent outputs
     * and the same right-cycle fraction within 0.003, as good as measured (0.9881
     * with both).
     */
    void tiled_frames_with_either_solver()
    {
        interferogram_scene_config scene_config;
        scene_config.width = scene_config.height = 512;
        scene_config.coherence = 0.8;
        scene_config.steep = false;
        const interferogram_scene scene = simulate_interferogram(scene_config);
        std::vector<std::uint8_t> judged;
        const frame f = scene_frame(scene, judged);
        double right[2] = { 0.0, 0.0 };
        for (auto solver : { unwrap_2d_mcf_solver::shortest_paths,
                             unwrap_2d_mcf_solver::network_simplex }) {
            phase_unwrap_2d_config config;
            config.width = f.width;
            config.height = f.height;
            config.method = unwrap_2d_method::mcf;
            config.device = "cpu";
            config.tile_size = 192;
            config.tile_overlap = 64;
            config.mcf_solver = solver;
            const outputs o = run(*phase_unwrapper_2d::make(config), f);
            check_outputs_consistent(o, f, to_string(solver));
            right[solver == unwrap_2d_mcf_solver::network_simplex] =
                right_cycle_fraction(o, scene.true_phase, judged);
        }
        std::ostringstream what;
        what << "tiled: shortest paths " << right[0] << ", network simplex " << right[1];
        CPPUNIT_ASSERT_MESSAGE(what.str(), right[0] >= 0.98);
        CPPUNIT_ASSERT_MESSAGE(what.str(), std::fabs(right[0] - right[1]) <= 0.003);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_mcf_solvers);

} // namespace core
} // namespace cudadsp
} // namespace gr
