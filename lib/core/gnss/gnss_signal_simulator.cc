/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/quoted_text.h"
#include "runtime/splitmix64.h"
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr double two_pi = 6.283185307179586476925286766559;
// Samples per block: the carrier phasor of each satellite is recomputed exactly at
// every block start and advanced by an exact quadratic-phase recurrence within it.
constexpr std::size_t block_samples = 4096;

void require(bool ok, const std::string& field, const std::string& rule, double value)
{
    if (!ok)
        throw std::invalid_argument(field + ": must be " + rule + ", got " +
                                    number_text(value));
}

template <typename T>
T saturate(double v)
{
    const double lo = static_cast<double>(std::numeric_limits<T>::min());
    const double hi = static_cast<double>(std::numeric_limits<T>::max());
    return static_cast<T>(std::clamp(std::nearbyint(v), lo, hi));
}

struct track_value {
    double value;
    double slope_per_entry;
};

// The cubic through table entries k..k+3, with x (in entries) inside the middle
// interval wherever the table allows. Sums over differences to y[k] keep the precision
// of large unwrapped phases (the weights sum to 1, their derivatives to 0).
track_value interpolate_track(const std::vector<double>& y, double x)
{
    const double last_start = static_cast<double>(y.size() - 4);
    const double start = std::clamp(std::floor(x) - 1.0, 0.0, last_start);
    const std::size_t k = static_cast<std::size_t>(start);
    const double a = x - start, b = a - 1.0, c = a - 2.0, d = a - 3.0;
    const double weight[4] = {
        -b * c * d / 6.0, a * c * d / 2.0, -a * b * d / 2.0, a * b * c / 6.0
    };
    const double weight_slope[4] = { -(c * d + b * d + b * c) / 6.0,
                                     (c * d + a * d + a * c) / 2.0,
                                     -(b * d + a * d + a * b) / 2.0,
                                     (b * c + a * c + a * b) / 6.0 };
    double value = 0.0;
    double slope = 0.0;
    for (std::size_t i = 1; i < 4; ++i) {
        const double dy = y[k + i] - y[k];
        value += weight[i] * dy;
        slope += weight_slope[i] * dy;
    }
    return { y[k] + value, slope };
}

void validate_track(const gnss_simulated_satellite& s, const std::string& name)
{
    const gnss_phase_track& track = s.track;
    require(std::isfinite(track.interval_s) && track.interval_s > 0.0,
            name + "track.interval_s",
            "finite and > 0",
            track.interval_s);
    if (track.code_phase_chips.size() < 4)
        throw std::invalid_argument(name +
                                    "track.code_phase_chips: must hold at least 4 "
                                    "entries, got " +
                                    std::to_string(track.code_phase_chips.size()));
    if (track.carrier_phase_rad.size() != track.code_phase_chips.size())
        throw std::invalid_argument(name +
                                    "track.carrier_phase_rad: must be as long as "
                                    "track.code_phase_chips (" +
                                    std::to_string(track.code_phase_chips.size()) +
                                    "), got " +
                                    std::to_string(track.carrier_phase_rad.size()));
    for (double v : track.code_phase_chips)
        require(std::isfinite(v), name + "track.code_phase_chips", "finite", v);
    for (double v : track.carrier_phase_rad)
        require(std::isfinite(v), name + "track.carrier_phase_rad", "finite", v);
    require(track.code_phase_chips[0] >= 0.0,
            name + "track.code_phase_chips[0]",
            ">= 0",
            track.code_phase_chips[0]);
    for (const auto& [field, value] :
         { std::pair<const char*, double>{ "code_phase_chips", s.code_phase_chips },
           std::pair<const char*, double>{ "doppler_hz", s.doppler_hz },
           std::pair<const char*, double>{ "doppler_rate_hz_per_s",
                                           s.doppler_rate_hz_per_s } })
        require(value == 0.0, name + field, "0 with a track", value);
}

} // namespace

