/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The host side of a GPS L1 C/A + Galileo E1 receiver, from the multichannel
// correlator's records to position fixes, in three stages: gps_navigation_decoder (a
// gps_navigation_channel or galileo_navigation_channel per tracking channel),
// gnss_observables (common epochs of both systems) and gps_fix_solver (the latest
// broadcast ephemerides, Galileo health words and GPS ionosphere/UTC parameters,
// gnss_solve_pvt at each epoch with one receiver clock per system). The names keep
// "gps" from when GPS was the only system. The GNU Radio blocks run the stages one a
// block (both systems). The correlator (CPU or GPU) stays the caller's. The pipeline,
// its timing conventions and what the tests check: docs/design/gps_receiver.md.

#ifndef INCLUDED_CUDADSP_CORE_GPS_RECEIVER_H
#define INCLUDED_CUDADSP_CORE_GPS_RECEIVER_H

#include "gnss/gnss_observables.h"
#include "gnss/gnss_pvt.h"
#include "gnss/gps_ephemeris.h"
#include "gnss/gps_fix_solver.h"
#include "gnss/gps_lnav.h"
#include "gnss/gps_navigation_channel.h"
#include "gnss/gps_navigation_decoder.h"
#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

struct gps_receiver_config {
    //! The correlator's sample rate, epochs (1 Hz by default) and clock convention.
    gnss_observables_config observables;
    gps_navigation_channel_config navigation;
    //! Elevation mask, atmosphere models, weights, RAIM. Its klobuchar coefficients and
    //! gps_time_s are the receiver's to set: the broadcast ones and each epoch's time.
    gnss_pvt_config pvt;
    //! The correlator channels' prompt tap (gnss_channel::prompt_tap).
    std::size_t prompt_tap = 1;
    /*! Ionosphere and UTC parameters known before subframe 4 page 18 arrives (it comes
     *  once every 12.5 min): from a navigation file or an earlier run. Without them,
     *  fixes until that page are made without the ionosphere and say so. */
    bool has_iono_utc = false;
    gps_iono_utc iono_utc;

    //! Throws std::invalid_argument naming the field.
    void validate() const;
};

/*!
 * \brief Correlator records in, observation epochs and fixes out.
 *
 * Each tracking channel is assigned a system and PRN; its records (GPS: 1-ms epochs of
 * the C/A code; Galileo: 4-ms epochs of the E1-B code, one I/NAV symbol each; 3 or more
 * taps with the prompt at config.prompt_tap) go to that satellite's navigation channel
 * in time order across channels. Galileo channels state GST transmit times; the
 * observables' receiver time and the fixes' time stay GPS time, and the solver's
 * Galileo clock absorbs the GST-GPS offset (GGTO) in the inter-system bias
 * (fix.inter_system_bias_s = -GGTO, GGTO = GST - GPS time). An ephemeris or iono/UTC page
 * serves from the first epoch formed after the record that completed it; the newest
 * replaces the older one (the decoder has already refused a set whose IODs disagree). At
 * each epoch the satellites with a transmit time, an ephemeris, health 0 and a time
 * within the ephemeris's fit interval go to gnss_solve_pvt; the others are listed with
 * the reason. Host only.
 */
class CUDADSP_CORE_API gps_receiver
{
public:
    explicit gps_receiver(const gps_receiver_config& config);

    /*! Gives tracking channel \p channel_id to \p prn of \p system (GPS 1..32,
     *  Galileo 1..50) with a fresh navigation channel (bit or page sync and time
     *  anew), replacing what the id had. */
    void assign_channel(std::uint32_t channel_id, gnss_system system, int prn);
    //! A GPS channel: assign_channel(channel_id, gnss_system::gps, prn).
    void assign_channel(std::uint32_t channel_id, int prn)
    {
        assign_channel(channel_id, gnss_system::gps, prn);
    }
    //! Forgets the channel; its PRN's ephemeris stays. No-op for an unknown id.
    void release_channel(std::uint32_t channel_id);

    /*!
     * Takes one process() call's \p results and \p complete_through_sample, the
     * correlator's samples_processed() after it. Returns the epochs completed, in time
     * order. Throws std::invalid_argument for a record of an unassigned channel or
     * results with too few taps for the prompt.
     */
    std::vector<gps_receiver_epoch> process(const gnss_correlator_results& results,
                                            std::uint64_t complete_through_sample);

    //! The GPS navigation channel of \p channel_id, or nullptr.
    const gps_navigation_channel* channel(std::uint32_t channel_id) const;
    //! The Galileo navigation channel of \p channel_id, or nullptr.
    const galileo_navigation_channel* galileo_channel(std::uint32_t channel_id) const
    {
        return d_decoder.galileo_channel(channel_id);
    }
    //! The latest GPS ephemeris per PRN.
    const std::map<int, gps_ephemeris>& ephemerides() const
    {
        return d_solver.ephemerides();
    }
    //! The latest Galileo ephemeris per PRN.
    const std::map<int, galileo_ephemeris>& galileo_ephemerides() const
    {
        return d_solver.galileo_ephemerides();
    }
    //! The latest Galileo word 5 (health, validity, group delays, GST) per PRN.
    const std::map<int, galileo_iono_health>& galileo_iono_health_words() const
    {
        return d_solver.galileo_iono_health_words();
    }
    //! The latest Galileo word 6 (GST-UTC, leap seconds) of any satellite.
    bool has_galileo_gst_utc() const { return d_has_galileo_gst_utc; }
    const galileo_gst_utc& galileo_gst_utc_word() const { return d_galileo_gst_utc; }
    bool has_iono_utc() const { return d_solver.has_iono_utc(); }
    const gps_iono_utc& iono_utc() const { return d_solver.iono_utc(); }
    //! Before the first epoch: what each channel waits for ("G05: bit
    //! synchronisation; E11: page synchronisation; ..."); "" once epochs have been
    //! formed.
    std::string waiting_for() const;

private:
    gps_receiver_config d_config;
    gps_navigation_decoder d_decoder;
    gnss_observables d_observables;
    gps_fix_solver d_solver;
    bool d_has_galileo_gst_utc = false;
    galileo_gst_utc d_galileo_gst_utc;
    bool d_epochs_formed = false;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GPS_RECEIVER_H */
