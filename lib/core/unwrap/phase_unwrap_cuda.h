/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_CUDA_H
#define INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_CUDA_H

#include "runtime/cuda_resources.h"
#include "runtime/host_pipeline.h"
#include "unwrap/phase_unwrap_rule.h"
#include <gnuradio/cudadsp/core/phase_unwrap.h>
#include <memory>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CUDA backend: one kernel launch per call (per 2^28 samples), a single pass over the
 * data. The stream state lives on the device (double-buffered between launches), so
 * successive calls chain without a host round trip.
 */
class phase_unwrapper_cuda : public phase_unwrapper
{
public:
    phase_unwrapper_cuda(const phase_unwrap_config& config,
                         const device_selection& device);
    ~phase_unwrapper_cuda() override;

    void unwrap(const float* in, float* out, std::size_t n) override;
    void unwrap_device(const float* d_in,
                       float* d_out,
                       std::size_t n,
                       cuda_stream_t stream) override;
    void synchronize() override;
    void reset() override;
    void period_changed() override;
    std::int64_t wrap_count() override;
    std::uint64_t out_of_range_samples() override;

private:
    struct workspace;
    //! Enqueue launches for n samples that start \p call_offset samples into the call.
    void enqueue_at(const float* d_in,
                    float* d_out,
                    std::size_t n,
                    std::size_t call_offset,
                    cudaStream_t stream);

    unwrap_period d_period;
    // Device objects, created and destroyed with the engine's device current.
    std::unique_ptr<workspace> d_ws;
    //! Orders work on the engine's device state across the streams it is given;
    //! synchronize() waits for its last stream.
    stream_order d_order;
    int d_state_slot = 0;
    unsigned int d_epoch = 0;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_CUDA_H */
