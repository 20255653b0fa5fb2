/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// PCPS acquisition engine on real recordings (GNSS-SDR's test signal samples,
// data/gnss/LICENSE.md): their stated truths and an independent float64
// time-domain correlation written in qa_pcps_acquisition_support.h.

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

class qa_pcps_acquisition_recordings : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_pcps_acquisition_recordings);
    QA_BACKEND_TEST(recording_gps_prn1);
    QA_BACKEND_TEST(recording_galileo_prn1);
    QA_BACKEND_TEST(recording_real_capture);
    CPPUNIT_TEST_SUITE_END();

public:
    void recording_gps_prn1(const std::string& device)
    {
        // K = 1: the recording is simulated and repeats its noise every code period, so
        // two periods' noise is not independent, as the threshold's law assumes.
        const auto x = read_cf32(qa::data_file("gnss/GPS_L1_CA_ID_1_Fs_4Msps_2ms.dat"));
        pcps_acquisition_config c;
        c.noncoherent_dwells = 1;
        c.device = device;
        auto acq = pcps_acquisition::make(c);
        CPPUNIT_ASSERT(x.size() >= c.search_samples());
        const std::vector<int> list = { 1, 2, 3 };
        auto results = poisoned(list.size());
        acq->search(x.data(), c.search_samples(), 0, list, results);
        check_written(results, list);
        const auto& r = results[0];
        std::cerr << "  GPS_L1_CA_ID_1: PRN 1 metric " << r.metric << " delay "
                  << r.delay_samples << " Doppler " << r.doppler_hz << "\n";
        // Stated: delay 524 samples (code start + 1, SoftGNSS convention), 1680 Hz.
        CPPUNIT_ASSERT(r.detected);
        CPPUNIT_ASSERT(std::abs(r.delay_samples + 1.0 - 524.0) <= 1.0);
        CPPUNIT_ASSERT(std::abs(std::abs(r.doppler_hz) - 1680.0) <= 62.5);
        CPPUNIT_ASSERT(!results[1].detected && !results[2].detected);
    }

    void recording_galileo_prn1(const std::string& device)
    {
        const auto x = read_cf32(qa::data_file("gnss/Galileo_E1_ID_1_Fs_4Msps_8ms.dat"));
        pcps_acquisition_config c;
        c.signal = acquisition_signal::galileo_e1;
        c.noncoherent_dwells = 1; // as for the GPS recording: noise repeated per period
        c.doppler_max_hz = 2500;
        c.doppler_step_hz = 125;
        c.device = device;
        auto acq = pcps_acquisition::make(c);
        CPPUNIT_ASSERT(x.size() >= c.search_samples());
        const std::vector<int> list = { 1, 2 };
        auto results = poisoned(list.size());
        acq->search(x.data(), c.search_samples(), 0, list, results);
        check_written(results, list);
        const auto& r = results[0];
        std::cerr << "  Galileo_E1_ID_1: PRN 1 metric " << r.metric << " (threshold "
                  << r.threshold << ") delay " << r.delay_samples << " Doppler "
                  << r.doppler_hz << "\n";
        // Stated: delay 2920 samples (code start + 1), |Doppler| about 632 Hz.
        CPPUNIT_ASSERT(r.detected);
        CPPUNIT_ASSERT(std::abs(r.delay_samples + 1.0 - 2920.0) <= 1.0);
        CPPUNIT_ASSERT(std::abs(std::abs(r.doppler_hz) - 632.0) <= 62.5);
        // PRN 1 is strong (35 dB over the noise floor): PRN 2's grid holds its
        // cross-correlation, at PRN 1's Doppler, some 20 dB down. Whether that crosses
        // the threshold depends on the signal, not on the noise law; what must hold is
        // that it is a cross-correlation, far below PRN 1.
        const auto& x2 = results[1];
        std::cerr << "  Galileo_E1_ID_1: PRN 2 metric " << x2.metric << " Doppler "
                  << x2.doppler_hz << "\n";
        CPPUNIT_ASSERT(x2.metric < 0.02 * r.metric);
        CPPUNIT_ASSERT(!x2.detected || std::abs(x2.doppler_hz - r.doppler_hz) <= 10.0);
    }

    void recording_real_capture(const std::string& device)
    {
        const auto x =
            read_cf32(qa::data_file("gnss/GSoC_CTTC_capture_2012_07_26_4Msps_4ms.dat"));
        pcps_acquisition_config c;
        c.noncoherent_dwells = 4;
        c.doppler_max_hz = 15000;
        c.device = device;
        auto acq = pcps_acquisition::make(c);
        CPPUNIT_ASSERT(x.size() >= c.search_samples());
        std::vector<int> list;
        for (int p = 1; p <= 32; ++p)
            list.push_back(p);
        auto results = poisoned(list.size());
        acq->search(x.data(), c.search_samples(), 0, list, results);
        check_written(results, list);
        std::set<int> found;
        for (const auto& r : results) {
            if (!r.detected)
                continue;
            found.insert(r.satellite);
            std::cerr << "  GSoC capture: PRN " << r.satellite << " metric " << r.metric
                      << " (threshold " << r.threshold << ") delay " << r.delay_samples
                      << " Doppler " << r.doppler_hz << " C/N0 " << r.cn0_dbhz << "\n";
            // The delay against the independent float64 correlation at that Doppler.
            const std::size_t lag = reference_lag(x,
                                                  core::gps_l1ca_code(r.satellite),
                                                  1,
                                                  1.023e6,
                                                  4e6,
                                                  r.doppler_hz,
                                                  4000,
                                                  4);
            CPPUNIT_ASSERT(
                lag_distance(static_cast<double>(lag), r.delay_samples, 4000) <= 1);
        }
        for (int prn : { 29, 25, 12, 31 })
            CPPUNIT_ASSERT_MESSAGE("PRN " + std::to_string(prn), found.count(prn) == 1);
        // Nothing else but the weak PRN 2 (gnss_acquisition.py: 1.3 x its threshold) and
        // PRN 30 near 12.7 kHz (there 0.87 x: a weak signal, whose delay the float64
        // check above confirms).
        for (int prn : found)
            CPPUNIT_ASSERT(prn == 29 || prn == 25 || prn == 12 || prn == 31 || prn == 2 ||
                           prn == 30);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_pcps_acquisition_recordings);

} // namespace cudadsp
} // namespace gr
