/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_CUDA_H
#define INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_CUDA_H

#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>

namespace gr {
namespace cudadsp {
namespace core {

// PLACEHOLDER-REPLACED-BY-HELPER
class phase_unwrapper_2d_cuda : public phase_unwrapper_2d
{
public:
    phase_unwrapper_2d_cuda(const phase_unwrap_2d_config& config,
                            const device_selection& device);
    ~phase_unwrapper_2d_cuda() override;

protected:
    unwrap_2d_report unwrap_host(const unwrap_2d_buffers& host) override;
    unwrap_2d_report unwrap_on_device(const unwrap_2d_buffers& device,
                                      cuda_stream_t stream) override;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_CUDA_H */
