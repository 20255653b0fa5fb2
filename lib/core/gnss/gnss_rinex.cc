/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_rinex.h"
#include "runtime/atomic_file.h"
#include "runtime/printf_text.h"
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr std::int64_t week_ms = 604800000;

//! Columns 1-60 (cut or padded) and the label in 61-80.
void header_line(std::ostream& out, const std::string& content, const std::string& label)
{
    std::string line = content.substr(0, 60);
    line.resize(60, ' ');
    out << line << label << '\n';
}

//! An A20 (or wider) text field: cut to its width, padded with blanks.
std::string field(const std::string& text, std::size_t width)
{
    std::string f = text.substr(0, width);
    f.resize(width, ' ');
    return f;
}

//! Fortran's Dw.d: C's E format with D for the exponent letter.
std::string fortran_d(double value, int width, int decimals)
{
    std::string s = printf_text("%*.*E", width, decimals, value);
    std::replace(s.begin(), s.end(), 'E', 'D');
    return s;
}

char systems_letter(const std::vector<gnss_system>& systems)
{
    const bool gps =
        std::find(systems.begin(), systems.end(), gnss_system::gps) != systems.end();
    const bool galileo =
        std::find(systems.begin(), systems.end(), gnss_system::galileo) != systems.end();
    return gps && galileo ? 'M' : (galileo ? 'E' : 'G');
}

std::string created_text(const gnss_calendar_time& c)
{
    return printf_text("%04d%02d%02d %02d%02d%02d UTC",
                       c.year,
                       c.month,
                       c.day,
                       c.hour,
                       c.minute,
                       static_cast<int>(c.second));
}

void program_line(std::ostream& out, const gnss_rinex_program& p)
{
    header_line(out,
                field(p.program, 20) + field(p.run_by, 20) + created_text(p.created_utc),
                "PGM / RUN BY / DATE");
}

gps_time epoch_time(int week, std::int64_t receiver_time_ms)
{
    gps_time t;
    t.week = week + static_cast<int>(receiver_time_ms / week_ms);
    t.seconds_of_week = static_cast<double>(receiver_time_ms % week_ms) / 1000.0;
    return t;
}

//! F14.3 with the two indicator digits (blank when 0), or 16 blanks for no value.
std::string observation_field(double value, int lli, int ssi)
{
    if (!std::isfinite(value) || std::fabs(value) >= 9.9999999995e9)
        return std::string(16, ' ');
    return printf_text("%14.3f", value) + (lli > 0 ? printf_text("%1d", lli) : " ") +
           (ssi > 0 ? printf_text("%1d", ssi) : " ");
}

//! RINEX 3.04 5.7: 1 below 12 dB-Hz, then one step per 6 dB, 9 from 54 dB-Hz.
int signal_strength_indicator(double cn0_dbhz)
{
    if (!std::isfinite(cn0_dbhz))
        return 0;
    return std::clamp(static_cast<int>(std::floor(cn0_dbhz / 6.0)), 1, 9);
}

/*!
 * IS-GPS-200 20.3.3.3.1.3: URA index N to metres, the upper bound of its range (as
 * RTKLIB's writer does); 15, "no accuracy prediction", as 32767 m, past every bound.
 */
double ura_metres(int index)
{
    static const double bounds[15] = { 2.4,   3.4,   4.85,   6.85,   9.65,
                                       13.65, 24.0,  48.0,   96.0,   192.0,
                                       384.0, 768.0, 1536.0, 3072.0, 6144.0 };
    return index >= 0 && index < 15 ? bounds[index] : 32767.0;
}

std::string span_code(double span_s)
{
    if (span_s < 3600.0)
        return printf_text("%02dM",
                           std::max(1, static_cast<int>(std::ceil(span_s / 60.0))));
    if (span_s < 86400.0)
        return printf_text("%02dH", static_cast<int>(std::ceil(span_s / 3600.0)));
    return printf_text("%02dD",
                       std::min(99, static_cast<int>(std::ceil(span_s / 86400.0))));
}

std::string interval_code(int interval_ms)
{
    if (interval_ms <= 0)
        return "00U";
    if (interval_ms % 1000 == 0 && interval_ms / 1000 < 100)
        return printf_text("%02dS", interval_ms / 1000);
    if (interval_ms < 1000 && 1000 % interval_ms == 0)
        return printf_text("%02dZ", 1000 / interval_ms);
    return "00U";
}

