/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The observation and navigation files read by another receiver's software: RTKLIB's
// rnx2rtkp (Debian package rtklib) solves a single-point position from our RINEX 3.04
// files, which must lie within 1 m of the truth and of gnss_solve_pvt's fix from the
// same observables. The files come from a static receiver simulated here: ten GPS
// broadcast ephemerides (and, in the mixed case, the visible satellites of the nominal
// Galileo constellation, whose clocks keep GST, 30 ns off GPS time, with E1 group
// delays of a few ns), light time solved with the Earth's rotation, the satellite
// clocks, and the Klobuchar delay on the code (troposphere off, on both sides); channel
// states every 1 ms made from those transmit times, then gnss_observables at 1 Hz.
// Skipped (exit 77) where rnx2rtkp is not installed.

#include "gnss/galileo_ephemeris.h"
#include "gnss/galileo_nominal_constellation.h"
#include "gnss/gnss_atmosphere.h"
#include "gnss/gnss_observables.h"
#include "gnss/gnss_pvt.h"
#include "gnss/gnss_rinex.h"
#include "gnss/gps_ephemeris.h"
#include "qa_gnss_channel_states.h"
#include "qa_support.h"
#include <cppunit/extensions/HelperMacros.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

const double pi = 3.14159265358979323846;
const double deg = pi / 180.0;
const double c_light = 299792458.0;
const double l1_hz = 1575.42e6;
const int week = 2048;                     //!< 2019-04-07
const std::int64_t start_whole_s = 7260;   //!< true GPS time at sample 0: whole
const double start_fraction_s = 0.3183098; //!< and fraction
const double sample_rate_hz = 4e6;
const double ggto_s = 30e-9; //!< GST - GPS time
const gnss_klobuchar_coefficients klobuchar = {
    { 1.1175870895386e-8, 7.4505805969238e-9, -5.9604644775391e-8, -5.9604644775391e-8 },
    { 90112.0, 16384.0, -196608.0, -65536.0 }
};

