/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Galileo in the receiver's outputs, read back apart from the writers. RINEX 3.04:
// navigation records parsed by the columns of Table A8 (a parser of this test's own)
// against the I/NAV values the nominal constellation broadcasts (angles times the ICD's
// pi, SISA indices to metres by values taken from the OS SIS ICD's table, the health
// bits of word 5 by Table A8's layout, the week counted as GPS's), the mixed and
// Galileo-only headers ("GAL" ionosphere, "GAUT", leap seconds of word 6) column by
// column, the long names (GN, EN, MN; GO, EO, MO), and the observation header's and
// epoch's Galileo lines. NMEA 0183: whole sentences written out by hand for fixes of
// both systems and of Galileo alone (talkers GN and GA, a GSA per system with NMEA
// 4.10's system ID, GSV per system), their checksums computed here; an epoch's GSV
// takes each satellite's C/N0 by system and PRN. RTKLIB solving from a mixed file pair
// is qa_gnss_rinex_rtklib's.

#include "gnss/galileo_nominal_constellation.h"
#include "gnss/gnss_nmea.h"
#include "gnss/gnss_rinex.h"
#include "gnss/gps_receiver_outputs.h"
#include "qa_gps_sample_ephemeris.h"
#include "qa_nmea_text.h"
#include "qa_rinex_text.h"
#include <cppunit/extensions/HelperMacros.h>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using qa::fortran_number;
using qa::header_record;
using qa::lines_of;
using qa::nmea_fields;
using qa::sentence_of;

const double icd_pi = 3.1415926535898; // OS SIS ICD Table 58's pi, as GPS's

//! One navigation record as Table A6/A8 lay it out: the system letter and PRN (A1,I2.2),
//! Toc's "YYYY MM DD HH MM SS" (1X,I4,5(1X,I2.2)), and the 31 numbers: 3 on the first
//! line (columns 24, 43, 62), 4 on each of the seven BROADCAST ORBIT lines (4X,4D19.12);
//! a blank field reads NaN.
struct parsed_record {
    char system = ' ';
    int prn = 0;
    std::string toc;
    std::vector<double> values;
};

double field_at(const std::string& line, std::size_t start)
{
    if (line.size() < start + 19)
        return NAN;
    const std::string text = line.substr(start, 19);
    if (text.find_first_not_of(' ') == std::string::npos)
        return NAN;
    return fortran_number(text);
}

std::vector<parsed_record> parse_records(const std::vector<std::string>& lines)
{
    std::vector<parsed_record> records;
    for (std::size_t k = qa::first_record_line(lines); k + 8 <= lines.size(); k += 8) {
        parsed_record r;
        const std::string& first = lines[k];
        r.system = first[0];
        r.prn = std::stoi(first.substr(1, 2));
        r.toc = first.substr(4, 19);
        for (int j = 0; j < 3; ++j)
            r.values.push_back(field_at(first, 23 + 19 * j));
        for (int line = 1; line < 8; ++line)
            for (int j = 0; j < 4; ++j)
                r.values.push_back(field_at(lines[k + line], 4 + 19 * j));
        records.push_back(r);
    }
    return records;
}

/*!
 * Table A8's 31 numbers of a Galileo record, from what the satellite broadcast: clock;
 * IODnav, Crs, delta n, M0; Cuc, e, Cus, sqrt A; Toe, Cic, OMEGA0, Cis; i0, Crc, omega,
 * OMEGA DOT; IDOT, data sources, week, spare; SISA, health, BGD E5a/E1, BGD E5b/E1;
 * transmission time, three spares. NaN: blank.
 */