gnss_signal_simulator::gnss_signal_simulator(
    const gnss_simulator_config& config,
    const std::vector<gnss_simulated_satellite>& satellites)
    : d_config(config), d_satellites(satellites), d_noise_state(config.seed)
{
    const double fs = config.sample_rate_hz;
    require(std::isfinite(fs) && fs > 0.0, "sample_rate_hz", "finite and > 0", fs);
    require(std::isfinite(config.intermediate_frequency_hz) &&
                std::fabs(config.intermediate_frequency_hz) < fs / 2,
            "intermediate_frequency_hz",
            "below sample_rate_hz / 2 in magnitude",
            config.intermediate_frequency_hz);
    require(std::isfinite(config.noise_power) && config.noise_power >= 0.0,
            "noise_power",
            "finite and >= 0",
            config.noise_power);
    for (std::size_t i = 0; i < satellites.size(); ++i) {
        const gnss_simulated_satellite& s = satellites[i];
        const std::string name = "satellites[" + std::to_string(i) + "].";
        if (s.code.empty())
            throw std::invalid_argument(name + "code: must hold at least one entry");
        for (const auto* table : { &s.code, &s.pilot_code })
            for (std::int8_t v : *table)
                if (v != 1 && v != -1)
                    throw std::invalid_argument(
                        name + (table == &s.code ? "code" : "pilot_code") +
                        ": entries must be +1 or -1, got " + std::to_string(int(v)));
        if (!s.pilot_code.empty() && s.pilot_code.size() != s.code.size())
            throw std::invalid_argument(name +
                                        "pilot_code: must be empty or as long as "
                                        "code (" +
                                        std::to_string(s.code.size()) + "), got " +
                                        std::to_string(s.pilot_code.size()));
        if (s.code_entries_per_chip < 1 || s.code.size() % s.code_entries_per_chip != 0)
            throw std::invalid_argument(name +
                                        "code_entries_per_chip: must be >= 1 and "
                                        "divide the code length, got " +
                                        std::to_string(s.code_entries_per_chip));
        require(std::isfinite(s.chip_rate_cps) && s.chip_rate_cps > 0.0,
                name + "chip_rate_cps",
                "finite and > 0",
                s.chip_rate_cps);
        require(std::isfinite(s.carrier_frequency_hz) && s.carrier_frequency_hz > 0.0,
                name + "carrier_frequency_hz",
                "finite and > 0",
                s.carrier_frequency_hz);
        require(std::isfinite(s.code_phase_chips) && s.code_phase_chips >= 0.0,
                name + "code_phase_chips",
                "finite and >= 0",
                s.code_phase_chips);
        require(std::isfinite(s.doppler_hz), name + "doppler_hz", "finite", s.doppler_hz);
        require(std::isfinite(s.doppler_rate_hz_per_s),
                name + "doppler_rate_hz_per_s",
                "finite",
                s.doppler_rate_hz_per_s);
        require(std::isfinite(s.carrier_phase_rad),
                name + "carrier_phase_rad",
                "finite",
                s.carrier_phase_rad);
        require(std::isfinite(s.cn0_dbhz) && s.cn0_dbhz <= 120.0,
                name + "cn0_dbhz",
                "finite and <= 120",
                s.cn0_dbhz);
        for (std::int8_t b : s.bits)
            if (b != 1 && b != -1)
                throw std::invalid_argument(name + "bits: must be +1 or -1, got " +
                                            std::to_string(int(b)));
        if (!s.track.code_phase_chips.empty() || !s.track.carrier_phase_rad.empty())
            validate_track(s, name);
        const double n0 = config.noise_power / fs;
        d_amplitude.push_back(std::sqrt(std::pow(10.0, s.cn0_dbhz / 10.0) * n0));
    }
}

double gnss_signal_simulator::amplitude(std::size_t sat) const
{
    return d_amplitude.at(sat);
}

double gnss_signal_simulator::code_phase_total_chips(std::size_t sat, double n) const
{
    const gnss_simulated_satellite& s = d_satellites.at(sat);
    const double t = n / d_config.sample_rate_hz;
    if (!s.track.code_phase_chips.empty())
        return interpolate_track(s.track.code_phase_chips, t / s.track.interval_s).value;
    const double doppler_cycles =
        s.doppler_hz * t + 0.5 * s.doppler_rate_hz_per_s * t * t;
    return s.code_phase_chips +
           s.chip_rate_cps * (t + doppler_cycles / s.carrier_frequency_hz);
}

