/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "polarimetric/kdp_cpu.h"
#include "polarimetric/kdp_rule.h"
#include "runtime/parallel_ranges.h"
#include <stdexcept>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

kdp_processor_cpu::kdp_processor_cpu(const kdp_config& config,
                                     const device_selection& device)
    : kdp_processor(config, device)
{
}

void kdp_processor_cpu::process(const float* phidp_deg,
                                const float* rhohv,
                                const float* snr_db,
                                std::size_t nradials,
                                float* processed_phidp_deg,
                                float* kdp_deg_km)
{
    if (nradials == 0)
        return;
    const kdp_rule_params p =
        make_kdp_rule_params(d_config, rhohv != nullptr, snr_db != nullptr);
    const std::size_t ngates = d_config.ngates;
    auto run = [&](std::size_t first, std::size_t end) {
        std::vector<double> u(ngates);
        for (std::size_t r = first; r < end; ++r) {
            const std::size_t base = r * ngates;
            for (std::size_t g = 0; g < ngates; ++g)
                u[g] = kdp_masked_phase(phidp_deg[base + g],
                                        rhohv ? rhohv[base + g] : 0.0f,
                                        snr_db ? snr_db[base + g] : 0.0f,
                                        p);
            kdp_unfold_radial(u.data(), p);
            for (std::size_t g = 0; g < ngates; ++g) {
                const kdp_gate_result out =
                    kdp_fit_gate(u.data(), static_cast<int>(g), p);
                processed_phidp_deg[base + g] = out.phidp_deg;
                kdp_deg_km[base + g] = out.kdp_deg_km;
            }
        }
    };
    // Radials are independent.
    constexpr std::size_t min_gates_per_thread = std::size_t(1) << 16;
    parallel_ranges(nradials, nradials * ngates / min_gates_per_thread, run);
}

void kdp_processor_cpu::process_device(
    const float*, const float*, const float*, std::size_t, float*, float*, cuda_stream_t)
{
    throw std::logic_error("process_device: this KDP engine runs on the CPU backend; "
                           "use process() with host buffers");
}

} // namespace core
} // namespace cudadsp
} // namespace gr
