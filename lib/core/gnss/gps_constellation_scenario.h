/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A GPS L1 C/A constellation as a receiver at a known place would see it: each visible
// satellite's code, carrier and LNAV data bits follow its broadcast orbit and clock, the
// light time with the Earth's rotation and the Klobuchar ionosphere, exactly, and the
// truth (ranges, delays, clocks, times) is there for every sample. The signal itself
// comes from gnss_signal_simulator, driven by phase tracks. Equations and sign
// conventions: docs/design/gnss_scenario.md.

#ifndef INCLUDED_CUDADSP_CORE_GPS_CONSTELLATION_SCENARIO_H
#define INCLUDED_CUDADSP_CORE_GPS_CONSTELLATION_SCENARIO_H

#include "gnss/gnss_atmosphere.h"
#include "gnss/gnss_geodesy.h"
#include "gnss/gps_ephemeris.h"
#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <cstddef>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

struct gps_scenario_satellite {
    gps_ephemeris ephemeris; //!< prn 1..32, each at most once
    double cn0_dbhz = 45.0;
};

//! ECEF position at sample 0 and a constant ECEF velocity (zero: a static receiver).
struct gps_scenario_receiver {
    gnss_vec3 position_m{ { 0.0, 0.0, 0.0 } };
    gnss_vec3 velocity_m_s{ { 0.0, 0.0, 0.0 } };
};

struct gps_scenario_config {
    std::vector<gps_scenario_satellite> satellites;
    gps_scenario_receiver receiver;
    //! GPS time of week of sample 0 at the receiver, in [1, 604800 - duration_s): the
    //! scenario stays within one GPS week.
    double start_tow_s = 1.0;
    double duration_s = 1.0;          //!< > 0; the phase tracks cover it
    double elevation_mask_deg = 10.0; //!< [-90, 90], applied at sample 0
    gnss_ionosphere_model ionosphere = gnss_ionosphere_model::none;
    //! Used with gnss_ionosphere_model::klobuchar, and broadcast on subframe 4 page 18.
    gnss_klobuchar_coefficients klobuchar{ { 0.0, 0.0, 0.0, 0.0 },
                                           { 0.0, 0.0, 0.0, 0.0 } };
    gnss_simulator_config signal; //!< sample rate, IF, noise power, seed
};

/*!
 * \brief The truth of one satellite's signal at one receiver sample.
 *
 * With t_rx the reception and t_tx the transmission in GPS time, and t_sv = t_tx +
 * satellite_clock_s the satellite's L1 C/A signal time then, the code arriving at t_rx
 * is the code of t_sv; pseudorange_m = c (t_rx - t_sv).
 */
struct gps_scenario_truth {
    double receive_offset_s;  //!< t_rx - start_tow_s (the sample over the sample rate)
    double transit_s;         //!< t_rx - t_tx: geometric range / c + ionosphere / c
    double transmit_tow_s;    //!< t_tx, seconds of week (a double: about 0.1 ns)
    double geometric_range_m; //!< |R_z(omega_e transit) r_sat(t_tx) - r_rx(t_rx)|
    double ionosphere_m;      //!< L1 group delay: lengthens the code range
    double satellite_clock_s; //!< Delta t_sv(L1) at t_tx: af0..af2 + relativistic - TGD
    double pseudorange_m;     //!< geometric + ionosphere - c satellite_clock_s
    double carrier_range_m;   //!< geometric - ionosphere - c satellite_clock_s
    double range_rate_m_s;    //!< d carrier_range_m / d t_rx
    double doppler_hz;        //!< -range_rate_m_s / (L1 wavelength)
    double code_phase_chips;  //!< chip rate x (t_sv - code_reference_tow_s())
    gnss_vec3 satellite_position_m; //!< at t_tx, in the ECEF frame of t_rx
    gnss_vec3 receiver_position_m;
    gnss_vec3 receiver_velocity_m_s;
    gnss_az_el direction; //!< of the satellite from the receiver
};

/*!
 * \brief The visible satellites' L1 C/A signal and its truth.
 *
 * Satellites below the elevation mask at sample 0 are left out; the others keep the
 * order of the configuration. Each satellite's phases are solved exactly every 1 ms
 * and the simulator interpolates between (gnss_phase_track); truth() solves at any
 * sample. The data bits are the LNAV subframes of the satellite's ephemeris and the
 * configured ionosphere, from code_reference_tow_s() on, logic 1 sent as -1
 * (IS-GPS-200 Table 3-III). Throws std::invalid_argument naming the field.
 */
class CUDADSP_CORE_API gps_constellation_scenario
{
public:
    explicit gps_constellation_scenario(const gps_scenario_config& config);

    //! Makes the samples (generate(), generate_ci16(), ...) and holds the phase truth.
    gnss_signal_simulator& signal() { return d_simulator; }
    const gnss_signal_simulator& signal() const { return d_simulator; }

    std::size_t satellite_count() const { return d_satellites.size(); }
    //! The configuration's entry behind simulated satellite \p sat.
    const gps_scenario_satellite& satellite(std::size_t sat) const;
    /*! The satellite signal time (seconds of week, a subframe start) at which every
     *  satellite's code phase chi and data bit index count from 0. */
    double code_reference_tow_s() const { return d_code_reference_tow_s; }

    //! The exact solution at (fractional) sample \p n.
    gps_scenario_truth truth(std::size_t sat, double n) const;

private:
    gps_scenario_truth solve(const gps_scenario_satellite& satellite,
                             double receive_offset_s) const;
    std::vector<gps_scenario_satellite> visible_satellites() const;
    std::vector<gnss_simulated_satellite> simulated_satellites() const;

    gps_scenario_config d_config;
    double d_code_reference_tow_s;
    std::vector<gps_scenario_satellite> d_satellites;
    gnss_signal_simulator d_simulator;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GPS_CONSTELLATION_SCENARIO_H */
