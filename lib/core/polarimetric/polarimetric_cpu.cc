/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "polarimetric/polarimetric_cpu.h"
#include "polarimetric/polarimetric_estimators.h"
#include <algorithm>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

template <polarimetric_mode Mode>
void process_radials(const polarimetric_config& config,
                     const product_constants& constants,
                     const std::complex<float>* h,
                     const std::complex<float>* v,
                     std::size_t first_radial,
                     std::size_t end_radial,
                     float* const products[polarimetric_product_count])
{
    const std::size_t ngates = config.ngates;
    const std::size_t pulses = config.pulses_per_radial;
    std::vector<moment_accumulator<Mode>> gates(ngates);
    for (std::size_t r = first_radial; r < end_radial; ++r) {
        std::fill(gates.begin(), gates.end(), moment_accumulator<Mode>{});
        const std::size_t radial_start = r * config.samples_per_radial();
        for (std::size_t n = 0; n < pulses; ++n) {
            const std::complex<float>* h_pulse = h + radial_start + n * ngates;
            const std::complex<float>* v_pulse = v + radial_start + n * ngates;
            for (std::size_t g = 0; g < ngates; ++g)
                gates[g].add(n,
                             h_pulse[g].real(),
                             h_pulse[g].imag(),
                             v_pulse[g].real(),
                             v_pulse[g].imag());
        }
        for (std::size_t g = 0; g < ngates; ++g) {
            const gate_products out =
                compute_products<Mode>(gates[g].moments(pulses), constants, g);
            for (int p = 0; p < polarimetric_product_count; ++p)
                products[p][r * ngates + g] = out.value[p];
        }
    }
}

} // namespace

polarimetric_processor_cpu::polarimetric_processor_cpu(const polarimetric_config& config,
                                                       const device_selection& device)
    : polarimetric_processor(config, device)
{
}

void polarimetric_processor_cpu::process(
    const std::complex<float>* h,
    const std::complex<float>* v,
    std::size_t nradials,
    float* const products[polarimetric_product_count])
{
    if (nradials == 0)
        return;
    const product_constants constants = make_product_constants(d_config);
    auto run = [&](std::size_t first, std::size_t end) {
        if (d_config.mode == polarimetric_mode::alternating)
            process_radials<polarimetric_mode::alternating>(
                d_config, constants, h, v, first, end, products);
        else
            process_radials<polarimetric_mode::simultaneous>(
                d_config, constants, h, v, first, end, products);
    };
    // Radials are independent: one contiguous share per core. Small calls stay on the
    // calling thread, where starting threads would cost more than it saves.
    constexpr std::size_t min_samples_per_thread = std::size_t(1) << 18;
    const std::size_t by_size =
        nradials * d_config.samples_per_radial() / min_samples_per_thread;
    const std::size_t workers = std::min<std::size_t>(
        { nradials,
          std::max<std::size_t>(1, std::thread::hardware_concurrency()),
          by_size });
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

void polarimetric_processor_cpu::process_device(const std::complex<float>*,
                                                const std::complex<float>*,
                                                std::size_t,
                                                float* const[polarimetric_product_count],
                                                cuda_stream_t)
{
    throw std::logic_error("process_device: this polarimetric engine runs on the CPU "
                           "backend; use process() with host buffers");
}

} // namespace core
} // namespace cudadsp
} // namespace gr
