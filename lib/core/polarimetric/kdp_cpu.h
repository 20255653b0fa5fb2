/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_KDP_CPU_H
#define INCLUDED_CUDADSP_CORE_KDP_CPU_H

#include <gnuradio/cudadsp/core/kdp.h>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CPU backend: radials are shared among the host's cores; each radial runs the rule of
 * kdp_rule.h, gate by gate.
 */
class kdp_processor_cpu : public kdp_processor
{
public:
    kdp_processor_cpu(const kdp_config& config, const device_selection& device);

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
    void synchronize() override {}
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_KDP_CPU_H */
