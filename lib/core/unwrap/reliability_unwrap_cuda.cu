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
// Races. Every kernel reads only arrays that no thread of it writes, or the one slot
// its own thread writes: the picks are complete (atomicMin) before the hooking kernel
// reads them; hooks write a root's own link slot; jumping reads one pair of link
// arrays and writes the other (ping-pong per round); moving a pixel reads the final
// links and writes the pixel's own slots.

#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "unwrap/reliability_unwrap_cuda.h"
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/atomic>
#include <thrust/iterator/counting_iterator.h>
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

// Every kernel is one thread per item of a flat range, memory-bound: 256 threads keep
// enough warps resident per SM for any item count.
constexpr unsigned int block_threads = 256;

/*! "Nothing yet" for the per-root minima (an edge rank during Boruvka, a pixel index
 *  afterwards): the neutral value of atomicMin for both. */
constexpr std::uint32_t none = 0xffffffffu;

unsigned int blocks_for(std::size_t items)
{
    return static_cast<unsigned int>((items + block_threads - 1) / block_threads);
}

//! What the kernels count; the host reads it back between stages.
struct reliability_counters {
    unsigned int valid_pixels;
    unsigned int edges;      //!< existing edges
    unsigned int alive;      //!< edges between two roots, this Boruvka iteration
    unsigned int hooked;     //!< roots that hooked onto another, this iteration
    unsigned int unfinished; //!< jumping: some hook leads to a non-root after the round
    unsigned int components;
};

//! The two link arrays of the pointer jumping (ping-pong: one read, one written).
struct forest_links {
    std::int32_t* parent[2];
    std::int64_t* offset[2];
};

__device__ __forceinline__ unsigned int thread_item()
{
    return blockIdx.x * blockDim.x + threadIdx.x;
}

using block_count_scan = cub::BlockScan<unsigned int, block_threads>;

/*!
 * Appends \p item to \p list for each thread of the block that passes \p keep, at
 * consecutive free slots of *count. One atomic per block: the first Boruvka iterations
 * append millions of items to one counter, and atomics on one address are serialised.
 * The list's order is unspecified. Every thread of the block must call it.
 */
__device__ __forceinline__ void
block_append(bool keep, std::uint32_t item, std::uint32_t* list, unsigned int* count)
{
    __shared__ typename block_count_scan::TempStorage scan_storage;
    __shared__ unsigned int block_base;
    unsigned int position = 0;
    unsigned int block_total = 0;
    block_count_scan(scan_storage).ExclusiveSum(keep ? 1u : 0u, position, block_total);
    if (threadIdx.x == 0 && block_total > 0)
        block_base = atomicAdd(count, block_total);
    __syncthreads();
    if (keep)
        list[block_base + position] = item;
}

/*!
 * Marks the valid pixels (unwrap_2d_pixel_valid(); weight and mask may be null) and
 * plants the forest: every pixel its own root with offset 0, a self link in both link
 * arrays, no picked edge. Counts the valid pixels into *valid_count. One thread per
 * pixel of n. The link offsets are left unset: they are read only for roots that
 * hooked, which write them first.
 */
__global__ void __launch_bounds__(block_threads)
    plant_forest_kernel(const float* wrapped,
                        const float* weight,
                        const std::uint8_t* mask,
                        unsigned int n,
                        std::uint8_t* valid,
                        std::int32_t* root_of,
                        std::int64_t* offset,
                        forest_links links,
                        std::uint32_t* root_min,
                        unsigned int* valid_count)
{
    const unsigned int p = thread_item();
    bool ok = false;
    if (p < n) {
        ok = unwrap_2d_pixel_valid(wrapped, weight, mask, p);
        valid[p] = ok ? 1 : 0;
        root_of[p] = static_cast<std::int32_t>(p);
        offset[p] = 0;
        links.parent[0][p] = static_cast<std::int32_t>(p);
        links.parent[1][p] = static_cast<std::int32_t>(p);
        root_min[p] = none;
    }
    // Every thread of the block reaches the barrier (no early return above).
    const int block_valid = __syncthreads_count(ok);
    if (threadIdx.x == 0 && block_valid > 0)
        atomicAdd(valid_count, static_cast<unsigned int>(block_valid));
}

/*!
 * key[p] = pixel_reliability_key of pixel p where valid (0 elsewhere, never read),
 * steps[d * n + p] = pair_step of p in direction d when the edges are guided by the
 * local gradient (steps != nullptr), and edge_exists[2p + d] = whether edge 2p + d (d =
 * 0: right, 1: down) exists: it has a far end (unwrap_2d_edge_ends) and both ends are
 * valid. One thread per pixel of the frame.
 */
