/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The receiver with Galileo E1 channels beside GPS's, against the scenario's truth: the
// nominal GPS constellation (one satellite unhealthy, as in qa_gps_receiver) and the
// nominal Galileo Walker 24/3/1, seen from Vienna with the Klobuchar ionosphere, no
// troposphere, and a GST-GPS offset (GGTO) of 30 ns, so that the inter-system bias has
// something to find. The records are a perfect tracker's (tests/support/
// qa_gps_receiver_truth.h), 4-ms E1-B epochs for Galileo: noise-free, so the fixes must
// be the truth's to millimetres. Sample 0 falls 0.45 s before a GPS frame and a Galileo
// I/NAV sub-frame; Galileo's words 1, 3 and 5 come 20 to 26 s into it, so every run is
// 29 s: the fixes from 19.45 s use GPS alone, those from 27.45 s both systems. The
// Klobuchar parameters are known beforehand (config.iono_utc). Expected values come from
// the truth: the receiver's position, the GPS time from the sample index, the ISB = -GGTO
// (the Galileo pseudoranges are short by c GGTO).

#include "gnss/galileo_inav_encoder.h"
#include "gnss/gps_constellation_scenario.h"
#include "gnss/gps_receiver.h"
#include "qa_galileo_scenario.h"
#include "qa_gps_receiver_run.h"
#include "qa_gps_receiver_truth.h"
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using namespace qa;

constexpr double fs = 2.048e6;
constexpr double duration_s = 29.0;
constexpr double ggto_s = galileo_ggto_s;
constexpr int gst_week = galileo_gst_week;
constexpr int iodnav = galileo_iodnav;

//! The GPS satellites of qa_gps_receiver's scenario (unless \p with_gps is false) and
//! the visible Galileo satellites; \p mark changes Galileo messages by PRN.
gps_scenario_config mixed_config(bool with_gps,
                                 const std::map<int, galileo_message_change>& mark = {})
{
    return galileo_scenario_config(duration_s, fs, with_gps, mark);
}

gps_receiver_config receiver_config()
{
    gps_receiver_config config;
    config.observables.sample_rate_hz = fs;
    config.pvt.troposphere = gnss_troposphere_model::none;
    config.pvt.elevation_mask_rad = 5.0 * pi / 180; // below the scenario's 10 deg
    config.has_iono_utc = true;
    for (int k = 0; k < 4; ++k) {
        config.iono_utc.alpha[k] = broadcast_klobuchar().alpha[k];
        config.iono_utc.beta[k] = broadcast_klobuchar().beta[k];
    }
    return config;
}

std::vector<std::size_t> of_system(const gps_constellation_scenario& scenario,
                                   gnss_system system)
{
    std::vector<std::size_t> sats;
    for (std::size_t sat = 0; sat < scenario.satellite_count(); ++sat)
        if (scenario.system(sat) == system)
            sats.push_back(sat);
    return sats;
}

std::string galileo_name(int prn)
{
    char name[8];
    std::snprintf(name, sizeof name, "E%02d", prn);
    return name;
}

//! The epochs from the first fix on; every epoch before it has none, every one after
//! it has one.
std::vector<gps_receiver_epoch> from_first_fix(const std::vector<gps_receiver_epoch>& all)
{
    const auto first = std::find_if(
        all.begin(), all.end(), [](const gps_receiver_epoch& e) { return e.fix.valid; });
    CPPUNIT_ASSERT(first != all.end());
    for (auto it = first; it != all.end(); ++it)
        CPPUNIT_ASSERT_MESSAGE(it->fix.reason, it->fix.valid);
    return std::vector<gps_receiver_epoch>(first, all.end());
}

/*!
 * Every observed pseudorange equals the truth's (which has the GGTO in the Galileo
 * ones) up to one receiver clock bias common to both systems; the fix is the true
 * position within \p max_error_m, at rest, and the fix's time the true GPS time, or
 * GST with Galileo alone.
 */
