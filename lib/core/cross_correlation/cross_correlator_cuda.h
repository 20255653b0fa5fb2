/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_CROSS_CORRELATOR_CUDA_H
#define INCLUDED_CUDADSP_CORE_CROSS_CORRELATOR_CUDA_H

#include "runtime/cuda_resources.h"
#include "runtime/host_pipeline.h"
#include <gnuradio/cudadsp/core/cross_correlator.h>
#include <array>
#include <memory>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CUDA backend. Per batch of frames, on one stream: a kernel pads the x and y frames
 * to L and sums their energies; one batched cuFFT forward transform of all 2n padded
 * frames; a kernel forms S = X conj(Y); a batched inverse transform gives the padded
 * correlations; a kernel per frame (one thread block each) finds the integer peak and
 * evaluates the fine grid, writing the peaks and the optional correlation vectors.
 * Host calls stream batches through host_pipeline, overlapping the transfers of one
 * batch with the work of another.
 */
class cross_correlator_cuda : public cross_correlator
{
public:
    cross_correlator_cuda(const cross_correlator_config& config,
                          const device_selection& device);
    ~cross_correlator_cuda() override;

    void process(const std::complex<float>* x,
                 const std::complex<float>* y,
                 std::size_t nframes,
                 cross_correlation_peak* peaks,
                 std::complex<float>* spectrum,
                 std::complex<float>* correlation) override;
    void process_device(const std::complex<float>* d_x,
                        const std::complex<float>* d_y,
                        std::size_t nframes,
                        cross_correlation_peak* d_peaks,
                        std::complex<float>* d_spectrum,
                        std::complex<float>* d_correlation,
                        cuda_stream_t stream) override;
    void synchronize() override;

    //! Frames per batch: config.batch_frames, or the automatic choice for 0.
    std::size_t batch_frames() const { return d_batch_frames; }

private:
    struct workspace;
    //! Enqueues one batch of \p nframes <= batch_frames() frames on \p stream.
    void enqueue_batch(const std::complex<float>* d_x,
                       const std::complex<float>* d_y,
                       std::size_t nframes,
                       cross_correlation_peak* d_peaks,
                       std::complex<float>* d_spectrum,
                       std::complex<float>* d_correlation,
                       cudaStream_t stream);
    //! The host pipeline for one combination of optional outputs, made on first use.
    host_pipeline& pipeline_for(bool spectrum, bool correlation);

    std::size_t d_batch_frames;
    // Created and destroyed with the engine's device current.
    std::unique_ptr<workspace> d_ws;
    //! Index: 1 for the spectrum output, + 2 for the correlation output.
    std::array<std::unique_ptr<host_pipeline>, 4> d_pipelines;
    //! Orders work on the engine's device state across the streams it is given;
    //! synchronize() waits for its last stream.
    stream_order d_order;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_CROSS_CORRELATOR_CUDA_H */