std::string name_start(const gnss_rinex_site& site, const gps_time& first_epoch)
{
    const auto is_upper_alnum = [](const std::string& s) {
        return std::all_of(s.begin(), s.end(), [](char c) {
            return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        });
    };
    if (site.station.size() != 4 || !is_upper_alnum(site.station))
        throw std::invalid_argument(
            "station: must be 4 upper-case letters or digits, got \"" + site.station +
            "\"");
    if (site.country.size() != 3 || !is_upper_alnum(site.country))
        throw std::invalid_argument(
            "country: must be 3 upper-case letters (ISO 3166-1 alpha-3), got \"" +
            site.country + "\"");
    if (site.monument < 0 || site.monument > 9 || site.receiver < 0 || site.receiver > 9)
        throw std::invalid_argument("monument and receiver: must be digits 0 to 9");
    if (site.data_source != 'R' && site.data_source != 'S' && site.data_source != 'U')
        throw std::invalid_argument("data_source: must be R, S or U");
    const gnss_calendar_time c = gps_calendar(first_epoch, 1.0);
    return site.station + printf_text("%d%d", site.monument, site.receiver) +
           site.country + "_" + site.data_source + "_" +
           printf_text("%04d%03d%02d%02d", c.year, day_of_year(c), c.hour, c.minute) +
           "_";
}

//! Writes what \p write produces into \p path atomically.
template <typename Writer>
void write_path(const std::string& path, Writer write)
{
    std::ostringstream text;
    write(text);
    write_file_atomically(path, text.str());
}

//! "IONOSPHERIC CORR": A4,1X,4D12.4.
void iono_line(std::ostream& out, const char* type, const std::array<double, 4>& c)
{
    header_line(out,
                std::string(type) + " " + fortran_d(c[0], 12, 4) +
                    fortran_d(c[1], 12, 4) + fortran_d(c[2], 12, 4) +
                    fortran_d(c[3], 12, 4),
                "IONOSPHERIC CORR");
}

//! "TIME SYSTEM CORR": A4,1X,D17.10,D16.9,I7,I5, the 8-bit week made continuous.
void time_correction_line(std::ostream& out,
                          const char* type,
                          double a0,
                          double a1,
                          double reference_s,
                          int week_8_bit,
                          int reference_week)
{
    header_line(out,
                std::string(type) + " " + fortran_d(a0, 17, 10) + fortran_d(a1, 16, 9) +
                    printf_text("%7d%5d",
                                static_cast<int>(reference_s),
                                gps_resolve_week(week_8_bit, 256, reference_week)),
                "TIME SYSTEM CORR");
}

//! "LEAP SECONDS": 4I6, the 8-bit week of the future leap second made continuous.
void leap_seconds_line(std::ostream& out,
                       int dt_ls,
                       int dt_lsf,
                       int wn_lsf_8_bit,
                       int dn,
                       int reference_week)
{
    header_line(out,
                printf_text("%6d%6d%6d%6d",
                            dt_ls,
                            dt_lsf,
                            gps_resolve_week(wn_lsf_8_bit, 256, reference_week),
                            dn),
                "LEAP SECONDS");
}

/*!
 * The continuous week of \p seconds (Toc, Toe) of a record sent in \p week at
 * \p transmission_s: the transmission week unless half a week away from the
 * transmission, as an ephemeris sent late on Saturday may refer to the next week.
 */
int week_of(double seconds, int week, double transmission_s)
{
    const double ahead = seconds - transmission_s;
    return week + (ahead < -gps_half_week_s ? 1 : 0) - (ahead >= gps_half_week_s ? 1 : 0);
}

//! A record's first line: the satellite, its Toc as a calendar time, three numbers.
void record_first_line(std::ostream& out,
                       const std::string& satellite,
                       const gnss_calendar_time& toc,
                       double a,
                       double b,
                       double c)
{
    out << satellite
        << printf_text(" %04d %02d %02d %02d %02d %02d",
                       toc.year,
                       toc.month,
                       toc.day,
                       toc.hour,
                       toc.minute,
                       static_cast<int>(toc.second))
        << fortran_d(a, 19, 12) << fortran_d(b, 19, 12) << fortran_d(c, 19, 12) << '\n';
}

//! A BROADCAST ORBIT line: 4X,4D19.12; the fields from \p count on are left blank.
void orbit_line(std::ostream& out, const std::array<double, 4>& v, std::size_t count = 4)
{
    out << "    ";
    for (std::size_t k = 0; k < count; ++k)
        out << fortran_d(v[k], 19, 12);
    out << '\n';
}

