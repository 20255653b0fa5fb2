/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The reliability method's minimum spanning forest on the GPU, by Boruvka's algorithm.
//
// Order. The existing edges enter a stable radix sort of (edge key, edge index) in
// ascending edge index, so equal keys keep that order: an edge's position in the
// sorted array, its rank, is the spec's total order (key, then edge index), and no two
// edges share one. All comparisons below are of ranks.
//
// Why Boruvka builds Kruskal's forest. With all ranks distinct the minimum spanning
// forest is unique, and Kruskal's sequential algorithm builds it. Cut property: for any
// set S of pixels, the lightest edge between S and the rest belongs to that forest. Each
// Boruvka iteration lets every component of the forest built so far pick the lightest
// edge leaving it (S = the component), so every picked edge is a forest edge; joining
// along them keeps a subforest of the unique forest. The iterations end when no edge
// joins two components; a subforest of the minimum spanning forest that spans every
// connected component of the valid pixels is that forest itself. Each iteration at
// least halves the number of components that still have an edge leaving them, so there
// are at most log2(pixels) iterations.
//
// Joining the picks. A component is a tree of pixels with a root; root a picks the
// lightest edge leaving it (atomicMin of ranks into root_min[a]), to root b, and hooks
// onto b. The picks can form no cycle longer than two (along one, each pick would be
// lighter than the one before, all the way round). A 2-cycle is two roots that picked
// the same edge: of those the smaller root id stays a root, the other hooks onto it.
// Hooks chain (a onto b onto c ...): pointer jumping in rounds makes each hook lead
// straight to its new root, then every pixel moves to it.
//
// Whole periods. Pixel p carries offset[p] = K[p] - K[root(p)] (int64: a path of capped
// steps can pass 2^31). A hook of root a onto root b carries K[a] - K[b], which the
// picked edge's edge_cycles and its two ends' offsets give; jumping and moving add
// offsets along the links. When the forest is complete each component's constant comes
// from its first pixel f in row-major order: K[p] = offset[p] - offset[f].
//
// Known cycles (the MCF frame). There the periods across an edge are the difference of
// its ends' known K, the same along every path between two pixels of a component, so
// any spanning forest gives K[p] = known[p] - known[f]: the edges are not sorted, and
// their rank is their position in ascending edge index. Boruvka still builds the
// forest in at most log2(pixels) iterations, from the pixels up, where a breadth-first
// search on the host walks the frame one pixel at a time.
//
// Races. Every kernel reads only arrays that no thread of it writes, or the one slot
// its own thread writes: the picks are complete (atomicMin) before the hooking kernel
// reads them; hooks write a root's own link slot; jumping reads one pair of link
// arrays and writes the other (ping-pong per round); moving a pixel reads the final
// links and writes the pixel's own slots.

