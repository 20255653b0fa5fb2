/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// KDP engine, CPU and CUDA backends, against known truth. Rain cells are Gaussian KDP
// bumps along each radial (0.5 to 3 deg/km); the true PhiDP is a system offset near
// +-175 deg plus twice the integral of KDP (computed in closed form with erf), so every
// radial wraps through 180 deg. The measured PhiDP is the truth plus Gaussian noise,
// wrapped to (-180, 180] and rounded to float32. The errors are measured against the
// truth, never against the engine's own rule:
//
// - KDP over the rain cells (true KDP > 0.1 deg/km) at the default 3 km window, with
//   150 m gates: RMS < 0.30 deg/km at 2 deg PhiDP noise and < 0.55 deg/km at 4 deg
//   (measured 0.25 and 0.48 over 40 radials of 1000 gates: the least-squares slope's
//   noise, 0.5 sigma sqrt(12 / (N (N^2 - 1))) / dr with N = 21 gates, is 0.24 and
//   0.48 deg/km; the smoothing of the bumps and the one-sided windows at the radials'
//   ends add a little); bias within 0.05 deg/km.
// - Processed PhiDP, modulo 360: RMS error < 1.0 deg at 2 deg noise and < 2.0 deg at
//   4 deg (measured 0.53 and 0.94: about a 21-gate mean of the noise), and the output
//   never jumps by 360 (nor by 30) deg between neighbouring gates.
// - Masks and gaps on noise-free profiles, where the least-squares line is exact:
//   KDP within 1e-4 deg/km of the truth wherever it is defined.
// - CPU and CUDA outputs bit for bit equal (shared rule, kdp_rule.h), through host and
//   device pointers and any chunking.

#include "qa_support.h"
#include "runtime/cuda_resources.h"
#include <gnuradio/cudadsp/core/kdp.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using qa::gaussian_source;

const double nan = std::numeric_limits<double>::quiet_NaN();
const double pi = 3.14159265358979323846;

//! Degrees into (-180, 180].
double wrap_deg(double x)
{
    double y = std::fmod(x, 360.0);
    if (y > 180.0)
        y -= 360.0;
    if (y <= -180.0)
        y += 360.0;
    return y;
}

//! Known truth of a set of radials: KDP (deg/km) and PhiDP (deg, unwrapped).
struct truth {
    std::size_t ngates = 0;
    std::vector<double> kdp;
    std::vector<double> phidp;
};

/*!
 * Per radial: 2 to 4 Gaussian KDP cells, peak 0.5 to 3 deg/km, standard deviation 1.5
 * to 4 km, centres anywhere along the radial; system offset 165 to 195 deg (so about
 * half of the radials start above 180, i.e. near -170 wrapped).
 */
truth rain_cells(std::size_t ngates,
                 double gate_spacing_m,
                 std::size_t nradials,
                 std::uint64_t seed)
{
    gaussian_source rng(seed);
    truth t;
    t.ngates = ngates;
    t.kdp.resize(ngates * nradials);
    t.phidp.resize(ngates * nradials);
    const double dr_km = gate_spacing_m / 1000.0;
    const double length_km = dr_km * static_cast<double>(ngates);
    for (std::size_t r = 0; r < nradials; ++r) {
        const double offset = rng.uniform(165.0, 195.0);
        const long ncells = rng.integer(2, 4);
        std::vector<double> peak(ncells), centre(ncells), width(ncells);
        for (long c = 0; c < ncells; ++c) {
            peak[c] = rng.uniform(0.5, 3.0);
            centre[c] = rng.uniform(0.1, 0.9) * length_km;
            width[c] = rng.uniform(1.5, 4.0);
        }
        for (std::size_t g = 0; g < ngates; ++g) {
            const double range = static_cast<double>(g) * dr_km;
            double kdp = 0.0, integral = 0.0;
            for (long c = 0; c < ncells; ++c) {
                const double z = (range - centre[c]) / width[c];
                kdp += peak[c] * std::exp(-0.5 * z * z);
                // Integral of the bump from range 0 to here.
                const double s = width[c] * std::sqrt(2.0);
                integral +=
                    peak[c] * width[c] * std::sqrt(pi / 2.0) *
                    (std::erf((range - centre[c]) / s) - std::erf(-centre[c] / s));
            }
            t.kdp[r * ngates + g] = kdp;
            t.phidp[r * ngates + g] = offset + 2.0 * integral;
        }
    }
    return t;
}

