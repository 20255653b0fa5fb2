/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The first stage of the GPS receiver (gps_receiver): the navigation channels of all
// tracking channels, one gps_navigation_channel per channel id. A record in gives the
// channel's state for the observables once its transmit time is known, and the
// navigation data the record completed (a subframe, an ephemeris, an ionosphere/UTC
// page). The GNU Radio telemetry decoder block runs it alone; gps_receiver chains it
// with gnss_observables and gps_fix_solver. docs/design/gps_receiver.md.

#ifndef INCLUDED_CUDADSP_CORE_GPS_NAVIGATION_DECODER_H
#define INCLUDED_CUDADSP_CORE_GPS_NAVIGATION_DECODER_H

#include "gnss/gnss_observables.h"
#include "gnss/gps_lnav.h"
#include "gnss/gps_navigation_channel.h"
#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <complex>
#include <cstdint>
#include <map>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

//! What one record of a channel brought.
struct gps_navigation_update {
    int prn = 0;
    //! The record's state (transmit time known), for gnss_observables.
    bool has_state = false;
    gnss_channel_epoch state;
    //! The record completed a subframe that passed every check: its TLM/HOW.
    bool has_subframe = false;
    gps_lnav_subframe_header subframe;
    //! ... which completed a new ephemeris (IODs matched) or iono/UTC page.
    bool has_ephemeris = false;
    gps_ephemeris ephemeris;
    bool has_iono_utc = false;
    gps_iono_utc iono_utc;
};

class CUDADSP_CORE_API gps_navigation_decoder
{
public:
    //! Throws std::invalid_argument naming the field of an invalid configuration.
    explicit gps_navigation_decoder(const gps_navigation_channel_config& config = {});

    /*! Gives channel \p channel_id to \p prn (1..32) with a fresh navigation channel
     *  (bit sync and time anew), replacing what the id had. */
    void assign_channel(std::uint32_t channel_id, int prn);
    //! Forgets the channel. No-op for an unknown id.
    void release_channel(std::uint32_t channel_id);

    /*! Takes one record of an assigned channel and its prompt tap's value, in the
     *  channel's time order. Throws std::invalid_argument for an unassigned id. */
    gps_navigation_update push(const gnss_epoch_record& record,
                               std::complex<float> prompt);

    //! The navigation channel of \p channel_id, or nullptr.
    const gps_navigation_channel* channel(std::uint32_t channel_id) const;
    //! Channel ids and their navigation channels, by id.
    const std::map<std::uint32_t, gps_navigation_channel>& channels() const
    {
        return d_channels;
    }
    //! Where each channel is ("G05: bit synchronisation; ..."), "no channel assigned".
    std::string stages() const;

private:
    gps_navigation_channel_config d_config;
    std::map<std::uint32_t, gps_navigation_channel> d_channels;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GPS_NAVIGATION_DECODER_H */
