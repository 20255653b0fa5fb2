/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_LEAST_SQUARES_UNWRAP_CUDA_H
#define INCLUDED_CUDADSP_CORE_LEAST_SQUARES_UNWRAP_CUDA_H

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
 *
 * The DCT-II / DCT-III pair runs on one real FFT of the frame's own size (Makhoul 1980:
 * even samples forward, odd samples backward in both dimensions, then a twiddle), not
 * on a 4x mirrored extension. An unweighted frame takes five passes: the divergence
 * (written already reordered), the R2C transform, one spectral kernel (DCT twiddle,
 * division by the eigenvalues, inverse twiddle), the C2R transform, the output (which
 * undoes the reorder); plus one read-only reduction for the constant between the last
 * two. Arrays are float32; dot products and sums are float64, reduced in a fixed order
 * so that a frame gives the same result on every run on one device.
 *
 * Device memory, allocated once in the constructor: the transform buffers (one float
 * frame, one half spectrum) and, for the weighted case, seven float frames (residual,
 * preconditioned residual, two search directions, solution, two difference weights).
 */
class least_squares_unwrap_cuda
{
public:
    //! Creates the cuFFT plans and work buffers for \p config's frame.
    explicit least_squares_unwrap_cuda(const phase_unwrap_2d_config& config);
    ~least_squares_unwrap_cuda();

    /*! Device memory of the buffers above for \p config (about 36 bytes a pixel);
     *  cuFFT's work area, sized by cuFFT when it plans, not counted. */
    static std::size_t device_bytes(const phase_unwrap_2d_config& config);
    least_squares_unwrap_cuda(const least_squares_unwrap_cuda&) = delete;
    least_squares_unwrap_cuda& operator=(const least_squares_unwrap_cuda&) = delete;

    /*! One frame in device buffers, work ordered on \p stream; returns when finished.
     *  Without weight and mask the direct solve runs first and is abandoned (outputs
     *  untouched) when it finds a non-finite wrapped value; the weighted solve then
     *  runs with unit weights. */
    unwrap_2d_report solve(const unwrap_2d_buffers& device, cudaStream_t stream);

    /*! For the benchmark: only the cuFFT transforms of one unweighted solve (one R2C
     *  and one C2R of the frame), on \p stream, without waiting: the floor the solve is
     *  measured against. */
    void enqueue_transforms_only(cudaStream_t stream);

private:
    struct workspace;

    /*! The unweighted solve; false (and no output written) when the frame holds a
     *  non-finite wrapped value, found by the divergence pass. */
    bool solve_unweighted(const unwrap_2d_buffers& device,
                          cudaStream_t stream,
                          unwrap_2d_report& report);
    //! Preconditioned conjugate gradients (Ghiglia and Romero 1994, section 4).
    unwrap_2d_report solve_weighted(const unwrap_2d_buffers& device, cudaStream_t stream);
    /*! The DCT Poisson solve of the reordered frame in the transform buffer, in place:
     *  R2C, the spectral kernel, C2R. */
    void enqueue_poisson_solve(cudaStream_t stream);

    const phase_unwrap_2d_config d_config;
    std::unique_ptr<workspace> d_ws;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_LEAST_SQUARES_UNWRAP_CUDA_H */
