/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/parallel_ranges.h"
#include "unwrap/mcf_tiled_unwrap.h"
#include "unwrap/phase_unwrap_2d_rule.h"
#include <algorithm>
#include <atomic>
#include <limits>
#include <numeric>
#include <tuple>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * Votes of a pair of regions on the periods between their constants:
 * constant[b] - constant[a] = difference, said by \p pixels shared pixels.
 */
struct mcf_tiled_unwrap::region_vote {
    std::size_t a, b;
    std::int64_t difference;
    std::size_t pixels;
};

struct mcf_tiled_unwrap::tile_solution {
    std::vector<std::int32_t> cycles;
    //! The tile's components, its regions: 1..report.components (0: not valid).
    std::vector<std::int32_t> region;
    unwrap_2d_report report;
    //! Index of the tile's region 1 among all tiles' regions.
    std::size_t first_region = 0;
};

namespace {

//! The tile solver's configuration: the frame's, with the tile's size.
phase_unwrap_2d_config tile_config(const phase_unwrap_2d_config& config,
                                   const mcf_axis_tiles& columns,
                                   const mcf_axis_tiles& rows)
{
    phase_unwrap_2d_config tile = config;
    tile.width = columns.extent;
    tile.height = rows.extent;
    return tile;
}

//! Index of the tile whose core holds \p position.
std::size_t core_of(const mcf_axis_tiles& axis, std::size_t position)
{
    return std::size_t(
        std::upper_bound(axis.core_end.begin(), axis.core_end.end(), position) -
        axis.core_end.begin());
}

//! The workers the tiles are shared among: one tile solver each.
std::size_t tile_workers(std::size_t tiles) { return parallel_workers(tiles, tiles); }

/*!
 * The workers each of \p solvers solvers running at once may share its row passes
 * among (mcf_unwrap_cpu): the hardware threads the solvers leave, and at most one
 * per 2^15 pixels of \p frame, below which starting a thread costs more than the
 * rows it would take (a pass over them is tens of microseconds).
 */
std::size_t solver_row_workers(const phase_unwrap_2d_config& frame, std::size_t solvers)
{
    const std::size_t hardware_threads = parallel_workers(
        std::numeric_limits<std::size_t>::max(), std::numeric_limits<std::size_t>::max());
    return std::max<std::size_t>(
        1, std::min(hardware_threads / solvers, frame.pixels() >> 15));
}

} // namespace

mcf_axis_tiles
mcf_tiles_of_axis(std::size_t length, std::size_t tile, std::size_t overlap)
{
    mcf_axis_tiles axis;
    if (length <= tile) {
        axis.extent = length;
        axis.start = { 0 };
        axis.core_end = { length };
        return axis;
    }
    axis.extent = tile;
    // Tiles spread evenly from one end to the other: the steps between starts are
    // at most tile - overlap (a whole number), so each neighbour pair overlaps by at
    // least overlap.
    const std::size_t count =
        (length - overlap + (tile - overlap) - 1) / (tile - overlap);
    for (std::size_t i = 0; i < count; ++i)
        axis.start.push_back(i * (length - tile) / (count - 1));
    for (std::size_t i = 0; i + 1 < count; ++i)
        axis.core_end.push_back((axis.start[i] + tile + axis.start[i + 1]) / 2);
    axis.core_end.push_back(length);
    return axis;
}

mcf_tiled_unwrap::mcf_tiled_unwrap(const phase_unwrap_2d_config& config,
                                   const mcf_network_inputs_stage_factory& make_stage)
    : d_config(config),
      d_columns(
          mcf_tiles_of_axis(config.width, config.mcf_tile_size(), config.tile_overlap)),
      d_rows(
          mcf_tiles_of_axis(config.height, config.mcf_tile_size(), config.tile_overlap))
{
    const std::size_t tiles = d_columns.start.size() * d_rows.start.size();
    auto stage_for = [&](const phase_unwrap_2d_config& solved) {
        return make_stage ? make_stage(solved) : nullptr;
    };
    if (tiles == 1) {
        d_solvers.push_back(std::make_unique<mcf_unwrap_cpu>(
            config, solver_row_workers(config, 1), stage_for(config)));
        return;
    }
    const phase_unwrap_2d_config tile = tile_config(config, d_columns, d_rows);
    const std::size_t workers = tile_workers(tiles);
    d_wrapped.resize(workers);
    d_weight.resize(workers);
    d_unwrapped.resize(workers);
    d_mask.resize(workers);
    for (std::size_t w = 0; w < workers; ++w) {
        d_solvers.push_back(std::make_unique<mcf_unwrap_cpu>(
            tile, solver_row_workers(tile, workers), stage_for(tile)));
        d_wrapped[w].resize(tile.pixels());
        d_unwrapped[w].resize(tile.pixels());
    }
    d_tiles.resize(tiles);
    for (tile_solution& t : d_tiles) {
        t.cycles.resize(tile.pixels());
        t.region.resize(tile.pixels());
    }
}

