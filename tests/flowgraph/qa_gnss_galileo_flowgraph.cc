/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The navigation blocks with GPS and Galileo E1 together, against the scenario's truth
// (tests/support/qa_galileo_scenario.h, the one of the engine's qa_gps_receiver_galileo:
// GPS with one satellite unhealthy, the nominal Galileo constellation with one satellite
// marked E1-B HS 1 here, a GGTO of 30 ns): 29 s of perfect trackers' records (GPS 1-ms
// epochs on gps_l1ca channels, Galileo 4-ms E1-B epochs on galileo_e1b channels, and one
// decoy on the E1-C pilot code that the decoder must ignore) as the correlator's two
// streams -> gps_telemetry_decoder -> gnss_observables -> gnss_pvt, fixes on "fix" and
// the files in a folder. The records are noise-free, so the fixes must be the truth's to
// millimetres:
//  - every fix within 1 cm of the true position, its GPS time the sample's; from 19.45 s
//    GPS alone (every Galileo satellite excluded as waiting for its words), from 27.45 s
//    both systems: the satellites used are the healthy ones of both by id ("G05",
//    "E11"), the unhealthy ones excluded by id with the reason ("Gnn: unhealthy (SV
//    health 1)", "Enn: unhealthy (E1-B HS 1)"), and the inter-system bias is -GGTO;
//  - no CRC or parity failure, one ephemeris per satellite, no state refused;
//  - the RINEX observation file is mixed ("M", E records), its pseudoranges the truth's
//    (GGTO included) up to one clock bias per epoch; the navigation file is mixed, a
//    record per satellite, each Galileo record's IODnav, sqrt(A), week and health bits
//    the broadcast's, its GAUT record word 6's; the NMEA talker is GN exactly at the
//    epochs whose fix used Galileo. The case takes about 2 s on this 2-core machine.

#include "qa_galileo_scenario.h"
#include "qa_gnss_navigation_chain.h"
#include "qa_rinex_text.h"
#include "qa_run_flowgraph.h"
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

