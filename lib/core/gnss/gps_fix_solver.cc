/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_keplerian_orbit.h"
#include "gnss/gps_fix_solver.h"
#include "gnss/gps_navigation_channel.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr double wavelength_m = gnss_speed_of_light_m_s / gps_l1_frequency_hz; // = E1's
//! SISA index 255: "no accuracy prediction available" (OS SIS ICD 5.1.11), a satellite
//! in test or of marginal status (OS SDD 2.3.1.4).
constexpr int galileo_sisa_napa = 255;
/*! The ICD states no fit interval for I/NAV; a batch of navigation data is valid for
 *  4 h after its t0e (OS SDD 2.3.1.4 states the ages of data within that); the same
 *  span before it covers a receiver that sees the batch early. */
constexpr double galileo_validity_s = 4.0 * 3600.0;

/*! Half the ephemeris's fit interval (IS-GPS-200 20.3.4.4 and Table 20-XII): 4 hours
 *  for fit interval flag 0; flag 1 means more, of which 6 hours is the shortest. */
double half_fit_interval_s(const gps_ephemeris& e)
{
    return e.fit_interval_flag == 0 ? 2.0 * 3600.0 : 3.0 * 3600.0;
}

//! The observation's numbers in \p p; the satellite's are the caller's.
void set_measurements(const gnss_observation& o, gnss_pvt_observation& p)
{
    p.system = o.system;
    p.prn = o.prn;
    p.pseudorange_m = o.pseudorange_m;
    p.pseudorange_rate_m_s = -o.doppler_hz * wavelength_m;
    p.cn0_dbhz = o.cn0_dbhz;
}

void set_satellite(const gps_satellite_state& s, gnss_pvt_observation& p)
{
    p.satellite_position_m = { s.position[0], s.position[1], s.position[2] };
    p.satellite_velocity_m_s = { s.velocity[0], s.velocity[1], s.velocity[2] };
    p.satellite_clock_s = s.clock_bias;
    p.satellite_clock_drift = s.clock_drift;
}

std::string outside_validity(const char* what, double from_reference_s)
{
    return std::string("ephemeris outside its ") + what + " (" +
           std::to_string(static_cast<long>(from_reference_s)) + " s from toe)";
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

void gps_fix_solver::take_galileo_ephemeris(int prn, const galileo_ephemeris& ephemeris)
{
    d_galileo_ephemerides[prn] = ephemeris;
}

void gps_fix_solver::take_galileo_iono_health(int prn,
                                              const galileo_iono_health& iono_health)
{
    d_galileo_iono_health[prn] = iono_health;
}

std::string gps_fix_solver::gps_input(const gnss_observation& o,
                                      double receive_s,
                                      gnss_pvt_observation& input) const
{
    const auto it = d_ephemerides.find(o.prn);
    if (it == d_ephemerides.end()) {
        return "no ephemeris yet";
    }
    const gps_ephemeris& e = it->second;
    if (e.health != 0) {
        return "unhealthy (SV health " + std::to_string(e.health) + ")";
    }
    // The pseudorange is c (receiver time - satellite clock reading at transmission):
    // the reading is exact whatever the receiver clock's error, and the satellite's
    // clock correction turns it into GPS time (IS-GPS-200 20.3.3.3.3.1, evaluated at
    // the reading as the ICD allows).
    const double sent_sv_s = receive_s - o.pseudorange_m / gnss_speed_of_light_m_s;
    const double sent_s = sent_sv_s - gps_satellite_at(e, sent_sv_s).clock_bias;
    const double from_toe_s = gps_time_difference(sent_s, e.toe);
    if (std::fabs(from_toe_s) > half_fit_interval_s(e)) {
        return outside_validity("fit interval", from_toe_s);
    }
    set_measurements(o, input);
    set_satellite(gps_satellite_at(e, sent_s), input);
    return "";
}

std::string gps_fix_solver::galileo_input(const gnss_observation& o,
                                          double receive_s,
                                          gnss_pvt_observation& input) const
{
    const auto it = d_galileo_ephemerides.find(o.prn);
    if (it == d_galileo_ephemerides.end()) {
        return "no ephemeris yet";
    }
    const auto health = d_galileo_iono_health.find(o.prn);
    if (health == d_galileo_iono_health.end()) {
        return "no health yet (word 5)";
    }
    const galileo_iono_health& h = health->second;
    const galileo_ephemeris& e = it->second;
    // OS SIS ICD 5.1.9.3 and OS SDD 2.3.1.4: healthy only with SHS 0, DVS 0 and a
    // SISA; "marginal" (DVS 1, SISA NAPA) is not used either.
    if (h.e1b_hs != 0) {
        return "unhealthy (E1-B HS " + std::to_string(h.e1b_hs) + ")";
    }
    if (h.e1b_dvs != 0) {
        return "navigation data without guarantee (E1-B DVS 1)";
    }
    if (e.sisa == galileo_sisa_napa) {
        return "no accuracy prediction (SISA 255)";
    }
    // As for GPS: the satellite clock's reading at transmission, corrected to GST by
    // the E1 clock (OS SIS ICD 5.1.4, 5.1.5). The receiver time is GPS time; GST
    // differs by the GGTO (tens of ns), which moves a satellite by under a millimetre
    // and which the solver's Galileo clock absorbs in the ranges.
    const double sent_sv_s = receive_s - o.pseudorange_m / gnss_speed_of_light_m_s;
    const double bgd_s = h.bgd_e1_e5b;
    const double sent_s =
        sent_sv_s - galileo_satellite_at(e, sent_sv_s, bgd_s).clock_bias;
    const double from_toe_s = week_time_difference(sent_s, e.t0e);
    if (std::fabs(from_toe_s) > galileo_validity_s) {
        return outside_validity("4 h validity", from_toe_s);
    }
    set_measurements(o, input);
    set_satellite(galileo_satellite_at(e, sent_s, bgd_s), input);
    return "";
}

gps_receiver_epoch gps_fix_solver::solve(gnss_observation_epoch observations) const
{
    gps_receiver_epoch out;
    out.observations = std::move(observations);
    const double receive_s = static_cast<double>(out.observations.receiver_time_ms) / 1e3;

    std::vector<gnss_pvt_observation> inputs;
    for (const gnss_observation& o : out.observations.observations) {
        gnss_pvt_observation p;
        const std::string refused = o.system == gnss_system::galileo
                                        ? galileo_input(o, receive_s, p)
                                        : gps_input(o, receive_s, p);
        if (refused.empty()) {
            inputs.push_back(p);
        } else {
            out.excluded.push_back({ o.system, o.prn, refused });
        }
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
        const double gps_clock_s =
            out.fix.clock_bias_s[static_cast<int>(gnss_system::gps)];
        out.gps_time_of_week_s =
            receive_s -
            (std::isnan(gps_clock_s)
                 ? out.fix.clock_bias_s[static_cast<int>(gnss_system::galileo)]
                 : gps_clock_s);
    } else {
        out.gps_time_of_week_s = std::numeric_limits<double>::quiet_NaN();
        // x, y, z and one clock per system: too few given, each refusal says why.
        std::set<gnss_system> systems;
        for (const gnss_pvt_observation& p : inputs) {
            systems.insert(p.system);
        }
        if (inputs.size() < 3 + std::max<std::size_t>(systems.size(), 1)) {
            for (const gps_receiver_exclusion& x : out.excluded) {
                out.fix.reason +=
                    "; " + gnss_satellite_id(x.system, x.prn) + ": " + x.reason;
            }
        }
    }
    return out;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