__global__ void __launch_bounds__(block_threads)
    pixel_keys_kernel(const float* __restrict__ wrapped,
                      const std::uint8_t* __restrict__ valid,
                      unwrap_2d_geometry g,
                      unwrap_period period,
                      float* __restrict__ key,
                      gradient_step* __restrict__ steps,
                      std::uint8_t* __restrict__ edge_exists)
{
    const unsigned int p = thread_item();
    if (p >= static_cast<unsigned int>(g.width) * static_cast<unsigned int>(g.height))
        return;
    const std::int32_t row = static_cast<std::int32_t>(p) / g.width;
    const std::int32_t col = static_cast<std::int32_t>(p) - row * g.width;
    const bool here = valid[p] != 0;
    key[p] = here ? pixel_reliability_key(wrapped, valid, row, col, g, period) : 0.0f;
    const unsigned int n =
        static_cast<unsigned int>(g.width) * static_cast<unsigned int>(g.height);
    if (steps != nullptr)
        for (std::int32_t direction = 0; direction < 2; ++direction)
            steps[direction * n + p] = pair_step(
                wrapped, valid, static_cast<std::int32_t>(p), direction, g, period);
    for (std::int32_t direction = 0; direction < 2; ++direction) {
        const std::uint32_t edge =
            unwrap_2d_edge_index(static_cast<std::int32_t>(p), direction);
        std::int32_t from = 0;
        std::int32_t to = 0;
        edge_exists[edge] =
            here && unwrap_2d_edge_ends(edge, g, &from, &to) && valid[to] ? 1 : 0;
    }
}

//! key_bits[i] = edge_order_key of edge edges[i], i < count: the sort's keys.
__global__ void __launch_bounds__(block_threads)
    edge_keys_kernel(const std::uint32_t* __restrict__ edges,
                     unsigned int count,
                     const float* __restrict__ key,
                     unwrap_2d_geometry g,
                     std::uint32_t* __restrict__ key_bits)
{
    const unsigned int i = thread_item();
    if (i >= count)
        return;
    std::int32_t from = 0;
    std::int32_t to = 0;
    unwrap_2d_edge_ends(edges[i], g, &from, &to);
    key_bits[i] = edge_order_key(key[from], key[to]);
}

/*! *slot = min(*slot, rank). Picks only fall, so a rank not below a (possibly stale)
 *  current value cannot win: most candidates skip the atomic. */
__device__ __forceinline__ void lower_pick(std::uint32_t* slot, std::uint32_t rank)
{
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> pick(*slot);
    if (rank < pick.load(cuda::std::memory_order_relaxed))
        pick.fetch_min(rank, cuda::std::memory_order_relaxed);
}

/*!
 * Boruvka's pick: for each active edge whose ends lie in different components, lowers
 * both roots' root_min to its rank and appends the rank to alive (counted in
 * *alive_count): the next iteration's active edges. Edges inside one component are
 * dropped for good. The active edges are list[0..count) (ranks), or all ranks
 * 0..count when list is null. Every pixel points straight at its root (root_of).
 */
__global__ void __launch_bounds__(block_threads)
    pick_lightest_edges_kernel(const std::uint32_t* __restrict__ list,
                               unsigned int count,
                               const std::uint32_t* __restrict__ sorted_edges,
                               const std::int32_t* __restrict__ root_of,
                               unwrap_2d_geometry g,
                               std::uint32_t* root_min,
                               std::uint32_t* __restrict__ alive,
                               unsigned int* alive_count)
{
    const unsigned int i = thread_item();
    bool joins = false;
    std::uint32_t rank = 0;
    if (i < count) {
        rank = list != nullptr ? list[i] : i;
        std::int32_t from = 0;
        std::int32_t to = 0;
        unwrap_2d_edge_ends(sorted_edges[rank], g, &from, &to);
        const std::int32_t a = root_of[from];
        const std::int32_t b = root_of[to];
        joins = a != b;
        if (joins) {
            lower_pick(root_min + a, rank);
            lower_pick(root_min + b, rank);
        }
    }
    block_append(joins, rank, alive, alive_count);
}

/*!
 * Hooks each root a that picked an edge (root_min[a] != none) onto the root b at the
 * edge's other end, except the smaller root of two that picked the same edge. The hook
 * is written to a's slot of both link arrays, with K[a] - K[b]; a is appended to
 * hooked. One thread per pixel of n; reads only arrays that no thread here writes.
 */
