/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The GPS L1 C/A LNAV navigation message (IS-GPS-200 20.3.2 to 20.3.5): the encoder the
// simulator and the tests use, the decoder a receiver channel feeds with its 50 bit/s
// data bits, and the 20-ms bit synchronisation from 1-ms prompt correlations. One table
// of field positions serves both directions (gps_lnav.cc); docs/design/gps_navigation.md
// has the layout and the sources.

#ifndef INCLUDED_CUDADSP_CORE_GPS_LNAV_H
#define INCLUDED_CUDADSP_CORE_GPS_LNAV_H

#include "gnss/gps_ephemeris.h"
#include <gnuradio/cudadsp/core/api.h>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

constexpr int gps_lnav_word_bits = 30;
constexpr int gps_lnav_subframe_bits = 300;
constexpr unsigned gps_lnav_preamble = 0x8B;

//! Ionosphere (Klobuchar) and UTC parameters of subframe 4 page 18, ICD units.
struct gps_iono_utc {
    double alpha[4] = { 0.0, 0.0, 0.0, 0.0 }; //!< s, s/sc, s/sc^2, s/sc^3
    double beta[4] = { 0.0, 0.0, 0.0, 0.0 };  //!< s, s/sc, s/sc^2, s/sc^3
    double a0 = 0.0;                          //!< s
    double a1 = 0.0;                          //!< s/s
    double tot = 0.0;                         //!< s, UTC reference time of week
    int wnt = 0;                              //!< UTC reference week, 8 bits
    int dt_ls = 0;                            //!< s, leap seconds now
    int wn_lsf = 0;                           //!< week of the future leap second, 8 bits
    int dn = 0;                               //!< day of that week (1..7)
    int dt_lsf = 0;                           //!< s, leap seconds after it
};

//! What the encoder transmits: one satellite's ephemeris, health and the iono/UTC page.
struct gps_lnav_message {
    gps_ephemeris ephemeris; //!< its prn is not transmitted (the code says it)
    gps_iono_utc iono_utc;
    int tlm_message = 0; //!< 14 bits
    int integrity_status_flag = 0;
    int alert_flag = 0;
    int anti_spoof_flag = 0;
};

/*!
 * \brief The bits of whole subframes from GPS time of week \p start_tow_s (a multiple
 * of 6 s, the start of the first subframe) for \p n_subframes subframes, as
 * transmitted (parity appended, data inverted after D30*), one 0/1 value a bit.
 *
 * Subframe k of a frame is sent from TOW = 6 (5 f + k - 1); subframes 4 and 5 carry
 * page (f mod 25) + 1 with f = floor(TOW / 30). Page 18 of subframe 4 carries the
 * iono/UTC parameters; every other page of subframes 4 and 5 is the ICD's dummy page
 * (data ID 01, SV ID 0, the rest alternating 1 and 0). Reserved bits of subframe 1 are
 * 0. Throws std::invalid_argument naming the field when a value does not fit its field.
 */
CUDADSP_CORE_API std::vector<std::uint8_t>
gps_lnav_encode(const gps_lnav_message& msg, int start_tow_s, int n_subframes);

/*!
 * \brief Six parity bits D25..D30 of a word (IS-GPS-200 Table 20-XIV) from its 24 data
 * bits \p d (d1 in bit 23) and the previous word's D29*, D30*.
 */
CUDADSP_CORE_API unsigned
gps_lnav_parity(std::uint32_t d, unsigned d29_star, unsigned d30_star);

//! One decoded subframe's TLM and HOW.
struct gps_lnav_subframe_header {
    int subframe_id = 0;
    int tow_count = 0; //!< HOW TOW count: TOW of the next subframe's start / 6 s
    int tlm_message = 0;
    int integrity_status_flag = 0;
    int alert_flag = 0;
    int anti_spoof_flag = 0;
    int page = 0; //!< subframes 4 and 5: the SV ID (page 18 of subframe 4 is 56); else 0
};

//! Decoder counters; none of the rejected data is ever used.
struct gps_lnav_counters {
    std::uint64_t bits = 0;
    std::uint64_t subframes = 0;           //!< subframes with every word's parity good
    std::uint64_t parity_failures = 0;     //!< words whose parity failed (in sync)
    std::uint64_t discarded_subframes = 0; //!< subframes dropped for parity
    std::uint64_t sync_losses = 0;
    std::uint64_t iod_contradictions = 0; //!< IODC LSBs / IODE mismatches in a frame
    std::uint64_t ephemerides = 0;
    std::uint64_t iono_utc_pages = 0;
};

