/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/parallel_ranges.h"
#include "unwrap/mcf_unwrap_cpu.h"
#include "unwrap/mcf_unwrap_rule.h"
#include "unwrap/phase_unwrap_2d_rule.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

/*!
 * One uncapacitated arc each way across a difference, at the cost of its first period
 * beyond base_cycles, and never below one unit. The cost is then exact for one period
 * each way and grows linearly beyond, like the heavy tails of single-look phase
 * noise; a second, steeper arc for the second period changed no right-cycle fraction
 * and cost a third of the time (docs/design/mcf_unwrapping.md, "Arcs"). The floor of
 * one unit keeps every arc from being free where the first period's cost rounds to 0
 * (offset near +-1/2): free arcs both ways around a loop of differences would let the
 * flow move periods for nothing.
 */
constexpr std::int32_t least_arc_cost = 1;

} // namespace

namespace {

/*! Box sums of \p values over the (2 half + 1)^2 window around every pixel, clipped
 *  at the frame's edges; \p row_sums is scratch. Rows are shared among at most
 *  \p workers workers, every row's sums done before the column sums read them. */
void box_sum(const std::vector<float>& values,
             std::vector<float>& row_sums,
             std::vector<float>& sums,
             std::int32_t half,
             std::int32_t width,
             std::int32_t height,
             std::size_t workers)
{
    parallel_ranges(height, workers, [&](std::size_t first, std::size_t end) {
        for (std::size_t row = first; row < end; ++row) {
            const float* in = values.data() + row * width;
            float* out = row_sums.data() + row * width;
            for (std::int32_t col = 0; col < width; ++col) {
                float sum = 0.0f;
                for (std::int32_t c = std::max(0, col - half);
                     c <= std::min(width - 1, col + half);
                     ++c)
                    sum += in[c];
                out[col] = sum;
            }
        }
    });
    parallel_ranges(height, workers, [&](std::size_t first, std::size_t end) {
        for (std::int32_t row = std::int32_t(first); row < std::int32_t(end); ++row) {
            float* out = sums.data() + std::size_t(row) * width;
            std::fill(out, out + width, 0.0f);
            for (std::int32_t r = std::max(0, row - half);
                 r <= std::min(height - 1, row + half);
                 ++r) {
                const float* in = row_sums.data() + std::size_t(r) * width;
                for (std::int32_t col = 0; col < width; ++col)
                    out[col] += in[col];
            }
        }
    });
}

//! The host passes' work arrays, floats a pixel: moment, row sum, three steps and
//! their three window sums, two phasors and two filtered phasors.
constexpr std::size_t host_pass_floats = 12;

} // namespace

mcf_unwrap_cpu::mcf_unwrap_cpu(const phase_unwrap_2d_config& config,
                               std::size_t row_workers,
                               std::unique_ptr<mcf_network_inputs_stage> stage)
    : d_config(config),
      d_row_workers(std::max<std::size_t>(1, row_workers)),
      d_moment_table(mcf_moment_table(config.looks)),
      d_valid(config.pixels()),
      d_cycles(2 * config.pixels()),
      d_offset(2 * config.pixels()),
      d_curvature(2 * config.pixels()),
      d_supply((config.width - 1) * (config.height - 1) + 1),
      d_pixel_cycles(config.pixels()),
      d_component(config.pixels()),
      d_queue(config.pixels()),
      d_solver(make_mcf_flow_solver(config.mcf_solver)),
      d_stage(std::move(stage))
{
    d_network.width = static_cast<std::int32_t>(config.width);
    d_network.height = static_cast<std::int32_t>(config.height);
    d_network.node_of_loop.resize(d_supply.size());
    d_network.arc_cost.resize(4 * config.pixels());
}

mcf_unwrap_cpu::~mcf_unwrap_cpu() = default;

std::size_t mcf_unwrap_cpu::bytes(const phase_unwrap_2d_config& config, bool host_passes)
{
    const std::size_t pixels = config.pixels();
    // valid; the host passes' moment, phasors, filtered phasors and the box sums'
    // seven floats; the cost model, whole periods and flow of two differences; supply,
    // K, component and queue; the network's node of loop, node supplies (summed and
    // whole) and four arc costs.
    const std::size_t per_pixel =
        sizeof(std::uint8_t) + (host_passes ? host_pass_floats : 0) * sizeof(float) +
        2 * (2 * sizeof(std::int32_t) + 2 * sizeof(float)) + sizeof(double) +
        sizeof(std::int64_t) + 2 * sizeof(std::int32_t) + 2 * sizeof(std::int32_t) +
        sizeof(double) + 4 * sizeof(std::int32_t);
    return pixels * per_pixel + mcf_flow_solver_bytes(config.mcf_solver, pixels);
}

