/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// PCPS acquisition engine's rules: false alarms on pure noise (false_alarm = 0.01
// per satellite, many satellite-trials; the count within a binomial bound,
// P(Bin(n, 0.01) > bound) < 1e-4), the threshold law, the channel fields of a
// detection, and configurations and searches refused by name.

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

class qa_pcps_acquisition_rules : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_pcps_acquisition_rules);
    QA_BACKEND_TEST(false_alarms_on_noise);
    CPPUNIT_TEST(rejects_bad_config);
    CPPUNIT_TEST(rejects_bad_search);
    CPPUNIT_TEST(threshold_law);
    CPPUNIT_TEST(channel_fields);
    CPPUNIT_TEST_SUITE_END();

public:
    void false_alarms_on_noise(const std::string& device)
    {
        // GPS, K = 1 and K = 4, and Galileo B/C (the max-of-two law): pure noise.
        struct setup {
            acquisition_signal signal;
            std::size_t dwells;
            std::size_t trials;
            std::vector<int> satellites;
        };
        const std::vector<setup> setups = {
            { acquisition_signal::gps_l1ca, 1, 25, {} },
            { acquisition_signal::gps_l1ca, 4, 8, {} },
            { acquisition_signal::galileo_e1, 2, 4, { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 } },
        };
        std::size_t total = 0, alarms = 0;
        qa::gaussian_source noise(99);
        for (const setup& s : setups) {
            pcps_acquisition_config c;
            c.signal = s.signal;
            c.noncoherent_dwells = s.dwells;
            c.false_alarm = 0.01;
            if (s.signal == acquisition_signal::galileo_e1) {
                c.doppler_max_hz = 1000;
                c.doppler_step_hz = 125;
            }
            c.device = device;
            auto acq = pcps_acquisition::make(c);
            std::vector<int> list = s.satellites;
            if (list.empty())
                for (int p = 1; p <= 32; ++p)
                    list.push_back(p);
            const std::size_t n = c.search_samples();
            std::vector<std::complex<float>> x(n);
            double largest = 0.0;
            for (std::size_t t = 0; t < s.trials; ++t) {
                for (auto& v : x) {
                    const auto z = noise.complex_normal(1.0);
                    v = std::complex<float>(static_cast<float>(z.real()),
                                            static_cast<float>(z.imag()));
                }
                auto results = poisoned(list.size());
                acq->search(x.data(), n, t * n, list, results);
                check_written(results, list);
                for (const auto& r : results) {
                    ++total;
                    alarms += r.detected ? 1 : 0;
                    largest = std::max(largest, r.metric / r.threshold);
                }
            }
            std::cerr << "  noise " << core::to_string(s.signal) << " K " << s.dwells
                      << ": largest metric / threshold " << largest << "\n";
        }
        // P(Bin(n, 0.01) > bound) < 1e-4 (Chernoff, n about 1100: mean 11).
        const std::size_t bound =
            static_cast<std::size_t>(0.01 * total + 4.0 * std::sqrt(0.01 * total) + 6.0);
        std::cerr << "  false alarms " << alarms << " of " << total << " (bound " << bound
                  << ")\n";
        CPPUNIT_ASSERT(alarms <= bound);
    }

    void threshold_law()
    {
        // The Gamma tail against its definition by simulation-free identities: K = 1 is
        // an exponential; the max-of-two law at K = 1 is 1 - (1 - e^-x)^2.
        for (double x : { 0.5, 3.0, 12.0 }) {
            CPPUNIT_ASSERT_DOUBLES_EQUAL(
                std::exp(-x), core::pcps_cell_tail(x, 1, 1), 1e-12);
            const double two = 1.0 - std::pow(1.0 - std::exp(-x), 2.0);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0, core::pcps_cell_tail(x, 1, 2) / two, 1e-6);
        }
        // K = 3: e^-x (1 + x + x^2 / 2).
        CPPUNIT_ASSERT_DOUBLES_EQUAL(
            std::exp(-20.0) * (1 + 20 + 200), core::pcps_cell_tail(20.0, 3, 1), 1e-15);
        pcps_acquisition_config c;
        c.noncoherent_dwells = 1;
        c.false_alarm = 1e-3;
        c.device = "cpu";
        auto acq = pcps_acquisition::make(c);
        // K = 1: P(E > x) = Pfa / cells -> x = ln(cells / Pfa).
        CPPUNIT_ASSERT_DOUBLES_EQUAL(
            std::log(static_cast<double>(acq->cells()) / 1e-3), acq->threshold(), 1e-6);
        CPPUNIT_ASSERT_EQUAL(std::size_t(41 * 4000), acq->cells());
    }

    void rejects_bad_config()
    {
        pcps_acquisition_config ok;
        ok.validate();
        auto c = ok;
        c.sample_rate_hz = 1e6;
        expect_invalid(c, "sample_rate_hz");
        c.sample_rate_hz = std::nan("");
        expect_invalid(c, "sample_rate_hz");
        c = ok;
        c.sample_rate_hz = 4.0001e6; // 4000.1 samples per ms: slips 1 sample over K = 10
        expect_invalid(c, "sample_rate_hz");
        c = ok;
        c.intermediate_frequency_hz = 2.5e6;
        expect_invalid(c, "intermediate_frequency_hz");
        c = ok;
        c.doppler_step_hz = 0.0;
        expect_invalid(c, "doppler_step_hz");
        c.doppler_step_hz = 1.0;
        expect_invalid(c, "doppler_step_hz"); // 20001 bins
        c = ok;
        c.doppler_max_hz = -1.0;
        expect_invalid(c, "doppler_max_hz");
        c = ok;
        c.coherent_periods = 0;
        expect_invalid(c, "coherent_periods");
        c.coherent_periods = 21;
        expect_invalid(c, "coherent_periods");
        c = ok;
        c.signal = acquisition_signal::galileo_e1;
        c.coherent_periods = 2;
        expect_invalid(c, "coherent_periods");
        c.galileo_pilot = true;
        c.validate();
        c.coherent_periods = 26;
        expect_invalid(c, "coherent_periods");
        c = ok;
        c.galileo_pilot = true;
        expect_invalid(c, "galileo_pilot");
        c = ok;
        c.noncoherent_dwells = 0;
        expect_invalid(c, "noncoherent_dwells");
        for (double pfa : { 0.0, 1.0, -0.1, std::nan("") }) {
            c = ok;
            c.false_alarm = pfa;
            expect_invalid(c, "false_alarm");
        }
        try {
            core::parse_acquisition_signal("gps_l2c");
            CPPUNIT_FAIL("parse_acquisition_signal accepted gps_l2c");
        } catch (const std::invalid_argument& e) {
            CPPUNIT_ASSERT(std::string(e.what()).rfind("signal:", 0) == 0);
        }
        c = ok;
        c.device = "gpu";
        try {
            pcps_acquisition::make(c);
            CPPUNIT_FAIL("make accepted device gpu");
        } catch (const std::invalid_argument& e) {
            CPPUNIT_ASSERT(std::string(e.what()).find("device") != std::string::npos);
        }
    }

    void rejects_bad_search()
    {
        // field: "nsamples:", "satellites:" (the list) or "satellites[1]:" (an entry).
        auto expect = [](const std::string& field, const std::function<void()>& f) {
            try {
                f();
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(e.what(),
                                       std::string(e.what()).rfind(field, 0) == 0);
                return;
            }
            CPPUNIT_FAIL("expected an error naming " + field);
        };
        pcps_acquisition_config c;
        c.noncoherent_dwells = 1;
        c.device = "cpu";
        auto acq = pcps_acquisition::make(c);
        std::vector<std::complex<float>> x(c.search_samples(), { 1.0f, 0.5f });
        std::vector<acquisition_detection> r;
        expect("nsamples:", [&] { acq->search(x.data(), x.size() - 1, 0, { 1 }, r); });
        expect("satellites:", [&] { acq->search(x.data(), x.size(), 0, {}, r); });
        expect("satellites[0]:", [&] { acq->search(x.data(), x.size(), 0, { 0 }, r); });
        expect("satellites[0]:", [&] { acq->search(x.data(), x.size(), 0, { 33 }, r); });
        expect("satellites[2]:", [&] {
            acq->search(x.data(), x.size(), 0, { 4, 5, 4 }, r);
        });
        c.signal = acquisition_signal::glonass_l1of;
        auto glo = pcps_acquisition::make(c);
        std::vector<std::complex<float>> y(c.search_samples(), { 1.0f, 0.5f });
        expect("satellites[0]:", [&] { glo->search(y.data(), y.size(), 0, { 7 }, r); });
        // -7 lies at -3.94 MHz: outside a 4 Msps stream.
        expect("satellites[0]:", [&] { glo->search(y.data(), y.size(), 0, { -7 }, r); });
    }

    void channel_fields()
    {
        pcps_acquisition_config c;
        c.signal = acquisition_signal::galileo_e1;
        c.device = "cpu";
        c.noncoherent_dwells = 1;
        auto acq = pcps_acquisition::make(c);
        acquisition_detection d;
        d.satellite = 11;
        d.code_phase_chips = 123.5;
        d.doppler_hz = -250.0;
        d.start_sample = 98765;
        const auto f = acq->channel_fields(d);
        CPPUNIT_ASSERT_EQUAL(std::string("galileo_e1c"), f.system);
        CPPUNIT_ASSERT_EQUAL(11, f.prn);
        CPPUNIT_ASSERT(f.boc);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(98765), f.start_sample);
        CPPUNIT_ASSERT_EQUAL(123.5, f.code_phase_chips);
        CPPUNIT_ASSERT_EQUAL(-250.0, f.doppler_hz);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_pcps_acquisition_rules);

} // namespace cudadsp
} // namespace gr
