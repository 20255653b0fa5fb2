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
 * \brief GNSS telemetry decoder for GPS L1 C/A and Galileo E1-B: the multichannel
 * correlator's records in, per channel the navigation message decoded (GPS: bit
 * synchronisation and LNAV; Galileo: I/NAV pages), each record's transmit time and the
 * decoded navigation data out as messages. The name keeps "gps" from when GPS was the
 * only system.
 * \ingroup cudadsp
 *
 * \details
 * Inputs: the correlator's two record streams (0 "taps": \p taps gr_complex, 1
 * "state": the 17 float64 fields of gnss_state_field). Every record of a GPS L1 C/A
 * channel or a Galileo E1-B (data) channel goes to the channel's navigation channel
 * (the engine's core::gps_navigation_decoder: GPS bit sync on the prompt, LNAV words
 * with parity and the subframe time mark; Galileo one I/NAV symbol a 4-ms record,
 * Viterbi, CRC-24Q and the GST page time mark); the channel's system and PRN come from
 * the record, and a channel id that changes either starts afresh. Records of other
 * systems (the Galileo E1-C pilot, which carries no data; GLONASS; explicit codes) are
 * ignored.
 *
 * Output port "navigation" carries, in order, dicts with a "type":
 *  - "states": the channels' states whose transmit time is known (for the observables
 *    block), "states" a float64 vector of rows (docs/blocks/gps_telemetry_decoder.md),
 *    and "complete_through_sample": every channel's records up to that sample are in;
 *  - "subframe" (GPS): prn, channel, subframe_id, tow_count, page, words (ten u32 of
 *    24 data bits), parity_failures and discarded_subframes of the channel so far;
 *  - "ephemeris" (GPS): a new broadcast ephemeris (IODE and IODC matched), its fields;
 *  - "iono_utc" (GPS): subframe 4 page 18's Klobuchar and UTC parameters;
 *  - "page" (Galileo): prn, channel, word_type, word (16 u8, the 128 bits, first bit
 *    the first byte's most significant), crc_failures of the channel so far;
 *  - "galileo_ephemeris": prn and a new ephemeris (words 1 to 4 of one IODnav);
 *  - "galileo_iono_health": prn and its word 5 (E1-B/E5b health and data validity,
 *    group delays, NeQuick-G parameters, GST).
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
     * \param bit_sync_ms GPS: prompts gathered before the bit edge is decided (>= 20).
     */
    static sptr make(int taps = 3, int prompt_tap = 1, int bit_sync_ms = 500);

    //! LNAV words whose parity failed, over every GPS channel so far (never used).
    virtual std::uint64_t parity_failures() const = 0;
    //! GPS subframes decoded with every word's parity good, over every channel.
    virtual std::uint64_t subframes() const = 0;
    //! Galileo I/NAV pages whose CRC-24Q failed, over every channel (never used).
    virtual std::uint64_t crc_failures() const = 0;
    //! Galileo I/NAV pages decoded with their CRC good, over every channel.
    virtual std::uint64_t pages() const = 0;
    //! Ephemerides decoded, over every channel of both systems.
    virtual std::uint64_t ephemerides() const = 0;
    //! Where each channel is ("G05: bit synchronisation; E11: page synchronisation;
    //! G12: time known; ...").
    virtual std::string channel_stages() const = 0;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_GPS_TELEMETRY_DECODER_H */