/*!
 * OS SIS ICD 5.1.12: SISA index to metres, 1 cm steps to 0.49 m, 2 cm to 0.98 m, 4 cm
 * to 1.96 m, 16 cm to 6 m (index 125); the spare indices and 255 (NAPA, no accuracy
 * prediction) as -1, the value RTKLIB writes and reads back as NAPA.
 */
double sisa_metres(int index)
{
    if (index >= 0 && index <= 49)
        return 0.01 * index;
    if (index >= 50 && index <= 74)
        return 0.5 + 0.02 * (index - 50);
    if (index >= 75 && index <= 99)
        return 1.0 + 0.04 * (index - 75);
    if (index >= 100 && index <= 125)
        return 2.0 + 0.16 * (index - 100);
    return -1.0;
}

/*! The systems of the header's per-system records: GPS when none is named (a file with
 *  no observation is GPS's, as its type letter and name say), since RINEX 3.04 requires
 *  "SYS / # / OBS TYPES" in every observation file. */
std::vector<gnss_system> header_systems(const gnss_rinex_observation_header& h)
{
    std::vector<gnss_system> systems;
    for (gnss_system s : { gnss_system::gps, gnss_system::galileo })
        if (std::find(h.systems.begin(), h.systems.end(), s) != h.systems.end())
            systems.push_back(s);
    if (systems.empty())
        systems.push_back(gnss_system::gps);
    return systems;
}

} // namespace

void write_rinex_observation_header(std::ostream& out,
                                    const gnss_rinex_observation_header& h)
{
    const std::vector<gnss_system> systems = header_systems(h);
    header_line(out,
                printf_text("%9.2f", 3.04) + std::string(11, ' ') +
                    field("OBSERVATION DATA", 20) + systems_letter(h.systems),
                "RINEX VERSION / TYPE");
    program_line(out, h.program);
    header_line(out, h.marker_name, "MARKER NAME");
    // A receiver's antenna on no surveyed mark.
    header_line(out, "NON_GEODETIC", "MARKER TYPE");
    header_line(out, field(h.observer, 20) + field(h.agency, 40), "OBSERVER / AGENCY");
    header_line(out,
                field(h.receiver_number, 20) + field(h.receiver_type, 20) +
                    field(h.receiver_version, 20),
                "REC # / TYPE / VERS");
    header_line(
        out, field(h.antenna_number, 20) + field(h.antenna_type, 20), "ANT # / TYPE");
    const gnss_vec3& p = h.approximate_position_m;
    header_line(
        out, printf_text("%14.4f%14.4f%14.4f", p[0], p[1], p[2]), "APPROX POSITION XYZ");
    const gnss_vec3& d = h.antenna_delta_hen_m;
    header_line(
        out, printf_text("%14.4f%14.4f%14.4f", d[0], d[1], d[2]), "ANTENNA: DELTA H/E/N");
    for (gnss_system s : systems)
        header_line(out,
                    printf_text("%c  %3d C1C L1C D1C S1C", gnss_system_letter(s), 4),
                    "SYS / # / OBS TYPES");
    header_line(out, "DBHZ", "SIGNAL STRENGTH UNIT");
    if (h.interval_ms > 0)
        header_line(out, printf_text("%10.3f", h.interval_ms / 1000.0), "INTERVAL");
    const gnss_calendar_time c = gps_calendar(h.first_observation, 1e-7);
    header_line(out,
                printf_text("%6d%6d%6d%6d%6d%13.7f     GPS",
                            c.year,
                            c.month,
                            c.day,
                            c.hour,
                            c.minute,
                            c.second),
                "TIME OF FIRST OBS");
    // L1 C/A and E1 C are the reference signals of RINEX's phase alignment: no shift.
    for (gnss_system s : systems)
        header_line(out,
                    printf_text("%c L1C %8.5f", gnss_system_letter(s), 0.0),
                    "SYS / PHASE SHIFT");
    header_line(out, "", "END OF HEADER");
}

void write_rinex_observation_epoch(std::ostream& out,
                                   int week,
                                   const gnss_observation_epoch& epoch)
{
    const gnss_calendar_time c =
        gps_calendar(epoch_time(week, epoch.receiver_time_ms), 1e-7);
    out << printf_text("> %4d %02d %02d %02d %02d%11.7f  %1d%3d",
                       c.year,
                       c.month,
                       c.day,
                       c.hour,
                       c.minute,
                       c.second,
                       0,
                       static_cast<int>(epoch.observations.size()))
        << '\n';
    for (const gnss_observation& o : epoch.observations) {
        const int ssi = signal_strength_indicator(o.cn0_dbhz);
        out << gnss_satellite_id(o.system, o.prn)
            << observation_field(o.pseudorange_m, 0, ssi)
            << observation_field(o.carrier_phase_cycles, o.lli, ssi)
            << observation_field(o.doppler_hz, 0, 0)
            << observation_field(o.cn0_dbhz, 0, 0) << '\n';
    }
}