//! The truth measured: Gaussian noise of \p noise_deg, wrapped, rounded to float32.
std::vector<float> measure(const truth& t, double noise_deg, std::uint64_t seed)
{
    gaussian_source rng(seed);
    std::vector<float> out(t.phidp.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        // The real part of a circular complex normal of power 2 is N(0, 1).
        const double noise = noise_deg * rng.complex_normal(2.0).real();
        out[i] = static_cast<float>(wrap_deg(t.phidp[i] + noise));
    }
    return out;
}

struct outputs {
    std::vector<float> phidp, kdp;
    explicit outputs(std::size_t n) : phidp(n, qa::poison_value), kdp(n, qa::poison_value)
    {
    }
};

kdp_config make_config(const std::string& device, std::size_t ngates)
{
    kdp_config c;
    c.ngates = ngates;
    c.device = device;
    return c;
}

outputs run(kdp_processor& engine,
            const std::vector<float>& phidp,
            const std::vector<float>* rhohv = nullptr,
            const std::vector<float>* snr = nullptr)
{
    const std::size_t n = phidp.size();
    outputs out(n);
    engine.process(phidp.data(),
                   rhohv ? rhohv->data() : nullptr,
                   snr ? snr->data() : nullptr,
                   n / engine.config().ngates,
                   out.phidp.data(),
                   out.kdp.data());
    return out;
}

void assert_no_poison(const outputs& out, const std::string& what)
{
    for (std::size_t i = 0; i < out.kdp.size(); ++i)
        if (out.kdp[i] == qa::poison_value || out.phidp[i] == qa::poison_value)
            CPPUNIT_FAIL(what + ": element " + std::to_string(i) + " never written");
}

void assert_identical(const outputs& a, const outputs& b, const std::string& what)
{
    CPPUNIT_ASSERT_EQUAL_MESSAGE(what, a.kdp.size(), b.kdp.size());
    for (std::size_t i = 0; i < a.kdp.size(); ++i)
        if (std::memcmp(&a.kdp[i], &b.kdp[i], sizeof(float)) != 0 ||
            std::memcmp(&a.phidp[i], &b.phidp[i], sizeof(float)) != 0)
            CPPUNIT_FAIL(what + ": element " + std::to_string(i) + " differs: KDP " +
                         std::to_string(a.kdp[i]) + " vs " + std::to_string(b.kdp[i]) +
                         ", PhiDP " + std::to_string(a.phidp[i]) + " vs " +
                         std::to_string(b.phidp[i]));
}

//! Error statistics over the rain cells.
struct rain_errors {
    double kdp_rms = 0.0, kdp_bias = 0.0, phidp_rms = 0.0, largest_step = 0.0;
    std::size_t gates = 0;
};

rain_errors errors_against_truth(const truth& t, const outputs& out)
{
    rain_errors e;
    double phidp_sum2 = 0.0, kdp_sum = 0.0, kdp_sum2 = 0.0;
    for (std::size_t i = 0; i < t.kdp.size(); ++i) {
        if (i % t.ngates > 0)
            e.largest_step =
                std::max(e.largest_step,
                         std::fabs(double(out.phidp[i]) - double(out.phidp[i - 1])));
        if (!(t.kdp[i] > 0.1))
            continue;
        const double kdp_error = double(out.kdp[i]) - t.kdp[i];
        const double phidp_error = wrap_deg(double(out.phidp[i]) - t.phidp[i]);
        kdp_sum += kdp_error;
        kdp_sum2 += kdp_error * kdp_error;
        phidp_sum2 += phidp_error * phidp_error;
        ++e.gates;
    }
    e.kdp_bias = kdp_sum / e.gates;
    e.kdp_rms = std::sqrt(kdp_sum2 / e.gates);
    e.phidp_rms = std::sqrt(phidp_sum2 / e.gates);
    return e;
}