__global__ void __launch_bounds__(block_threads)
    hook_roots_kernel(unsigned int n,
                      const std::uint32_t* __restrict__ root_min,
                      const std::uint32_t* __restrict__ sorted_edges,
                      const std::int32_t* __restrict__ root_of,
                      const std::int64_t* __restrict__ offset,
                      const float* wrapped,
                      const gradient_step* __restrict__ steps,
                      std::int32_t gradient_half_window,
                      unwrap_2d_geometry g,
                      unwrap_period period,
                      forest_links links,
                      std::uint32_t* __restrict__ hooked,
                      unsigned int* hooked_count)
{
    const unsigned int a = thread_item();
    bool hooks = false;
    const std::uint32_t rank = a < n ? root_min[a] : none;
    if (rank != none) {
        std::int32_t from = 0;
        std::int32_t to = 0;
        const std::uint32_t edge = sorted_edges[rank];
        unwrap_2d_edge_ends(edge, g, &from, &to);
        // The end in a's component, and the far one.
        const bool near_is_from = root_of[from] == static_cast<std::int32_t>(a);
        const std::int32_t near = near_is_from ? from : to;
        const std::int32_t far = near_is_from ? to : from;
        const std::int32_t b = root_of[far];
        hooks = !(root_min[b] == rank && static_cast<std::int32_t>(a) < b);
        if (hooks) {
            // K[to] - K[from] = guided_edge_cycles; K[a] = K[near] - offset[near], and
            // K[b] = K[far] - offset[far].
            std::int64_t across = 0;
            if (gradient_half_window == 0) {
                across = edge_cycles(wrapped[from], wrapped[to], period);
            } else {
                const gradient_step* direction_steps =
                    steps + (edge & 1u) * static_cast<std::size_t>(n);
                across = guided_edge_cycles(
                    wrapped[from],
                    wrapped[to],
                    direction_steps[from],
                    window_step_sum(direction_steps, from, gradient_half_window, g),
                    period);
            }
            const std::int64_t near_minus_far = near_is_from ? -across : across;
            const std::int64_t a_minus_b = near_minus_far - offset[near] + offset[far];
            for (int slot = 0; slot < 2; ++slot) {
                links.parent[slot][a] = b;
                links.offset[slot][a] = a_minus_b;
            }
        }
    }
    block_append(hooks, a, hooked, hooked_count);
}

/*!
 * One pointer-jumping round over the hooked roots hooked[0..*hooked_count): each hook
 * (parent, K[h] - K[parent]) read from the *_in arrays becomes (grandparent, K[h] -
 * K[grandparent]) in the *_out arrays. Roots (parent == itself) are the same in both
 * arrays and never written. Sets *unfinished when some hook still leads to a non-root
 * after the round. Launched with at least *hooked_count threads.
 */
__global__ void __launch_bounds__(block_threads)
    jump_links_kernel(const std::uint32_t* __restrict__ hooked,
                      const unsigned int* hooked_count,
                      const std::int32_t* __restrict__ parent_in,
                      const std::int64_t* __restrict__ offset_in,
                      std::int32_t* __restrict__ parent_out,
                      std::int64_t* __restrict__ offset_out,
                      unsigned int* unfinished)
{
    const unsigned int i = thread_item();
    if (i >= *hooked_count)
        return;
    const std::uint32_t h = hooked[i];
    const std::int32_t parent = parent_in[h];
    const std::int32_t grandparent = parent_in[parent];
    std::int64_t h_minus_grandparent = offset_in[h];
    if (grandparent != parent) {
        h_minus_grandparent += offset_in[parent];
        if (parent_in[grandparent] != grandparent)
            *unfinished = 1u; // every writer stores the same value
    }
    parent_out[h] = grandparent;
    offset_out[h] = h_minus_grandparent;
}

/*!
 * Moves every pixel to its new root after the jumping: root_of[p] and offset[p] follow
 * the (final) link of p's old root. Old roots also clear their pick for the next
 * iteration (after the last iteration root_min is all none again). One thread per
 * pixel of n.
 */
__global__ void __launch_bounds__(block_threads)
    move_to_roots_kernel(unsigned int n,
                         const std::int32_t* __restrict__ link_parent,
                         const std::int64_t* __restrict__ link_offset,
                         std::int32_t* __restrict__ root_of,
                         std::int64_t* __restrict__ offset,
                         std::uint32_t* __restrict__ root_min)
{
    const unsigned int p = thread_item();
    if (p >= n)
        return;
    const std::int32_t old_root = root_of[p];
    const std::int32_t new_root = link_parent[old_root];
    if (new_root != old_root) {
        root_of[p] = new_root;
        offset[p] += link_offset[old_root];
    }
    if (old_root == static_cast<std::int32_t>(p) && root_min[p] != none)
        root_min[p] = none;
}

