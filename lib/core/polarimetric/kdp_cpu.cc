/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "polarimetric/kdp_cpu.h"
#include "polarimetric/kdp_rule.h"
#include <algorithm>
#include <stdexcept>
#include <thread>
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
    // Radials are independent: one contiguous share per core. Small calls stay on the
    // calling thread, where starting threads would cost more than it saves.
    constexpr std::size_t min_gates_per_thread = std::size_t(1) << 16;
    const std::size_t workers = std::min<std::size_t>(
        { nradials,
          std::max<std::size_t>(1, std::thread::hardware_concurrency()),
          nradials * ngates / min_gates_per_thread });
    if (workers <= 1) {
        run(0, nradials);
        return;
    }
    std::vector<std::thread> threads;
    threads.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w)
        threads.emplace_back(run, nradials * w / workers, nradials * (w + 1) / workers);
    for (std::thread& t : threads)
        t.join();
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
