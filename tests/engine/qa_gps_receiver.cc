/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The receiver pipeline end to end against the scenario's truth: a static receiver near
// Vienna sees the nominal constellation (one satellite marked unhealthy) with the
// Klobuchar ionosphere and no troposphere. Two ways in:
//  - the samples at 45 dB-Hz through the CPU multichannel correlator, channels started
//    from the truth's code phase and Doppler (acquisition is tested elsewhere);
//  - a perfect tracker: records whose code phase, carrier and prompt signs are the
//    truth's, cheap enough for the bad-data cases (corrupted bits, a subframe with a
//    false HOW, too few satellites, a recording shorter than a subframe).
// Sample 0 falls 0.45 s before subframe 1 of a frame whose subframe 4 is page 18, so
// the ephemerides are complete after about 18.5 s and the broadcast ionosphere after
// about 24.5 s. Expected values come from the truth and the definitions: the fix from
// the receiver's true position, the GPS time from the sample index, the DOPs from the
// truth geometry, the first fix from the samples at which subframe 3 ends.

#include "gnss/gnss_atmosphere.h"
#include "gnss/gnss_geodesy.h"
#include "gnss/gps_constellation_scenario.h"
#include "gnss/gps_lnav.h"
#include "gnss/gps_nominal_constellation.h"
#include "gnss/gps_receiver.h"
#include "qa_gps_receiver_run.h"
#include "qa_gps_receiver_truth.h"
#include "qa_gps_scenario.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using namespace qa;
const gnss_klobuchar_coefficients& broadcast_klobuchar = qa::broadcast_klobuchar();

gps_receiver_config receiver_config(double sample_rate_hz)
{
    gps_receiver_config config;
    config.observables.sample_rate_hz = sample_rate_hz;
    config.pvt.troposphere = gnss_troposphere_model::none;
    config.pvt.elevation_mask_rad = 5.0 * pi / 180; // below the scenario's 10 deg
    return config;
}

fix_errors errors_of(const gps_receiver_epoch& e)
{
    return position_errors(e.fix.position_m);
}

/*!
 * The checks every fix must pass against the truth: position within the given
 * distances, GPS time from the sample index, velocity near 0, DOPs of the truth
 * geometry, every visible healthy satellite used and the unhealthy one left out.
 */
void check_fix(const gps_constellation_scenario& scenario,
               const gps_receiver_epoch& e,
               double max_horizontal_m,
               double max_three_d_m,
               double max_speed_m_s)
{
    CPPUNIT_ASSERT_MESSAGE(e.fix.reason, e.fix.valid);
    const fix_errors err = errors_of(e);
    CPPUNIT_ASSERT_MESSAGE(std::to_string(err.horizontal_m),
                           err.horizontal_m < max_horizontal_m);
    CPPUNIT_ASSERT_MESSAGE(std::to_string(err.three_d_m), err.three_d_m < max_three_d_m);
    const double fs = scenario.signal().config().sample_rate_hz;
    const double true_tow = start_tow + e.observations.sample_index / fs;
    CPPUNIT_ASSERT_DOUBLES_EQUAL(
        true_tow, e.gps_time_of_week_s, 1.5 * max_three_d_m / gnss_speed_of_light_m_s);
    CPPUNIT_ASSERT(e.fix.velocity_valid);
    CPPUNIT_ASSERT(norm(e.fix.velocity_m_s) < max_speed_m_s);
    std::vector<int> used;
    for (const gnss_pvt_satellite& s : e.fix.satellites)
        if (s.used)
            used.push_back(s.prn);
    const std::vector<double> dops =
        truth_dops(scenario, used, e.observations.sample_index);
    CPPUNIT_ASSERT_DOUBLES_EQUAL(dops[0], e.fix.dops.hdop, 1e-3 * dops[0]);
    CPPUNIT_ASSERT_DOUBLES_EQUAL(dops[1], e.fix.dops.vdop, 1e-3 * dops[1]);
    CPPUNIT_ASSERT_DOUBLES_EQUAL(dops[2], e.fix.dops.pdop, 1e-3 * dops[2]);
    CPPUNIT_ASSERT_DOUBLES_EQUAL(dops[3], e.fix.dops.gdop, 1e-3 * dops[3]);
    const int unhealthy = scenario.satellite(unhealthy_prn_slot).ephemeris.prn;
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(scenario.satellite_count()) - 1,
                         e.fix.satellites_used);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), e.excluded.size());
    CPPUNIT_ASSERT_EQUAL(unhealthy, e.excluded[0].prn);
    CPPUNIT_ASSERT(e.excluded[0].reason.find("unhealthy") != std::string::npos);
}