/*!
 * first[root] = the smallest pixel of each component (first is root_min, all none on
 * entry), and *components += the number of roots. Only pixels whose left and upper
 * neighbours (in index order, ignoring wrap-around: both smaller indices) lie outside
 * their component can be first, so few pixels contend for a root's atomic. One thread
 * per pixel of n.
 */
__global__ void __launch_bounds__(block_threads)
    find_first_pixels_kernel(unsigned int n,
                             std::int32_t width,
                             const std::uint8_t* __restrict__ valid,
                             const std::int32_t* __restrict__ root_of,
                             std::uint32_t* first,
                             unsigned int* components)
{
    const unsigned int p = thread_item();
    bool is_root = false;
    if (p < n && valid[p]) {
        // Invalid pixels are roots of themselves alone, so a neighbour with the same
        // root is a valid pixel of the same component.
        const std::int32_t root = root_of[p];
        const unsigned int uwidth = static_cast<unsigned int>(width);
        is_root = root == static_cast<std::int32_t>(p);
        const bool left_inside = p % uwidth != 0 && root_of[p - 1] == root;
        const bool up_inside = p >= uwidth && root_of[p - uwidth] == root;
        if (!left_inside && !up_inside)
            atomicMin(first + root, p);
    }
    // Every thread of the block reaches the barrier (no early return above).
    const int block_roots = __syncthreads_count(is_root);
    if (threadIdx.x == 0 && block_roots > 0)
        atomicAdd(components, static_cast<unsigned int>(block_roots));
}

/*!
 * The outputs: K[p] = offset[p] - offset[first pixel of p's component];
 * unwrapped = apply_cycles (quiet NaN where invalid, as the CPU backend), cycles =
 * saturate_cycles (0 where invalid; cycles may be null), and where first_flags is not
 * null, 1 at each component's first pixel, else 0. wrapped and unwrapped may alias
 * (each thread reads its pixel before writing it). One thread per pixel of n.
 */
__global__ void __launch_bounds__(block_threads)
    write_outputs_kernel(unsigned int n,
                         const float* wrapped,
                         const std::uint8_t* __restrict__ valid,
                         const std::int32_t* __restrict__ root_of,
                         const std::int64_t* __restrict__ offset,
                         const std::uint32_t* __restrict__ first,
                         unwrap_period period,
                         float* unwrapped,
                         std::int32_t* __restrict__ cycles,
                         std::int32_t* __restrict__ first_flags)
{
    const unsigned int p = thread_item();
    if (p >= n)
        return;
    if (!valid[p]) {
        unwrapped[p] =
            __int_as_float(0x7fc00000); // std::numeric_limits<float>::quiet_NaN()
        if (cycles != nullptr)
            cycles[p] = 0;
        if (first_flags != nullptr)
            first_flags[p] = 0;
        return;
    }
    const std::uint32_t f = first[root_of[p]];
    const std::int64_t k = offset[p] - offset[f];
    unwrapped[p] = apply_cycles(wrapped[p], k, period);
    if (cycles != nullptr)
        cycles[p] = saturate_cycles(k);
    if (first_flags != nullptr)
        first_flags[p] = f == p ? 1 : 0;
}

/*! components[p] = 1 + the number of first pixels before p's component's first pixel
 *  (numbers: the exclusive sum of the first-pixel flags), 0 where invalid. One thread
 *  per pixel of n. */
__global__ void __launch_bounds__(block_threads)
    number_components_kernel(unsigned int n,
                             const std::uint8_t* __restrict__ valid,
                             const std::int32_t* __restrict__ root_of,
                             const std::uint32_t* __restrict__ first,
                             const std::int32_t* __restrict__ numbers,
                             std::int32_t* __restrict__ components)
{
    const unsigned int p = thread_item();
    if (p >= n)
        return;
    components[p] = valid[p] ? numbers[first[root_of[p]]] + 1 : 0;
}

} // namespace

/*!
 * One frame's device buffers (reliability_unwrap_cuda::device_bytes() counts them: it
 * changes with them). Edges (up to two per pixel) go through the sort in
 * edges[] (the edge indices: DeviceSelect's output, then the sort's values, one buffer
 * current) and edge_words[] (the sort's keys; once sorted, the keys are not needed and
 * the two buffers hold Boruvka's active edge lists, ping-pong).
 */
