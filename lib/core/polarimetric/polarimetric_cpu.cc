/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "polarimetric/polarimetric_cpu.h"
#include "polarimetric/polarimetric_gate.h"
#include "runtime/parallel_ranges.h"
#include <stdexcept>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Pulse n of one gate from its gate-major copy.
struct gate_major_pulses {
    const std::complex<float>* h;
    const std::complex<float>* v;

    void
    operator()(unsigned int n, float& h_re, float& h_im, float& v_re, float& v_im) const
    {
        h_re = h[n].real();
        h_im = h[n].imag();
        v_re = v[n].real();
        v_im = v[n].imag();
    }
};

template <polarimetric_mode Mode, clutter_filter_kind Kind>
void process_radials(const polarimetric_config& config,
                     const product_constants& constants,
                     const clutter_filter_constants& filter,
                     const std::complex<float>* h,
                     const std::complex<float>* v,
                     std::size_t first_radial,
                     std::size_t end_radial,
                     float* const products[polarimetric_product_count])
{
    const std::size_t ngates = config.ngates;
    const std::size_t pulses = config.pulses_per_radial;
    const bool reads_v = Mode == polarimetric_mode::simultaneous;
    // Each radial is copied gate-major first: the filters take two passes over a
    // gate's pulses, which then lie contiguously, and the copy reads each pulse's
    // range profile once, contiguously.
    std::vector<std::complex<float>> h_gates(config.samples_per_radial());
    std::vector<std::complex<float>> v_gates(reads_v ? h_gates.size() : 0);
    for (std::size_t r = first_radial; r < end_radial; ++r) {
        const std::size_t radial_start = r * config.samples_per_radial();
        for (std::size_t n = 0; n < pulses; ++n) {
            const std::complex<float>* h_pulse = h + radial_start + n * ngates;
            for (std::size_t g = 0; g < ngates; ++g)
                h_gates[g * pulses + n] = h_pulse[g];
            if (reads_v) {
                const std::complex<float>* v_pulse = v + radial_start + n * ngates;
                for (std::size_t g = 0; g < ngates; ++g)
                    v_gates[g * pulses + n] = v_pulse[g];
            }
        }
        for (std::size_t g = 0; g < ngates; ++g) {
            const std::complex<float>* h_gate = h_gates.data() + g * pulses;
            const gate_major_pulses gate_pulses{ h_gate,
                                                 reads_v ? v_gates.data() + g * pulses
                                                         : h_gate };
            const gate_products out = process_gate<Mode, Kind>(
                gate_pulses, static_cast<unsigned int>(pulses), filter, constants, g);
            for (int p = 0; p < polarimetric_product_count; ++p)
                products[p][r * ngates + g] = out.value[p];
        }
    }
}

template <polarimetric_mode Mode>
void process_radials_of_mode(const polarimetric_config& config,
                             const product_constants& constants,
                             const clutter_filter_constants& filter,
                             const std::complex<float>* h,
                             const std::complex<float>* v,
                             std::size_t first,
                             std::size_t end,
                             float* const products[polarimetric_product_count])
{
    switch (filter.kind) {
    case clutter_filter_kind::regression:
        process_radials<Mode, clutter_filter_kind::regression>(
            config, constants, filter, h, v, first, end, products);
        break;
    case clutter_filter_kind::gmap:
        process_radials<Mode, clutter_filter_kind::gmap>(
            config, constants, filter, h, v, first, end, products);
        break;
    default:
        process_radials<Mode, clutter_filter_kind::none>(
            config, constants, filter, h, v, first, end, products);
    }
}

} // namespace

polarimetric_processor_cpu::polarimetric_processor_cpu(const polarimetric_config& config,
                                                       const device_selection& device)
    : polarimetric_processor(config, device), d_filter_tables(config)
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
    const clutter_filter_tables& t = d_filter_tables;
    const clutter_filter_constants filter = t.for_call(d_config.calibration.noise_h,
                                                       t.basis.data(),
                                                       t.window.data(),
                                                       t.analysis.data(),
                                                       t.synthesis.data());
    auto run = [&](std::size_t first, std::size_t end) {
        if (d_config.mode == polarimetric_mode::alternating)
            process_radials_of_mode<polarimetric_mode::alternating>(
                d_config, constants, filter, h, v, first, end, products);
        else
            process_radials_of_mode<polarimetric_mode::simultaneous>(
                d_config, constants, filter, h, v, first, end, products);
    };
    // Radials are independent.
    constexpr std::size_t min_samples_per_thread = std::size_t(1) << 18;
    parallel_ranges(
        nradials, nradials * d_config.samples_per_radial() / min_samples_per_thread, run);
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
