/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_CUDA_H
#define INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_CUDA_H

#include "runtime/memory_budget.h"
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <memory>

namespace gr {
namespace cudadsp {
namespace core {

class reliability_unwrap_cuda;
class least_squares_unwrap_cuda;
class mcf_tiled_unwrap;

/*!
 * CUDA backend of the two-dimensional unwrapper: the method's device solver
 * (reliability_unwrap_cuda or least_squares_unwrap_cuda) behind the engine's stream,
 * and, for host buffers, one frame's device copies and pinned staging. Every call
 * returns with its frame finished.
 *
 * MCF (mcf_tiled_unwrap) solves its flows on the host: its tiles read host frames,
 * which unwrap() takes as they are and unwrap_device() copies out on the given
 * stream; each tile's network inputs are computed on the GPU. A frame of several
 * tiles is then integrated on the device (reliability_unwrap_cuda with known cycles)
 * into the device buffers (for host buffers, the frame's device copies); a frame of
 * one tile is solved whole on the host and its outputs copied in.
 */
class phase_unwrapper_2d_cuda : public phase_unwrapper_2d
{
public:
    phase_unwrapper_2d_cuda(const phase_unwrap_2d_config& config,
                            const device_selection& device);
    ~phase_unwrapper_2d_cuda() override;

    /*! The memory \p config's engine takes at most: the solver's device workspace, and
     *  the frame copies unwrap() makes of host buffers (device copies of every buffer;
     *  pinned staging on the host for pageable ones). The scratch of CUB and cuFFT,
     *  sized by the libraries, is not counted. */
    static memory_need memory_needed(const phase_unwrap_2d_config& config);

protected:
    unwrap_2d_report unwrap_host(const unwrap_2d_buffers& host) override;
    unwrap_2d_report unwrap_on_device(const unwrap_2d_buffers& device,
                                      cuda_stream_t stream) override;

private:
    struct workspace;
    unwrap_2d_report solve(const unwrap_2d_buffers& device, cuda_stream_t stream);
    /*! MCF's tile solvers read host frames: a device frame goes through host copies
     *  (each tile's network inputs are computed back on the GPU, its flow solved on
     *  the host). */
    unwrap_2d_report solve_mcf_through_host(const unwrap_2d_buffers& device,
                                            cuda_stream_t stream);
    /*! A frame of several MCF tiles: \p host's inputs solved and joined on the host,
     *  integrated into \p device's outputs (device.wrapped the same frame). */
    unwrap_2d_report solve_mcf_tiles(const unwrap_2d_buffers& host,
                                     const unwrap_2d_buffers& device,
                                     cuda_stream_t stream);

    // Device objects, created and destroyed with the engine's device current.
    std::unique_ptr<workspace> d_ws;
    std::unique_ptr<reliability_unwrap_cuda> d_reliability;
    std::unique_ptr<least_squares_unwrap_cuda> d_least_squares;
    std::unique_ptr<mcf_tiled_unwrap> d_mcf;
    //! Integrates a frame of several MCF tiles.
    std::unique_ptr<reliability_unwrap_cuda> d_mcf_frame;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_CUDA_H */
