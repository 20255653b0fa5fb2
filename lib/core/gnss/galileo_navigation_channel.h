/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One Galileo E1 channel's navigation data joined to its tracking: the 4-ms correlator
// records of a channel on the E1-B (data) code in, one I/NAV symbol per record into the
// decoder (galileo_inav.h), and the time mark that ties a page stating the GST to the
// tracking epoch at which its even part started. From a confirmed mark on, every
// record's state says when its signal left the satellite (gnss_channel_epoch, for
// gnss_observables). The Galileo counterpart of gps_navigation_channel;
// docs/design/galileo_inav.md has the timing conventions and the checks.

#ifndef INCLUDED_CUDADSP_CORE_GALILEO_NAVIGATION_CHANNEL_H
#define INCLUDED_CUDADSP_CORE_GALILEO_NAVIGATION_CHANNEL_H

#include "gnss/galileo_inav.h"
#include "gnss/gnss_observables.h"
#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <complex>
#include <cstdint>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

//! Where a channel is on the way to stating transmit times.
enum class galileo_navigation_stage {
    page_sync,        //!< no page decoded yet
    gst_search,       //!< pages decode, none has stated the GST yet
    time_unconfirmed, //!< one GST page's time mark, not yet confirmed by the next
    time_known,       //!< transmit times stated for each record
};

//! "page synchronisation", "waiting for a page with the GST", ...
CUDADSP_CORE_API const char* to_string(galileo_navigation_stage stage);


//! The channel's counters beyond the decoder's (which it also reports).
struct galileo_navigation_counters {
    std::uint64_t records = 0;
    //! GST pages whose time disagreed with the code periods counted since the previous
    //! GST page: refused as a time mark until the next GST page confirms them.
    std::uint64_t gst_contradictions = 0;
    //! Records whose epoch number did not follow the previous one (the correlator
    //! restarted the channel, or records were lost): the decoder and the time mark
    //! start afresh.
    std::uint64_t restarts = 0;
};

/*!
 * \brief The navigation side of one Galileo E1 tracking channel on the E1-B code.
 *
 * Feed the channel's records (one per 4-ms code period, periods_per_integration 1) in
 * time order with their prompt correlations. E1-B carries one I/NAV symbol per code
 * period, so each record's in-phase prompt is one soft symbol (no bit synchronisation);
 * it goes to the decoder negated, since logic 1 is sent as -1, so that the decoder's
 * polarity is the carrier's (+1: the Costas loop sits on the signal's phase, -1: half
 * a cycle off). A record with invalid sums gives an erasure.
 *
 * Time mark: a page stating the GST (word 5, or word 0 with its time field valid)
 * states the GST at the start of its even part (a whole second), the first code period
 * of the part's synchronisation pattern; with it every later record's transmit time is
 * that GST + whole code periods since x 4 ms + the code phase. Each later GST page must
 * start exactly 250 code periods a second later than the GSTs say; one that does not
 * is counted and replaces the mark unconfirmed. Transmit times are stated only while
 * the mark is confirmed by two consecutive GST pages, and only for records in code
 * lock. A page whose CRC failed never reaches the mark.
 */
class CUDADSP_CORE_API galileo_navigation_channel
{
public:
    //! Throws std::invalid_argument for a PRN outside 1..50.
    explicit galileo_navigation_channel(int prn);

    /*!
     * Takes one record of this channel and its prompt. Returns true and fills \p state
     * when the record's transmit time is known: the state at the sample after the
     * epoch, start_sample + sample_count. subframe_start_tow_s is then the GST time of
     * week at the start of the marked page, code_periods_since_subframe_start the 4-ms
     * periods since.
     */
    bool push(const gnss_epoch_record& record,
              std::complex<float> prompt,
              gnss_channel_epoch& state);

    int prn() const { return d_prn; }
    galileo_navigation_stage stage() const;
    //! The decoder since the last restart: its ephemeris, iono/health, GST, polarity.
    const galileo_inav_decoder& decoder() const { return d_decoder; }
    //! The decoder's counters summed over restarts.
    galileo_inav_counters inav_counters() const;
    const galileo_navigation_counters& counters() const { return d_counters; }
    //! The GST week number of the mark (12 bits); meaningful from time_unconfirmed on.
    int mark_week() const { return d_mark_wn; }

private:
    void restart();
    void take_gst_page(std::uint64_t first_epoch);

    int d_prn;
    galileo_inav_decoder d_decoder;
    galileo_inav_counters
        d_past_inav_counters; //!< of the decoders before the last restart
    galileo_navigation_counters d_counters;
    gnss_epoch_sequence d_epochs;
    //! The mark: the page whose even part started at epoch d_mark_epoch was sent from
    //! GST week d_mark_wn, time of week d_mark_tow_s.
    bool d_have_mark = false;
    bool d_mark_confirmed = false;
    int d_mark_wn = 0;
    int d_mark_tow_s = 0;
    std::uint64_t d_mark_epoch = 0;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GALILEO_NAVIGATION_CHANNEL_H */
