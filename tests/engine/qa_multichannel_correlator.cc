/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Multichannel GNSS correlator engine, every case defined once and run on the CPU and
// the CUDA backend (the CUDA backend's own cases are in
// qa_multichannel_correlator_float64).
//
// References, written here from the definitions in lib/core/gnss/gnss_nco.h (not from
// its code): the code NCO is P(n) = P0 + n S in units of 2^-32 table entries, with
// S = round(rate * epc / fs * 2^32) and P0 = floor(phase * epc * 2^32); an epoch of K
// periods of L entries holds the samples with P(n) < E = K L 2^32; tap k at sample n
// uses entry floor((P(n) + shift_k) / 2^32) mod L, shift_k = -round(offset_k * epc *
// 2^32); the carrier NCO is a uint32 phase stepping by round(f / fs * 2^32), the replica
// exp(-j 2 pi phase / 2^32). The test computes all of it with its own integer code
// (__int128 floor division, long double rounding) and sums the reference correlations
// in float64.
//
// Tolerances. The engine sums float32 products in blocks and float64 across blocks, and
// evaluates the carrier in float32 (error below 3.2e-7); the reference is float64. For
// an epoch the natural scale of a correlator value is sqrt(sum |x|^2) over its samples
// (the size of a noise sum): the engine must agree within 1e-4 of max(|reference|,
// that scale). One wrong chip would move a value by 2 |x[n]|, about 3 % of that scale
// for an epoch of 4000 samples, so the check also pins every chip choice.
//
// Tracking runs on gnss_signal_simulator signals (truth known at every sample).

#include "qa_gnss_reference.h"
#include "qa_support.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <chrono>
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

namespace {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;
using int128 = __int128;

const long double two32 = 4294967296.0L;

using qa::measure_tracking;
using qa::open_loop_channel;
using qa::poison;
using qa::records_of;
using qa::reference_correlate;
using qa::reference_epoch;
using qa::same_bits;
using qa::sky_satellite;
using qa::strip_poison;
using qa::tracking_channel;
using qa::tracking_quality;

// ---------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------

multichannel_correlator_config
make_config(const std::string& device,
            double fs,
            std::size_t taps = 3,
            gnss_sample_format format = gnss_sample_format::cf32)
{
    multichannel_correlator_config config;
    config.device = device;
    config.sample_rate_hz = fs;
    config.taps = taps;
    config.input_format = format;
    return config;
}

std::vector<cdouble> noise_samples(std::size_t n, std::uint64_t seed, double power = 1.0)
{
    qa::gaussian_source g(seed);
    std::vector<cdouble> x(n);
    for (auto& v : x)
        v = g.complex_normal(power);
    return x;
}

std::vector<cfloat> to_cf32(const std::vector<cdouble>& x)
{
    std::vector<cfloat> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        y[i] = cfloat(x[i]);
    return y;
}

std::vector<cdouble> to_cdouble(const std::vector<cfloat>& x)
{
    std::vector<cdouble> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        y[i] = cdouble(x[i]);
    return y;
}


void assert_same_record(const gnss_epoch_record& a, const gnss_epoch_record& b)
{
    CPPUNIT_ASSERT_EQUAL(a.channel_id, b.channel_id);
    CPPUNIT_ASSERT_EQUAL(a.flags, b.flags);
    CPPUNIT_ASSERT_EQUAL(a.epoch, b.epoch);
    CPPUNIT_ASSERT_EQUAL(a.start_sample, b.start_sample);
    CPPUNIT_ASSERT_EQUAL(a.sample_count, b.sample_count);
    CPPUNIT_ASSERT_EQUAL(a.prompt_sign, b.prompt_sign);
    CPPUNIT_ASSERT(same_bits(a.code_phase_chips, b.code_phase_chips));
    CPPUNIT_ASSERT(same_bits(a.code_rate_cps, b.code_rate_cps));
    CPPUNIT_ASSERT(same_bits(a.doppler_hz, b.doppler_hz));
    CPPUNIT_ASSERT(same_bits(a.carrier_phase_rad, b.carrier_phase_rad));
    CPPUNIT_ASSERT(same_bits(a.carrier_cycles, b.carrier_cycles));
    CPPUNIT_ASSERT(same_bits(a.cn0_dbhz, b.cn0_dbhz));
    CPPUNIT_ASSERT(same_bits(a.carrier_lock, b.carrier_lock));
    CPPUNIT_ASSERT(same_bits(a.pll_discriminator_rad, b.pll_discriminator_rad));
    CPPUNIT_ASSERT(same_bits(a.dll_discriminator_chips, b.dll_discriminator_chips));
}

template <typename F>
void expect_invalid(F f, const std::string& needle)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        if (what.find(needle) == std::string::npos)
            CPPUNIT_FAIL("message lacks \"" + needle + "\": " + what);
        return;
    }
    CPPUNIT_FAIL("no std::invalid_argument (expected one naming \"" + needle + "\")");
}

// ---------------------------------------------------------------------------------
// Tracking a simulated sky
// ---------------------------------------------------------------------------------

/*!
 * GPS satellites at 35, 40 (two), 45 and 50 dB-Hz with Dopplers of a few kHz and
 * Doppler rates up to 4 Hz/s, one with a 3rd-order PLL, and a Galileo E1 satellite.
 */
std::vector<sky_satellite> tracking_sky()
{
    // PRN, C/N0, Doppler, rate, code and carrier phase, code and Doppler errors,
    // 3rd-order PLL.
    std::vector<sky_satellite> sky = {
        { 3, 40.0, 1830.0, 0.8, 100.3, 3 * 0.7, 0.25, 60.0, false },
        { 11, 40.0, -3120.0, -4.0, 700.8, 11 * 0.7, -0.2, -70.0, false },
        { 17, 35.0, 450.0, 2.0, 5.1, 17 * 0.7, 0.15, 40.0, false },
        { 24, 50.0, -950.0, -1.0, 1020.5, 24 * 0.7, -0.25, -80.0, false },
        { 31, 45.0, 2600.0, 3.0, 333.3, 31 * 0.7, 0.2, 50.0, true },
    };
    sky_satellite e1{ 1, 42.0, -1260.0, 1.5, 2500.25, 1 * 0.7, 0.05, 30.0, false };
    e1.e1b_table = boc11_expand(galileo_e1_code(1, galileo_e1_component::b));
    e1.e1c_table = boc11_expand(galileo_e1_code(1, galileo_e1_component::c));
    sky.push_back(e1);
    return sky;
}