//! Adds \p c to \p sum, counter by counter (counts over several decoders).
CUDADSP_CORE_API gps_lnav_counters& operator+=(gps_lnav_counters& sum,
                                               const gps_lnav_counters& c);

/*!
 * \brief LNAV decoder for one channel: feed its data bits in order, one call per bit.
 *
 * A bit is 1 when positive, 0 otherwise, so ±1 or 0/1 both work; the polarity (the
 * Costas loop's half-cycle ambiguity) and where the stream starts are unknown. The
 * decoder searches the preamble (upright or inverted) and accepts it when the TLM and
 * HOW words pass their parity with a subframe ID 1..5; it then takes 300-bit
 * subframes, keeps the sync while the next preamble follows, and drops any subframe
 * with a failed word. Subframes 1, 2 and 3 of one frame (consecutive TOW counts)
 * become an ephemeris only when IODE of subframes 2 and 3 equals the 8 LSBs of IODC.
 */
class CUDADSP_CORE_API gps_lnav_decoder
{
public:
    explicit gps_lnav_decoder(int prn);

    //! Feeds one bit; true when it completed a subframe that passed every check.
    bool push(int bit);

    const gps_lnav_subframe_header& last_header() const { return d_header; }
    //! The data bits of the last good subframe's ten words (24 a word, d1 in bit 23,
    //! upright whatever the polarity).
    const std::array<std::uint32_t, 10>& last_words() const { return d_words; }
    bool has_ephemeris() const { return d_has_ephemeris; }
    const gps_ephemeris& ephemeris() const { return d_ephemeris; }
    bool has_iono_utc() const { return d_has_iono_utc; }
    const gps_iono_utc& iono_utc() const { return d_iono_utc; }
    //! +1 upright, -1 inverted, 0 before the first sync.
    int polarity() const { return d_polarity; }
    const gps_lnav_counters& counters() const { return d_counters; }

private:
    bool try_sync();
    void lock(bool inverted);
    void lose_sync();
    bool take_subframe();
    void use_subframe(const std::array<std::uint32_t, 10>& words);
    void assemble_ephemeris();

    int d_prn;
    // Received bits. Searching: raw, d_scan the next candidate start. Synced: corrected
    // for polarity, d_bits[0..1] the D29*, D30* before the subframe at d_bits[2].
    std::vector<std::uint8_t> d_bits;
    std::size_t d_scan = 0;
    bool d_synced = false;
    int d_polarity = 0;
    gps_lnav_subframe_header d_header;
    std::array<std::uint32_t, 10> d_words{};
    std::array<std::array<std::uint32_t, 10>, 3> d_frame{}; // subframes 1..3
    std::array<int, 3> d_frame_tow{ { -1, -1, -1 } };
    bool d_has_ephemeris = false;
    gps_ephemeris d_ephemeris;
    bool d_has_iono_utc = false;
    gps_iono_utc d_iono_utc;
    gps_lnav_counters d_counters;
};

//! Bit edge found from the sign changes of 1-ms prompt correlations.
struct gps_bit_sync_result {
    int edge_ms = -1;      //!< bits start at prompt indices edge_ms + 20 k; -1 if none
    int edge_changes = 0;  //!< sign changes at that phase
    int total_changes = 0; //!< sign changes at every phase
};

/*!
 * \brief 20-ms bit synchronisation: the histogram of sign changes between consecutive
 * 1-ms prompt values (in-phase part) over the 20 phases; the most frequent phase is
 * the bit edge. Noise puts changes elsewhere too: the caller decides from
 * edge_changes / total_changes and the span whether to trust it.
 */
CUDADSP_CORE_API gps_bit_sync_result gps_bit_sync(const std::vector<double>& prompt_i);

/*!
 * \brief The data bits (+1/-1, the sign of the 20-ms sum) of the whole bits in
 * \p prompt_i from \p edge_ms on. Throws std::invalid_argument when edge_ms is outside
 * 0..19.
 */
CUDADSP_CORE_API std::vector<int>
gps_bits_from_prompt(const std::vector<double>& prompt_i, int edge_ms);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GPS_LNAV_H */
