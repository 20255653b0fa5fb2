/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_POLARIMETRIC_CUDA_H
#define INCLUDED_CUDADSP_CORE_POLARIMETRIC_CUDA_H

#include "polarimetric/clutter_filter_tables.h"
#include "runtime/cuda_resources.h"
#include "runtime/host_pipeline.h"
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <memory>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CUDA backend: one thread per (radial, gate) walks the radial's pulses in time order,
 * so a warp reads 32 consecutive gates of one pulse (256 contiguous bytes) per load:
 * the pulse-major layout of the input coalesces without a transpose. A clutter
 * filter's second pass re-reads the gate's pulses, which a radial's few hundred KB
 * keep in L2; the filter's tables are read by all threads of a warp at the same
 * address (broadcast). Host calls
 * stream chunks of radials through host_pipeline, overlapping the upload of one chunk
 * with the kernel and download of the ones before. In alternating mode the
 * cross-polar input is neither uploaded nor read.
 */
class polarimetric_processor_cuda : public polarimetric_processor
{
public:
    polarimetric_processor_cuda(const polarimetric_config& config,
                                const device_selection& device);
    ~polarimetric_processor_cuda() override;

    void process(const std::complex<float>* h,
                 const std::complex<float>* v,
                 std::size_t nradials,
                 float* const products[polarimetric_product_count]) override;
    void process_device(const std::complex<float>* d_h,
                        const std::complex<float>* d_v,
                        std::size_t nradials,
                        float* const d_products[polarimetric_product_count],
                        cuda_stream_t stream) override;
    void synchronize() override;

private:
    //! Enqueue the kernel for \p nradials radials on \p stream.
    void enqueue(const std::complex<float>* d_h,
                 const std::complex<float>* d_v,
                 std::size_t nradials,
                 float* const d_products[polarimetric_product_count],
                 cudaStream_t stream);
    bool uses_cross_polar_input() const
    {
        return d_config.mode == polarimetric_mode::simultaneous;
    }

    const clutter_filter_tables d_filter_tables;
    // Created and destroyed with the engine's device current.
    std::unique_ptr<cuda_stream> d_stream;
    //! Device copies of d_filter_tables' tables (empty where the filter needs none).
    device_buffer<double> d_basis, d_window, d_analysis, d_synthesis;
    std::unique_ptr<host_pipeline> d_pipeline;
    //! The stream of the last process_device() call, waited on by synchronize().
    cudaStream_t d_last_stream = nullptr;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_POLARIMETRIC_CUDA_H */