void mcf_unwrap_cpu::for_row_ranges(
    std::size_t count,
    const std::function<void(std::size_t worker, std::int32_t first, std::int32_t end)>&
        rows) const
{
    parallel_ranges(count,
                    d_row_workers,
                    [&](std::size_t worker, std::size_t first, std::size_t end) {
                        rows(worker,
                             static_cast<std::int32_t>(first),
                             static_cast<std::int32_t>(end));
                    });
}

void mcf_unwrap_cpu::sum_window_steps(const float* x,
                                      std::int32_t direction,
                                      bool unit_steps)
{
    const std::int32_t width = static_cast<std::int32_t>(d_config.width);
    const std::int32_t height = static_cast<std::int32_t>(d_config.height);
    const unwrap_period p = make_unwrap_period(d_config.period);
    for_row_ranges(height, [&](std::size_t, std::int32_t first, std::int32_t end) {
        for (std::int32_t row = first; row < end; ++row)
            for (std::int32_t col = 0; col < width; ++col) {
                const std::size_t a = std::size_t(row) * width + col;
                std::int32_t b = 0;
                const bool pair = unwrap_2d_neighbour(row,
                                                      col,
                                                      direction,
                                                      1 - direction,
                                                      { width, height, false, false },
                                                      &b) &&
                                  d_valid[a] && d_valid[b];
                mcf_phasor step{ 0.0f, 0.0f };
                if (pair && unit_steps)
                    step = mcf_polar(1.0,
                                     wrap_difference(double(x[b]) - double(x[a]), p) *
                                         p.inverse_period);
                else if (pair)
                    step = mcf_filtered_step({ d_filtered[0][a], d_filtered[1][a] },
                                             { d_filtered[0][b], d_filtered[1][b] });
                d_step[0][a] = step.re;
                d_step[1][a] = step.im;
                d_step[2][a] = pair ? 1.0f : 0.0f;
            }
    });
    const std::int32_t half = static_cast<std::int32_t>(d_config.gradient_window / 2);
    for (int k = 0; k < 3; ++k)
        box_sum(
            d_step[k], d_row_sum, d_window_sum[k], half, width, height, d_row_workers);
}

void mcf_unwrap_cpu::estimate_expected_gradients(const float* x)
{
    const std::int32_t width = static_cast<std::int32_t>(d_config.width);
    const unwrap_period p = make_unwrap_period(d_config.period);
    for (std::int32_t direction = 0; direction < 2; ++direction) {
        sum_window_steps(x, direction, false);
        for_row_ranges(d_config.height,
                       [&](std::size_t, std::int32_t first, std::int32_t end) {
                           for (std::size_t a = std::size_t(first) * width;
                                a < std::size_t(end) * width;
                                ++a) {
                               const std::size_t edge =
                                   unwrap_2d_edge_index(std::int32_t(a), direction);
                               d_offset[edge] = 0.0f;
                               if (d_step[2][a] == 0.0f)
                                   continue;
                               const std::size_t b = direction == 0 ? a + 1 : a + width;
                               d_offset[edge] = mcf_expected_gradient(
                                   d_window_sum[0][a],
                                   d_window_sum[1][a],
                                   wrap_difference(double(x[b]) - double(x[a]), p) *
                                       p.inverse_period);
                           }
                       });
    }
}

void mcf_unwrap_cpu::filter_along_gradients()
{
    const std::int32_t width = static_cast<std::int32_t>(d_config.width);
    const std::int32_t height = static_cast<std::int32_t>(d_config.height);
    const std::int32_t half = static_cast<std::int32_t>(d_config.gradient_window / 2);
    for_row_ranges(height, [&](std::size_t, std::int32_t first, std::int32_t end) {
        for (std::int32_t row = first; row < end; ++row)
            for (std::int32_t col = 0; col < width; ++col) {
                const std::size_t a = std::size_t(row) * width + col;
                // A pixel's expected gradients are those of its differences to the
                // right and downwards (0 where there is none: the window's phasors then
                // just add up less coherently).
                const mcf_phasor sum =
                    d_valid[a] ? mcf_filter_along_gradients(
                                     d_phasor[0].data(),
                                     d_phasor[1].data(),
                                     row,
                                     col,
                                     width,
                                     height,
                                     half,
                                     d_offset[unwrap_2d_edge_index(std::int32_t(a), 0)],
                                     d_offset[unwrap_2d_edge_index(std::int32_t(a), 1)])
                               : mcf_phasor{ 0.0f, 0.0f };
                d_filtered[0][a] = sum.re;
                d_filtered[1][a] = sum.im;
            }
    });
}

