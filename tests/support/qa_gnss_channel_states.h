/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_GNSS_CHANNEL_STATES_H
#define INCLUDED_CUDADSP_QA_GNSS_CHANNEL_STATES_H

// Tracking states made from a known transmit time, for the observables' tests: what a
// channel that tracks perfectly, with its LNAV or I/NAV decoder in sync, reports.

#include "gnss/gnss_observables.h"
#include <cmath>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace qa {

/*!
 * The state at \p sample of a channel whose signal left the satellite when the
 * satellite's clock read \p whole_s + \p fraction_s seconds of the week (the split
 * keeps the fraction's 1e-16 s where one double of ~5e5 s keeps 1e-10 s): the message
 * start (a multiple of \p mark_s), whole code periods since it and the code phase.
 */
inline core::gnss_channel_epoch channel_state(core::gnss_system system,
                                              int prn,
                                              std::uint64_t sample,
                                              std::int64_t whole_s,
                                              double fraction_s,
                                              std::int64_t mark_s,
                                              double chips_per_period)
{
    const double whole_of_fraction = std::floor(fraction_s);
    const std::int64_t seconds = whole_s + static_cast<std::int64_t>(whole_of_fraction);
    const std::int64_t mark = seconds - seconds % mark_s;
    const double into_message_s =
        static_cast<double>(seconds - mark) + (fraction_s - whole_of_fraction);
    const double chips = into_message_s * 1.023e6;
    const double periods = std::floor(chips / chips_per_period);
    core::gnss_channel_epoch s;
    s.system = system;
    s.prn = prn;
    s.sample_index = sample;
    s.subframe_start_tow_s = static_cast<int>(mark);
    s.code_periods_since_subframe_start = static_cast<std::uint64_t>(periods);
    s.code_phase_chips = chips - periods * chips_per_period;
    s.cn0_dbhz = 45.0;
    s.carrier_lock = true;
    s.bit_polarity = 1;
    return s;
}

//! A GPS L1 C/A channel's: 6-s subframes, 1-ms periods of 1023 chips.
inline core::gnss_channel_epoch
gps_channel_state(int prn, std::uint64_t sample, std::int64_t whole_s, double fraction_s)
{
    return channel_state(
        core::gnss_system::gps, prn, sample, whole_s, fraction_s, 6, 1023.0);
}

//! A Galileo E1-B channel's (GST): 2-s pages, 4-ms periods of 4092 chips.
inline core::gnss_channel_epoch galileo_channel_state(int prn,
                                                      std::uint64_t sample,
                                                      std::int64_t whole_s,
                                                      double fraction_s)
{
    return channel_state(
        core::gnss_system::galileo, prn, sample, whole_s, fraction_s, 2, 4092.0);
}

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_GNSS_CHANNEL_STATES_H */
