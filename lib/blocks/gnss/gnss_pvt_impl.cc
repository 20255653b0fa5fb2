/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/gnss/gnss_navigation_pmt.h"
#include "blocks/gnss/gnss_pvt_impl.h"
#include "gnss/gnss_rinex.h"
#include "gnss/gnss_track_geojson.h"
#include "gnss/gps_receiver_outputs.h"
#include "runtime/atomic_file.h"
#include <gnuradio/io_signature.h>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>
#include <set>
#include <stdexcept>

namespace gr {
namespace cudadsp {

namespace {

constexpr double pi = 3.14159265358979323846;
constexpr int leap_seconds_since_2017 = 18;

core::gps_fix_solver_config solver_config(double elevation_mask_deg,
                                          bool ionosphere,
                                          bool troposphere,
                                          const std::vector<double>& klobuchar)
{
    if (!(elevation_mask_deg >= 0.0 && elevation_mask_deg <= 90.0))
        throw std::invalid_argument("elevation_mask_deg: must be 0 to 90, got " +
                                    std::to_string(elevation_mask_deg));
    if (!klobuchar.empty() && klobuchar.size() != 8)
        throw std::invalid_argument(
            "klobuchar: must be none or 8 values (alpha0..3, beta0..3), got " +
            std::to_string(klobuchar.size()));
    core::gps_fix_solver_config config;
    config.pvt.elevation_mask_rad = elevation_mask_deg * pi / 180.0;
    config.pvt.ionosphere = ionosphere ? core::gnss_ionosphere_model::klobuchar
                                       : core::gnss_ionosphere_model::none;
    config.pvt.troposphere = troposphere ? core::gnss_troposphere_model::saastamoinen
                                         : core::gnss_troposphere_model::none;
    config.has_iono_utc = !klobuchar.empty();
    for (std::size_t k = 0; k < klobuchar.size(); ++k)
        (k < 4 ? config.iono_utc.alpha[k] : config.iono_utc.beta[k - 4]) = klobuchar[k];
    return config;
}

//! The GPS week of the machine's clock (leap seconds aside: only its era matters).
int machine_gps_week()
{
    const std::time_t now = std::time(nullptr);
    const std::time_t gps_epoch_unix = 315964800; // 1980-01-06 00:00:00 UTC
    return static_cast<int>((now - gps_epoch_unix) / 604800);
}

core::gnss_calendar_time machine_utc()
{
    const std::time_t now = std::time(nullptr);
    std::tm t{};
    gmtime_r(&now, &t);
    core::gnss_calendar_time c;
    c.year = t.tm_year + 1900;
    c.month = t.tm_mon + 1;
    c.day = t.tm_mday;
    c.hour = t.tm_hour;
    c.minute = t.tm_min;
    c.second = t.tm_sec;
    return c;
}

pmt::pmt_t f64(const double* v, std::size_t n) { return pmt::init_f64vector(n, v); }

//! The receiver time \p receiver_s in the entries that no epoch has used yet (NaN).
template <class Ephemeris>
void stamp_first_use(std::map<int, std::pair<Ephemeris, double>>& navigation,
                     double receiver_s)
{
    for (auto& entry : navigation)
        if (std::isnan(entry.second.second))
            entry.second.second = receiver_s;
}

//! A PMT vector of symbols: Python reads it as a list of str.
pmt::pmt_t symbols(const std::vector<std::string>& texts)
{
    pmt::pmt_t v = pmt::make_vector(texts.size(), pmt::PMT_NIL);
    for (std::size_t i = 0; i < texts.size(); ++i)
        pmt::vector_set(v, i, pmt::mp(texts[i]));
    return v;
}

} // namespace

gnss_pvt::sptr gnss_pvt::make(const std::string& output_folder,
                              double elevation_mask_deg,
                              bool ionosphere,
                              bool troposphere,
                              const std::vector<double>& klobuchar,
                              int reference_week)
{
    return gnuradio::make_block_sptr<gnss_pvt_impl>(output_folder,
                                                    elevation_mask_deg,
                                                    ionosphere,
                                                    troposphere,
                                                    klobuchar,
                                                    reference_week);
}

gnss_pvt_impl::gnss_pvt_impl(const std::string& output_folder,
                             double elevation_mask_deg,
                             bool ionosphere,
                             bool troposphere,
                             const std::vector<double>& klobuchar,
                             int reference_week)
    : gr::block(
          "gnss_pvt", gr::io_signature::make(0, 0, 0), gr::io_signature::make(0, 0, 0)),
      d_output_folder(output_folder),
      d_iono_given(!klobuchar.empty()),
      d_reference_week(reference_week > 0 ? reference_week : machine_gps_week()),
      d_fix_port(pmt::mp("fix")),
      d_solver(solver_config(elevation_mask_deg, ionosphere, troposphere, klobuchar))
{
    if (reference_week < 0)
        throw std::invalid_argument(
            "reference_week: must be 0 (the machine clock's) or a "
            "GPS week, got " +
            std::to_string(reference_week));
    const pmt::pmt_t in = pmt::mp("observables");
    message_port_register_in(in);
    message_port_register_out(d_fix_port);
    set_msg_handler(in, [this](const pmt::pmt_t& m) { handle_observables(m); });
}

std::uint64_t gnss_pvt_impl::epochs() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_epoch_count;
}

std::uint64_t gnss_pvt_impl::fixes() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_fix_count;
}