mcf_tiled_unwrap::~mcf_tiled_unwrap() = default;

mcf_tiled_unwrap::solver_layout
mcf_tiled_unwrap::layout(const phase_unwrap_2d_config& config)
{
    const std::size_t side = config.mcf_tile_size();
    const mcf_axis_tiles columns =
        mcf_tiles_of_axis(config.width, side, config.tile_overlap);
    const mcf_axis_tiles rows =
        mcf_tiles_of_axis(config.height, side, config.tile_overlap);
    const std::size_t tiles = columns.start.size() * rows.start.size();
    if (tiles == 1)
        return { config, 1, 1 };
    return { tile_config(config, columns, rows), tiles, tile_workers(tiles) };
}

std::size_t mcf_tiled_unwrap::bytes(const phase_unwrap_2d_config& config,
                                    bool host_passes)
{
    const solver_layout solvers = layout(config);
    if (solvers.tiles == 1)
        return mcf_unwrap_cpu::bytes(config, host_passes);
    const phase_unwrap_2d_config& tile = solvers.tile;
    // Per worker: the solver and its network, the tile's wrapped, weight, unwrapped
    // and mask. Per tile: its K and components. Per frame pixel, integrated on the
    // host: K, component, queue.
    const std::size_t per_worker = mcf_unwrap_cpu::bytes(tile, host_passes) +
                                   tile.pixels() * (3 * sizeof(float) + 1);
    const std::size_t per_frame_pixel =
        host_passes ? sizeof(std::int64_t) + 2 * sizeof(std::int32_t) : 0;
    return solvers.solvers * per_worker +
           solvers.tiles * tile.pixels() * 2 * sizeof(std::int32_t) +
           config.pixels() * per_frame_pixel;
}

void mcf_tiled_unwrap::solve_tile(std::size_t worker,
                                  std::size_t tile,
                                  const unwrap_2d_buffers& host)
{
    const std::size_t width = d_config.width;
    const std::size_t tile_width = d_columns.extent, tile_height = d_rows.extent;
    const std::size_t col0 = d_columns.start[tile % d_columns.start.size()];
    const std::size_t row0 = d_rows.start[tile / d_columns.start.size()];
    auto copy_tile = [&](const auto* frame, auto& copy) {
        if (frame == nullptr)
            return;
        copy.resize(tile_width * tile_height);
        for (std::size_t r = 0; r < tile_height; ++r) {
            const auto* from = frame + (row0 + r) * width + col0;
            std::copy(from, from + tile_width, copy.begin() + r * tile_width);
        }
    };
    copy_tile(host.wrapped, d_wrapped[worker]);
    copy_tile(host.weight, d_weight[worker]);
    copy_tile(host.mask, d_mask[worker]);
    tile_solution& solution = d_tiles[tile];
    unwrap_2d_buffers buffers;
    buffers.wrapped = d_wrapped[worker].data();
    buffers.unwrapped = d_unwrapped[worker].data();
    buffers.weight = host.weight ? d_weight[worker].data() : nullptr;
    buffers.mask = host.mask ? d_mask[worker].data() : nullptr;
    buffers.cycles = solution.cycles.data();
    buffers.components = solution.region.data();
    solution.report = d_solvers[worker]->unwrap(buffers);
}

