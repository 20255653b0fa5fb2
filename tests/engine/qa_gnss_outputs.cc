/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The receiver's outputs against truth from outside the code: GPS weeks whose dates are
// known (the 1999 and 2019 rollovers); NMEA checksums of the example sentences published
// with the standard's descriptions (gpsd's and D. DePriest's NMEA pages) and sentences
// of known positions written out by hand; RINEX 3.04 lines checked column by column
// against the format tables; observables from channel states made from known ranges
// and clocks, against those ranges and RINEX's signs. RTKLIB reading the files is
// qa_gnss_rinex_rtklib.

#include "gnss/gnss_nmea.h"
#include "gnss/gnss_observables.h"
#include "gnss/gnss_rinex.h"
#include "gnss/gnss_time.h"
#include "gnss/gnss_track_geojson.h"
#include "qa_gnss_channel_states.h"
#include "qa_gps_sample_ephemeris.h"
#include "qa_nmea_text.h"
#include "qa_rinex_text.h"
#include "qa_support.h"
#include <cppunit/extensions/HelperMacros.h>
#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

const double pi = 3.14159265358979323846;
const double deg = pi / 180.0;
const double c_light = 299792458.0;
const double l1_wavelength_m = c_light / 1575.42e6;
const double nan = std::numeric_limits<double>::quiet_NaN();

using qa::fortran_number;
using qa::header_record;
using qa::lines_of;
using qa::nmea_fields;

//! NMEA 4.10 GSA: address, mode, fix, 12 PRNs, PDOP, HDOP, VDOP, system ID.
constexpr std::size_t gsa_fields = 19;

//! A fix at 48 07.038 N, 11 31.000 E, 545.4 m: the position of the published examples.
gnss_pvt_result example_fix()
{
    gnss_pvt_result fix;
    fix.valid = true;
    fix.geodetic = { (48.0 + 7.038 / 60.0) * deg, (11.0 + 31.0 / 60.0) * deg, 545.4 };
    fix.position_m = geodetic_to_ecef(fix.geodetic);
    fix.satellites_used = 8;
    fix.dops = { 3.0, 2.5, 0.9, 2.1, 1.0 };
    fix.velocity_valid = false;
    return fix;
}

//! 1994-03-23 12:35:19 UTC (GPS - UTC was 9 s then): GPS week 741, 304528 s.
const gps_time example_time = { 741, 304528.0 };
const int example_leap_seconds = 9;

//! A satellite of the observables' scenario: range rho0 + v t + a t^2 / 2 from the
//! receiver at receive time t (s from the start), constant satellite clock offset.
struct scripted_satellite {
    int prn;
    double rho0_m, v_m_s, a_m_s2, clock_s;
    double range(double t) const { return rho0_m + v_m_s * t + 0.5 * a_m_s2 * t * t; }
    double rate(double t) const { return v_m_s + a_m_s2 * t; }
};

const std::vector<scripted_satellite> scripted = {
    { 3, 20.5e6, -640.0, 0.12, 1.2e-4 },  { 8, 23.1e6, 310.0, -0.05, -3.1e-4 },
    { 11, 24.9e6, 790.0, 0.02, 4.4e-5 },  { 17, 21.7e6, -120.0, 0.09, -9.0e-6 },
    { 22, 22.6e6, 505.0, -0.11, 2.0e-4 }, { 30, 25.3e6, -770.0, 0.04, 0.0 },
};
const double scripted_rate_hz = 4e6;
const std::int64_t scripted_tow_whole_s = 345600;   //!< true GPS time at sample 0: whole
const double scripted_tow_fraction_s = 0.123456789; //!< and fraction

//! The states every 1 ms of each scripted satellite over \p seconds, channel by channel
//! offset so that no state falls on an epoch's sample; carrier phase and Doppler those
//! of a perfect PLL (NCO phase = received phase: it grows as the range shrinks).
std::vector<gnss_channel_epoch> scripted_states(double seconds)
{
    std::vector<gnss_channel_epoch> states;
    const std::uint64_t step = 4000;
    for (std::uint64_t s0 = 0; s0 < static_cast<std::uint64_t>(seconds * 4e6); s0 += step)
        for (std::size_t i = 0; i < scripted.size(); ++i) {
            const scripted_satellite& sat = scripted[i];
            const std::uint64_t sample = s0 + 1000 + 311 * i;
            const double t = static_cast<double>(sample) / scripted_rate_hz;
            gnss_channel_epoch s = qa::gps_channel_state(
                sat.prn,
                sample,
                scripted_tow_whole_s,
                scripted_tow_fraction_s + t - sat.range(t) / c_light + sat.clock_s);
            s.carrier_cycles = -(sat.range(t) - c_light * sat.clock_s) / l1_wavelength_m;
            s.doppler_hz = -sat.rate(t) / l1_wavelength_m;
            states.push_back(s);
        }
    return states;
}

std::vector<gnss_observation_epoch>
run_observables(const gnss_observables_config& config,
                const std::vector<gnss_channel_epoch>& states)
{
    gnss_observables observables(config);
    for (const auto& s : states)
        observables.add(s);
    return observables.epochs_through(states.back().sample_index);
}

