/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_LEAST_SQUARES_UNWRAP_CUDA_H
#define INCLUDED_CUDADSP_CORE_LEAST_SQUARES_UNWRAP_CUDA_H

// PLACEHOLDER-REPLACED-BY-HELPER (interface fixed; the helper documents and completes it)
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <cuda_runtime.h>
#include <memory>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * The least-squares method on the device, for phase_unwrapper_2d_cuda: the DCT Poisson
 * solve through cuFFT and the preconditioned conjugate gradients of the weighted case.
 * Created and used with the engine's device current.
 */
class least_squares_unwrap_cuda
{
public:
    //! Creates the cuFFT plans and work buffers for \p config's frame.
    explicit least_squares_unwrap_cuda(const phase_unwrap_2d_config& config);
    ~least_squares_unwrap_cuda();

    //! One frame in device buffers, work ordered on \p stream; returns when finished.
    unwrap_2d_report solve(const unwrap_2d_buffers& device, cudaStream_t stream);

    /*! For the benchmark: only the cuFFT transforms of one unweighted solve, on
     *  \p stream, without waiting (the floor the solve is measured against). */
    void enqueue_transforms_only(cudaStream_t stream);

private:
    struct workspace;
    std::unique_ptr<workspace> d_ws;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_LEAST_SQUARES_UNWRAP_CUDA_H */
