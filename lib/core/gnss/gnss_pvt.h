/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Single-point position, velocity and time from pseudoranges and pseudorange rates:
// weighted least squares with one receiver clock per system (GPS, Galileo), the
// Earth's rotation during the signal's transit, switchable ionosphere and troposphere,
// an elevation mask, DOPs and receiver autonomous integrity monitoring (chi-square test
// on the weighted residuals, exclusion of the largest normalised residual). The caller
// supplies each satellite's position, velocity and clock at transmission time (from the
// broadcast ephemeris). Equations and sources: docs/design/gnss_pvt.md.

#ifndef INCLUDED_CUDADSP_CORE_GNSS_PVT_H
#define INCLUDED_CUDADSP_CORE_GNSS_PVT_H

#include "gnss/gnss_atmosphere.h"
#include "gnss/gnss_geodesy.h"
#include <gnuradio/cudadsp/core/api.h>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

enum class gnss_system { gps = 0, galileo = 1 };
constexpr int gnss_system_count = 2;

//! The system's RINEX letter: 'G' GPS, 'E' Galileo.
CUDADSP_CORE_API char gnss_system_letter(gnss_system system);
//! The satellite's RINEX name, "G05" for GPS PRN 5, "E11" for Galileo PRN 11, as the
//! receiver's messages name it.
CUDADSP_CORE_API std::string gnss_satellite_id(gnss_system system, int prn);

//! One tracked satellite at the receive epoch.
struct gnss_pvt_observation {
    gnss_system system = gnss_system::gps;
    int prn = 0;
    double pseudorange_m = 0.0; //!< receiver-clock-biased, on L1 / E1
    //! d(pseudorange)/dt (= -wavelength x Doppler); NaN: no Doppler, no velocity row.
    double pseudorange_rate_m_s = 0.0;
    double cn0_dbhz = 0.0; //!< NaN: not given, the weight is from elevation alone
    //! ECEF at the transmission time, in the Earth-fixed frame of that time (as the
    //! broadcast ephemeris gives it); the solver rotates it for the transit.
    gnss_vec3 satellite_position_m = { 0.0, 0.0, 0.0 };
    gnss_vec3 satellite_velocity_m_s = { 0.0, 0.0, 0.0 };
    //! Satellite clock offset from system time at transmission, relativistic and group
    //! delay terms included: the pseudorange is modelled as range + c (dt_rx - dt_sat).
    double satellite_clock_s = 0.0;
    double satellite_clock_drift = 0.0; //!< s/s
};

struct gnss_pvt_config {
    double elevation_mask_rad = 10.0 * 3.14159265358979323846 / 180.0;
    gnss_ionosphere_model ionosphere = gnss_ionosphere_model::klobuchar;
    gnss_klobuchar_coefficients klobuchar = { { 0.0, 0.0, 0.0, 0.0 },
                                              { 0.0, 0.0, 0.0, 0.0 } };
    gnss_troposphere_model troposphere = gnss_troposphere_model::saastamoinen;
    double gps_time_s = 0.0; //!< receive time of week, for the ionosphere's local time
    //! Weights: sigma^2 = sigma_zenith^2 / sin^2(el) * 10^((cn0_reference - cn0) / 10).
    double sigma_zenith_m = 3.0;
    double cn0_reference_dbhz = 45.0;
    bool raim = true;
    double raim_false_alarm = 1e-5; //!< probability of the chi-square test
    int max_iterations = 20;
    gnss_vec3 initial_position_m = { 0.0, 0.0, 0.0 }; //!< the Earth's centre will do
};

//! What became of one input satellite (same order as the input).
struct gnss_pvt_satellite {
    gnss_system system = gnss_system::gps;
    int prn = 0;
    bool used = false;
    std::string reason; //!< why not used (empty when used)
    double azimuth_rad = 0.0;
    double elevation_rad = 0.0;
    double residual_m =
        0.0; //!< post-fit, measured - modelled; NaN if never fitted
             //!< (a RAIM-excluded one: from the solution that excluded it)
    double normalised_residual = 0.0; //!< residual / its standard deviation
    bool rate_used = false;
    std::string rate_reason;        //!< why the rate was not used (empty when used)
    double rate_residual_m_s = 0.0; //!< NaN if the rate was not used
};

struct gnss_dops {
    double gdop, pdop, hdop, vdop, tdop; //!< TDOP of the reference clock (GPS if used)
};

struct gnss_pvt_result {
    bool valid = false;
    std::string reason; //!< why there is no fix (empty when valid)
    gnss_vec3 position_m;
    gnss_geodetic geodetic;
    //! Receiver clock bias per system (index gnss_system), seconds; NaN when absent.
    double clock_bias_s[gnss_system_count];
    double inter_system_bias_s; //!< Galileo - GPS, NaN unless both are used
    bool velocity_valid = false;
    std::string velocity_reason;
    gnss_vec3 velocity_m_s;
    double clock_drift; //!< s/s
    std::vector<gnss_pvt_satellite> satellites;
    int satellites_used = 0;
    gnss_dops dops;
    int iterations = 0;
    bool raim_available = false; //!< redundancy allowed the chi-square test
    double chi_square = 0.0;     //!< sum of squared weighted residuals, last solution
    int degrees_of_freedom = 0;
};

//! Solves one epoch. Never throws for bad data: a satellite with a non-finite input is
//! refused (its reason names the field), and too few usable satellites, no convergence
//! or a failed integrity test without redundancy give valid = false with the reason;
//! then every number of the fix is NaN.
gnss_pvt_result gnss_solve_pvt(const std::vector<gnss_pvt_observation>& observations,
                               const gnss_pvt_config& config);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_PVT_H */