std::vector<std::string> gnss_pvt_impl::output_files() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_outputs;
}

int gnss_pvt_impl::week() const
{
    if (d_have_week)
        return core::gps_resolve_week(d_first_ephemeris_week, 1024, d_reference_week);
    if (d_have_gst_week)
        return core::gps_week_of_gst_week(d_first_gst_week, d_reference_week);
    return d_reference_week;
}

int gnss_pvt_impl::leap_seconds() const
{
    if (d_iono_broadcast)
        return d_solver.iono_utc().dt_ls;
    return d_have_galileo_gst_utc ? d_galileo_gst_utc.dt_ls : leap_seconds_since_2017;
}

bool gnss_pvt_impl::take_navigation(const std::string& type, const pmt::pmt_t& message)
{
    int prn = 0;
    if (type == gnss_message_type::ephemeris) {
        const core::gps_ephemeris e = ephemeris_of(message);
        d_solver.take_ephemeris(e);
        if (!d_have_week) {
            d_have_week = true;
            d_first_ephemeris_week = e.week;
        }
        d_navigation[e.prn] = { e, std::numeric_limits<double>::quiet_NaN() };
    } else if (type == gnss_message_type::iono_utc) {
        d_solver.take_iono_utc(iono_utc_of(message));
        d_iono_broadcast = true;
    } else if (type == gnss_message_type::galileo_ephemeris) {
        const core::galileo_ephemeris e = galileo_ephemeris_of(message, prn);
        d_solver.take_galileo_ephemeris(prn, e);
        d_galileo_navigation[prn] = { e, std::numeric_limits<double>::quiet_NaN() };
    } else if (type == gnss_message_type::galileo_iono_health) {
        const core::galileo_iono_health h = galileo_iono_health_of(message, prn);
        d_solver.take_galileo_iono_health(prn, h);
        if (!d_have_gst_week) {
            d_have_gst_week = true;
            d_first_gst_week = h.wn;
        }
    } else if (type == gnss_message_type::galileo_gst_utc) {
        d_galileo_gst_utc = galileo_gst_utc_of(message, prn);
        d_have_galileo_gst_utc = true;
    } else {
        return false;
    }
    return true;
}

void gnss_pvt_impl::handle_observables(const pmt::pmt_t& message)
{
    const std::string type = gnss_message_type_of(message);
    pmt::pmt_t fix;
    try {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (take_navigation(type, message) || type != gnss_message_type::epoch)
            return;
        core::gps_receiver_epoch e = d_solver.solve(epoch_of(message));
        const double receiver_s = e.observations.receiver_time_ms / 1e3;
        stamp_first_use(d_navigation, receiver_s);
        stamp_first_use(d_galileo_navigation, receiver_s);
        ++d_epoch_count;
        d_fix_count += e.fix.valid ? 1 : 0;
        fix = fix_message(e);
        if (!d_output_folder.empty())
            d_epochs.push_back(std::move(e));
    } catch (const std::invalid_argument& e) {
        d_logger->error("a {} message refused: {}", type, e.what());
        return;
    }
    message_port_pub(d_fix_port, fix);
}