std::vector<double> expected_galileo(const galileo_inav_message& m,
                                     double sisa_m,
                                     double health,
                                     double week,
                                     double transmission_s)
{
    const galileo_ephemeris& e = m.ephemeris;
    const galileo_iono_health& h = m.iono_health;
    return { e.af0,
             e.af1,
             e.af2,
             double(e.iodnav),
             e.crs,
             e.delta_n * icd_pi,
             e.m0 * icd_pi,
             e.cuc,
             e.e,
             e.cus,
             e.sqrt_a,
             e.t0e,
             e.cic,
             e.omega0 * icd_pi,
             e.cis,
             e.i0 * icd_pi,
             e.crc,
             e.omega * icd_pi,
             e.omega_dot * icd_pi,
             e.idot * icd_pi,
             513.0, // bit 0 I/NAV E1-B, bit 9 af0-af2, Toc and SISA for E5b,E1
             week,
             NAN,
             sisa_m,
             health,
             h.bgd_e1_e5a,
             h.bgd_e1_e5b,
             transmission_s,
             NAN,
             NAN,
             NAN };
}

void check_values(const parsed_record& got, const std::vector<double>& expected)
{
    CPPUNIT_ASSERT_EQUAL(expected.size(), got.values.size());
    for (std::size_t k = 0; k < expected.size(); ++k) {
        const std::string where =
            "record of " + std::to_string(got.prn) + ", number " + std::to_string(k);
        if (std::isnan(expected[k])) {
            CPPUNIT_ASSERT_MESSAGE(where, std::isnan(got.values[k]));
            continue;
        }
        // D19.12 keeps 13 significant digits.
        CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(
            where, expected[k], got.values[k], std::fabs(expected[k]) * 1e-12);
    }
}

gnss_rinex_galileo_ephemeris
record_of(const galileo_inav_message& m, int week, double transmission_s)
{
    gnss_rinex_galileo_ephemeris r;
    r.ephemeris = m.ephemeris;
    r.iono_health = m.iono_health;
    r.week = week;
    r.transmission_time_s = transmission_s;
    return r;
}


//! A fix of G05, G12, E05, E11 used and E19 not (elevation, azimuth, C/N0 each), at
//! 48 07.038 N, 11 31.000 E; \p with_gps false: its GPS satellites left out.
struct nmea_case {
    gnss_pvt_result fix;
    std::vector<gnss_pvt_observation> observations;
};

nmea_case two_system_fix(bool with_gps)
{
    const double deg = 3.14159265358979323846 / 180.0;
    nmea_case c;
    c.fix.valid = true;
    c.fix.geodetic = { (48.0 + 7.038 / 60.0) * deg, (11.0 + 31.0 / 60.0) * deg, 545.4 };
    c.fix.dops = { 3.0, 2.5, 1.3, 2.1, 1.0 };
    const struct {
        gnss_system system;
        int prn, elevation, azimuth;
        double cn0;
        bool used;
    } sky[] = { { gnss_system::gps, 5, 40, 83, 46, true },
                { gnss_system::gps, 12, 30, 200, 41, true },
                { gnss_system::galileo, 5, 50, 100, 44, true },
                { gnss_system::galileo, 11, 20, 300, 39, true },
                { gnss_system::galileo, 19, 10, 10, 30, false } };
    for (const auto& k : sky) {
        if (k.system == gnss_system::gps && !with_gps)
            continue;
        gnss_pvt_satellite s;
        s.system = k.system;
        s.prn = k.prn;
        s.used = k.used;
        s.elevation_rad = k.elevation * deg;
        s.azimuth_rad = k.azimuth * deg;
        c.fix.satellites.push_back(s);
        c.fix.satellites_used += k.used ? 1 : 0;
        gnss_pvt_observation o;
        o.system = k.system;
        o.prn = k.prn;
        o.cn0_dbhz = k.cn0;
        c.observations.push_back(o);
    }
    return c;
}

} // namespace