//! Seconds from sample 0's true time to the receiver time of \p epoch: c times it is
//! the clock term every pseudorange holds.
double clock_term_s(const gnss_observation_epoch& epoch)
{
    return static_cast<double>(epoch.receiver_time_ms - 1000 * scripted_tow_whole_s) /
               1000.0 -
           scripted_tow_fraction_s - epoch.sample_index / scripted_rate_hz;
}

} // namespace

class qa_gnss_outputs : public CppUnit::TestCase
{
    CPPUNIT_TEST_SUITE(qa_gnss_outputs);
    CPPUNIT_TEST(calendar_of_known_gps_weeks);
    CPPUNIT_TEST(nmea_checksums_of_published_sentences);
    CPPUNIT_TEST(nmea_gga_and_rmc_of_a_known_position);
    CPPUNIT_TEST(nmea_gsa_and_gsv_of_published_satellites);
    CPPUNIT_TEST(nmea_without_fix);
    CPPUNIT_TEST(geojson_track_text);
    CPPUNIT_TEST(rinex_observation_header_columns);
    CPPUNIT_TEST(rinex_observation_header_without_observations);
    CPPUNIT_TEST(rinex_observation_epoch_columns);
    CPPUNIT_TEST(rinex_navigation_header_and_record_fields);
    CPPUNIT_TEST(rinex_file_names);
    CPPUNIT_TEST(files_written_atomically);
    CPPUNIT_TEST(pseudoranges_match_ranges_and_clocks);
    CPPUNIT_TEST(carrier_phase_and_doppler_follow_rinex_signs);
    CPPUNIT_TEST(fifty_hertz_epochs_and_streaming_input);
    CPPUNIT_TEST(lock_half_cycle_and_gaps);
    CPPUNIT_TEST(bad_config_names_parameter);
    CPPUNIT_TEST_SUITE_END();

public:
    void calendar_of_known_gps_weeks()
    {
        // Week 0 began 1980-01-06, week 1024 on 1999-08-22, week 2048 on 2019-04-07
        // (the two rollovers of the 10-bit week).
        const gnss_calendar_time w0 = gps_calendar({ 0, 0.0 }, 1.0);
        CPPUNIT_ASSERT(w0.year == 1980 && w0.month == 1 && w0.day == 6);
        const gnss_calendar_time w1024 = gps_calendar({ 1024, 0.0 }, 1.0);
        CPPUNIT_ASSERT(w1024.year == 1999 && w1024.month == 8 && w1024.day == 22);
        const gnss_calendar_time w2048 = gps_calendar({ 2048, 3723.5 }, 0.1);
        CPPUNIT_ASSERT(w2048.year == 2019 && w2048.month == 4 && w2048.day == 7);
        CPPUNIT_ASSERT(w2048.hour == 1 && w2048.minute == 2);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(3.5, w2048.second, 1e-12);
        CPPUNIT_ASSERT_EQUAL(97, day_of_year(w2048)); // 31 + 28 + 31 + 7
        CPPUNIT_ASSERT_EQUAL(366, day_of_year({ 2020, 12, 31, 0, 0, 0.0 }));
        // 18 leap seconds: the first second of week 2048 is 23:59:42 UTC the day before.
        const gnss_calendar_time utc = utc_calendar({ 2048, 0.0 }, 18, 1.0);
        CPPUNIT_ASSERT(utc.year == 2019 && utc.month == 4 && utc.day == 6);
        CPPUNIT_ASSERT(utc.hour == 23 && utc.minute == 59 && utc.second == 42.0);
        // Rounded to the resolution first: never 60 seconds.
        const gnss_calendar_time end = gps_calendar({ 2047, 604799.99999999 }, 1e-7);
        CPPUNIT_ASSERT(end.day == 7 && end.hour == 0 && end.minute == 0 &&
                       end.second == 0.0);
        CPPUNIT_ASSERT_EQUAL(2048, gps_resolve_week(0, 1024, 2047));
        CPPUNIT_ASSERT_EQUAL(2047, gps_resolve_week(1023, 1024, 2048));
        CPPUNIT_ASSERT_EQUAL(2300, gps_resolve_week(252, 1024, 2290));
        CPPUNIT_ASSERT_EQUAL(2393, gps_resolve_week(89, 256, 2300)); // 89 + 9 x 256
        // GST week 0 began with GPS week 1024 (1999-08-22); 2023-12-31 began GPS week
        // 2295, GST week 1271. The 12-bit GST week wraps after GPS week 5119.
        CPPUNIT_ASSERT_EQUAL(1024, gps_week_of_gst_week(0, 1030));
        CPPUNIT_ASSERT_EQUAL(2295, gps_week_of_gst_week(1271, 2290));
        CPPUNIT_ASSERT_EQUAL(5120, gps_week_of_gst_week(0, 5118));
    }