namespace gr {
namespace cudadsp {

namespace {

using namespace qa;

constexpr double fs = 2.048e6;
constexpr double duration_s = 29.0;
constexpr std::uint32_t decoy_channel = 1000;

/*! Word 6 as every Galileo satellite sends it here: GST-UTC A0 2^-29 s, A1 -2^-50 s/s
 *  (whole steps of their scales), t0t 345600 s, WN0t the GST week's 8 bits. */
void set_word_6(galileo_inav_message& m)
{
    m.gst_utc.a0 = std::ldexp(1.0, -29);
    m.gst_utc.a1 = -std::ldexp(1.0, -50);
    m.gst_utc.t0t = 345600.0;
    m.gst_utc.wn0t = galileo_gst_week % 256;
}

//! Field \p field (0 to 3) of a BROADCAST ORBIT line (4X,4D19.12).
double orbit_field(const std::string& line, int field)
{
    return fortran_number(line.substr(4 + 19 * static_cast<std::size_t>(field), 19));
}

/*!
 * The mixed navigation file: a GPS record per GPS satellite, a Galileo record per
 * Galileo satellite (Table A8) with the broadcast IODnav and sqrt(A), SV health
 * bits 1-2 the E1-B HS (2 for the satellite marked out of service), the GST week
 * + 1024; the GAL ionospheric record word 5's ai0..ai2.
 */
void check_navigation_file(const gps_constellation_scenario& scenario,
                           const std::string& path,
                           int out_of_service)
{
    CPPUNIT_ASSERT(path.size() > 7 && path.compare(path.size() - 7, 7, "_MN.rnx") == 0);
    const std::vector<std::string> lines = lines_of(read_text(path));
    CPPUNIT_ASSERT(lines.at(0).find("N: GNSS NAV DATA    M: MIXED") != std::string::npos);
    std::size_t records = 0;
    for (std::size_t sat = 0; sat < scenario.satellite_count(); ++sat) {
        const std::string id = gnss_satellite_id(scenario.system(sat), scenario.prn(sat));
        const auto first = std::find_if(lines.begin(), lines.end(), [&id](const auto& l) {
            return l.rfind(id + " ", 0) == 0;
        });
        CPPUNIT_ASSERT_MESSAGE(id, first != lines.end());
        ++records;
        if (scenario.system(sat) != core::gnss_system::galileo)
            continue;
        const galileo_inav_message& sent = scenario.galileo_satellite(sat).message;
        CPPUNIT_ASSERT_EQUAL(double(galileo_iodnav), orbit_field(first[1], 0));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(sent.ephemeris.sqrt_a,
                                     orbit_field(first[2], 3),
                                     1e-11 * sent.ephemeris.sqrt_a);
        CPPUNIT_ASSERT_EQUAL(double(galileo_gst_week + 1024), orbit_field(first[5], 2));
        CPPUNIT_ASSERT_EQUAL(scenario.prn(sat) == out_of_service ? 2.0 : 0.0,
                             orbit_field(first[6], 1));
    }
    CPPUNIT_ASSERT_EQUAL(scenario.satellite_count(), records);
    const galileo_iono_health& word_5 =
        scenario
            .galileo_satellite(static_cast<std::size_t>(scenario.satellite_count() - 1))
            .message.iono_health;
    bool gal_found = false;
    for (const std::string& line : lines)
        if (line.rfind("GAL ", 0) == 0 && line.size() > 60 &&
            line.substr(60) == "IONOSPHERIC CORR") {
            gal_found = true;
            CPPUNIT_ASSERT_DOUBLES_EQUAL(
                word_5.ai0, fortran_number(line.substr(5, 12)), 1e-3);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(
                word_5.ai1, fortran_number(line.substr(17, 12)), 1e-5);
        }
    CPPUNIT_ASSERT(gal_found);
    // Word 6 (set_word_6): A4,1X,D17.10,D16.9,I7,I5, the week continuous, GPS's.
    const auto gaut = std::find_if(lines.begin(), lines.end(), [](const auto& line) {
        return line.rfind("GAUT ", 0) == 0 && line.size() > 60 &&
               line.substr(60) == "TIME SYSTEM CORR";
    });
    CPPUNIT_ASSERT(gaut != lines.end());
    CPPUNIT_ASSERT_EQUAL("GAUT  1.8626451492D-09-8.881784197D-16 345600 " +
                             std::to_string(galileo_gst_week + 1024),
                         gaut->substr(0, 50));
}

std::set<std::string> as_set(const std::vector<std::string>& v)
{
    return { v.begin(), v.end() };
}

bool any_galileo(const std::set<std::string>& ids)
{
    return std::any_of(
        ids.begin(), ids.end(), [](const std::string& id) { return id[0] == 'E'; });
}

//! Each fix's checks against the truth: position, time, velocity, the satellites
//! used and excluded by id with the reasons, the inter-system bias.
void check_fix(const gps_constellation_scenario& scenario,
               const pmt::pmt_t& fix,
               const std::set<std::string>& healthy,
               const std::map<std::string, std::string>& unhealthy)
{
    const double sample = number(fix, "sample_index");
    const fix_errors err = position_errors(vec3(fix, "ecef_m"));
    CPPUNIT_ASSERT_MESSAGE(std::to_string(err.three_d_m), err.three_d_m < 0.01);
    CPPUNIT_ASSERT(norm(vec3(fix, "velocity_m_s")) < 5e-3);
    CPPUNIT_ASSERT_DOUBLES_EQUAL(start_tow + sample / fs,
                                 number(fix, "gps_time_of_week_s"),
                                 0.03 / gnss_speed_of_light_m_s);
    const std::set<std::string> used = as_set(texts(fix, "satellites"));
    CPPUNIT_ASSERT_EQUAL(static_cast<double>(used.size()),
                         number(fix, "satellites_used"));
    const std::vector<std::string> excluded = texts(fix, "excluded");
    const std::vector<std::string> reasons = texts(fix, "excluded_reasons");
    CPPUNIT_ASSERT_EQUAL(excluded.size(), reasons.size());
    std::map<std::string, std::string> why;
    for (std::size_t i = 0; i < excluded.size(); ++i)
        why[excluded[i]] = reasons[i];
    std::set<std::string> healthy_gps, healthy_galileo;
    for (const std::string& id : healthy)
        (id[0] == 'G' ? healthy_gps : healthy_galileo).insert(id);
    const double isb_s = number(fix, "inter_system_bias_s");
    if (!any_galileo(used)) {
        // Before words 1 to 5: GPS alone, every Galileo satellite waiting.
        CPPUNIT_ASSERT(used == healthy_gps);
        CPPUNIT_ASSERT(std::isnan(isb_s));
        for (std::size_t sat = 0; sat < scenario.satellite_count(); ++sat) {
            if (scenario.system(sat) != core::gnss_system::galileo)
                continue;
            const std::string& reason =
                why[gnss_satellite_id(core::gnss_system::galileo, scenario.prn(sat))];
            CPPUNIT_ASSERT_MESSAGE(reason,
                                   reason == "no ephemeris yet" ||
                                       reason == "no health yet (word 5)");
        }
        for (const auto& x : unhealthy)
            if (x.first[0] == 'G')
                CPPUNIT_ASSERT_EQUAL(x.second, why[x.first]);
        return;
    }
    CPPUNIT_ASSERT(used == healthy);
    CPPUNIT_ASSERT(why == unhealthy);
    // Galileo's pseudoranges are c GGTO short: its clock is GPS's less GGTO.
    CPPUNIT_ASSERT_DOUBLES_EQUAL(-galileo_ggto_s, isb_s, 0.1e-9);
}

} // namespace

class qa_gnss_galileo_flowgraph : public CppUnit::TestCase
{
    CPPUNIT_TEST_SUITE(qa_gnss_galileo_flowgraph);
    CPPUNIT_TEST(gps_and_galileo_records_fix_the_truth_and_write_mixed_files);
    CPPUNIT_TEST_SUITE_END();

public:
    void gps_and_galileo_records_fix_the_truth_and_write_mixed_files()
    {
        // Which Galileo PRNs are visible is the scenario's: mark the first one seen.
        const gps_constellation_scenario seen(galileo_scenario_config(1.0, fs, false));
        const int out_of_service = seen.prn(0);
        std::map<int, galileo_message_change> change;
        for (std::size_t sat = 0; sat < seen.satellite_count(); ++sat)
            if (seen.system(sat) == core::gnss_system::galileo)
                change[seen.prn(sat)] = set_word_6;
        change[out_of_service] = [](galileo_inav_message& m) {
            set_word_6(m);
            m.iono_health.e1b_hs = 1;
        };
        const gps_constellation_scenario scenario(
            galileo_scenario_config(duration_s, fs, true, change));

        std::set<std::string> healthy;
        std::map<std::string, std::string> unhealthy;
        const int unhealthy_gps = scenario.satellite(unhealthy_prn_slot).ephemeris.prn;
        unhealthy[gnss_satellite_id(core::gnss_system::gps, unhealthy_gps)] =
            "unhealthy (SV health 1)";
        unhealthy[gnss_satellite_id(core::gnss_system::galileo, out_of_service)] =
            "unhealthy (E1-B HS 1)";
        std::vector<perfect_channel> channels;
        std::size_t galileo = 0;
        for (std::size_t sat = 0; sat < scenario.satellite_count(); ++sat) {
            const bool is_galileo = scenario.system(sat) == core::gnss_system::galileo;
            galileo += is_galileo ? 1 : 0;
            const std::string id =
                gnss_satellite_id(scenario.system(sat), scenario.prn(sat));
            if (!unhealthy.count(id))
                healthy.insert(id);
            channels.push_back(
                { perfect_tracker(scenario, sat, static_cast<std::uint32_t>(sat)),
                  scenario.prn(sat),
                  is_galileo ? gnss_system_galileo_e1b : gnss_system_gps_l1ca });
        }
        CPPUNIT_ASSERT(galileo >= 5 && scenario.satellite_count() - galileo >= 7);
        // The last Galileo satellite once more, on its pilot: no data, to be ignored.
        channels.push_back(
            { perfect_tracker(scenario, scenario.satellite_count() - 1, decoy_channel),
              scenario.prn(scenario.satellite_count() - 1),
              gnss_system_galileo_e1c });

        const std::string folder =
            (std::filesystem::temp_directory_path() / "qa_gnss_galileo_flowgraph")
                .string();
        std::filesystem::remove_all(folder);
        std::filesystem::create_directories(folder);
        // Poison: a stale file where the NMEA goes must be replaced, not appended to.
        std::ofstream(std::filesystem::path(folder) / "fixes.nmea") << "poison\n";
        auto tb = gr::make_top_block("gps_and_galileo");
        navigation_chain chain(tb, fs, folder, broadcast_klobuchar_values());
        feed_records(tb, chain, channels, fs, duration_s);
        const auto start = std::chrono::steady_clock::now();
        qa::run_or_die(tb, "GPS and Galileo records", 300.0);
        const double wall_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                .count();

        const std::vector<pmt::pmt_t> valid = chain.valid_fixes();
        std::size_t both = 0;
        for (const pmt::pmt_t& f : valid) {
            check_fix(scenario, f, healthy, unhealthy);
            both += any_galileo(as_set(texts(f, "satellites"))) ? 1 : 0;
        }
        CPPUNIT_ASSERT(valid.size() >= 9);
        CPPUNIT_ASSERT(both >= 1 && both < valid.size());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), chain.decoder->parity_failures());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), chain.decoder->crc_failures());
        // A good page every 2 s on each Galileo channel from its first sync on.
        CPPUNIT_ASSERT(chain.decoder->pages() >= galileo * 10);
        CPPUNIT_ASSERT_EQUAL(static_cast<std::uint64_t>(scenario.satellite_count()),
                             chain.decoder->ephemerides());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), chain.observables->refused_states());
        check_files(scenario, chain, both);
        check_navigation_file(scenario, chain.pvt->output_files().at(1), out_of_service);
        std::filesystem::remove_all(folder);
        std::cout << "\nGPS + Galileo records through the blocks: "
                  << chain.fixes->messages().size() << " epochs, " << valid.size()
                  << " fixes (" << both << " with both systems), "
                  << chain.decoder->pages() << " Galileo pages, " << wall_s << " s\n";
    }

