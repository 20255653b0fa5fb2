/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_multichannel_correlator_float64: channels added, re-initialised and removed, and
// starting in the past or the future, against the CPU backend; and 5000 channels at once.

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
using int128 = __int128;

constexpr long double two32 = 4294967296.0L;

using multichannel_correlator_float64_qa::assert_same_nco_fields;
using multichannel_correlator_float64_qa::check_channel;
using multichannel_correlator_float64_qa::cuda_engine;
using multichannel_correlator_float64_qa::make_config;
using multichannel_correlator_float64_qa::strip_poison_finite;
using qa::open_loop_channel;
using qa::poison;
using qa::records_of;

} // namespace

/*!
 * Channels added, re-initialised and removed between calls, on both backends with
 * the same operations: the same records (NCO fields identical, correlations
 * within tolerance of each other), in ascending id order.
 */
void qa_multichannel_correlator_float64::add_remove_reinit_against_cpu(const std::string&)
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
                CPPUNIT_ASSERT(rg.records[i - 1].channel_id <= rg.records[i].channel_id);
            for (std::size_t t = 0; t < 3; ++t) {
                const cdouble a(rg.taps_of(i)[t]), b(rc.taps_of(i)[t]);
                const double scale = std::sqrt(double(rg.records[i].sample_count));
                CPPUNIT_ASSERT(std::abs(a - b) <= 2e-4 * std::max(std::abs(b), scale));
            }
        }
    };
    for (std::uint32_t id : { 30u, 4u, 17u })
        both([&](multichannel_correlator& e) { e.add_channel(channel(id, 10.0 * id)); });
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
void qa_multichannel_correlator_float64::start_sample_past_and_future(const std::string&)
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
 * 5000 channels (PRNs cycling, random code phases, Doppler spread, half tracking)
 * over 0.12 s: every channel's records present, in id then time order and
 * contiguous; open-loop channels with exactly the epoch lengths of the integer
 * NCO; a sample of them against the reference.
 */
void qa_multichannel_correlator_float64::many_channels(const std::string&)
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
        c.code_rate_cps = 1.023e6 * (1.0 + c.carrier_frequency_hz / gps_l1_frequency_hz);
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
            const int128 E = int128(c.periods_per_integration) * 1023 * (int128(1) << 32);
            const int128 P0 =
                static_cast<int128>(std::floor((long double)c.code_phase_chips * two32));
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

} // namespace core
} // namespace cudadsp
} // namespace gr
