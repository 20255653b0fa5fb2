/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Polarimetric product engine, CPU and CUDA backends: names, modes and the Nyquist
// velocity, configurations refused by field name, calibration changes between calls,
// the alternating mode's cross-polar input, zero radials, unaligned pointers and
// radials split over calls (the float64 reference and its tolerances:
// qa_polarimetric.cc).

#include "qa_float_bits.h"
#include "qa_polarimetric_support.h"
#include "qa_support.h"
#include "runtime/cuda_resources.h"
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

using namespace qa_polarimetric_cases;

class qa_polarimetric_calls : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_polarimetric_calls);
    CPPUNIT_TEST(names_modes_and_nyquist);
    CPPUNIT_TEST(bad_configuration_names_the_field);
    QA_BACKEND_TEST(calibration_changes);
    QA_BACKEND_TEST(alternating_ignores_cross_polar);
    QA_BACKEND_TEST(zero_radials);
    QA_BACKEND_TEST(unaligned_pointers_and_split_calls);
    CPPUNIT_TEST(cpu_engine_has_no_device_entry);
    CPPUNIT_TEST_SUITE_END();

public:
    void names_modes_and_nyquist()
    {
        const char* names[] = { "Zh",    "ZDR",  "V",    "W",  "PhiDP",
                                "RhoHV", "SNRh", "CLUT", "CPA" };
        const char* units[] = { "dBZ", "dB", "m/s", "m/s", "deg", "", "dB", "dB", "" };
        CPPUNIT_ASSERT_EQUAL(9, nproducts);
        CPPUNIT_ASSERT_THROW(product_name(nproducts), std::out_of_range);
        CPPUNIT_ASSERT_THROW(product_unit(-1), std::out_of_range);
        for (int p = 0; p < nproducts; ++p) {
            CPPUNIT_ASSERT_EQUAL(std::string(names[p]), std::string(product_name(p)));
            CPPUNIT_ASSERT_EQUAL(std::string(units[p]), std::string(product_unit(p)));
        }
        CPPUNIT_ASSERT(parse_polarimetric_mode("simultaneous") ==
                       polarimetric_mode::simultaneous);
        CPPUNIT_ASSERT(parse_polarimetric_mode("alternating") ==
                       polarimetric_mode::alternating);
        CPPUNIT_ASSERT_EQUAL(std::string("alternating"),
                             to_string(polarimetric_mode::alternating));
        CPPUNIT_ASSERT_EQUAL(std::string("simultaneous"),
                             to_string(polarimetric_mode::simultaneous));
        polarimetric_config c;
        c.ngates = 3;
        c.wavelength_m = 0.1;
        c.prt_s = 1e-3;
        CPPUNIT_ASSERT_DOUBLES_EQUAL(25.0, c.nyquist_velocity(), 1e-12);
        c.mode = polarimetric_mode::alternating;
        CPPUNIT_ASSERT_DOUBLES_EQUAL(12.5, c.nyquist_velocity(), 1e-12);
        c.first_gate_m = 100.0;
        CPPUNIT_ASSERT_DOUBLES_EQUAL(400.0, c.gate_range_m(2), 1e-12);
        CPPUNIT_ASSERT_EQUAL(std::size_t(108), c.samples_per_radial());
        c.device = "cpu";
        auto engine = polarimetric_processor::make(c);
        CPPUNIT_ASSERT_EQUAL(std::string("cpu"), engine->device().to_string());
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), engine->config().ngates);
    }

    void bad_configuration_names_the_field()
    {
        const polarimetric_config good =
            make_config("cpu", polarimetric_mode::simultaneous, 8, 36);
        auto expect_error = [&](const polarimetric_config& c, const std::string& field) {
            try {
                polarimetric_processor::make(c);
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(field + ": " + e.what(),
                                       std::string(e.what()).find(field) !=
                                           std::string::npos);
                return;
            }
            CPPUNIT_FAIL("no std::invalid_argument for a bad " + field);
        };
        polarimetric_processor::make(good); // the baseline is valid
        good.validate();
        good.calibration.validate();
        polarimetric_calibration bad_cal;
        bad_cal.noise_v = -0.5;
        CPPUNIT_ASSERT_THROW(bad_cal.validate(), std::invalid_argument);
        auto c = good;
        c.ngates = 0;
        expect_error(c, "ngates");
        for (std::size_t M : { 0, 1 }) {
            c = good;
            c.pulses_per_radial = M;
            expect_error(c, "pulses_per_radial");
        }
        for (std::size_t M : { 2, 3, 5, 37 }) {
            c = good;
            c.mode = polarimetric_mode::alternating;
            c.pulses_per_radial = M;
            expect_error(c, "pulses_per_radial");
        }
        c = good;
        c.mode = polarimetric_mode::alternating;
        c.pulses_per_radial = 4;
        polarimetric_processor::make(c);
        for (double bad : { 0.0, -1.0, nan, inf, -inf }) {
            c = good;
            c.wavelength_m = bad;
            expect_error(c, "wavelength_m");
            c = good;
            c.prt_s = bad;
            expect_error(c, "prt_s");
            c = good;
            c.gate_spacing_m = bad;
            expect_error(c, "gate_spacing_m");
        }
        for (double bad : { nan, inf, -inf }) {
            c = good;
            c.calibration.zcal_db = bad;
            expect_error(c, "zcal_db");
            c = good;
            c.calibration.zdr_cal_db = bad;
            expect_error(c, "zdr_cal_db");
            c = good;
            c.calibration.phidp_offset_deg = bad;
            expect_error(c, "phidp_offset_deg");
        }
        c = good;
        c.calibration.snr_threshold_db = nan;
        expect_error(c, "snr_threshold_db");
        // Physical bounds (issue 16 item 9): finite but absurd values are refused, the
        // bounds themselves accepted.
        const struct {
            const char* field;
            double polarimetric_config::*config_field;
            double polarimetric_calibration::*calibration_field;
            double lo, hi;
        } bounded[] = {
            { "wavelength_m", &polarimetric_config::wavelength_m, nullptr, 1e-4, 1e3 },
            { "prt_s", &polarimetric_config::prt_s, nullptr, 1e-7, 10.0 },
            { "zcal_db", nullptr, &polarimetric_calibration::zcal_db, -1000.0, 1000.0 },
            { "zdr_cal_db",
              nullptr,
              &polarimetric_calibration::zdr_cal_db,
              -100.0,
              100.0 },
            { "phidp_offset_deg",
              nullptr,
              &polarimetric_calibration::phidp_offset_deg,
              -360.0,
              360.0 },
            { "noise_h",
              nullptr,
              &polarimetric_calibration::noise_h,
              0.0,
              max_noise_power },
            { "noise_v",
              nullptr,
              &polarimetric_calibration::noise_v,
              0.0,
              max_noise_power },
        };
        for (const auto& b : bounded) {
            auto with = [&](double value) {
                polarimetric_config v = good;
                if (b.config_field)
                    v.*b.config_field = value;
                else
                    v.calibration.*b.calibration_field = value;
                return v;
            };
            for (double bad : { b.lo - std::max(1e-9, std::fabs(b.lo) * 1e-6),
                                b.hi * (1.0 + 1e-6),
                                -1e300,
                                1e300 })
                expect_error(with(bad), b.field);
            for (double ok : { b.lo, b.hi })
                polarimetric_processor::make(with(ok));
        }
        for (double bad : { -1.0, nan, inf }) {
            c = good;
            c.first_gate_m = bad;
            expect_error(c, "first_gate_m");
            c = good;
            c.calibration.noise_h = bad;
            expect_error(c, "noise_h");
            c = good;
            c.calibration.noise_v = bad;
            expect_error(c, "noise_v");
        }
        c = good;
        c.device = "gpu";
        expect_error(c, "device");
        try {
            parse_polarimetric_mode("dual");
            CPPUNIT_FAIL("no std::invalid_argument for mode \"dual\"");
        } catch (const std::invalid_argument& e) {
            CPPUNIT_ASSERT_MESSAGE(
                e.what(), std::string(e.what()).find("mode") != std::string::npos);
        }
        try {
            parse_polarimetric_mode("Simultaneous ", "scan_mode");
            CPPUNIT_FAIL("no std::invalid_argument for mode \"Simultaneous \"");
        } catch (const std::invalid_argument& e) {
            CPPUNIT_ASSERT_MESSAGE(
                e.what(), std::string(e.what()).find("scan_mode") != std::string::npos);
        }
        // A forced CUDA backend is an error only where no device exists.
        if (!qa::cuda_present()) {
            c = good;
            c.device = "cuda";
            CPPUNIT_ASSERT_THROW(polarimetric_processor::make(c), std::runtime_error);
        }
    }

    void calibration_changes(const std::string& device)
    {
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            const std::string what = device + " " + mode_name(mode) + " calibration";
            const std::size_t G = 97, R = 8;
            auto c = make_config(device, mode, G, 36);
            const auto p = simulate(c, R, 99, noise_of(c));
            auto engine = polarimetric_processor::make(c);
            const std::size_t half = R / 2 * c.samples_per_radial();
            const auto first = run(*engine, p.h.data(), p.v.data(), R / 2);
            check_products(reference(c, c.calibration, p.h.data(), p.v.data(), R / 2),
                           first,
                           c,
                           what + " before");

            polarimetric_calibration b;
            b.zcal_db = 12.5;
            b.zdr_cal_db = -1.5;
            b.phidp_offset_deg = -120.0;
            b.noise_h = 0.01;
            b.noise_v = 0.04;
            b.snr_threshold_db = 3.0;
            engine->set_calibration(b);
            CPPUNIT_ASSERT_EQUAL(12.5, engine->calibration().zcal_db);
            CPPUNIT_ASSERT_EQUAL(0.04, engine->config().calibration.noise_v);
            const auto second = run(*engine, p.h.data() + half, p.v.data() + half, R / 2);
            check_products(reference(c, b, p.h.data() + half, p.v.data() + half, R / 2),
                           second,
                           c,
                           what + " after set_calibration");

            // Invalid calibrations throw, naming the field, and change nothing.
            const std::pair<const char*, double polarimetric_calibration::*> fields[] = {
                { "noise_h", &polarimetric_calibration::noise_h },
                { "noise_v", &polarimetric_calibration::noise_v },
            };
            for (const auto& field : fields) {
                for (double bad : { -1.0, nan, inf, -inf }) {
                    polarimetric_calibration worse = b;
                    worse.*field.second = bad;
                    try {
                        engine->set_calibration(worse);
                        CPPUNIT_FAIL(what + ": no exception for " + field.first + " = " +
                                     std::to_string(bad));
                    } catch (const std::invalid_argument& e) {
                        CPPUNIT_ASSERT_MESSAGE(e.what(),
                                               std::string(e.what()).find(field.first) !=
                                                   std::string::npos);
                    }
                }
            }
            const std::pair<const char*, double polarimetric_calibration::*> finite[] = {
                { "zcal_db", &polarimetric_calibration::zcal_db },
                { "zdr_cal_db", &polarimetric_calibration::zdr_cal_db },
                { "phidp_offset_deg", &polarimetric_calibration::phidp_offset_deg },
                { "snr_threshold_db", &polarimetric_calibration::snr_threshold_db },
            };
            for (const auto& field : finite) {
                for (double bad : { nan, inf, -inf }) {
                    // An infinite threshold is documented as meaningful.
                    if (std::string(field.first) == "snr_threshold_db" && std::isinf(bad))
                        continue;
                    polarimetric_calibration worse = b;
                    worse.*field.second = bad;
                    try {
                        engine->set_calibration(worse);
                        CPPUNIT_FAIL(what + ": no exception for " + field.first + " = " +
                                     std::to_string(bad));
                    } catch (const std::invalid_argument& e) {
                        CPPUNIT_ASSERT_MESSAGE(e.what(),
                                               std::string(e.what()).find(field.first) !=
                                                   std::string::npos);
                    }
                }
            }
            CPPUNIT_ASSERT_EQUAL(b.zcal_db, engine->calibration().zcal_db);
            CPPUNIT_ASSERT_EQUAL(b.snr_threshold_db,
                                 engine->calibration().snr_threshold_db);
            CPPUNIT_ASSERT_EQUAL(b.noise_h, engine->calibration().noise_h);
            CPPUNIT_ASSERT_EQUAL(b.noise_v, engine->calibration().noise_v);
            assert_identical(second,
                             run(*engine, p.h.data() + half, p.v.data() + half, R / 2),
                             G,
                             what + " after rejected calibrations");
        }
    }

    void alternating_ignores_cross_polar(const std::string& device)
    {
        // Alternating mode: the seven products come from port 0 alone.
        const std::size_t G = 211, R = 5;
        auto c = make_config(device, polarimetric_mode::alternating, G, 36);
        const auto p = simulate(c, R, 5150, noise_of(c));
        auto engine = polarimetric_processor::make(c);
        const auto base = run(*engine, p, R);
        check_products(reference(c, c.calibration, p.h.data(), p.v.data(), R),
                       base,
                       c,
                       device + " alternating");
        std::vector<cfloat> other(p.v.size());
        gaussian_source rng(6);
        for (auto& x : other)
            x = cfloat(rng.complex_normal(1e6));
        assert_identical(base,
                         run(*engine, p.h.data(), other.data(), R),
                         G,
                         device + " alternating, strong cross-polar");
        std::fill(other.begin(), other.end(), cfloat(0.0f, 0.0f));
        assert_identical(base,
                         run(*engine, p.h.data(), other.data(), R),
                         G,
                         device + " alternating, zero cross-polar");
    }

    void zero_radials(const std::string& device)
    {
        auto c = make_config(device, polarimetric_mode::simultaneous, 16, 36);
        auto engine = polarimetric_processor::make(c);
        product_set out(4);
        auto ptr = out.pointers();
        const cfloat dummy[1] = {};
        engine->process(dummy, dummy, 0, ptr.data());
        engine->process(nullptr, nullptr, 0, ptr.data());
        engine->synchronize();
        for (int p = 0; p < nproducts; ++p)
            for (float f : out.p[p])
                CPPUNIT_ASSERT_EQUAL(qa::poison_nan_bits, bits_of(f));
    }

    void unaligned_pointers_and_split_calls(const std::string& device)
    {
        // Inputs one complex sample off any vector alignment, outputs one float off,
        // and the radials given over several calls of different sizes.
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            const std::size_t G = 130, R = 23, M = 12;
            auto c = make_config(device, mode, G, M);
            const auto p = simulate(c, R, 31337, noise_of(c));
            std::vector<cfloat> h(p.h.size() + 1), v(p.v.size() + 1);
            std::copy(p.h.begin(), p.h.end(), h.begin() + 1);
            std::copy(p.v.begin(), p.v.end(), v.begin() + 1);
            auto engine = polarimetric_processor::make(c);
            product_set shifted(R * G + 1), out(R * G);
            std::array<float*, nproducts> ptr;
            for (int q = 0; q < nproducts; ++q)
                ptr[q] = shifted.p[q].data() + 1;
            engine->process(h.data() + 1, v.data() + 1, R, ptr.data());
            for (int q = 0; q < nproducts; ++q)
                std::copy(shifted.p[q].begin() + 1, shifted.p[q].end(), out.p[q].begin());
            const auto expected = reference(c, c.calibration, p.h.data(), p.v.data(), R);
            check_products(
                expected, out, c, device + " " + mode_name(mode) + " unaligned");

            product_set split(R * G);
            std::size_t done = 0;
            for (std::size_t n : { 1, 5, 0, 10, 7 }) {
                for (int q = 0; q < nproducts; ++q)
                    ptr[q] = split.p[q].data() + done * G;
                const std::size_t at = done * c.samples_per_radial();
                engine->process(p.h.data() + at, p.v.data() + at, n, ptr.data());
                done += n;
            }
            CPPUNIT_ASSERT_EQUAL(R, done);
            assert_identical(
                out, split, G, device + " " + mode_name(mode) + " split calls");
        }
    }

    void cpu_engine_has_no_device_entry()
    {
        auto engine = polarimetric_processor::make(
            make_config("cpu", polarimetric_mode::simultaneous, 4, 8));
        std::vector<cfloat> x(32);
        product_set out(4);
        auto ptr = out.pointers();
        CPPUNIT_ASSERT_THROW(engine->process_device(x.data(), x.data(), 1, ptr.data()),
                             std::logic_error);
        engine->synchronize(); // a no-op on the CPU
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_polarimetric_calls);

} // namespace core
} // namespace cudadsp
} // namespace gr