void check_fix(const gps_constellation_scenario& scenario,
               const gps_receiver_epoch& e,
               double max_error_m)
{
    std::vector<double> bias;
    for (const gnss_observation& o : e.observations.observations)
        bias.push_back(o.pseudorange_m - scenario
                                             .truth(slot_of(scenario, o.prn, o.system),
                                                    e.observations.sample_index)
                                             .pseudorange_m);
    const auto spread = std::minmax_element(bias.begin(), bias.end());
    CPPUNIT_ASSERT(*spread.second - *spread.first < 1e-3);
    const fix_errors err = position_errors(e.fix.position_m);
    CPPUNIT_ASSERT_MESSAGE(std::to_string(err.three_d_m), err.three_d_m < max_error_m);
    CPPUNIT_ASSERT(e.fix.velocity_valid);
    CPPUNIT_ASSERT(norm(e.fix.velocity_m_s) < 5e-3);
    const bool gps_used = !std::isnan(e.fix.clock_bias_s[0]);
    const double true_tow =
        start_tow + e.observations.sample_index / fs + (gps_used ? 0.0 : ggto_s);
    CPPUNIT_ASSERT_DOUBLES_EQUAL(
        true_tow, e.gps_time_of_week_s, 3.0 * max_error_m / gnss_speed_of_light_m_s);
}

//! The satellites of \p system the fix used, by PRN.
std::set<int> used_of(const gps_receiver_epoch& e, gnss_system system)
{
    std::set<int> used;
    for (const gnss_pvt_satellite& s : e.fix.satellites)
        if (s.used && s.system == system)
            used.insert(s.prn);
    return used;
}

std::set<int> prns_of(const gps_constellation_scenario& scenario,
                      const std::vector<std::size_t>& sats)
{
    std::set<int> prns;
    for (std::size_t sat : sats)
        prns.insert(scenario.prn(sat));
    return prns;
}

} // namespace