//! The rnx2rtkp found on PATH, or "".
std::string find_rnx2rtkp()
{
    const char* path = std::getenv("PATH");
    std::istringstream folders(path ? path : "");
    for (std::string folder; std::getline(folders, folder, ':');) {
        const std::string candidate = folder + "/" + "rnx2rtkp";
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return "";
}

//! Six planes of four satellites, 55 degrees, orbits of the typical broadcast shape.
std::vector<gps_ephemeris> constellation()
{
    std::vector<gps_ephemeris> sats;
    for (int plane = 0; plane < 6; ++plane)
        for (int k = 0; k < 4; ++k) {
            gps_ephemeris e;
            e.prn = 1 + plane * 4 + k;
            e.week = week % 1024;
            e.iode = 40 + e.prn;
            e.iodc = e.iode;
            e.toc = e.toe = 7200.0;
            e.af0 = (e.prn - 12) * 2.1e-5;
            e.af1 = (k - 2) * 1.7e-12;
            e.tgd = -4.6566128730774e-9 * (k + 1);
            e.sqrt_a = 5153.6 + 0.7 * k;
            e.e = 0.004 + 0.003 * k;
            e.i0 = 0.3056 + 0.002 * plane;
            e.omega0 = -1.0 + plane / 3.0;
            e.omega = -0.4 + 0.1 * k;
            double m0 = -1.0 + 0.5 * k + plane / 12.0;
            e.m0 = m0 >= 1.0 ? m0 - 2.0 : m0;
            e.delta_n = 1.4e-9;
            e.omega_dot = -2.6e-9;
            e.idot = 1.5e-11;
            e.crs = -28.96875;
            e.crc = 225.71875;
            e.cuc = -1.5e-6;
            e.cus = 8.0e-6;
            e.cic = 1.7e-8;
            e.cis = -9.1e-8;
            sats.push_back(e);
        }
    return sats;
}

double norm(const gnss_vec3& v)
{
    return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

//! A satellite of either system with what it broadcasts.
struct broadcast_satellite {
    gnss_system system;
    gps_ephemeris gps;
    galileo_inav_message galileo;

    int prn() const
    {
        return system == gnss_system::gps ? gps.prn : galileo.ephemeris.svid;
    }
    //! The satellite's clock keeps its system's time: GPS time, or GST = GPS + GGTO.
    double system_time_offset_s() const
    {
        return system == gnss_system::gps ? 0.0 : ggto_s;
    }
    //! Position and L1 / E1 clock at \p t of its system's time.
    gps_satellite_state at(double t) const
    {
        return system == gnss_system::gps
                   ? gps_satellite_at(gps, t)
                   : galileo_satellite_at(
                         galileo.ephemeris, t, galileo.iono_health.bgd_e1_e5b);
    }
};

struct transit {
    double geometric_s;       //!< tau, light time with the Earth's rotation
    double satellite_clock_s; //!< clock_bias at the transmission
    double ionosphere_s;
};

//! The signal arriving at GPS time \p t at \p receiver from \p sat.
transit signal_at(const broadcast_satellite& sat, const gnss_vec3& receiver, double t)
{
    const gnss_geodetic geo = ecef_to_geodetic(receiver);
    double tau = 0.075;
    gps_satellite_state s{};
    gnss_vec3 rotated{};
    for (int i = 0; i < 10; ++i) {
        s = sat.at(t - tau + sat.system_time_offset_s());
        double r[3] = { s.position[0], s.position[1], s.position[2] };
        gps_earth_rotation_correction(r, tau);
        rotated = { r[0], r[1], r[2] };
        tau = norm({ rotated[0] - receiver[0],
                     rotated[1] - receiver[1],
                     rotated[2] - receiver[2] }) /
              c_light;
    }
    const gnss_az_el direction = azimuth_elevation(receiver, geo, rotated);
    return { tau, s.clock_bias, klobuchar_delay_s(klobuchar, geo, direction, t) };
}

double elevation_of(const broadcast_satellite& sat, const gnss_vec3& receiver, double t)
{
    const gps_satellite_state s = sat.at(t - 0.075);
    return azimuth_elevation(receiver,
                             ecef_to_geodetic(receiver),
                             { s.position[0], s.position[1], s.position[2] })
        .elevation_rad;
}

//! The receiver position in each non-comment line of rnx2rtkp's -e output
//! ("week tow x y z Q ns ..." or "date time x y z ...").
std::vector<gnss_vec3> read_positions(const std::string& path)
{
    std::vector<gnss_vec3> positions;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '%')
            continue;
        std::istringstream fields(line);
        std::string first, second;
        gnss_vec3 x;
        if (fields >> first >> second >> x[0] >> x[1] >> x[2])
            positions.push_back(x);
    }
    return positions;
}

//! The satellites of \p all above 15 degrees at the start, \p most at most.
std::vector<broadcast_satellite> visible(const std::vector<broadcast_satellite>& all,
                                         const gnss_vec3& receiver,
                                         std::size_t most)
{
    const double t_start = static_cast<double>(start_whole_s) + start_fraction_s;
    std::vector<broadcast_satellite> seen;
    for (const auto& sat : all)
        if (elevation_of(sat, receiver, t_start) > 15.0 * deg && seen.size() < most)
            seen.push_back(sat);
    return seen;
}

