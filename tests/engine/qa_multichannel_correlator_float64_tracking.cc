/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_multichannel_correlator_float64: tracking a simulated sky on the CUDA backend, its
// lock and data-bit outcomes the CPU backend's.

#include "qa_gnss_reference.h"
#include "qa_multichannel_correlator_float64.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <algorithm>
#include <complex>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using cfloat = std::complex<float>;

using multichannel_correlator_float64_qa::e1_boc_table;
using multichannel_correlator_float64_qa::make_config;
using qa::measure_tracking;
using qa::sky_satellite;
using qa::tracking_channel;
using qa::tracking_quality;

/*!
 * GPS satellites at 35 to 50 dB-Hz with Doppler rates and data bits, one with a
 * 3rd-order PLL, and a Galileo E1 satellite.
 */
std::vector<sky_satellite> tracking_sky()
{
    // PRN, C/N0, Doppler, rate, code and carrier phase, code and Doppler errors,
    // 3rd-order PLL.
    std::vector<sky_satellite> sky = {
        { 6, 40.0, 2210.0, 1.0, 411.2, 0.3 * 6, 0.2, 50.0, false },
        { 19, 40.0, -2870.0, -3.0, 15.7, 0.3 * 19, -0.25, -60.0, false },
        { 22, 35.0, 640.0, 2.0, 987.0, 0.3 * 22, 0.1, 30.0, false },
        { 27, 50.0, -410.0, -1.0, 512.5, 0.3 * 27, 0.2, -70.0, false },
        { 9, 45.0, 3300.0, 2.5, 77.7, 0.3 * 9, -0.15, 40.0, true },
    };
    sky_satellite e1{ 7, 42.0, -1500.0, 1.0, 1999.5, 0.3 * 7, 0.05, 30.0, false };
    e1.e1b_table = e1_boc_table(7, galileo_e1_component::b);
    e1.e1c_table = e1_boc_table(7, galileo_e1_component::c);
    sky.push_back(e1);
    return sky;
}

} // namespace

/*!
 * Tracking on a simulated sky (GPS at 35 to 50 dB-Hz with Doppler rates and data
 * bits, one Galileo E1 pilot), 2.5 s, on both backends from the same input: from
 * 0.5 s on, every CUDA epoch in code and carrier lock, code phase RMS < 0.05 chip,
 * Doppler RMS < 5 Hz, data bits right; and the CPU backend's lock and bit
 * outcomes the same.
 */
void qa_multichannel_correlator_float64::tracking_simulated_sky_against_cpu(
    const std::string&)
{
    const double fs = 4e6, seconds = 2.5, settle = 0.5;
    const std::vector<sky_satellite> sky = tracking_sky();
    gnss_signal_simulator sim = qa::simulate_sky(sky, fs, 404);
    auto cuda = multichannel_correlator::make(make_config("cuda", fs));
    auto cpu = multichannel_correlator::make(make_config("cpu", fs));
    for (std::size_t i = 0; i < sky.size(); ++i) {
        const gnss_channel c = tracking_channel(sky[i], static_cast<std::uint32_t>(i));
        cuda->add_channel(c);
        cpu->add_channel(c);
    }
    const std::size_t total = static_cast<std::size_t>(seconds * fs);
    const std::size_t chunk = 400009;
    std::vector<cfloat> x(chunk);
    gnss_correlator_results rg, rc;
    for (std::size_t done = 0; done < total; done += chunk) {
        const std::size_t m = std::min(chunk, total - done);
        sim.generate(x.data(), m);
        cuda->process(x.data(), m, rg);
        cpu->process(x.data(), m, rc);
    }
    for (std::size_t i = 0; i < sky.size(); ++i) {
        const sky_satellite& s = sky[i];
        const tracking_quality g = measure_tracking(rg, sim, i, s, fs, settle);
        const tracking_quality c = measure_tracking(rc, sim, i, s, fs, settle);
        std::cout << "qa_multichannel_correlator_float64: "
                  << (s.galileo() ? "E1 PRN " : "L1 PRN ") << s.prn << " at "
                  << s.cn0_dbhz << " dB-Hz: cuda code RMS " << g.code_rms_chips
                  << " chip, Doppler RMS " << g.doppler_rms_hz << " Hz, " << g.unlocked
                  << " of " << g.epochs << " unlocked, " << g.bit_errors << " of "
                  << g.decoded_bits.size() << " bits wrong; cpu code RMS "
                  << c.code_rms_chips << ", Doppler RMS " << c.doppler_rms_hz << ", "
                  << c.unlocked << " unlocked, " << c.bit_errors << " bits wrong"
                  << std::endl;
        CPPUNIT_ASSERT(s.galileo() ? g.epochs >= 490 : g.epochs >= 1990);
        CPPUNIT_ASSERT_EQUAL(std::size_t(0), g.unlocked);
        CPPUNIT_ASSERT(g.code_rms_chips < 0.05);
        CPPUNIT_ASSERT(g.doppler_rms_hz < 5.0);
        CPPUNIT_ASSERT_EQUAL(c.unlocked, g.unlocked);
        if (!s.galileo()) {
            CPPUNIT_ASSERT(g.decoded_bits.size() >= 95);
            CPPUNIT_ASSERT_EQUAL(std::size_t(0), g.bit_errors);
            CPPUNIT_ASSERT(g.decoded_bits == c.decoded_bits);
        }
    }
}

} // namespace core
} // namespace cudadsp
} // namespace gr