private:
    //! The RINEX observation file (mixed, every pseudorange the truth's up to a clock
    //! bias per epoch) and the NMEA talker (GP, then GN once Galileo is used).
    static void check_files(const gps_constellation_scenario& scenario,
                            const navigation_chain& chain,
                            std::size_t both)
    {
        const std::vector<std::string> files = chain.pvt->output_files();
        CPPUNIT_ASSERT_EQUAL(std::size_t(4), files.size());
        CPPUNIT_ASSERT(files[0].size() > 7 &&
                       files[0].compare(files[0].size() - 7, 7, "_MO.rnx") == 0);
        const std::string obs = read_text(files[0]);
        CPPUNIT_ASSERT(obs.find("3.04           OBSERVATION DATA    M") !=
                       std::string::npos);
        CPPUNIT_ASSERT(obs.find("E    4 C1C L1C D1C S1C") != std::string::npos);
        std::vector<double> seconds;
        const auto pseudoranges = rinex_pseudoranges(obs, seconds);
        const std::vector<pmt::pmt_t> epochs = chain.fixes->messages();
        CPPUNIT_ASSERT_EQUAL(epochs.size(), pseudoranges.size());
        std::set<std::string> seen;
        for (std::size_t k = 0; k < pseudoranges.size(); ++k) {
            const double sample = number(epochs[k], "sample_index");
            std::vector<double> bias;
            for (const auto& p : pseudoranges[k]) {
                seen.insert(p.first);
                const core::gnss_system system = p.first[0] == 'E'
                                                     ? core::gnss_system::galileo
                                                     : core::gnss_system::gps;
                const std::size_t sat =
                    slot_of(scenario, std::stoi(p.first.substr(1)), system);
                bias.push_back(p.second - scenario.truth(sat, sample).pseudorange_m);
            }
            const auto spread = std::minmax_element(bias.begin(), bias.end());
            CPPUNIT_ASSERT_MESSAGE(std::to_string(*spread.second - *spread.first),
                                   *spread.second - *spread.first < 2e-3);
        }
        CPPUNIT_ASSERT_EQUAL(scenario.satellite_count(), pseudoranges.back().size());
        CPPUNIT_ASSERT_EQUAL(scenario.satellite_count(), seen.size());
        const std::string nmea = read_text(files[2]);
        CPPUNIT_ASSERT(nmea.find("poison") == std::string::npos);
        CPPUNIT_ASSERT_EQUAL(both, occurrences(nmea, "$GNGGA"));
        CPPUNIT_ASSERT_EQUAL(epochs.size() - both, occurrences(nmea, "$GPGGA"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_gnss_galileo_flowgraph);

} // namespace cudadsp
} // namespace gr
