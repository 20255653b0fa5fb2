/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_multichannel_correlator: correlator values against the float64 reference in each
// input format (tolerances in qa_multichannel_correlator.h), and the same values however
// the stream is split into calls.

#include "qa_gnss_reference.h"
#include "qa_multichannel_correlator.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

using multichannel_correlator_qa::make_config;
using qa::open_loop_channel;
using qa::poison;
using qa::records_of;
using qa::reference_correlate;
using qa::same_bits;
using qa::strip_poison;

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
            *std::find_if(channels.begin(), channels.end(), [id](const gnss_channel& ch) {
                return ch.id == id;
            });
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

} // namespace

void qa_multichannel_correlator::cf32_against_float64(const std::string& device)
{
    check_against_float64(device, gnss_sample_format::cf32);
}
void qa_multichannel_correlator::ci16_against_float64(const std::string& device)
{
    check_against_float64(device, gnss_sample_format::ci16);
}
void qa_multichannel_correlator::ci8_against_float64(const std::string& device)
{
    check_against_float64(device, gnss_sample_format::ci8);
}

/*!
 * The same stream processed in one call and in many calls of random sizes (1
 * sample to several epochs, empty calls too) gives identical records and
 * correlations, bit for bit, for open-loop and tracking channels.
 */
void qa_multichannel_correlator::split_invariance(const std::string& device)
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

} // namespace core
} // namespace cudadsp
} // namespace gr
