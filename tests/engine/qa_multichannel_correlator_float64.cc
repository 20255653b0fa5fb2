/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The multichannel GNSS correlator's CUDA backend against the float64 reference and
// the CPU backend: cases of the CUDA backend alone (registered as name[cuda]; ctest
// runs them as qa_multichannel_correlator_float64_cuda, skipped without a device).
// qa_multichannel_correlator holds the cases run on both backends.
//
// The reference (qa_gnss_reference) is written from the definitions in
// lib/core/gnss/gnss_nco.h: code NCO P(n) = P0 + n S (units of 2^-32 table entries),
// S = round(rate epc / fs 2^32), P0 = floor(phase epc 2^32); an epoch of K periods of L
// entries holds the samples with P(n) < E = K L 2^32; tap k takes entry
// floor((P(n) + shift_k) / 2^32) mod L with shift_k = -round(offset_k epc 2^32); the
// carrier is a uint32 phase stepping by round(f / fs 2^32) and the replica
// exp(-j 2 pi phase / 2^32). Integers in __int128, sums in float64: the same chip for
// every sample as the engine must pick.
//
// Tolerance (as in qa_multichannel_correlator): 1e-4 of max(|reference|, sqrt(sum
// |x|^2) over the epoch); one wrong chip moves a value by about 3 % of that scale.
// Against the CPU backend: the fields that follow from the integer NCOs alone
// (start, length, epoch, code phase, rates, carrier phase and cycles) must be
// identical in open loop; in tracking, the lock and data-bit outcomes must agree.

#include "gnss/multichannel_correlator_cuda.h"
#include "qa_gnss_reference.h"
#include "qa_support.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cuda_runtime_api.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;
using int128 = __int128;

constexpr long double two32 = 4294967296.0L;

using qa::measure_tracking;
using qa::open_loop_channel;
using qa::poison;
using qa::records_of;
using qa::reference_correlate;
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
            gnss_sample_format f = gnss_sample_format::cf32)
{
    multichannel_correlator_config config;
    config.device = device;
    config.sample_rate_hz = fs;
    config.taps = taps;
    config.input_format = f;
    config.max_channels = 100000;
    return config;
}

std::vector<std::int8_t> random_code(std::size_t n, std::uint64_t seed)
{
    qa::gaussian_source g(seed);
    std::vector<std::int8_t> code(n);
    for (auto& v : code)
        v = g.uniform() < 0.5 ? 1 : -1;
    return code;
}

//! Galileo E1 code \p prn of \p component as a BOC(1,1) table.
std::vector<std::int8_t>
e1_boc_table(int prn, galileo_e1_component component = galileo_e1_component::b)
{
    return boc11_expand(galileo_e1_code(prn, component));
}

multichannel_correlator_cuda& cuda_engine(multichannel_correlator& engine)
{
    auto* cuda = dynamic_cast<multichannel_correlator_cuda*>(&engine);
    CPPUNIT_ASSERT(cuda != nullptr);
    return *cuda;
}

//! Simulated input in \p format, and the same samples as float64 for the reference.
struct test_input {
    std::vector<cdouble> x;
    std::vector<cfloat> cf32;
    std::vector<std::int16_t> ci16;
    std::vector<std::int8_t> ci8;
    const void* data(gnss_sample_format f) const
    {
        return f == gnss_sample_format::cf32
                   ? static_cast<const void*>(cf32.data())
                   : (f == gnss_sample_format::ci16
                          ? static_cast<const void*>(ci16.data())
                          : static_cast<const void*>(ci8.data()));
    }
};

test_input simulate(gnss_signal_simulator& sim, std::size_t n, gnss_sample_format f)
{
    test_input in;
    in.x.resize(n);
    if (f == gnss_sample_format::cf32) {
        in.cf32.resize(n);
        sim.generate(in.cf32.data(), n);
        for (std::size_t i = 0; i < n; ++i)
            in.x[i] = cdouble(in.cf32[i]);
    } else if (f == gnss_sample_format::ci16) {
        in.ci16.resize(2 * n);
        sim.generate_ci16(in.ci16.data(), n, 3000.0);
        for (std::size_t i = 0; i < n; ++i)
            in.x[i] = cdouble(in.ci16[2 * i], in.ci16[2 * i + 1]);
    } else {
        in.ci8.resize(2 * n);
        sim.generate_ci8(in.ci8.data(), n, 20.0);
        for (std::size_t i = 0; i < n; ++i)
            in.x[i] = cdouble(in.ci8[2 * i], in.ci8[2 * i + 1]);
    }
    return in;
}


//! strip_poison(), and every correlation the engine wrote is finite.
void strip_poison_finite(gnss_correlator_results& r)
{
    strip_poison(r);
    for (const cfloat& v : r.correlations)
        CPPUNIT_ASSERT(std::isfinite(v.real()) && std::isfinite(v.imag()));
}