void mcf_unwrap_cpu::estimate_difference_costs(const unwrap_2d_buffers& host)
{
    const std::int32_t width = static_cast<std::int32_t>(d_config.width);
    const std::int32_t height = static_cast<std::int32_t>(d_config.height);
    const std::size_t pixels = d_config.pixels();
    const unwrap_period p = make_unwrap_period(d_config.period);
    const float* x = host.wrapped;

    // Each valid pixel's phasor, scaled by its phase moment (1 without coherence):
    // the expected length of its signal part, so that the sums below weigh the
    // pixels as a matched filter does, noisy ones least.
    for_row_ranges(height, [&](std::size_t, std::int32_t first, std::int32_t end) {
        for (std::size_t i = std::size_t(first) * width; i < std::size_t(end) * width;
             ++i) {
            const double moment =
                !d_valid[i] ? 0.0
                : host.weight != nullptr
                    ? mcf_tabulated_moment(d_moment_table.data(), host.weight[i])
                    : 1.0;
            d_moment[i] = static_cast<float>(moment);
            const mcf_phasor phasor =
                d_valid[i] ? mcf_polar(moment, double(x[i]) * p.inverse_period)
                           : mcf_phasor{ 0.0f, 0.0f };
            d_phasor[0][i] = phasor.re;
            d_phasor[1][i] = phasor.im;
        }
    });

    // The expected gradient of a difference is the angle of the window's sum of
    // F_b conj(F_a), F the phasors filtered around each pixel: a pair's own step has
    // the moment of two pixels' noises, rho_a rho_b, a filtered one nearly that of
    // the filter's mean, so in low coherence (0.1, in a vegetated patch: 0.006
    // against 0.08) the filtered steps resolve gradients the raw ones cannot (measured in
    // docs/design/mcf_unwrapping.md). A plain box filter cancels across a steep
    // ramp (the 3 x 3 box at a third of a period a pixel), so the first estimate
    // comes from a 3 x 3 box, and the final one from a window-sized filter that
    // turns each neighbour back along those first gradients before adding it.
    const std::int32_t first_half = std::min<std::int32_t>(
        1, static_cast<std::int32_t>(d_config.gradient_window / 2));
    for (int k = 0; k < 2; ++k)
        box_sum(d_phasor[k],
                d_row_sum,
                d_filtered[k],
                first_half,
                width,
                height,
                d_row_workers);
    estimate_expected_gradients(x);
    filter_along_gradients();
    estimate_expected_gradients(x);

    for (std::int32_t direction = 0; direction < 2; ++direction) {
        // Without coherence, the spread of the window's unit steps (one minus the
        // length of their mean) stands for the noise.
        if (host.weight == nullptr)
            sum_window_steps(x, direction, true);
        for_row_ranges(height, [&](std::size_t, std::int32_t first, std::int32_t end) {
            for (std::size_t a = std::size_t(first) * width; a < std::size_t(end) * width;
                 ++a) {
                const std::size_t edge = unwrap_2d_edge_index(std::int32_t(a), direction);
                d_cycles[edge] = 0;
                d_curvature[edge] = 0.0f;
                const std::size_t col = a % width;
                const bool pair = (direction == 0 ? col + 1 < std::size_t(width)
                                                  : a + width < pixels) &&
                                  d_valid[a] &&
                                  d_valid[direction == 0 ? a + 1 : a + width];
                if (!pair) {
                    d_offset[edge] = 0.0f;
                    continue; // not a pair of valid pixels: free to cut
                }
                const std::size_t b = direction == 0 ? a + 1 : a + width;
                const double wrapped =
                    wrap_difference(double(x[b]) - double(x[a]), p) * p.inverse_period;
                double moment = double(d_moment[a]) * double(d_moment[b]);
                if (host.weight == nullptr)
                    moment = mcf_window_moment(
                        d_window_sum[0][a], d_window_sum[1][a], d_window_sum[2][a]);
                const mcf_difference_cost cost = mcf_cost_of(
                    wrapped, double(d_offset[edge]), mcf_difference_variance(moment));
                d_cycles[edge] = cost.base_cycles;
                d_offset[edge] = cost.offset;
                d_curvature[edge] = cost.curvature;
            }
        });
    }
}

