/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One GPS L1 C/A channel's navigation data joined to its tracking: the 1-ms correlator
// records of the channel in, bit synchronisation on their prompts, the LNAV decoder on
// the bits, and the time mark that ties a decoded subframe to the tracking epoch at
// which it started. From the mark on, every record's state says when its signal left
// the satellite (gnss_channel_epoch, for gnss_observables). Timing conventions and the
// checks: docs/design/gps_receiver.md.

#ifndef INCLUDED_CUDADSP_CORE_GPS_NAVIGATION_CHANNEL_H
#define INCLUDED_CUDADSP_CORE_GPS_NAVIGATION_CHANNEL_H

#include "gnss/gnss_observables.h"
#include "gnss/gps_lnav.h"
#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

struct gps_navigation_channel_config {
    //! Prompts gathered before the bit edge is decided: at least 20 (one bit); more
    //! bit transitions make the histogram's vote safer.
    int bit_sync_ms = 500;
    //! The winning phase's share of all sign changes needed to accept the edge, in
    //! (0, 1]; below it the search goes on with more prompts.
    double bit_sync_min_share = 0.6;
    //! Fewest sign changes at the winning phase (bit transitions seen), >= 1.
    int bit_sync_min_changes = 5;

    //! Throws std::invalid_argument naming the field.
    void validate() const;
};

//! Where a channel is on the way to stating transmit times.
enum class gps_navigation_stage {
    bit_sync,         //!< gathering prompts for the bit edge
    subframe_sync,    //!< bits flow, no subframe decoded yet
    time_unconfirmed, //!< one subframe's time mark, not yet confirmed by the next
    time_known,       //!< transmit times stated for each record
};

//! "bit synchronisation", "subframe synchronisation", ...
CUDADSP_CORE_API const char* to_string(gps_navigation_stage stage);


//! The channel's counters beyond the decoder's (which it also reports).
struct gps_navigation_counters {
    std::uint64_t records = 0;
    //! Subframes whose HOW disagreed with the code periods counted since the previous
    //! subframe start: refused as a time mark until the next subframe confirms them.
    std::uint64_t how_contradictions = 0;
    //! Records whose epoch number did not follow the previous one (the correlator
    //! restarted the channel): bit sync, decoder and time mark start afresh.
    std::uint64_t restarts = 0;
};

/*!
 * \brief The navigation side of one GPS L1 C/A tracking channel with 1-ms epochs.
 *
 * Feed the channel's records in time order with their prompt correlations. The bit edge
 * comes from the sign changes of the prompts (gps_bit_sync) once enough are gathered;
 * the gathered prompts then become bits too, so a preamble that arrived during the
 * search is not lost. The bits go to gps_lnav_decoder inverted: logic 1 is sent as -1
 * (IS-GPS-200 Table 3-III), so that the decoder's polarity is the carrier's (+1: the
 * Costas loop sits on the signal's phase, -1: half a cycle off).
 *
 * Time mark: a decoded subframe started at the first code period of its first bit; with
 * its HOW (TOW count x 6 s of the next subframe) it fixes the transmit time of every
 * later record. Each later subframe must start exactly 1000 code periods a second
 * later than the HOW times say; one that does not is counted and replaces the mark
 * unconfirmed. Transmit times are stated only while the mark is confirmed by two
 * consecutive subframes, and only for records in code lock.
 */
class CUDADSP_CORE_API gps_navigation_channel
{
public:
    //! Throws std::invalid_argument for a PRN outside 1..32 or an invalid config.
    gps_navigation_channel(int prn, const gps_navigation_channel_config& config = {});

    /*!
     * Takes one record of this channel (periods_per_integration 1) and its prompt.
     * Returns true and fills \p state when the record's transmit time is known: the
     * state at the sample after the epoch, start_sample + sample_count.
     */
    bool push(const gnss_epoch_record& record,
              std::complex<float> prompt,
              gnss_channel_epoch& state);

    int prn() const { return d_prn; }
    gps_navigation_stage stage() const;
    //! The decoder since the last restart: its ephemeris, iono/UTC page, polarity.
    const gps_lnav_decoder& decoder() const { return d_decoder; }
    //! The decoder's counters summed over restarts.
    gps_lnav_counters lnav_counters() const;
    const gps_navigation_counters& counters() const { return d_counters; }
    //! Phase (0..19, in the channel's epoch numbers mod 20) of the bit edge; -1 before.
    int bit_edge() const { return d_bit_edge; }

private:
    void restart();
    void try_bit_sync();
    void add_prompt(double prompt_i, std::uint64_t epoch);
    void take_subframe(std::uint64_t first_epoch);

    int d_prn;
    gps_navigation_channel_config d_config;
    gps_lnav_decoder d_decoder;
    gps_lnav_counters d_past_lnav_counters; //!< of the decoders before the last restart
    gps_navigation_counters d_counters;
    gnss_epoch_sequence d_epochs;
    //! Bit search: in-phase prompts from epoch d_first_epoch on.
    std::vector<double> d_prompts;
    std::uint64_t d_first_epoch = 0;
    int d_bit_edge = -1;
    //! The bit being summed: its in-phase sum so far, its length and first epoch.
    double d_bit_sum = 0.0;
    int d_bit_ms = 0;
    std::uint64_t d_bit_first_epoch = 0;
    //! The mark: the subframe that started at epoch d_mark_epoch was sent from
    //! d_mark_tow_s (satellite time of week).
    bool d_have_mark = false;
    bool d_mark_confirmed = false;
    int d_mark_tow_s = 0;
    std::uint64_t d_mark_epoch = 0;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GPS_NAVIGATION_CHANNEL_H */
