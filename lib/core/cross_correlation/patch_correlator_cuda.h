/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PATCH_CORRELATOR_CUDA_H
#define INCLUDED_CUDADSP_CORE_PATCH_CORRELATOR_CUDA_H

#include "runtime/cuda_resources.h"
#include "runtime/host_pipeline.h"
#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <memory>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CUDA backend. Per batch of n patches (2n patch images: the n master patches, then the
 * n aligned ones), on one stream:
 *  - (ri > 1) one batched cuFFT plan transforms all 2n npy rows forward (npx points)
 *    into rows of ri npx samples: out of place straight from the caller's patches, or
 *    in place after a kernel has extracted the patches from the device copy of the
 *    image rows (int16 or float32, converted there); a kernel moves each row's upper
 *    half-spectrum to the top and zeroes the middle; one batched plan transforms all
 *    rows back (ri npx points);
 *  - a kernel (a warp a row) forms the amplitudes of the middle npx samples (or of the
 *    source samples for ri = 1) and each row's float64 sum in the shared order; a kernel
 *    forms the patch means; a kernel removes them, masks the aligned patches and writes
 *    the real 2D transform input (the raw amplitudes stay for the integer copies);
 *  - one batched real-to-complex 2D plan transforms the 2n patches, a kernel forms
 *    F1 conj(F2), one batched complex-to-real plan gives the n correlations (the
 *    (-1)^(r+c) shift of GMTSAR becomes an index wrap);
 *  - a kernel per patch (one thread block) finds the integer peak, sums the integer
 *    copies of the time-domain correlation, builds the 8 x 8 neighbourhood and
 *    interpolates it by direct DFTs in shared memory (8-point forward, 8 interp-point
 *    inverse, rows then columns: GMTSAR's FFT interpolation as a function), and finds
 *    the high-resolution argmax.
 * Partial batches use plans for power-of-two counts (one shared work area).
 *
 * correlate() keeps a ring of image rows per image on the device: each batch (a run of
 * consecutive pairs whose rows span at most 4 npy rows) uploads only the rows it needs
 * that are not resident, on an upload stream, while the previous batch computes
 * (pageable images are staged through pinned chunks by the calling thread); the
 * upload of a batch waits for the previous batch's extraction, the batch for its upload.
 * correlate_patches() streams batches through host_pipeline.
 */
class patch_correlator_cuda : public patch_correlator
{
public:
    patch_correlator_cuda(const patch_correlator_config& config,
                          const device_selection& device);
    ~patch_correlator_cuda() override;

    void correlate(const image_view& master,
                   const image_view& aligned,
                   const patch_pair* pairs,
                   std::size_t npatches,
                   patch_result* results) override;
    void correlate_patches(const std::complex<float>* master,
                           const std::complex<float>* aligned,
                           std::size_t npatches,
                           patch_result* results) override;
    void correlate_patches_device(const std::complex<float>* d_master,
                                  const std::complex<float>* d_aligned,
                                  std::size_t npatches,
                                  patch_result* d_results,
                                  cuda_stream_t stream) override;
    void synchronize() override;

    //! Patches per batch: config.batch_patches, or the automatic choice for 0.
    std::size_t batch_patches() const { return d_batch_patches; }

    struct workspace;   //!< batch buffers, plans and the engine's stream
    struct image_rings; //!< correlate()'s device rows, staging and events
    struct source;      //!< where a batch's patch samples come from

private:
    /*! Enqueues one batch of \p npatches <= batch_patches() patches on \p stream;
     *  records \p source_read (when not null) once the source is no longer read. */
    void enqueue_batch(const source& src,
                       std::size_t npatches,
                       patch_result* d_results,
                       cudaStream_t stream,
                       cudaEvent_t source_read);

    std::size_t d_batch_patches;
    // Created and destroyed with the engine's device current.
    std::unique_ptr<workspace> d_ws;
    std::unique_ptr<image_rings> d_rings;
    std::unique_ptr<host_pipeline> d_pipeline;
    //! Orders work on the engine's device state across the streams it is given;
    //! synchronize() waits for its last stream.
    stream_order d_order;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PATCH_CORRELATOR_CUDA_H */
