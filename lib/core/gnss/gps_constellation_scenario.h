/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A GPS L1 C/A constellation, and optionally Galileo E1 satellites beside it, as a
// receiver at a known place would see them: each visible satellite's code, carrier and
// data (GPS LNAV bits; Galileo I/NAV symbols on E1-B, the E1-C pilot beside) follow its
// broadcast orbit and clock, the light time with the Earth's rotation and the Klobuchar
// ionosphere, exactly, and the truth (ranges, delays, clocks, times) is there for every
// sample. The signal itself comes from gnss_signal_simulator, driven by phase tracks.
// Equations and sign conventions: docs/design/gnss_scenario.md.

#ifndef INCLUDED_CUDADSP_CORE_GPS_CONSTELLATION_SCENARIO_H
#define INCLUDED_CUDADSP_CORE_GPS_CONSTELLATION_SCENARIO_H

#include "gnss/galileo_inav_encoder.h"
#include "gnss/gnss_atmosphere.h"
#include "gnss/gnss_geodesy.h"
#include "gnss/gnss_pvt.h"
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

struct galileo_scenario_satellite {
    //! What it broadcasts: ephemeris.svid is its PRN (1..50, each at most once), the
    //! clock the E1 one (E1,E5b less BGD(E1,E5b) of iono_health).
    galileo_inav_message message;
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
    /*! Galileo E1 satellites, simulated after the GPS ones; none (the default) makes
     *  the GPS-only scenario. They see the same Klobuchar ionosphere (E1 is L1's
     *  frequency); their I/NAV pages start at the even GST seconds. */
    std::vector<galileo_scenario_satellite> galileo_satellites;
    int galileo_week = 0; //!< GST week number the pages state, 0..4095
    /*! GGTO, GST - GPS time (s, |GGTO| < 1 ms): the Galileo satellites' clocks keep GST,
     *  so a receiver keeping GPS time sees their pseudoranges shorter by c GGTO. */
    double gst_minus_gps_s = 0.0;
};

/*!
 * \brief The truth of one satellite's signal at one receiver sample.
 *
 * With t_rx the reception and t_tx the transmission in GPS time, and t_sv = t_tx +
 * satellite_clock_s the satellite's L1 C/A signal time then, the code arriving at t_rx
 * is the code of t_sv; pseudorange_m = c (t_rx - t_sv). A Galileo satellite's clock
 * keeps GST: t_sv = t_tx + GGTO + satellite_clock_s (its E1 clock correction from GST,
 * evaluated at t_tx + GGTO), so its pseudorange_m and carrier_range_m below also
 * subtract c GGTO, and its code phase counts from code_reference_tow_s() of GST.
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
 * \brief The visible satellites' L1 C/A and E1 signals and their truth.
 *
 * Satellites below the elevation mask at sample 0 are left out; the others keep the
 * order of the configuration, the GPS satellites first, then the Galileo ones. Each
 * satellite's phases are solved exactly every 1 ms and the simulator interpolates between
 * (gnss_phase_track); truth() solves at any sample. The data bits are the LNAV subframes
 * of the satellite's ephemeris and the configured ionosphere, from code_reference_tow_s()
 * on, logic 1 sent as -1 (IS-GPS-200 Table 3-III); a Galileo satellite's E1-B symbols are
 * the nominal I/NAV pages of its message (galileo_inav_encode) from the page starting at
 * GST code_reference_tow_s() on, one symbol a 4-ms code period, logic 1 as -1. Throws
 * std::invalid_argument naming the field.
 */
class CUDADSP_CORE_API gps_constellation_scenario
{
public:
    explicit gps_constellation_scenario(const gps_scenario_config& config);

    //! Makes the samples (generate(), generate_ci16(), ...) and holds the phase truth.
    gnss_signal_simulator& signal() { return d_simulator; }
    const gnss_signal_simulator& signal() const { return d_simulator; }

    //! The simulated satellites of both systems.
    std::size_t satellite_count() const { return d_sources.size(); }
    gnss_system system(std::size_t sat) const { return d_sources.at(sat).system; }
    int prn(std::size_t sat) const;
    //! The configuration's entry behind simulated GPS satellite \p sat; throws
    //! std::out_of_range for a Galileo one.
    const gps_scenario_satellite& satellite(std::size_t sat) const;
    //! The configuration's entry behind simulated Galileo satellite \p sat; throws
    //! std::out_of_range for a GPS one.
    const galileo_scenario_satellite& galileo_satellite(std::size_t sat) const;
    /*! The satellite signal time (seconds of week, a subframe start and a page start)
     *  at which every satellite's code phase chi and data bit index count from 0 (of
     *  GST for a Galileo satellite). */
    double code_reference_tow_s() const { return d_code_reference_tow_s; }

    //! The exact solution at (fractional) sample \p n.
    gps_scenario_truth truth(std::size_t sat, double n) const;

private:
    //! A configured satellite: its system and its index in that system's list.
    struct source {
        gnss_system system;
        std::size_t index;
    };

    gps_scenario_truth solve(const source& satellite, double receive_offset_s) const;
    std::vector<source> visible_sources() const;
    gnss_simulated_satellite simulated(const source& satellite) const;
    std::vector<gnss_simulated_satellite> simulated_satellites() const;

    gps_scenario_config d_config;
    double d_code_reference_tow_s;
    std::vector<source> d_sources;
    gnss_signal_simulator d_simulator;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GPS_CONSTELLATION_SCENARIO_H */
