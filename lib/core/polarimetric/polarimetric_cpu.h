/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_POLARIMETRIC_CPU_H
#define INCLUDED_CUDADSP_CORE_POLARIMETRIC_CPU_H

#include <gnuradio/cudadsp/core/polarimetric.h>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CPU backend: radials are shared among the host's cores; within a radial the pulses
 * are walked in time order with one accumulator per gate, so each pulse's range
 * profile is read once, contiguously.
 */
class polarimetric_processor_cpu : public polarimetric_processor
{
public:
    polarimetric_processor_cpu(const polarimetric_config& config,
                               const device_selection& device);

    void process(const std::complex<float>* h,
                 const std::complex<float>* v,
                 std::size_t nradials,
                 float* const products[polarimetric_product_count]) override;
    void process_device(const std::complex<float>* d_h,
                        const std::complex<float>* d_v,
                        std::size_t nradials,
                        float* const d_products[polarimetric_product_count],
                        cuda_stream_t stream) override;
    void synchronize() override {}
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_POLARIMETRIC_CPU_H */