pmt::pmt_t gnss_pvt_impl::fix_message(const core::gps_receiver_epoch& e) const
{
    const core::gnss_pvt_result& f = e.fix;
    const double receiver_s = e.observations.receiver_time_ms / 1e3;
    const core::gps_time t =
        core::gps_time_from_week(week(), f.valid ? e.gps_time_of_week_s : receiver_s);
    const double degrees = 180.0 / pi;
    std::vector<std::string> used;
    for (const core::gnss_pvt_satellite& s : f.satellites)
        if (s.used)
            used.push_back(core::gnss_satellite_id(s.system, s.prn));
    std::vector<std::string> excluded, reasons;
    for (const core::gps_receiver_exclusion& x : e.excluded) {
        excluded.push_back(core::gnss_satellite_id(x.system, x.prn));
        reasons.push_back(x.reason);
    }
    const double velocity[3] = { f.velocity_m_s[0],
                                 f.velocity_m_s[1],
                                 f.velocity_m_s[2] };
    const double ecef[3] = { f.position_m[0], f.position_m[1], f.position_m[2] };

    pmt::pmt_t d = pmt::make_dict();
    const auto put = [&d](const char* key, const pmt::pmt_t& value) {
        d = pmt::dict_add(d, pmt::mp(key), value);
    };
    put("valid", pmt::from_bool(f.valid));
    put("reason", pmt::mp(f.reason));
    put("latitude_deg", pmt::from_double(f.geodetic.latitude_rad * degrees));
    put("longitude_deg", pmt::from_double(f.geodetic.longitude_rad * degrees));
    put("height_m", pmt::from_double(f.geodetic.height_m));
    put("ecef_m", f64(ecef, 3));
    put("velocity_m_s", f64(velocity, 3));
    put("satellites_used", pmt::from_long(f.satellites_used));
    put("satellites", symbols(used));
    put("excluded", symbols(excluded));
    put("excluded_reasons", symbols(reasons));
    put("gdop", pmt::from_double(f.dops.gdop));
    put("pdop", pmt::from_double(f.dops.pdop));
    put("hdop", pmt::from_double(f.dops.hdop));
    put("vdop", pmt::from_double(f.dops.vdop));
    put("tdop", pmt::from_double(f.dops.tdop));
    put("inter_system_bias_s", pmt::from_double(f.inter_system_bias_s));
    put("ionosphere_applied", pmt::from_bool(e.ionosphere_applied));
    put("gps_week", pmt::from_long(t.week));
    put("gps_time_of_week_s",
        pmt::from_double(f.valid ? t.seconds_of_week
                                 : std::numeric_limits<double>::quiet_NaN()));
    put("utc", pmt::mp(core::utc_iso8601(t, leap_seconds())));
    put("receiver_time_s", pmt::from_double(receiver_s));
    put("sample_index", pmt::from_double(e.observations.sample_index));
    return d;
}

bool gnss_pvt_impl::stop()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (!d_output_folder.empty() && d_fix_count > 0 && d_outputs.empty()) {
        try {
            write_outputs();
        } catch (const std::exception& e) {
            d_logger->error(
                "writing the outputs into {} failed: {}", d_output_folder, e.what());
        }
    }
    return true;
}