//! Every field and correlation, bit for bit.
void assert_identical(const gnss_correlator_results& a, const gnss_correlator_results& b)
{
    CPPUNIT_ASSERT_EQUAL(a.records.size(), b.records.size());
    CPPUNIT_ASSERT_EQUAL(a.correlations.size(), b.correlations.size());
    CPPUNIT_ASSERT(std::memcmp(a.records.data(),
                               b.records.data(),
                               a.records.size() * sizeof(gnss_epoch_record)) == 0);
    for (std::size_t i = 0; i < a.correlations.size(); ++i) {
        CPPUNIT_ASSERT(same_bits(a.correlations[i].real(), b.correlations[i].real()));
        CPPUNIT_ASSERT(same_bits(a.correlations[i].imag(), b.correlations[i].imag()));
    }
}

//! The fields of an open-loop record that follow from the integer NCOs alone.
void assert_same_nco_fields(const gnss_epoch_record& a, const gnss_epoch_record& b)
{
    CPPUNIT_ASSERT_EQUAL(a.channel_id, b.channel_id);
    CPPUNIT_ASSERT_EQUAL(a.epoch, b.epoch);
    CPPUNIT_ASSERT_EQUAL(a.start_sample, b.start_sample);
    CPPUNIT_ASSERT_EQUAL(a.sample_count, b.sample_count);
    CPPUNIT_ASSERT(same_bits(a.code_phase_chips, b.code_phase_chips));
    CPPUNIT_ASSERT(same_bits(a.code_rate_cps, b.code_rate_cps));
    CPPUNIT_ASSERT(same_bits(a.doppler_hz, b.doppler_hz));
    CPPUNIT_ASSERT(same_bits(a.carrier_phase_rad, b.carrier_phase_rad));
    CPPUNIT_ASSERT(same_bits(a.carrier_cycles, b.carrier_cycles));
}

/*!
 * Correlations of the records of channel \p c in \p r against the reference; returns
 * the worst error as a fraction of the tolerance (fails above 1).
 */
double check_channel(const gnss_correlator_results& r,
                     const std::vector<cdouble>& x,
                     double fs,
                     const gnss_channel& c,
                     const std::string& what)
{
    const auto ref = reference_correlate(x, fs, c);
    const auto idx = records_of(r, c.id);
    CPPUNIT_ASSERT(!ref.empty());
    CPPUNIT_ASSERT_EQUAL(ref.size(), idx.size());
    double worst = 0.0;
    for (std::size_t e = 0; e < ref.size(); ++e) {
        const gnss_epoch_record& rec = r.records[idx[e]];
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(e), rec.epoch);
        CPPUNIT_ASSERT_EQUAL(ref[e].start, rec.start_sample);
        CPPUNIT_ASSERT_EQUAL(ref[e].count, rec.sample_count);
        for (std::size_t t = 0; t < ref[e].taps.size(); ++t) {
            const cdouble got(r.taps_of(idx[e])[t]);
            const double tol = 1e-4 * std::max(std::abs(ref[e].taps[t]), ref[e].scale);
            const double err = std::abs(got - ref[e].taps[t]);
            worst = std::max(worst, err / tol);
            if (!(err <= tol)) {
                std::ostringstream msg;
                msg << what << ": channel " << c.id << " epoch " << e << " tap " << t
                    << ": engine " << got << ", reference " << ref[e].taps[t]
                    << ", error " << err << " > " << tol;
                CPPUNIT_FAIL(msg.str());
            }
        }
    }
    return worst;
}

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