void write_rinex_observation_file(std::ostream& out,
                                  gnss_rinex_observation_header header,
                                  int week,
                                  const std::vector<gnss_observation_epoch>& epochs)
{
    if (!epochs.empty())
        header.first_observation = epoch_time(week, epochs.front().receiver_time_ms);
    write_rinex_observation_header(out, header);
    for (const auto& epoch : epochs)
        write_rinex_observation_epoch(out, week, epoch);
}

void write_rinex_observation_file(const std::string& path,
                                  const gnss_rinex_observation_header& header,
                                  int week,
                                  const std::vector<gnss_observation_epoch>& epochs)
{
    write_path(path, [&](std::ostream& out) {
        write_rinex_observation_file(out, header, week, epochs);
    });
}

void write_rinex_navigation_header(std::ostream& out,
                                   const gnss_rinex_navigation_header& h)
{
    static const char* const system_names[] = { "G: GPS", "E: GALILEO", "M: MIXED" };
    const char letter = systems_letter(h.systems);
    header_line(out,
                printf_text("%9.2f", 3.04) + std::string(11, ' ') +
                    field("N: GNSS NAV DATA", 20) +
                    system_names[letter == 'G' ? 0 : (letter == 'E' ? 1 : 2)],
                "RINEX VERSION / TYPE");
    program_line(out, h.program);
    if (h.has_iono_utc) {
        const gps_iono_utc& u = h.iono_utc;
        for (int set = 0; set < 2; ++set) {
            const double* c = set == 0 ? u.alpha : u.beta;
            iono_line(out, set == 0 ? "GPSA" : "GPSB", { c[0], c[1], c[2], c[3] });
        }
    }
    if (h.has_galileo_iono) {
        const galileo_iono_health& g = h.galileo_iono;
        iono_line(out, "GAL ", { g.ai0, g.ai1, g.ai2, 0.0 });
    }
    if (h.has_iono_utc) {
        const gps_iono_utc& u = h.iono_utc;
        time_correction_line(out, "GPUT", u.a0, u.a1, u.tot, u.wnt, h.reference_week);
    }
    if (h.has_galileo_utc) {
        const galileo_gst_utc& u = h.galileo_utc;
        time_correction_line(out, "GAUT", u.a0, u.a1, u.t0t, u.wn0t, h.reference_week);
    }
    if (h.has_iono_utc) {
        const gps_iono_utc& u = h.iono_utc;
        leap_seconds_line(out, u.dt_ls, u.dt_lsf, u.wn_lsf, u.dn, h.reference_week);
    } else if (h.has_galileo_utc) {
        const galileo_gst_utc& u = h.galileo_utc;
        leap_seconds_line(out, u.dt_ls, u.dt_lsf, u.wn_lsf, u.dn, h.reference_week);
    }
    header_line(out, "", "END OF HEADER");
}

void write_rinex_gps_ephemeris(std::ostream& out, const gnss_rinex_gps_ephemeris& record)
{
    const gps_ephemeris& e = record.ephemeris;
    // The ICD's pi: the radians are then exactly those its orbit algorithm uses.
    const double rad = gps_pi;
    const auto week = [&](double seconds) {
        return week_of(seconds, record.week, record.transmission_time_s);
    };
    record_first_line(out,
                      gnss_satellite_id(gnss_system::gps, e.prn),
                      gps_calendar({ week(e.toc), e.toc }, 1.0),
                      e.af0,
                      e.af1,
                      e.af2);
    orbit_line(out, { double(e.iode), e.crs, e.delta_n * rad, e.m0 * rad });
    orbit_line(out, { e.cuc, e.e, e.cus, e.sqrt_a });
    orbit_line(out, { e.toe, e.cic, e.omega0 * rad, e.cis });
    orbit_line(out, { e.i0 * rad, e.crc, e.omega * rad, e.omega_dot * rad });
    orbit_line(out,
               { e.idot * rad,
                 double(e.code_on_l2),
                 double(week(e.toe)),
                 double(e.l2p_data_flag) });
    orbit_line(out, { ura_metres(e.ura_index), double(e.health), e.tgd, double(e.iodc) });
    // Fit interval in hours: flag 0 is the ICD's 4 h; flag 1 means longer, by an IODC
    // table this writer does not hold, so 0, RINEX's "not known".
    orbit_line(out,
               { record.transmission_time_s, e.fit_interval_flag == 0 ? 4.0 : 0.0, 0, 0 },
               2);
}

