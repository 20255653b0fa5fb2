/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gps_fix_solver.h"
#include "gnss/gps_navigation_channel.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <cmath>
#include <limits>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr int min_satellites = 4; // x, y, z and the GPS clock

/*! Half the ephemeris's fit interval (IS-GPS-200 20.3.4.4 and Table 20-XII): 4 hours
 *  for fit interval flag 0; flag 1 means more, of which 6 hours is the shortest. */
double half_fit_interval_s(const gps_ephemeris& e)
{
    return e.fit_interval_flag == 0 ? 2.0 * 3600.0 : 3.0 * 3600.0;
}

} // namespace

gps_fix_solver::gps_fix_solver(const gps_fix_solver_config& config)
    : d_pvt(config.pvt), d_has_iono_utc(config.has_iono_utc), d_iono_utc(config.iono_utc)
{
}

void gps_fix_solver::take_ephemeris(const gps_ephemeris& ephemeris)
{
    d_ephemerides[ephemeris.prn] = ephemeris;
}

void gps_fix_solver::take_iono_utc(const gps_iono_utc& iono_utc)
{
    d_iono_utc = iono_utc;
    d_has_iono_utc = true;
}

gps_receiver_epoch gps_fix_solver::solve(gnss_observation_epoch observations) const
{
    gps_receiver_epoch out;
    out.observations = std::move(observations);
    const double receive_s = static_cast<double>(out.observations.receiver_time_ms) / 1e3;
    const double wavelength_m = gnss_speed_of_light_m_s / gps_l1_frequency_hz;

    std::vector<gnss_pvt_observation> inputs;
    for (const gnss_observation& o : out.observations.observations) {
        const auto it = d_ephemerides.find(o.prn);
        if (it == d_ephemerides.end()) {
            out.excluded.push_back({ o.prn, "no ephemeris yet" });
            continue;
        }
        const gps_ephemeris& e = it->second;
        if (e.health != 0) {
            out.excluded.push_back(
                { o.prn, "unhealthy (SV health " + std::to_string(e.health) + ")" });
            continue;
        }
        // The pseudorange is c (receiver time - satellite clock reading at
        // transmission): the reading is exact whatever the receiver clock's error, and
        // the satellite's clock correction turns it into GPS time (IS-GPS-200
        // 20.3.3.3.3.1, evaluated at the reading as the ICD allows).
        const double sent_sv_s = receive_s - o.pseudorange_m / gnss_speed_of_light_m_s;
        const double sent_s = sent_sv_s - gps_satellite_at(e, sent_sv_s).clock_bias;
        const double from_toe_s = gps_time_difference(sent_s, e.toe);
        if (std::fabs(from_toe_s) > half_fit_interval_s(e)) {
            out.excluded.push_back({ o.prn,
                                     "ephemeris outside its fit interval (" +
                                         std::to_string(static_cast<long>(from_toe_s)) +
                                         " s from toe)" });
            continue;
        }
        const gps_satellite_state s = gps_satellite_at(e, sent_s);
        gnss_pvt_observation p;
        p.system = gnss_system::gps;
        p.prn = o.prn;
        p.pseudorange_m = o.pseudorange_m;
        p.pseudorange_rate_m_s = -o.doppler_hz * wavelength_m;
        p.cn0_dbhz = o.cn0_dbhz;
        p.satellite_position_m = { s.position[0], s.position[1], s.position[2] };
        p.satellite_velocity_m_s = { s.velocity[0], s.velocity[1], s.velocity[2] };
        p.satellite_clock_s = s.clock_bias;
        p.satellite_clock_drift = s.clock_drift;
        inputs.push_back(p);
    }

    gnss_pvt_config pvt = d_pvt;
    pvt.gps_time_s = std::fmod(receive_s, gps_week_s);
    out.ionosphere_applied =
        pvt.ionosphere == gnss_ionosphere_model::klobuchar && d_has_iono_utc;
    if (out.ionosphere_applied) {
        for (int k = 0; k < 4; ++k) {
            pvt.klobuchar.alpha[k] = d_iono_utc.alpha[k];
            pvt.klobuchar.beta[k] = d_iono_utc.beta[k];
        }
    } else {
        pvt.ionosphere = gnss_ionosphere_model::none;
    }
    // Fewer than four still go to the solver: its reason states the count.
    out.fix = gnss_solve_pvt(inputs, pvt);
    if (out.fix.valid) {
        out.gps_time_of_week_s =
            receive_s - out.fix.clock_bias_s[static_cast<int>(gnss_system::gps)];
    } else {
        out.gps_time_of_week_s = std::numeric_limits<double>::quiet_NaN();
        if (inputs.size() < static_cast<std::size_t>(min_satellites)) {
            for (const gps_receiver_exclusion& x : out.excluded) {
                out.fix.reason +=
                    "; " + gnss_satellite_id(gnss_system::gps, x.prn) + ": " + x.reason;
            }
        }
    }
    return out;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
