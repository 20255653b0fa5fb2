/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_CUDA_H
#define INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_CUDA_H

#include <gnuradio/cudadsp/core/pcps_acquisition.h>
#include <cstddef>
#include <memory>
#include <vector>

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
 *
 * Work is cut into batches of at most batch_transforms() inverse transforms: a batch
 * is a run of consecutive rows (satellite, grid, Doppler bin; the replicas of a grid
 * together) times all K integrations, or, when one row's K integrations do not fit, a
 * single row times a run of integrations whose powers are summed across batches. The
 * grid S is never stored whole: each batch folds its powers into per-lag summaries of
 * each satellite (best cell under the tie rule with its early and late neighbours, the
 * largest power and the sum over rows), from which a last kernel reduces each
 * satellite's pcps_grid_peak. Device memory: the replica spectra (satellites x Doppler
 * residues x grids x replicas x 2N complex floats, as on the CPU), the input, one
 * batch, and 32 bytes per satellite and lag.
 */
class pcps_acquisition_cuda : public pcps_acquisition
{
public:
    pcps_acquisition_cuda(const pcps_acquisition_config& config,
                          const device_selection& device);
    ~pcps_acquisition_cuda() override;

    struct workspace; //!< device buffers, cuFFT plans and the engine's stream

    //! One cuFFT execution of a search: \p batch transforms of transform_points().
    struct fft_call {
        std::size_t batch = 0;
        bool inverse = false;
    };
    //! 2N, the points of every transform the engine runs.
    std::size_t transform_points() const;
    //! Inverse transforms per cuFFT call at most (config.batch_transforms or the
    //! engine's choice from the device memory free at construction).
    std::size_t batch_transforms() const { return d_batch_transforms; }
    /*! The cuFFT executions of one search of \p satellites satellites, in order
     *  (the replica spectra of a new satellite set excluded): what a benchmark times to
     *  compare the engine with its bare transforms. */
    std::vector<fft_call> search_transforms(std::size_t satellites) const;

    //! Device time of the last search, from CUDA events on the engine's stream.
    struct search_timing {
        double upload_ms = 0.0;  //!< samples to the device (pageable: staging included)
        double compute_ms = 0.0; //!< conversion, transforms, products, powers, peaks
    };
    search_timing last_timing() const { return d_timing; }

protected:
    void compute_grids(const void* samples,
                       sample_format format,
                       const std::vector<int>& satellites,
                       pcps_grid_peak* peaks) override;

private:
    //! How one search is cut into batches (see the class).
    struct schedule {
        std::size_t rows = 0;             //!< satellites x grids x Doppler bins
        std::size_t rows_per_batch = 0;   //!< consecutive rows of one batch
        std::size_t dwells_per_batch = 0; //!< integrations of one batch (K, or fewer)
    };
    schedule schedule_for(std::size_t satellites) const;
    //! Makes the replica spectra of \p satellites on the device unless they are there.
    void prepare(const std::vector<int>& satellites);

    std::size_t d_batch_transforms = 0;
    search_timing d_timing;
    // Created and destroyed with the engine's device current.
    std::unique_ptr<workspace> d_ws;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_CUDA_H */
