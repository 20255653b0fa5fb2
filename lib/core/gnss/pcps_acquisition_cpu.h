/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_CPU_H
#define INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_CPU_H

#include <gnuradio/cudadsp/core/pcps_acquisition.h>
#include <memory>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CPU backend of the PCPS acquisition (core/pcps_acquisition.h), FFTW single precision:
 * the conjugate replica spectra of the satellite set (2N points, one per satellite x
 * Doppler residue x grid x replica) made when the set changes and kept; per search the
 * K forward transforms of the zero-padded integrations, then, shared among the host's
 * cores, every satellite x grid x Doppler bin: K products (the residue's spectrum read
 * at the bin's shift), K inverse transforms, the powers summed; then each satellite's
 * peak, second peak and mean by the rule header's order. The plans are made once per
 * engine (FFTW_ESTIMATE, under the planner lock) and shared by the workers.
 */
class pcps_acquisition_cpu : public pcps_acquisition
{
public:
    pcps_acquisition_cpu(const pcps_acquisition_config& config,
                         const device_selection& device);
    ~pcps_acquisition_cpu() override;

    struct fftw_plans;   //!< the engine's FFTW plans (opaque: keeps fftw3.h private)
    struct replica_bank; //!< the satellite set's replica spectra

protected:
    void compute_grids(const void* samples,
                       sample_format format,
                       const std::vector<int>& satellites,
                       pcps_grid_peak* peaks) override;

private:
    void prepare(const std::vector<int>& satellites);

    std::unique_ptr<fftw_plans> d_plans;
    std::unique_ptr<replica_bank> d_bank;
    std::vector<float> d_power; //!< S, satellite-major, then (grid, bin, lag)
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_CPU_H */
