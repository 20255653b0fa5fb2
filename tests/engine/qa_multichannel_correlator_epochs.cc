/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_multichannel_correlator: the NCOs against the integer definition (see
// qa_multichannel_correlator.h): epoch starts and lengths, the chip each tap takes at an
// epoch's edges, and open-loop rates.

#include "qa_gnss_reference.h"
#include "qa_multichannel_correlator.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;
using int128 = __int128;

using multichannel_correlator_qa::make_config;
using multichannel_correlator_qa::noise_samples;
using multichannel_correlator_qa::to_cf32;
using qa::open_loop_channel;
using qa::poison;
using qa::reference_correlate;
using qa::strip_poison;

//! 2^32: the NCOs' phase unit (2^-32 table entries a sample).
constexpr long double two32 = 4294967296.0L;

} // namespace

/*!
 * Epoch starts and lengths of open-loop channels against the integer definition
 * (every case), and against the ideal rational phase where the step is exact
 * (fs = 2^22 Hz makes 1.023e6 chips/s exactly 1023 * 2^10 2^-32 entries a sample).
 */
void qa_multichannel_correlator::epoch_sample_counts(const std::string& device)
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
        { 4e6, boc11_expand(gps_l1ca_code(6)), 2, 1.023e6 - 1.234, 1234.567, 2, false },
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
void qa_multichannel_correlator::chip_at_epoch_edges(const std::string& device)
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

//! Open loop: the NCOs keep the given (quantised) rates; the loops do not move them.
void qa_multichannel_correlator::open_loop_keeps_its_rates(const std::string& device)
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
        CPPUNIT_ASSERT_DOUBLES_EQUAL(double(phase / two32), rec.code_phase_chips, 1e-9);
        // Accumulated Doppler phase: -3125.5 Hz over the samples so far.
        const double t = double(rec.start_sample + rec.sample_count) / fs;
        CPPUNIT_ASSERT_DOUBLES_EQUAL(doppler * t, rec.carrier_cycles, 1e-6);
    }
    const auto& last = r.records.back();
    CPPUNIT_ASSERT(last.flags & gnss_flag_cn0_valid);
    // Noise alone: the estimator's floor, 26.7 dB-Hz at 1 ms, below the lock
    // threshold.
    CPPUNIT_ASSERT(std::abs(last.cn0_dbhz - 26.7f) < 3.0f);
    CPPUNIT_ASSERT_EQUAL(0u, last.flags & (gnss_flag_code_lock | gnss_flag_carrier_lock));
}

} // namespace core
} // namespace cudadsp
} // namespace gr