/*!
 * The first fix comes at the first epoch formed after the fourth healthy satellite's
 * subframe 3 has arrived: an epoch is formed once the records reach max_state_gap_s
 * past it, so that is the first epoch later than the arrival less that margin (less one
 * record, as records arrive). Every epoch before it has no fix and says why; every
 * one from it on has one. Returns its index.
 */
std::size_t check_first_fix(const gps_constellation_scenario& scenario,
                            const gps_receiver_config& config,
                            const std::vector<gps_receiver_epoch>& epochs)
{
    const double fs = config.observables.sample_rate_hz;
    const double set = ephemeris_set_sample(scenario);
    const double margin = config.observables.max_state_gap_s * fs;
    std::size_t first = epochs.size();
    for (std::size_t k = 0; k < epochs.size(); ++k)
        if (epochs[k].fix.valid && first == epochs.size())
            first = k;
    CPPUNIT_ASSERT(first < epochs.size());
    CPPUNIT_ASSERT(epochs[first].observations.sample_index > set - margin - 1e-3 * fs);
    CPPUNIT_ASSERT(first == 0 ||
                   epochs[first - 1].observations.sample_index <= set - margin);
    for (std::size_t k = 0; k < first; ++k) {
        CPPUNIT_ASSERT(epochs[k].fix.reason.find("no ephemeris yet") !=
                       std::string::npos);
        CPPUNIT_ASSERT(std::isnan(epochs[k].gps_time_of_week_s));
    }
    for (std::size_t k = first; k < epochs.size(); ++k)
        CPPUNIT_ASSERT_MESSAGE(epochs[k].fix.reason, epochs[k].fix.valid);
    return first;
}

} // namespace

class qa_gps_receiver : public CppUnit::TestCase
{
    CPPUNIT_TEST_SUITE(qa_gps_receiver);
    CPPUNIT_TEST(perfect_tracking_fixes_the_truth);

    CPPUNIT_TEST(correlated_samples_fix_the_truth);
    CPPUNIT_TEST(corrupted_bits_are_counted_and_never_used);
    CPPUNIT_TEST(false_how_is_refused);
    CPPUNIT_TEST(three_satellites_give_no_fix);
    CPPUNIT_TEST(short_recording_says_what_it_waits_for);
    CPPUNIT_TEST_SUITE_END();

public:
    void perfect_tracking_fixes_the_truth()
    {
        // No ionosphere parameters known before page 18: the fixes before it are made
        // without the correction and say so; the ones after it match the truth.
        const double fs = 2.048e6, duration_s = 26.0;
        const gps_constellation_scenario scenario(scenario_config(duration_s, fs));
        CPPUNIT_ASSERT(scenario.satellite_count() >= 7);
        const gps_receiver_config config = receiver_config(fs);
        gps_receiver receiver(config);
        const auto epochs = run_perfect(scenario, receiver, all_of(scenario), duration_s);

        const std::size_t first = check_first_fix(scenario, config, epochs);
        std::vector<double> with_iono, without_iono;
        for (std::size_t k = first; k < epochs.size(); ++k) {
            const gps_receiver_epoch& e = epochs[k];
            // The pseudoranges against the truth's: equal up to the receiver clock's
            // bias, the same for every satellite.
            std::vector<double> bias;
            for (const gnss_observation& o : e.observations.observations)
                bias.push_back(
                    o.pseudorange_m -
                    scenario.truth(slot_of(scenario, o.prn), e.observations.sample_index)
                        .pseudorange_m);
            const auto spread = std::minmax_element(bias.begin(), bias.end());
            CPPUNIT_ASSERT(*spread.second - *spread.first < 1e-3);
            if (e.ionosphere_applied) {
                check_fix(scenario, e, 1e-3, 1e-3, 1e-3);
                with_iono.push_back(errors_of(e).three_d_m);
            } else {
                // The Klobuchar delays left in: a few metres, mostly height and clock.
                CPPUNIT_ASSERT(with_iono.empty());
                check_fix(scenario, e, 4.0, 5.0, 1e-3);
                without_iono.push_back(errors_of(e).three_d_m);
            }
        }
        CPPUNIT_ASSERT(with_iono.size() >= 1 && without_iono.size() >= 4);
        CPPUNIT_ASSERT(receiver.has_iono_utc());
        // Decoded from page 18 to within half an LSB (IS-GPS-200 Table 20-X).
        const int alpha_lsb[4] = { -30, -27, -24, -24 }, beta_lsb[4] = { 11, 14, 16, 16 };
        for (int k = 0; k < 4; ++k) {
            CPPUNIT_ASSERT_DOUBLES_EQUAL(broadcast_klobuchar.alpha[k],
                                         receiver.iono_utc().alpha[k],
                                         std::ldexp(0.5, alpha_lsb[k]));
            CPPUNIT_ASSERT_DOUBLES_EQUAL(broadcast_klobuchar.beta[k],
                                         receiver.iono_utc().beta[k],
                                         std::ldexp(0.5, beta_lsb[k]));
        }
        std::cout << "\nperfect tracking: first fix "
                  << epochs[first].observations.sample_index / fs << " s; "
                  << without_iono.size() << " fixes before page 18, largest 3-D error "
                  << *std::max_element(without_iono.begin(), without_iono.end()) << " m; "
                  << with_iono.size() << " after, largest "
                  << *std::max_element(with_iono.begin(), with_iono.end()) << " m\n";
    }

