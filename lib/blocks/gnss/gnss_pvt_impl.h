/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_GNSS_PVT_IMPL_H
#define INCLUDED_CUDADSP_GNSS_PVT_IMPL_H

#include "gnss/gnss_rinex.h"
#include "gnss/gps_fix_solver.h"
#include <gnuradio/cudadsp/gnss_pvt.h>
#include <map>
#include <mutex>
#include <utility>

namespace gr {
namespace cudadsp {

class gnss_pvt_impl : public gnss_pvt
{
public:
    gnss_pvt_impl(const std::string& output_folder,
                  double elevation_mask_deg,
                  bool ionosphere,
                  bool troposphere,
                  const std::vector<double>& klobuchar,
                  int reference_week);

    std::uint64_t epochs() const override;
    std::uint64_t fixes() const override;
    std::vector<std::string> output_files() const override;
    bool stop() override;

private:
    void handle_observables(const pmt::pmt_t& message);
    //! Takes a navigation data message into the solver; false for another type.
    bool take_navigation(const std::string& type, const pmt::pmt_t& message);
    /*! The continuous GPS week of the signal: the first GPS ephemeris's, resolved;
     *  without one, the first Galileo word 5's GST week (GPS week - 1024), resolved. */
    int week() const;
    //! GPS - UTC: the broadcast GPS page's, else Galileo word 6's, else 18 (since
    //! 2017-01-01), as cudadsp.gnss.receive.
    int leap_seconds() const;
    pmt::pmt_t fix_message(const core::gps_receiver_epoch& e) const;
    void write_outputs();
    //! The RINEX navigation file (GPS, Galileo or mixed by the records): its path.
    std::string write_navigation_file(const core::gnss_rinex_site& site,
                                      const core::gps_time& first_time,
                                      double span_s,
                                      const core::gnss_calendar_time& created);

    const std::string d_output_folder;
    const bool d_iono_given;
    const int d_reference_week;
    const pmt::pmt_t d_fix_port;
    mutable std::mutex d_mutex; //!< everything below: the handler's, stop()'s, getters'
    core::gps_fix_solver d_solver;
    bool d_iono_broadcast = false;
    bool d_have_week = false;
    int d_first_ephemeris_week = 0; //!< 10 bits
    bool d_have_gst_week = false;
    int d_first_gst_week = 0; //!< 12 bits
    //! The latest Galileo word 6 (GST-UTC, leap seconds) of any satellite.
    bool d_have_galileo_gst_utc = false;
    core::galileo_gst_utc d_galileo_gst_utc;
    //! The latest ephemeris per PRN and the receiver time (s of week) of the first
    //! epoch solved with it (NaN until then): its RINEX transmission time.
    std::map<int, std::pair<core::gps_ephemeris, double>> d_navigation;
    //! The same for Galileo.
    std::map<int, std::pair<core::galileo_ephemeris, double>> d_galileo_navigation;
    std::vector<core::gps_receiver_epoch> d_epochs; //!< kept for the files
    std::uint64_t d_epoch_count = 0;
    std::uint64_t d_fix_count = 0;
    std::vector<std::string> d_outputs;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_GNSS_PVT_IMPL_H */