//! gnss_observables' 1-Hz epochs of 5.5 s of perfect tracking of \p sats.
std::vector<gnss_observation_epoch>
observation_epochs(const std::vector<broadcast_satellite>& sats, const gnss_vec3& truth)
{
    const double t_start = static_cast<double>(start_whole_s) + start_fraction_s;
    // Every satellite's state each 1 ms, at samples offset per channel; the
    // observables take them in time order.
    std::vector<gnss_channel_epoch> states;
    const std::uint64_t step = 4000, span = 22000000; // 5.5 s
    for (std::uint64_t s0 = 0; s0 < span; s0 += step)
        for (std::size_t i = 0; i < sats.size(); ++i) {
            const std::uint64_t sample = s0 + 500 + 257 * i;
            const double u = static_cast<double>(sample) / sample_rate_hz;
            const transit tr = signal_at(sats[i], truth, t_start + u);
            // The code is late by the ionosphere, the carrier early; the satellite's
            // clock reads its system's time.
            const double sent_fraction_s = start_fraction_s + u - tr.geometric_s -
                                           tr.ionosphere_s + tr.satellite_clock_s +
                                           sats[i].system_time_offset_s();
            gnss_channel_epoch s =
                sats[i].system == gnss_system::gps
                    ? qa::gps_channel_state(
                          sats[i].prn(), sample, start_whole_s, sent_fraction_s)
                    : qa::galileo_channel_state(
                          sats[i].prn(), sample, start_whole_s, sent_fraction_s);
            s.carrier_cycles =
                l1_hz * (-tr.geometric_s + tr.ionosphere_s + tr.satellite_clock_s);
            const transit later = signal_at(sats[i], truth, t_start + u + 1e-3);
            s.doppler_hz =
                l1_hz *
                ((-later.geometric_s + later.ionosphere_s + later.satellite_clock_s) -
                 (-tr.geometric_s + tr.ionosphere_s + tr.satellite_clock_s)) /
                1e-3;
            states.push_back(s);
        }
    gnss_observables_config config;
    config.sample_rate_hz = sample_rate_hz;
    gnss_observables observables(config);
    for (const auto& s : states)
        observables.add(s);
    return observables.epochs_through(states.back().sample_index);
}

//! Our RINEX files of the epochs and the satellites' broadcast: (observation,
//! navigation).
std::pair<std::string, std::string>
write_files(const std::string& dir,
            const std::vector<broadcast_satellite>& sats,
            const std::vector<gnss_observation_epoch>& epochs,
            const gnss_vec3& truth,
            const std::vector<gnss_system>& systems)
{
    gnss_rinex_observation_header header;
    header.program.run_by = "qa_gnss_rinex_rtklib";
    header.approximate_position_m = truth;
    header.interval_ms = 1000;
    header.systems = systems;
    const gps_time first = { week, epochs.front().receiver_time_ms / 1000.0 };
    const gnss_rinex_site site;
    const std::string obs_path =
        dir + "/" + rinex_observation_file_name(site, first, 5.0, 1000, systems);
    const std::string nav_path =
        dir + "/" + rinex_navigation_file_name(site, first, 5.0, systems);
    write_rinex_observation_file(obs_path, header, week, epochs);
    gnss_rinex_navigation_header nav_header;
    nav_header.systems = systems;
    nav_header.has_iono_utc = true;
    for (int k = 0; k < 4; ++k) {
        nav_header.iono_utc.alpha[k] = klobuchar.alpha[k];
        nav_header.iono_utc.beta[k] = klobuchar.beta[k];
    }
    nav_header.iono_utc.dt_ls = nav_header.iono_utc.dt_lsf = 18;
    nav_header.iono_utc.wn_lsf = 1929 % 256;
    nav_header.iono_utc.dn = 7;
    nav_header.reference_week = week;
    std::vector<gnss_rinex_gps_ephemeris> gps_records;
    std::vector<gnss_rinex_galileo_ephemeris> galileo_records;
    for (const auto& sat : sats) {
        if (sat.system == gnss_system::gps)
            gps_records.push_back({ sat.gps, week, 5400.0 });
        else
            galileo_records.push_back(
                { sat.galileo.ephemeris, sat.galileo.iono_health, week, 5400.0 });
    }
    write_rinex_navigation_file(nav_path, nav_header, gps_records, galileo_records);
    return { obs_path, nav_path };
}

