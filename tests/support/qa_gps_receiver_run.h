/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_GPS_RECEIVER_RUN_H
#define INCLUDED_CUDADSP_QA_GPS_RECEIVER_RUN_H

// The engine receiver tests' run (qa_gps_receiver, qa_gps_receiver_galileo): perfect
// trackers (qa_gps_receiver_truth.h) through a gps_receiver. Apart from the truth
// header, which the blocks' test shares and whose names must not meet the receiver's.

#include "gnss/gps_constellation_scenario.h"
#include "gnss/gps_receiver.h"
#include "qa_gps_receiver_truth.h"
#include <cstdint>
#include <map>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

//! Runs perfect trackers of satellites \p sats (of either system) through a receiver,
//! 10 ms a call; \p levels overrides data bits (Galileo: symbols) by satellite.
inline std::vector<gps_receiver_epoch>
run_perfect(const gps_constellation_scenario& scenario,
            gps_receiver& receiver,
            const std::vector<std::size_t>& sats,
            double duration_s,
            const std::map<std::size_t, std::map<std::int64_t, int>>& levels = {})
{
    std::vector<perfect_tracker> trackers;
    for (std::size_t sat : sats) {
        const auto it = levels.find(sat);
        trackers.emplace_back(scenario,
                              sat,
                              static_cast<std::uint32_t>(sat),
                              it == levels.end() ? std::map<std::int64_t, int>{}
                                                 : it->second);
        receiver.assign_channel(
            static_cast<std::uint32_t>(sat), scenario.system(sat), scenario.prn(sat));
    }
    const double fs = scenario.signal().config().sample_rate_hz;
    std::vector<gps_receiver_epoch> epochs;
    const std::uint64_t step = static_cast<std::uint64_t>(0.01 * fs);
    for (std::uint64_t through = step; through <= duration_s * fs; through += step) {
        gnss_correlator_results results;
        results.taps = 3;
        for (perfect_tracker& t : trackers)
            t.run_to(through, results);
        for (gps_receiver_epoch& e : receiver.process(results, through))
            epochs.push_back(std::move(e));
    }
    return epochs;
}

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_GPS_RECEIVER_RUN_H */
