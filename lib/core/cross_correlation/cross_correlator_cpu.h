/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_CROSS_CORRELATOR_CPU_H
#define INCLUDED_CUDADSP_CORE_CROSS_CORRELATOR_CPU_H

#include <gnuradio/cudadsp/core/cross_correlator.h>
#include <memory>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CPU backend: FFTW single-precision transforms, one frame at a time per worker, the
 * frames of a call shared among the host's cores. The peak rule
 * (cross_correlation_peak_rule.h) is the CUDA backend's; the fine-grid sums run as
 * eight interleaved float64 recurrences over the frequencies, so they vectorise.
 */
class cross_correlator_cpu : public cross_correlator
{
public:
    cross_correlator_cpu(const cross_correlator_config& config,
                         const device_selection& device);
    ~cross_correlator_cpu() override;

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
    void synchronize() override {}

    struct fftw_plans; //!< the engine's FFTW plans (opaque: keeps fftw3.h private)
    struct workspace;  //!< one worker's transform buffers

private:
    std::unique_ptr<fftw_plans> d_plans;
    std::vector<std::unique_ptr<workspace>> d_workspaces;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_CROSS_CORRELATOR_CPU_H */