double gnss_signal_simulator::code_phase_chips(std::size_t sat, double n) const
{
    const gnss_simulated_satellite& s = d_satellites.at(sat);
    const double chips = static_cast<double>(s.code.size()) / s.code_entries_per_chip;
    const double phase = std::fmod(code_phase_total_chips(sat, n), chips);
    return phase < 0.0 ? phase + chips : phase;
}

double gnss_signal_simulator::doppler_hz(std::size_t sat, double n) const
{
    const gnss_simulated_satellite& s = d_satellites.at(sat);
    if (!s.track.carrier_phase_rad.empty())
        return interpolate_track(s.track.carrier_phase_rad,
                                 n / d_config.sample_rate_hz / s.track.interval_s)
                   .slope_per_entry /
               (two_pi * s.track.interval_s);
    return s.doppler_hz + s.doppler_rate_hz_per_s * n / d_config.sample_rate_hz;
}

double gnss_signal_simulator::code_rate_cps(std::size_t sat, double n) const
{
    const gnss_simulated_satellite& s = d_satellites.at(sat);
    if (!s.track.code_phase_chips.empty())
        return interpolate_track(s.track.code_phase_chips,
                                 n / d_config.sample_rate_hz / s.track.interval_s)
                   .slope_per_entry /
               s.track.interval_s;
    return s.chip_rate_cps * (1.0 + doppler_hz(sat, n) / s.carrier_frequency_hz);
}

double gnss_signal_simulator::carrier_phase_rad(std::size_t sat, double n) const
{
    const gnss_simulated_satellite& s = d_satellites.at(sat);
    const double t = n / d_config.sample_rate_hz;
    if (!s.track.carrier_phase_rad.empty())
        return s.carrier_phase_rad + two_pi * d_config.intermediate_frequency_hz * t +
               interpolate_track(s.track.carrier_phase_rad, t / s.track.interval_s).value;
    return s.carrier_phase_rad +
           two_pi * ((d_config.intermediate_frequency_hz + s.doppler_hz) * t +
                     0.5 * s.doppler_rate_hz_per_s * t * t);
}

std::int64_t gnss_signal_simulator::bit_index(std::size_t sat, double n) const
{
    const gnss_simulated_satellite& s = d_satellites.at(sat);
    if (s.code_periods_per_bit == 0)
        return 0;
    const double chips_per_bit = static_cast<double>(s.code.size()) /
                                 s.code_entries_per_chip * s.code_periods_per_bit;
    return static_cast<std::int64_t>(
        std::floor(code_phase_total_chips(sat, n) / chips_per_bit));
}

int gnss_signal_simulator::bit(std::size_t sat, std::int64_t index) const
{
    const gnss_simulated_satellite& s = d_satellites.at(sat);
    if (s.code_periods_per_bit == 0)
        return 1;
    if (!s.bits.empty()) {
        const std::int64_t size = static_cast<std::int64_t>(s.bits.size());
        return s.bits[static_cast<std::size_t>(((index % size) + size) % size)];
    }
    // Counter-based, so any bit can be looked up without generating the ones before.
    const std::uint64_t h =
        splitmix64::mix(splitmix64::mix(d_config.seed ^ 0x5bd1e995ull) +
                        splitmix64::mix(sat + 1) + static_cast<std::uint64_t>(index));
    return (h >> 63) ? -1 : 1;
}