    void nmea_checksums_of_published_sentences()
    {
        CPPUNIT_ASSERT_EQUAL(
            std::string("47"),
            nmea_checksum(
                "GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"));
        CPPUNIT_ASSERT_EQUAL(
            std::string("6A"),
            nmea_checksum(
                "GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W"));
        CPPUNIT_ASSERT_EQUAL(
            std::string("39"),
            nmea_checksum("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1"));
        CPPUNIT_ASSERT_EQUAL(
            std::string("75"),
            nmea_checksum(
                "GPGSV,2,1,08,01,40,083,46,02,17,308,41,12,07,344,39,14,22,228,45"));
        CPPUNIT_ASSERT_EQUAL(
            std::string("$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1*39\r\n"),
            nmea_sentence("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1"));
    }

    void nmea_gga_and_rmc_of_a_known_position()
    {
        gnss_pvt_result fix = example_fix();
        // Checksums computed apart from the code (Python's XOR over the body).
        CPPUNIT_ASSERT_EQUAL(
            std::string("$GPGGA,123519.00,4807.0380,N,01131.0000,E,1,08,0.9,545.4,M,0.0,"
                        "M,,*52\r\n"),
            nmea_gga(fix, example_time, example_leap_seconds));
        // 22.4 knots towards 84.4 degrees, as the published RMC.
        const double speed = 22.4 * 1852.0 / 3600.0, course = 84.4 * deg;
        const double e = speed * std::sin(course), n = speed * std::cos(course);
        const double sl = std::sin(fix.geodetic.latitude_rad);
        const double cl = std::cos(fix.geodetic.latitude_rad);
        const double so = std::sin(fix.geodetic.longitude_rad);
        const double co = std::cos(fix.geodetic.longitude_rad);
        fix.velocity_m_s = { -so * e - sl * co * n, co * e - sl * so * n, cl * n };
        fix.velocity_valid = true;
        CPPUNIT_ASSERT_EQUAL(
            std::string("$GPRMC,123519.00,A,4807.0380,N,01131.0000,E,22.40,84.4,230394,,,"
                        "A,V*18\r\n"),
            nmea_rmc(fix, example_time, example_leap_seconds));
        // Southern and western hemispheres, and minutes that round up to a degree.
        fix.geodetic.latitude_rad = -(33.0 + 59.99999 / 60.0) * deg;
        fix.geodetic.longitude_rad = -(151.0 + 12.5 / 60.0) * deg;
        const std::string gga = nmea_gga(fix, example_time, example_leap_seconds);
        CPPUNIT_ASSERT(gga.find(",3400.0000,S,15112.5000,W,") != std::string::npos);
    }

