/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_multichannel_correlator_float64: the stream however it comes: split into calls of
// random sizes, one call longer than a kernel chunk, and input already on the device.

#include "qa_gnss_reference.h"
#include "qa_multichannel_correlator_float64.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <cuda_runtime_api.h>
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

using multichannel_correlator_float64_qa::assert_identical;
using multichannel_correlator_float64_qa::cuda_engine;
using multichannel_correlator_float64_qa::e1_boc_table;
using multichannel_correlator_float64_qa::make_config;
using multichannel_correlator_float64_qa::simulate;
using multichannel_correlator_float64_qa::strip_poison_finite;
using multichannel_correlator_float64_qa::test_input;
using qa::open_loop_channel;
using qa::poison;
using qa::records_of;

} // namespace

/*!
 * The same stream in one call and in many calls of random sizes (0, 1, a few and
 * thousands of samples): every record field and correlation bit-identical, for
 * tracking and open-loop channels (the sample-to-lane mapping and the float
 * folding points follow absolute sample indices, not calls).
 */
void qa_multichannel_correlator_float64::split_invariance(const std::string&)
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
void qa_multichannel_correlator_float64::call_longer_than_a_chunk(const std::string&)
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
        split->process(
            x.data() + 2 * done, std::min<std::size_t>(1000003, n - done), parts.back());
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
void qa_multichannel_correlator_float64::process_device_matches_process(
    const std::string&)
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
        CPPUNIT_ASSERT_EQUAL(cudaSuccess,
                             cudaMemcpy(d, in.data(f), bytes, cudaMemcpyHostToDevice));
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

} // namespace core
} // namespace cudadsp
} // namespace gr