#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/grid_size.h"
#include "unwrap/reliability_unwrap_cuda.h"
#include "unwrap/reliability_unwrap_kernels.cuh"
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * One frame's device buffers (reliability_unwrap_cuda::device_bytes() counts them: it
 * changes with them). Edges (up to two per pixel) go through the sort in
 * edges[] (the edge indices: DeviceSelect's output, then the sort's values, one buffer
 * current) and edge_words[] (the sort's keys; once sorted, the keys are not needed and
 * the two buffers hold Boruvka's active edge lists, ping-pong).
 */
struct reliability_unwrap_cuda::workspace {
    workspace(std::size_t pixels, bool keyed, bool guided)
        : valid(pixels),
          pixel_key(keyed ? pixels : 0),
          steps(guided ? 2 * pixels : 0),
          edge_exists(2 * pixels),
          edges{ device_buffer<std::uint32_t>(2 * pixels),
                 device_buffer<std::uint32_t>(2 * pixels) },
          edge_words{ device_buffer<std::uint32_t>(2 * pixels),
                      device_buffer<std::uint32_t>(2 * pixels) },
          root_of(pixels),
          offset(pixels),
          link_parent{ device_buffer<std::int32_t>(pixels),
                       device_buffer<std::int32_t>(pixels) },
          link_offset{ device_buffer<std::int64_t>(pixels),
                       device_buffer<std::int64_t>(pixels) },
          hooked(pixels),
          root_min(pixels),
          first_flags(pixels),
          counters(1),
          host_counters(1)
    {
        // One temporary storage for the three CUB calls, sized for the largest frame.
        const std::size_t edge_slots = 2 * pixels;
        std::size_t select_bytes = 0;
        CUDADSP_CUDA(
            cub::DeviceSelect::Flagged(nullptr,
                                       select_bytes,
                                       thrust::counting_iterator<std::uint32_t>(0),
                                       edge_exists.get(),
                                       edges[0].get(),
                                       &counters.get()->edges,
                                       static_cast<std::int64_t>(edge_slots)));
        std::size_t sort_bytes = 0;
        cub::DoubleBuffer<std::uint32_t> keys(edge_words[0].get(), edge_words[1].get());
        cub::DoubleBuffer<std::uint32_t> values(edges[0].get(), edges[1].get());
        CUDADSP_CUDA(cub::DeviceRadixSort::SortPairs(
            nullptr, sort_bytes, keys, values, static_cast<std::uint32_t>(edge_slots)));
        std::size_t scan_bytes = 0;
        CUDADSP_CUDA(cub::DeviceScan::ExclusiveSum(
            nullptr, scan_bytes, first_flags.get(), static_cast<int>(pixels)));
        cub_storage = device_buffer<unsigned char>(
            std::max({ select_bytes, sort_bytes, scan_bytes, std::size_t(1) }));
    }

    //! Copies the counters to the host once the stream has done all before.
    const reliability_counters& read_counters(cudaStream_t stream)
    {
        CUDADSP_CUDA(cudaMemcpyAsync(host_counters.get(),
                                     counters.get(),
                                     sizeof(reliability_counters),
                                     cudaMemcpyDeviceToHost,
                                     stream));
        CUDADSP_CUDA(cudaStreamSynchronize(stream));
        return *host_counters.get();
    }

    void clear_counter(unsigned int reliability_counters::*field, cudaStream_t stream)
    {
        CUDADSP_CUDA(
            cudaMemsetAsync(&(counters.get()->*field), 0, sizeof(unsigned int), stream));
    }

    forest_links links()
    {
        return { { link_parent[0].get(), link_parent[1].get() },
                 { link_offset[0].get(), link_offset[1].get() } };
    }

    device_buffer<std::uint8_t> valid;
    device_buffer<float> pixel_key; //!< empty for known cycles
    //! pair_step of each pixel, right then down; empty unless guided by the local
    //! gradient
    device_buffer<gradient_step> steps;
    device_buffer<std::uint8_t> edge_exists; //!< per edge index
    device_buffer<std::uint32_t> edges[2];
    device_buffer<std::uint32_t> edge_words[2];
    device_buffer<std::int32_t> root_of;        //!< each pixel's root
    device_buffer<std::int64_t> offset;         //!< K[p] - K[root_of[p]]
    device_buffer<std::int32_t> link_parent[2]; //!< hooks of roots (ping-pong)
    device_buffer<std::int64_t> link_offset[2];
    device_buffer<std::uint32_t> hooked; //!< roots that hooked, this iteration
    //! Per root: the rank of its picked edge during Boruvka, its first pixel after.
    device_buffer<std::uint32_t> root_min;
    //! Component numbering: first-pixel flags, then (in place) their exclusive sum.
    device_buffer<std::int32_t> first_flags;
    device_buffer<unsigned char> cub_storage;
    device_buffer<reliability_counters> counters;
    pinned_buffer<reliability_counters> host_counters;
};

reliability_unwrap_cuda::reliability_unwrap_cuda(const phase_unwrap_2d_config& config,
                                                 forest_edges edges)
    : d_edges(edges),
      d_geometry{ static_cast<std::int32_t>(config.width),
                  static_cast<std::int32_t>(config.height),
                  config.wrap_around_x,
                  config.wrap_around_y },
      d_period(make_unwrap_period(config.period)),
      d_pixels(static_cast<unsigned int>(config.pixels())),
      d_gradient_half_window(edges == forest_edges::reliability
                                 ? static_cast<std::int32_t>(config.gradient_window / 2)
                                 : 0),
      d_ws(std::make_unique<workspace>(config.pixels(),
                                       edges == forest_edges::reliability,
                                       d_gradient_half_window > 0))
{
}

reliability_unwrap_cuda::~reliability_unwrap_cuda() = default;

std::size_t reliability_unwrap_cuda::device_bytes(const phase_unwrap_2d_config& config,
                                                  forest_edges edges)
{
    // The workspace's buffers, a pixel's share each: valid, pixel_key (reliability),
    // steps (guided), edge_exists, edges[2] and edge_words[2] (two edge slots a pixel),
    // root_of, offset, link_parent[2], link_offset[2], hooked, root_min, first_flags.
    const bool keyed = edges == forest_edges::reliability;
    const bool guided = keyed && config.gradient_window > 1;
    const std::size_t per_pixel =
        sizeof(std::uint8_t) + (keyed ? sizeof(float) : 0) +
        (guided ? 2 * sizeof(gradient_step) : 0) + 2 * sizeof(std::uint8_t) +
        8 * sizeof(std::uint32_t) + sizeof(std::int32_t) + sizeof(std::int64_t) +
        2 * sizeof(std::int32_t) + 2 * sizeof(std::int64_t) + 3 * sizeof(std::uint32_t);
    return per_pixel * config.pixels();
}

void reliability_unwrap_cuda::jump_to_roots(unsigned int hook_bound,
                                            int& link_slot,
                                            cudaStream_t stream)
{
    workspace& ws = *d_ws;
    for (;;) {
        ws.clear_counter(&reliability_counters::unfinished, stream);
        const int in = link_slot;
        const int out = link_slot ^ 1;
        jump_links_kernel<<<blocks_for(hook_bound, block_threads),
                            block_threads,
                            0,
                            stream>>>(ws.hooked.get(),
                                      &ws.counters.get()->hooked,
                                      ws.link_parent[in].get(),
                                      ws.link_offset[in].get(),
                                      ws.link_parent[out].get(),
                                      ws.link_offset[out].get(),
                                      &ws.counters.get()->unfinished);
        CUDADSP_CUDA_LAUNCHED("jump_links_kernel");
        link_slot = out;
        if (ws.read_counters(stream).unfinished == 0)
            return;
    }
}

unwrap_2d_report reliability_unwrap_cuda::solve(const unwrap_2d_buffers& device,
                                                cudaStream_t stream)
{
    if (d_edges != forest_edges::reliability)
        throw std::logic_error("reliability_unwrap_cuda::solve: made for known cycles");
    return run(device, nullptr, stream);
}

unwrap_2d_report
reliability_unwrap_cuda::integrate_known_cycles(const std::int64_t* known_cycles,
                                                const unwrap_2d_buffers& device,
                                                cudaStream_t stream)
{
    if (d_edges != forest_edges::known_cycles)
        throw std::logic_error(
            "reliability_unwrap_cuda::integrate_known_cycles: made for the reliability "
            "method");
    return run(device, known_cycles, stream);
}

unwrap_2d_report reliability_unwrap_cuda::run(const unwrap_2d_buffers& device,
                                              const std::int64_t* known_cycles,
                                              cudaStream_t stream)
{
    workspace& ws = *d_ws;
    CUDADSP_CUDA(
        cudaMemsetAsync(ws.counters.get(), 0, sizeof(reliability_counters), stream));
    plant_forest(device, known_cycles, stream);
    const unsigned int edge_count = select_edges(stream);
    if (edge_count > 0) {
        // Known cycles: the selected edges, in ascending index, are their own order.
        const std::uint32_t* ranked =
            known_cycles != nullptr ? ws.edges[0].get() : sort_edges(edge_count, stream);
        merge_trees(ranked, edge_count, device, known_cycles, stream);
    }
    write_outputs(device, stream);

    const reliability_counters& counts = ws.read_counters(stream);
    unwrap_2d_report report;
    report.valid_pixels = counts.valid_pixels;
    report.components = counts.components;
    return report;
}

void reliability_unwrap_cuda::plant_forest(const unwrap_2d_buffers& device,
                                           const std::int64_t* known_cycles,
                                           cudaStream_t stream)
{
    workspace& ws = *d_ws;
    const unsigned int n = d_pixels;
    const unsigned int pixel_blocks = blocks_for(n, block_threads);
    plant_forest_kernel<<<pixel_blocks, block_threads, 0, stream>>>(
        device.wrapped,
        device.weight,
        device.mask,
        known_cycles,
        n,
        ws.valid.get(),
        ws.root_of.get(),
        ws.offset.get(),
        ws.links(),
        ws.root_min.get(),
        &ws.counters.get()->valid_pixels);
    CUDADSP_CUDA_LAUNCHED("plant_forest_kernel");
    if (known_cycles != nullptr) {
        known_cycles_edges_kernel<<<pixel_blocks, block_threads, 0, stream>>>(
            ws.valid.get(), d_geometry, ws.edge_exists.get());
        CUDADSP_CUDA_LAUNCHED("known_cycles_edges_kernel");
        return;
    }
    pixel_keys_kernel<<<pixel_blocks, block_threads, 0, stream>>>(device.wrapped,
                                                                  ws.valid.get(),
                                                                  d_geometry,
                                                                  d_period,
                                                                  ws.pixel_key.get(),
                                                                  ws.steps.get(),
                                                                  ws.edge_exists.get());
    CUDADSP_CUDA_LAUNCHED("pixel_keys_kernel");
}

unsigned int reliability_unwrap_cuda::select_edges(cudaStream_t stream)
{
    workspace& ws = *d_ws;
    const unsigned int n = d_pixels;
    // The existing edges, in ascending edge index (DeviceSelect keeps the order).
    std::size_t cub_bytes = ws.cub_storage.bytes();
    CUDADSP_CUDA(cub::DeviceSelect::Flagged(ws.cub_storage.get(),
                                            cub_bytes,
                                            thrust::counting_iterator<std::uint32_t>(0),
                                            ws.edge_exists.get(),
                                            ws.edges[0].get(),
                                            &ws.counters.get()->edges,
                                            2 * static_cast<std::int64_t>(n),
                                            stream));
    return ws.read_counters(stream).edges;
}

const std::uint32_t* reliability_unwrap_cuda::sort_edges(unsigned int edge_count,
                                                         cudaStream_t stream)
{
    workspace& ws = *d_ws;
    edge_keys_kernel<<<blocks_for(edge_count, block_threads), block_threads, 0, stream>>>(
        ws.edges[0].get(),
        edge_count,
        ws.pixel_key.get(),
        d_geometry,
        ws.edge_words[0].get());
    CUDADSP_CUDA_LAUNCHED("edge_keys_kernel");
    // LSD radix sort: stable, so equal keys keep ascending edge index.
    cub::DoubleBuffer<std::uint32_t> keys(ws.edge_words[0].get(), ws.edge_words[1].get());
    cub::DoubleBuffer<std::uint32_t> values(ws.edges[0].get(), ws.edges[1].get());
    std::size_t cub_bytes = ws.cub_storage.bytes();
    CUDADSP_CUDA(cub::DeviceRadixSort::SortPairs(
        ws.cub_storage.get(), cub_bytes, keys, values, edge_count, 0, 32, stream));
    return values.Current();
}

void reliability_unwrap_cuda::merge_trees(const std::uint32_t* sorted_edges,
                                          unsigned int edge_count,
                                          const unwrap_2d_buffers& device,
                                          const std::int64_t* known_cycles,
                                          cudaStream_t stream)
{
    workspace& ws = *d_ws;
    const unsigned int n = d_pixels;
    const unsigned int pixel_blocks = blocks_for(n, block_threads);
    // Boruvka. The first iteration's active edges are all ranks (no list).
    const std::uint32_t* active = nullptr;
    unsigned int active_count = edge_count;
    int list_slot = 0;
    int link_slot = 0;
    for (;;) {
        ws.clear_counter(&reliability_counters::alive, stream);
        ws.clear_counter(&reliability_counters::hooked, stream);
        std::uint32_t* alive = ws.edge_words[list_slot].get();
        pick_lightest_edges_kernel<<<blocks_for(active_count, block_threads),
                                     block_threads,
                                     0,
                                     stream>>>(active,
                                               active_count,
                                               sorted_edges,
                                               ws.root_of.get(),
                                               d_geometry,
                                               ws.root_min.get(),
                                               alive,
                                               &ws.counters.get()->alive);
        CUDADSP_CUDA_LAUNCHED("pick_lightest_edges_kernel");
        const unsigned int alive_count = ws.read_counters(stream).alive;
        if (alive_count == 0)
            break;

        hook_roots_kernel<<<pixel_blocks, block_threads, 0, stream>>>(
            n,
            ws.root_min.get(),
            sorted_edges,
            ws.root_of.get(),
            ws.offset.get(),
            device.wrapped,
            ws.steps.get(),
            d_gradient_half_window,
            known_cycles,
            d_geometry,
            d_period,
            ws.links(),
            ws.hooked.get(),
            &ws.counters.get()->hooked);
        CUDADSP_CUDA_LAUNCHED("hook_roots_kernel");
        // Each alive edge lets at most its two roots hook.
        const unsigned int hook_bound = static_cast<unsigned int>(
            std::min<std::size_t>(n, 2 * std::size_t(alive_count)));
        jump_to_roots(hook_bound, link_slot, stream);
        move_to_roots_kernel<<<pixel_blocks, block_threads, 0, stream>>>(
            n,
            ws.link_parent[link_slot].get(),
            ws.link_offset[link_slot].get(),
            ws.root_of.get(),
            ws.offset.get(),
            ws.root_min.get());
        CUDADSP_CUDA_LAUNCHED("move_to_roots_kernel");

        active = alive;
        active_count = alive_count;
        list_slot ^= 1;
    }
}

void reliability_unwrap_cuda::write_outputs(const unwrap_2d_buffers& device,
                                            cudaStream_t stream)
{
    workspace& ws = *d_ws;
    const unsigned int n = d_pixels;
    const unsigned int pixel_blocks = blocks_for(n, block_threads);
    // root_min is all none again: it collects each component's first pixel.
    std::uint32_t* const first = ws.root_min.get();
    find_first_pixels_kernel<<<pixel_blocks, block_threads, 0, stream>>>(
        n,
        d_geometry.width,
        ws.valid.get(),
        ws.root_of.get(),
        first,
        &ws.counters.get()->components);
    CUDADSP_CUDA_LAUNCHED("find_first_pixels_kernel");
    std::int32_t* const first_flags =
        device.components != nullptr ? ws.first_flags.get() : nullptr;
    write_outputs_kernel<<<pixel_blocks, block_threads, 0, stream>>>(n,
                                                                     device.wrapped,
                                                                     ws.valid.get(),
                                                                     ws.root_of.get(),
                                                                     ws.offset.get(),
                                                                     first,
                                                                     d_period,
                                                                     device.unwrapped,
                                                                     device.cycles,
                                                                     first_flags);
    CUDADSP_CUDA_LAUNCHED("write_outputs_kernel");
    if (device.components != nullptr) {
        std::size_t cub_bytes = ws.cub_storage.bytes();
        CUDADSP_CUDA(cub::DeviceScan::ExclusiveSum(ws.cub_storage.get(),
                                                   cub_bytes,
                                                   ws.first_flags.get(),
                                                   static_cast<int>(n),
                                                   stream));
        number_components_kernel<<<pixel_blocks, block_threads, 0, stream>>>(
            n,
            ws.valid.get(),
            ws.root_of.get(),
            first,
            ws.first_flags.get(),
            device.components);
        CUDADSP_CUDA_LAUNCHED("number_components_kernel");
    }
}

} // namespace core
} // namespace cudadsp
} // namespace gr