//! Runs \p total samples of \p sim (at \p fs) through \p engine in chunks; prints
//! the time the engine took.
gnss_correlator_results track(multichannel_correlator& engine,
                              gnss_signal_simulator& sim,
                              std::size_t total,
                              double fs,
                              const std::string& device)
{
    const std::size_t chunk = 1 << 20;
    std::vector<cfloat> x(chunk);
    gnss_correlator_results r;
    double engine_seconds = 0.0;
    for (std::size_t done = 0; done < total;) {
        const std::size_t m = std::min(chunk, total - done);
        sim.generate(x.data(), m);
        const auto t0 = std::chrono::steady_clock::now();
        engine.process(x.data(), m, r);
        engine_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        done += m;
    }
    std::cout << "qa_multichannel_correlator: " << device << " tracked "
              << engine.channel_count() << " channels over " << double(total) / fs
              << " s of signal in " << engine_seconds << " s" << std::endl;
    return r;
}

} // namespace

class qa_multichannel_correlator : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_multichannel_correlator);
    CPPUNIT_TEST(formats_and_names);
    CPPUNIT_TEST(bad_configuration_names_the_field);
    QA_BACKEND_TEST(epoch_sample_counts);
    QA_BACKEND_TEST(chip_at_epoch_edges);
    QA_BACKEND_TEST(cf32_against_float64);
    QA_BACKEND_TEST(ci16_against_float64);
    QA_BACKEND_TEST(ci8_against_float64);
    QA_BACKEND_TEST(split_invariance);
    QA_BACKEND_TEST(open_loop_keeps_its_rates);
    QA_BACKEND_TEST(start_sample_past_and_future);
    QA_BACKEND_TEST(add_remove_reinit);
    QA_BACKEND_TEST(tracking_simulated_sky);
    QA_BACKEND_TEST(tracking_through_bad_samples);
    CPPUNIT_TEST_SUITE_END();

