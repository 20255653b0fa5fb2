/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_GNSS_PVT_H
#define INCLUDED_CUDADSP_GNSS_PVT_H

#include <gnuradio/block.h>
#include <gnuradio/cudadsp/api.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {

/*!
 * \brief GNSS position, velocity and time: observables in, a fix per epoch out, and
 * RINEX 3.04 observation and navigation files, NMEA and a GeoJSON track.
 * \ingroup cudadsp
 *
 * \details
 * Input port "observables": the gnss_observables block's messages, GPS L1 C/A and
 * Galileo E1 satellites alike. Each epoch is solved by the engine's
 * core::gps_fix_solver with the latest broadcast ephemerides (GPS LNAV; Galileo I/NAV
 * with its word 5) and one receiver clock per system present (weighted least squares,
 * elevation mask, Klobuchar ionosphere and Saastamoinen troposphere each switchable,
 * RAIM); a satellite without an ephemeris, unhealthy (GPS SV health; Galileo E1-B HS,
 * DVS or SISA "no accuracy prediction") or outside its ephemeris's validity is
 * excluded, with the reason. Output port "fix": one dict per epoch (valid or not, the
 * reason when not): valid, reason, latitude_deg, longitude_deg, height_m, ecef_m,
 * velocity_m_s, satellites_used, satellites (the ids used: "G05", "E11"), excluded
 * (the ids excluded) and excluded_reasons (each one's reason, in that order), gdop,
 * pdop, hdop, vdop, tdop, inter_system_bias_s (Galileo - GPS receiver clock, NaN
 * unless both are used), ionosphere_applied, gps_week, gps_time_of_week_s (GST with
 * Galileo alone), utc, receiver_time_s, sample_index (docs/blocks/gnss_pvt.md).
 *
 * With an \p output_folder, stop() writes there the RINEX 3.04 observation and
 * navigation files (GPS, Galileo or mixed; long names from the signal's time),
 * fixes.nmea (GGA, RMC, GSA, GSV per epoch; talker GN when Galileo is used) and
 * track.geojson, once a fix has been made.
 */
class CUDADSP_API gnss_pvt : virtual public gr::block
{
public:
    typedef std::shared_ptr<gnss_pvt> sptr;

    /*!
     * \param output_folder where stop() writes the files; "" writes none.
     * \param elevation_mask_deg satellites below are not used (0 to 90).
     * \param ionosphere apply the broadcast Klobuchar model (once its page is decoded
     * or \p klobuchar is given).
     * \param troposphere apply the Saastamoinen model.
     * \param klobuchar the Klobuchar alpha0..3 and beta0..3 known before subframe 4
     * page 18 arrives (it comes every 12.5 min): 8 values, or none to wait for it.
     * \param reference_week a GPS week near the signal's, which resolves the GPS
     * message's 10-bit week (Galileo alone: the 12-bit GST week); 0: the machine
     * clock's.
     */
    static sptr make(const std::string& output_folder = "",
                     double elevation_mask_deg = 10.0,
                     bool ionosphere = true,
                     bool troposphere = true,
                     const std::vector<double>& klobuchar = {},
                     int reference_week = 0);

    //! Epochs solved so far, and those with a valid fix.
    virtual std::uint64_t epochs() const = 0;
    virtual std::uint64_t fixes() const = 0;
    //! The files stop() wrote (empty before, or without a folder or a fix).
    virtual std::vector<std::string> output_files() const = 0;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_GNSS_PVT_H */
