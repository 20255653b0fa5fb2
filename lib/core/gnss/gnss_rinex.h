/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// RINEX 3.04 observation and GPS navigation files (IGS/RTCM RINEX WG, "RINEX The
// Receiver Independent Exchange Format Version 3.04", 2018: Tables A1 to A6) and their
// long file names (section 4). The observation file carries C1C L1C D1C S1C per
// satellite, as gnss_observables forms them; the navigation file the broadcast
// ephemerides with the ionosphere, GPS-UTC and leap-second header records. Header
// choices and names: docs/design/gnss_outputs.md.

#ifndef INCLUDED_CUDADSP_CORE_GNSS_RINEX_H
#define INCLUDED_CUDADSP_CORE_GNSS_RINEX_H

#include "gnss/gnss_geodesy.h"
#include "gnss/gnss_observables.h"
#include "gnss/gnss_time.h"
#include "gnss/gps_ephemeris.h"
#include "gnss/gps_lnav.h"
#include <ostream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! The fields of "PGM / RUN BY / DATE", shared by both file types.
struct gnss_rinex_program {
    std::string program = "gr-cudadsp";
    std::string run_by;
    //! When the file was made, UTC. The writers never read the machine's clock (the
    //! same input gives the same file); a recorder passes its own time here.
    gnss_calendar_time created_utc;
};

struct gnss_rinex_observation_header {
    gnss_rinex_program program;
    std::string marker_name = "GRCD";
    std::string observer;
    std::string agency;
    std::string receiver_number;
    std::string receiver_type = "GR-CUDADSP";
    std::string receiver_version;
    std::string antenna_number;
    std::string antenna_type;
    gnss_vec3 approximate_position_m = { 0.0, 0.0, 0.0 }; //!< ECEF
    gnss_vec3 antenna_delta_hen_m = { 0.0, 0.0, 0.0 };    //!< height, east, north
    int interval_ms = 0; //!< 0: the INTERVAL record is left out
    //! Systems of the observations: GPS, Galileo or both ("SYS / # / OBS TYPES" lines).
    std::vector<gnss_system> systems = { gnss_system::gps };
    gps_time first_observation;
};

//! The header, through "END OF HEADER".
void write_rinex_observation_header(std::ostream& out,
                                    const gnss_rinex_observation_header& header);

/*!
 * \brief One epoch record: the "> " line (flag 0, no receiver clock offset) and one line
 * per satellite with C1C, L1C (with its loss-of-lock indicator), D1C and S1C, the
 * signal strength indicator of C/N0 on C1C and L1C. The epoch's time is \p week plus
 * the epoch's receiver_time_ms. A value that does not fit F14.3 (or is not finite) is
 * written blank, as RINEX writes a missing observation.
 */
void write_rinex_observation_epoch(std::ostream& out,
                                   int week,
                                   const gnss_observation_epoch& epoch);

//! Header and epochs; the header's first_observation is taken from the first epoch.
void write_rinex_observation_file(std::ostream& out,
                                  gnss_rinex_observation_header header,
                                  int week,
                                  const std::vector<gnss_observation_epoch>& epochs);
//! The same, written atomically (runtime/atomic_file.h) to \p path.
void write_rinex_observation_file(const std::string& path,
                                  const gnss_rinex_observation_header& header,
                                  int week,
                                  const std::vector<gnss_observation_epoch>& epochs);

struct gnss_rinex_navigation_header {
    gnss_rinex_program program;
    bool has_iono_utc = false; //!< false: no ionosphere, time-system or leap records
    gps_iono_utc iono_utc;
    //! Resolves the message's 8-bit UTC and leap-second weeks (WNt, WN_LSF).
    int reference_week = 0;
};

//! One satellite's ephemeris as decoded, and when its subframe 1 was sent.
struct gnss_rinex_gps_ephemeris {
    gps_ephemeris ephemeris;
    //! Continuous week of the transmission (the ephemeris's 10-bit week resolved).
    int week = 0;
    double transmission_time_s = 0.0; //!< seconds of that week (the HOW's time)
};

void write_rinex_navigation_header(std::ostream& out,
                                   const gnss_rinex_navigation_header& header);

//! The eight lines of one GPS record (RINEX 3.04 Table A6), angles in radians.
void write_rinex_gps_ephemeris(std::ostream& out, const gnss_rinex_gps_ephemeris& record);

void write_rinex_gps_navigation_file(
    std::ostream& out,
    const gnss_rinex_navigation_header& header,
    const std::vector<gnss_rinex_gps_ephemeris>& records);
void write_rinex_gps_navigation_file(
    const std::string& path,
    const gnss_rinex_navigation_header& header,
    const std::vector<gnss_rinex_gps_ephemeris>& records);

//! The parts of a long file name that say who recorded it (RINEX 3.04 section 4).
struct gnss_rinex_site {
    std::string station = "GRCD"; //!< 4 characters
    int monument = 0;             //!< 0..9
    int receiver = 0;             //!< 0..9
    std::string country = "XXX";  //!< ISO 3166-1 alpha-3, XXX unknown
    char data_source = 'R';       //!< R receiver, S stream, U unknown
};

/*!
 * \brief "SSSSMRCCC_R_YYYYDDDHHMM_PPP_FFF_GO.rnx": start = the first epoch's GPS
 * time (never the machine's clock), PPP the span of the data rounded up (NNM minutes
 * under an hour, NNH hours under a day, NND days), FFF the interval (NNS seconds, NNZ
 * hertz under a second, 00U when neither is whole), GO / EO / MO by the systems.
 * Throws std::invalid_argument for a site field outside its form.
 */
std::string rinex_observation_file_name(const gnss_rinex_site& site,
                                        const gps_time& first_epoch,
                                        double span_s,
                                        int interval_ms,
                                        const std::vector<gnss_system>& systems);

//! "SSSSMRCCC_R_YYYYDDDHHMM_PPP_GN.rnx", the same fields without the interval.
std::string rinex_gps_navigation_file_name(const gnss_rinex_site& site,
                                           const gps_time& first_epoch,
                                           double span_s);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_RINEX_H */
