/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_GALILEO_SCENARIO_H
#define INCLUDED_CUDADSP_QA_GALILEO_SCENARIO_H

// The GPS + Galileo scenario the receiver's Galileo tests share, the engine's
// (qa_gps_receiver_galileo) and the blocks' (qa_gnss_galileo_flowgraph): the GPS
// satellites of qa_gps_receiver_truth.h (one unhealthy) and the nominal Galileo Walker
// 24/3/1 seen from Vienna, I/NAV on E1-B, a GST-GPS offset (GGTO) that the
// inter-system bias must find. Sample 0 falls 0.45 s before a GPS frame and a Galileo
// I/NAV sub-frame; Galileo's words 1, 3 and 5 come 20 to 26 s into it.

#include "gnss/galileo_inav_encoder.h"
#include "gnss/galileo_nominal_constellation.h"
#include "gnss/gps_constellation_scenario.h"
#include "qa_gps_receiver_truth.h"
#include <map>

namespace gr {
namespace cudadsp {
namespace qa {

inline constexpr double galileo_ggto_s = 30e-9; // GST - GPS time
// The GST week of the GPS scenario's week: 10-bit week 300 in its third era is GPS week
// 2348, and GST week 0 is GPS week 1024 (a GST week of its own would date the Galileo
// records of a mixed RINEX navigation file 24 weeks before the GPS ones).
inline constexpr int galileo_gst_week = week + 2 * 1024 - 1024;
inline constexpr int galileo_iodnav = 77;

//! A change to one Galileo satellite's broadcast message (its health, a field).
using galileo_message_change = void (*)(galileo_inav_message&);

/*! The GPS satellites of scenario_config() (unless \p with_gps is false) and the
 *  visible Galileo satellites, \p change applied to the messages of the PRNs it has. */
inline gps_scenario_config
galileo_scenario_config(double duration_s,
                        double sample_rate_hz,
                        bool with_gps,
                        const std::map<int, galileo_message_change>& change = {})
{
    gps_scenario_config config = scenario_config(duration_s, sample_rate_hz);
    if (!with_gps)
        config.satellites.clear();
    for (galileo_inav_message m : galileo_nominal_constellation(toe, galileo_iodnav)) {
        const auto it = change.find(m.ephemeris.svid);
        if (it != change.end())
            it->second(m);
        config.galileo_satellites.push_back({ m, 45.0 });
    }
    config.galileo_week = galileo_gst_week;
    config.gst_minus_gps_s = galileo_ggto_s;
    return config;
}

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_GALILEO_SCENARIO_H */