struct reliability_unwrap_cuda::workspace {
    workspace(std::size_t pixels, bool guided)
        : valid(pixels),
          pixel_key(pixels),
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
    device_buffer<float> pixel_key;
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

reliability_unwrap_cuda::reliability_unwrap_cuda(const phase_unwrap_2d_config& config)
    : d_geometry{ static_cast<std::int32_t>(config.width),
                  static_cast<std::int32_t>(config.height),
                  config.wrap_around_x,
                  config.wrap_around_y },
      d_period(make_unwrap_period(config.period)),
      d_pixels(static_cast<unsigned int>(config.pixels())),
      d_gradient_half_window(static_cast<std::int32_t>(config.gradient_window / 2)),
      d_ws(std::make_unique<workspace>(config.pixels(), d_gradient_half_window > 0))
{
}

reliability_unwrap_cuda::~reliability_unwrap_cuda() = default;

std::size_t reliability_unwrap_cuda::device_bytes(const phase_unwrap_2d_config& config)
{
    // The workspace's buffers, a pixel's share each: valid, pixel_key, steps (guided),
    // edge_exists, edges[2] and edge_words[2] (two edge slots a pixel), root_of,
    // offset, link_parent[2], link_offset[2], hooked, root_min, first_flags.
    const bool guided = config.gradient_window > 1;
    const std::size_t per_pixel =
        sizeof(std::uint8_t) + sizeof(float) + (guided ? 2 * sizeof(gradient_step) : 0) +
        2 * sizeof(std::uint8_t) + 8 * sizeof(std::uint32_t) + sizeof(std::int32_t) +
        sizeof(std::int64_t) + 2 * sizeof(std::int32_t) + 2 * sizeof(std::int64_t) +
        3 * sizeof(std::uint32_t);
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
        jump_links_kernel<<<blocks_for(hook_bound), block_threads, 0, stream>>>(
            ws.hooked.get(),
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
    workspace& ws = *d_ws;
    const unsigned int n = d_pixels;
    const unsigned int pixel_blocks = blocks_for(n);
    CUDADSP_CUDA(
        cudaMemsetAsync(ws.counters.get(), 0, sizeof(reliability_counters), stream));

    plant_forest_kernel<<<pixel_blocks, block_threads, 0, stream>>>(
        device.wrapped,
        device.weight,
        device.mask,
        n,
        ws.valid.get(),
        ws.root_of.get(),
        ws.offset.get(),
        ws.links(),
        ws.root_min.get(),
        &ws.counters.get()->valid_pixels);
    CUDADSP_CUDA_LAUNCHED("plant_forest_kernel");
    pixel_keys_kernel<<<pixel_blocks, block_threads, 0, stream>>>(device.wrapped,
                                                                  ws.valid.get(),
                                                                  d_geometry,
                                                                  d_period,
                                                                  ws.pixel_key.get(),
                                                                  ws.steps.get(),
                                                                  ws.edge_exists.get());
    CUDADSP_CUDA_LAUNCHED("pixel_keys_kernel");

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
    const unsigned int edge_count = ws.read_counters(stream).edges;

    if (edge_count > 0) {
        edge_keys_kernel<<<blocks_for(edge_count), block_threads, 0, stream>>>(
            ws.edges[0].get(),
            edge_count,
            ws.pixel_key.get(),
            d_geometry,
            ws.edge_words[0].get());
        CUDADSP_CUDA_LAUNCHED("edge_keys_kernel");
        // LSD radix sort: stable, so equal keys keep ascending edge index.
        cub::DoubleBuffer<std::uint32_t> keys(ws.edge_words[0].get(),
                                              ws.edge_words[1].get());
        cub::DoubleBuffer<std::uint32_t> values(ws.edges[0].get(), ws.edges[1].get());
        cub_bytes = ws.cub_storage.bytes();
        CUDADSP_CUDA(cub::DeviceRadixSort::SortPairs(
            ws.cub_storage.get(), cub_bytes, keys, values, edge_count, 0, 32, stream));
        const std::uint32_t* sorted_edges = values.Current();

        // Boruvka. The first iteration's active edges are all ranks (no list).
        const std::uint32_t* active = nullptr;
        unsigned int active_count = edge_count;
        int list_slot = 0;
        int link_slot = 0;
        for (;;) {
            ws.clear_counter(&reliability_counters::alive, stream);
            ws.clear_counter(&reliability_counters::hooked, stream);
            std::uint32_t* alive = ws.edge_words[list_slot].get();
            pick_lightest_edges_kernel<<<blocks_for(active_count),
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
        cub_bytes = ws.cub_storage.bytes();
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

    const reliability_counters& counts = ws.read_counters(stream);
    unwrap_2d_report report;
    report.valid_pixels = counts.valid_pixels;
    report.components = counts.components;
    return report;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