    void nmea_gsa_and_gsv_of_published_satellites()
    {
        gnss_pvt_result fix = example_fix();
        fix.dops = { 3.0, 2.5, 1.3, 2.1, 1.0 };
        std::vector<gnss_pvt_observation> observations;
        const struct {
            int prn, elevation, azimuth;
            double cn0;
            bool used;
        } published[] = { { 1, 40, 83, 46, false },  { 4, 44, 120, 40, true },
                          { 2, 17, 308, 41, false }, { 5, 30, 40, 38, true },
                          { 12, 7, 344, 39, true },  { 14, 22, 228, 45, false },
                          { 9, 48, 60, 44, true },   { 24, 63, 102, nan, true },
                          { 25, 5, 191, 30, false }, { 29, 55, 295, 41, false },
                          { 31, 11, 28, 33, false }, { 7, -3, 200, 20, false } };
        for (const auto& p : published) {
            gnss_pvt_satellite s;
            s.prn = p.prn;
            s.used = p.used;
            s.elevation_rad = p.elevation * deg;
            s.azimuth_rad = p.azimuth * deg;
            fix.satellites.push_back(s);
            gnss_pvt_observation o;
            o.prn = p.prn;
            o.cn0_dbhz = p.cn0;
            observations.push_back(o);
        }
        const auto gsa = nmea_gsa(fix);
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), gsa.size());
        // The published sentence (NMEA 2.x) and NMEA 4.10's system ID, 1 for GPS.
        CPPUNIT_ASSERT_EQUAL(
            std::string("$GPGSA,A,3,04,05,12,09,24,,,,,,,,2.5,1.3,2.1,1*24\r\n"), gsa[0]);
        const std::vector<std::string> fields = nmea_fields(gsa[0]);
        CPPUNIT_ASSERT_EQUAL(gsa_fields, fields.size());
        CPPUNIT_ASSERT_EQUAL(std::string("1"), fields.back());
        // Not in the published order: the in-view list follows the input, so put the
        // published first four first.
        std::vector<std::size_t> order = { 0, 2, 4, 5, 7, 8, 9, 10, 1, 3, 6, 11 };
        gnss_pvt_result reordered = fix;
        std::vector<gnss_pvt_observation> reordered_obs;
        reordered.satellites.clear();
        for (std::size_t k : order) {
            reordered.satellites.push_back(fix.satellites[k]);
            reordered_obs.push_back(observations[k]);
        }
        const auto gsv = nmea_gsv(reordered, reordered_obs);
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), gsv.size()); // 11 above the horizon
        CPPUNIT_ASSERT_EQUAL(std::string("$GPGSV,3,1,11,01,40,083,46,02,17,308,41,12,07,"
                                         "344,39,14,22,228,45,1*61\r\n"),
                             gsv[0]);
        CPPUNIT_ASSERT_EQUAL(std::string("$GPGSV,3,2,11,24,63,102,,25,05,191,30,29,55,"
                                         "295,41,31,11,028,33,1*65\r\n"),
                             gsv[1]);
    }

    void nmea_without_fix()
    {
        gnss_pvt_result fix;
        fix.valid = false;
        CPPUNIT_ASSERT_EQUAL(std::string("$GPGGA,123519.00,,,,,0,00,,,,,,,*45\r\n"),
                             nmea_gga(fix, example_time, example_leap_seconds));
        const std::string rmc = nmea_rmc(fix, example_time, example_leap_seconds);
        CPPUNIT_ASSERT_EQUAL(std::string("$GPRMC,123519.00,V,,,,,,,230394,,,N,V*"),
                             rmc.substr(0, rmc.size() - 4));
        const std::vector<std::string> gsa = nmea_gsa(fix);
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), gsa.size());
        const std::vector<std::string> fields = nmea_fields(gsa[0]);
        CPPUNIT_ASSERT_EQUAL(gsa_fields, fields.size());
        CPPUNIT_ASSERT_EQUAL(std::string("GPGSA"), fields[0]);
        CPPUNIT_ASSERT_EQUAL(std::string("1"), fields[2]); // no fix
        CPPUNIT_ASSERT_EQUAL(std::string("1"), fields.back());
    }

    void geojson_track_text()
    {
        std::ostringstream out;
        write_geojson_track(out,
                            { { { 2048, 18.0 }, { 48.5 * deg, -11.25 * deg, 520.125 } },
                              { { 2048, 19.5 }, { 48.5 * deg, -11.0 * deg, 521.0 } } },
                            18);
        CPPUNIT_ASSERT_EQUAL(
            std::string(
                "{\"type\":\"FeatureCollection\",\"features\":[\n"
                "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":"
                "[-11.25000000,48.50000000,520.125]},\"properties\":{\"time\":"
                "\"2019-04-07T00:00:00.000Z\"}},\n"
                "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":"
                "[-11.00000000,48.50000000,521.000]},\"properties\":{\"time\":"
                "\"2019-04-07T00:00:01.500Z\"}},\n"
                "{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\","
                "\"coordinates\":[[-11.25000000,48.50000000,520.125],[-11.00000000,"
                "48.50000000,521.000]]},\"properties\":{}}\n]}\n"),
            out.str());
    }

    void rinex_observation_header_columns()
    {
        gnss_rinex_observation_header h;
        h.program.run_by = "QA";
        h.program.created_utc = { 2019, 4, 8, 9, 30, 15.0 };
        h.marker_name = "ROOF";
        h.observer = "OBSERVER";
        h.agency = "AGENCY";
        h.receiver_number = "1";
        h.receiver_version = "0.1";
        h.antenna_type = "PATCH";
        h.approximate_position_m = { 4164613.9162, 835418.7547, -4736483.0218 };
        h.antenna_delta_hen_m = { 0.1, -0.02, 0.003 };
        h.interval_ms = 1000;
        h.first_observation = { 2048, 3600.0 + 1.25 };
        std::ostringstream out;
        write_rinex_observation_header(out, h);
        const auto lines = lines_of(out.str());
        // Contents in columns 1-60, the label from column 61, 80 columns at most.
        for (const auto& line : lines)
            CPPUNIT_ASSERT_MESSAGE(line, line.size() > 60 && line.size() <= 80);
        // Table A2, in the order RINEX requires the first line.
        const std::string version = lines.front();
        CPPUNIT_ASSERT_EQUAL(std::string("RINEX VERSION / TYPE"), version.substr(60));
        CPPUNIT_ASSERT_EQUAL(std::string("     3.04"), version.substr(0, 9)); // F9.2
        CPPUNIT_ASSERT_EQUAL('O', version[20]);
        CPPUNIT_ASSERT_EQUAL('G', version[40]);
        const std::string pgm = header_record(lines, "PGM / RUN BY / DATE");
        CPPUNIT_ASSERT_EQUAL(std::string("gr-cudadsp"), pgm.substr(0, 10));
        CPPUNIT_ASSERT_EQUAL(std::string("QA"), pgm.substr(20, 2));
        CPPUNIT_ASSERT_EQUAL(std::string("20190408 093015 UTC"), pgm.substr(40, 19));
        CPPUNIT_ASSERT_EQUAL(std::string("ROOF"),
                             header_record(lines, "MARKER NAME").substr(0, 4));
        const std::string obs_agency = header_record(lines, "OBSERVER / AGENCY");
        CPPUNIT_ASSERT_EQUAL(std::string("OBSERVER"), obs_agency.substr(0, 8));
        CPPUNIT_ASSERT_EQUAL(std::string("AGENCY"), obs_agency.substr(20, 6));
        const std::string rec = header_record(lines, "REC # / TYPE / VERS");
        CPPUNIT_ASSERT_EQUAL(std::string("GR-CUDADSP"), rec.substr(20, 10));
        CPPUNIT_ASSERT_EQUAL(std::string("0.1"), rec.substr(40, 3));
        CPPUNIT_ASSERT_EQUAL(std::string("PATCH"),
                             header_record(lines, "ANT # / TYPE").substr(20, 5));
        const std::string xyz = header_record(lines, "APPROX POSITION XYZ"); // 3F14.4
        CPPUNIT_ASSERT_EQUAL(std::string("  4164613.9162   835418.7547 -4736483.0218"),
                             xyz.substr(0, 42));
        const std::string hen = header_record(lines, "ANTENNA: DELTA H/E/N");
        CPPUNIT_ASSERT_EQUAL(std::string("        0.1000       -0.0200        0.0030"),
                             hen.substr(0, 42));
        // A1, 2X, I3, then 1X,A3 per type.
        CPPUNIT_ASSERT_EQUAL(std::string("G    4 C1C L1C D1C S1C"),
                             header_record(lines, "SYS / # / OBS TYPES").substr(0, 22));
        CPPUNIT_ASSERT_EQUAL(std::string("     1.000"),
                             header_record(lines, "INTERVAL").substr(0, 10)); // F10.3
        // 5I6, F13.7, 5X, A3.
        CPPUNIT_ASSERT_EQUAL(
            std::string("  2019     4     7     1     0    1.2500000     GPS"),
            header_record(lines, "TIME OF FIRST OBS").substr(0, 51));
        CPPUNIT_ASSERT_EQUAL(std::string("END OF HEADER"), lines.back().substr(60, 13));
    }

    void rinex_observation_header_without_observations()
    {
        // No epoch, and no system named: the header still holds every record RINEX
        // 3.04 requires of a GPS file (Table A2), the observation types included.
        gnss_rinex_observation_header h;
        h.systems.clear();
        h.first_observation = { 2048, 3600.0 };
        std::ostringstream out;
        write_rinex_observation_file(out, h, 2048, {});
        const auto lines = lines_of(out.str());
        CPPUNIT_ASSERT_EQUAL('G', lines.front()[40]);
        for (const char* label : { "PGM / RUN BY / DATE",
                                   "MARKER NAME",
                                   "MARKER TYPE",
                                   "OBSERVER / AGENCY",
                                   "REC # / TYPE / VERS",
                                   "ANT # / TYPE",
                                   "APPROX POSITION XYZ",
                                   "ANTENNA: DELTA H/E/N",
                                   "TIME OF FIRST OBS" })
            header_record(lines, label);
        CPPUNIT_ASSERT_EQUAL(std::string("G    4 C1C L1C D1C S1C"),
                             header_record(lines, "SYS / # / OBS TYPES").substr(0, 22));
        CPPUNIT_ASSERT_EQUAL(std::string("G L1C"),
                             header_record(lines, "SYS / PHASE SHIFT").substr(0, 5));
        CPPUNIT_ASSERT_EQUAL(lines.size(), qa::first_record_line(lines));
    }

    void rinex_observation_epoch_columns()
    {
        gnss_observation_epoch epoch;
        epoch.receiver_time_ms =
            604800000 + 86400000 + 3723500; // next week, Mon 01:02:03.5
        gnss_observation a;
        a.prn = 5;
        a.pseudorange_m = 21345678.1234;
        a.carrier_phase_cycles = -112233445.6789;
        a.doppler_hz = -2345.6784;
        a.cn0_dbhz = 47.3;
        a.lli = gnss_lli_lost_lock | gnss_lli_half_cycle;
        gnss_observation b;
        b.prn = 31;
        b.pseudorange_m = 2.4e7;
        b.carrier_phase_cycles = nan;
        b.doppler_hz = 100.0;
        b.cn0_dbhz = 11.0;
        epoch.observations = { a, b };
        std::ostringstream out;
        write_rinex_observation_epoch(out, 2047, epoch);
        const auto lines = lines_of(out.str());
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), lines.size());
        // A1,1X,I4,4(1X,I2.2),F11.7,2X,I1,I3: week 2048 + 1 day = 2019-04-08.
        CPPUNIT_ASSERT_EQUAL(std::string("> 2019 04 08 01 02  3.5000000  0  2"),
                             lines[0]);
        // A1,I2.2, then m(F14.3,I1,I1); SSI 7 for 42-47 dB-Hz, 1 below 12 dB-Hz.
        CPPUNIT_ASSERT_EQUAL(std::string("G05"), lines[1].substr(0, 3));
        CPPUNIT_ASSERT_EQUAL(std::string("  21345678.123 7"), lines[1].substr(3, 16));
        CPPUNIT_ASSERT_EQUAL(std::string("-112233445.67937"), lines[1].substr(19, 16));
        CPPUNIT_ASSERT_EQUAL(std::string("     -2345.678  "), lines[1].substr(35, 16));
        CPPUNIT_ASSERT_EQUAL(std::string("        47.300  "), lines[1].substr(51, 16));
        CPPUNIT_ASSERT_EQUAL(std::string("G31  24000000.000 1"), lines[2].substr(0, 19));
        CPPUNIT_ASSERT_EQUAL(std::string(16, ' '), lines[2].substr(19, 16)); // no phase
        CPPUNIT_ASSERT_EQUAL(100.0, fortran_number(lines[2].substr(35, 14)));
    }

    void rinex_navigation_header_and_record_fields()
    {
        gnss_rinex_navigation_header h;
        h.program.created_utc = { 2019, 4, 8, 0, 0, 0.0 };
        h.has_iono_utc = true;
        h.iono_utc.alpha[0] = 1.1176e-8;
        h.iono_utc.alpha[1] = -1.4901e-8;
        h.iono_utc.alpha[2] = -5.9605e-8;
        h.iono_utc.alpha[3] = 1.1921e-7;
        h.iono_utc.beta[0] = 90112.0;
        h.iono_utc.beta[1] = -65536.0;
        h.iono_utc.beta[2] = -196608.0;
        h.iono_utc.beta[3] = 393216.0;
        h.iono_utc.a0 = -9.3132257462e-10;
        h.iono_utc.a1 = -1.776356839e-15;
        h.iono_utc.tot = 233472.0;
        h.iono_utc.wnt = 0; // 2048 mod 256
        h.iono_utc.dt_ls = 18;
        h.iono_utc.wn_lsf = 137; // week 1929 mod 256
        h.iono_utc.dn = 7;
        h.iono_utc.dt_lsf = 18;
        h.reference_week = 2048;
        gnss_rinex_gps_ephemeris r;
        r.ephemeris = qa::sample_gps_ephemeris();
        gps_ephemeris& e = r.ephemeris;
        e.toc = 7200.0;
        e.toe = 7200.0;
        e.fit_interval_flag = 0;
        r.week = 2048;
        r.transmission_time_s = 1800.0;
        std::ostringstream out;
        write_rinex_gps_navigation_file(out, h, { r });
        const auto lines = lines_of(out.str());
        CPPUNIT_ASSERT_EQUAL(
            std::string("     3.04           N: GNSS NAV DATA    G: GPS"),
            lines[0].substr(0, 46));
        // A4,1X,4D12.4.
        const std::string gpsa = lines[2];
        CPPUNIT_ASSERT_EQUAL(std::string("IONOSPHERIC CORR"), gpsa.substr(60, 16));
        CPPUNIT_ASSERT_EQUAL(
            std::string("GPSA   1.1176D-08 -1.4901D-08 -5.9605D-08  1.1921D-07"),
            gpsa.substr(0, 53));
        CPPUNIT_ASSERT_EQUAL(
            std::string("GPSB   9.0112D+04 -6.5536D+04 -1.9661D+05  3.9322D+05"),
            lines[3].substr(0, 53));
        // A4,1X,D17.10,D16.9,I7,I5 (the week continuous).
        CPPUNIT_ASSERT_EQUAL(
            std::string("GPUT -9.3132257462D-10-1.776356839D-15 233472 2048"),
            header_record(lines, "TIME SYSTEM CORR").substr(0, 50));
        CPPUNIT_ASSERT_EQUAL(std::string("    18    18  1929     7"),
                             header_record(lines, "LEAP SECONDS").substr(0, 24));
        const std::size_t first = qa::first_record_line(lines);
        CPPUNIT_ASSERT_EQUAL(first + 8, lines.size());
        // A1,I2.2,1X,I4,5(1X,I2.2),3D19.12: toc 7200 s into week 2048 = Sun 02:00:00.
        const std::string& sv = lines[first];
        CPPUNIT_ASSERT_EQUAL(std::string("G07 2019 04 07 02 00 00"), sv.substr(0, 23));
        // Table A6: each BROADCAST ORBIT line is 4X,4D19.12 in this order, the angles
        // and rates in radians (semicircles x pi).
        const double expected[8][4] = {
            { e.af0, e.af1, e.af2, nan },
            { double(e.iode), e.crs, e.delta_n * pi, e.m0 * pi },
            { e.cuc, e.e, e.cus, e.sqrt_a },
            { e.toe, e.cic, e.omega0 * pi, e.cis },
            { e.i0 * pi, e.crc, e.omega * pi, e.omega_dot * pi },
            { e.idot * pi, 1.0, 2048.0, 1.0 },
            { 4.85, 0.0, e.tgd, double(0x1A5) }, // URA index 2: 4.85 m
            { 1800.0, 4.0, nan, nan },           // fit flag 0: 4 hours
        };
        for (int k = 0; k < 8; ++k) {
            const std::string& line = lines[first + k];
            const std::size_t start = k == 0 ? 23 : 4;
            for (int j = 0; j < 4; ++j) {
                if (std::isnan(expected[k][j])) {
                    CPPUNIT_ASSERT(line.size() <= start + 19 * j);
                    continue;
                }
                const std::string number = line.substr(start + 19 * j, 19);
                CPPUNIT_ASSERT_MESSAGE(line, number.find('D') == 15);
                CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(line,
                                                     expected[k][j],
                                                     fortran_number(number),
                                                     std::fabs(expected[k][j]) * 1e-12);
            }
        }
    }

    void rinex_file_names()
    {
        gnss_rinex_site site;
        const gps_time first = { 2048, 86400.0 + 3600.0 * 13 + 60.0 * 7 + 12.0 };
        CPPUNIT_ASSERT_EQUAL(
            std::string("GRCD00XXX_R_20190981307_30M_01S_GO.rnx"),
            rinex_observation_file_name(site, first, 1800.0, 1000, { gnss_system::gps }));
        CPPUNIT_ASSERT_EQUAL(
            std::string("GRCD00XXX_R_20190981307_15M_50Z_MO.rnx"),
            rinex_observation_file_name(
                site, first, 900.0, 20, { gnss_system::gps, gnss_system::galileo }));
        CPPUNIT_ASSERT_EQUAL(std::string("GRCD00XXX_R_20190981307_01D_GN.rnx"),
                             rinex_gps_navigation_file_name(site, first, 86400.0));
        site.station = "roof";
        CPPUNIT_ASSERT_THROW(rinex_gps_navigation_file_name(site, first, 60.0),
                             std::invalid_argument);
    }

    void files_written_atomically()
    {
        char folder[] = "/tmp/qa_gnss_outputs_XXXXXX";
        CPPUNIT_ASSERT(::mkdtemp(folder) != nullptr);
        const std::string path = std::string(folder) + "/track.geojson";
        const std::vector<gnss_track_point> track = { { { 2048, 0.0 },
                                                        { 0.1, 0.2, 3.0 } } };
        write_geojson_track(path, track, 18);
        std::ostringstream expected;
        write_geojson_track(expected, track, 18);
        std::ifstream in(path);
        std::stringstream got;
        got << in.rdbuf();
        CPPUNIT_ASSERT_EQUAL(expected.str(), got.str());
        CPPUNIT_ASSERT(std::remove(path.c_str()) == 0);
        CPPUNIT_ASSERT(::rmdir(folder) == 0); // nothing temporary left beside it
        CPPUNIT_ASSERT_THROW(write_geojson_track(path, track, 18), std::runtime_error);
    }

    void pseudoranges_match_ranges_and_clocks()
    {
        gnss_observables_config config;
        config.sample_rate_hz = scripted_rate_hz;
        const auto epochs = run_observables(config, scripted_states(5.5));
        CPPUNIT_ASSERT(epochs.size() >= 4);
        double smallest_first = 1e30;
        for (std::size_t k = 0; k < epochs.size(); ++k) {
            const gnss_observation_epoch& epoch = epochs[k];
            CPPUNIT_ASSERT_EQUAL(std::int64_t(0), epoch.receiver_time_ms % 1000);
            CPPUNIT_ASSERT_EQUAL(scripted.size(), epoch.observations.size());
            const double t = epoch.sample_index / scripted_rate_hz;
            for (std::size_t i = 0; i < scripted.size(); ++i) {
                const gnss_observation& o = epoch.observations[i];
                CPPUNIT_ASSERT_EQUAL(scripted[i].prn, o.prn);
                // Range + c (receiver clock - satellite clock).
                const double truth =
                    scripted[i].range(t) +
                    c_light * (clock_term_s(epoch) - scripted[i].clock_s);
                CPPUNIT_ASSERT_DOUBLES_EQUAL(truth, o.pseudorange_m, 1e-3);
                CPPUNIT_ASSERT_EQUAL(45.0, o.cn0_dbhz);
                CPPUNIT_ASSERT_EQUAL(0, o.lli);
                if (k == 0)
                    smallest_first = std::fmin(smallest_first, o.pseudorange_m);
            }
        }
        // The clock's start: the earliest-sent signal reads 68.802 ms of transit, to
        // within what the satellites' Doppler changes before the first whole second.
        CPPUNIT_ASSERT_DOUBLES_EQUAL(c_light * 0.068802, smallest_first, 1000.0);
        CPPUNIT_ASSERT_EQUAL(epochs[0].receiver_time_ms + 1000,
                             epochs[1].receiver_time_ms);
    }

    void carrier_phase_and_doppler_follow_rinex_signs()
    {
        gnss_observables_config config;
        config.sample_rate_hz = scripted_rate_hz;
        const auto epochs = run_observables(config, scripted_states(5.5));
        const double t0 = epochs.front().sample_index / scripted_rate_hz;
        for (std::size_t k = 1; k < epochs.size(); ++k) {
            const double t = epochs[k].sample_index / scripted_rate_hz;
            for (std::size_t i = 0; i < scripted.size(); ++i) {
                const scripted_satellite& sat = scripted[i];
                const gnss_observation& o = epochs[k].observations[i];
                // RINEX 3.04 5.2: the phase changes in the same sense as the range.
                CPPUNIT_ASSERT_DOUBLES_EQUAL(
                    (sat.range(t) - sat.range(t0)) / l1_wavelength_m,
                    o.carrier_phase_cycles -
                        epochs[0].observations[i].carrier_phase_cycles,
                    1e-3);
                // Doppler positive for an approaching satellite.
                CPPUNIT_ASSERT_DOUBLES_EQUAL(
                    -sat.rate(t) / l1_wavelength_m, o.doppler_hz, 1e-6);
                CPPUNIT_ASSERT((o.doppler_hz > 0.0) == (sat.rate(t) < 0.0));
            }
        }
    }

    void fifty_hertz_epochs_and_streaming_input()
    {
        gnss_observables_config config;
        config.sample_rate_hz = scripted_rate_hz;
        config.interval_ms = 20;
        const auto states = scripted_states(1.5);
        const auto at_once = run_observables(config, states);
        CPPUNIT_ASSERT(at_once.size() > 50);
        // The same states in pieces, each followed by what is complete so far.
        gnss_observables streamed(config);
        std::vector<gnss_observation_epoch> pieces;
        for (std::size_t n = 0; n < states.size(); ++n) {
            streamed.add(states[n]);
            if (n % 97 == 96 || n + 1 == states.size())
                for (auto& e : streamed.epochs_through(states[n].sample_index))
                    pieces.push_back(e);
        }
        CPPUNIT_ASSERT_EQUAL(at_once.size(), pieces.size());
        for (std::size_t k = 0; k < at_once.size(); ++k) {
            CPPUNIT_ASSERT_EQUAL(std::int64_t(0), at_once[k].receiver_time_ms % 20);
            CPPUNIT_ASSERT_EQUAL(at_once[k].receiver_time_ms, pieces[k].receiver_time_ms);
            CPPUNIT_ASSERT_EQUAL(at_once[k].observations.size(),
                                 pieces[k].observations.size());
            const double t = at_once[k].sample_index / scripted_rate_hz;
            for (std::size_t i = 0; i < pieces[k].observations.size(); ++i) {
                const double truth =
                    scripted[i].range(t) +
                    c_light * (clock_term_s(at_once[k]) - scripted[i].clock_s);
                CPPUNIT_ASSERT_DOUBLES_EQUAL(
                    truth, pieces[k].observations[i].pseudorange_m, 1e-3);
            }
        }
    }

    void lock_half_cycle_and_gaps()
    {
        gnss_observables_config config;
        config.sample_rate_hz = scripted_rate_hz;
        auto states = scripted_states(4.5);
        const auto reference = run_observables(config, states);
        CPPUNIT_ASSERT(reference.size() >= 3);
        const double between_1_and_2 =
            0.5 * (reference[1].sample_index + reference[2].sample_index);
        std::vector<gnss_channel_epoch> changed;
        for (auto s : states) {
            const double sample = static_cast<double>(s.sample_index);
            if (s.prn == 3)
                s.bit_polarity = -1; // inverted bits: half a cycle
            if (s.prn == 8)
                s.bit_polarity = 0; // not known yet
            if (s.prn == 11 && std::fabs(sample - between_1_and_2) < 3000.0)
                s.carrier_lock = false;
            // PRN 17 loses 50 ms of states around epoch 2: more than the 25 ms gap.
            if (s.prn == 17 && std::fabs(sample - reference[2].sample_index) < 1e5)
                continue;
            changed.push_back(s);
        }
        const auto epochs = run_observables(config, changed);
        CPPUNIT_ASSERT_EQUAL(reference.size(), epochs.size());
        for (std::size_t k = 0; k < epochs.size(); ++k) {
            const auto& obs = epochs[k].observations;
            CPPUNIT_ASSERT_EQUAL(k == 2 ? scripted.size() - 1 : scripted.size(),
                                 obs.size());
            CPPUNIT_ASSERT_DOUBLES_EQUAL(
                reference[k].observations[0].carrier_phase_cycles + 0.5,
                obs[0].carrier_phase_cycles,
                1e-6);
            CPPUNIT_ASSERT_EQUAL(int(gnss_lli_half_cycle), obs[1].lli);
            CPPUNIT_ASSERT_EQUAL(k == 2 ? int(gnss_lli_lost_lock) : 0, obs[2].lli);
            if (k == 2)
                CPPUNIT_ASSERT(obs[3].prn == 22);
        }
    }

    void bad_config_names_parameter()
    {
        const auto message = [](const gnss_observables_config& c) {
            try {
                gnss_observables o(c);
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        gnss_observables_config c;
        c.interval_ms = 10;
        CPPUNIT_ASSERT(message(c).find("interval_ms") != std::string::npos);
        c = gnss_observables_config();
        c.sample_rate_hz = -1.0;
        CPPUNIT_ASSERT(message(c).find("sample_rate_hz") != std::string::npos);
        c = gnss_observables_config();
        c.max_state_gap_s = nan;
        CPPUNIT_ASSERT(message(c).find("max_state_gap_s") != std::string::npos);
        gnss_observables o{ gnss_observables_config() };
        o.add(qa::gps_channel_state(1, 100, 0, 0.07));
        CPPUNIT_ASSERT_THROW(o.add(qa::gps_channel_state(1, 100, 0, 0.07)),
                             std::invalid_argument);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_gnss_outputs);

} // namespace core
} // namespace cudadsp
} // namespace gr
