/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// RINEX 3.04 observation and navigation files (IGS/RTCM RINEX WG, "RINEX The Receiver
// Independent Exchange Format Version 3.04", 2018: Tables A1 to A8) and their long file
// names (section 4). The observation file carries C1C L1C D1C S1C per GPS or Galileo
// satellite, as gnss_observables forms them; the navigation file (GPS, Galileo or
// mixed) the broadcast ephemerides, GPS LNAV (Table A6) and Galileo I/NAV (Table A8),
// with the ionosphere, system-time-to-UTC and leap-second header records. Header
// choices and names: docs/design/gnss_outputs.md.

#ifndef INCLUDED_CUDADSP_CORE_GNSS_RINEX_H
#define INCLUDED_CUDADSP_CORE_GNSS_RINEX_H

#include "gnss/galileo_ephemeris.h"
#include "gnss/galileo_inav.h"
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
    //! Systems of the observations: GPS, Galileo or both ("SYS / # / OBS TYPES" lines);
    //! none is taken as GPS, so that the header stays complete.
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
    //! Systems of the records: GPS ("G: GPS"), Galileo ("E: GALILEO") or both ("M:
    //! MIXED"), as rinex_navigation_file_name names the file.
    std::vector<gnss_system> systems = { gnss_system::gps };
    //! GPS subframe 4 page 18: "GPSA"/"GPSB", "GPUT" and the leap seconds; false: none.
    bool has_iono_utc = false;
    gps_iono_utc iono_utc;
    //! Resolves the 8-bit UTC and leap-second weeks of either system (WNt, WN_LSF,
    //! WN0t): GST weeks are GPS weeks less 1024, the same modulo 256.
    int reference_week = 0;
    //! Galileo word 5's ai0..ai2 ("GAL" ionospheric record; only those fields are read).
    bool has_galileo_iono = false;
    galileo_iono_health galileo_iono;
    //! Galileo word 6: "GAUT", and the leap seconds when the GPS page is not there.
    bool has_galileo_utc = false;
    galileo_gst_utc galileo_utc;
};

//! One satellite's ephemeris as decoded, and when its subframe 1 was sent.
struct gnss_rinex_gps_ephemeris {
    gps_ephemeris ephemeris;
    //! Continuous week of the transmission (the ephemeris's 10-bit week resolved).
    int week = 0;
    double transmission_time_s = 0.0; //!< seconds of that week (the HOW's time)
};

//! One Galileo satellite's I/NAV ephemeris (words 1 to 4) with its word 5, and when.
struct gnss_rinex_galileo_ephemeris {
    galileo_ephemeris ephemeris; //!< its svid is the PRN
    //! The satellite's word 5: BGD(E1,E5a), BGD(E1,E5b), E1-B and E5b HS and DVS.
    galileo_iono_health iono_health;
    //! Week of the transmission counted as RINEX counts Galileo weeks: continuous and
    //! aligned with GPS's (the GST week number + 1024, resolved).
    int week = 0;
    double transmission_time_s = 0.0; //!< seconds of that week (GST)
};

void write_rinex_navigation_header(std::ostream& out,
                                   const gnss_rinex_navigation_header& header);

//! The eight lines of one GPS record (RINEX 3.04 Table A6), angles in radians.
void write_rinex_gps_ephemeris(std::ostream& out, const gnss_rinex_gps_ephemeris& record);

/*!
 * \brief The eight lines of one Galileo record (RINEX 3.04 Table A8), angles in radians:
 * clock of the E5b,E1 pair that I/NAV sends (af0..af2 and Toc as broadcast, BGD not
 * applied), data sources 513 (I/NAV E1-B, clock and SISA for E5b,E1), SISA in metres
 * (OS SIS ICD 5.1.12; -1 for NAPA, index 255, and the spare indices), SV health from
 * word 5 (bit 0 E1-B DVS, bits 1-2 E1-B HS, bit 6 E5b DVS, bits 7-8 E5b HS; the E5a
 * bits 0: F/NAV is not decoded), both BGDs, the spare fields left blank.
 */
void write_rinex_galileo_ephemeris(std::ostream& out,
                                   const gnss_rinex_galileo_ephemeris& record);

//! Header, then the GPS records, then the Galileo ones.
void write_rinex_navigation_file(
    std::ostream& out,
    const gnss_rinex_navigation_header& header,
    const std::vector<gnss_rinex_gps_ephemeris>& gps_records,
    const std::vector<gnss_rinex_galileo_ephemeris>& galileo_records);
//! The same, written atomically (runtime/atomic_file.h) to \p path.
void write_rinex_navigation_file(
    const std::string& path,
    const gnss_rinex_navigation_header& header,
    const std::vector<gnss_rinex_gps_ephemeris>& gps_records,
    const std::vector<gnss_rinex_galileo_ephemeris>& galileo_records);

//! write_rinex_navigation_file with GPS records alone.
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

//! "SSSSMRCCC_R_YYYYDDDHHMM_PPP_GN.rnx" (EN, MN by the systems), the same fields
//! without the interval.
std::string rinex_navigation_file_name(const gnss_rinex_site& site,
                                       const gps_time& first_epoch,
                                       double span_s,
                                       const std::vector<gnss_system>& systems);
//! rinex_navigation_file_name of GPS alone: "..._GN.rnx".
std::string rinex_gps_navigation_file_name(const gnss_rinex_site& site,
                                           const gps_time& first_epoch,
                                           double span_s);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_RINEX_H */