//! gnss_solve_pvt's fix of one epoch from the satellites' broadcast.
gnss_pvt_result our_fix(const gnss_observation_epoch& epoch,
                        const std::vector<broadcast_satellite>& sats)
{
    gnss_pvt_config pvt;
    pvt.ionosphere = gnss_ionosphere_model::klobuchar;
    pvt.klobuchar = klobuchar;
    pvt.troposphere = gnss_troposphere_model::none;
    const double receive_s = epoch.receiver_time_ms / 1000.0;
    std::vector<gnss_pvt_observation> obs;
    for (const gnss_observation& o : epoch.observations) {
        const broadcast_satellite* sat = nullptr;
        for (const auto& v : sats)
            if (v.system == o.system && v.prn() == o.prn)
                sat = &v;
        // The satellite's clock reading at transmission, in its system's time.
        const double sent_sv = receive_s - o.pseudorange_m / c_light;
        const gps_satellite_state s = sat->at(sent_sv - sat->at(sent_sv).clock_bias);
        gnss_pvt_observation p;
        p.system = o.system;
        p.prn = o.prn;
        p.pseudorange_m = o.pseudorange_m;
        p.pseudorange_rate_m_s = -o.doppler_hz * c_light / l1_hz;
        p.cn0_dbhz = o.cn0_dbhz;
        p.satellite_position_m = { s.position[0], s.position[1], s.position[2] };
        p.satellite_velocity_m_s = { s.velocity[0], s.velocity[1], s.velocity[2] };
        p.satellite_clock_s = s.clock_bias;
        p.satellite_clock_drift = s.clock_drift;
        obs.push_back(p);
    }
    pvt.gps_time_s = receive_s;
    return gnss_solve_pvt(obs, pvt);
}

/*!
 * rnx2rtkp's single-point solution of our files of \p sats (broadcast ephemeris and
 * ionosphere, no troposphere; \p navsys RTKLIB's system mask, \p sys its -sys list),
 * each epoch within 1 m of the truth and of ours; ours within 5 cm of the truth.
 * Returns our fixes.
 */
std::vector<gnss_pvt_result> check_rnx2rtkp(const std::vector<broadcast_satellite>& sats,
                                            const gnss_vec3& truth,
                                            const std::vector<gnss_system>& systems,
                                            int navsys,
                                            const std::string& sys)
{
    const std::string rnx2rtkp = find_rnx2rtkp();
    if (rnx2rtkp.empty())
        qa::skip("rnx2rtkp (Debian package rtklib) is not on PATH");
    const auto epochs = observation_epochs(sats, truth);
    CPPUNIT_ASSERT(epochs.size() >= 4);
    char folder[] = "/tmp/qa_gnss_rinex_rtklib_XXXXXX";
    CPPUNIT_ASSERT(::mkdtemp(folder) != nullptr);
    const std::string dir = folder;
    const auto [obs_path, nav_path] = write_files(dir, sats, epochs, truth, systems);

    const std::string conf_path = dir + "/single.conf";
    std::ofstream(conf_path) << "pos1-posmode       =single\n"
                                "pos1-frequency     =l1\n"
                                "pos1-elmask        =10\n"
                                "pos1-ionoopt       =brdc\n"
                                "pos1-tropopt       =off\n"
                                "pos1-sateph        =brdc\n"
                                "pos1-navsys        ="
                             << navsys << "\n";
    const std::string pos_path = dir + "/solution.pos";
    const std::string command = "'" + rnx2rtkp + "' -k '" + conf_path + "' -p 0 -sys " +
                                sys + " -m 10 -e -o '" + pos_path + "' '" + obs_path +
                                "' '" + nav_path + "' > '" + dir + "/rnx2rtkp.log' 2>&1";
    CPPUNIT_ASSERT_EQUAL_MESSAGE(command, 0, std::system(command.c_str()));
    const std::vector<gnss_vec3> rtklib = read_positions(pos_path);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        "rnx2rtkp's solutions, one per epoch", epochs.size(), rtklib.size());

    std::vector<gnss_pvt_result> fixes;
    double worst_truth = 0.0, worst_ours = 0.0, worst_ours_truth = 0.0;
    const auto distance = [](const gnss_vec3& a, const gnss_vec3& b) {
        return norm({ a[0] - b[0], a[1] - b[1], a[2] - b[2] });
    };
    for (std::size_t k = 0; k < epochs.size(); ++k) {
        const gnss_pvt_result fix = our_fix(epochs[k], sats);
        CPPUNIT_ASSERT_MESSAGE(fix.reason, fix.valid);
        CPPUNIT_ASSERT_EQUAL(static_cast<int>(sats.size()), fix.satellites_used);
        worst_truth = std::fmax(worst_truth, distance(rtklib[k], truth));
        worst_ours = std::fmax(worst_ours, distance(rtklib[k], fix.position_m));
        worst_ours_truth = std::fmax(worst_ours_truth, distance(fix.position_m, truth));
        fixes.push_back(fix);
    }
    std::cout << "\nrnx2rtkp (" << sys << "): " << epochs.size() << " epochs of "
              << sats.size() << " satellites; largest distance from the truth "
              << worst_truth << " m, from gnss_solve_pvt " << worst_ours
              << " m (gnss_solve_pvt from the truth " << worst_ours_truth << " m)\n";
    CPPUNIT_ASSERT(worst_truth < 1.0);
    CPPUNIT_ASSERT(worst_ours < 1.0);
    CPPUNIT_ASSERT(worst_ours_truth < 0.05);
    for (const std::string& p : { obs_path, nav_path, conf_path, pos_path })
        std::remove(p.c_str());
    std::remove((dir + "/rnx2rtkp.log").c_str());
    ::rmdir(folder);
    return fixes;
}

