/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The last stage of the GPS receiver (gps_receiver): the latest broadcast ephemeris per
// PRN and ionosphere/UTC page, and at each observation epoch the satellites' positions
// and clocks at transmission from them, the satellites that cannot be used (and why),
// and gnss_solve_pvt. The GNU Radio PVT block runs it alone.
// docs/design/gps_receiver.md.

#ifndef INCLUDED_CUDADSP_CORE_GPS_FIX_SOLVER_H
#define INCLUDED_CUDADSP_CORE_GPS_FIX_SOLVER_H

#include "gnss/gnss_observables.h"
#include "gnss/gnss_pvt.h"
#include "gnss/gps_ephemeris.h"
#include "gnss/gps_lnav.h"
#include <gnuradio/cudadsp/core/api.h>
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

struct gps_fix_solver_config {
    //! Elevation mask, atmosphere models, weights, RAIM. Its klobuchar coefficients and
    //! gps_time_s are the solver's to set: the broadcast ones and each epoch's time.
    gnss_pvt_config pvt;
    /*! Ionosphere and UTC parameters known before subframe 4 page 18 arrives (it comes
     *  once every 12.5 min): from a navigation file or an earlier run. Without them,
     *  fixes until that page are made without the ionosphere and say so. */
    bool has_iono_utc = false;
    gps_iono_utc iono_utc;
};

//! An observed satellite not given to the solver, and why.
struct gps_receiver_exclusion {
    int prn = 0;
    std::string reason;
};

//! One observation epoch and what the receiver made of it.
struct gps_receiver_epoch {
    gnss_observation_epoch observations;
    std::vector<gps_receiver_exclusion> excluded; //!< no ephemeris, unhealthy, too old
    //! The Klobuchar correction was applied (configured, and its parameters known).
    bool ionosphere_applied = false;
    //! valid = false with the reason when there is no fix; its satellites are the ones
    //! given to the solver, in the order of the observations.
    gnss_pvt_result fix;
    //! GPS time of week of the fix: the receiver time less the solved clock bias; NaN
    //! without a fix.
    double gps_time_of_week_s = 0.0;
};

/*!
 * \brief Broadcast navigation data and observation epochs in, fixes out.
 *
 * An ephemeris or iono/UTC page serves every epoch solved after it is taken; the
 * newest replaces the older one (the decoder has already refused a set whose IODs
 * disagree). At each epoch the satellites with an ephemeris, health 0 and a time within
 * the ephemeris's fit interval go to gnss_solve_pvt; the others are listed with the
 * reason. Host only.
 */
class CUDADSP_CORE_API gps_fix_solver
{
public:
    explicit gps_fix_solver(const gps_fix_solver_config& config);

    //! Takes \p ephemeris (its prn says whose) in place of the PRN's earlier one.
    void take_ephemeris(const gps_ephemeris& ephemeris);
    void take_iono_utc(const gps_iono_utc& iono_utc);

    gps_receiver_epoch solve(gnss_observation_epoch observations) const;

    //! The latest ephemeris per PRN.
    const std::map<int, gps_ephemeris>& ephemerides() const { return d_ephemerides; }
    bool has_iono_utc() const { return d_has_iono_utc; }
    const gps_iono_utc& iono_utc() const { return d_iono_utc; }

private:
    gnss_pvt_config d_pvt;
    std::map<int, gps_ephemeris> d_ephemerides;
    bool d_has_iono_utc;
    gps_iono_utc d_iono_utc;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GPS_FIX_SOLVER_H */