std::size_t mcf_unwrap_cpu::count_residues_and_supplies(const float* x)
{
    const std::int32_t width = static_cast<std::int32_t>(d_config.width);
    const std::int32_t height = static_cast<std::int32_t>(d_config.height);
    const unwrap_period p = make_unwrap_period(d_config.period);
    // A loop touching an invalid pixel keeps the fraction of its valid differences'
    // sum (mcf_loop_supply()): rounding it loop by loop would leave the loops merged
    // around a masked area (build_network()) with the wrong total, which the flow
    // would then have to carry off to the earth across valid land. Only the merged
    // node's total, the circulation of the valid differences around the area's rim,
    // is rounded. Each worker counts its own rows' residues.
    std::vector<std::size_t> residues(d_row_workers, 0);
    for_row_ranges(
        height - 1, [&](std::size_t worker, std::int32_t first, std::int32_t end) {
            for (std::int32_t row = first; row < end; ++row)
                for (std::int32_t col = 0; col + 1 < width; ++col) {
                    const mcf_loop_balance loop =
                        mcf_loop_supply(x,
                                        d_valid.data(),
                                        std::size_t(row) * width + col,
                                        std::size_t(width),
                                        p);
                    residues[worker] += loop.residue != 0;
                    d_supply[std::size_t(row) * (width - 1) + col] = loop.supply;
                }
        });
    return std::accumulate(residues.begin(), residues.end(), std::size_t(0));
}

void mcf_unwrap_cpu::add_base_cycles_to_supplies()
{
    const std::int32_t width = static_cast<std::int32_t>(d_config.width);
    const std::int32_t height = static_cast<std::int32_t>(d_config.height);
    // The base periods of every difference already move flow from its plus to its
    // minus loop: added in this order on one thread, so that each loop's supply is
    // the same sum whatever the number of workers.
    for (std::int32_t row = 0; row < height; ++row)
        for (std::int32_t col = 0; col < width; ++col)
            for (std::int32_t direction = 0; direction < 2; ++direction) {
                const std::int32_t base =
                    d_cycles[unwrap_2d_edge_index(row * width + col, direction)];
                if (base == 0)
                    continue;
                const mcf_dual_ends ends =
                    mcf_difference_ends(row, col, direction, width, height);
                d_supply[ends.plus] -= base;
                d_supply[ends.minus] += base;
            }
    // The earth takes whatever balances the others, set in build_network().
    d_supply.back() = 0.0;
}