class qa_gnss_outputs_galileo : public CppUnit::TestCase
{
    CPPUNIT_TEST_SUITE(qa_gnss_outputs_galileo);
    CPPUNIT_TEST(galileo_records_parse_back_to_the_broadcast);
    CPPUNIT_TEST(sisa_in_metres_as_the_icd_tabulates);
    CPPUNIT_TEST(mixed_navigation_header_and_names);
    CPPUNIT_TEST(galileo_observations_in_the_observation_file);
    CPPUNIT_TEST(nmea_of_both_systems_and_of_galileo_alone);
    CPPUNIT_TEST(epoch_nmea_takes_cn0_by_system);
    CPPUNIT_TEST_SUITE_END();

public:
    void galileo_records_parse_back_to_the_broadcast()
    {
        // Week 2048 (GST week 1024) starts on 2019-04-07; t0e 7200 s is 02:00.
        std::vector<galileo_inav_message> sent =
            galileo_nominal_constellation(7200.0, 321);
        sent.resize(3);
        // Word 5 status bits of three kinds, and a batch sent late on Saturday that
        // refers to the next week.
        sent[1].iono_health.e1b_hs = 2;
        sent[1].iono_health.e1b_dvs = 1;
        sent[1].iono_health.e5b_hs = 1;
        sent[2].iono_health.e5b_dvs = 1;
        sent[2].ephemeris.t0e = sent[2].ephemeris.t0c = 600.0;
        std::vector<gnss_rinex_galileo_ephemeris> records = {
            record_of(sent[0], 2048, 5400.0),
            record_of(sent[1], 2048, 5430.0),
            record_of(sent[2], 2047, 604200.0),
        };
        gnss_rinex_navigation_header h;
        h.systems = { gnss_system::galileo };
        std::ostringstream out;
        write_rinex_navigation_file(out, h, {}, records);
        const auto lines = lines_of(out.str());
        CPPUNIT_ASSERT_EQUAL(std::string("     3.04           N: GNSS NAV DATA    E: "
                                         "GALILEO"),
                             lines[0].substr(0, 50));
        const std::vector<parsed_record> got = parse_records(lines);
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), got.size());
        // Health: bit 0 E1-B DVS, bits 1-2 E1-B HS, bits 7-8 E5b HS, bit 6 E5b DVS.
        const double health[3] = { 0.0, 1 + (2 << 1) + (1 << 7), 1 << 6 };
        const double week[3] = { 2048, 2048, 2048 };
        const char* toc[3] = { "2019 04 07 02 00 00",
                               "2019 04 07 02 00 00",
                               "2019 04 07 00 10 00" };
        for (int k = 0; k < 3; ++k) {
            CPPUNIT_ASSERT_EQUAL('E', got[k].system);
            CPPUNIT_ASSERT_EQUAL(sent[k].ephemeris.svid, got[k].prn);
            CPPUNIT_ASSERT_EQUAL(std::string(toc[k]), got[k].toc);
            // SISA index 107 (the nominal one): 2 m + 7 steps of 16 cm.
            check_values(
                got[k],
                expected_galileo(
                    sent[k], 3.12, health[k], week[k], records[k].transmission_time_s));
        }
        // No value of the broadcast is lost: each record is exactly 8 lines of <= 80.
        for (std::size_t k = qa::first_record_line(lines); k < lines.size(); ++k)
            CPPUNIT_ASSERT_MESSAGE(lines[k], lines[k].size() <= 80);
        CPPUNIT_ASSERT_EQUAL(qa::first_record_line(lines) + 24, lines.size());
    }

    void sisa_in_metres_as_the_icd_tabulates()
    {
        // OS SIS ICD's SISA table: 0 to 49 in 1 cm, 50 to 74 from 0.5 m in 2 cm, 75 to
        // 99 from 1 m in 4 cm, 100 to 125 from 2 m in 16 cm; 126 to 254 spare, 255 NAPA
        // (no accuracy prediction), both written -1 (as RTKLIB reads NAPA back).
        const struct {
            int index;
            double metres;
        } table[] = { { 0, 0.0 },    { 1, 0.01 },   { 49, 0.49 },  { 50, 0.50 },
                      { 74, 0.98 },  { 75, 1.00 },  { 99, 1.96 },  { 100, 2.00 },
                      { 125, 6.00 }, { 126, -1.0 }, { 254, -1.0 }, { 255, -1.0 } };
        galileo_inav_message m = galileo_nominal_constellation(7200.0, 1).front();
        for (const auto& row : table) {
            m.ephemeris.sisa = row.index;
            std::ostringstream out;
            gnss_rinex_navigation_header h;
            h.systems = { gnss_system::galileo };
            write_rinex_navigation_file(out, h, {}, { record_of(m, 2048, 5400.0) });
            const parsed_record got = parse_records(lines_of(out.str())).at(0);
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(
                std::to_string(row.index), row.metres, got.values[23], 1e-12);
        }
    }

    void mixed_navigation_header_and_names()
    {
        gnss_rinex_navigation_header h;
        h.systems = { gnss_system::gps, gnss_system::galileo };
        h.reference_week = 2048;
        h.has_galileo_iono = true;
        h.galileo_iono.ai0 = 60.25;
        h.galileo_iono.ai1 = 0.2265625;
        h.galileo_iono.ai2 = 0.0031280517578125;
        h.has_galileo_utc = true;
        h.galileo_utc.a0 = 1.862645149231e-9;
        h.galileo_utc.a1 = -8.881784197001e-16;
        h.galileo_utc.t0t = 345600.0;
        h.galileo_utc.wn0t = 2048 % 256;
        h.galileo_utc.dt_ls = 18;
        h.galileo_utc.wn_lsf = 1929 % 256;
        h.galileo_utc.dn = 7;
        h.galileo_utc.dt_lsf = 18;
        gnss_rinex_gps_ephemeris g;
        g.ephemeris = qa::sample_gps_ephemeris();
        g.ephemeris.toc = g.ephemeris.toe = 7200.0;
        g.week = 2048;
        g.transmission_time_s = 1800.0;
        const galileo_inav_message e = galileo_nominal_constellation(7200.0, 5).front();
        std::ostringstream out;
        write_rinex_navigation_file(out, h, { g }, { record_of(e, 2048, 5400.0) });
        const auto lines = lines_of(out.str());
        // F9.2,11X,A1,19X,A1,19X: version, file type, system.
        CPPUNIT_ASSERT_EQUAL(
            std::string("     3.04           N: GNSS NAV DATA    M: MIXED"),
            lines[0].substr(0, 48));
        // A4,1X,4D12.4 ("GAL " and a blank, then 12 columns each): ai0, ai1, ai2, 0.
        CPPUNIT_ASSERT_EQUAL(
            std::string("GAL    6.0250D+01  2.2656D-01  3.1281D-03  0.0000D+00"),
            header_record(lines, "IONOSPHERIC CORR").substr(0, 53));
        // A4,1X,D17.10,D16.9,I7,I5; the week continuous.
        CPPUNIT_ASSERT_EQUAL(
            std::string("GAUT  1.8626451492D-09-8.881784197D-16 345600 2048"),
            header_record(lines, "TIME SYSTEM CORR").substr(0, 50));
        CPPUNIT_ASSERT_EQUAL(std::string("    18    18  1929     7"),
                             header_record(lines, "LEAP SECONDS").substr(0, 24));
        const std::vector<parsed_record> got = parse_records(lines);
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), got.size());
        CPPUNIT_ASSERT_EQUAL('G', got[0].system);
        CPPUNIT_ASSERT_EQUAL(7, got[0].prn);
        CPPUNIT_ASSERT_EQUAL('E', got[1].system);
        CPPUNIT_ASSERT_EQUAL(e.ephemeris.svid, got[1].prn);

        const gnss_rinex_site site;
        const gps_time first = { 2048, 86400.0 + 3600.0 * 13 + 60.0 * 7 + 12.0 };
        CPPUNIT_ASSERT_EQUAL(
            std::string("GRCD00XXX_R_20190981307_01H_MN.rnx"),
            rinex_navigation_file_name(
                site, first, 3600.0, { gnss_system::gps, gnss_system::galileo }));
        CPPUNIT_ASSERT_EQUAL(
            std::string("GRCD00XXX_R_20190981307_05M_EN.rnx"),
            rinex_navigation_file_name(site, first, 300.0, { gnss_system::galileo }));
        CPPUNIT_ASSERT_EQUAL(
            std::string("GRCD00XXX_R_20190981307_05M_GN.rnx"),
            rinex_navigation_file_name(site, first, 300.0, { gnss_system::gps }));
        CPPUNIT_ASSERT_EQUAL(std::string("GRCD00XXX_R_20190981307_05M_01S_EO.rnx"),
                             rinex_observation_file_name(
                                 site, first, 300.0, 1000, { gnss_system::galileo }));
    }

    void galileo_observations_in_the_observation_file()
    {
        gnss_rinex_observation_header h;
        h.systems = { gnss_system::gps, gnss_system::galileo };
        gnss_observation_epoch epoch;
        epoch.receiver_time_ms = 86400000 + 3723000; // Mon 01:02:03
        gnss_observation g;
        g.prn = 5;
        g.pseudorange_m = 21345678.1234;
        g.carrier_phase_cycles = -112233445.6789;
        g.doppler_hz = -2345.6784;
        g.cn0_dbhz = 47.3;
        gnss_observation e = g;
        e.system = gnss_system::galileo;
        e.prn = 11;
        e.pseudorange_m = 24345678.5;
        e.cn0_dbhz = 40.2;
        epoch.observations = { g, e };
        std::ostringstream out;
        write_rinex_observation_file(out, h, 2048, { epoch });
        const auto lines = lines_of(out.str());
        CPPUNIT_ASSERT_EQUAL('O', lines[0][20]);
        CPPUNIT_ASSERT_EQUAL('M', lines[0][40]);
        // One SYS / # / OBS TYPES line per system (A1,2X,I3,13(1X,A3)), GPS first.
        std::vector<std::string> types, shifts;
        for (const auto& line : lines) {
            if (line.size() > 60 && line.substr(60) == "SYS / # / OBS TYPES")
                types.push_back(line.substr(0, 22));
            if (line.size() > 60 && line.substr(60) == "SYS / PHASE SHIFT")
                shifts.push_back(line.substr(0, 5));
        }
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), types.size());
        CPPUNIT_ASSERT_EQUAL(std::string("G    4 C1C L1C D1C S1C"), types[0]);
        CPPUNIT_ASSERT_EQUAL(std::string("E    4 C1C L1C D1C S1C"), types[1]);
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), shifts.size());
        CPPUNIT_ASSERT_EQUAL(std::string("E L1C"), shifts[1]);
        const std::size_t first = qa::first_record_line(lines);
        CPPUNIT_ASSERT_EQUAL(first + 3, lines.size());
        CPPUNIT_ASSERT_EQUAL(std::string("> 2019 04 08 01 02  3.0000000  0  2"),
                             lines[first]);
        CPPUNIT_ASSERT_EQUAL(std::string("G05  21345678.123 7"),
                             lines[first + 1].substr(0, 19));
        // SSI 6 for 36-41 dB-Hz.
        CPPUNIT_ASSERT_EQUAL(std::string("E11  24345678.500 6"),
                             lines[first + 2].substr(0, 19));
    }

    void nmea_of_both_systems_and_of_galileo_alone()
    {
        const gps_time t = { 741, 304528.0 }; // 1994-03-23 12:35:19 UTC with 9 s
        const nmea_case both = two_system_fix(true);
        const std::string gga = "$GNGGA,123519.00,4807.0380,N,01131.0000,E,1,04,";
        CPPUNIT_ASSERT_EQUAL(gga, nmea_gga(both.fix, t, 9).substr(0, gga.size()));
        CPPUNIT_ASSERT_EQUAL(std::string("$GNRMC,"),
                             nmea_rmc(both.fix, t, 9).substr(0, 7));
        // One GSA per system under GN, each ending in NMEA 4.10's system ID.
        const std::vector<std::string> gsa = nmea_gsa(both.fix);
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), gsa.size());
        CPPUNIT_ASSERT_EQUAL(sentence_of("GNGSA,A,3,05,12,,,,,,,,,,,2.5,1.3,2.1,1"),
                             gsa[0]);
        CPPUNIT_ASSERT_EQUAL(sentence_of("GNGSA,A,3,05,11,,,,,,,,,,,2.5,1.3,2.1,3"),
                             gsa[1]);
        // GSV per system, every satellite above the horizon, used or not.
        const std::vector<std::string> gsv = nmea_gsv(both.fix, both.observations);
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), gsv.size());
        CPPUNIT_ASSERT_EQUAL(sentence_of("GPGSV,1,1,02,05,40,083,46,12,30,200,41,1"),
                             gsv[0]);
        CPPUNIT_ASSERT_EQUAL(
            sentence_of("GAGSV,1,1,03,05,50,100,44,11,20,300,39,19,10,010,30,7"), gsv[1]);

        const nmea_case galileo = two_system_fix(false);
        CPPUNIT_ASSERT_EQUAL(std::string("$GAGGA,"),
                             nmea_gga(galileo.fix, t, 9).substr(0, 7));
        CPPUNIT_ASSERT_EQUAL(std::string("$GARMC,"),
                             nmea_rmc(galileo.fix, t, 9).substr(0, 7));
        const std::vector<std::string> alone = nmea_gsa(galileo.fix);
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), alone.size());
        CPPUNIT_ASSERT_EQUAL(sentence_of("GAGSA,A,3,05,11,,,,,,,,,,,2.5,1.3,2.1,3"),
                             alone[0]);
        // NMEA 4.10's 19 fields, the system ID last, whatever the talker.
        for (const std::string& sentence : { gsa[0], gsa[1], alone[0] }) {
            const std::vector<std::string> fields = nmea_fields(sentence);
            CPPUNIT_ASSERT_EQUAL(std::size_t(19), fields.size());
            CPPUNIT_ASSERT_EQUAL(std::string(sentence == gsa[0] ? "1" : "3"),
                                 fields.back());
        }
        const std::vector<std::string> gsv_alone =
            nmea_gsv(galileo.fix, galileo.observations);
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), gsv_alone.size());
        CPPUNIT_ASSERT_EQUAL(std::string("$GAGSV,1,1,03,"), gsv_alone[0].substr(0, 14));
    }

    void epoch_nmea_takes_cn0_by_system()
    {
        // G05 and E05 share the PRN: each GSV entry must carry its own satellite's C/N0.
        const nmea_case both = two_system_fix(true);
        gps_receiver_epoch e;
        e.fix = both.fix;
        e.gps_time_of_week_s = 304537.0;
        for (const gnss_pvt_observation& o : both.observations) {
            gnss_observation m;
            m.system = o.system;
            m.prn = o.prn;
            m.cn0_dbhz = o.cn0_dbhz;
            e.observations.observations.push_back(m);
        }
        const std::vector<std::string> sentences = gps_receiver_nmea(e, 741, 9);
        CPPUNIT_ASSERT_EQUAL(std::size_t(6), sentences.size()); // GGA, RMC, 2 GSA, 2 GSV
        CPPUNIT_ASSERT_EQUAL(sentence_of("GPGSV,1,1,02,05,40,083,46,12,30,200,41,1"),
                             sentences[4]);
        CPPUNIT_ASSERT_EQUAL(
            sentence_of("GAGSV,1,1,03,05,50,100,44,11,20,300,39,19,10,010,30,7"),
            sentences[5]);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_gnss_outputs_galileo);

} // namespace core
} // namespace cudadsp
} // namespace gr