//! A noise-free PhiDP profile: offset + 2 kdp r, wrapped, as float32.
std::vector<float>
linear_profile(std::size_t ngates, double offset, double kdp, double dr_km)
{
    std::vector<float> x(ngates);
    for (std::size_t g = 0; g < ngates; ++g)
        x[g] = static_cast<float>(wrap_deg(offset + 2.0 * kdp * dr_km * double(g)));
    return x;
}

} // namespace

class qa_kdp : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_kdp);
    CPPUNIT_TEST(bad_configuration_names_the_field);
    CPPUNIT_TEST(window_and_gap_in_gates);
    CPPUNIT_TEST(cpu_engine_has_no_device_entry);
    QA_BACKEND_TEST(rain_cells_against_truth);
    QA_BACKEND_TEST(masks_and_gaps);
    QA_BACKEND_TEST(out_of_range_phidp_is_masked);
    QA_BACKEND_TEST(offset_near_180_stays_continuous);
    QA_BACKEND_TEST(zero_radials);
    QA_CUDA_TEST(cuda_matches_cpu_bit_for_bit);
    QA_CUDA_TEST(device_pointers_and_chunking);
    QA_CUDA_TEST(engines_of_different_sizes_share_the_kernel);
    CPPUNIT_TEST_SUITE_END();

