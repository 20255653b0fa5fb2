/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_CUDA_H
#define INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_CUDA_H

#include <gnuradio/cudadsp/core/dense_offsets.h>
#include <cuda_runtime_api.h>
#include <memory>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CUDA backend of the dense-offset estimator (cuFFT): the windows of a call in
 * batches, every decision and formula from dense_offsets_rule.h. The device context,
 * the plans and the buffers are made once per engine and reused by every estimate()
 * call, whatever the images.
 *
 * Per batch of n windows, on the engine's stream (every transform a batched cuFFT
 * plan over the n windows; plans for the batch and its halves, the last launch of a
 * call padded):
 *  - a kernel (a block a window) reads both windows from the device copy of the image
 *    rows (int16 or float32, converted there), writes the reference amplitudes with
 *    their mean removed, zero-padded, and the search amplitudes into the real
 *    transforms' in-place layout, and forms the template's T2 and the float64 window
 *    sums S1, S2 of the search amplitudes at every lag (running column sums, then
 *    running row sums);
 *  - real-to-complex transforms of both, a kernel forms conj(F(A)) F(B), a
 *    complex-to-real transform gives the raw correlation;
 *  - a kernel (a block a window) normalises the surface, finds its peak (the rule's
 *    tie order as a block reduction), the SNR energy, the covariance and the zoom start
 *    (kept on the device for the zoom stage);
 *  - a kernel cuts the reference and zoom windows from the image rows (amplitudes for
 *    deramp 0, PyCuAmpcor's deramp for 1), complex forward transforms of both, a kernel
 *    places their spectra into the oversampled sizes (the rule's bin placement, zeros
 *    elsewhere), complex inverse transforms;
 *  - the first kernel again, on the oversampled amplitudes (the zoom lags only), then
 *    the transforms and the cross spectrum as above;
 *  - a kernel normalises the trimmed surface into a zero-padded Z x Z array, a real
 *    transform, a kernel places its weighted bins into the q Z x (q Z / 2 + 1) half
 *    spectrum (the rule's Hermitian weights: the real part of PyCuAmpcor's complex
 *    oversampling), a complex-to-real transform gives the fine surface, and a kernel
 *    (a block a window) finds its peak and writes the window's result.
 *
 * estimate() copies the rows its windows need to the device once per call, int16
 * staying int16, on an upload stream: before each batch the rows it needs that are not
 * there yet (pinned images by DMA, pageable ones staged by the calling thread), so the
 * upload of later rows overlaps the computation of earlier batches. The results stay on
 * the device until the last batch and come back in one copy.
 */
class dense_offsets_cuda : public dense_offsets_estimator
{
public:
    dense_offsets_cuda(const dense_offsets_config& config,
                       const device_selection& device);
    ~dense_offsets_cuda() override;

    void estimate(const image_view& reference,
                  const image_view& secondary,
                  const offset_window* windows,
                  std::size_t nwindows,
                  offset_result* results) override;
    void synchronize() override;

    //! Windows per batch: config.batch_windows, or the automatic choice for 0.
    std::size_t batch_windows() const;

    /*!
     * For the benchmark's transform floor: enqueues on stream() exactly the cuFFT
     * executions estimate() makes for \p nwindows windows (the same plans, launches and
     * buffers, in the same order), and nothing else. The buffers' contents are
     * overwritten; a later estimate() is unaffected.
     */
    void enqueue_transforms(std::size_t nwindows);
    //! The engine's compute stream (current device: the engine's, under device_guard).
    cudaStream_t stream() const;
    //! The transforms of one batch, for reports: "R2C 104x104 x2, C2R 104x104, ...".
    std::string transform_summary() const;

    struct workspace; //!< plans, device buffers and the engine's streams

private:
    //! estimate() past its checks, with the device current.
    void run_call(const image_view& reference,
                  const image_view& secondary,
                  const offset_window* windows,
                  std::size_t nwindows,
                  offset_result* results);
    //! Enqueues the kernels and transforms of windows [first, first + n) of the call.
    void enqueue_batch(std::size_t first, std::size_t n);

    // Created and destroyed with the engine's device current.
    std::unique_ptr<workspace> d_ws;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_CUDA_H */
