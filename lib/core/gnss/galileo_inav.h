/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The Galileo E1-B I/NAV navigation message at reception (OS SIS ICD Issue 2.0: 4.1.5
// page processing, 4.3.2 nominal page, 4.3.5 word types 0 to 6, 5.1 the parameters):
// the decoder a receiver channel feeds with its 250 symbol/s E1-B prompt symbols. It
// finds the page parts by their synchronisation pattern, decodes each part
// (galileo_inav_fec.h), joins an even and an odd part into a 128-bit word with its
// CRC-24Q, and keeps the words' content. docs/design/galileo_inav.md has the layout.

#ifndef INCLUDED_CUDADSP_CORE_GALILEO_INAV_H
#define INCLUDED_CUDADSP_CORE_GALILEO_INAV_H

#include "gnss/galileo_ephemeris.h"
#include "gnss/galileo_inav_fec.h"
#include <gnuradio/cudadsp/core/api.h>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

constexpr int galileo_inav_word_bits = 128;

//! Word type 5: ionosphere (5.1.6), group delays (5.1.5), health (5.1.9.3), GST (5.1.2).
struct galileo_iono_health {
    double ai0 = 0.0; //!< sfu
    double ai1 = 0.0; //!< sfu/degree
    double ai2 = 0.0; //!< sfu/degree^2
    //! Ionospheric disturbance flags of regions 1 to 5 (0 or 1).
    std::array<int, 5> region_flags{ { 0, 0, 0, 0, 0 } };
    double bgd_e1_e5a = 0.0; //!< s
    double bgd_e1_e5b = 0.0; //!< s
    int e5b_hs = 0;          //!< signal health status, 2 bits: 0 OK
    int e1b_hs = 0;
    int e5b_dvs = 0; //!< data validity status: 0 valid, 1 working without guarantee
    int e1b_dvs = 0;
    int wn = 0;  //!< GST week number, 12 bits
    int tow = 0; //!< GST time of week, s
};

//! Word type 6: GST-UTC conversion (5.1.7) and the time of week.
struct galileo_gst_utc {
    double a0 = 0.0;  //!< s
    double a1 = 0.0;  //!< s/s
    int dt_ls = 0;    //!< s, leap seconds now
    double t0t = 0.0; //!< s, UTC reference time of week
    int wn0t = 0;     //!< UTC reference week, 8 bits
    int wn_lsf = 0;   //!< week of the future leap second, 8 bits
    int dn = 0;       //!< day of that week (1..7)
    int dt_lsf = 0;   //!< s, leap seconds after it
    int tow = 0;      //!< GST time of week, s
};

//! Galileo system time as a word stated it (word types 0 with time field 2, 5).
struct galileo_gst {
    int wn = 0;  //!< 12 bits
    int tow = 0; //!< s
};

//! Decoder counters; none of the rejected data is ever used.
struct galileo_inav_counters {
    std::uint64_t symbols = 0;
    std::uint64_t page_parts = 0;   //!< parts decoded while in sync
    std::uint64_t pages = 0;        //!< even + odd pairs whose CRC-24Q passed
    std::uint64_t crc_failures = 0; //!< pairs whose CRC-24Q failed: dropped
    std::uint64_t unpaired_parts =
        0;                         //!< an odd part without its even part, or the reverse
    std::uint64_t alert_pages = 0; //!< page type 1 (4.3.2.3): not decoded
    std::uint64_t sync_losses = 0;
    std::uint64_t iodnav_mismatches = 0; //!< words 1 to 4 held with different IODnav
    std::uint64_t ephemerides = 0;
};

//! Adds \p c to \p sum, counter by counter (counts over several decoders).
CUDADSP_CORE_API galileo_inav_counters& operator+=(galileo_inav_counters& sum,
                                                   const galileo_inav_counters& c);

/*!
 * \brief I/NAV decoder for one E1-B channel: feed its symbols in order, one call each.
 *
 * A symbol is soft: positive means logic 1, its magnitude the confidence, 0 an erasure
 * (the ICD sends logic 1 as -1: the caller negates the prompt). The polarity (the
 * carrier's half-cycle ambiguity) and where the stream starts are unknown. The decoder
 * searches the synchronisation pattern, upright or inverted, and accepts it when it
 * recurs 250 symbols later in the same polarity; in sync, each part's pattern must be
 * there again (up to max_sync_errors symbols wrong or erased) or the sync is lost.
 * Words 1 to 4 become an ephemeris only when they carry one IODnav.
 */
class CUDADSP_CORE_API galileo_inav_decoder
{
public:
    //! Symbols of a part's pattern that may be wrong in sync; the search wants none.
    static constexpr int max_sync_errors = 2;

    galileo_inav_decoder() = default;

    //! Feeds one symbol; true when it completed a page whose CRC passed.
    bool push(double symbol);

    //! The last good page's word type (0..63) and its 128 bits (0/1), -1 before one.
    int last_word_type() const { return d_last_word_type; }
    const std::array<std::uint8_t, galileo_inav_word_bits>& last_word() const
    {
        return d_word;
    }
    bool has_ephemeris() const { return d_has_ephemeris; }
    const galileo_ephemeris& ephemeris() const { return d_ephemeris; }
    bool has_iono_health() const { return d_has_iono_health; }
    const galileo_iono_health& iono_health() const { return d_iono_health; }
    bool has_gst_utc() const { return d_has_gst_utc; }
    const galileo_gst_utc& gst_utc() const { return d_gst_utc; }
    bool has_gst() const { return d_has_gst; }
    //! Whether the last good page stated the GST (word 5, or word 0 with its time
    //! field valid): gst() is then that page's, the time mark of a channel.
    bool last_page_stated_gst() const { return d_last_page_stated_gst; }
    const galileo_gst& gst() const { return d_gst; }
    //! +1 upright, -1 inverted, 0 before the first sync.
    int polarity() const { return d_polarity; }
    const galileo_inav_counters& counters() const { return d_counters; }

private:
    bool try_sync();
    bool take_part();
    bool take_page(const std::array<std::uint8_t, galileo_inav_part_bits>& odd);
    void use_word();
    void hold_ephemeris_word(int type);
    int sync_errors(std::size_t at, int polarity) const;

    // Received symbols. Searching: d_scan the next candidate start. Synced: the part in
    // progress starts at d_symbols[0].
    std::vector<double> d_symbols;
    std::size_t d_scan = 0;
    bool d_synced = false;
    int d_polarity = 0;
    bool d_have_even = false;
    std::array<std::uint8_t, galileo_inav_part_bits> d_even{};
    int d_last_word_type = -1;
    std::array<std::uint8_t, galileo_inav_word_bits> d_word{};
    // Words 1 to 4 as received (index type - 1), each with its IODnav, until a set.
    std::array<bool, 4> d_held{ { false, false, false, false } };
    std::array<std::array<std::uint8_t, galileo_inav_word_bits>, 4> d_held_words{};
    bool d_has_ephemeris = false;
    galileo_ephemeris d_ephemeris;
    bool d_has_iono_health = false;
    galileo_iono_health d_iono_health;
    bool d_has_gst_utc = false;
    galileo_gst_utc d_gst_utc;
    bool d_has_gst = false;
    bool d_last_page_stated_gst = false;
    galileo_gst d_gst;
    galileo_inav_counters d_counters;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GALILEO_INAV_H */
