/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The Galileo E1-B I/NAV message as a satellite sends it (OS SIS ICD Issue 2.0: 4.3.5
// word types 0 to 6, 4.3.2 the nominal page, 4.1.4 FEC and interleaving, 5.1.9.4
// CRC-24Q): the encoder the constellation scenario broadcasts with and the decoder's
// tests feed it from. Written from the ICD apart from the decoder (galileo_inav.h): the
// word layouts restated field by field, the CRC-24Q as polynomial division, the K = 7
// convolutional encoder as a shift register with the taps of 171 and 133 octal, the
// interleaver as a matrix; so a decoder test compares two readings of the ICD.
// docs/design/galileo_inav.md.

#ifndef INCLUDED_CUDADSP_CORE_GALILEO_INAV_ENCODER_H
#define INCLUDED_CUDADSP_CORE_GALILEO_INAV_ENCODER_H

#include "gnss/galileo_inav.h"
#include <gnuradio/cudadsp/core/api.h>
#include <array>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! What one satellite's I/NAV carries, in the units galileo_inav_decoder reports.
struct galileo_inav_message {
    galileo_ephemeris ephemeris; //!< words 1 to 4 (its svid is sent in word 4)
    //! Word 5; its wn and tow are not used: each page states its own GST.
    galileo_iono_health iono_health;
    galileo_gst_utc gst_utc; //!< word 6; its tow is not used either
};

using galileo_inav_word = std::array<std::uint8_t, galileo_inav_word_bits>;

/*!
 * \brief Word type \p type (0 to 6) of \p msg, 128 bits (0/1), each field rounded to
 * its LSB. Words 0 (time field "10"), 5 and 6 state \p gst. Throws
 * std::invalid_argument naming the field when a value does not fit it, or for another
 * type.
 */
CUDADSP_CORE_API galileo_inav_word galileo_inav_encode_word(
    int type, const galileo_inav_message& msg, const galileo_gst& gst);

/*!
 * \brief A nominal page (4.3.2.1) carrying \p word: the even part then the odd part,
 * 500 symbols (0/1, logic 1 as 1; the signal sends logic 1 as -1). \p crc_error is
 * XORed into the CRC field before the FEC (a page a receiver must refuse; 0 for a
 * good page). The OSNMA, SAR and spare fields carry a fixed filler, the SSP 01010101.
 */
CUDADSP_CORE_API std::vector<std::uint8_t> galileo_inav_page_symbols(
    const galileo_inav_word& word, int page_type = 0, std::uint32_t crc_error = 0);

/*!
 * The word type of the page whose even part starts at GST time of week \p tow_s (an
 * even second) in the nominal E1-B sub-frame of 30 s (4.3.2.2): 2, 4, 6, 7/9, 8/10,
 * 0, 0, 0, 0, 0, 1, 3, 5, 0, 0 with the almanac words (7 to 10) sent as word 0 here, so
 * that an ephemeris completes within any 32 s and the GST comes on most pages.
 */
CUDADSP_CORE_API int galileo_inav_nominal_word_type(int tow_s);

/*!
 * \brief The symbols of \p n_pages nominal pages from the page that starts at GST
 * \p start (an even TOW), each stating its own GST where its word does: 500 symbols a
 * page, 0/1 with logic 1 as 1. Throws std::invalid_argument for an odd start TOW,
 * n_pages < 1, or a value that does not fit its field.
 */
CUDADSP_CORE_API std::vector<std::uint8_t> galileo_inav_encode(
    const galileo_inav_message& msg, const galileo_gst& start, int n_pages);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GALILEO_INAV_ENCODER_H */
