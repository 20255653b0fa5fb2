/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// PCPS acquisition engine (core/pcps_acquisition.h) on simulated signals (the
// recordings: _recordings.cc; the threshold, false alarms and refused
// configurations: _rules.cc; one ctest entry, qa_pcps_acquisition).
//
// Truth: the signal simulator's satellites (Doppler, code phase at the first sample).
// Tolerances (simulated, 40..48 dB-Hz, K = 10 x 1 ms GPS):
//  - Doppler within 60 Hz of the truth (the grid step is 500 Hz; the fine search's
//    parabola over step / 8 leaves noise of a few tens of Hz at 40 dB-Hz);
//  - code phase within 0.1 chip (0.4 sample at 4 Msps) of the truth at the first
//    sample (the triangle interpolation leaves about 0.05 chip; code Doppler over the
//    search smears up to 0.065 chip at 10 kHz).
// CPU and CUDA (the [cuda] agreement case): the same detected satellites, peak cells
// and therefore refinements: metrics within 1e-4 relative, code phases within 0.01
// sample, Dopplers within 1 Hz.

#include "gnss/pcps_acquisition_rule.h"
#include "qa_pcps_acquisition_support.h"
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

using namespace qa_pcps_acquisition_cases;

class qa_pcps_acquisition : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_pcps_acquisition);
    QA_BACKEND_TEST(simulated_gps);
    QA_BACKEND_TEST(non_integer_and_high_rates);
    QA_BACKEND_TEST(simulated_galileo);
    QA_BACKEND_TEST(simulated_glonass);
    QA_BACKEND_TEST(galileo_pilot_secondary_code);
    QA_CUDA_TEST(cuda_agrees_with_cpu);
    CPPUNIT_TEST(glonass_frequency_numbers_in_stream);
    CPPUNIT_TEST_SUITE_END();