class qa_gps_receiver_galileo : public CppUnit::TestCase
{
    CPPUNIT_TEST_SUITE(qa_gps_receiver_galileo);
    CPPUNIT_TEST(gps_and_galileo_fix_the_truth_and_the_ggto);
    CPPUNIT_TEST(galileo_alone_fixes_the_truth);
    CPPUNIT_TEST(unhealthy_galileo_satellites_are_excluded_by_name);
    CPPUNIT_TEST(corrupt_page_is_never_used);
    CPPUNIT_TEST_SUITE_END();

public:
    void gps_and_galileo_fix_the_truth_and_the_ggto()
    {
        const gps_constellation_scenario scenario(mixed_config(true));
        const auto galileo = of_system(scenario, gnss_system::galileo);
        const auto gps = of_system(scenario, gnss_system::gps);
        CPPUNIT_ASSERT(galileo.size() >= 5 && gps.size() >= 7);
        gps_receiver receiver(receiver_config());
        const auto fixes =
            from_first_fix(run_perfect(scenario, receiver, all_of(scenario), duration_s));
        std::set<int> healthy_gps = prns_of(scenario, gps);
        const int unhealthy = scenario.satellite(unhealthy_prn_slot).ephemeris.prn;
        healthy_gps.erase(unhealthy);
        double worst_m = 0.0, worst_isb_s = 0.0;
        std::size_t gps_only = 0, both = 0;
        for (const gps_receiver_epoch& e : fixes) {
            check_fix(scenario, e, 0.01);
            CPPUNIT_ASSERT(used_of(e, gnss_system::gps) == healthy_gps);
            std::map<std::string, std::string> why;
            for (const gps_receiver_exclusion& x : e.excluded)
                why[gnss_satellite_id(x.system, x.prn)] = x.reason;
            CPPUNIT_ASSERT(why[gnss_satellite_id(gnss_system::gps, unhealthy)].find(
                               "unhealthy") != std::string::npos);
            if (used_of(e, gnss_system::galileo).empty()) {
                // Before words 1 to 5: GPS alone, every Galileo satellite waiting.
                CPPUNIT_ASSERT_EQUAL(std::size_t(0), both);
                CPPUNIT_ASSERT_EQUAL(1 + galileo.size(), e.excluded.size());
                for (std::size_t sat : galileo) {
                    const std::string& reason = why[galileo_name(scenario.prn(sat))];
                    CPPUNIT_ASSERT_MESSAGE(reason,
                                           reason == "no ephemeris yet" ||
                                               reason == "no health yet (word 5)");
                }
                CPPUNIT_ASSERT(std::isnan(e.fix.inter_system_bias_s));
                ++gps_only;
                continue;
            }
            CPPUNIT_ASSERT(used_of(e, gnss_system::galileo) ==
                           prns_of(scenario, galileo));
            CPPUNIT_ASSERT_EQUAL(std::size_t(1), e.excluded.size());
            // Galileo's pseudoranges are c GGTO short: its clock is GPS's less GGTO.
            CPPUNIT_ASSERT_DOUBLES_EQUAL(-ggto_s, e.fix.inter_system_bias_s, 0.1e-9);
            worst_m = std::max(worst_m, position_errors(e.fix.position_m).three_d_m);
            worst_isb_s =
                std::max(worst_isb_s, std::fabs(e.fix.inter_system_bias_s + ggto_s));
            ++both;
        }
        CPPUNIT_ASSERT(gps_only >= 4 && both >= 1);
        for (std::size_t sat : galileo) {
            const galileo_navigation_channel* n = receiver.galileo_channel(sat);
            CPPUNIT_ASSERT(n != nullptr);
            CPPUNIT_ASSERT(n->stage() == galileo_navigation_stage::time_known);
            CPPUNIT_ASSERT_EQUAL(gst_week, n->mark_week());
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), n->inav_counters().crc_failures);
            CPPUNIT_ASSERT_EQUAL(
                iodnav, receiver.galileo_ephemerides().at(scenario.prn(sat)).iodnav);
            // Word 5 as broadcast (its BGDs are on a 2^-32 s grid, sent exactly).
            const galileo_inav_message& sent = scenario.galileo_satellite(sat).message;
            const galileo_iono_health& word_5 =
                receiver.galileo_iono_health_words().at(scenario.prn(sat));
            CPPUNIT_ASSERT_EQUAL(sent.iono_health.bgd_e1_e5b, word_5.bgd_e1_e5b);
            CPPUNIT_ASSERT_EQUAL(gst_week, word_5.wn);
        }
        // Word 6 (4 to 6 s into the sub-frame): the leap seconds as broadcast.
        const galileo_inav_message& first =
            scenario.galileo_satellite(galileo.front()).message;
        CPPUNIT_ASSERT(receiver.has_galileo_gst_utc());
        CPPUNIT_ASSERT_EQUAL(first.gst_utc.dt_ls, receiver.galileo_gst_utc_word().dt_ls);
        CPPUNIT_ASSERT_EQUAL(first.gst_utc.dn, receiver.galileo_gst_utc_word().dn);
        std::cout << "\nGPS " << healthy_gps.size() << " + Galileo " << galileo.size()
                  << ": " << gps_only << " GPS fixes from "
                  << fixes.front().observations.sample_index / fs << " s, " << both
                  << " with both, largest 3-D error " << worst_m << " m, ISB error "
                  << worst_isb_s * 1e9 << " ns\n";
    }

    void galileo_alone_fixes_the_truth()
    {
        const gps_constellation_scenario scenario(mixed_config(false));
        const auto galileo = of_system(scenario, gnss_system::galileo);
        CPPUNIT_ASSERT_EQUAL(scenario.satellite_count(), galileo.size());
        CPPUNIT_ASSERT(galileo.size() >= 5);
        gps_receiver receiver(receiver_config());
        const auto fixes =
            from_first_fix(run_perfect(scenario, receiver, galileo, duration_s));
        for (const gps_receiver_epoch& e : fixes) {
            check_fix(scenario, e, 0.01);
            CPPUNIT_ASSERT(std::isnan(e.fix.clock_bias_s[0]));
            CPPUNIT_ASSERT(std::isnan(e.fix.inter_system_bias_s));
            CPPUNIT_ASSERT(used_of(e, gnss_system::galileo) ==
                           prns_of(scenario, galileo));
            CPPUNIT_ASSERT(e.excluded.empty());
        }
        std::cout << "\nGalileo alone: " << galileo.size() << " satellites, "
                  << fixes.size() << " fixes\n";
    }

    void unhealthy_galileo_satellites_are_excluded_by_name()
    {
        // Which PRNs are visible is the scenario's: mark the first two seen, one with
        // E1-B HS 1 (out of service), one with DVS 1 (working without guarantee).
        const gps_constellation_scenario seen(mixed_config(false));
        CPPUNIT_ASSERT(seen.satellite_count() >= 6);
        const int out_of_service = seen.prn(0), no_guarantee = seen.prn(1);
        std::map<int, galileo_message_change> mark;
        mark[out_of_service] = [](galileo_inav_message& m) { m.iono_health.e1b_hs = 1; };
        mark[no_guarantee] = [](galileo_inav_message& m) { m.iono_health.e1b_dvs = 1; };
        const gps_constellation_scenario scenario(mixed_config(false, mark));
        gps_receiver receiver(receiver_config());
        const auto fixes =
            from_first_fix(run_perfect(scenario, receiver, all_of(scenario), duration_s));
        std::set<int> healthy = prns_of(scenario, all_of(scenario));
        healthy.erase(out_of_service);
        healthy.erase(no_guarantee);
        for (const gps_receiver_epoch& e : fixes) {
            check_fix(scenario, e, 0.01);
            CPPUNIT_ASSERT(used_of(e, gnss_system::galileo) == healthy);
            CPPUNIT_ASSERT_EQUAL(std::size_t(2), e.excluded.size());
            std::map<std::string, std::string> why;
            for (const gps_receiver_exclusion& x : e.excluded)
                why[gnss_satellite_id(x.system, x.prn)] = x.reason;
            CPPUNIT_ASSERT(why[galileo_name(out_of_service)].find(
                               "unhealthy (E1-B HS 1)") != std::string::npos);
            CPPUNIT_ASSERT(why[galileo_name(no_guarantee)].find("DVS 1") !=
                           std::string::npos);
        }
        std::cout << "\nexcluded: " << galileo_name(out_of_service) << ", "
                  << galileo_name(no_guarantee) << "\n";
    }

    void corrupt_page_is_never_used()
    {
        // One Galileo satellite's word 1 replaced, on the page that carries it, by one
        // with a semi-major axis 100 km too large and a wrong CRC: used, it would
        // move the satellite by 100 km. It must be dropped, so that satellite has no
        // ephemeris in the run and every fix is still the truth.
        const gps_constellation_scenario scenario(mixed_config(true));
        const std::size_t tampered = of_system(scenario, gnss_system::galileo).front();
        const int prn = scenario.prn(tampered);
        galileo_inav_message lie = scenario.galileo_satellite(tampered).message;
        lie.ephemeris.sqrt_a = std::sqrt(29700e3);
        const int word_1_tow = static_cast<int>(subframe_1_tow) + 20;
        const std::vector<std::uint8_t> page = galileo_inav_page_symbols(
            galileo_inav_encode_word(1, lie, { gst_week, word_1_tow }), 0, 0x000410);
        const std::int64_t first = static_cast<std::int64_t>(
            std::llround((word_1_tow - scenario.code_reference_tow_s()) * 250.0));
        std::map<std::size_t, std::map<std::int64_t, int>> levels;
        for (std::size_t k = 0; k < page.size(); ++k)
            levels[tampered][first + static_cast<std::int64_t>(k)] =
                page[k] ? -1 : 1; // logic 1 is sent as -1
        gps_receiver receiver(receiver_config());
        const auto fixes = from_first_fix(
            run_perfect(scenario, receiver, all_of(scenario), duration_s, levels));
        const galileo_navigation_channel& n = *receiver.galileo_channel(tampered);
        std::size_t both = 0;
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), n.inav_counters().crc_failures);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), n.inav_counters().ephemerides);
        CPPUNIT_ASSERT_EQUAL(std::size_t(0), receiver.galileo_ephemerides().count(prn));
        for (const gps_receiver_epoch& e : fixes) {
            check_fix(scenario, e, 0.01);
            CPPUNIT_ASSERT_EQUAL(std::size_t(0),
                                 used_of(e, gnss_system::galileo).count(prn));
            bool named = false;
            for (const gps_receiver_exclusion& x : e.excluded)
                named =
                    named || (gnss_satellite_id(x.system, x.prn) == galileo_name(prn) &&
                              x.reason == "no ephemeris yet");
            CPPUNIT_ASSERT(named);
            if (!used_of(e, gnss_system::galileo).empty()) {
                CPPUNIT_ASSERT_DOUBLES_EQUAL(-ggto_s, e.fix.inter_system_bias_s, 0.1e-9);
                ++both;
            }
        }
        CPPUNIT_ASSERT(both >= 1);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_gps_receiver_galileo);

} // namespace core
} // namespace cudadsp
} // namespace gr
