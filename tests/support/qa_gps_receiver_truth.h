/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_GPS_RECEIVER_TRUTH_H
#define INCLUDED_CUDADSP_QA_GPS_RECEIVER_TRUTH_H

// The receiver tests' scenario and its truth, shared by the engine's (qa_gps_receiver)
// and the blocks' (qa_gnss_navigation_flowgraph): the nominal constellation seen from
// Vienna with one satellite marked unhealthy, Klobuchar on, no troposphere; sample 0
// falls 0.45 s before subframe 1 of a frame whose subframe 4 is page 18. A perfect
// tracker's records, the fix errors, the truth geometry's DOPs, and when the fourth
// healthy ephemeris is in (GPS and Galileo satellites alike for the tracker and the
// truth; qa_gps_receiver_run.h runs the trackers through a receiver).

#include "gnss/gnss_geodesy.h"
#include "gnss/gps_constellation_scenario.h"
#include "qa_gps_scenario.h"
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <cppunit/TestAssert.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

using namespace core;

inline constexpr double pi = 3.141592653589793;
inline constexpr double chip_rate = 1.023e6;
inline constexpr int week = 300; // 10-bit
inline constexpr double toe = 345600.0;
// Frame 11542 (11542 mod 25 = 17) carries page 18 in its subframe 4.
inline constexpr double subframe_1_tow = 30.0 * 11542;
inline constexpr double start_tow = subframe_1_tow - 0.45;
inline constexpr int unhealthy_prn_slot =
    2; // the third visible satellite is marked unhealthy

//! The visible satellites (10 deg mask at sample 0), one of them unhealthy.
inline gps_scenario_config scenario_config(double duration_s, double sample_rate_hz)
{
    gps_scenario_config config = nominal_scenario(week, toe);
    config.start_tow_s = start_tow;
    config.duration_s = duration_s;
    config.elevation_mask_deg = 10.0;
    config.ionosphere = gnss_ionosphere_model::klobuchar;
    config.klobuchar = broadcast_klobuchar();
    config.signal.sample_rate_hz = sample_rate_hz;
    config.signal.intermediate_frequency_hz = 0.0;
    const gps_constellation_scenario visible(config);
    const int unhealthy = visible.satellite(unhealthy_prn_slot).ephemeris.prn;
    for (gps_scenario_satellite& s : config.satellites)
        if (s.ephemeris.prn == unhealthy)
            s.ephemeris.health = 1;
    return config;
}