public:
    void simulated_gps(const std::string& device)
    {
        check_gps(device,
                  4e6,
                  10,
                  { { 3, 1234.5, 100.3, 45 },
                    { 7, -3876.2, 800.9, 42 },
                    { 12, 6420.0, 10.05, 48 },
                    { 19, -8765.4, 512.5, 40 },
                    { 24, 250.0, 1000.0, 44 },
                    { 31, 9100.7, 333.3, 41 } },
                  { 1, 2, 5, 30 },
                  true);
    }

    void non_integer_and_high_rates(const std::string& device)
    {
        const std::vector<truth> t = { { 4, -2222.2, 77.7, 44 },
                                       { 17, 4321.0, 900.2, 42 } };
        // 4.092 Msps is 4 samples a chip: every delay in (t - 1, t] gives the same
        // (unfiltered) samples, so the delay is known to one sample (0.25 chip).
        check_gps(device, 4.092e6, 10, t, { 9 }, false, 0.26);
        check_gps(device, 25e6, 4, t, { 9 }, false);
    }

    void simulated_galileo(const std::string& device)
    {
        const std::vector<truth> truths = { { 1, 432.1, 1000.4, 47 },
                                            { 11, -1543.0, 3001.7, 45 } };
        std::vector<core::gnss_simulated_satellite> sats;
        for (const truth& t : truths)
            sats.push_back(galileo_satellite(t));
        for (bool pilot : { false, true }) {
            pcps_acquisition_config c;
            c.signal = acquisition_signal::galileo_e1;
            c.galileo_pilot = pilot;
            c.doppler_max_hz = 2000;
            c.doppler_step_hz = 125;
            c.noncoherent_dwells = 3;
            c.device = device;
            auto acq = pcps_acquisition::make(c);
            const std::size_t n = c.search_samples();
            auto x = simulate(4e6, sats, n, 11);
            const std::vector<int> list = { 1, 11, 20 };
            auto results = poisoned(list.size());
            acq->search(x.data(), n, 0, list, results);
            check_written(results, list);
            for (const auto& r : results)
                std::cerr << "  Galileo" << (pilot ? " pilot" : " B/C") << " PRN "
                          << r.satellite << " metric " << r.metric << " (threshold "
                          << r.threshold << ") Doppler " << r.doppler_hz << " phase "
                          << r.code_phase_chips << " C/N0 " << r.cn0_dbhz
                          << (r.detected ? " DETECTED" : "") << "\n";
            for (std::size_t i = 0; i < truths.size(); ++i) {
                CPPUNIT_ASSERT(results[i].detected);
                CPPUNIT_ASSERT(std::abs(results[i].doppler_hz - truths[i].doppler_hz) <=
                               30.0);
                CPPUNIT_ASSERT(chip_distance(results[i].code_phase_chips,
                                             truths[i].code_phase_chips,
                                             4092) <= 0.1);
            }
            CPPUNIT_ASSERT(!results[2].detected);
        }
    }

    void simulated_glonass(const std::string& device)
    {
        // One simulator per satellite at its own IF (the FDMA offset), summed: the noise
        // power of the sum is 3 (one unit each), so C/N0 is 4.8 dB below the value set.
        const double fs = 10e6;
        const std::vector<truth> truths = { { -3, 1500.0, 100.25, 50 },
                                            { 5, -2750.0, 400.6, 50 } };
        pcps_acquisition_config c;
        c.signal = acquisition_signal::glonass_l1of;
        c.sample_rate_hz = fs;
        c.doppler_max_hz = 5000;
        c.noncoherent_dwells = 5;
        c.device = device;
        auto acq = pcps_acquisition::make(c);
        const std::size_t n = c.search_samples();
        std::vector<std::complex<float>> x(n, 0.0f);
        for (std::size_t s = 0; s < 3; ++s) {
            core::gnss_simulator_config sc;
            sc.sample_rate_hz = fs;
            sc.seed = 100 + s;
            std::vector<core::gnss_simulated_satellite> sats;
            if (s < truths.size()) {
                core::gnss_simulated_satellite g;
                g.code = core::glonass_l1of_code();
                g.chip_rate_cps = core::glonass_l1of_chip_rate_cps;
                g.carrier_frequency_hz =
                    core::glonass_l1_base_frequency_hz +
                    truths[s].satellite * core::glonass_l1_channel_spacing_hz;
                g.code_phase_chips = truths[s].code_phase_chips;
                g.doppler_hz = truths[s].doppler_hz;
                g.cn0_dbhz = truths[s].cn0_dbhz;
                sats.push_back(g);
                sc.intermediate_frequency_hz =
                    truths[s].satellite * core::glonass_l1_channel_spacing_hz;
            }
            const auto part = simulate_glonass(sc, sats, n);
            for (std::size_t i = 0; i < n; ++i)
                x[i] += part[i];
        }
        const std::vector<int> list = { -3, 5, 0, -7 };
        auto results = poisoned(list.size());
        acq->search(x.data(), n, 0, list, results);
        check_written(results, list);
        for (std::size_t i = 0; i < list.size(); ++i) {
            const auto& r = results[i];
            std::cerr << "  GLONASS k " << r.satellite << " metric " << r.metric
                      << " (threshold " << r.threshold << ") Doppler " << r.doppler_hz
                      << " phase " << r.code_phase_chips
                      << (r.detected ? " DETECTED" : "") << "\n";
            if (i >= truths.size()) {
                CPPUNIT_ASSERT(!r.detected);
                continue;
            }
            CPPUNIT_ASSERT(r.detected);
            CPPUNIT_ASSERT(std::abs(r.doppler_hz - truths[i].doppler_hz) <= 60.0);
            CPPUNIT_ASSERT(chip_distance(r.code_phase_chips,
                                         truths[i].code_phase_chips,
                                         511) <= 0.1);
        }
        const auto f = acq->channel_fields(results[1]);
        CPPUNIT_ASSERT_EQUAL(std::string("glonass_l1of"), f.system);
        CPPUNIT_ASSERT_EQUAL(5, f.frequency_number);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(5 * 562.5e3, f.intermediate_frequency_hz, 1e-6);
    }

    void galileo_pilot_secondary_code(const std::string& device)
    {
        // The pilot alone, its primary code times CS25 (ICD: 0011100000001010110110010,
        // written out here) as one 25-period table; at sample 0 the signal is in period
        // 7, 1000.4 chips into it, so the period that begins at the delay has secondary
        // chip 8.
        const char* cs25 = "0011100000001010110110010";
        const auto c1 =
            core::boc11_expand(core::galileo_e1_code(5, core::galileo_e1_component::c));
        core::gnss_simulated_satellite s;
        for (int p = 0; p < 25; ++p)
            for (auto v : c1)
                s.code.push_back(static_cast<std::int8_t>(cs25[p] == '1' ? -v : v));
        s.code_entries_per_chip = 2;
        s.chip_rate_cps = core::galileo_e1_chip_rate_cps;
        s.code_phase_chips = 7 * 4092 + 1000.4;
        s.doppler_hz = 321.0;
        s.cn0_dbhz = 38.0;
        s.code_periods_per_bit = 0;
        pcps_acquisition_config c;
        c.signal = acquisition_signal::galileo_e1;
        c.galileo_pilot = true;
        c.coherent_periods = 3;
        c.noncoherent_dwells = 2;
        c.doppler_max_hz = 500;
        c.doppler_step_hz = 62.5;
        c.device = device;
        auto acq = pcps_acquisition::make(c);
        const std::size_t n = c.search_samples();
        auto x = simulate(4e6, { s }, n, 21);
        const std::vector<int> list = { 5, 6 };
        auto results = poisoned(list.size());
        acq->search(x.data(), n, 0, list, results);
        check_written(results, list);
        const auto& r = results[0];
        std::cerr << "  Galileo pilot x3 PRN 5 metric " << r.metric << " (threshold "
                  << r.threshold << ") Doppler " << r.doppler_hz << " phase "
                  << r.code_phase_chips << " secondary " << r.secondary_code_phase
                  << "\n";
        CPPUNIT_ASSERT_EQUAL(std::size_t(25 * 17 * 16000), acq->cells());
        CPPUNIT_ASSERT(r.detected);
        CPPUNIT_ASSERT_EQUAL(8, r.secondary_code_phase);
        CPPUNIT_ASSERT(std::abs(r.doppler_hz - 321.0) <= 15.0);
        CPPUNIT_ASSERT(chip_distance(r.code_phase_chips, 1000.4, 4092) <= 0.1);
        CPPUNIT_ASSERT(!results[1].detected);
    }

    static std::vector<std::complex<float>>
    simulate_glonass(const core::gnss_simulator_config& sc,
                     const std::vector<core::gnss_simulated_satellite>& sats,
                     std::size_t n)
    {
        core::gnss_signal_simulator sim(sc, sats);
        std::vector<std::complex<float>> x(n);
        sim.generate(x.data(), n);
        return x;
    }

    void glonass_frequency_numbers_in_stream()
    {
        // Number k lies at k x 562.5 kHz (IF 0); with the +-10 kHz window it fits inside
        // +-fs / 2 for |k| <= 3 at 4 Msps (1.6975 MHz < 2 MHz < 2.26 MHz) and |k| <= 5
        // at 6.625 Msps (2.8225 MHz < 3.3125 MHz < 3.385 MHz).
        struct rate {
            double fs;
            const char* fs_text;
            int lo;
            int hi;
        };
        for (const rate& r :
             { rate{ 4e6, "4000000", -3, 3 }, rate{ 6.625e6, "6625000", -5, 5 } }) {
            pcps_acquisition_config c;
            c.signal = acquisition_signal::glonass_l1of;
            c.sample_rate_hz = r.fs;
            c.noncoherent_dwells = 1;
            std::vector<int> held;
            for (int k = r.lo; k <= r.hi; ++k)
                held.push_back(k);
            CPPUNIT_ASSERT(held == c.satellites_in_stream());
            c.check_satellites(held);
            for (int k : { -7, r.lo - 1, r.hi + 1 }) {
                try {
                    c.check_satellites({ 0, k });
                    CPPUNIT_FAIL("check_satellites accepted " + std::to_string(k));
                } catch (const std::invalid_argument& e) {
                    const std::string what = e.what();
                    CPPUNIT_ASSERT_MESSAGE(what, what.rfind("satellites[1]: ", 0) == 0);
                    CPPUNIT_ASSERT_MESSAGE(
                        what,
                        what.find("frequency number " + std::to_string(k) + " ") !=
                            std::string::npos);
                    CPPUNIT_ASSERT_MESSAGE(what,
                                           what.find(std::string("sample_rate_hz ") +
                                                     r.fs_text) != std::string::npos);
                }
            }
            // The engine's search refuses the same numbers.
            auto acq = pcps_acquisition::make(c);
            std::vector<std::complex<float>> x(c.search_samples(), { 1.0f, 0.5f });
            std::vector<acquisition_detection> results;
            acq->search(x.data(), x.size(), 0, held, results);
            CPPUNIT_ASSERT_EQUAL(held.size(), results.size());
            CPPUNIT_ASSERT_THROW(
                acq->search(x.data(), x.size(), 0, { r.hi + 1 }, results),
                std::invalid_argument);
        }
        // GPS and Galileo: every PRN shares the IF, so the stream holds all or none.
        pcps_acquisition_config gps;
        CPPUNIT_ASSERT_EQUAL(std::size_t(32), gps.satellites_in_stream().size());
        gps.intermediate_frequency_hz = 1.995e6;
        CPPUNIT_ASSERT(gps.satellites_in_stream().empty());
    }

    void cuda_agrees_with_cpu(const std::string& device)
    {
        const std::vector<truth> truths = { { 3, 1234.5, 100.3, 42 },
                                            { 12, 6420.0, 10.05, 45 },
                                            { 19, -8765.4, 512.5, 39 } };
        std::vector<core::gnss_simulated_satellite> sats;
        for (const truth& t : truths)
            sats.push_back(gps_satellite(t));
        pcps_acquisition_config c;
        c.noncoherent_dwells = 10;
        auto x = simulate(4e6, sats, c.search_samples(), 5);
        std::vector<int> list;
        for (int p = 1; p <= 32; ++p)
            list.push_back(p);
        c.device = "cpu";
        auto cpu = pcps_acquisition::make(c);
        c.device = device;
        auto gpu = pcps_acquisition::make(c);
        auto a = poisoned(list.size()), b = poisoned(list.size());
        cpu->search(x.data(), x.size(), 0, list, a);
        gpu->search(x.data(), x.size(), 0, list, b);
        check_written(b, list);
        for (std::size_t i = 0; i < list.size(); ++i) {
            CPPUNIT_ASSERT_EQUAL(a[i].detected, b[i].detected);
            CPPUNIT_ASSERT(std::abs(a[i].metric - b[i].metric) <= 1e-4 * a[i].metric);
            if (!a[i].detected)
                continue;
            CPPUNIT_ASSERT(std::abs(a[i].delay_samples - b[i].delay_samples) <= 0.01);
            CPPUNIT_ASSERT(std::abs(a[i].doppler_hz - b[i].doppler_hz) <= 1.0);
        }
    }