class qa_multichannel_correlator_float64 : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_multichannel_correlator_float64);
    QA_CUDA_TEST(cf32_three_taps_against_float64);
    QA_CUDA_TEST(ci16_three_taps_against_float64);
    QA_CUDA_TEST(ci8_three_taps_against_float64);
    QA_CUDA_TEST(cf32_five_taps_against_float64);
    QA_CUDA_TEST(ci16_five_taps_against_float64);
    QA_CUDA_TEST(ci8_five_taps_against_float64);
    QA_CUDA_TEST(eleven_taps_two_passes);
    QA_CUDA_TEST(long_code_from_global_memory);
    QA_CUDA_TEST(split_invariance);
    QA_CUDA_TEST(call_longer_than_a_chunk);
    QA_CUDA_TEST(process_device_matches_process);
    QA_CUDA_TEST(add_remove_reinit_against_cpu);
    QA_CUDA_TEST(start_sample_past_and_future);
    QA_CUDA_TEST(tracking_simulated_sky_against_cpu);
    QA_CUDA_TEST(many_channels);
    CPPUNIT_TEST_SUITE_END();

    /*!
     * One engine, channels of every kind against the float64 reference and the CPU
     * backend: GPS L1 C/A matched to a simulated satellite (1 and 4 periods per
     * epoch), Galileo E1-B BOC(1,1) (2 entries per chip), GLONASS (its own chip rate,
     * a carrier near fs/2), and taps from -0.5 chip to almost a whole period.
     */
    void check_against_float64(gnss_sample_format f, std::size_t taps)
    {
        // Not a whole number of samples per chip: the sampled correlation peak is then
        // the triangle the early/prompt/late check below expects.
        const double fs = 4.1e6;
        const std::size_t n = 100003;
        gnss_simulator_config sim_config;
        sim_config.sample_rate_hz = fs;
        sim_config.seed = 41;
        gnss_simulated_satellite sat;
        sat.code = gps_l1ca_code(5);
        sat.code_phase_chips = 612.3;
        sat.doppler_hz = -2345.0;
        sat.cn0_dbhz = 60.0;
        gnss_signal_simulator sim(sim_config, { sat });
        const test_input in = simulate(sim, n, f);

        auto offsets = [&](std::vector<double> three) {
            if (taps == 5) {
                three.push_back(-0.25);
                three.push_back(1.75);
            }
            return three;
        };
        std::vector<gnss_channel> channels;
        {
            gnss_channel c = open_loop_channel(7, gps_l1ca_code(5));
            c.code_phase_chips = 612.3 - 0.05;
            c.carrier_frequency_hz = -2345.0;
            c.code_rate_cps = 1.023e6 * (1.0 - 2345.0 / gps_l1_frequency_hz);
            c.tap_offsets_chips = offsets({ -0.5, 0.0, 0.5 });
            channels.push_back(c);
        }
        {
            gnss_channel c = open_loop_channel(3, gps_l1ca_code(5));
            c.code_phase_chips = 612.3 + 2 * 1023.0;
            c.periods_per_integration = 4;
            c.carrier_frequency_hz = -2340.0;
            c.carrier_phase_rad = 1.0;
            c.tap_offsets_chips = offsets({ -1.0, 0.0, 1.0 });
            channels.push_back(c);
        }
        {
            gnss_channel c = open_loop_channel(12, e1_boc_table(11));
            c.code_entries_per_chip = 2;
            c.code_rate_cps = 1.023e6 + 3.7;
            c.code_phase_chips = 4091.99;
            c.carrier_frequency_hz = 812.5;
            c.tap_offsets_chips = offsets({ -0.15, 0.0, 0.15 });
            channels.push_back(c);
        }
        {
            gnss_channel c = open_loop_channel(1, glonass_l1of_code());
            c.code_rate_cps = 0.511e6;
            c.code_phase_chips = 0.0;
            c.carrier_frequency_hz = 2.03e6;
            c.carrier_phase_rad = -4.0;
            c.tap_offsets_chips = offsets({ -510.5, 0.3, 510.9 });
            channels.push_back(c);
        }
        auto cuda = multichannel_correlator::make(make_config("cuda", fs, taps, f));
        auto cpu = multichannel_correlator::make(make_config("cpu", fs, taps, f));
        for (const auto& c : channels) {
            cuda->add_channel(c);
            cpu->add_channel(c);
        }
        gnss_correlator_results r, rc;
        poison(r, taps);
        cuda->process(in.data(f), n, r);
        strip_poison_finite(r);
        cpu->process(in.data(f), n, rc);
        CPPUNIT_ASSERT(cuda_engine(*cuda).last_timing().correlate_ms > 0.0);

        double worst = 0.0;
        for (const auto& c : channels)
            worst = std::max(worst, check_channel(r, in.x, fs, c, to_string(f)));
        CPPUNIT_ASSERT_EQUAL(rc.records.size(), r.records.size());
        for (std::size_t i = 0; i < r.records.size(); ++i)
            assert_same_nco_fields(r.records[i], rc.records[i]);
        std::cout << "qa_multichannel_correlator_float64: " << to_string(f) << " " << taps
                  << " taps: worst error " << worst << " of tolerance" << std::endl;
        // The matched channel holds the satellite: prompt above early and late.
        const auto idx = records_of(r, 7);
        const double early = std::abs(r.taps_of(idx[5])[0]);
        const double prompt = std::abs(r.taps_of(idx[5])[1]);
        const double late = std::abs(r.taps_of(idx[5])[2]);
        CPPUNIT_ASSERT(prompt > 1.5 * early && prompt > 1.5 * late);
    }

    void cf32_three_taps_against_float64(const std::string&)
    {
        check_against_float64(gnss_sample_format::cf32, 3);
    }
    void ci16_three_taps_against_float64(const std::string&)
    {
        check_against_float64(gnss_sample_format::ci16, 3);
    }
    void ci8_three_taps_against_float64(const std::string&)
    {
        check_against_float64(gnss_sample_format::ci8, 3);
    }
    void cf32_five_taps_against_float64(const std::string&)
    {
        check_against_float64(gnss_sample_format::cf32, 5);
    }
    void ci16_five_taps_against_float64(const std::string&)
    {
        check_against_float64(gnss_sample_format::ci16, 5);
    }
    void ci8_five_taps_against_float64(const std::string&)
    {
        check_against_float64(gnss_sample_format::ci8, 5);
    }

    /*!
     * More taps than one walk carries (8): the kernel makes two passes per piece of
     * samples and keeps the partial sums between pieces; against the reference, and
     * the same stream in uneven calls bit-identical to one call.
     */
    void eleven_taps_two_passes(const std::string&)
    {
        const double fs = 3e6;
        const std::size_t n = 60013;
        const std::vector<cdouble> x = [&] {
            qa::gaussian_source g(3);
            std::vector<cdouble> v(n);
            for (auto& s : v)
                s = g.complex_normal(2.0);
            return v;
        }();
        std::vector<cfloat> x32(x.begin(), x.end());
        std::vector<cdouble> xr(x32.begin(), x32.end());
        gnss_channel c = open_loop_channel(5, gps_l1ca_code(20));
        c.code_phase_chips = 100.7;
        c.carrier_frequency_hz = 123456.0;
        c.tap_offsets_chips.clear();
        for (int k = 0; k < 11; ++k)
            c.tap_offsets_chips.push_back(-1.25 + 0.25 * k);
        gnss_channel d = c;
        d.id = 2;
        d.periods_per_integration = 3;
        d.code_phase_chips = 2500.2;
        auto whole = multichannel_correlator::make(make_config("cuda", fs, 11));
        auto split = multichannel_correlator::make(make_config("cuda", fs, 11));
        for (auto* e : { whole.get(), split.get() }) {
            e->add_channel(c);
            e->add_channel(d);
        }
        gnss_correlator_results a, b;
        poison(a, 11);
        whole->process(x32.data(), n, a);
        strip_poison_finite(a);
        check_channel(a, xr, fs, c, "11 taps");
        check_channel(a, xr, fs, d, "11 taps");
        for (std::size_t done = 0, m = 777; done < n; done += m, m = m * 3 % 9001 + 1) {
            m = std::min(m, n - done);
            gnss_correlator_results part;
            split->process(x32.data() + done, m, part);
            b.records.insert(b.records.end(), part.records.begin(), part.records.end());
            b.correlations.insert(
                b.correlations.end(), part.correlations.begin(), part.correlations.end());
        }
        // b is in time order across calls; put it in channel order as one call gives.
        gnss_correlator_results sorted;
        for (std::uint32_t id : { 2u, 5u })
            for (std::size_t i = 0; i < b.records.size(); ++i)
                if (b.records[i].channel_id == id) {
                    sorted.records.push_back(b.records[i]);
                    sorted.correlations.insert(sorted.correlations.end(),
                                               b.correlations.begin() + i * 11,
                                               b.correlations.begin() + (i + 1) * 11);
                }
        assert_identical(a, sorted);
    }

    /*!
     * A code too long for shared memory (300,007 entries) is read from global memory;
     * the result is the same function.
     */
    void long_code_from_global_memory(const std::string&)
    {
        const double fs = 5e6;
        const std::size_t n = 200000;
        qa::gaussian_source g(11);
        std::vector<cfloat> x32(n);
        for (auto& s : x32)
            s = cfloat(g.complex_normal(1.0));
        std::vector<cdouble> x(x32.begin(), x32.end());
        gnss_channel c = open_loop_channel(9, random_code(300007, 5));
        c.code_rate_cps = 10.23e6 / 3.0;
        c.code_phase_chips = 299000.5;
        c.carrier_frequency_hz = -1.1e6;
        c.tap_offsets_chips = { -0.5, 0.0, 150000.0 };
        auto engine = multichannel_correlator::make(make_config("cuda", fs));
        engine->add_channel(c);
        gnss_correlator_results r;
        poison(r, 3);
        engine->process(x32.data(), n, r);
        strip_poison_finite(r);
        CPPUNIT_ASSERT(!cuda_engine(*engine).code_tables_in_shared_memory());
        check_channel(r, x, fs, c, "global tables");

        auto short_code = multichannel_correlator::make(make_config("cuda", fs));
        short_code->add_channel(open_loop_channel(1, gps_l1ca_code(1)));
        gnss_correlator_results s;
        short_code->process(x32.data(), 1000, s);
        CPPUNIT_ASSERT(cuda_engine(*short_code).code_tables_in_shared_memory());
    }

    /*!
     * The same stream in one call and in many calls of random sizes (0, 1, a few and
     * thousands of samples): every record field and correlation bit-identical, for
     * tracking and open-loop channels (the sample-to-lane mapping and the float
     * folding points follow absolute sample indices, not calls).
     */
    void split_invariance(const std::string&)
    {
        const double fs = 2.5e6;
        gnss_simulator_config sim_config;
        sim_config.sample_rate_hz = fs;
        sim_config.seed = 8;
        gnss_simulated_satellite sat;
        sat.code = gps_l1ca_code(14);
        sat.code_phase_chips = 200.0;
        sat.doppler_hz = 1700.0;
        sat.doppler_rate_hz_per_s = -3.0;
        sat.cn0_dbhz = 45.0;
        gnss_signal_simulator sim(sim_config, { sat });
        const std::size_t n = static_cast<std::size_t>(0.3 * fs);
        std::vector<cfloat> x(n);
        sim.generate(x.data(), n);
        auto setup = [&](multichannel_correlator& e) {
            gnss_channel track;
            track.id = 6;
            track.code = gps_l1ca_code(14);
            track.code_phase_chips = 200.15;
            track.carrier_frequency_hz = 1680.0;
            track.code_rate_cps = 1.023e6 * (1.0 + 1680.0 / gps_l1_frequency_hz);
            track.loop.fll_bandwidth_hz = 10.0;
            e.add_channel(track);
            gnss_channel open = open_loop_channel(2, gps_l1ca_code(14));
            open.code_phase_chips = 4 * 1023.0 + 199.9;
            open.periods_per_integration = 5;
            open.carrier_frequency_hz = 1700.0;
            e.add_channel(open);
            gnss_channel e1 = open_loop_channel(3, e1_boc_table(4));
            e1.code_entries_per_chip = 2;
            e1.code_phase_chips = 17.0;
            e.add_channel(e1);
        };
        auto whole = multichannel_correlator::make(make_config("cuda", fs));
        setup(*whole);
        gnss_correlator_results a;
        whole->process(x.data(), n, a);

        auto split = multichannel_correlator::make(make_config("cuda", fs));
        setup(*split);
        qa::gaussian_source g(19);
        std::vector<gnss_correlator_results> parts;
        for (std::size_t done = 0; done < n;) {
            const long pick = g.integer(0, 9);
            std::size_t m = pick == 0  ? 0
                            : pick < 4 ? static_cast<std::size_t>(g.integer(1, 70))
                                       : static_cast<std::size_t>(g.integer(1, 30000));
            m = std::min(m, n - done);
            parts.emplace_back();
            split->process(x.data() + done, m, parts.back());
            done += m;
        }
        gnss_correlator_results b;
        b.taps = 3;
        for (std::uint32_t id : { 2u, 3u, 6u })
            for (const auto& p : parts)
                for (std::size_t i : records_of(p, id)) {
                    b.records.push_back(p.records[i]);
                    b.correlations.insert(
                        b.correlations.end(), p.taps_of(i), p.taps_of(i) + 3);
                }
        CPPUNIT_ASSERT(a.records.size() > 300);
        assert_identical(a, b);
        std::cout << "qa_multichannel_correlator_float64: split invariance over "
                  << parts.size() << " calls, " << a.records.size() << " records"
                  << std::endl;
    }

    /*!
     * One call longer than a kernel chunk (2^22 samples): several launches, the
     * records merged channel by channel, identical to the same stream in short calls.
     */
    void call_longer_than_a_chunk(const std::string&)
    {
        const double fs = 2.046e6;
        const std::size_t n = (std::size_t(1) << 22) * 2 + 12345;
        std::vector<std::int16_t> x(2 * n);
        qa::gaussian_source g(23);
        for (auto& v : x)
            v = static_cast<std::int16_t>(std::lround(g.complex_normal(1e6).real()));
        auto setup = [&](multichannel_correlator& e) {
            for (std::uint32_t id = 0; id < 6; ++id) {
                gnss_channel c = open_loop_channel(10 - id, gps_l1ca_code(1 + id));
                c.code_phase_chips = 100.0 * id + 0.3;
                c.carrier_frequency_hz = 500.0 * id - 1000.0;
                c.periods_per_integration = 1 + id % 3;
                if (id % 2) {
                    c.mode = gnss_channel_mode::tracking;
                    c.code_rate_cps = 1.023e6;
                }
                e.add_channel(c);
            }
        };
        auto whole = multichannel_correlator::make(
            make_config("cuda", fs, 3, gnss_sample_format::ci16));
        setup(*whole);
        gnss_correlator_results a;
        poison(a, 3);
        whole->process(x.data(), n, a);
        strip_poison_finite(a);
        const gnss_cuda_timing timing = cuda_engine(*whole).last_timing();
        CPPUNIT_ASSERT(timing.chunks >= 3);
        CPPUNIT_ASSERT_EQUAL(a.records.size(), timing.records);

        auto split = multichannel_correlator::make(
            make_config("cuda", fs, 3, gnss_sample_format::ci16));
        setup(*split);
        std::vector<gnss_correlator_results> parts;
        for (std::size_t done = 0; done < n; done += 1000003) {
            parts.emplace_back();
            split->process(x.data() + 2 * done,
                           std::min<std::size_t>(1000003, n - done),
                           parts.back());
        }
        gnss_correlator_results b;
        for (std::uint32_t id = 5; id <= 10; ++id)
            for (const auto& p : parts)
                for (std::size_t i : records_of(p, id)) {
                    b.records.push_back(p.records[i]);
                    b.correlations.insert(
                        b.correlations.end(), p.taps_of(i), p.taps_of(i) + 3);
                }
        assert_identical(a, b);
        std::cout << "qa_multichannel_correlator_float64: " << n << " samples in "
                  << timing.chunks << " chunks, " << a.records.size() << " records"
                  << std::endl;
    }

    //! Device-resident input gives the records and correlations of host input.
    void process_device_matches_process(const std::string&)
    {
        for (const gnss_sample_format f : { gnss_sample_format::cf32,
                                            gnss_sample_format::ci16,
                                            gnss_sample_format::ci8 }) {
            const double fs = 4e6;
            const std::size_t n = 123457;
            gnss_simulator_config sim_config;
            sim_config.sample_rate_hz = fs;
            gnss_simulated_satellite sat;
            sat.code = gps_l1ca_code(30);
            sat.code_phase_chips = 7.0;
            sat.cn0_dbhz = 50.0;
            gnss_signal_simulator sim(sim_config, { sat });
            const test_input in = simulate(sim, n, f);
            const std::size_t bytes = n * bytes_per_sample(f);
            auto setup = [&](multichannel_correlator& e) {
                gnss_channel c;
                c.id = 1;
                c.code = gps_l1ca_code(30);
                c.code_phase_chips = 7.1;
                e.add_channel(c);
                gnss_channel o = open_loop_channel(0, gps_l1ca_code(30));
                o.periods_per_integration = 2;
                e.add_channel(o);
            };
            auto host = multichannel_correlator::make(make_config("cuda", fs, 3, f));
            auto dev = multichannel_correlator::make(make_config("cuda", fs, 3, f));
            setup(*host);
            setup(*dev);
            gnss_correlator_results a, b;
            host->process(in.data(f), n, a);
            void* d = nullptr;
            CPPUNIT_ASSERT_EQUAL(cudaSuccess, cudaMalloc(&d, bytes));
            CPPUNIT_ASSERT_EQUAL(
                cudaSuccess, cudaMemcpy(d, in.data(f), bytes, cudaMemcpyHostToDevice));
            // Two calls, the second starting at an odd sample (alignment of one sample).
            const std::size_t first = 60001;
            cuda_engine(*dev).process_device(d, first, b);
            cuda_engine(*dev).process_device(static_cast<const unsigned char*>(d) +
                                                 first * bytes_per_sample(f),
                                             n - first,
                                             b);
            cudaFree(d);
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(n), dev->samples_processed());
            gnss_correlator_results sorted;
            for (std::uint32_t id : { 0u, 1u })
                for (std::size_t i : records_of(b, id)) {
                    sorted.records.push_back(b.records[i]);
                    sorted.correlations.insert(
                        sorted.correlations.end(), b.taps_of(i), b.taps_of(i) + 3);
                }
            assert_identical(a, sorted);
        }
    }

    /*!
     * Channels added, re-initialised and removed between calls, on both backends with
     * the same operations: the same records (NCO fields identical, correlations
     * within tolerance of each other), in ascending id order.
     */
    void add_remove_reinit_against_cpu(const std::string&)
    {
        const double fs = 2e6;
        const std::size_t call = 30011;
        qa::gaussian_source g(31);
        std::vector<cfloat> x(call * 6);
        for (auto& s : x)
            s = cfloat(g.complex_normal(1.0));
        auto cuda = multichannel_correlator::make(make_config("cuda", fs));
        auto cpu = multichannel_correlator::make(make_config("cpu", fs));
        auto both = [&](auto&& op) {
            op(*cuda);
            op(*cpu);
        };
        auto channel = [&](std::uint32_t id, double phase) {
            gnss_channel c = open_loop_channel(id, gps_l1ca_code(1 + id % 32));
            c.code_phase_chips = phase;
            c.carrier_frequency_hz = 37.0 * id;
            return c;
        };
        gnss_correlator_results rg, rc;
        auto step = [&](std::size_t k) {
            const std::size_t before = rg.records.size();
            cuda->process(x.data() + k * call, call, rg);
            cpu->process(x.data() + k * call, call, rc);
            CPPUNIT_ASSERT_EQUAL(rc.records.size(), rg.records.size());
            for (std::size_t i = before; i < rg.records.size(); ++i) {
                assert_same_nco_fields(rg.records[i], rc.records[i]);
                if (i > before)
                    CPPUNIT_ASSERT(rg.records[i - 1].channel_id <=
                                   rg.records[i].channel_id);
                for (std::size_t t = 0; t < 3; ++t) {
                    const cdouble a(rg.taps_of(i)[t]), b(rc.taps_of(i)[t]);
                    const double scale = std::sqrt(double(rg.records[i].sample_count));
                    CPPUNIT_ASSERT(std::abs(a - b) <=
                                   2e-4 * std::max(std::abs(b), scale));
                }
            }
        };
        for (std::uint32_t id : { 30u, 4u, 17u })
            both([&](multichannel_correlator& e) {
                e.add_channel(channel(id, 10.0 * id));
            });
        step(0);
        both([&](multichannel_correlator& e) { e.remove_channel(17); });
        both([&](multichannel_correlator& e) { e.add_channel(channel(8, 3.3)); });
        step(1);
        both([&](multichannel_correlator& e) { e.reinit_channel(channel(30, 500.5)); });
        both([&](multichannel_correlator& e) { e.add_channel(channel(17, 1.0)); });
        both([&](multichannel_correlator& e) { e.remove_channel(4); });
        step(2);
        step(3);
        both([&](multichannel_correlator& e) {
            e.remove_channel(8);
            e.remove_channel(17);
            e.remove_channel(30);
        });
        step(4); // no channels: nothing, samples still counted
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(5 * call), cuda->samples_processed());
        both([&](multichannel_correlator& e) { e.add_channel(channel(1, 0.0)); });
        step(5);
        CPPUNIT_ASSERT(rg.records.size() > 150);
    }

    //! A channel starting in the future waits for its sample; one from the past is
    //! advanced to the present: the same NCO fields as the CPU backend.
    void start_sample_past_and_future(const std::string&)
    {
        const double fs = 2e6;
        const std::size_t n = 50000;
        qa::gaussian_source g(2);
        std::vector<cfloat> x(3 * n);
        for (auto& s : x)
            s = cfloat(g.complex_normal(1.0));
        auto cuda = multichannel_correlator::make(make_config("cuda", fs));
        auto cpu = multichannel_correlator::make(make_config("cpu", fs));
        gnss_correlator_results rg, rc;
        cuda->process(x.data(), n, rg);
        cpu->process(x.data(), n, rc);
        gnss_channel future = open_loop_channel(1, gps_l1ca_code(3));
        future.start_sample = n + 70001; // in the next call but one
        gnss_channel past = open_loop_channel(2, gps_l1ca_code(4));
        past.start_sample = 1234;
        past.code_phase_chips = 800.0;
        past.carrier_frequency_hz = 3210.0;
        for (auto* e : { cuda.get(), cpu.get() }) {
            e->add_channel(future);
            e->add_channel(past);
        }
        for (std::size_t k = 1; k < 3; ++k) {
            cuda->process(x.data() + k * n, n, rg);
            cpu->process(x.data() + k * n, n, rc);
        }
        CPPUNIT_ASSERT_EQUAL(rc.records.size(), rg.records.size());
        for (std::size_t i = 0; i < rg.records.size(); ++i)
            assert_same_nco_fields(rg.records[i], rc.records[i]);
        const auto f = records_of(rg, 1);
        CPPUNIT_ASSERT(!f.empty());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(n + 70001), rg.records[f[0]].start_sample);
    }

    /*!
     * Tracking on a simulated sky (GPS at 35 to 50 dB-Hz with Doppler rates and data
     * bits, one Galileo E1 pilot), 2.5 s, on both backends from the same input: from
     * 0.5 s on, every CUDA epoch in code and carrier lock, code phase RMS < 0.05 chip,
     * Doppler RMS < 5 Hz, data bits right; and the CPU backend's lock and bit
     * outcomes the same.
     */
    void tracking_simulated_sky_against_cpu(const std::string&)
    {
        const double fs = 4e6, seconds = 2.5, settle = 0.5;
        const std::vector<sky_satellite> sky = tracking_sky();
        gnss_signal_simulator sim = qa::simulate_sky(sky, fs, 404);
        auto cuda = multichannel_correlator::make(make_config("cuda", fs));
        auto cpu = multichannel_correlator::make(make_config("cpu", fs));
        for (std::size_t i = 0; i < sky.size(); ++i) {
            const gnss_channel c =
                tracking_channel(sky[i], static_cast<std::uint32_t>(i));
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
                      << " chip, Doppler RMS " << g.doppler_rms_hz << " Hz, "
                      << g.unlocked << " of " << g.epochs << " unlocked, " << g.bit_errors
                      << " of " << g.decoded_bits.size() << " bits wrong; cpu code RMS "
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

    /*!
     * 5000 channels (PRNs cycling, random code phases, Doppler spread, half tracking)
     * over 0.12 s: every channel's records present, in id then time order and
     * contiguous; open-loop channels with exactly the epoch lengths of the integer
     * NCO; a sample of them against the reference.
     */
    void many_channels(const std::string&)
    {
        const double fs = 4e6;
        const std::size_t n = 480000;
        const std::size_t nch = 5000;
        gnss_simulator_config sim_config;
        sim_config.sample_rate_hz = fs;
        sim_config.seed = 99;
        std::vector<gnss_simulated_satellite> sats;
        for (int prn : { 2, 13, 29 }) {
            gnss_simulated_satellite sat;
            sat.code = gps_l1ca_code(prn);
            sat.code_phase_chips = 100.0 * prn;
            sat.doppler_hz = 150.0 * prn - 2000.0;
            sat.cn0_dbhz = 48.0;
            sats.push_back(sat);
        }
        gnss_signal_simulator sim(sim_config, sats);
        std::vector<cfloat> x32(n);
        sim.generate(x32.data(), n);
        std::vector<cdouble> x(x32.begin(), x32.end());
        qa::gaussian_source g(1);
        auto engine = multichannel_correlator::make(make_config("cuda", fs));
        std::vector<gnss_channel> channels;
        for (std::size_t i = 0; i < nch; ++i) {
            gnss_channel c;
            c.id = static_cast<std::uint32_t>(nch - i) * 3; // added in descending id
            c.code = gps_l1ca_code(1 + int(i % 32));
            c.code_phase_chips = g.uniform(0.0, 1023.0);
            c.carrier_frequency_hz = g.uniform(-5000.0, 5000.0);
            c.code_rate_cps =
                1.023e6 * (1.0 + c.carrier_frequency_hz / gps_l1_frequency_hz);
            c.mode = i % 2 ? gnss_channel_mode::tracking : gnss_channel_mode::open_loop;
            c.periods_per_integration = i % 2 ? 1 : 1 + i % 5;
            engine->add_channel(c);
            channels.push_back(c);
        }
        gnss_correlator_results r;
        poison(r, 3);
        engine->process(x32.data(), n, r);
        strip_poison_finite(r);
        std::sort(channels.begin(), channels.end(), [](const auto& a, const auto& b) {
            return a.id < b.id;
        });
        std::size_t i = 0;
        for (const auto& c : channels) {
            const std::size_t first = i;
            while (i < r.records.size() && r.records[i].channel_id == c.id) {
                const auto& rec = r.records[i];
                CPPUNIT_ASSERT_EQUAL(std::uint64_t(i - first), rec.epoch);
                if (i > first)
                    CPPUNIT_ASSERT_EQUAL(r.records[i - 1].start_sample +
                                             r.records[i - 1].sample_count,
                                         rec.start_sample);
                ++i;
            }
            CPPUNIT_ASSERT(i - first >= n / (4000 * 5) - 1);
            if (c.mode == gnss_channel_mode::open_loop) {
                // Epoch count from the integer NCO alone.
                const int128 S = std::llround((long double)c.code_rate_cps / fs * two32);
                const int128 E =
                    int128(c.periods_per_integration) * 1023 * (int128(1) << 32);
                const int128 P0 = static_cast<int128>(
                    std::floor((long double)c.code_phase_chips * two32));
                const int128 ends = (P0 + int128(n) * S) / E;
                CPPUNIT_ASSERT_EQUAL(static_cast<std::size_t>(ends), i - first);
            }
        }
        CPPUNIT_ASSERT_EQUAL(r.records.size(), i);
        for (std::size_t k = 0; k < nch; k += 997)
            if (channels[k].mode == gnss_channel_mode::open_loop)
                check_channel(r, x, fs, channels[k], "many channels");
        const gnss_cuda_timing t = cuda_engine(*engine).last_timing();
        std::cout << "qa_multichannel_correlator_float64: " << nch << " channels x " << n
                  << " samples: kernel " << t.correlate_ms << " ms ("
                  << double(nch) * double(n) / (t.correlate_ms * 1e-3) / 1e9
                  << " G channel-samples/s), call " << t.total_ms << " ms, "
                  << r.records.size() << " records, "
                  << cuda_engine(*engine).channels_per_block() << " channels per block"
                  << std::endl;
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_multichannel_correlator_float64);

} // namespace core
} // namespace cudadsp
} // namespace gr
