/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_CPU_H
#define INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_CPU_H

#include "unwrap/phase_unwrap_rule.h"
#include <gnuradio/cudadsp/core/phase_unwrap.h>

namespace gr {
namespace cudadsp {
namespace core {

//! CPU backend: one sequential pass, the reference behaviour for the CUDA backend.
class phase_unwrapper_cpu : public phase_unwrapper
{
public:
    phase_unwrapper_cpu(const phase_unwrap_config& config,
                        const device_selection& device);

    void unwrap(const float* in, float* out, std::size_t n) override;
    void unwrap_device(const float* d_in,
                       float* d_out,
                       std::size_t n,
                       cuda_stream_t stream) override;
    void synchronize() override {}
    void reset() override;
    void period_changed() override;
    std::int64_t wrap_count() override { return d_state.wraps; }
    std::uint64_t out_of_range_samples() override { return d_out_of_range; }

private:
    // State carried across calls in stream mode; per vector in vector mode.
    struct carried_state {
        float last_finite = 0.0f;
        bool has_finite = false;
        std::int64_t wraps = 0;
    };
    //! Returns the number of finite samples out of range.
    static std::size_t unwrap_run(const float* in,
                                  float* out,
                                  std::size_t n,
                                  carried_state& state,
                                  const unwrap_period& p);

    unwrap_period d_period;
    carried_state d_state;
    std::uint64_t d_out_of_range = 0;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_CPU_H */
