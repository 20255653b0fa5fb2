/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_GNSS_NAVIGATION_PMT_H
#define INCLUDED_CUDADSP_GNSS_NAVIGATION_PMT_H

// The messages between the telemetry decoder, observables and PVT blocks: the engine's
// channel states, observation epochs, GPS ephemerides and ionosphere/UTC pages, Galileo
// ephemerides, word 5 (health, data validity, group delays) and word 6 (GST-UTC, leap
// seconds) as PMT, both ways,
// exactly (float64 throughout). Their layout: docs/blocks/gps_telemetry_decoder.md.

#include "gnss/galileo_ephemeris.h"
#include "gnss/galileo_inav.h"
#include "gnss/gnss_observables.h"
#include "gnss/gps_ephemeris.h"
#include "gnss/gps_lnav.h"
#include <pmt/pmt.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {

//! Values of a message's "type".
namespace gnss_message_type {
constexpr const char* states = "states";
constexpr const char* subframe = "subframe";
constexpr const char* ephemeris = "ephemeris";
constexpr const char* iono_utc = "iono_utc";
constexpr const char* page = "page";
constexpr const char* galileo_ephemeris = "galileo_ephemeris";
constexpr const char* galileo_iono_health = "galileo_iono_health";
constexpr const char* galileo_gst_utc = "galileo_gst_utc";
constexpr const char* epoch = "epoch";
} // namespace gnss_message_type

//! Columns of a row of a "states" message's float64 vector.
enum gnss_state_row : int {
    gnss_state_row_system = 0, //!< core::gnss_system: 0 GPS, 1 Galileo
    gnss_state_row_prn,
    gnss_state_row_sample_index,
    gnss_state_row_subframe_start_tow_s,
    gnss_state_row_code_periods_since_subframe_start,
    gnss_state_row_code_phase_chips,
    gnss_state_row_carrier_cycles,
    gnss_state_row_doppler_hz,
    gnss_state_row_cn0_dbhz,
    gnss_state_row_carrier_lock, //!< 0 or 1
    gnss_state_row_bit_polarity, //!< +1, -1, 0 unknown
    gnss_state_row_fields
};

//! Columns of a row of an "epoch" message's "observations" float64 vector.
enum gnss_observation_row : int {
    gnss_observation_row_system = 0,
    gnss_observation_row_prn,
    gnss_observation_row_pseudorange_m,
    gnss_observation_row_carrier_phase_cycles,
    gnss_observation_row_doppler_hz,
    gnss_observation_row_cn0_dbhz,
    gnss_observation_row_lli,
    gnss_observation_row_fields
};

//! The "type" of a message; "" when it is not a dict with a symbol "type".
std::string gnss_message_type_of(const pmt::pmt_t& message);

pmt::pmt_t states_message(const std::vector<core::gnss_channel_epoch>& states,
                          std::uint64_t complete_through_sample);
/*! The states and complete_through_sample of a "states" message. Throws
 *  std::invalid_argument naming what is wrong. */
std::vector<core::gnss_channel_epoch> states_of(const pmt::pmt_t& message,
                                                std::uint64_t& complete_through_sample);

pmt::pmt_t epoch_message(const core::gnss_observation_epoch& epoch);
core::gnss_observation_epoch epoch_of(const pmt::pmt_t& message);

//! {type: ephemeris, prn, week, ..., idot}: every field of gps_ephemeris by its name.
pmt::pmt_t ephemeris_message(const core::gps_ephemeris& ephemeris);
core::gps_ephemeris ephemeris_of(const pmt::pmt_t& message);

pmt::pmt_t iono_utc_message(const core::gps_iono_utc& iono_utc);
core::gps_iono_utc iono_utc_of(const pmt::pmt_t& message);

/*! Whether \p type is a message of navigation data the PVT block takes (ephemerides,
 *  iono/UTC pages, Galileo words 5 and 6): what the observables block passes on in its
 * place among the epochs. */
bool is_navigation_data(const std::string& type);

//! {type: galileo_ephemeris, prn, svid, iodnav, ..., af2}: Galileo satellite \p prn's
//! ephemeris, every field of galileo_ephemeris by its name.
pmt::pmt_t galileo_ephemeris_message(int prn, const core::galileo_ephemeris& ephemeris);
//! The ephemeris of a "galileo_ephemeris" message; \p prn gets its satellite.
core::galileo_ephemeris galileo_ephemeris_of(const pmt::pmt_t& message, int& prn);

//! {type: galileo_iono_health, prn, ai0, ..., e1b_hs, e1b_dvs, ..., region_flags}:
//! Galileo satellite \p prn's word 5, every field of galileo_iono_health by its name.
pmt::pmt_t galileo_iono_health_message(int prn,
                                       const core::galileo_iono_health& iono_health);
core::galileo_iono_health galileo_iono_health_of(const pmt::pmt_t& message, int& prn);

//! {type: galileo_gst_utc, prn, a0, a1, t0t, wn0t, dt_ls, wn_lsf, dn, dt_lsf, tow}:
//! Galileo satellite \p prn's word 6, every field of galileo_gst_utc by its name.
pmt::pmt_t galileo_gst_utc_message(int prn, const core::galileo_gst_utc& gst_utc);
core::galileo_gst_utc galileo_gst_utc_of(const pmt::pmt_t& message, int& prn);

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_GNSS_NAVIGATION_PMT_H */