void gnss_signal_simulator::generate_block(std::complex<double>* out, std::size_t n)
{
    const double fs = d_config.sample_rate_hz;
    const double n0 = static_cast<double>(d_position);
    splitmix64 noise(d_noise_state);
    for (std::size_t k = 0; k < n; ++k)
        out[k] = d_config.noise_power > 0.0 ? noise.complex_normal(d_config.noise_power)
                                            : std::complex<double>(0.0, 0.0);
    d_noise_state = noise.state();

    for (std::size_t sat = 0; sat < d_satellites.size(); ++sat) {
        const gnss_simulated_satellite& s = d_satellites[sat];
        const double a = d_amplitude[sat];
        const bool pilot = !s.pilot_code.empty();
        const bool tracked = !s.track.carrier_phase_rad.empty();
        const double weight = pilot ? a / std::sqrt(2.0) : a;
        const std::int64_t entries = static_cast<std::int64_t>(s.code.size());
        const double epc = s.code_entries_per_chip;
        // Exact phasor at the block start, then z *= w, w *= u: the per-sample phase
        // increment 2 pi ((IF + f0) / fs + r (2 n + 1) / (2 fs^2)) grows by 2 pi r /
        // fs^2.
        const double theta = carrier_phase_rad(sat, n0);
        std::complex<double> z = std::polar(1.0, std::fmod(theta, two_pi));
        const double f_per_sample =
            (d_config.intermediate_frequency_hz + s.doppler_hz) / fs +
            s.doppler_rate_hz_per_s * (2.0 * n0 + 1.0) / (2.0 * fs * fs);
        std::complex<double> w = std::polar(1.0, two_pi * f_per_sample);
        const std::complex<double> u =
            std::polar(1.0, two_pi * s.doppler_rate_hz_per_s / (fs * fs));
        std::int64_t cached_bit_index = std::numeric_limits<std::int64_t>::min();
        int cached_bit = 1;
        for (std::size_t k = 0; k < n; ++k) {
            const double sample = n0 + static_cast<double>(k);
            const double chi = code_phase_total_chips(sat, sample);
            const std::int64_t entry =
                static_cast<std::int64_t>(std::floor(chi * epc)) % entries;
            double value = s.code[entry];
            if (s.code_periods_per_bit > 0) {
                const std::int64_t b = bit_index(sat, sample);
                if (b != cached_bit_index) {
                    cached_bit_index = b;
                    cached_bit = bit(sat, b);
                }
                value *= cached_bit;
            }
            if (pilot)
                value -= s.pilot_code[entry];
            // A track's phase has no closed-form increment: each sample's is exact.
            out[k] +=
                weight * value *
                (tracked
                     ? std::polar(1.0, std::fmod(carrier_phase_rad(sat, sample), two_pi))
                     : z);
            z *= w;
            w *= u;
        }
    }
    d_position += n;
}

void gnss_signal_simulator::require_tracks_reach(std::size_t n) const
{
    if (n == 0)
        return;
    const double last_sample = static_cast<double>(d_position + n - 1);
    for (std::size_t sat = 0; sat < d_satellites.size(); ++sat) {
        const gnss_phase_track& track = d_satellites[sat].track;
        if (track.code_phase_chips.empty())
            continue;
        const double end_s =
            static_cast<double>(track.code_phase_chips.size() - 1) * track.interval_s;
        if (last_sample / d_config.sample_rate_hz > end_s)
            throw std::out_of_range("gnss_signal_simulator: satellites[" +
                                    std::to_string(sat) + "].track ends at " +
                                    number_text(end_s) + " s, before sample " +
                                    number_text(last_sample));
    }
}

void gnss_signal_simulator::generate(std::complex<float>* out, std::size_t n)
{
    require_tracks_reach(n);
    d_block.resize(block_samples);
    for (std::size_t done = 0; done < n;) {
        const std::size_t m = std::min(block_samples, n - done);
        generate_block(d_block.data(), m);
        for (std::size_t k = 0; k < m; ++k)
            out[done + k] = std::complex<float>(d_block[k]);
        done += m;
    }
}

void gnss_signal_simulator::generate_ci16(std::int16_t* out, std::size_t n, double scale)
{
    require_tracks_reach(n);
    d_block.resize(block_samples);
    for (std::size_t done = 0; done < n;) {
        const std::size_t m = std::min(block_samples, n - done);
        generate_block(d_block.data(), m);
        for (std::size_t k = 0; k < m; ++k) {
            out[2 * (done + k)] = saturate<std::int16_t>(scale * d_block[k].real());
            out[2 * (done + k) + 1] = saturate<std::int16_t>(scale * d_block[k].imag());
        }
        done += m;
    }
}

void gnss_signal_simulator::generate_ci8(std::int8_t* out, std::size_t n, double scale)
{
    require_tracks_reach(n);
    d_block.resize(block_samples);
    for (std::size_t done = 0; done < n;) {
        const std::size_t m = std::min(block_samples, n - done);
        generate_block(d_block.data(), m);
        for (std::size_t k = 0; k < m; ++k) {
            out[2 * (done + k)] = saturate<std::int8_t>(scale * d_block[k].real());
            out[2 * (done + k) + 1] = saturate<std::int8_t>(scale * d_block[k].imag());
        }
        done += m;
    }
}

} // namespace core
} // namespace cudadsp
} // namespace gr
