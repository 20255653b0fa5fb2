/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The Galileo E1 navigation channel against the truth of a simulated signal: a Galileo
// E1 B+C satellite of the signal simulator whose E1-B component carries the I/NAV pages
// of the encoder written apart from the decoder (gnss/galileo_inav_encoder.h, through
// tests/support/qa_galileo_inav_words.h), symbol 0 sent
// at a known GST. The records are those a perfect tracker with 4-ms epochs would report
// (code phase and carrier from the simulator's truth, the prompt the symbol's level),
// as qa_gps_receiver does for GPS: their code phases are exact, so the channel's
// nanoseconds show, where the loops' noise would hide them. One case runs the sample
// path too: 7 s of simulated E1 samples through the CPU correlator on the E1-B code.
// The transmit time's truth is the simulator's code phase: GST of symbol 0 + chips
// since / chip rate.

#include "gnss/galileo_navigation_channel.h"
#include "qa_galileo_inav_words.h"
#include "qa_gnss_reference.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr int prn = 11;
constexpr double chips_per_period = galileo_e1_code_length;
constexpr double sample_rate_hz = 4e6;
constexpr int first_tow_s = 345600; // GST of the even part that symbol 0 starts
//! One I/NAV sub-frame of E1-B (15 pages, 30 s) by word type, the almanac words
//! (7 to 10) replaced by word 0.
const int schedule[15] = { 2, 4, 6, 0, 0, 0, 0, 0, 0, 0, 1, 3, 5, 0, 0 };

//! What the broadcast says: the word values, each page's TOW its even part's GST.
struct broadcast {
    qa::word_values values;
    std::vector<std::int8_t> levels; //!< E1-B symbol levels, logic 1 as -1
    //! The expected decoder state after the last page: TOW of its last word 5 and 6.
    qa::word_values last;
};

/*!
 * \p pages pages of the schedule from first_tow_s on. A page index in \p lying states
 * a GST one second late (words 0 and 5); one in \p crc_damaged has a wrong CRC.
 */
broadcast make_broadcast(int pages,
                         const std::set<int>& lying = {},
                         const std::set<int>& crc_damaged = {})
{
    broadcast b;
    b.last = b.values;
    for (int k = 0; k < pages; ++k) {
        qa::word_values v = b.values;
        const int tow = first_tow_s + 2 * k + (lying.count(k) ? 1 : 0);
        v.tow0 = v.tow5 = v.tow6 = tow;
        const int type = schedule[k % 15];
        const qa::damage d =
            crc_damaged.count(k) ? qa::damage::crc_field : qa::damage::none;
        for (double s : qa::page_symbols(qa::word_of_type(type, v), d)) {
            b.levels.push_back(s > 0.0 ? -1 : 1);
        }
        if (type == 5 && d == qa::damage::none) {
            b.last.tow5 = tow;
        } else if (type == 6 && d == qa::damage::none) {
            b.last.tow6 = tow;
        }
    }
    return b;
}

//! The Galileo E1 B+C satellite carrying \p levels, symbol 0 at chip 0, seen from
//! \p start_periods code periods into it at sample 0.
gnss_signal_simulator simulate(const std::vector<std::int8_t>& levels,
                               double start_periods)
{
    gnss_simulated_satellite s;
    s.code = boc11_expand(galileo_e1_code(prn, galileo_e1_component::b));
    s.pilot_code = boc11_expand(galileo_e1_code(prn, galileo_e1_component::c));
    s.code_entries_per_chip = 2;
    s.chip_rate_cps = galileo_e1_chip_rate_cps;
    s.code_phase_chips = start_periods * chips_per_period;
    s.doppler_hz = -2345.6;
    s.doppler_rate_hz_per_s = 0.7;
    s.code_periods_per_bit = 1;
    s.bits = levels;
    gnss_simulator_config config;
    config.sample_rate_hz = sample_rate_hz;
    return gnss_signal_simulator(config, { s });
}