std::vector<std::int64_t> mcf_tiled_unwrap::reconcile_regions() const
{
    const std::size_t tile_columns = d_columns.start.size();
    const std::size_t tile_width = d_columns.extent, tile_height = d_rows.extent;

    // Votes of each pair of regions that share pixels: (region a, region b, K_a - K_b)
    // and how many pixels say so. Most pixels of an overlap repeat the previous
    // pixel's vote, so runs are counted before they are stored.
    using vote = region_vote;
    std::vector<vote> votes;

    for (std::size_t t = 0; t < d_tiles.size(); ++t)
        for (std::size_t u = t + 1; u < d_tiles.size(); ++u) {
            const std::size_t tc = t % tile_columns, tr = t / tile_columns;
            const std::size_t uc = u % tile_columns, ur = u / tile_columns;
            const std::size_t col0 = std::max(d_columns.start[tc], d_columns.start[uc]);
            const std::size_t col1 =
                std::min(d_columns.start[tc], d_columns.start[uc]) + tile_width;
            const std::size_t row0 = std::max(d_rows.start[tr], d_rows.start[ur]);
            const std::size_t row1 =
                std::min(d_rows.start[tr], d_rows.start[ur]) + tile_height;
            if (col0 >= col1 || row0 >= row1)
                continue;
            const tile_solution& s = d_tiles[t];
            const tile_solution& z = d_tiles[u];
            vote run{ 0, 0, 0, 0 };
            for (std::size_t row = row0; row < row1; ++row)
                for (std::size_t col = col0; col < col1; ++col) {
                    const std::size_t i = (row - d_rows.start[tr]) * tile_width +
                                          (col - d_columns.start[tc]);
                    const std::size_t j = (row - d_rows.start[ur]) * tile_width +
                                          (col - d_columns.start[uc]);
                    if (s.region[i] == 0)
                        continue; // not valid, in both tiles alike
                    const vote v{ s.first_region + std::size_t(s.region[i] - 1),
                                  z.first_region + std::size_t(z.region[j] - 1),
                                  std::int64_t(s.cycles[i]) - std::int64_t(z.cycles[j]),
                                  1 };
                    if (run.pixels > 0 && v.a == run.a && v.b == run.b &&
                        v.difference == run.difference) {
                        ++run.pixels;
                        continue;
                    }
                    if (run.pixels > 0)
                        votes.push_back(run);
                    run = v;
                }
            if (run.pixels > 0)
                votes.push_back(run);
        }

    // Each pair's most frequent difference, with its pixel count as the weight.
    std::sort(votes.begin(), votes.end(), [](const vote& x, const vote& y) {
        return std::tie(x.a, x.b, x.difference) < std::tie(y.a, y.b, y.difference);
    });
    std::vector<vote> joins;
    for (std::size_t k = 0; k < votes.size();) {
        vote total = votes[k];
        vote best = total;
        best.pixels = 0;
        for (; k < votes.size() && votes[k].a == total.a && votes[k].b == total.b;) {
            vote same = votes[k];
            for (++k; k < votes.size() && votes[k].a == same.a && votes[k].b == same.b &&
                      votes[k].difference == same.difference;
                 ++k)
                same.pixels += votes[k].pixels;
            if (same.pixels > best.pixels)
                best = same;
        }
        joins.push_back(best);
    }

    // Maximum spanning forest of the regions (Kruskal, heaviest vote first), in a
    // union-find that keeps each region's constant relative to its parent:
    // constant[b] - constant[a] = K_a - K_b where the two regions meet.
    std::stable_sort(joins.begin(), joins.end(), [](const vote& x, const vote& y) {
        return x.pixels > y.pixels;
    });
    const std::size_t regions =
        d_tiles.back().first_region + d_tiles.back().report.components;
    std::vector<std::size_t> parent(regions);
    std::iota(parent.begin(), parent.end(), std::size_t(0));
    std::vector<std::int64_t> to_parent(regions, 0);
    // The root of \p region, and the region's constant relative to it.
    auto find = [&](std::size_t region) {
        std::int64_t offset = 0;
        std::size_t root = region;
        while (parent[root] != root) {
            offset += to_parent[root];
            root = parent[root];
        }
        // Path compression: every region on the way points at the root.
        std::int64_t remaining = offset;
        while (parent[region] != region) {
            const std::size_t next = parent[region];
            const std::int64_t step = to_parent[region];
            parent[region] = root;
            to_parent[region] = remaining;
            remaining -= step;
            region = next;
        }
        return std::make_pair(root, offset);
    };
    for (const vote& join : joins) {
        const auto [root_a, offset_a] = find(join.a);
        const auto [root_b, offset_b] = find(join.b);
        if (root_a == root_b)
            continue;
        // constant[root_b] = constant[b] - offset_b
        //                  = constant[a] + difference - offset_b
        //                  = constant[root_a] + offset_a + difference - offset_b.
        parent[root_b] = root_a;
        to_parent[root_b] = offset_a + join.difference - offset_b;
    }
    std::vector<std::int64_t> constant(regions);
    for (std::size_t region = 0; region < regions; ++region)
        constant[region] = find(region).second;
    return constant;
}

