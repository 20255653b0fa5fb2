/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The last stage of the GPS + Galileo receiver (gps_receiver): the latest broadcast
// ephemeris per satellite (GPS LNAV, Galileo I/NAV with its word 5: health, data
// validity, group delays) and GPS ionosphere/UTC page, and at each observation epoch
// the satellites' positions and clocks at transmission from them, the satellites that
// cannot be used (and why), and gnss_solve_pvt, which estimates one receiver clock per
// system (the inter-system bias). The GNU Radio PVT block runs it alone.
// docs/design/gps_receiver.md.

#ifndef INCLUDED_CUDADSP_CORE_GPS_FIX_SOLVER_H
#define INCLUDED_CUDADSP_CORE_GPS_FIX_SOLVER_H

#include "gnss/galileo_ephemeris.h"
#include "gnss/galileo_inav.h"
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
    gnss_system system = gnss_system::gps;
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
    //! GPS time of week of the fix: the receiver time less the solved GPS clock bias;
    //! from Galileo satellites alone, less the Galileo clock bias: GST, which differs
    //! from GPS time by the GGTO (tens of ns, not broadcast in the words decoded). NaN
    //! without a fix.
    double gps_time_of_week_s = 0.0;
};

/*!
 * \brief Broadcast navigation data and observation epochs in, fixes out.
 *
 * An ephemeris, Galileo word 5 or iono/UTC page serves every epoch solved after it is
 * taken; the newest replaces the older one (the decoders have already refused a set
 * whose IODs disagree). At each epoch the satellites with an ephemeris, health 0 (a
 * Galileo satellite: word 5 with E1-B HS 0, DVS 0 and a SISA other than 255, "no
 * accuracy prediction") and a time within the ephemeris's fit interval (Galileo: 4 h
 * from t0e) go to gnss_solve_pvt; the others are listed with the reason. A Galileo
 * satellite's clock is the E1 single-frequency one (the I/NAV E1,E5b clock less
 * BGD(E1,E5b)). The GPS Klobuchar correction serves Galileo E1 too (the same frequency,
 * 1575.42 MHz); no NeQuick model is run. Host only.
 */
class CUDADSP_CORE_API gps_fix_solver
{
public:
    explicit gps_fix_solver(const gps_fix_solver_config& config);

    //! Takes \p ephemeris (its prn says whose) in place of the PRN's earlier one.
    void take_ephemeris(const gps_ephemeris& ephemeris);
    void take_iono_utc(const gps_iono_utc& iono_utc);
    //! Takes Galileo satellite \p prn's ephemeris in place of its earlier one.
    void take_galileo_ephemeris(int prn, const galileo_ephemeris& ephemeris);
    //! Takes Galileo satellite \p prn's word 5 (its health, validity and BGDs).
    void take_galileo_iono_health(int prn, const galileo_iono_health& iono_health);

    gps_receiver_epoch solve(gnss_observation_epoch observations) const;

    //! The latest ephemeris per PRN.
    const std::map<int, gps_ephemeris>& ephemerides() const { return d_ephemerides; }
    //! The latest Galileo ephemeris and word 5 per PRN.
    const std::map<int, galileo_ephemeris>& galileo_ephemerides() const
    {
        return d_galileo_ephemerides;
    }
    const std::map<int, galileo_iono_health>& galileo_iono_health_words() const
    {
        return d_galileo_iono_health;
    }
    bool has_iono_utc() const { return d_has_iono_utc; }
    const gps_iono_utc& iono_utc() const { return d_iono_utc; }

private:
    //! Fills \p input from the satellite's ephemeris, or returns why it cannot be used.
    std::string gps_input(const gnss_observation& o,
                          double receive_s,
                          gnss_pvt_observation& input) const;
    std::string galileo_input(const gnss_observation& o,
                              double receive_s,
                              gnss_pvt_observation& input) const;

    gnss_pvt_config d_pvt;
    std::map<int, gps_ephemeris> d_ephemerides;
    std::map<int, galileo_ephemeris> d_galileo_ephemerides;
    std::map<int, galileo_iono_health> d_galileo_iono_health;
    bool d_has_iono_utc;
    gps_iono_utc d_iono_utc;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GPS_FIX_SOLVER_H */
