/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_multichannel_correlator: tracking on gnss_signal_simulator signals (truth known at
// every sample): a simulated sky, and two satellites through non-finite and overflowing
// samples.

#include "qa_gnss_reference.h"
#include "qa_multichannel_correlator.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using cfloat = std::complex<float>;

using multichannel_correlator_qa::make_config;
using qa::measure_tracking;
using qa::records_of;
using qa::sky_satellite;
using qa::tracking_channel;
using qa::tracking_quality;

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
void qa_multichannel_correlator::tracking_simulated_sky(const std::string& device)
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
void qa_multichannel_correlator::tracking_through_bad_samples(const std::string& device)
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
                before_gap.correlations.insert(
                    before_gap.correlations.end(), r.taps_of(j), r.taps_of(j) + r.taps);
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
        const tracking_quality q = measure_tracking(before_gap, sim, i, sky[i], fs, 0.5);
        std::cout << "qa_multichannel_correlator: " << device
                  << " through bad samples, PRN " << sky[i].prn << ": " << flagged
                  << " epochs flagged, code RMS " << q.code_rms_chips
                  << " chip, Doppler RMS " << q.doppler_rms_hz << " Hz, " << q.unlocked
                  << " of " << q.epochs
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

} // namespace core
} // namespace cudadsp
} // namespace gr
