/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "polarimetric/polarimetric_cpu.h"
#include "polarimetric/polarimetric_cuda.h"
#include "polarimetric/polarimetric_estimators.h"
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr double pi = 3.14159265358979323846264338327950288;

std::string number(double value)
{
    std::ostringstream text;
    text << value;
    return text.str();
}

void require_finite(double value, const char* field)
{
    if (!std::isfinite(value))
        throw std::invalid_argument(std::string(field) + ": must be finite, got " +
                                    number(value));
}

void require_positive(double value, const char* field)
{
    if (!std::isfinite(value) || !(value > 0.0))
        throw std::invalid_argument(std::string(field) +
                                    ": must be finite and > 0, got " + number(value));
}

void require_non_negative(double value, const char* field)
{
    if (!std::isfinite(value) || value < 0.0)
        throw std::invalid_argument(std::string(field) +
                                    ": must be finite and >= 0, got " + number(value));
}

} // namespace

polarimetric_mode parse_polarimetric_mode(const std::string& name,
                                          const std::string& parameter_name)
{
    if (name == "simultaneous")
        return polarimetric_mode::simultaneous;
    if (name == "alternating")
        return polarimetric_mode::alternating;
    throw std::invalid_argument(parameter_name +
                                ": must be \"simultaneous\" or \"alternating\", got \"" +
                                name + "\"");
}

std::string to_string(polarimetric_mode mode)
{
    return mode == polarimetric_mode::alternating ? "alternating" : "simultaneous";
}

const char* product_name(int product)
{
    static const char* const names[polarimetric_product_count] = {
        "Zh", "ZDR", "V", "W", "PhiDP", "RhoHV", "SNRh"
    };
    if (product < 0 || product >= polarimetric_product_count)
        throw std::out_of_range("product: must be 0 to 6, got " +
                                std::to_string(product));
    return names[product];
}

const char* product_unit(int product)
{
    static const char* const units[polarimetric_product_count] = { "dBZ", "dB",  "m/s",
                                                                   "m/s", "deg", "",
                                                                   "dB" };
    if (product < 0 || product >= polarimetric_product_count)
        throw std::out_of_range("product: must be 0 to 6, got " +
                                std::to_string(product));
    return units[product];
}

void polarimetric_calibration::validate() const
{
    require_finite(zcal_db, "zcal_db");
    require_finite(zdr_cal_db, "zdr_cal_db");
    require_finite(phidp_offset_deg, "phidp_offset_deg");
    require_non_negative(noise_h, "noise_h");
    require_non_negative(noise_v, "noise_v");
    // An infinite threshold is meaningful (-inf: keep everything, +inf: censor all).
    if (std::isnan(snr_threshold_db))
        throw std::invalid_argument("snr_threshold_db: must not be NaN");
}

void polarimetric_config::validate() const
{
    if (ngates < 1)
        throw std::invalid_argument("ngates: must be >= 1, got " +
                                    std::to_string(ngates));
    if (mode == polarimetric_mode::alternating) {
        if (pulses_per_radial < 4 || pulses_per_radial % 2 != 0)
            throw std::invalid_argument(
                "pulses_per_radial: must be even and >= 4 in alternating mode, got " +
                std::to_string(pulses_per_radial));
    } else if (pulses_per_radial < 2) {
        throw std::invalid_argument("pulses_per_radial: must be >= 2, got " +
                                    std::to_string(pulses_per_radial));
    }
    require_positive(wavelength_m, "wavelength_m");
    require_positive(prt_s, "prt_s");
    require_non_negative(first_gate_m, "first_gate_m");
    require_positive(gate_spacing_m, "gate_spacing_m");
    calibration.validate();
}

double polarimetric_config::nyquist_velocity() const
{
    const double simultaneous = wavelength_m / (4.0 * prt_s);
    return mode == polarimetric_mode::alternating ? simultaneous / 2.0 : simultaneous;
}

product_constants make_product_constants(const polarimetric_config& config)
{
    product_constants k;
    const double wavelength_per_prt = config.wavelength_m / config.prt_s;
    k.velocity_per_radian = -wavelength_per_prt / (4.0 * pi);
    // Gaussian spectrum: |R(mT)| = S exp(-8 (pi sigma m T / lambda)^2); the estimate
    // uses lag T (simultaneous) or lag 2T (alternating).
    const double lag = config.mode == polarimetric_mode::alternating ? 2.0 : 1.0;
    k.width_scale = wavelength_per_prt / (2.0 * std::sqrt(2.0) * pi * lag);
    const polarimetric_calibration& c = config.calibration;
    k.zcal_db = c.zcal_db;
    k.zdr_cal_db = c.zdr_cal_db;
    k.phidp_offset_deg = c.phidp_offset_deg;
    k.noise_h = c.noise_h;
    k.noise_v = c.noise_v;
    k.snr_threshold_db = c.snr_threshold_db;
    k.first_gate_km = config.first_gate_m / 1000.0;
    k.gate_spacing_km = config.gate_spacing_m / 1000.0;
    return k;
}

polarimetric_processor::polarimetric_processor(const polarimetric_config& config,
                                               const device_selection& device)
    : d_config(config), d_device(device)
{
}

polarimetric_processor::~polarimetric_processor() = default;

void polarimetric_processor::set_calibration(const polarimetric_calibration& calibration)
{
    calibration.validate();
    d_config.calibration = calibration;
}

std::unique_ptr<polarimetric_processor>
polarimetric_processor::make(const polarimetric_config& config)
{
    config.validate();
    const device_selection device = select_device(config.device, "device");
    if (device.backend == backend_kind::cuda)
        return std::make_unique<polarimetric_processor_cuda>(config, device);
    return std::make_unique<polarimetric_processor_cpu>(config, device);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