bool mcf_unwrap_cpu::build_network()
{
    const std::int32_t width = static_cast<std::int32_t>(d_config.width);
    const std::int32_t height = static_cast<std::int32_t>(d_config.height);
    const std::size_t loops_and_earth = d_supply.size();
    auto for_each_difference_in_rows = [&](std::int32_t first,
                                           std::int32_t end,
                                           auto visit) {
        for (std::int32_t row = first; row < end; ++row)
            for (std::int32_t col = 0; col < width; ++col)
                for (std::int32_t direction = 0; direction < 2; ++direction) {
                    if ((direction == 0 && col + 1 == width) ||
                        (direction == 1 && row + 1 == height))
                        continue;
                    const std::uint32_t edge =
                        unwrap_2d_edge_index(row * width + col, direction);
                    visit(edge, mcf_difference_ends(row, col, direction, width, height));
                }
    };

    // A difference beside an invalid pixel costs nothing either way, with no bound:
    // its two loops are one node for the flow (exact, and it spares the solver the
    // zero-cost cycles of a masked area). The nodes are the union-find roots,
    // numbered in order.
    std::vector<std::int32_t>& root = d_network.node_of_loop;
    for (std::size_t node = 0; node < loops_and_earth; ++node)
        root[node] = static_cast<std::int32_t>(node);
    auto find = [&](std::int32_t node) {
        while (root[node] != node)
            node = root[node] = root[root[node]];
        return node;
    };
    for_each_difference_in_rows(
        0, height, [&](std::uint32_t edge, const mcf_dual_ends& ends) {
            if (d_curvature[edge] == 0.0f) {
                const std::int32_t a = find(ends.plus), b = find(ends.minus);
                root[std::max(a, b)] = std::min(a, b);
            }
        });
    // Every loop's root first, then the roots numbered in order: numbering in the
    // same pass would overwrite parent links that find() still has to follow.
    for (std::size_t loop = 0; loop < loops_and_earth; ++loop)
        root[loop] = find(static_cast<std::int32_t>(loop));
    d_summed_supply.clear();
    for (std::size_t loop = 0; loop < loops_and_earth; ++loop) {
        const std::int32_t r = root[loop];
        if (r == static_cast<std::int32_t>(loop)) {
            root[loop] = static_cast<std::int32_t>(d_summed_supply.size());
            d_summed_supply.push_back(0.0);
        } else {
            root[loop] = root[r]; // r < loop: already numbered
        }
        d_summed_supply[root[loop]] += d_supply[loop];
    }
    const std::size_t nodes = d_summed_supply.size();
    d_network.nodes = static_cast<std::int32_t>(nodes);
    // Whole supplies (a merged node's fractions sum to its rim's circulation), and
    // the earth's node takes what balances them.
    d_network.earth_node = root[loops_and_earth - 1];
    std::vector<std::int32_t>& supply = d_network.supply;
    supply.resize(nodes);
    std::int64_t balance = 0;
    std::int64_t total_supply = 0;
    for (std::size_t node = 0; node < nodes; ++node) {
        if (std::int32_t(node) == d_network.earth_node)
            continue;
        supply[node] = static_cast<std::int32_t>(std::llround(d_summed_supply[node]));
        balance += supply[node];
        total_supply += std::abs(supply[node]);
    }
    supply[d_network.earth_node] = static_cast<std::int32_t>(-balance);
    if (total_supply == 0)
        return false;

    // The arcs of every costed difference between two different nodes; the
    // differences from row r's pixels own the arc costs [4 width r, 4 width (r + 1)).
    for_row_ranges(height, [&](std::size_t, std::int32_t first, std::int32_t end) {
        std::fill(d_network.arc_cost.begin() + 4 * std::size_t(first) * width,
                  d_network.arc_cost.begin() + 4 * std::size_t(end) * width,
                  0);
        for_each_difference_in_rows(
            first, end, [&](std::uint32_t edge, const mcf_dual_ends& ends) {
                if (d_curvature[edge] == 0.0f || root[ends.plus] == root[ends.minus])
                    return;
                const mcf_difference_cost model = { 0,
                                                    d_offset[edge],
                                                    d_curvature[edge] };
                d_network.arc_cost[2 * edge] =
                    std::max(least_arc_cost, mcf_step_cost(model, 1, 1));
                d_network.arc_cost[2 * edge + 1] =
                    std::max(least_arc_cost, mcf_step_cost(model, -1, 1));
            });
    });
    return true;
}

std::size_t mcf_unwrap_cpu::solve_flow()
{
    d_flow_cost = 0;
    if (!build_network())
        return 0;
    d_solver->solve(d_network, d_flow);
    d_flow_cost = mcf_flow_cost(d_network, d_flow);
    // The periods each difference gained beyond its base.
    std::size_t moved = 0;
    for (std::size_t edge = 0; edge < d_flow.size(); ++edge) {
        d_cycles[edge] += d_flow[edge];
        moved += std::size_t(std::abs(d_flow[edge]));
    }
    return moved;
}

