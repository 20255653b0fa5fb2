/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_BATCH_PROGRESS_H
#define INCLUDED_CUDADSP_CORE_BATCH_PROGRESS_H

#include "runtime/cuda_check.h"
#include <cstddef>
#include <functional>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief Progress of an engine call that enqueues its items in batches: each batch's
 * completion event and the items done once it completes; the callback is called on
 * the calling thread, in batch order, for the batches known complete.
 *
 * poll() between enqueues reports what has completed without waiting; finish() waits
 * for every batch and reports the rest. Without a callback nothing is polled.
 */
class batch_progress
{
public:
    using callback = std::function<void(std::size_t done, std::size_t total)>;

    batch_progress(const callback& report, std::size_t total)
        : d_report(report), d_total(total)
    {
    }

    //! A batch was enqueued: \p done (recorded after it) completes \p items_done.
    void add(cudaEvent_t done, std::size_t items_done)
    {
        d_events.push_back(done);
        d_done.push_back(items_done);
    }

    //! Reports the batches that have completed, in order, without waiting.
    void poll() { report(false); }
    //! Waits for every batch and reports those not reported yet.
    void finish() { report(true); }

private:
    void report(bool wait)
    {
        while (d_report && d_reported < d_events.size()) {
            const cudaEvent_t done = d_events[d_reported];
            if (wait) {
                CUDADSP_CUDA(cudaEventSynchronize(done));
            } else {
                const cudaError_t status = cudaEventQuery(done);
                if (status == cudaErrorNotReady) {
                    (void)cudaGetLastError(); // not an error: clear it
                    return;
                }
                CUDADSP_CUDA(status);
            }
            d_report(d_done[d_reported], d_total);
            ++d_reported;
        }
    }

    const callback& d_report;
    const std::size_t d_total;
    std::vector<cudaEvent_t> d_events;
    std::vector<std::size_t> d_done;
    std::size_t d_reported = 0;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_BATCH_PROGRESS_H */
