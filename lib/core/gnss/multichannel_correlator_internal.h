/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_INTERNAL_H
#define INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_INTERNAL_H

// What the engine base hands its backends: a channel compiled into the shared plain
// structs of gnss_tracking.h, its tap shifts and its (deduplicated) code table.

#include "gnss/gnss_tracking.h"
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <unordered_map>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! Largest epoch length / code step the engine allows: epoch sample counts must fit an
//! int32.
constexpr std::uint64_t gnss_max_epoch_samples = (std::uint64_t(1) << 31) - 1;

using gnss_code_table = std::shared_ptr<const std::vector<std::int8_t>>;

struct gnss_channel_setup {
    gnss_channel_params params;
    gnss_channel_state state; //!< at the engine's next sample (or later start)
    std::vector<std::int64_t> tap_shifts; //!< params.taps values, see gnss_nco.h
    //! The channel's code table; channels with equal tables share one object, so a
    //! backend can keep one device copy per distinct table (e.g. one per PRN).
    gnss_code_table code;
};

/*!
 * Interns code tables: equal contents give the same shared object while any channel
 * holds it.
 */
class gnss_code_table_pool
{
public:
    gnss_code_table intern(const std::vector<std::int8_t>& table);

private:
    std::unordered_multimap<std::uint64_t, std::weak_ptr<const std::vector<std::int8_t>>>
        d_tables;
};

/*!
 * Compiles a validated channel for an engine whose next sample is \p next_sample:
 * fixed-point NCOs (advanced to next_sample when the channel starts in the past), loop
 * coefficients and initial loop state, first epoch length.
 */
gnss_channel_setup make_gnss_channel_setup(const gnss_channel& channel,
                                           const multichannel_correlator_config& config,
                                           std::uint64_t next_sample,
                                           gnss_code_table_pool& pool);

/*!
 * Slope per chip of the normalised periodic autocorrelation of a table at lags below
 * one entry: (1 - rho1) * entries_per_chip, rho1 its autocorrelation at one entry.
 */
double gnss_correlation_slope_per_chip(const std::vector<std::int8_t>& table,
                                       std::uint32_t entries_per_chip);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_INTERNAL_H */