unwrap_2d_report mcf_tiled_unwrap::join_tiles(const unwrap_2d_buffers& host,
                                              std::int64_t* cycles)
{
    // Tiles differ in their work (noise, masks), so each worker takes the next
    // unsolved tile rather than a fixed share.
    std::atomic<std::size_t> next_tile{ 0 };
    const std::size_t workers = d_solvers.size();
    parallel_ranges(workers, workers, [&](std::size_t worker, std::size_t, std::size_t) {
        for (std::size_t t = next_tile++; t < d_tiles.size(); t = next_tile++)
            solve_tile(worker, t, host);
    });

    unwrap_2d_report report;
    std::size_t regions = 0;
    for (tile_solution& t : d_tiles) {
        t.first_region = regions;
        regions += t.report.components;
        report.residues += t.report.residues;
        report.flow += t.report.flow;
    }
    const std::vector<std::int64_t> region_offset = reconcile_regions();

    // Each pixel's K from the tile whose core holds it, with its region's constant.
    const std::size_t width = d_config.width, height = d_config.height;
    const std::size_t tile_columns = d_columns.start.size();
    const std::size_t tile_width = d_columns.extent;
    parallel_ranges(height, frame_row_workers(), [&](std::size_t first, std::size_t end) {
        for (std::size_t row = first; row < end; ++row) {
            const std::size_t tr = core_of(d_rows, row);
            for (std::size_t col = 0; col < width; ++col) {
                const std::size_t tc = core_of(d_columns, col);
                const tile_solution& s = d_tiles[tr * tile_columns + tc];
                const std::size_t j =
                    (row - d_rows.start[tr]) * tile_width + (col - d_columns.start[tc]);
                const std::int32_t c = s.region[j];
                cycles[row * width + col] =
                    c == 0 ? unknown_cycles
                           : s.cycles[j] +
                                 region_offset[s.first_region + std::size_t(c - 1)];
            }
        }
    });
    return report;
}

std::size_t mcf_tiled_unwrap::frame_row_workers() const
{
    // Rows of this many pixels or more are shared among workers: below, starting
    // threads would cost more than the passes themselves.
    return std::max<std::size_t>(1, d_config.pixels() / (1u << 18));
}

std::size_t mcf_tiled_unwrap::integrate_frame(const unwrap_2d_buffers& host)
{
    const std::size_t width = d_config.width, height = d_config.height;
    const std::size_t pixels = d_config.pixels();
    const std::size_t row_workers = frame_row_workers();
    // Component 0 marks a pixel that is not valid, -1 one not yet numbered.
    parallel_ranges(height, row_workers, [&](std::size_t first, std::size_t end) {
        for (std::size_t i = first * width; i < end * width; ++i)
            d_component[i] = d_cycles[i] == unknown_cycles ? 0 : -1;
    });
    // The frame's components, numbered as the whole-frame solver numbers them, with
    // K = 0 at each one's first pixel in row-major order: the constant to take off.
    std::vector<std::int64_t> first_cycles(1, 0);
    std::int32_t components = 0;
    for (std::size_t seed = 0; seed < pixels; ++seed) {
        if (d_component[seed] != -1)
            continue;
        d_component[seed] = ++components;
        first_cycles.push_back(d_cycles[seed]);
        std::size_t head = 0, tail = 0;
        d_queue[tail++] = static_cast<std::int32_t>(seed);
        while (head < tail) {
            const std::size_t a = std::size_t(d_queue[head++]);
            const std::size_t col = a % width;
            auto reach = [&](std::size_t b) {
                if (d_component[b] != -1)
                    return;
                d_component[b] = components;
                d_queue[tail++] = static_cast<std::int32_t>(b);
            };
            if (col + 1 < width)
                reach(a + 1);
            if (col > 0)
                reach(a - 1);
            if (a + width < pixels)
                reach(a + width);
            if (a >= width)
                reach(a - width);
        }
    }

    const unwrap_period p = make_unwrap_period(d_config.period);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    parallel_ranges(height, row_workers, [&](std::size_t first, std::size_t end) {
        for (std::size_t i = first * width; i < end * width; ++i) {
            const std::int32_t c = d_component[i];
            const std::int64_t cycles = c == 0 ? 0 : d_cycles[i] - first_cycles[c];
            host.unwrapped[i] = c != 0 ? apply_cycles(host.wrapped[i], cycles, p) : nan;
            if (host.cycles)
                host.cycles[i] = saturate_cycles(cycles);
            if (host.components)
                host.components[i] = c;
        }
    });
    return std::size_t(components);
}

unwrap_2d_report mcf_tiled_unwrap::unwrap(const unwrap_2d_buffers& host)
{
    if (!tiled())
        return d_solvers.front()->unwrap(host);
    const std::size_t pixels = d_config.pixels();
    if (d_cycles.empty()) {
        d_cycles.resize(pixels);
        d_component.resize(pixels);
        d_queue.resize(pixels);
    }
    unwrap_2d_report report = join_tiles(host, d_cycles.data());
    report.components = integrate_frame(host);
    for (std::size_t i = 0; i < pixels; ++i)
        report.valid_pixels += d_component[i] != 0;
    return report;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