inline double norm(const gnss_vec3& v)
{
    return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

//! The sample at which satellite \p sat's signal reaches satellite time \p tow.
inline double
arrival_sample(const gps_constellation_scenario& scenario, std::size_t sat, double tow)
{
    const gnss_signal_simulator& sim = scenario.signal();
    const double chips = (tow - scenario.code_reference_tow_s()) * chip_rate;
    double n = (tow - start_tow - 0.07) * sim.config().sample_rate_hz;
    for (int k = 0; k < 6; ++k)
        n += (chips - sim.code_phase_total_chips(sat, n)) / sim.code_rate_cps(sat, n) *
             sim.config().sample_rate_hz;
    return n;
}

/*!
 * The records a perfect tracker would report: each epoch (GPS: 1 ms of the C/A code;
 * Galileo: 4 ms of the E1-B code) ends at the first sample past a code period's end,
 * the code phase and the carrier are the truth's there, the prompt is the data bit's
 * (Galileo: the symbol's) level (upright carrier). \p levels overrides the data bits by
 * index where it has them.
 */
class perfect_tracker
{
public:
    perfect_tracker(const gps_constellation_scenario& scenario,
                    std::size_t sat,
                    std::uint32_t id,
                    std::map<std::int64_t, int> levels = {})
        : d_sim(scenario.signal()), d_sat(sat), d_id(id), d_levels(std::move(levels))
    {
        const bool galileo = scenario.system(sat) == gnss_system::galileo;
        d_chips_per_period = galileo ? 4092.0 : 1023.0;
        d_periods_per_bit = galileo ? 1.0 : 20.0;
        d_period_s = galileo ? 4e-3 : 1e-3;
        d_period =
            std::floor(d_sim.code_phase_total_chips(sat, 0.0) / d_chips_per_period);
    }

    //! Appends the epochs that end before sample \p through.
    void run_to(std::uint64_t through, gnss_correlator_results& out)
    {
        const double fs = d_sim.config().sample_rate_hz;
        for (;;) {
            const double end_chips = (d_period + 1.0) * d_chips_per_period;
            double n = static_cast<double>(d_start) + d_period_s * fs;
            for (int k = 0; k < 4; ++k)
                n += (end_chips - d_sim.code_phase_total_chips(d_sat, n)) /
                     d_sim.code_rate_cps(d_sat, n) * fs;
            const std::uint64_t end = static_cast<std::uint64_t>(std::floor(n)) + 1;
            if (end > through)
                return;
            gnss_epoch_record r{};
            r.channel_id = d_id;
            r.flags = gnss_flag_tracking | gnss_flag_cn0_valid | gnss_flag_code_lock |
                      gnss_flag_carrier_lock;
            r.epoch = d_epoch++;
            r.start_sample = d_start;
            r.sample_count = static_cast<std::uint32_t>(end - d_start);
            const double e = static_cast<double>(end);
            r.code_phase_chips = d_sim.code_phase_total_chips(d_sat, e) - end_chips;
            r.code_rate_cps = d_sim.code_rate_cps(d_sat, e);
            r.doppler_hz = d_sim.doppler_hz(d_sat, e);
            r.carrier_cycles = (d_sim.carrier_phase_rad(d_sat, e) -
                                d_sim.carrier_phase_rad(d_sat, 0.0)) /
                               (2 * pi);
            r.cn0_dbhz = 45.0f;
            const std::int64_t bit =
                static_cast<std::int64_t>(std::floor(d_period / d_periods_per_bit));
            const auto level = d_levels.find(bit);
            const int value =
                level != d_levels.end() ? level->second : d_sim.bit(d_sat, bit);
            r.prompt_sign = value;
            out.records.push_back(r);
            out.correlations.push_back(0.0f);
            out.correlations.push_back(std::complex<float>(100.0f * value, 0.0f));
            out.correlations.push_back(0.0f);
            d_start = end;
            d_period += 1.0;
        }
    }

private:
    const gnss_signal_simulator& d_sim;
    std::size_t d_sat;
    std::uint32_t d_id;
    std::map<std::int64_t, int> d_levels;
    double d_chips_per_period;
    double d_periods_per_bit;
    double d_period_s;
    double d_period;
    std::uint64_t d_start = 0;
    std::uint64_t d_epoch = 0;
};

//! HDOP, VDOP, PDOP, GDOP of the truth geometry of satellites \p used (PRNs) seen at
//! sample \p sample_index.
inline std::vector<double> truth_dops(const gps_constellation_scenario& scenario,
                                      const std::vector<int>& used,
                                      double sample_index)
{
    const gnss_vec3 rx = vienna_ecef();
    const gnss_geodetic where = ecef_to_geodetic(rx);
    const double sl = std::sin(where.latitude_rad), cl = std::cos(where.latitude_rad);
    const double so = std::sin(where.longitude_rad), co = std::cos(where.longitude_rad);
    // Rows of the ENU design matrix [-e, -n, -u, 1]; normal matrix accumulated.
    double m[4][4] = {};
    for (int prn : used) {
        for (std::size_t sat = 0; sat < scenario.satellite_count(); ++sat) {
            if (scenario.system(sat) != gnss_system::gps || scenario.prn(sat) != prn)
                continue;
            const gps_scenario_truth t = scenario.truth(sat, sample_index);
            gnss_vec3 d;
            for (int i = 0; i < 3; ++i)
                d[i] = t.satellite_position_m[i] - rx[i];
            const double r = norm(d);
            const double east = (-so * d[0] + co * d[1]) / r;
            const double north = (-sl * co * d[0] - sl * so * d[1] + cl * d[2]) / r;
            const double up = (cl * co * d[0] + cl * so * d[1] + sl * d[2]) / r;
            const double h[4] = { -east, -north, -up, 1.0 };
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j)
                    m[i][j] += h[i] * h[j];
        }
    }
    // Gauss-Jordan inverse of the 4 x 4 normal matrix.
    double inv[4][4] = { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 } };
    for (int c = 0; c < 4; ++c) {
        const double p = m[c][c];
        for (int j = 0; j < 4; ++j) {
            m[c][j] /= p;
            inv[c][j] /= p;
        }
        for (int i = 0; i < 4; ++i) {
            if (i == c)
                continue;
            const double f = m[i][c];
            for (int j = 0; j < 4; ++j) {
                m[i][j] -= f * m[c][j];
                inv[i][j] -= f * inv[c][j];
            }
        }
    }
    const double hdop = std::sqrt(inv[0][0] + inv[1][1]);
    const double vdop = std::sqrt(inv[2][2]);
    const double pdop = std::sqrt(inv[0][0] + inv[1][1] + inv[2][2]);
    const double gdop = std::sqrt(pdop * pdop + inv[3][3]);
    return { hdop, vdop, pdop, gdop };
}

struct fix_errors {
    double horizontal_m;
    double three_d_m;
};

//! Horizontal and 3-D distance of \p position_m (ECEF) from the true position.
inline fix_errors position_errors(const gnss_vec3& position_m)
{
    const gnss_vec3 rx = vienna_ecef();
    const gnss_geodetic where = ecef_to_geodetic(rx);
    const gnss_vec3 d{ position_m[0] - rx[0],
                       position_m[1] - rx[1],
                       position_m[2] - rx[2] };
    const double sl = std::sin(where.latitude_rad), cl = std::cos(where.latitude_rad);
    const double up = cl * std::cos(where.longitude_rad) * d[0] +
                      cl * std::sin(where.longitude_rad) * d[1] + sl * d[2];
    const double three_d = norm(d);
    return { std::sqrt(std::fmax(three_d * three_d - up * up, 0.0)), three_d };
}

inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? NAN : v[v.size() / 2];
}

//! The sample at which the fourth healthy satellite's subframe 3 has arrived.
inline double ephemeris_set_sample(const gps_constellation_scenario& scenario)
{
    std::vector<double> ends;
    for (std::size_t sat = 0; sat < scenario.satellite_count(); ++sat)
        if (sat != unhealthy_prn_slot)
            ends.push_back(arrival_sample(scenario, sat, subframe_1_tow + 18.0));
    std::sort(ends.begin(), ends.end());
    return ends[3];
}


inline std::vector<std::size_t> all_of(const gps_constellation_scenario& scenario)
{
    std::vector<std::size_t> sats(scenario.satellite_count());
    for (std::size_t sat = 0; sat < sats.size(); ++sat)
        sats[sat] = sat;
    return sats;
}

inline std::size_t slot_of(const gps_constellation_scenario& scenario,
                           int prn,
                           gnss_system system = gnss_system::gps)
{
    for (std::size_t sat = 0; sat < scenario.satellite_count(); ++sat)
        if (scenario.system(sat) == system && scenario.prn(sat) == prn)
            return sat;
    CPPUNIT_FAIL(gnss_satellite_id(system, prn) + " is not in the scenario");
    return 0;
}

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_GPS_RECEIVER_TRUTH_H */