public:
    void formats_and_names()
    {
        CPPUNIT_ASSERT(parse_gnss_sample_format("ci16") == gnss_sample_format::ci16);
        CPPUNIT_ASSERT(parse_gnss_sample_format("ci8") == gnss_sample_format::ci8);
        CPPUNIT_ASSERT(parse_gnss_sample_format("cf32") == gnss_sample_format::cf32);
        CPPUNIT_ASSERT_EQUAL(std::string("ci8"), to_string(gnss_sample_format::ci8));
        CPPUNIT_ASSERT_EQUAL(std::size_t(4), bytes_per_sample(gnss_sample_format::ci16));
        CPPUNIT_ASSERT_EQUAL(std::size_t(8), bytes_per_sample(gnss_sample_format::cf32));
        expect_invalid([] { parse_gnss_sample_format("sc16"); }, "input_format");
    }

    void bad_configuration_names_the_field()
    {
        auto config = make_config("cpu", 4e6);
        auto engine_with = [](multichannel_correlator_config c) {
            return [c] { multichannel_correlator::make(c); };
        };
        auto c1 = config;
        c1.sample_rate_hz = 0;
        expect_invalid(engine_with(c1), "sample_rate_hz");
        c1 = config;
        c1.taps = 0;
        expect_invalid(engine_with(c1), "taps");
        c1 = config;
        c1.max_channels = 0;
        expect_invalid(engine_with(c1), "max_channels");
        c1 = config;
        c1.device = "gpu";
        expect_invalid(engine_with(c1), "device");

        config.max_channels = 2;
        auto engine = multichannel_correlator::make(config);
        const gnss_channel good = [] {
            gnss_channel c;
            c.id = 7;
            c.code = gps_l1ca_code(1);
            c.carrier_frequency_hz = 1000.0;
            return c;
        }();
        auto add_with = [&](auto change) {
            gnss_channel c = good;
            change(c);
            return [&engine, c] { engine->add_channel(c); };
        };
        expect_invalid(add_with([](gnss_channel& c) { c.code.clear(); }), "code");
        expect_invalid(add_with([](gnss_channel& c) { c.code[5] = 0; }), "entry 5");
        expect_invalid(add_with([](gnss_channel& c) { c.code_entries_per_chip = 2; }),
                       "code_entries_per_chip");
        expect_invalid(add_with([](gnss_channel& c) { c.periods_per_integration = 0; }),
                       "periods_per_integration");
        expect_invalid(add_with([](gnss_channel& c) { c.code_rate_cps = -1; }),
                       "code_rate_cps");
        expect_invalid(add_with([](gnss_channel& c) { c.code_rate_cps = 2e6; }),
                       "code_rate_cps"); // tracking: beyond 50 % of nominal
        expect_invalid(add_with([](gnss_channel& c) { c.code_phase_chips = 1023; }),
                       "code_phase_chips");
        expect_invalid(add_with([](gnss_channel& c) { c.carrier_frequency_hz = 2e6; }),
                       "carrier_frequency_hz");
        expect_invalid(
            add_with([](gnss_channel& c) { c.intermediate_frequency_hz = NAN; }),
            "intermediate_frequency_hz");
        expect_invalid(add_with([](gnss_channel& c) { c.carrier_phase_rad = INFINITY; }),
                       "carrier_phase_rad");
        expect_invalid(add_with([](gnss_channel& c) { c.tap_offsets_chips = { 0.0 }; }),
                       "tap_offsets_chips");
        expect_invalid(add_with([](gnss_channel& c) {
                           c.tap_offsets_chips = { -2000, 0, 0.5 };
                       }),
                       "tap_offsets_chips[0]");
        expect_invalid(add_with([](gnss_channel& c) { c.prompt_tap = 3; }), "prompt_tap");
        expect_invalid(add_with([](gnss_channel& c) { c.early_tap = 2; }), "early");
        expect_invalid(add_with([](gnss_channel& c) {
                           c.code = boc11_expand(c.code);
                           c.code_entries_per_chip = 2;
                       }),
                       "spacing"); // +-0.5 chip is past a BOC(1,1) peak
        expect_invalid(add_with([](gnss_channel& c) { c.loop.pll_order = 1; }),
                       "loop.pll_order");
        expect_invalid(add_with([](gnss_channel& c) { c.loop.pll_bandwidth_hz = 0; }),
                       "loop.pll_bandwidth_hz");
        expect_invalid(add_with([](gnss_channel& c) { c.loop.fll_bandwidth_hz = -1; }),
                       "loop.fll_bandwidth_hz");
        expect_invalid(add_with([](gnss_channel& c) { c.loop.dll_order = 3; }),
                       "loop.dll_order");
        expect_invalid(add_with([](gnss_channel& c) { c.loop.dll_bandwidth_hz = NAN; }),
                       "loop.dll_bandwidth_hz");
        expect_invalid(add_with([](gnss_channel& c) { c.loop.cn0_epochs = 1; }),
                       "loop.cn0_epochs");
        expect_invalid(
            add_with([](gnss_channel& c) { c.loop.carrier_lock_threshold = 1; }),
            "loop.carrier_lock_threshold");
        expect_invalid(
            add_with([](gnss_channel& c) { c.loop.nominal_code_rate_cps = 0; }),
            "loop.nominal_code_rate_cps");
        CPPUNIT_ASSERT_EQUAL(std::size_t(0), engine->channel_count());

        engine->add_channel(good);
        expect_invalid([&] { engine->add_channel(good); }, "id");
        gnss_channel other = good;
        other.id = 8;
        engine->add_channel(other);
        other.id = 9;
        expect_invalid([&] { engine->add_channel(other); }, "max_channels");
        expect_invalid([&] { engine->remove_channel(9); }, "id");
        expect_invalid([&] { engine->reinit_channel(other); }, "id");
        other.id = 8;
        other.code_rate_cps = 0;
        expect_invalid([&] { engine->reinit_channel(other); }, "code_rate_cps");
        gnss_correlator_results r;
        expect_invalid([&] { engine->process(nullptr, 10, r); }, "samples");
        r.taps = 5;
        r.records.resize(1);
        std::vector<cfloat> x(10);
        expect_invalid([&] { engine->process(x.data(), x.size(), r); }, "results");
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), engine->samples_processed());
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), engine->channel_count());
    }

    // ----- shared checks, one backend each -----

    /*!
     * Epoch starts and lengths of open-loop channels against the integer definition
     * (every case), and against the ideal rational phase where the step is exact
     * (fs = 2^22 Hz makes 1.023e6 chips/s exactly 1023 * 2^10 2^-32 entries a sample).
     */
    void epoch_sample_counts(const std::string& device)
    {
        struct case_t {
            double fs;
            std::vector<std::int8_t> code;
            std::uint32_t epc;
            double rate;
            double phase;
            std::uint32_t periods;
            bool exact;
        };
        const std::vector<case_t> cases = {
            { 4194304.0, gps_l1ca_code(3), 1, 1.023e6, 100.25, 1, true },
            { 4194304.0, gps_l1ca_code(4), 1, 1.023e6, 0.0, 3, true },
            { 4e6, gps_l1ca_code(5), 1, 1.023e6 + 3.7, 1022.999, 1, false },
            { 4e6,
              boc11_expand(gps_l1ca_code(6)),
              2,
              1.023e6 - 1.234,
              1234.567,
              2,
              false },
            { 5e6, glonass_l1of_code(), 1, 0.511e6 * (1 + 2e-6), 17.5, 20, false },
            { 2.048e6, gps_l1ca_code(7), 1, 1.9e6, 3.0, 1, false }, // under 2
                                                                    // samples/chip
        };
        for (std::size_t ci = 0; ci < cases.size(); ++ci) {
            const case_t& k = cases[ci];
            auto engine = multichannel_correlator::make(make_config(device, k.fs));
            gnss_channel c = open_loop_channel(40 + ci, k.code);
            c.code_entries_per_chip = k.epc;
            c.code_rate_cps = k.rate;
            c.code_phase_chips = k.phase;
            c.periods_per_integration = k.periods;
            c.carrier_frequency_hz = 1234.5;
            engine->add_channel(c);
            const std::size_t n = static_cast<std::size_t>(0.1 * k.fs) + 17;
            std::vector<cfloat> x = to_cf32(noise_samples(n, 100 + ci));
            gnss_correlator_results r;
            poison(r, 3);
            engine->process(x.data(), x.size(), r);
            strip_poison(r);

            // Integer definition.
            const int128 L = k.code.size();
            const int128 S =
                std::llround((long double)k.rate * k.epc / (long double)k.fs * two32);
            const int128 E = int128(k.periods) * L * (int128(1) << 32);
            const int128 P0 = (int128)std::floor((long double)k.phase * k.epc * two32);
            std::vector<std::uint64_t> ends; // first sample after each epoch
            for (int128 j = 1;; ++j) {
                const int128 end = (j * E - P0 + S - 1) / S;
                if (end > int128(n))
                    break;
                ends.push_back(static_cast<std::uint64_t>(end));
            }
            CPPUNIT_ASSERT_EQUAL(ends.size(), r.records.size());
            std::uint64_t start = 0;
            for (std::size_t e = 0; e < ends.size(); ++e) {
                const gnss_epoch_record& rec = r.records[e];
                CPPUNIT_ASSERT_EQUAL(std::uint32_t(40 + ci), rec.channel_id);
                CPPUNIT_ASSERT_EQUAL(std::uint64_t(e), rec.epoch);
                CPPUNIT_ASSERT_EQUAL(start, rec.start_sample);
                CPPUNIT_ASSERT_EQUAL(ends[e] - start, std::uint64_t(rec.sample_count));
                if (k.exact) {
                    // Ideal: the first sample whose phase reaches the epoch's end.
                    const long double chips = (long double)k.code.size() / k.epc;
                    const long double end_chips = (e + 1) * k.periods * chips;
                    const long double ideal =
                        std::ceil((end_chips - (long double)k.phase) * (long double)k.fs /
                                  (long double)k.rate);
                    CPPUNIT_ASSERT_EQUAL(static_cast<std::uint64_t>(ideal), ends[e]);
                }
                start = ends[e];
            }
        }
    }

    /*!
     * Chip choice at the edges of an epoch, exactly: a unit impulse on the first or the
     * last sample of each epoch, carrier at 0 Hz and phase 0, gives tap k the value of
     * the code entry that tap takes at that sample, whose index the early tap wraps
     * below 0 and the late tap past L at those edges.
     */
    void chip_at_epoch_edges(const std::string& device)
    {
        const double fs = 4e6;
        auto engine = multichannel_correlator::make(make_config(device, fs, 5));
        gnss_channel c = open_loop_channel(1, gps_l1ca_code(9));
        c.code_rate_cps = 1.023e6 + 0.4;
        c.code_phase_chips = 1000.3;
        c.tap_offsets_chips = { -1.5, -0.5, 0.0, 0.5, 1.5 };
        engine->add_channel(c);
        const std::size_t n = 40000;
        // Epoch boundaries from the reference on zeros (only its starts are used).
        const auto epochs = reference_correlate(std::vector<cdouble>(n), fs, c);
        std::vector<cdouble> x(n, 0.0);
        std::vector<std::size_t> impulse;
        for (std::size_t e = 0; e < epochs.size(); ++e) {
            const std::size_t at =
                e % 2 == 0 ? epochs[e].start : epochs[e].start + epochs[e].count - 1;
            x[at] = 1.0;
            impulse.push_back(at);
        }
        const auto ref = reference_correlate(x, fs, c);
        const auto xf = to_cf32(x);
        gnss_correlator_results r;
        engine->process(xf.data(), xf.size(), r);
        CPPUNIT_ASSERT_EQUAL(ref.size(), r.records.size());
        for (std::size_t e = 0; e < ref.size(); ++e)
            for (std::size_t t = 0; t < 5; ++t) {
                const cfloat v = r.taps_of(e)[t];
                CPPUNIT_ASSERT(std::abs(ref[e].taps[t].real()) == 1.0);
                CPPUNIT_ASSERT_EQUAL(ref[e].taps[t].real(), double(v.real()));
                CPPUNIT_ASSERT_EQUAL(0.0, double(v.imag()));
            }
    }

    /*!
     * Correlator values of several open-loop channels (different codes, BOC table, K,
     * taps, Doppler, carrier and code phases) against the float64 reference on the same
     * input, in each input format. The input is a weak simulated satellite in noise, so
     * that both noise-like and signal-dominated taps occur.
     */
    void check_against_float64(const std::string& device, gnss_sample_format format)
    {
        const double fs = 4e6;
        const std::size_t n = 90001;
        gnss_simulator_config sim_config;
        sim_config.sample_rate_hz = fs;
        sim_config.seed = 77;
        gnss_simulated_satellite sat;
        sat.code = gps_l1ca_code(2);
        sat.code_phase_chips = 321.4;
        sat.doppler_hz = 1500.0;
        sat.cn0_dbhz = 60.0;
        gnss_signal_simulator sim(sim_config, { sat });
        std::vector<cdouble> x(n);
        std::vector<cfloat> x32(n);
        std::vector<std::int16_t> x16(2 * n);
        std::vector<std::int8_t> x8(2 * n);
        const void* input = nullptr;
        if (format == gnss_sample_format::cf32) {
            sim.generate(x32.data(), n);
            x = to_cdouble(x32);
            input = x32.data();
        } else if (format == gnss_sample_format::ci16) {
            sim.generate_ci16(x16.data(), n, 3000.0);
            for (std::size_t i = 0; i < n; ++i)
                x[i] = cdouble(x16[2 * i], x16[2 * i + 1]);
            input = x16.data();
        } else {
            sim.generate_ci8(x8.data(), n, 20.0);
            for (std::size_t i = 0; i < n; ++i)
                x[i] = cdouble(x8[2 * i], x8[2 * i + 1]);
            input = x8.data();
        }

        auto engine = multichannel_correlator::make(make_config(device, fs, 4, format));
        std::vector<gnss_channel> channels;
        {
            gnss_channel c = open_loop_channel(3, gps_l1ca_code(2));
            c.code_phase_chips = 321.4 - 0.1;
            c.carrier_frequency_hz = 1500.0;
            c.tap_offsets_chips = { -0.5, 0.0, 0.5, 3.25 };
            channels.push_back(c);
        }
        {
            gnss_channel c = open_loop_channel(1, boc11_expand(gps_l1ca_code(8)));
            c.code_entries_per_chip = 2;
            c.code_rate_cps = 1.023e6 - 2.5;
            c.code_phase_chips = 2000.9;
            c.periods_per_integration = 2;
            c.carrier_frequency_hz = -1734.2;
            c.carrier_phase_rad = 2.5;
            c.tap_offsets_chips = { -0.1, 0.0, 0.1, -1022.0 };
            channels.push_back(c);
        }
        {
            gnss_channel c = open_loop_channel(2, glonass_l1of_code());
            c.code_rate_cps = 0.511e6;
            c.code_phase_chips = 0.0;
            c.carrier_frequency_hz = 1.99e6;
            c.carrier_phase_rad = -7.0;
            c.tap_offsets_chips = { -510.9, 0.25, 0.0, 510.5 };
            channels.push_back(c);
        }
        for (const auto& c : channels)
            engine->add_channel(c);
        gnss_correlator_results r;
        poison(r, 4);
        engine->process(input, n, r);
        strip_poison(r);

        double worst = 0.0; // as a fraction of the tolerance
        for (std::uint32_t id = 1; id <= 3; ++id) {
            const gnss_channel& c =
                *std::find_if(channels.begin(),
                              channels.end(),
                              [id](const gnss_channel& ch) { return ch.id == id; });
            const auto ref = reference_correlate(x, fs, c);
            const auto idx = records_of(r, id);
            CPPUNIT_ASSERT(!ref.empty());
            CPPUNIT_ASSERT_EQUAL(ref.size(), idx.size());
            for (std::size_t e = 0; e < ref.size(); ++e) {
                const gnss_epoch_record& rec = r.records[idx[e]];
                CPPUNIT_ASSERT_EQUAL(ref[e].start, rec.start_sample);
                CPPUNIT_ASSERT_EQUAL(ref[e].count, rec.sample_count);
                for (std::size_t t = 0; t < 4; ++t) {
                    const cdouble got(r.taps_of(idx[e])[t]);
                    const double tol =
                        1e-4 * std::max(std::abs(ref[e].taps[t]), ref[e].scale);
                    const double err = std::abs(got - ref[e].taps[t]);
                    worst = std::max(worst, err / tol);
                    if (!(err <= tol)) {
                        std::ostringstream msg;
                        msg << "channel " << id << " epoch " << e << " tap " << t
                            << ": engine " << got << ", reference " << ref[e].taps[t]
                            << ", error " << err << " > " << tol;
                        CPPUNIT_FAIL(msg.str());
                    }
                }
            }
        }
        std::cout << "qa_multichannel_correlator: " << device << " " << to_string(format)
                  << " worst error " << worst << " of tolerance" << std::endl;
        // The signal-dominated channel must really hold the satellite.
        const auto idx = records_of(r, 3);
        // Its replica lags the signal by 0.1 chip, so the early tap (negative offset)
        // sees more of the peak than the late one.
        const double early = std::abs(r.taps_of(idx[3])[0]);
        const double prompt = std::abs(r.taps_of(idx[3])[1]);
        const double late = std::abs(r.taps_of(idx[3])[2]);
        CPPUNIT_ASSERT(prompt > early && early > late);
    }

    void cf32_against_float64(const std::string& device)
    {
        check_against_float64(device, gnss_sample_format::cf32);
    }
    void ci16_against_float64(const std::string& device)
    {
        check_against_float64(device, gnss_sample_format::ci16);
    }
    void ci8_against_float64(const std::string& device)
    {
        check_against_float64(device, gnss_sample_format::ci8);
    }

    /*!
     * The same stream processed in one call and in many calls of random sizes (1
     * sample to several epochs, empty calls too) gives identical records and
     * correlations, bit for bit, for open-loop and tracking channels.
     */
    void split_invariance(const std::string& device)
    {
        const double fs = 2.5e6;
        gnss_simulator_config sim_config;
        sim_config.sample_rate_hz = fs;
        sim_config.seed = 5;
        gnss_simulated_satellite sat;
        sat.code = gps_l1ca_code(12);
        sat.code_phase_chips = 500.0;
        sat.doppler_hz = -2200.0;
        sat.doppler_rate_hz_per_s = 4.0;
        sat.cn0_dbhz = 45.0;
        gnss_signal_simulator sim(sim_config, { sat });
        const std::size_t n = static_cast<std::size_t>(0.3 * fs);
        std::vector<cfloat> x(n);
        sim.generate(x.data(), n);

        auto setup = [&](multichannel_correlator& engine) {
            gnss_channel track;
            track.id = 4;
            track.code = gps_l1ca_code(12);
            track.code_phase_chips = 500.2;
            track.carrier_frequency_hz = -2180.0;
            track.loop.fll_bandwidth_hz = 10.0;
            engine.add_channel(track);
            gnss_channel open = open_loop_channel(2, gps_l1ca_code(12));
            open.code_phase_chips = 499.9;
            open.carrier_frequency_hz = -2200.0;
            open.periods_per_integration = 7;
            engine.add_channel(open);
        };
        auto whole = multichannel_correlator::make(make_config(device, fs));
        setup(*whole);
        gnss_correlator_results a;
        whole->process(x.data(), n, a);

        auto split = multichannel_correlator::make(make_config(device, fs));
        setup(*split);
        gnss_correlator_results b;
        qa::gaussian_source g(9);
        std::size_t done = 0, calls = 0;
        std::vector<gnss_correlator_results> parts;
        while (done < n) {
            const long pick = g.integer(0, 9);
            std::size_t m = pick == 0  ? 0
                            : pick < 4 ? static_cast<std::size_t>(g.integer(1, 50))
                                       : static_cast<std::size_t>(g.integer(1, 20000));
            m = std::min(m, n - done);
            parts.emplace_back();
            split->process(x.data() + done, m, parts.back());
            done += m;
            ++calls;
        }
        // Reassemble in channel id then time order, the single call's order.
        for (std::uint32_t id : { 2u, 4u })
            for (const auto& p : parts)
                for (std::size_t i : records_of(p, id)) {
                    b.records.push_back(p.records[i]);
                    b.correlations.insert(
                        b.correlations.end(), p.taps_of(i), p.taps_of(i) + 3);
                }
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(n), split->samples_processed());
        CPPUNIT_ASSERT(a.records.size() > 100);
        CPPUNIT_ASSERT_EQUAL(a.records.size(), b.records.size());
        for (std::size_t i = 0; i < a.records.size(); ++i)
            assert_same_record(a.records[i], b.records[i]);
        for (std::size_t i = 0; i < a.correlations.size(); ++i) {
            CPPUNIT_ASSERT(same_bits(a.correlations[i].real(), b.correlations[i].real()));
            CPPUNIT_ASSERT(same_bits(a.correlations[i].imag(), b.correlations[i].imag()));
        }
        std::cout << "qa_multichannel_correlator: " << device << " split into " << calls
                  << " calls: " << a.records.size() << " identical records" << std::endl;
    }

    //! Open loop: the NCOs keep the given (quantised) rates; the loops do not move them.
    void open_loop_keeps_its_rates(const std::string& device)
    {
        const double fs = 4e6;
        auto engine = multichannel_correlator::make(make_config(device, fs));
        gnss_channel c = open_loop_channel(11, gps_l1ca_code(13));
        c.code_rate_cps = 1.023e6 + 1.5;
        c.code_phase_chips = 77.7;
        c.intermediate_frequency_hz = 250e3;
        c.carrier_frequency_hz = 250e3 - 3125.5;
        engine->add_channel(c);
        auto x = to_cf32(noise_samples(200000, 3));
        gnss_correlator_results r;
        engine->process(x.data(), x.size(), r);
        CPPUNIT_ASSERT(r.records.size() > 40);
        const long double step = std::llround((long double)c.code_rate_cps / fs * two32);
        const double rate = double(step / two32 * fs);
        const double doppler =
            double((std::llround((long double)c.carrier_frequency_hz / fs * two32) -
                    std::llround((long double)c.intermediate_frequency_hz / fs * two32)) /
                   two32 * fs);
        long double phase = std::floor((long double)c.code_phase_chips * two32);
        for (const auto& rec : r.records) {
            CPPUNIT_ASSERT_EQUAL(0u, rec.flags & gnss_flag_tracking);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(rate, rec.code_rate_cps, 1e-9);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(doppler, rec.doppler_hz, 1e-9);
            CPPUNIT_ASSERT(std::abs(doppler - (-3125.5)) < fs / 4294967296.0);
            phase = phase + rec.sample_count * step - 1023.0L * two32;
            CPPUNIT_ASSERT_DOUBLES_EQUAL(
                double(phase / two32), rec.code_phase_chips, 1e-9);
            // Accumulated Doppler phase: -3125.5 Hz over the samples so far.
            const double t = double(rec.start_sample + rec.sample_count) / fs;
            CPPUNIT_ASSERT_DOUBLES_EQUAL(doppler * t, rec.carrier_cycles, 1e-6);
        }
        const auto& last = r.records.back();
        CPPUNIT_ASSERT(last.flags & gnss_flag_cn0_valid);
        // Noise alone: the estimator's floor, 26.7 dB-Hz at 1 ms, below the lock
        // threshold.
        CPPUNIT_ASSERT(std::abs(last.cn0_dbhz - 26.7f) < 3.0f);
        CPPUNIT_ASSERT_EQUAL(0u,
                             last.flags & (gnss_flag_code_lock | gnss_flag_carrier_lock));
    }

    /*!
     * A channel may start in the past (its NCOs are advanced exactly) or in the
     * future (it waits). A copy of a running channel added later with start_sample 0
     * produces, after its first (partial) epoch, exactly the running channel's epochs.
     */
    void start_sample_past_and_future(const std::string& device)
    {
        const double fs = 3e6;
        auto engine = multichannel_correlator::make(make_config(device, fs));
        gnss_channel a = open_loop_channel(1, gps_l1ca_code(14));
        a.code_rate_cps = 1.023e6 + 0.7;
        a.code_phase_chips = 12.3;
        a.carrier_frequency_hz = 987.6;
        a.carrier_phase_rad = 1.0;
        a.start_sample = 0;
        engine->add_channel(a);
        auto x = to_cf32(noise_samples(100000, 4));
        gnss_correlator_results first;
        engine->process(x.data(), 31234, first);
        gnss_channel b = a;
        b.id = 2; // same phases, at sample 0
        engine->add_channel(b);
        gnss_channel f = a;
        f.id = 3;
        f.start_sample = 50000;
        engine->add_channel(f);
        gnss_correlator_results r;
        engine->process(x.data() + 31234, x.size() - 31234, r);
        const auto ra = records_of(r, 1), rb = records_of(r, 2), rf = records_of(r, 3);
        CPPUNIT_ASSERT(rb.size() >= 3);
        // b's first record ends where a's epoch in progress ends; then identical.
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(31234), r.records[rb[0]].start_sample);
        CPPUNIT_ASSERT_EQUAL(
            r.records[ra[0]].start_sample + r.records[ra[0]].sample_count,
            r.records[rb[0]].start_sample + r.records[rb[0]].sample_count);
        CPPUNIT_ASSERT_EQUAL(ra.size(), rb.size());
        for (std::size_t e = 1; e < ra.size(); ++e) {
            const gnss_epoch_record& ea = r.records[ra[e]];
            const gnss_epoch_record& eb = r.records[rb[e]];
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(e), eb.epoch);
            // Indicator windows started at different epochs; the NCO fields must agree.
            CPPUNIT_ASSERT_EQUAL(ea.start_sample, eb.start_sample);
            CPPUNIT_ASSERT_EQUAL(ea.sample_count, eb.sample_count);
            CPPUNIT_ASSERT(same_bits(ea.code_phase_chips, eb.code_phase_chips));
            CPPUNIT_ASSERT(same_bits(ea.carrier_phase_rad, eb.carrier_phase_rad));
            for (std::size_t t = 0; t < 3; ++t)
                CPPUNIT_ASSERT(r.taps_of(ra[e])[t] == r.taps_of(rb[e])[t]);
        }
        // f waits until sample 50000 and starts its first epoch there.
        CPPUNIT_ASSERT(!rf.empty());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(50000), r.records[rf[0]].start_sample);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), r.records[rf[0]].epoch);
    }

    //! Channels added, re-initialised and removed between calls.
    void add_remove_reinit(const std::string& device)
    {
        const double fs = 2e6;
        auto engine = multichannel_correlator::make(make_config(device, fs));
        auto x = to_cf32(noise_samples(60000, 6));
        for (std::uint32_t id : { 30u, 10u, 20u }) {
            gnss_channel c = open_loop_channel(id, gps_l1ca_code(id / 10));
            c.code_phase_chips = id;
            engine->add_channel(c);
        }
        gnss_correlator_results r;
        engine->process(x.data(), 20000, r);
        CPPUNIT_ASSERT(
            (engine->channel_ids() == std::vector<std::uint32_t>{ 10, 20, 30 }));
        // Ascending id, each id's epochs contiguous and in time order.
        for (std::size_t i = 1; i < r.records.size(); ++i) {
            const auto &p = r.records[i - 1], &q = r.records[i];
            CPPUNIT_ASSERT(p.channel_id < q.channel_id ||
                           (p.channel_id == q.channel_id && p.epoch + 1 == q.epoch &&
                            p.start_sample + p.sample_count == q.start_sample));
        }
        engine->remove_channel(20);
        gnss_channel re = open_loop_channel(30, gps_l1ca_code(5));
        re.code_phase_chips = 600.0;
        re.carrier_frequency_hz = 100.0;
        engine->reinit_channel(re);
        gnss_channel added = open_loop_channel(15, gps_l1ca_code(6));
        engine->add_channel(added);
        r.clear();
        engine->process(x.data() + 20000, 40000, r);
        CPPUNIT_ASSERT_EQUAL(std::size_t(0), records_of(r, 20).size());
        const auto r30 = records_of(r, 30), r15 = records_of(r, 15),
                   r10 = records_of(r, 10);
        CPPUNIT_ASSERT(!r30.empty() && !r15.empty() && !r10.empty());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), r.records[r30[0]].epoch);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(20000), r.records[r30[0]].start_sample);
        CPPUNIT_ASSERT(r.records[r10[0]].epoch > 0);
        // Reinit phase 600 chips: the first epoch holds the rest of the period.
        CPPUNIT_ASSERT_EQUAL(std::uint32_t(std::ceil((1023.0 - 600.0) * fs / 1.023e6)),
                             r.records[r30[0]].sample_count);
        CPPUNIT_ASSERT(r15.front() < r30.front() && r10.front() < r15.front());
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), engine->channel_count());
    }

    /*!
     * Tracking on a simulated sky, 2.5 s at 4 Msps: GPS satellites at 35, 40 (two), 45
     * and 50 dB-Hz with Dopplers of a few kHz and Doppler rates up to 4 Hz/s, 50 bps
     * data, plus a Galileo E1 B+C satellite tracked on its BOC(1,1) pilot. 2nd-order
     * PLLs (15 Hz) with FLL assist (10 Hz), one 3rd-order PLL (25 Hz), carrier-aided
     * 1st-order DLLs (2 Hz). Channels start from acquisition-like errors (a quarter
     * chip, 40-80 Hz). From 0.5 s to the end (2 s): every epoch in code and carrier
     * lock, code phase error RMS < 0.05 chip, Doppler error RMS < 5 Hz, C/N0 estimate
     * within 2 dB of the truth on average, and the decoded data bits (prompt I summed
     * over each bit, the PLL's half-cycle ambiguity resolved by the first bit) equal to
     * the simulated bits.
     */
    void tracking_simulated_sky(const std::string& device)
    {
        const double fs = 4e6;
        const double seconds = 2.5, settle = 0.5;
        const std::vector<sky_satellite> sky = tracking_sky();
        gnss_signal_simulator sim = qa::simulate_sky(sky, fs, 2026);
        auto engine = multichannel_correlator::make(make_config(device, fs));
        for (std::size_t i = 0; i < sky.size(); ++i)
            engine->add_channel(tracking_channel(sky[i], static_cast<std::uint32_t>(i)));
        const gnss_correlator_results r =
            track(*engine, sim, static_cast<std::size_t>(seconds * fs), fs, device);
        for (std::size_t i = 0; i < sky.size(); ++i) {
            const sky_satellite& s = sky[i];
            CPPUNIT_ASSERT(records_of(r, static_cast<std::uint32_t>(i)).size() > 100);
            const tracking_quality q = measure_tracking(r, sim, i, s, fs, settle);
            std::cout << "qa_multichannel_correlator: " << device << " "
                      << (s.galileo() ? "E1 PRN " : "L1 PRN ") << s.prn << " at "
                      << s.cn0_dbhz << " dB-Hz: code RMS " << q.code_rms_chips
                      << " chip, Doppler RMS " << q.doppler_rms_hz << " Hz, C/N0 "
                      << q.cn0_mean_dbhz << " dB-Hz, " << q.unlocked << " of " << q.epochs
                      << " epochs unlocked, " << q.bit_errors << " of "
                      << q.decoded_bits.size() << " bits wrong" << std::endl;
            CPPUNIT_ASSERT(s.galileo() ? q.epochs >= 490 : q.epochs >= 1990);
            CPPUNIT_ASSERT_EQUAL(std::size_t(0), q.unlocked);
            CPPUNIT_ASSERT(q.code_rms_chips < 0.05);
            CPPUNIT_ASSERT(q.doppler_rms_hz < 5.0);
            // The Galileo channel tracks the pilot, which carries half the power.
            const double cn0_expected =
                s.galileo() ? s.cn0_dbhz - 10.0 * std::log10(2.0) : s.cn0_dbhz;
            CPPUNIT_ASSERT(std::abs(q.cn0_mean_dbhz - cn0_expected) < 2.0);
            if (!s.galileo()) {
                CPPUNIT_ASSERT(q.decoded_bits.size() >= 95);
                CPPUNIT_ASSERT_EQUAL(std::size_t(0), q.bit_errors);
            }
        }
    }

    /*!
     * Non-finite and overflowing input (the rule in gnss_tracking.h): two GPS channels
     * tracked over 2.3 s at 4 Msps through a single NaN sample (0.8 s), a burst of
     * 2000 infinite samples (1.1 s), a burst of 1000 samples of 3e38 (1.4 s), whose
     * float sums overflow, and a gap of 110 ms of NaN (1.8 s), which holds a whole C/N0
     * window wherever the windows fall. Every epoch that holds a bad sample is flagged
     * gnss_flag_invalid_sums, with NaN discriminators, and no other epoch is; from 0.5 s
     * to the gap, every epoch stays in code and carrier lock with code and Doppler errors
     * as in clean tracking (before the rule, a NaN set the Doppler to exactly 0 for
     * good). In the gap the lock flags and C/N0 are dropped once a whole window held no
     * usable epoch, and after it the channels are in lock again within 0.3 s.
     */
    void tracking_through_bad_samples(const std::string& device)
    {
        const double fs = 4e6;
        const std::vector<sky_satellite> sky = {
            { 7, 42.0, 1210.0, 0.8, 400.7, 0.3, 0.2, 40.0, false },
            { 19, 45.0, -2480.0, -1.5, 77.2, 2.1, -0.15, -50.0, false },
        };
        gnss_signal_simulator sim = qa::simulate_sky(sky, fs, 77);
        auto engine = multichannel_correlator::make(make_config(device, fs));
        for (std::size_t i = 0; i < sky.size(); ++i)
            engine->add_channel(tracking_channel(sky[i], static_cast<std::uint32_t>(i)));

        struct bad_range {
            std::uint64_t first, end;
            cfloat value;
        };
        const float inf = std::numeric_limits<float>::infinity();
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const std::uint64_t gap_first = 7200000, gap_end = gap_first + 440000;
        const std::vector<bad_range> bad = {
            { 3200000, 3200001, cfloat(nan, 0.5f) },
            { 4400000, 4402000, cfloat(inf, -inf) },
            { 5600000, 5601000, cfloat(3e38f, 3e38f) },
            { gap_first, gap_end, cfloat(nan, nan) },
        };
        const std::size_t total = 9200000;
        const std::size_t chunk = 1 << 20;
        std::vector<cfloat> x(chunk);
        gnss_correlator_results r;
        for (std::size_t done = 0; done < total;) {
            const std::size_t m = std::min(chunk, total - done);
            sim.generate(x.data(), m);
            for (const bad_range& b : bad)
                for (std::uint64_t n = std::max<std::uint64_t>(b.first, done);
                     n < std::min<std::uint64_t>(b.end, done + m);
                     ++n)
                    x[n - done] = b.value;
            engine->process(x.data(), m, r);
            done += m;
        }

        const std::uint32_t lock = gnss_flag_code_lock | gnss_flag_carrier_lock;
        for (std::size_t i = 0; i < sky.size(); ++i) {
            const auto idx = records_of(r, static_cast<std::uint32_t>(i));
            CPPUNIT_ASSERT(idx.size() > 2000);
            std::size_t flagged = 0;
            bool dropped_in_gap = false;
            std::uint64_t relocked_at = 0;
            gnss_correlator_results before_gap;
            before_gap.taps = r.taps;
            for (std::size_t j : idx) {
                const gnss_epoch_record& rec = r.records[j];
                const std::uint64_t end = rec.start_sample + rec.sample_count;
                bool holds_bad = false;
                for (const bad_range& b : bad)
                    holds_bad |= rec.start_sample < b.end && b.first < end;
                const bool held = (rec.flags & gnss_flag_invalid_sums) != 0;
                if (holds_bad != held) {
                    std::ostringstream msg;
                    msg << device << " channel " << i << " epoch " << rec.epoch
                        << " at sample " << rec.start_sample << ": "
                        << (holds_bad ? "holds bad samples but is not flagged"
                                      : "is flagged without bad samples");
                    CPPUNIT_FAIL(msg.str());
                }
                if (held) {
                    ++flagged;
                    CPPUNIT_ASSERT(std::isnan(rec.pll_discriminator_rad));
                    CPPUNIT_ASSERT(std::isnan(rec.dll_discriminator_chips));
                }
                if (end <= gap_first) {
                    before_gap.records.push_back(rec);
                    before_gap.correlations.insert(before_gap.correlations.end(),
                                                   r.taps_of(j),
                                                   r.taps_of(j) + r.taps);
                } else if (rec.start_sample < gap_end) {
                    if ((rec.flags & (lock | gnss_flag_cn0_valid)) == 0 &&
                        std::isnan(rec.cn0_dbhz))
                        dropped_in_gap = true;
                } else if (relocked_at == 0 && (rec.flags & lock) == lock) {
                    relocked_at = rec.start_sample;
                }
            }
            // The NaN, 2 ms of infinities, a quarter ms of 3e38 (each possibly across
            // an epoch edge) and the 110 ms gap.
            CPPUNIT_ASSERT(flagged >= 1 + 2 + 1 + 110 && flagged <= 2 + 3 + 2 + 111);
            const tracking_quality q =
                measure_tracking(before_gap, sim, i, sky[i], fs, 0.5);
            std::cout << "qa_multichannel_correlator: " << device
                      << " through bad samples, PRN " << sky[i].prn << ": " << flagged
                      << " epochs flagged, code RMS " << q.code_rms_chips
                      << " chip, Doppler RMS " << q.doppler_rms_hz << " Hz, "
                      << q.unlocked << " of " << q.epochs
                      << " epochs unlocked before the gap, in lock again "
                      << (double(relocked_at) - double(gap_end)) / fs << " s after it"
                      << std::endl;
            CPPUNIT_ASSERT(q.epochs >= 1290);
            CPPUNIT_ASSERT_EQUAL(std::size_t(0), q.unlocked);
            CPPUNIT_ASSERT(q.code_rms_chips < 0.05);
            CPPUNIT_ASSERT(q.doppler_rms_hz < 5.0);
            CPPUNIT_ASSERT(dropped_in_gap);
            CPPUNIT_ASSERT(relocked_at > gap_end && relocked_at < gap_end + 0.3 * fs);
            // After the gap the loops are as good as before it.
            const gnss_epoch_record& last = r.records[idx.back()];
            const double next = double(last.start_sample + last.sample_count);
            CPPUNIT_ASSERT(std::abs(last.doppler_hz - sim.doppler_hz(i, next)) < 10.0);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_multichannel_correlator);

} // namespace core
} // namespace cudadsp
} // namespace gr