std::size_t mcf_unwrap_cpu::integrate(const unwrap_2d_buffers& host)
{
    const std::size_t width = d_config.width;
    const std::size_t pixels = d_config.pixels();
    const unwrap_period p = make_unwrap_period(d_config.period);
    const float* x = host.wrapped;
    // K[b] - K[a] across the difference from a to its right or lower neighbour b:
    // its periods minus those that wrapping took out of x[b] - x[a].
    auto step = [&](std::size_t a, std::size_t b, std::int32_t direction) {
        return std::int64_t(d_cycles[unwrap_2d_edge_index(std::int32_t(a), direction)]) -
               std::int64_t(wrap_turns(double(x[b]) - double(x[a]), p));
    };
    std::fill(d_component.begin(), d_component.end(), 0);
    std::int32_t components = 0;
    for (std::size_t seed = 0; seed < pixels; ++seed) {
        if (!d_valid[seed] || d_component[seed] != 0)
            continue;
        d_component[seed] = ++components;
        d_pixel_cycles[seed] = 0;
        std::size_t head = 0, tail = 0;
        d_queue[tail++] = static_cast<std::int32_t>(seed);
        while (head < tail) {
            const std::size_t a = std::size_t(d_queue[head++]);
            const std::size_t col = a % width;
            auto reach = [&](std::size_t b, std::int64_t cycles) {
                if (!d_valid[b] || d_component[b] != 0)
                    return;
                d_component[b] = components;
                d_pixel_cycles[b] = cycles;
                d_queue[tail++] = static_cast<std::int32_t>(b);
            };
            const std::int64_t k = d_pixel_cycles[a];
            if (col + 1 < width)
                reach(a + 1, k + step(a, a + 1, 0));
            if (col > 0)
                reach(a - 1, k - step(a - 1, a, 0));
            if (a + width < pixels)
                reach(a + width, k + step(a, a + width, 1));
            if (a >= width)
                reach(a - width, k - step(a - width, a, 1));
        }
    }

    const float nan = std::numeric_limits<float>::quiet_NaN();
    for_row_ranges(
        d_config.height, [&](std::size_t, std::int32_t first, std::int32_t end) {
            for (std::size_t i = std::size_t(first) * width; i < std::size_t(end) * width;
                 ++i) {
                const bool valid = d_valid[i] != 0;
                const std::int64_t cycles = valid ? d_pixel_cycles[i] : 0;
                host.unwrapped[i] = valid ? apply_cycles(x[i], cycles, p) : nan;
                if (host.cycles)
                    host.cycles[i] = saturate_cycles(cycles);
                if (host.components)
                    host.components[i] = d_component[i];
            }
        });
    return static_cast<std::size_t>(components);
}

void mcf_unwrap_cpu::allocate_host_pass_arrays()
{
    const std::size_t pixels = d_config.pixels();
    d_moment.resize(pixels);
    d_row_sum.resize(pixels);
    for (auto& step : d_step)
        step.resize(pixels);
    for (auto& sum : d_window_sum)
        sum.resize(pixels);
    for (int k = 0; k < 2; ++k) {
        d_phasor[k].resize(pixels);
        d_filtered[k].resize(pixels);
    }
}

mcf_input_counts mcf_unwrap_cpu::compute_network_inputs(const unwrap_2d_buffers& host)
{
    allocate_host_pass_arrays();
    mcf_input_counts counts;
    const std::size_t width = d_config.width;
    std::vector<std::size_t> valid_pixels(d_row_workers, 0);
    for_row_ranges(
        d_config.height, [&](std::size_t worker, std::int32_t first, std::int32_t end) {
            for (std::size_t i = std::size_t(first) * width; i < std::size_t(end) * width;
                 ++i) {
                d_valid[i] =
                    unwrap_2d_pixel_valid(host.wrapped, host.weight, host.mask, i);
                valid_pixels[worker] += d_valid[i];
            }
        });
    counts.valid_pixels =
        std::accumulate(valid_pixels.begin(), valid_pixels.end(), std::size_t(0));
    estimate_difference_costs(host);
    counts.residues = count_residues_and_supplies(host.wrapped);
    return counts;
}

mcf_network_inputs mcf_unwrap_cpu::network_inputs()
{
    mcf_network_inputs inputs;
    inputs.valid = d_valid.data();
    inputs.base_cycles = d_cycles.data();
    inputs.offset = d_offset.data();
    inputs.curvature = d_curvature.data();
    inputs.loop_supply = d_supply.data();
    return inputs;
}

unwrap_2d_report mcf_unwrap_cpu::unwrap(const unwrap_2d_buffers& host)
{
    const mcf_input_counts counts =
        d_stage ? d_stage->compute(host, network_inputs()) : compute_network_inputs(host);
    add_base_cycles_to_supplies();
    unwrap_2d_report report;
    report.valid_pixels = counts.valid_pixels;
    report.residues = counts.residues;
    report.flow = solve_flow();
    // integrate() reads the wrapped phase until its spanning trees are done and only
    // then writes the outputs, each pixel's after its own read: unwrapped may alias it.
    report.components = integrate(host);
    return report;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
