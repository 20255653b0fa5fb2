/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_multichannel_correlator_float64: correlator values against the float64 reference
// (tolerance in qa_multichannel_correlator_float64.h): channels of every kind in each
// input format with three and five taps, eleven taps in two passes, and a code read
// from global memory.

#include "qa_gnss_reference.h"
#include "qa_multichannel_correlator_float64.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <algorithm>
#include <cmath>
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
using cdouble = std::complex<double>;

using multichannel_correlator_float64_qa::assert_identical;
using multichannel_correlator_float64_qa::assert_same_nco_fields;
using multichannel_correlator_float64_qa::check_channel;
using multichannel_correlator_float64_qa::cuda_engine;
using multichannel_correlator_float64_qa::e1_boc_table;
using multichannel_correlator_float64_qa::make_config;
using multichannel_correlator_float64_qa::simulate;
using multichannel_correlator_float64_qa::strip_poison_finite;
using multichannel_correlator_float64_qa::test_input;
using qa::open_loop_channel;
using qa::poison;
using qa::records_of;

std::vector<std::int8_t> random_code(std::size_t n, std::uint64_t seed)
{
    qa::gaussian_source g(seed);
    std::vector<std::int8_t> code(n);
    for (auto& v : code)
        v = g.uniform() < 0.5 ? 1 : -1;
    return code;
}

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

} // namespace

void qa_multichannel_correlator_float64::cf32_three_taps_against_float64(
    const std::string&)
{
    check_against_float64(gnss_sample_format::cf32, 3);
}
void qa_multichannel_correlator_float64::ci16_three_taps_against_float64(
    const std::string&)
{
    check_against_float64(gnss_sample_format::ci16, 3);
}
void qa_multichannel_correlator_float64::ci8_three_taps_against_float64(
    const std::string&)
{
    check_against_float64(gnss_sample_format::ci8, 3);
}
void qa_multichannel_correlator_float64::cf32_five_taps_against_float64(
    const std::string&)
{
    check_against_float64(gnss_sample_format::cf32, 5);
}
void qa_multichannel_correlator_float64::ci16_five_taps_against_float64(
    const std::string&)
{
    check_against_float64(gnss_sample_format::ci16, 5);
}
void qa_multichannel_correlator_float64::ci8_five_taps_against_float64(const std::string&)
{
    check_against_float64(gnss_sample_format::ci8, 5);
}

/*!
 * More taps than one walk carries (8): the kernel makes two passes per piece of
 * samples and keeps the partial sums between pieces; against the reference, and
 * the same stream in uneven calls bit-identical to one call.
 */
void qa_multichannel_correlator_float64::eleven_taps_two_passes(const std::string&)
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
void qa_multichannel_correlator_float64::long_code_from_global_memory(const std::string&)
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

} // namespace core
} // namespace cudadsp
} // namespace gr