//! The GST time of week at which the signal received at sample \p n left.
double true_transmit_s(const gnss_signal_simulator& sim, double n)
{
    return first_tow_s + sim.code_phase_total_chips(0, n) / galileo_e1_chip_rate_cps;
}

/*!
 * The records of a perfect tracker with 4-ms epochs: each epoch ends at the first
 * sample past a code period's end, the code phase and the carrier are the truth's
 * there, the prompt is the symbol's level times \p polarity (-1: the carrier half a
 * cycle off).
 */
struct perfect_record {
    gnss_epoch_record record;
    std::complex<float> prompt;
    std::int64_t symbol; //!< the simulator's symbol index of the epoch
};

std::vector<perfect_record>
perfect_tracker(const gnss_signal_simulator& sim, double duration_s, int polarity)
{
    std::vector<perfect_record> out;
    double period = std::floor(sim.code_phase_total_chips(0, 0.0) / chips_per_period);
    std::uint64_t start = 0;
    for (std::uint64_t epoch = 0;; ++epoch) {
        const double end_chips = (period + 1.0) * chips_per_period;
        double n = static_cast<double>(start) + 4e-3 * sample_rate_hz;
        for (int k = 0; k < 4; ++k) {
            n += (end_chips - sim.code_phase_total_chips(0, n)) /
                 sim.code_rate_cps(0, n) * sample_rate_hz;
        }
        const std::uint64_t end = static_cast<std::uint64_t>(std::floor(n)) + 1;
        if (end > duration_s * sample_rate_hz) {
            return out;
        }
        perfect_record p{};
        gnss_epoch_record& r = p.record;
        r.channel_id = 3;
        r.flags = gnss_flag_tracking | gnss_flag_cn0_valid | gnss_flag_code_lock |
                  gnss_flag_carrier_lock;
        r.epoch = epoch;
        r.start_sample = start;
        r.sample_count = static_cast<std::uint32_t>(end - start);
        const double e = static_cast<double>(end);
        r.code_phase_chips = sim.code_phase_total_chips(0, e) - end_chips;
        r.code_rate_cps = sim.code_rate_cps(0, e);
        r.doppler_hz = sim.doppler_hz(0, e);
        r.cn0_dbhz = 45.0f;
        p.symbol = static_cast<std::int64_t>(period);
        const int level = polarity * sim.bit(0, p.symbol);
        r.prompt_sign = level;
        p.prompt = std::complex<float>(300.0f * level, 7.0f);
        out.push_back(p);
        start = end;
        period += 1.0;
    }
}

//! What a run of the channel gave: the states by the record's index.
struct run_result {
    std::vector<int> stated; //!< record indices with a state
    double worst_error_s = 0.0;
    std::set<int> polarities;
};

run_result run_channel(galileo_navigation_channel& channel,
                       const gnss_signal_simulator& sim,
                       const std::vector<perfect_record>& records,
                       const std::function<bool(std::size_t)>& keep = {})
{
    run_result result;
    for (std::size_t i = 0; i < records.size(); ++i) {
        if (keep && !keep(i)) {
            continue;
        }
        gnss_channel_epoch state;
        state.prn = -1; // poisoned: a state not filled shows
        state.code_periods_since_subframe_start = 1u << 30;
        if (!channel.push(records[i].record, records[i].prompt, state)) {
            continue;
        }
        CPPUNIT_ASSERT(state.system == gnss_system::galileo);
        CPPUNIT_ASSERT_EQUAL(prn, state.prn);
        const gnss_epoch_record& r = records[i].record;
        CPPUNIT_ASSERT_EQUAL(r.start_sample + r.sample_count, state.sample_index);
        const double stated =
            state.subframe_start_tow_s +
            (static_cast<double>(state.code_periods_since_subframe_start) *
                 chips_per_period +
             state.code_phase_chips) /
                galileo_e1_chip_rate_cps;
        const double error = std::abs(
            stated - true_transmit_s(sim, static_cast<double>(state.sample_index)));
        result.worst_error_s = std::max(result.worst_error_s, error);
        result.stated.push_back(static_cast<int>(i));
        result.polarities.insert(state.bit_polarity);
    }
    return result;
}

