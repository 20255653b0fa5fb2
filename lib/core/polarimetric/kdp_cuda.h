/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_KDP_CUDA_H
#define INCLUDED_CUDADSP_CORE_KDP_CUDA_H

#include "runtime/cuda_resources.h"
#include "runtime/host_pipeline.h"
#include <gnuradio/cudadsp/core/kdp.h>
#include <array>
#include <memory>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CUDA backend: one thread block per radial. The block loads its radial's gates into
 * shared memory, masked (coalesced loads), one thread runs the sequential unfolding and
 * gap filling there, and then every thread fits the windows of its own gates. Shared
 * memory holds ngates doubles per block, which bounds ngates (checked at construction).
 * Host calls stream chunks of radials through a host_pipeline; there is one pipeline
 * per combination of the optional inputs (RhoHV, SNR), made on first use, because a
 * pipeline always uploads every input it was built with.
 */
class kdp_processor_cuda : public kdp_processor
{
public:
    kdp_processor_cuda(const kdp_config& config, const device_selection& device);
    ~kdp_processor_cuda() override;

    void process(const float* phidp_deg,
                 const float* rhohv,
                 const float* snr_db,
                 std::size_t nradials,
                 float* processed_phidp_deg,
                 float* kdp_deg_km) override;
    void process_device(const float* d_phidp_deg,
                        const float* d_rhohv,
                        const float* d_snr_db,
                        std::size_t nradials,
                        float* d_processed_phidp_deg,
                        float* d_kdp_deg_km,
                        cuda_stream_t stream) override;
    void synchronize() override;

private:
    void enqueue(const float* d_phidp_deg,
                 const float* d_rhohv,
                 const float* d_snr_db,
                 std::size_t nradials,
                 float* d_processed_phidp_deg,
                 float* d_kdp_deg_km,
                 cudaStream_t stream);
    //! The pipeline for the optional inputs present (made on first use).
    host_pipeline& pipeline(bool use_rhohv, bool use_snr);

    std::size_t d_shared_bytes;
    // Created and destroyed with the engine's device current.
    std::unique_ptr<cuda_stream> d_stream;
    //! Indexed by use_rhohv + 2 * use_snr.
    std::array<std::unique_ptr<host_pipeline>, 4> d_pipelines;
    //! The stream of the last process_device() call, waited on by synchronize().
    cudaStream_t d_last_stream = nullptr;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_KDP_CUDA_H */
