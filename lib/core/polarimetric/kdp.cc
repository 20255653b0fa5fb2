/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "polarimetric/kdp_cpu.h"
#include "polarimetric/kdp_cuda.h"
#include "polarimetric/kdp_rule.h"
#include "runtime/quoted_text.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Largest ngates the rule's int indices (and a CUDA block's shared memory) allow.
constexpr std::size_t max_rule_gates = std::size_t(std::numeric_limits<int>::max()) / 2;

} // namespace

void kdp_config::validate() const
{
    if (ngates < 1 || ngates > max_rule_gates)
        throw std::invalid_argument(
            "ngates: must be >= 1 and <= " + std::to_string(max_rule_gates) + ", got " +
            std::to_string(ngates));
    if (!std::isfinite(gate_spacing_m) || !(gate_spacing_m > 0.0))
        throw std::invalid_argument("gate_spacing_m: must be finite and > 0, got " +
                                    number_text(gate_spacing_m));
    if (!std::isfinite(window_km) || window_km < 0.0 || half_window_gates() < 1)
        throw std::invalid_argument(
            "window_km: must be finite and span at least 2 gate spacings (" +
            number_text(2.0 * gate_spacing_m / 1000.0) +
            " km) after rounding to an even "
            "number of them, got " +
            number_text(window_km));
    if (half_window_gates() >= ngates)
        throw std::invalid_argument("window_km: the window (" + number_text(window_km) +
                                    " km) must be shorter than the radial (" +
                                    std::to_string(ngates) + " gates of " +
                                    number_text(gate_spacing_m) + " m)");
    if (!std::isfinite(max_gap_km) || max_gap_km < 0.0)
        throw std::invalid_argument("max_gap_km: must be finite and >= 0, got " +
                                    number_text(max_gap_km));
    if (!(min_rhohv >= 0.0 && min_rhohv <= 1.0))
        throw std::invalid_argument("min_rhohv: must be in [0, 1], got " +
                                    number_text(min_rhohv));
    if (std::isnan(min_snr_db))
        throw std::invalid_argument("min_snr_db: must not be NaN");
}

std::size_t kdp_config::half_window_gates() const
{
    const double gates = std::round(window_km * 1000.0 / (2.0 * gate_spacing_m));
    if (!(gates >= 0.0) || gates > static_cast<double>(max_rule_gates))
        return 0;
    return static_cast<std::size_t>(gates);
}

std::size_t kdp_config::max_gap_gates() const
{
    const double gates = std::floor(max_gap_km * 1000.0 / gate_spacing_m);
    if (!(gates >= 0.0))
        return 0;
    return static_cast<std::size_t>(std::min(gates, static_cast<double>(ngates)));
}

kdp_rule_params
make_kdp_rule_params(const kdp_config& config, bool use_rhohv, bool use_snr)
{
    kdp_rule_params p;
    p.ngates = static_cast<int>(config.ngates);
    p.half_window = static_cast<int>(config.half_window_gates());
    p.max_gap = static_cast<int>(config.max_gap_gates());
    p.use_rhohv = use_rhohv;
    p.use_snr = use_snr;
    p.min_rhohv = config.min_rhohv;
    p.min_snr_db = config.min_snr_db;
    p.two_gate_spacing_km = 2.0 * config.gate_spacing_m / 1000.0;
    return p;
}

kdp_processor::kdp_processor(const kdp_config& config, const device_selection& device)
    : d_config(config), d_device(device)
{
}

kdp_processor::~kdp_processor() = default;

std::unique_ptr<kdp_processor> kdp_processor::make(const kdp_config& config)
{
    config.validate();
    const device_selection device = select_device(config.device, "device");
    if (device.backend == backend_kind::cuda)
        return std::make_unique<kdp_processor_cuda>(config, device);
    return std::make_unique<kdp_processor_cpu>(config, device);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