void gnss_pvt_impl::write_outputs()
{
    namespace fs = std::filesystem;
    fs::create_directories(d_output_folder);
    const int w = week();
    const int leap = leap_seconds();
    const core::gps_receiver_epoch& first = d_epochs.front();
    const core::gps_receiver_epoch* last_fix = nullptr;
    for (const core::gps_receiver_epoch& e : d_epochs)
        if (e.fix.valid)
            last_fix = &e;
    const int interval_ms =
        d_epochs.size() > 1 ? static_cast<int>(d_epochs[1].observations.receiver_time_ms -
                                               first.observations.receiver_time_ms)
                            : 0;
    const core::gps_time first_time =
        core::gps_time_from_week(w, first.observations.receiver_time_ms / 1e3);
    const double span_s = (d_epochs.back().observations.receiver_time_ms -
                           first.observations.receiver_time_ms) /
                              1e3 +
                          interval_ms / 1e3;
    const core::gnss_rinex_site site;
    const core::gnss_calendar_time created = machine_utc();
    const auto path = [this](const std::string& name) {
        return (fs::path(d_output_folder) / name).string();
    };

    core::gnss_rinex_observation_header obs;
    obs.program.created_utc = created;
    obs.approximate_position_m = last_fix->fix.position_m;
    obs.interval_ms = interval_ms;
    std::vector<core::gnss_observation_epoch> observations;
    std::set<core::gnss_system> systems;
    for (const core::gps_receiver_epoch& e : d_epochs) {
        observations.push_back(e.observations);
        for (const core::gnss_observation& o : e.observations.observations)
            systems.insert(o.system);
    }
    obs.systems.assign(systems.begin(), systems.end());
    const std::string obs_path = path(core::rinex_observation_file_name(
        site, first_time, span_s, interval_ms, obs.systems));
    core::write_rinex_observation_file(obs_path, obs, w, observations);

    const std::string nav_path = write_navigation_file(site, first_time, span_s, created);

    std::string nmea;
    std::vector<core::gnss_track_point> track;
    for (const core::gps_receiver_epoch& e : d_epochs) {
        for (const std::string& s : core::gps_receiver_nmea(e, w, leap))
            nmea += s;
        if (e.fix.valid)
            track.push_back(
                { core::gps_time_from_week(w, e.gps_time_of_week_s), e.fix.geodetic });
    }
    const std::string nmea_path = path("fixes.nmea");
    core::write_file_atomically(nmea_path, nmea);
    const std::string track_path = path("track.geojson");
    core::write_geojson_track(track_path, track, leap);
    d_outputs = { obs_path, nav_path, nmea_path, track_path };
}

std::string gnss_pvt_impl::write_navigation_file(const core::gnss_rinex_site& site,
                                                 const core::gps_time& first_time,
                                                 double span_s,
                                                 const core::gnss_calendar_time& created)
{
    const int w = week();
    core::gnss_rinex_navigation_header nav;
    nav.program.created_utc = created;
    nav.reference_week = w;
    nav.has_iono_utc = d_solver.has_iono_utc();
    nav.iono_utc = d_solver.iono_utc();
    if (d_iono_given && !d_iono_broadcast) {
        // Klobuchar given up front, no page decoded: the UTC terms stay 0 and the leap
        // seconds are the ones in use, with no change announced.
        nav.iono_utc.dt_ls = nav.iono_utc.dt_lsf = leap_seconds();
        nav.iono_utc.wnt = nav.iono_utc.wn_lsf = w % 256;
        nav.iono_utc.dn = 1;
    }
    // An ephemeris that arrived after the last epoch (NaN) no observation used.
    std::vector<core::gnss_rinex_gps_ephemeris> gps;
    for (const auto& entry : d_navigation)
        if (!std::isnan(entry.second.second))
            gps.push_back(
                { entry.second.first,
                  core::gps_resolve_week(entry.second.first.week, 1024, w),
                  core::gps_ephemeris_transmission_time_s(entry.second.second) });
    std::vector<core::gnss_rinex_galileo_ephemeris> galileo;
    const auto& words_5 = d_solver.galileo_iono_health_words();
    for (const auto& entry : d_galileo_navigation) {
        const auto word_5 = words_5.find(entry.first);
        if (std::isnan(entry.second.second) || word_5 == words_5.end())
            continue; // never usable: the solver needs word 5 too
        galileo.push_back(
            { entry.second.first,
              word_5->second,
              core::gps_week_of_gst_week(word_5->second.wn, w),
              core::galileo_ephemeris_transmission_time_s(entry.second.second) });
    }
    if (!gps.empty() && !galileo.empty())
        nav.systems = { core::gnss_system::gps, core::gnss_system::galileo };
    else if (!galileo.empty())
        nav.systems = { core::gnss_system::galileo };
    // Word 5's NeQuick-G coefficients are the same from every satellite at a time.
    nav.has_galileo_iono = !galileo.empty();
    if (nav.has_galileo_iono)
        nav.galileo_iono = galileo.back().iono_health;
    nav.has_galileo_utc = d_have_galileo_gst_utc;
    nav.galileo_utc = d_galileo_gst_utc;
    const std::string nav_path =
        (std::filesystem::path(d_output_folder) /
         core::rinex_navigation_file_name(site, first_time, span_s, nav.systems))
            .string();
    core::write_rinex_navigation_file(nav_path, nav, gps, galileo);
    return nav_path;
}

} // namespace cudadsp
} // namespace gr
