/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_RADIX_HEAP_H
#define INCLUDED_CUDADSP_CORE_RADIX_HEAP_H

// A monotone priority queue for Dijkstra's algorithm on integer keys: the radix heap
// of Ahuja, Mehlhorn, Orlin and Tarjan ("Faster algorithms for the shortest path
// problem", J. ACM 37(2) 213-223, 1990), in the one-level form with a bucket for each
// bit of the key. An entry sits in the bucket of the highest bit in which its key
// differs from the last key popped; keys never go below that one (Dijkstra's keys grow
// as it settles nodes), so a pop only redistributes the first non-empty bucket into
// lower ones. Each entry moves at most 64 times, so a push is O(1) and a pop
// amortised O(log of the key range), against O(log of the entries) for a binary heap,
// with no comparisons in a push.

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

template <typename Value>
class radix_heap
{
public:
    using entry = std::pair<std::uint64_t, Value>;

    bool empty() const { return d_filled == 0; }

    //! Empties the queue and lets keys start again from 0, keeping the memory.
    void clear()
    {
        for (std::uint64_t filled = d_filled; filled != 0; filled &= filled - 1)
            d_buckets[__builtin_ctzll(filled)].clear();
        d_filled = 0;
        d_last = 0;
    }

    //! \p key must not be below the last key popped (0 after clear()).
    void push(std::uint64_t key, const Value& value)
    {
        const int bucket = bucket_of(key);
        d_buckets[bucket].emplace_back(key, value);
        d_filled |= std::uint64_t(1) << bucket;
    }

    //! Removes and returns an entry of the least key; the queue must not be empty.
    entry pop()
    {
        if (d_buckets[0].empty()) {
            // The first non-empty bucket holds the least key; its entries all share
            // the bits above their bucket with it, so they go to lower buckets.
            const int first = __builtin_ctzll(d_filled);
            std::vector<entry>& from = d_buckets[first];
            std::uint64_t least = from.front().first;
            for (const entry& e : from)
                least = e.first < least ? e.first : least;
            d_last = least;
            for (const entry& e : from) {
                const int bucket = bucket_of(e.first);
                d_buckets[bucket].push_back(e);
                d_filled |= std::uint64_t(1) << bucket;
            }
            from.clear();
            d_filled &= ~(std::uint64_t(1) << first);
        }
        std::vector<entry>& lowest = d_buckets[0];
        const entry e = lowest.back();
        lowest.pop_back();
        if (lowest.empty())
            d_filled &= ~std::uint64_t(1);
        return e;
    }

private:
    // Keys below 2^63: the highest differing bit is at most 62, bucket 63.
    int bucket_of(std::uint64_t key) const
    {
        const std::uint64_t differing = key ^ d_last;
        return differing == 0 ? 0 : 64 - __builtin_clzll(differing);
    }

    std::array<std::vector<entry>, 64> d_buckets;
    //! Bit b set where bucket b holds entries.
    std::uint64_t d_filled = 0;
    std::uint64_t d_last = 0;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_RADIX_HEAP_H */
