/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_POLARIMETRIC_CPU_H
#define INCLUDED_CUDADSP_CORE_POLARIMETRIC_CPU_H

#include "polarimetric/clutter_filter_tables.h"
#include <gnuradio/cudadsp/core/polarimetric.h>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CPU backend: radials are shared among the host's cores; each radial is copied
 * gate-major (each pulse's range profile read once, contiguously), then every gate
 * goes through process_gate() (polarimetric_gate.h) on its contiguous pulses.
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

private:
    const clutter_filter_tables d_filter_tables;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_POLARIMETRIC_CPU_H */