    void correlated_samples_fix_the_truth()
    {
        const double fs = 1.024e6, duration_s = 22.6;
        gps_constellation_scenario scenario(scenario_config(duration_s, fs));
        gnss_signal_simulator& sim = scenario.signal();
        multichannel_correlator_config cc;
        cc.sample_rate_hz = fs;
        cc.device = "cpu";
        cc.max_channels = 16;
        auto correlator = multichannel_correlator::make(cc);
        gps_receiver_config config = receiver_config(fs);
        // The ionosphere known from an earlier run: page 18 comes after this recording.
        config.has_iono_utc = true;
        for (int k = 0; k < 4; ++k) {
            config.iono_utc.alpha[k] = broadcast_klobuchar.alpha[k];
            config.iono_utc.beta[k] = broadcast_klobuchar.beta[k];
        }
        gps_receiver receiver(config);
        for (std::size_t sat = 0; sat < scenario.satellite_count(); ++sat) {
            gnss_channel ch;
            ch.id = static_cast<std::uint32_t>(sat);
            const int prn = scenario.satellite(sat).ephemeris.prn;
            ch.code = gps_l1ca_code(prn);
            ch.code_rate_cps = sim.code_rate_cps(sat, 0.0);
            ch.code_phase_chips = sim.code_phase_chips(sat, 0.0);
            ch.carrier_frequency_hz = sim.doppler_hz(sat, 0.0);
            ch.carrier_phase_rad =
                std::remainder(sim.carrier_phase_rad(sat, 0.0), 2 * pi);
            ch.start_sample = 0;
            ch.tap_offsets_chips = { -0.25, 0.0, 0.25 };
            ch.loop.dll_bandwidth_hz = 0.25;
            correlator->add_channel(ch);
            receiver.assign_channel(ch.id, prn);
        }
        const std::size_t chunk = static_cast<std::size_t>(0.02 * fs);
        std::vector<std::complex<float>> x(chunk);
        gnss_correlator_results results;
        std::vector<gps_receiver_epoch> epochs;
        for (std::size_t done = 0; done + chunk <= duration_s * fs; done += chunk) {
            sim.generate(x.data(), chunk);
            results.clear();
            correlator->process(x.data(), chunk, results);
            for (gps_receiver_epoch& e :
                 receiver.process(results, correlator->samples_processed()))
                epochs.push_back(std::move(e));
        }
        const std::size_t first = check_first_fix(scenario, config, epochs);
        std::vector<double> horizontal, three_d;
        for (std::size_t k = first; k < epochs.size(); ++k) {
            const fix_errors err = errors_of(epochs[k]);
            horizontal.push_back(err.horizontal_m);
            three_d.push_back(err.three_d_m);
            std::cout << "fix " << epochs[k].observations.sample_index / fs
                      << " s: " << err.horizontal_m << " m horizontal, " << err.three_d_m
                      << " m 3-D\n";
        }
        // 45 dB-Hz with a 0.25 Hz carrier-aided DLL and taps 0.25 chip apart: about
        // 0.4 m of code noise per satellite (Kaplan and Hegarty, 2006, eq. 5.78), so
        // the bounds are 2 m / 3 m per fix and 1 m / 2 m for the medians.
        for (std::size_t k = first; k < epochs.size(); ++k)
            check_fix(scenario, epochs[k], 2.0, 3.0, 0.5);
        CPPUNIT_ASSERT(median(horizontal) < 1.0);
        CPPUNIT_ASSERT(median(three_d) < 2.0);
        for (std::size_t sat = 0; sat < scenario.satellite_count(); ++sat) {
            const gps_navigation_channel* n = receiver.channel(sat);
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), n->lnav_counters().parity_failures);
            // The Costas loop started on the signal's phase stays there.
            CPPUNIT_ASSERT_EQUAL(1, n->decoder().polarity());
        }
        std::cout << "\n45 dB-Hz through the CPU correlator: first fix "
                  << epochs[first].observations.sample_index / fs << " s; "
                  << horizontal.size() << " fixes, median horizontal "
                  << median(horizontal) << " m, 3-D " << median(three_d) << " m; largest "
                  << *std::max_element(horizontal.begin(), horizontal.end()) << " m, "
                  << *std::max_element(three_d.begin(), three_d.end()) << " m\n";
    }

    void corrupted_bits_are_counted_and_never_used()
    {
        // One bit of subframe 2 inverted on all but three healthy satellites: their
        // subframe is dropped, so only three ephemerides and no fix by the end.
        const double fs = 2.048e6, duration_s = 20.5;
        const gps_constellation_scenario scenario(scenario_config(duration_s, fs));
        std::vector<std::size_t> healthy;
        for (std::size_t sat = 0; sat < scenario.satellite_count(); ++sat)
            if (sat != unhealthy_prn_slot)
                healthy.push_back(sat);
        const std::int64_t bit =
            static_cast<std::int64_t>(std::llround(
                (subframe_1_tow + 6.0 - scenario.code_reference_tow_s()) * 50.0)) +
            4 * 30 + 5; // word 5, bit 6
        std::map<std::size_t, std::map<std::int64_t, int>> levels;
        for (std::size_t k = 3; k < healthy.size(); ++k)
            levels[healthy[k]][bit] = -scenario.signal().bit(healthy[k], bit);
        gps_receiver receiver(receiver_config(fs));
        const auto epochs =
            run_perfect(scenario, receiver, all_of(scenario), duration_s, levels);
        CPPUNIT_ASSERT(!epochs.empty());
        for (const gps_receiver_epoch& e : epochs) {
            CPPUNIT_ASSERT(!e.fix.valid);
            CPPUNIT_ASSERT(e.fix.reason.find("no ephemeris yet") != std::string::npos);
        }
        // By the end the three good ephemerides are in, and the reason counts them.
        CPPUNIT_ASSERT_MESSAGE(epochs.back().fix.reason,
                               epochs.back().fix.reason.find("3 usable satellites") !=
                                   std::string::npos);
        for (std::size_t sat : healthy) {
            const gps_lnav_counters n = receiver.channel(sat)->lnav_counters();
            const bool corrupted = levels.count(sat) != 0;
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(corrupted ? 1 : 0), n.discarded_subframes);
            CPPUNIT_ASSERT_EQUAL(corrupted, n.parity_failures >= 1);
            CPPUNIT_ASSERT_EQUAL(
                !corrupted,
                receiver.ephemerides().count(scenario.satellite(sat).ephemeris.prn) == 1);
        }
    }

    void false_how_is_refused()
    {
        // Subframe 2 of one satellite replaced by a valid one from 30 s later: parity
        // and preamble pass, its HOW contradicts the 6000 code periods counted since
        // subframe 1, and subframe 3 contradicts it in turn. The channel states no
        // time until subframe 4 confirms subframe 3, and never a wrong one.
        const double fs = 2.048e6, duration_s = 26.0;
        const gps_constellation_scenario scenario(scenario_config(duration_s, fs));
        const std::size_t tampered = 0;
        gps_lnav_message msg;
        msg.ephemeris = scenario.satellite(tampered).ephemeris;
        for (int k = 0; k < 4; ++k) {
            msg.iono_utc.alpha[k] = broadcast_klobuchar.alpha[k];
            msg.iono_utc.beta[k] = broadcast_klobuchar.beta[k];
        }
        const int subframe_2_tow = static_cast<int>(subframe_1_tow) + 6;
        const std::vector<std::uint8_t> false_bits =
            gps_lnav_encode(msg, subframe_2_tow + 30, 1);
        const std::int64_t first_bit = static_cast<std::int64_t>(
            std::llround((subframe_2_tow - scenario.code_reference_tow_s()) * 50.0));
        std::map<std::size_t, std::map<std::int64_t, int>> levels;
        for (std::size_t k = 0; k < false_bits.size(); ++k)
            levels[tampered][first_bit + static_cast<std::int64_t>(k)] =
                false_bits[k] ? -1 : 1; // logic 1 is sent as -1
        gps_receiver receiver(receiver_config(fs));
        const auto epochs =
            run_perfect(scenario, receiver, all_of(scenario), duration_s, levels);

        const gps_navigation_channel& n = *receiver.channel(tampered);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(2), n.counters().how_contradictions);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), n.lnav_counters().parity_failures);
        CPPUNIT_ASSERT_EQUAL(gps_navigation_stage::time_known, n.stage());
        const int prn = scenario.satellite(tampered).ephemeris.prn;
        CPPUNIT_ASSERT_EQUAL(std::size_t(0), receiver.ephemerides().count(prn));
        const double confirmed =
            arrival_sample(scenario, tampered, subframe_1_tow + 24.0);
        int seen = 0;
        for (const gps_receiver_epoch& e : epochs) {
            std::vector<double> bias;
            for (const gnss_observation& o : e.observations.observations) {
                bias.push_back(
                    o.pseudorange_m -
                    scenario.truth(slot_of(scenario, o.prn), e.observations.sample_index)
                        .pseudorange_m);
                if (o.prn == prn) {
                    CPPUNIT_ASSERT(e.observations.sample_index > confirmed);
                    ++seen;
                }
            }
            const auto spread = std::minmax_element(bias.begin(), bias.end());
            CPPUNIT_ASSERT(*spread.second - *spread.first < 1e-3);
        }
        CPPUNIT_ASSERT(seen >= 1);
    }

    void three_satellites_give_no_fix()
    {
        const double fs = 2.048e6, duration_s = 20.5;
        const gps_constellation_scenario scenario(scenario_config(duration_s, fs));
        gps_receiver receiver(receiver_config(fs));
        const auto epochs = run_perfect(scenario, receiver, { 0, 1, 3 }, duration_s);
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), receiver.ephemerides().size());
        CPPUNIT_ASSERT(!epochs.empty());
        for (const gps_receiver_epoch& e : epochs) {
            CPPUNIT_ASSERT(!e.fix.valid);
            CPPUNIT_ASSERT(std::isnan(e.fix.position_m[0]));
            CPPUNIT_ASSERT_MESSAGE(
                e.fix.reason,
                e.fix.reason.find("usable satellites") != std::string::npos &&
                    e.fix.reason.find("4 needed") != std::string::npos);
        }
    }

    void short_recording_says_what_it_waits_for()
    {
        // 5 s: bit sync done, subframe 1 not complete; no epoch, and the reason.
        const double fs = 2.048e6, duration_s = 5.0;
        const gps_constellation_scenario scenario(scenario_config(duration_s, fs));
        gps_receiver receiver(receiver_config(fs));
        const auto epochs = run_perfect(scenario, receiver, all_of(scenario), duration_s);
        CPPUNIT_ASSERT(epochs.empty());
        const std::string why = receiver.waiting_for();
        for (std::size_t sat = 0; sat < scenario.satellite_count(); ++sat) {
            const gps_navigation_channel& n = *receiver.channel(sat);
            CPPUNIT_ASSERT_EQUAL(gps_navigation_stage::subframe_sync, n.stage());
            CPPUNIT_ASSERT(n.bit_edge() >= 0);
            char prn[8];
            std::snprintf(prn, sizeof prn, "G%02d", n.prn());
            CPPUNIT_ASSERT_MESSAGE(
                why,
                why.find(std::string(prn) + ": subframe synchronisation") !=
                    std::string::npos);
        }
        std::cout << "\nshort recording: " << why << "\n";
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_gps_receiver);

} // namespace core
} // namespace cudadsp
} // namespace gr
