/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_CUDA_H
#define INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_CUDA_H

#include <gnuradio/cudadsp/core/pcps_acquisition.h>
#include <memory>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CUDA backend of the PCPS acquisition (core/pcps_acquisition.h): the replica spectra of
 * the satellite set on the device, per integration one forward cuFFT of the zero-padded
 * input, the products of every satellite x grid x Doppler bin, their inverse transforms
 * batched in cuFFT, the powers summed over the K integrations on the device, and the
 * peak, second peak and mean of each satellite's grid reduced there with the rule
 * header's tie rule (gnss/pcps_acquisition_rule.h).
 */
class pcps_acquisition_cuda : public pcps_acquisition
{
public:
    pcps_acquisition_cuda(const pcps_acquisition_config& config,
                          const device_selection& device);
    ~pcps_acquisition_cuda() override;

    struct workspace; //!< device buffers, cuFFT plans and the engine's stream

protected:
    void compute_grids(const void* samples,
                       sample_format format,
                       const std::vector<int>& satellites,
                       pcps_grid_peak* peaks) override;

private:
    // Created and destroyed with the engine's device current.
    std::unique_ptr<workspace> d_ws;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_CUDA_H */
