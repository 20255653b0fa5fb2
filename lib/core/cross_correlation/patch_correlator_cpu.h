/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PATCH_CORRELATOR_CPU_H
#define INCLUDED_CUDADSP_CORE_PATCH_CORRELATOR_CPU_H

#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <memory>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CPU backend: GMTSAR's computation literally, with FFTW single-precision complex
 * transforms (GMT's FFTW path): per row the npx-point forward and ri npx-point inverse
 * transforms of the range interpolation, the complex 2D transforms of the correlation
 * with the (-1)^(r+c) spectrum sign, the 8-point and 8 interp-point transforms of the
 * high-resolution step. The rules of patch_correlation_rule.h decide everything else.
 * One patch at a time per worker, the patches of a call shared among the host's cores;
 * the plans are made once per engine (FFTW_ESTIMATE, under the planner lock) and shared
 * by the workers.
 */
class patch_correlator_cpu : public patch_correlator
{
public:
    patch_correlator_cpu(const patch_correlator_config& config,
                         const device_selection& device);
    ~patch_correlator_cpu() override;

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
    void synchronize() override {}

    struct fftw_plans; //!< the engine's FFTW plans (opaque: keeps fftw3.h private)
    struct workspace;  //!< one worker's buffers

private:
    //! Runs \p work(worker, patch) for every patch, shared among the workers.
    template <typename Work>
    void for_each_patch(std::size_t npatches, const Work& work);

    std::unique_ptr<fftw_plans> d_plans;
    std::vector<std::unique_ptr<workspace>> d_workspaces;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PATCH_CORRELATOR_CPU_H */
