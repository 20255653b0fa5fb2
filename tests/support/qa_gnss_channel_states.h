/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_GNSS_CHANNEL_STATES_H
#define INCLUDED_CUDADSP_QA_GNSS_CHANNEL_STATES_H

// Tracking states made from a known transmit time, for the observables' tests: what a
// channel that tracks perfectly, with its LNAV decoder in sync, reports.

#include "gnss/gnss_observables.h"
#include <cmath>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace qa {

/*!
 * The state of a GPS L1 C/A channel at \p sample whose signal left the satellite when
 * the satellite's clock read \p whole_s + \p fraction_s seconds of the week (the split
 * keeps the fraction's 1e-16 s where one double of ~5e5 s keeps 1e-10 s): the subframe
 * start (a multiple of 6 s), whole 1 ms code periods since it and the code phase.
 */
inline core::gnss_channel_epoch
gps_channel_state(int prn, std::uint64_t sample, std::int64_t whole_s, double fraction_s)
{
    const double whole_of_fraction = std::floor(fraction_s);
    const std::int64_t seconds = whole_s + static_cast<std::int64_t>(whole_of_fraction);
    const std::int64_t subframe_start = seconds - seconds % 6;
    const double into_subframe_s =
        static_cast<double>(seconds - subframe_start) + (fraction_s - whole_of_fraction);
    const double chips = into_subframe_s * 1.023e6;
    const double periods = std::floor(chips / 1023.0);
    core::gnss_channel_epoch s;
    s.system = core::gnss_system::gps;
    s.prn = prn;
    s.sample_index = sample;
    s.subframe_start_tow_s = static_cast<int>(subframe_start);
    s.code_periods_since_subframe_start = static_cast<std::uint64_t>(periods);
    s.code_phase_chips = chips - periods * 1023.0;
    s.cn0_dbhz = 45.0;
    s.carrier_lock = true;
    s.bit_polarity = 1;
    return s;
}

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_GNSS_CHANNEL_STATES_H */
