/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_GNSS_SEARCH_LIST_H
#define INCLUDED_CUDADSP_GNSS_SEARCH_LIST_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace gr {
namespace cudadsp {

/*!
 * \brief Which satellites a continuous acquisition searches and which it has handed to
 * tracking, with the channel ids it allocated. Not thread-safe: the owner locks.
 *
 * Satellites not tracked are searched round robin, a group at a time, in the order
 * given: a group starts after the last satellite of the previous one, so every
 * satellite waits at most one pass. A detection is handed off only while fewer than
 * max_channels satellites are tracked; it gets the next id (counting up from
 * first_id, modulo 2^32). A satellite returns to the search when its channel is
 * released (lost, removed or refused by the correlator).
 */
class gnss_search_list
{
public:
    gnss_search_list(std::vector<int> satellites,
                     std::size_t max_channels,
                     std::uint32_t first_id);

    /*! The next group: up to \p count satellites not tracked, round robin; none while
     *  max_channels satellites are tracked. */
    std::vector<int> next_group(std::size_t count);
    //! Whether next_group() would give any satellite now.
    bool anything_to_search() const;
    /*! Hands \p satellite to tracking: its new channel id in \p id, or false (already
     *  tracked, or max_channels reached). */
    bool hand_off(int satellite, std::uint32_t& id);
    //! Channel \p id's satellite returns to the search: false if \p id is not tracked.
    bool release(std::uint32_t id, int& satellite);

    std::vector<int> searching() const;
    std::vector<int> tracked() const;
    std::vector<std::uint32_t> tracked_ids() const;

private:
    const std::vector<int> d_satellites;
    const std::size_t d_max_channels;
    std::uint32_t d_next_id;
    std::size_t d_cursor = 0;             //!< index of the next satellite to try
    std::map<std::uint32_t, int> d_by_id; //!< tracked: channel id -> satellite
    std::map<int, std::uint32_t> d_by_satellite;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_GNSS_SEARCH_LIST_H */
