/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_CUFFT_PLAN_FAMILY_H
#define INCLUDED_CUDADSP_CORE_CUFFT_PLAN_FAMILY_H

#include "runtime/cufft_plan.h"
#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief Plans of one batched transform for a few batch counts ("units": an image
 * patch's rows, one 2D transform, ...), so that any number of units runs as a few
 * launches without a plan per count.
 *
 * run() covers a count greedily with the largest plans that fit. When the smallest
 * plan is larger than what is left, the last launch is padded: it transforms up to
 * padding() units past the count, which the caller's buffers must hold (their
 * contents are transformed and ignored). A family that has a plan for one unit never
 * pads. All plans are made without a work area (cufft_plan::external_work_area);
 * plans that never run at the same time share one of work_size() bytes.
 */
class cufft_plan_family
{
public:
    //! exec(plan, offset): enqueue \p plan on the units from \p offset on.
    using exec_fn = std::function<void(cufftHandle plan, std::size_t offset)>;

    /*! Plans for each of \p counts (each > 0; order and duplicates do not matter),
     *  made by maker(int count). */
    template <typename Make>
    void make(std::vector<std::size_t> counts, Make&& maker)
    {
        std::sort(counts.begin(), counts.end(), std::greater<std::size_t>());
        counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
        d_plans.clear();
        d_counts = counts;
        for (const std::size_t count : d_counts)
            d_plans.push_back(maker(static_cast<int>(count)));
    }

    //! 1, 2, 4, ... up to \p largest, and \p largest itself: never pads.
    static std::vector<std::size_t> power_of_two_counts(std::size_t largest)
    {
        std::vector<std::size_t> counts;
        for (std::size_t count = 1; count <= largest; count *= 2)
            counts.push_back(count);
        counts.push_back(largest);
        return counts;
    }

    /*! \p largest and its halves, rounded up, \p levels counts in all: the last launch
     *  of a run pads by less than largest / 2^(levels - 1) units. */
    static std::vector<std::size_t> halving_counts(std::size_t largest, int levels)
    {
        std::vector<std::size_t> counts;
        std::size_t count = largest;
        for (int i = 0; i < levels && count > 0; ++i) {
            counts.push_back(count);
            count = (count + 1) / 2;
        }
        return counts;
    }

    //! The most units a run may transform past its count (the smallest count - 1).
    std::size_t padding() const { return d_counts.empty() ? 0 : d_counts.back() - 1; }

    std::size_t work_size() const
    {
        std::size_t bytes = 0;
        for (const auto& p : d_plans)
            bytes = std::max(bytes, p.work_size());
        return bytes;
    }

    void set_work_area(void* area) const
    {
        for (const auto& p : d_plans)
            if (p.work_size() > 0)
                p.set_work_area(area);
    }

    /*! The batch count of each launch run(count) makes, in order (the sum is count,
     *  or up to padding() more). */
    std::vector<std::size_t> launches(std::size_t count) const
    {
        std::vector<std::size_t> out;
        for_each_launch(
            count, [&](std::size_t plan, std::size_t) { out.push_back(d_counts[plan]); });
        return out;
    }

    //! Enqueues the launches that transform \p count units on \p stream.
    void run(std::size_t count, cudaStream_t stream, const exec_fn& exec) const
    {
        for_each_launch(count, [&](std::size_t plan, std::size_t offset) {
            d_plans[plan].set_stream(stream);
            exec(d_plans[plan].get(), offset);
        });
    }

private:
    template <typename Visit>
    void for_each_launch(std::size_t count, Visit&& visit) const
    {
        std::size_t done = 0;
        std::size_t plan = 0; // counts descend: the first that fits is the largest
        while (done < count) {
            while (plan + 1 < d_counts.size() && d_counts[plan] > count - done)
                ++plan;
            visit(plan, done);
            done += d_counts[plan];
        }
    }

    std::vector<cufft_plan> d_plans;
    std::vector<std::size_t> d_counts; //!< descending
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_CUFFT_PLAN_FAMILY_H */