std::vector<broadcast_satellite> gps_satellites()
{
    std::vector<broadcast_satellite> sats;
    for (const auto& e : constellation())
        sats.push_back({ gnss_system::gps, e, {} });
    return sats;
}

std::vector<broadcast_satellite> galileo_satellites()
{
    std::vector<broadcast_satellite> sats;
    for (const auto& m : galileo_nominal_constellation(7200.0, 91))
        sats.push_back({ gnss_system::galileo, {}, m });
    return sats;
}

//! 48.1 N 11.6 E, 520 m: a static receiver near Munich.
gnss_vec3 receiver_position()
{
    return geodetic_to_ecef({ 48.1 * deg, 11.6 * deg, 520.0 });
}

} // namespace

class qa_gnss_rinex_rtklib : public CppUnit::TestCase
{
    CPPUNIT_TEST_SUITE(qa_gnss_rinex_rtklib);
    CPPUNIT_TEST(rnx2rtkp_solves_our_files_to_the_truth);
    CPPUNIT_TEST(rnx2rtkp_solves_our_mixed_files_to_the_truth);
    CPPUNIT_TEST_SUITE_END();

public:
    void rnx2rtkp_solves_our_files_to_the_truth()
    {
        const gnss_vec3 truth = receiver_position();
        const auto sats = visible(gps_satellites(), truth, 10);
        CPPUNIT_ASSERT(sats.size() >= 7);
        check_rnx2rtkp(sats, truth, { gnss_system::gps }, 1, "G");
    }

    void rnx2rtkp_solves_our_mixed_files_to_the_truth()
    {
        // Six GPS and the visible Galileo satellites: the Galileo clock (GST) is
        // RTKLIB's inter-system bias as it is ours, and its E1 clock takes BGD(E1,E5b)
        // off the I/NAV one, as ours does.
        const gnss_vec3 truth = receiver_position();
        auto sats = visible(gps_satellites(), truth, 6);
        const auto galileo = visible(galileo_satellites(), truth, 10);
        CPPUNIT_ASSERT(galileo.size() >= 4);
        sats.insert(sats.end(), galileo.begin(), galileo.end());
        const auto fixes = check_rnx2rtkp(
            sats, truth, { gnss_system::gps, gnss_system::galileo }, 1 + 8, "G,E");
        for (const gnss_pvt_result& fix : fixes)
            CPPUNIT_ASSERT_DOUBLES_EQUAL(-ggto_s, fix.inter_system_bias_s, 0.1e-9);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_gnss_rinex_rtklib);

} // namespace core
} // namespace cudadsp
} // namespace gr
