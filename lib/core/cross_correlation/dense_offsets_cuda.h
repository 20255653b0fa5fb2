/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_CUDA_H
#define INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_CUDA_H

#include <gnuradio/cudadsp/core/dense_offsets.h>
#include <memory>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CUDA backend of the dense-offset estimator (cuFFT): the windows of a call in
 * batches, every decision and formula from dense_offsets_rule.h. The device context,
 * the plans and the buffers are made once per engine and reused by every estimate()
 * call, whatever the images.
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

    struct workspace; //!< plans, device buffers and the engine's stream

private:
    // Created and destroyed with the engine's device current.
    std::unique_ptr<workspace> d_ws;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_CUDA_H */