//! The record index on which the page \p page (of the broadcast) completes.
int page_end_record(const std::vector<perfect_record>& records, int page)
{
    const std::int64_t last_symbol = 500 * (page + 1) - 1;
    return static_cast<int>(last_symbol - records.front().symbol);
}

} // namespace

class qa_galileo_navigation_channel : public CppUnit::TestCase
{
    CPPUNIT_TEST_SUITE(qa_galileo_navigation_channel);
    CPPUNIT_TEST(ephemeris_and_transmit_times_match_the_truth);
    CPPUNIT_TEST(inverted_polarity_is_resolved);
    CPPUNIT_TEST(interrupted_stream_recovers);
    CPPUNIT_TEST(failed_crc_pages_never_give_a_time_mark);
    CPPUNIT_TEST(contradicting_gst_is_never_used);
    CPPUNIT_TEST(sample_path_through_the_correlator);
    CPPUNIT_TEST(bad_prn_names_parameter);
    CPPUNIT_TEST_SUITE_END();

public:
    // Two sub-frames, received from 137.3 code periods into page 0 (mid-page): its odd
    // part syncs and is left unpaired, page 1 is the first decoded, page 3 (word 0) the
    // first mark and page 4 (word 0) confirms it; pages 15 and 16 bring words 2 and 4
    // again, completing the ephemeris.
    void ephemeris_and_transmit_times_match_the_truth()
    {
        const broadcast b = make_broadcast(30);
        const gnss_signal_simulator sim = simulate(b.levels, 137.3);
        const auto records = perfect_tracker(sim, 59.0, 1);
        galileo_navigation_channel channel(prn);
        CPPUNIT_ASSERT(channel.stage() == galileo_navigation_stage::page_sync);
        const run_result r = run_channel(channel, sim, records);

        qa::check_every_field(channel.decoder(), b.last);
        CPPUNIT_ASSERT(!r.stated.empty());
        CPPUNIT_ASSERT(r.worst_error_s < 1e-9);
        CPPUNIT_ASSERT_EQUAL(page_end_record(records, 4), r.stated.front());
        CPPUNIT_ASSERT_EQUAL(records.size() - r.stated.front(), r.stated.size());
        CPPUNIT_ASSERT(r.polarities == std::set<int>{ 1 });
        CPPUNIT_ASSERT(channel.stage() == galileo_navigation_stage::time_known);
        CPPUNIT_ASSERT_EQUAL(static_cast<int>(b.values.wn), channel.mark_week());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), channel.counters().gst_contradictions);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), channel.counters().restarts);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), channel.inav_counters().crc_failures);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(records.size()), channel.counters().records);
    }

    void inverted_polarity_is_resolved()
    {
        const broadcast b = make_broadcast(30);
        const gnss_signal_simulator sim = simulate(b.levels, 400.0);
        const auto records = perfect_tracker(sim, 59.0, -1);
        galileo_navigation_channel channel(prn);
        const run_result r = run_channel(channel, sim, records);
        qa::check_every_field(channel.decoder(), b.last);
        CPPUNIT_ASSERT_EQUAL(-1, channel.decoder().polarity());
        CPPUNIT_ASSERT(r.polarities == std::set<int>{ -1 });
        CPPUNIT_ASSERT(!r.stated.empty());
        CPPUNIT_ASSERT(r.worst_error_s < 1e-9);
    }

    // Records lost from the middle of page 8 to the middle of page 9: the channel
    // restarts, finds the pages again and states times from the second GST page after
    // the gap on; none in between.
    void interrupted_stream_recovers()
    {
        const broadcast b = make_broadcast(20);
        const gnss_signal_simulator sim = simulate(b.levels, 0.0);
        const auto records = perfect_tracker(sim, 39.0, 1);
        const int gap_from = page_end_record(records, 8) - 260;
        const int gap_to = page_end_record(records, 9) - 170;
        galileo_navigation_channel channel(prn);
        const run_result r = run_channel(channel, sim, records, [&](std::size_t i) {
            return static_cast<int>(i) < gap_from || static_cast<int>(i) >= gap_to;
        });
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), channel.counters().restarts);
        CPPUNIT_ASSERT(r.worst_error_s < 1e-9);
        // Page 10 is the first whole one after the gap, synced on its odd part's
        // pattern: 10 (word 1) is the first decoded, 12 (word 5) marks, 13 confirms.
        const int resumed = page_end_record(records, 13);
        int before = 0, after = 0;
        for (int i : r.stated) {
            CPPUNIT_ASSERT(i < gap_from || i >= resumed);
            (i < gap_from ? before : after) += 1;
        }
        CPPUNIT_ASSERT(before > 0);
        CPPUNIT_ASSERT_EQUAL(static_cast<int>(records.size()) - resumed, after);
        CPPUNIT_ASSERT(channel.stage() == galileo_navigation_stage::time_known);
    }

    // Every GST page with a wrong CRC: pages decode, no time mark, never a state.
    void failed_crc_pages_never_give_a_time_mark()
    {
        std::set<int> damaged;
        for (int k = 0; k < 30; ++k) {
            if (schedule[k % 15] == 0 || schedule[k % 15] == 5) {
                damaged.insert(k);
            }
        }
        const broadcast b = make_broadcast(30, {}, damaged);
        const gnss_signal_simulator sim = simulate(b.levels, 0.0);
        const auto records = perfect_tracker(sim, 59.0, 1);
        galileo_navigation_channel channel(prn);
        const run_result r = run_channel(channel, sim, records);
        CPPUNIT_ASSERT(r.stated.empty());
        CPPUNIT_ASSERT(channel.stage() == galileo_navigation_stage::gst_search);
        CPPUNIT_ASSERT(channel.inav_counters().crc_failures >= damaged.size() - 1);
        CPPUNIT_ASSERT(!channel.decoder().has_gst());

        // Random symbols: nothing at all.
        const gnss_signal_simulator random = simulate({}, 0.0);
        galileo_navigation_channel other(prn);
        const run_result n = run_channel(other, random, perfect_tracker(random, 20.0, 1));
        CPPUNIT_ASSERT(n.stated.empty());
        CPPUNIT_ASSERT(other.stage() == galileo_navigation_stage::page_sync);
    }

    // Page 6 states a GST one second late: it contradicts the confirmed mark and the
    // next GST page contradicts it; the page after confirms again. Every time stated is
    // the truth's, and none from page 6 until page 8 completes.
    void contradicting_gst_is_never_used()
    {
        const broadcast b = make_broadcast(15, { 6 });
        const gnss_signal_simulator sim = simulate(b.levels, 0.0);
        const auto records = perfect_tracker(sim, 29.0, 1);
        galileo_navigation_channel channel(prn);
        const run_result r = run_channel(channel, sim, records);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(2), channel.counters().gst_contradictions);
        CPPUNIT_ASSERT(r.worst_error_s < 1e-9);
        const int lie = page_end_record(records, 6);
        const int confirmed = page_end_record(records, 8);
        for (int i : r.stated) {
            CPPUNIT_ASSERT(i < lie || i >= confirmed);
        }
        CPPUNIT_ASSERT_EQUAL(confirmed,
                             *std::find_if(r.stated.begin(), r.stated.end(), [&](int i) {
                                 return i >= lie;
                             }));
    }

    // The sample path: 7 s of E1 B+C at 4 Msps and 45 dB-Hz through the CPU
    // correlator, one channel on the E1-B code (its Costas PLL ignores the symbols)
    // from acquisition-like errors, received from mid-page 3. Page 3's odd part syncs,
    // page 4 (word 0) marks, page 5 (word 0) confirms; from then on every record has a
    // time, within 0.01 chip (10 ns) of the truth: the loops' noise, not the channel's.
    void sample_path_through_the_correlator()
    {
        const broadcast b = make_broadcast(8);
        const double start_periods = 1510.3;
        gnss_signal_simulator sim = simulate(b.levels, start_periods);
        qa::sky_satellite s{ prn, 45.0, -2345.6, 0.7,  0.3 * chips_per_period,
                             0.0, 0.05, 20.0,    false };
        s.e1b_table = boc11_expand(galileo_e1_code(prn, galileo_e1_component::b));
        s.e1c_table = boc11_expand(galileo_e1_code(prn, galileo_e1_component::c));
        gnss_channel c = qa::tracking_channel(s, 3);
        c.code = s.e1b_table; // the data component: its prompt carries the symbols
        multichannel_correlator_config config;
        config.device = "cpu";
        config.sample_rate_hz = sample_rate_hz;
        config.taps = 3;
        auto engine = multichannel_correlator::make(config);
        engine->add_channel(c);

        galileo_navigation_channel channel(prn);
        const std::size_t chunk = 1 << 20, total = 7 * 4000000;
        std::vector<std::complex<float>> x(chunk);
        gnss_correlator_results r;
        int stated = 0, first_stated_symbol = -1, polarity_votes = 0;
        double worst_error_s = 0.0;
        for (std::size_t done = 0; done < total; done += chunk) {
            sim.generate(x.data(), chunk);
            r.clear();
            engine->process(x.data(), chunk, r);
            for (std::size_t i = 0; i < r.records.size(); ++i) {
                const gnss_epoch_record& rec = r.records[i];
                const std::complex<float> prompt = r.taps_of(i)[1];
                const int symbol =
                    static_cast<int>(start_periods) + static_cast<int>(rec.epoch);
                polarity_votes +=
                    (prompt.real() > 0) == (sim.bit(0, symbol) > 0) ? 1 : -1;
                gnss_channel_epoch state;
                if (!channel.push(rec, prompt, state)) {
                    continue;
                }
                if (stated++ == 0) {
                    first_stated_symbol = symbol;
                }
                const double t =
                    state.subframe_start_tow_s +
                    (static_cast<double>(state.code_periods_since_subframe_start) *
                         chips_per_period +
                     state.code_phase_chips) /
                        galileo_e1_chip_rate_cps;
                worst_error_s = std::max(
                    worst_error_s,
                    std::abs(t - true_transmit_s(
                                     sim, static_cast<double>(state.sample_index))));
                CPPUNIT_ASSERT_EQUAL(channel.decoder().polarity(), state.bit_polarity);
            }
        }
        std::cout << "qa_galileo_navigation_channel: sample path: " << stated
                  << " records with a time, worst error " << worst_error_s * 1e9 << " ns"
                  << std::endl;
        CPPUNIT_ASSERT_EQUAL(2999, first_stated_symbol);
        CPPUNIT_ASSERT(stated > 200);
        CPPUNIT_ASSERT(worst_error_s < 0.01 / galileo_e1_chip_rate_cps);
        // The PLL's half-cycle: most prompts agree with the symbols or most disagree.
        CPPUNIT_ASSERT_EQUAL(polarity_votes > 0 ? 1 : -1, channel.decoder().polarity());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), channel.counters().gst_contradictions);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), channel.inav_counters().crc_failures);
    }

    void bad_prn_names_parameter()
    {
        for (int bad : { 0, 51 }) {
            try {
                galileo_navigation_channel channel(bad);
                CPPUNIT_FAIL("accepted PRN out of range");
            } catch (const std::invalid_argument& x) {
                CPPUNIT_ASSERT(std::string(x.what()).find("prn") != std::string::npos);
            }
        }
        CPPUNIT_ASSERT_EQUAL(std::string("E05"),
                             gnss_satellite_id(gnss_system::galileo, 5));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_galileo_navigation_channel);

} // namespace core
} // namespace cudadsp
} // namespace gr
