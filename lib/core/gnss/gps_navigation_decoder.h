/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The first stage of the GPS + Galileo receiver (gps_receiver): the navigation channels
// of all tracking channels, one per channel id: a gps_navigation_channel for a GPS L1
// C/A channel, a galileo_navigation_channel for a Galileo E1-B channel. A record in
// gives the channel's state for the observables once its transmit time is known, and
// the navigation data the record completed (a GPS subframe, ephemeris or
// ionosphere/UTC page; a Galileo page, ephemeris, word 5: health, group delays, or word
// 6: GST-UTC). The GNU Radio telemetry decoder block runs it alone (both systems);
// gps_receiver chains it with gnss_observables and gps_fix_solver.
// docs/design/gps_receiver.md.

#ifndef INCLUDED_CUDADSP_CORE_GPS_NAVIGATION_DECODER_H
#define INCLUDED_CUDADSP_CORE_GPS_NAVIGATION_DECODER_H

#include "gnss/galileo_navigation_channel.h"
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
    gnss_system system = gnss_system::gps;
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
    //! A Galileo channel's record completed a page whose CRC passed (the channel's
    //! decoder holds its word: last_word_type(), last_word()) ...
    bool has_galileo_page = false;
    //! ... which completed an ephemeris (words 1 to 4 of one IODnav), or was a word 5
    //! (health, data validity, group delays, ionosphere, GST) or a word 6 (GST-UTC,
    //! leap seconds).
    bool has_galileo_ephemeris = false;
    galileo_ephemeris galileo_ephemeris_data;
    bool has_galileo_iono_health = false;
    galileo_iono_health galileo_iono_health_data;
    bool has_galileo_gst_utc = false;
    galileo_gst_utc galileo_gst_utc_data;
};

class CUDADSP_CORE_API gps_navigation_decoder
{
public:
    //! Throws std::invalid_argument naming the field of an invalid configuration.
    explicit gps_navigation_decoder(const gps_navigation_channel_config& config = {});

    /*! Gives channel \p channel_id to \p prn of \p system (GPS 1..32, Galileo 1..50)
     *  with a fresh navigation channel (bit or page sync and time anew), replacing what
     *  the id had, of either system. A Galileo channel takes the E1-B code's 4-ms
     *  records. Throws std::invalid_argument for a PRN outside the system's range. */
    void assign_channel(std::uint32_t channel_id, gnss_system system, int prn);
    //! A GPS channel: assign_channel(channel_id, gnss_system::gps, prn).
    void assign_channel(std::uint32_t channel_id, int prn)
    {
        assign_channel(channel_id, gnss_system::gps, prn);
    }
    //! Forgets the channel. No-op for an unknown id.
    void release_channel(std::uint32_t channel_id);

    /*! Takes one record of an assigned channel and its prompt tap's value, in the
     *  channel's time order. Throws std::invalid_argument for an unassigned id. */
    gps_navigation_update push(const gnss_epoch_record& record,
                               std::complex<float> prompt);

    //! Whether \p channel_id has a channel of either system.
    bool has_channel(std::uint32_t channel_id) const;
    //! The GPS navigation channel of \p channel_id, or nullptr.
    const gps_navigation_channel* channel(std::uint32_t channel_id) const;
    //! The Galileo navigation channel of \p channel_id, or nullptr.
    const galileo_navigation_channel* galileo_channel(std::uint32_t channel_id) const;
    //! GPS channel ids and their navigation channels, by id.
    const std::map<std::uint32_t, gps_navigation_channel>& channels() const
    {
        return d_channels;
    }
    //! Galileo channel ids and their navigation channels, by id.
    const std::map<std::uint32_t, galileo_navigation_channel>& galileo_channels() const
    {
        return d_galileo_channels;
    }
    //! Where each channel is ("G05: bit synchronisation; E11: page synchronisation"),
    //! GPS channels first; "no channel assigned".
    std::string stages() const;

private:
    gps_navigation_update push_galileo(galileo_navigation_channel& navigation,
                                       const gnss_epoch_record& record,
                                       std::complex<float> prompt);

    gps_navigation_channel_config d_config;
    std::map<std::uint32_t, gps_navigation_channel> d_channels;
    std::map<std::uint32_t, galileo_navigation_channel> d_galileo_channels;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GPS_NAVIGATION_DECODER_H */