void write_rinex_galileo_ephemeris(std::ostream& out,
                                   const gnss_rinex_galileo_ephemeris& record)
{
    const galileo_ephemeris& e = record.ephemeris;
    const galileo_iono_health& w5 = record.iono_health;
    const double rad = galileo_pi; // the ICD's pi, as for GPS
    const auto week = [&](double seconds) {
        return week_of(seconds, record.week, record.transmission_time_s);
    };
    // RINEX 3.04 Table A8: bit 0 I/NAV E1-B, bit 9 clock and SISA of the E5b,E1 pair.
    const int data_sources = (1 << 0) | (1 << 9);
    const int health = (w5.e1b_dvs & 1) | ((w5.e1b_hs & 3) << 1) |
                       ((w5.e5b_dvs & 1) << 6) | ((w5.e5b_hs & 3) << 7);
    // GST keeps GPS time's seconds (off by the GGTO, tens of ns) and its week 0 is GPS
    // week 1024: with the week counted as GPS's, Toc's calendar date is the GPS one.
    record_first_line(out,
                      gnss_satellite_id(gnss_system::galileo, e.svid),
                      gps_calendar({ week(e.t0c), e.t0c }, 1.0),
                      e.af0,
                      e.af1,
                      e.af2);
    orbit_line(out, { double(e.iodnav), e.crs, e.delta_n * rad, e.m0 * rad });
    orbit_line(out, { e.cuc, e.e, e.cus, e.sqrt_a });
    orbit_line(out, { e.t0e, e.cic, e.omega0 * rad, e.cis });
    orbit_line(out, { e.i0 * rad, e.crc, e.omega * rad, e.omega_dot * rad });
    orbit_line(out, { e.idot * rad, double(data_sources), double(week(e.t0e)), 0 }, 3);
    orbit_line(out,
               { sisa_metres(e.sisa), double(health), w5.bgd_e1_e5a, w5.bgd_e1_e5b });
    orbit_line(out, { record.transmission_time_s, 0, 0, 0 }, 1);
}

void write_rinex_navigation_file(
    std::ostream& out,
    const gnss_rinex_navigation_header& header,
    const std::vector<gnss_rinex_gps_ephemeris>& gps_records,
    const std::vector<gnss_rinex_galileo_ephemeris>& galileo_records)
{
    write_rinex_navigation_header(out, header);
    for (const auto& record : gps_records)
        write_rinex_gps_ephemeris(out, record);
    for (const auto& record : galileo_records)
        write_rinex_galileo_ephemeris(out, record);
}

void write_rinex_navigation_file(
    const std::string& path,
    const gnss_rinex_navigation_header& header,
    const std::vector<gnss_rinex_gps_ephemeris>& gps_records,
    const std::vector<gnss_rinex_galileo_ephemeris>& galileo_records)
{
    write_path(path, [&](std::ostream& out) {
        write_rinex_navigation_file(out, header, gps_records, galileo_records);
    });
}

void write_rinex_gps_navigation_file(std::ostream& out,
                                     const gnss_rinex_navigation_header& header,
                                     const std::vector<gnss_rinex_gps_ephemeris>& records)
{
    write_rinex_navigation_file(out, header, records, {});
}

void write_rinex_gps_navigation_file(const std::string& path,
                                     const gnss_rinex_navigation_header& header,
                                     const std::vector<gnss_rinex_gps_ephemeris>& records)
{
    write_rinex_navigation_file(path, header, records, {});
}

std::string rinex_observation_file_name(const gnss_rinex_site& site,
                                        const gps_time& first_epoch,
                                        double span_s,
                                        int interval_ms,
                                        const std::vector<gnss_system>& systems)
{
    return name_start(site, first_epoch) + span_code(span_s) + "_" +
           interval_code(interval_ms) + "_" + systems_letter(systems) + "O.rnx";
}

std::string rinex_navigation_file_name(const gnss_rinex_site& site,
                                       const gps_time& first_epoch,
                                       double span_s,
                                       const std::vector<gnss_system>& systems)
{
    return name_start(site, first_epoch) + span_code(span_s) + "_" +
           systems_letter(systems) + "N.rnx";
}

std::string rinex_gps_navigation_file_name(const gnss_rinex_site& site,
                                           const gps_time& first_epoch,
                                           double span_s)
{
    return rinex_navigation_file_name(site, first_epoch, span_s, { gnss_system::gps });
}

} // namespace core
} // namespace cudadsp
} // namespace gr
