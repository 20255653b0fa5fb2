/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "polarimetric/polarimetric_cpu.h"
#include "polarimetric/polarimetric_cuda.h"
#include "polarimetric/polarimetric_estimators.h"
#include "runtime/parameter_checks.h"
#include "runtime/quoted_text.h"
#include <cmath>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr double pi = 3.14159265358979323846264338327950288;

} // namespace

polarimetric_mode parse_polarimetric_mode(const std::string& name,
                                          const std::string& parameter_name)
{
    if (name == "simultaneous")
        return polarimetric_mode::simultaneous;
    if (name == "alternating")
        return polarimetric_mode::alternating;
    throw std::invalid_argument(parameter_name +
                                ": must be \"simultaneous\" or \"alternating\", got " +
                                quoted_text(name));
}

std::string to_string(polarimetric_mode mode)
{
    return mode == polarimetric_mode::alternating ? "alternating" : "simultaneous";
}

clutter_filter_kind parse_clutter_filter(const std::string& name,
                                         const std::string& parameter_name)
{
    if (name == "none")
        return clutter_filter_kind::none;
    if (name == "regression")
        return clutter_filter_kind::regression;
    if (name == "gmap")
        return clutter_filter_kind::gmap;
    throw std::invalid_argument(parameter_name +
                                ": must be \"none\", \"regression\" or \"gmap\", got " +
                                quoted_text(name));
}

std::string to_string(clutter_filter_kind kind)
{
    switch (kind) {
    case clutter_filter_kind::regression:
        return "regression";
    case clutter_filter_kind::gmap:
        return "gmap";
    default:
        return "none";
    }
}

namespace {

void require_product(int product)
{
    if (product < 0 || product >= polarimetric_product_count)
        throw std::out_of_range("product: must be 0 to " +
                                std::to_string(polarimetric_product_count - 1) +
                                ", got " + std::to_string(product));
}

} // namespace

const char* product_name(int product)
{
    static const char* const names[polarimetric_product_count] = {
        "Zh", "ZDR", "V", "W", "PhiDP", "RhoHV", "SNRh", "CLUT", "CPA"
    };
    require_product(product);
    return names[product];
}

const char* product_unit(int product)
{
    static const char* const units[polarimetric_product_count] = { "dBZ", "dB",  "m/s",
                                                                   "m/s", "deg", "",
                                                                   "dB",  "dB",  "" };
    require_product(product);
    return units[product];
}

void clutter_filter_config::validate() const
{
    if (kind != clutter_filter_kind::none && kind != clutter_filter_kind::regression &&
        kind != clutter_filter_kind::gmap)
        throw std::invalid_argument("clutter_filter: not a clutter_filter_kind value");
    if (!(cpa_threshold > 0.0 && cpa_threshold <= 1.0))
        throw std::invalid_argument("cpa_threshold: must be in (0, 1], got " +
                                    number_text(cpa_threshold));
    require_within(antenna_rate_deg_s,
                   0.0,
                   max_antenna_rate_deg_s,
                   "antenna_rate_deg_s",
                   "deg/s",
                   "ten turns a second");
    if (!(beamwidth_deg > 0.0 && beamwidth_deg <= 360.0))
        throw std::invalid_argument("beamwidth_deg: must be in (0, 360], got " +
                                    number_text(beamwidth_deg));
    if (max_regression_order > regression_order_limit)
        throw std::invalid_argument("max_regression_order: must be 0 to " +
                                    std::to_string(regression_order_limit) + ", got " +
                                    std::to_string(max_regression_order));
}

double clutter_filter_config::clutter_width_m_s(double wavelength_m) const
{
    // Scan modulation of a one-way Gaussian beam (Doviak and Zrnic 1993, chapter 7).
    const double rate_rad_s = antenna_rate_deg_s * pi / 180.0;
    const double beamwidth_rad = beamwidth_deg * pi / 180.0;
    const double scan =
        rate_rad_s * wavelength_m * std::sqrt(std::log(2.0)) / (2.0 * pi * beamwidth_rad);
    return std::sqrt(clutter_intrinsic_width_m_s * clutter_intrinsic_width_m_s +
                     scan * scan);
}

void polarimetric_calibration::validate() const
{
    require_within(zcal_db,
                   -max_zcal_db,
                   max_zcal_db,
                   "zcal_db",
                   "dB",
                   "powers of float32 samples span less than that");
    require_within(zdr_cal_db,
                   -max_zdr_cal_db,
                   max_zdr_cal_db,
                   "zdr_cal_db",
                   "dB",
                   "a gain ratio of 10^10 between the receivers");
    require_within(phidp_offset_deg,
                   -360.0,
                   360.0,
                   "phidp_offset_deg",
                   "degrees",
                   "one turn either way");
    require_within(noise_h,
                   0.0,
                   max_noise_power,
                   "noise_h",
                   "in |x|^2 units",
                   "at most the largest |x|^2 of a float32 sample");
    require_within(noise_v,
                   0.0,
                   max_noise_power,
                   "noise_v",
                   "in |x|^2 units",
                   "at most the largest |x|^2 of a float32 sample");
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
    require_within(wavelength_m,
                   min_wavelength_m,
                   max_wavelength_m,
                   "wavelength_m",
                   "m",
                   "3 THz to 300 kHz");
    require_within(
        prt_s, min_prt_s, max_prt_s, "prt_s", "s", "a PRF of 10 MHz to 0.1 Hz");
    require_non_negative(first_gate_m, "first_gate_m");
    require_positive(gate_spacing_m, "gate_spacing_m");
    calibration.validate();
    clutter.validate();
    // GMAP's window and its notch need room on either side of zero velocity.
    const std::size_t gmap_min_series = 8;
    const std::size_t series_pulses = mode == polarimetric_mode::alternating ? 2 : 1;
    if (clutter.kind == clutter_filter_kind::gmap &&
        pulses_per_radial < gmap_min_series * series_pulses)
        throw std::invalid_argument("pulses_per_radial: must be >= " +
                                    std::to_string(gmap_min_series * series_pulses) +
                                    " with clutter_filter " + "\"gmap\" in " +
                                    to_string(mode) + " mode, got " +
                                    std::to_string(pulses_per_radial));
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
    k.velocity_per_radian =
        (config.invert_velocity ? 1.0 : -1.0) * wavelength_per_prt / (4.0 * pi);
    k.phidp_sign = config.invert_phidp ? -1.0 : 1.0;
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
