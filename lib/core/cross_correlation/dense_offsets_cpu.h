/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_CPU_H
#define INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_CPU_H

#include <gnuradio/cudadsp/core/dense_offsets.h>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CPU backend: FFTW single-precision transforms, every decision and formula from
 * dense_offsets_rule.h. Per window: real-to-complex transforms of the two raw
 * amplitude windows and a complex-to-real inverse for the raw correlation; complex
 * forward transforms of the reference and zoom windows and pruned inverse transforms
 * of their padded spectra (the columns that hold bins, then every row); real
 * transforms again for the oversampled correlation; a real transform of the trimmed
 * surface and a pruned complex-to-real inverse (its few columns of bins, then the rows)
 * for the fine surface. The plans are made once per engine (FFTW_ESTIMATE, under the
 * planner lock) and shared by the workers; each worker has its own buffers, kept
 * between calls. The windows of a call are shared among the host's cores.
 */
class dense_offsets_cpu : public dense_offsets_estimator
{
public:
    dense_offsets_cpu(const dense_offsets_config& config, const device_selection& device);
    ~dense_offsets_cpu() override;

    void estimate(const image_view& reference,
                  const image_view& secondary,
                  const offset_window* windows,
                  std::size_t nwindows,
                  offset_result* results) override;
    void synchronize() override {}

    struct fftw_plans; //!< the engine's FFTW plans (opaque: keeps fftw3.h private)
    struct workspace;  //!< one worker's buffers

private:
    //! A free workspace (made on first need), returned by release().
    std::unique_ptr<workspace> acquire();
    void release(std::unique_ptr<workspace> ws);

    std::unique_ptr<fftw_plans> d_plans;
    std::mutex d_pool_mutex;
    std::vector<std::unique_ptr<workspace>> d_pool;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_CPU_H */
