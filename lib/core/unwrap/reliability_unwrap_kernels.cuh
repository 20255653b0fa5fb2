/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_RELIABILITY_UNWRAP_KERNELS_CUH
#define INCLUDED_CUDADSP_CORE_RELIABILITY_UNWRAP_KERNELS_CUH

/*
 * The reliability unwrapper's kernels (Boruvka's minimum spanning forest: the method,
 * its order and its races are described at the top of reliability_unwrap_cuda.cu), the
 * counters and forest links they share with the host, and their block shape.
 * reliability_unwrap_cuda.cu, which launches them, alone includes this file; the kernels
 * keep the internal linkage (anonymous namespace) they had there.
 */

#include "unwrap/phase_unwrap_2d_rule.h"
#include "unwrap/reliability_unwrap_cuda.h"
#include <cub/block/block_scan.cuh>
#include <cuda/atomic>
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
 * Marks the valid pixels and plants the forest: every pixel its own root with offset
 * 0, a self link in both link arrays, no picked edge. A pixel is valid where its
 * known_cycles are not unknown_cycles, or, without known_cycles (null), where
 * unwrap_2d_pixel_valid() passes (weight and mask may be null). Counts the valid
 * pixels into *valid_count. One thread per pixel of n. The link offsets are left
 * unset: they are read only for roots that hooked, which write them first.
 */
__global__ void __launch_bounds__(block_threads)
    plant_forest_kernel(const float* wrapped,
                        const float* weight,
                        const std::uint8_t* mask,
                        const std::int64_t* known_cycles,
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
        ok = known_cycles != nullptr ? known_cycles[p] != unknown_cycles
                                     : unwrap_2d_pixel_valid(wrapped, weight, mask, p);
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

/*! edge_exists[2p + d] = whether edge 2p + d (d = 0: right, 1: down) exists: it has a
 *  far end (unwrap_2d_edge_ends) and both ends are valid (\p here: p is). */
__device__ __forceinline__ void mark_edges(std::int32_t p,
                                           bool here,
                                           const std::uint8_t* __restrict__ valid,
                                           const unwrap_2d_geometry& g,
                                           std::uint8_t* __restrict__ edge_exists)
{
    for (std::int32_t direction = 0; direction < 2; ++direction) {
        const std::uint32_t edge = unwrap_2d_edge_index(p, direction);
        std::int32_t from = 0;
        std::int32_t to = 0;
        edge_exists[edge] =
            here && unwrap_2d_edge_ends(edge, g, &from, &to) && valid[to] ? 1 : 0;
    }
}

/*!
 * key[p] = pixel_reliability_key of pixel p where valid (0 elsewhere, never read),
 * steps[d * n + p] = pair_step of p in direction d when the edges are guided by the
 * local gradient (steps != nullptr), and the edges that exist (mark_edges). One thread
 * per pixel of the frame.
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
    mark_edges(static_cast<std::int32_t>(p), here, valid, g, edge_exists);
}

//! The edges that exist (mark_edges), for known cycles. One thread per pixel of the
//! frame.
__global__ void __launch_bounds__(block_threads)
    known_cycles_edges_kernel(const std::uint8_t* __restrict__ valid,
                              unwrap_2d_geometry g,
                              std::uint8_t* __restrict__ edge_exists)
{
    const unsigned int p = thread_item();
    if (p < static_cast<unsigned int>(g.width) * static_cast<unsigned int>(g.height))
        mark_edges(static_cast<std::int32_t>(p), valid[p] != 0, valid, g, edge_exists);
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
 * is written to a's slot of both link arrays, with K[a] - K[b]: the edge's K[to] -
 * K[from] is known_cycles[to] - known_cycles[from] where known_cycles is given, else
 * the wrapped phases' (edge_cycles or guided_edge_cycles); a is appended to hooked.
 * One thread per pixel of n; reads only arrays that no thread here writes.
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
                      const std::int64_t* __restrict__ known_cycles,
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
            // K[to] - K[from], then K[a] = K[near] - offset[near] and K[b] = K[far] -
            // offset[far].
            std::int64_t across = 0;
            if (known_cycles != nullptr) {
                across = known_cycles[to] - known_cycles[from];
            } else if (gradient_half_window == 0) {
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
} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_RELIABILITY_UNWRAP_KERNELS_CUH */
