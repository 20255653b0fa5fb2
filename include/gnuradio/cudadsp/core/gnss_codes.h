/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_GNSS_CODES_H
#define INCLUDED_CUDADSP_CORE_GNSS_CODES_H

#include <gnuradio/cudadsp/core/api.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*
 * GNSS spreading codes as code tables for the multichannel correlator: one code period,
 * one int8_t per chip (or per table entry), value +1 or -1.
 *
 * Bit to chip value, for every code here: logic 0 -> +1, logic 1 -> -1 (the convention
 * of the GPS and Galileo ICDs, x = 1 - 2 b).
 */

constexpr double gps_l1_frequency_hz = 1575.42e6;  //!< also Galileo E1
constexpr double gps_l1ca_chip_rate_cps = 1.023e6; //!< chips per second
constexpr int gps_l1ca_code_length = 1023;         //!< chips per 1 ms period
constexpr double glonass_l1of_chip_rate_cps = 0.511e6;
constexpr int glonass_l1of_code_length = 511; //!< chips per 1 ms period
constexpr double galileo_e1_chip_rate_cps = 1.023e6;
constexpr int galileo_e1_code_length = 4092; //!< chips per 4 ms period
constexpr int galileo_e1_prn_count = 50;

/*!
 * \brief GPS L1 C/A code of PRN \p prn (1 to 32), 1023 chips (IS-GPS-200, 3.3.2.3).
 *
 * Generated as G1 xor G2i: G1 = 1 + x^3 + x^10 and G2 = 1 + x^2 + x^3 + x^6 + x^8 +
 * x^9 + x^10, both registers starting all ones, G2i the modulo-2 sum of the two G2
 * stages of the ICD's code phase selection for the PRN (Table 3-Ia). Throws
 * std::invalid_argument naming "prn" outside 1 to 32.
 */
CUDADSP_CORE_API std::vector<std::int8_t> gps_l1ca_code(int prn);

/*!
 * \brief GLONASS L1 open-service (L1OF) ranging code, 511 chips, the same for every
 * satellite (GLONASS ICD edition 5.1, 3.3.1.3).
 *
 * A 9-stage shift register with feedback polynomial 1 + x^5 + x^9, initialised to all
 * ones, read at its 7th stage; the period begins with the group 111111100.
 */
CUDADSP_CORE_API std::vector<std::int8_t> glonass_l1of_code();

//! Galileo E1 OS component: B (data channel) or C (pilot channel).
enum class galileo_e1_component { b, c };

/*!
 * \brief Galileo E1-B or E1-C primary code of PRN \p prn (1 to 50), 4092 chips.
 *
 * The codes are the OS SIS ICD's (Annex C), carried by the library itself: the table is
 * compiled in and parsed on first use, so no file is looked up at run time. Throws
 * std::invalid_argument naming "prn" outside 1 to 50.
 */
CUDADSP_CORE_API std::vector<std::int8_t> galileo_e1_code(int prn,
                                                          galileo_e1_component component);

/*!
 * \brief Every code of one component in a Galileo E1 code file, for tables other than
 * the ICD's that galileo_e1_code() carries: element p - 1 is PRN p, empty where the
 * file has no such PRN. The file is read on every call.
 *
 * The format (that of the source tree's share/gnss/galileo_e1_primary_codes.txt, from
 * which the library's own table is built): '#' comments and blank lines are ignored;
 * every other line is "E1B|E1C PRN HEX" with PRN 1 to 50 and HEX 1023 hex digits, most
 * significant bit first, logic 0 -> +1 and logic 1 -> -1; each (component, PRN) at most
 * once. A missing file or a malformed line is a std::runtime_error naming the file (and
 * the line number).
 */
CUDADSP_CORE_API std::vector<std::vector<std::int8_t>>
load_galileo_e1_codes(const std::string& file, galileo_e1_component component);

/*!
 * \brief BOC(1,1) table from a chip sequence: each chip c becomes the two table entries
 * [c, -c] (sine-phased sub-carrier, sign(sin(2 pi f_sc t)) with f_sc = chip rate, +1 in
 * the first half of every chip). Use it with code_entries_per_chip = 2.
 */
CUDADSP_CORE_API std::vector<std::int8_t>
boc11_expand(const std::vector<std::int8_t>& chips);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_CODES_H */
