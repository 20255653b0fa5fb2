/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_GPS_TELEMETRY_DECODER_H
#define INCLUDED_CUDADSP_GPS_TELEMETRY_DECODER_H

#include <gnuradio/cudadsp/api.h>
#include <gnuradio/sync_block.h>
#include <cstdint>
#include <string>

namespace gr {
namespace cudadsp {

/*!
 * \brief GPS L1 C/A telemetry decoder: the multichannel correlator's records in, per
 * channel bit synchronisation and LNAV decoding, each record's transmit time and the
 * decoded navigation data out as messages.
 * \ingroup cudadsp
 *
 * \details
 * Inputs: the correlator's two record streams (0 "taps": \p taps gr_complex, 1
 * "state": the 17 float64 fields of gnss_state_field). Every record of a GPS L1 C/A
 * channel goes to the channel's navigation channel (the engine's
 * core::gps_navigation_decoder: bit sync on the prompt, LNAV words with parity, the
 * subframe time mark); the channel's PRN comes from the record, and a channel id that
 * changes PRN starts afresh. Records of other systems are ignored.
 *
 * Output port "navigation" carries, in order, dicts with a "type":
 *  - "states": the channels' states whose transmit time is known (for the observables
 *    block), "states" a float64 vector of rows (docs/blocks/gps_telemetry_decoder.md),
 *    and "complete_through_sample": every channel's records up to that sample are in;
 *  - "subframe": prn, channel, subframe_id, tow_count, page, words (ten u32 of 24
 *    data bits), parity_failures and discarded_subframes of the channel so far;
 *  - "ephemeris": a new broadcast ephemeris (IODE and IODC matched), its fields;
 *  - "iono_utc": subframe 4 page 18's Klobuchar and UTC parameters.
 * Navigation data goes out after the states of the records before the one that
 * completed it, so the epochs formed downstream see it exactly from then on.
 */
class CUDADSP_API gps_telemetry_decoder : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<gps_telemetry_decoder> sptr;

    /*!
     * \param taps taps per record (the correlator's tap count, 1 to 64).
     * \param prompt_tap index of the prompt tap (below \p taps).
     * \param bit_sync_ms prompts gathered before the bit edge is decided (>= 20).
     */
    static sptr make(int taps = 3, int prompt_tap = 1, int bit_sync_ms = 500);

    //! LNAV words whose parity failed, over every channel so far (never used).
    virtual std::uint64_t parity_failures() const = 0;
    //! Subframes decoded with every word's parity good, over every channel.
    virtual std::uint64_t subframes() const = 0;
    //! Ephemerides decoded, over every channel.
    virtual std::uint64_t ephemerides() const = 0;
    //! Where each channel is ("G05: bit synchronisation; G12: time known; ...").
    virtual std::string channel_stages() const = 0;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_GPS_TELEMETRY_DECODER_H */