public:
    void bad_configuration_names_the_field()
    {
        auto expect = [](const std::string& field, auto change) {
            kdp_config c = make_config("cpu", 100);
            change(c);
            try {
                kdp_processor::make(c);
            } catch (const std::invalid_argument& e) {
                const std::string message = e.what();
                CPPUNIT_ASSERT_MESSAGE(message, message.rfind(field + ":", 0) == 0);
                return;
            }
            CPPUNIT_FAIL(field + ": accepted");
        };
        expect("ngates", [](kdp_config& c) { c.ngates = 0; });
        expect("gate_spacing_m", [](kdp_config& c) { c.gate_spacing_m = 0.0; });
        expect("gate_spacing_m", [](kdp_config& c) { c.gate_spacing_m = nan; });
        expect("window_km", [](kdp_config& c) { c.window_km = 0.1; }); // < 2 gates
        expect("window_km", [](kdp_config& c) { c.window_km = -3.0; });
        expect("window_km", [](kdp_config& c) { c.window_km = nan; });
        expect("window_km", [](kdp_config& c) { c.window_km = 30.0; }); // > radial
        expect("max_gap_km", [](kdp_config& c) { c.max_gap_km = -1.0; });
        expect("max_gap_km", [](kdp_config& c) { c.max_gap_km = nan; });
        expect("min_rhohv", [](kdp_config& c) { c.min_rhohv = 1.5; });
        expect("min_rhohv", [](kdp_config& c) { c.min_rhohv = nan; });
        expect("min_snr_db", [](kdp_config& c) { c.min_snr_db = nan; });
        expect("device", [](kdp_config& c) { c.device = "gpu"; });
        // Infinite thresholds are meaningful (keep or mask everything).
        kdp_config c = make_config("cpu", 100);
        c.min_snr_db = -std::numeric_limits<double>::infinity();
        CPPUNIT_ASSERT_NO_THROW(kdp_processor::make(c));
    }

    void window_and_gap_in_gates()
    {
        kdp_config c = make_config("cpu", 1000);
        CPPUNIT_ASSERT_EQUAL(std::size_t(10), c.half_window_gates()); // 3 km, 150 m
        CPPUNIT_ASSERT_EQUAL(std::size_t(6), c.max_gap_gates());      // 1 km
        c.gate_spacing_m = 250.0;
        CPPUNIT_ASSERT_EQUAL(std::size_t(6), c.half_window_gates()); // 6 = round(6.0)
        CPPUNIT_ASSERT_EQUAL(std::size_t(4), c.max_gap_gates());
        c.window_km = 2.5;
        CPPUNIT_ASSERT_EQUAL(std::size_t(5), c.half_window_gates());
    }

    void cpu_engine_has_no_device_entry()
    {
        auto engine = kdp_processor::make(make_config("cpu", 64));
        float x = 0.0f;
        CPPUNIT_ASSERT_THROW(
            engine->process_device(&x, nullptr, nullptr, 1, &x, &x, nullptr),
            std::logic_error);
    }

    void rain_cells_against_truth(const std::string& device)
    {
        const std::size_t G = 1000, R = 40;
        auto engine = kdp_processor::make(make_config(device, G));
        const truth t = rain_cells(G, 150.0, R, 2026);
        struct bound {
            double noise_deg, kdp_rms, phidp_rms;
        };
        for (const bound b : { bound{ 2.0, 0.30, 1.0 }, bound{ 4.0, 0.55, 2.0 } }) {
            const auto out = run(*engine, measure(t, b.noise_deg, 7 + int(b.noise_deg)));
            assert_no_poison(out, device);
            const rain_errors e = errors_against_truth(t, out);
            std::cout << "\n  kdp " << device << ": PhiDP noise " << b.noise_deg
                      << " deg, window 3 km, 150 m gates, " << e.gates
                      << " rain gates: KDP RMS " << std::setprecision(3) << e.kdp_rms
                      << " deg/km (bound " << b.kdp_rms << "), bias " << e.kdp_bias
                      << "; processed PhiDP RMS " << e.phidp_rms << " deg (bound "
                      << b.phidp_rms << "); largest step " << e.largest_step << " deg";
            const std::string what = device + " noise " + std::to_string(b.noise_deg);
            CPPUNIT_ASSERT_MESSAGE(what, e.gates > 5000);
            CPPUNIT_ASSERT_MESSAGE(what + " KDP RMS", e.kdp_rms < b.kdp_rms);
            CPPUNIT_ASSERT_MESSAGE(what + " KDP bias", std::fabs(e.kdp_bias) < 0.05);
            CPPUNIT_ASSERT_MESSAGE(what + " PhiDP RMS", e.phidp_rms < b.phidp_rms);
            // Continuous: never a jump of 360 (nor anything near it) along a radial.
            CPPUNIT_ASSERT_MESSAGE(what + " continuity", e.largest_step < 30.0);
            for (std::size_t i = 0; i < out.kdp.size(); ++i)
                CPPUNIT_ASSERT(std::isfinite(out.kdp[i]) && std::isfinite(out.phidp[i]));
        }
    }

    void masks_and_gaps(const std::string& device)
    {
        // 200 gates of 150 m, h = 10, gaps up to 6 gates filled. PhiDP rises at 3 deg/km
        // (KDP 1.5) from 170 deg, through 180.
        const std::size_t G = 200;
        const double dr = 0.15, kdp = 1.5;
        auto truth_at = [&](std::size_t g) { return 170.0 + 2.0 * kdp * dr * double(g); };
        std::vector<float> phidp = linear_profile(G, 170.0, kdp, dr);
        std::vector<float> rhohv(G, 0.98f), snr(G, 20.0f);
        // Gates 0-2: NaN PhiDP (outside every segment).
        for (std::size_t g = 0; g < 3; ++g)
            phidp[g] = static_cast<float>(nan);
        // Gates 40-45 (6 gates, filled): low RhoHV and a wrong PhiDP.
        for (std::size_t g = 40; g <= 45; ++g) {
            rhohv[g] = 0.5f;
            phidp[g] = -60.0f;
        }
        // Gates 80-86 (7 gates, a break): low SNR and a wrong PhiDP.
        for (std::size_t g = 80; g <= 86; ++g) {
            snr[g] = -2.0f;
            phidp[g] = 20.0f;
        }
        // Gates 120-127 (8, a break) NaN; 128-133 a 6-gate island (< h + 1: NaN);
        // 134-140 NaN again.
        for (std::size_t g = 120; g <= 140; ++g)
            if (g < 128 || g > 133)
                phidp[g] = static_cast<float>(nan);
        // A NaN RhoHV masks too (gate 160, filled).
        rhohv[160] = static_cast<float>(nan);
        phidp[160] = 100.0f;

        auto engine = kdp_processor::make(make_config(device, G));
        const auto out = run(*engine, phidp, &rhohv, &snr);
        assert_no_poison(out, device);
        for (std::size_t g = 0; g < G; ++g) {
            const bool outside = g < 3 || (g >= 80 && g <= 86) || (g >= 120 && g <= 140);
            const std::string what = device + " gate " + std::to_string(g);
            if (outside) {
                CPPUNIT_ASSERT_MESSAGE(
                    what, std::isnan(out.kdp[g]) && std::isnan(out.phidp[g]));
                continue;
            }
            CPPUNIT_ASSERT_MESSAGE(what + " KDP " + std::to_string(out.kdp[g]),
                                   std::fabs(out.kdp[g] - kdp) < 1e-4);
            CPPUNIT_ASSERT_MESSAGE(what + " PhiDP " + std::to_string(out.phidp[g]),
                                   std::fabs(wrap_deg(out.phidp[g] - truth_at(g))) <
                                       1e-3);
        }

        // Without the RhoHV input the wrong PhiDP of gates 40-45 and 160 is used.
        const auto unmasked = run(*engine, phidp, nullptr, &snr);
        CPPUNIT_ASSERT(std::fabs(unmasked.kdp[42] - kdp) > 1.0);
        CPPUNIT_ASSERT(std::fabs(wrap_deg(unmasked.phidp[160] - truth_at(160))) > 3.0);
        // Without the SNR input gates 80-86 are used: no break there, wrong values.
        const auto no_snr = run(*engine, phidp, &rhohv, nullptr);
        CPPUNIT_ASSERT(std::fabs(wrap_deg(no_snr.phidp[83] - truth_at(83))) > 3.0);

        // A longer allowed gap (8 gates) fills the 7- and 8-gate gaps too, and joins
        // the island to its neighbours.
        kdp_config wide = make_config(device, G);
        wide.max_gap_km = 1.25;
        const auto filled = run(*kdp_processor::make(wide), phidp, &rhohv, &snr);
        for (const std::size_t g : { 83, 125, 131, 137 })
            CPPUNIT_ASSERT_MESSAGE(std::to_string(g),
                                   std::fabs(filled.kdp[g] - kdp) < 1e-4);
    }

    void out_of_range_phidp_is_masked(const std::string& device)
    {
        // PhiDP beyond +-kdp_max_abs_phidp_deg is invalid data: the outputs are those
        // of the same radial with NaN there, bit for bit (3e38 gave KDP 1.5e22 deg/km).
        // Within the bound an already unfolded PhiDP (3000 to 3090 deg) is valid data.
        const std::size_t G = 200;
        const double dr = 0.15, kdp = 1.5;
        const std::vector<float> clean = linear_profile(G, 170.0, kdp, dr);
        std::vector<float> hostile = clean, holes = clean;
        const std::pair<std::size_t, float> bad[] = { { 50, 3e38f },   { 51, -3e38f },
                                                      { 90, 3600.5f }, { 91, -3600.5f },
                                                      { 130, -1e5f },  { 160, 1e30f },
                                                      { 161, 1e30f },  { 162, 1e30f },
                                                      { 163, -1e30f }, { 199, 3.4e38f } };
        for (const auto& [g, value] : bad) {
            hostile[g] = value;
            holes[g] = static_cast<float>(nan);
        }
        auto engine = kdp_processor::make(make_config(device, G));
        const auto out = run(*engine, hostile);
        assert_no_poison(out, device);
        assert_identical(out, run(*engine, holes), device + " out-of-range vs NaN");
        for (std::size_t g = 0; g < G; ++g)
            CPPUNIT_ASSERT_MESSAGE(device + " gate " + std::to_string(g) + " KDP " +
                                       std::to_string(out.kdp[g]),
                                   std::isnan(out.kdp[g]) ||
                                       std::fabs(out.kdp[g] - kdp) < 1e-4);

        std::vector<float> unfolded(G);
        for (std::size_t g = 0; g < G; ++g)
            unfolded[g] = static_cast<float>(3000.0 + 2.0 * kdp * dr * double(g));
        CPPUNIT_ASSERT(unfolded[G - 1] < kdp_max_abs_phidp_deg);
        const auto high = run(*engine, unfolded);
        for (std::size_t g = 0; g < G; ++g)
            CPPUNIT_ASSERT_MESSAGE(device + " unfolded gate " + std::to_string(g),
                                   std::fabs(high.kdp[g] - kdp) < 1e-4);
    }

    void offset_near_180_stays_continuous(const std::string& device)
    {
        // KDP 0 at a system offset of +-179.5 deg with 1.5 deg noise: the raw PhiDP flips
        // between about +178 and -178. Bounds: 5 standard deviations of the fit's noise
        // at a radial's ends, where the window is one-sided (0.48 deg/km, 0.85 deg).
        const std::size_t G = 400, R = 8;
        gaussian_source rng(99);
        std::vector<float> phidp(G * R);
        std::vector<double> offset(R);
        for (std::size_t r = 0; r < R; ++r) {
            offset[r] = r % 2 ? 179.5 : -179.5;
            for (std::size_t g = 0; g < G; ++g)
                phidp[r * G + g] = static_cast<float>(
                    wrap_deg(offset[r] + 1.5 * rng.complex_normal(2.0).real()));
        }
        std::size_t flips = 0;
        for (std::size_t i = 1; i < phidp.size(); ++i)
            flips += std::fabs(phidp[i] - phidp[i - 1]) > 180.0f;
        CPPUNIT_ASSERT(flips > 100); // the case exercises the unfolding

        auto engine = kdp_processor::make(make_config(device, G));
        const auto out = run(*engine, phidp);
        for (std::size_t r = 0; r < R; ++r) {
            for (std::size_t g = 0; g < G; ++g) {
                const std::size_t i = r * G + g;
                const std::string what = device + " radial " + std::to_string(r) +
                                         " gate " + std::to_string(g);
                CPPUNIT_ASSERT_MESSAGE(what, std::fabs(out.kdp[i]) < 2.5);
                CPPUNIT_ASSERT_MESSAGE(
                    what, std::fabs(wrap_deg(out.phidp[i] - offset[r])) < 5.0);
                if (g > 0)
                    CPPUNIT_ASSERT_MESSAGE(
                        what, std::fabs(out.phidp[i] - out.phidp[i - 1]) < 5.0);
                // The branch: the radial's first gates' mean lies in (-180, 180].
                CPPUNIT_ASSERT_MESSAGE(what,
                                       out.phidp[i] > -185.0f && out.phidp[i] < 185.0f);
            }
        }
    }

    void zero_radials(const std::string& device)
    {
        auto engine = kdp_processor::make(make_config(device, 50));
        float sentinel = qa::poison_value;
        engine->process(nullptr, nullptr, nullptr, 0, &sentinel, &sentinel);
        CPPUNIT_ASSERT_EQUAL(qa::poison_value, sentinel);
    }

    void cuda_matches_cpu_bit_for_bit(const std::string&)
    {
        // Noisy rain with random masks and NaNs, at several sizes and windows, with and
        // without the optional inputs. 2242 gates is a full-turn radial; 7000 gates
        // needs more than the default 48 KB of shared memory.
        gaussian_source rng(31);
        for (const std::size_t G :
             { std::size_t(37), std::size_t(2242), std::size_t(7000) }) {
            const std::size_t R = G > 5000 ? 20 : 97;
            const truth t = rain_cells(G, 150.0, R, 500 + G);
            std::vector<float> phidp = measure(t, 3.0, 600 + G);
            std::vector<float> rhohv(G * R), snr(G * R);
            for (std::size_t i = 0; i < G * R; ++i) {
                rhohv[i] = static_cast<float>(rng.uniform(0.7, 1.0));
                snr[i] = static_cast<float>(rng.uniform(-5.0, 40.0));
                if (rng.uniform() < 0.01)
                    phidp[i] = static_cast<float>(nan);
            }
            for (const double window : { 1.0, 3.0 }) {
                kdp_config c = make_config("cpu", G);
                c.window_km = std::min(window, 0.15 * double(G - 1) / 2.0);
                auto cpu = kdp_processor::make(c);
                c.device = "cuda";
                auto cuda = kdp_processor::make(c);
                const std::string what = "ngates " + std::to_string(G) + " window " +
                                         std::to_string(c.window_km);
                for (int inputs = 0; inputs < 4; ++inputs) {
                    const auto* r = inputs & 1 ? &rhohv : nullptr;
                    const auto* s = inputs & 2 ? &snr : nullptr;
                    const auto a = run(*cpu, phidp, r, s);
                    const auto b = run(*cuda, phidp, r, s);
                    assert_no_poison(b, what);
                    assert_identical(a, b, what + " inputs " + std::to_string(inputs));
                }
            }
        }
    }

    /*!
     * Two engines whose radials need more than the default 48 KB of shared memory,
     * the smaller one made second: the first must still run (the kernel's limit is
     * the process's, not the engine's; a smaller engine once lowered it under the
     * larger one's launch: cudaErrorInvalidValue), bit for bit as the CPU backend.
     */
    void engines_of_different_sizes_share_the_kernel(const std::string&)
    {
        const std::size_t large = 7000, small = 6200, R = 5;
        const truth t = rain_cells(large, 150.0, R, 901);
        const std::vector<float> phidp = measure(t, 3.0, 902);
        auto cpu = kdp_processor::make(make_config("cpu", large));
        auto first = kdp_processor::make(make_config("cuda", large));
        auto second = kdp_processor::make(make_config("cuda", small));
        const truth u = rain_cells(small, 150.0, R, 903);
        const outputs small_out = run(*second, measure(u, 3.0, 904));
        assert_no_poison(small_out, "the smaller engine");
        const outputs a = run(*cpu, phidp);
        const outputs b = run(*first, phidp);
        assert_no_poison(b, "the larger engine after the smaller one");
        assert_identical(a, b, "the larger engine after the smaller one");
    }

    void device_pointers_and_chunking(const std::string&)
    {
        const std::size_t G = 500, R = 23;
        const truth t = rain_cells(G, 150.0, R, 77);
        const std::vector<float> phidp = measure(t, 2.0, 78);
        std::vector<float> rhohv(G * R, 0.99f);
        for (std::size_t i = 0; i < G * R; i += 37)
            rhohv[i] = 0.3f;
        const auto cpu = run(*kdp_processor::make(make_config("cpu", G)), phidp, &rhohv);

        for (const std::size_t chunk : { 1, 4, 23, 64 }) {
            kdp_config c = make_config("cuda", G);
            c.chunk_radials = chunk;
            assert_identical(cpu,
                             run(*kdp_processor::make(c), phidp, &rhohv),
                             "chunk_radials " + std::to_string(chunk));
        }

        auto engine = kdp_processor::make(make_config("cuda", G));
        const std::size_t n = G * R;
        device_buffer<float> d_phidp(n), d_rhohv(n), d_out_phidp(n), d_out_kdp(n);
        CPPUNIT_ASSERT_EQUAL(
            cudaSuccess,
            cudaMemcpy(d_phidp.get(), phidp.data(), n * 4, cudaMemcpyHostToDevice));
        CPPUNIT_ASSERT_EQUAL(
            cudaSuccess,
            cudaMemcpy(d_rhohv.get(), rhohv.data(), n * 4, cudaMemcpyHostToDevice));
        outputs out(n);
        CPPUNIT_ASSERT_EQUAL(
            cudaSuccess,
            cudaMemcpy(
                d_out_phidp.get(), out.phidp.data(), n * 4, cudaMemcpyHostToDevice));
        CPPUNIT_ASSERT_EQUAL(
            cudaSuccess,
            cudaMemcpy(d_out_kdp.get(), out.kdp.data(), n * 4, cudaMemcpyHostToDevice));
        cuda_stream stream;
        // Two calls on a caller's stream: radials 0-9, then the rest.
        const std::size_t at = 10 * G;
        engine->process_device(d_phidp.get(),
                               d_rhohv.get(),
                               nullptr,
                               10,
                               d_out_phidp.get(),
                               d_out_kdp.get(),
                               stream.get());
        engine->process_device(d_phidp.get() + at,
                               d_rhohv.get() + at,
                               nullptr,
                               R - 10,
                               d_out_phidp.get() + at,
                               d_out_kdp.get() + at,
                               stream.get());
        engine->synchronize();
        CPPUNIT_ASSERT_EQUAL(
            cudaSuccess,
            cudaMemcpy(
                out.phidp.data(), d_out_phidp.get(), n * 4, cudaMemcpyDeviceToHost));
        CPPUNIT_ASSERT_EQUAL(
            cudaSuccess,
            cudaMemcpy(out.kdp.data(), d_out_kdp.get(), n * 4, cudaMemcpyDeviceToHost));
        assert_identical(cpu, out, "device pointers");
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_kdp);

} // namespace core
} // namespace cudadsp
} // namespace gr