private:
    //! Runs a GPS search over \p truths (plus \p absent PRNs) and checks every truth.
    void check_gps(const std::string& device,
                   double fs,
                   std::size_t dwells,
                   const std::vector<truth>& truths,
                   const std::vector<int>& absent,
                   bool also_int16,
                   double phase_tolerance_chips = 0.1)
    {
        pcps_acquisition_config c;
        c.sample_rate_hz = fs;
        c.noncoherent_dwells = dwells;
        c.device = device;
        auto acq = pcps_acquisition::make(c);
        std::vector<core::gnss_simulated_satellite> sats;
        std::vector<int> list;
        for (const truth& t : truths) {
            sats.push_back(gps_satellite(t));
            list.push_back(t.satellite);
        }
        list.insert(list.end(), absent.begin(), absent.end());
        const std::size_t n = c.search_samples();
        auto x = simulate(fs, sats, n, 7);
        const std::uint64_t first = 123456;
        auto results = poisoned(list.size());
        acq->search(x.data(), n, first, list, results);
        check_written(results, list);
        for (std::size_t i = 0; i < list.size(); ++i) {
            const auto& r = results[i];
            std::cerr << "  " << fs / 1e6 << " Msps PRN " << r.satellite << " metric "
                      << r.metric << " (threshold " << r.threshold << ") Doppler "
                      << r.doppler_hz << " phase " << r.code_phase_chips << " C/N0 "
                      << r.cn0_dbhz << (r.detected ? " DETECTED" : "") << "\n";
            CPPUNIT_ASSERT_EQUAL(first, r.start_sample);
            if (i >= truths.size()) {
                CPPUNIT_ASSERT_MESSAGE("PRN " + std::to_string(r.satellite), !r.detected);
                continue;
            }
            const truth& t = truths[i];
            CPPUNIT_ASSERT_MESSAGE("PRN " + std::to_string(t.satellite), r.detected);
            CPPUNIT_ASSERT_MESSAGE("Doppler of PRN " + std::to_string(t.satellite),
                                   std::abs(r.doppler_hz - t.doppler_hz) <= 60.0);
            CPPUNIT_ASSERT_MESSAGE("code phase of PRN " + std::to_string(t.satellite),
                                   chip_distance(r.code_phase_chips,
                                                 t.code_phase_chips,
                                                 1023) <= phase_tolerance_chips);
            // delay_samples is the same phase, as the time at which chip 0 begins.
            const double delay = (1023.0 - t.code_phase_chips) / r.code_rate_cps * fs;
            CPPUNIT_ASSERT(chip_distance(r.delay_samples, delay, fs * 1e-3) <=
                           phase_tolerance_chips * fs / 1.023e6);
            CPPUNIT_ASSERT(std::abs(r.cn0_dbhz - t.cn0_dbhz) <= 3.0);
        }
        if (!also_int16)
            return;
        // The same signal as int16 I/Q (the noise's sigma per part becomes 300): the
        // same detections.
        core::gnss_simulator_config sc;
        sc.sample_rate_hz = fs;
        sc.seed = 7;
        core::gnss_signal_simulator sim(sc, sats);
        std::vector<std::int16_t> iq(2 * n);
        sim.generate_ci16(iq.data(), n, 300.0 * std::sqrt(2.0));
        auto r16 = poisoned(list.size());
        acq->search(iq.data(), n, first, list, r16);
        check_written(r16, list);
        for (std::size_t i = 0; i < list.size(); ++i) {
            CPPUNIT_ASSERT_EQUAL(results[i].detected, r16[i].detected);
            if (!results[i].detected)
                continue;
            CPPUNIT_ASSERT(std::abs(results[i].doppler_hz - r16[i].doppler_hz) <= 5.0);
            CPPUNIT_ASSERT(chip_distance(results[i].code_phase_chips,
                                         r16[i].code_phase_chips,
                                         1023) <= 0.01);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_pcps_acquisition);

} // namespace cudadsp
} // namespace gr
