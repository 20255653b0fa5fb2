/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What the PCPS acquisition engine tests share: truths, simulated signals, recordings, an
// independent float64 code-phase reference and the checks.

#ifndef INCLUDED_QA_PCPS_ACQUISITION_SUPPORT_H
#define INCLUDED_QA_PCPS_ACQUISITION_SUPPORT_H

#include "gnss/pcps_acquisition_rule.h"
#include "qa_support.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <gnuradio/cudadsp/core/pcps_acquisition.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa_pcps_acquisition_cases {

using core::acquisition_detection;
using core::acquisition_signal;
using core::pcps_acquisition;
using core::pcps_acquisition_config;


constexpr double pi = 3.14159265358979323846;

struct truth {
    int satellite;
    double doppler_hz;
    double code_phase_chips; //!< at sample 0
    double cn0_dbhz;
};

//! Circular distance of two code phases on a code of \p chips chips.
inline double chip_distance(double a, double b, double chips)
{
    const double d = std::fmod(std::abs(a - b), chips);
    return std::min(d, chips - d);
}

//! Results pre-filled with values no search gives, so that an entry never written
//! shows.
inline std::vector<acquisition_detection> poisoned(std::size_t n)
{
    acquisition_detection p;
    p.detected = true;
    p.satellite = -999;
    p.doppler_hz = p.code_phase_chips = p.delay_samples = qa::poison_value;
    p.metric = p.threshold = qa::poison_value;
    return std::vector<acquisition_detection>(n + 3, p);
}

inline void check_written(const std::vector<acquisition_detection>& results,
                          const std::vector<int>& satellites)
{
    CPPUNIT_ASSERT_EQUAL(satellites.size(), results.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
        CPPUNIT_ASSERT_EQUAL(satellites[i], results[i].satellite);
        CPPUNIT_ASSERT(std::isfinite(results[i].metric) && results[i].metric > 0.0);
        CPPUNIT_ASSERT(std::isfinite(results[i].threshold) && results[i].threshold > 1.0);
        CPPUNIT_ASSERT(std::isfinite(results[i].doppler_hz));
        CPPUNIT_ASSERT(std::isfinite(results[i].code_phase_chips) &&
                       results[i].code_phase_chips >= 0.0);
    }
}

inline core::gnss_simulated_satellite gps_satellite(const truth& t)
{
    core::gnss_simulated_satellite s;
    s.code = core::gps_l1ca_code(t.satellite);
    s.code_phase_chips = t.code_phase_chips;
    s.doppler_hz = t.doppler_hz;
    s.cn0_dbhz = t.cn0_dbhz;
    s.carrier_phase_rad = 0.1 * t.satellite;
    return s;
}

inline core::gnss_simulated_satellite galileo_satellite(const truth& t)
{
    core::gnss_simulated_satellite s;
    s.code = core::boc11_expand(
        core::galileo_e1_code(t.satellite, core::galileo_e1_component::b));
    s.pilot_code = core::boc11_expand(
        core::galileo_e1_code(t.satellite, core::galileo_e1_component::c));
    s.code_entries_per_chip = 2;
    s.chip_rate_cps = core::galileo_e1_chip_rate_cps;
    s.code_phase_chips = t.code_phase_chips;
    s.doppler_hz = t.doppler_hz;
    s.cn0_dbhz = t.cn0_dbhz;
    s.code_periods_per_bit = 1;
    return s;
}

inline std::vector<std::complex<float>>
simulate(double fs,
         const std::vector<core::gnss_simulated_satellite>& sats,
         std::size_t n,
         std::uint64_t seed)
{
    core::gnss_simulator_config c;
    c.sample_rate_hz = fs;
    c.seed = seed;
    core::gnss_signal_simulator sim(c, sats);
    std::vector<std::complex<float>> x(n);
    sim.generate(x.data(), n);
    return x;
}

inline std::vector<std::complex<float>> read_cf32(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    std::vector<std::complex<float>> x;
    std::complex<float> v;
    while (f.read(reinterpret_cast<char*>(&v), sizeof v))
        x.push_back(v);
    return x;
}

/*!
 * Independent float64 reference: the lag (0 .. period - 1) of the largest power of the
 * time-domain correlation of \p x's first \p periods code periods with the code
 * table (entries per chip \p epc, sampled at floor(m rate epc / fs)) at \p doppler_hz.
 */
inline std::size_t reference_lag(const std::vector<std::complex<float>>& x,
                                 const std::vector<std::int8_t>& table,
                                 int epc,
                                 double chip_rate,
                                 double fs,
                                 double doppler_hz,
                                 std::size_t period,
                                 std::size_t periods)
{
    const std::size_t n = period * periods;
    std::vector<std::complex<double>> wiped(n);
    for (std::size_t i = 0; i < n; ++i)
        wiped[i] = std::complex<double>(x[i].real(), x[i].imag()) *
                   std::polar(1.0, -2.0 * pi * doppler_hz * static_cast<double>(i) / fs);
    std::vector<double> code(n + period);
    for (std::size_t m = 0; m < n + period; ++m)
        code[m] = table[static_cast<std::size_t>(std::floor(m * chip_rate * epc / fs)) %
                        table.size()];
    std::size_t best = 0;
    double best_power = -1.0;
    for (std::size_t lag = 0; lag < period; ++lag) {
        double power = 0.0;
        for (std::size_t p = 0; p < periods; ++p) {
            std::complex<double> s = 0.0;
            for (std::size_t i = 0; i < period; ++i) {
                const std::size_t n_abs = p * period + i;
                // x at n correlates with code(n - lag), periodic in one period
                const std::size_t m = (n_abs + period - lag) % period;
                s += wiped[n_abs] * code[m];
            }
            power += std::norm(s);
        }
        if (power > best_power) {
            best_power = power;
            best = lag;
        }
    }
    return best;
}

inline std::size_t lag_distance(double a, double b, double period)
{
    const double d = std::fmod(std::abs(a - b), period);
    return static_cast<std::size_t>(std::lround(std::min(d, period - d)));
}

inline void expect_invalid(const pcps_acquisition_config& c, const std::string& field)
{
    try {
        c.validate();
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        if (what.rfind(field + ":", 0) != 0)
            CPPUNIT_FAIL("expected an error naming " + field + ", got: " + what);
        return;
    }
    CPPUNIT_FAIL("expected std::invalid_argument naming " + field);
}


} // namespace qa_pcps_acquisition_cases
} // namespace cudadsp
} // namespace gr

#endif // INCLUDED_QA_PCPS_ACQUISITION_SUPPORT_H
