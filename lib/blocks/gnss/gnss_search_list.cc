/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/gnss/gnss_search_list.h"
#include <utility>

namespace gr {
namespace cudadsp {

gnss_search_list::gnss_search_list(std::vector<int> satellites,
                                   std::size_t max_channels,
                                   std::uint32_t first_id)
    : d_satellites(std::move(satellites)),
      d_max_channels(max_channels),
      d_next_id(first_id)
{
}

std::vector<int> gnss_search_list::next_group(std::size_t count)
{
    std::vector<int> group;
    if (d_by_satellite.size() >= d_max_channels)
        return group;
    const std::size_t n = d_satellites.size();
    std::size_t last = d_cursor;
    for (std::size_t step = 0; step < n && group.size() < count; ++step) {
        const std::size_t i = (d_cursor + step) % n;
        if (d_by_satellite.count(d_satellites[i]))
            continue;
        group.push_back(d_satellites[i]);
        last = i;
    }
    if (!group.empty())
        d_cursor = (last + 1) % n;
    return group;
}

bool gnss_search_list::anything_to_search() const
{
    return d_by_satellite.size() < d_max_channels &&
           d_by_satellite.size() < d_satellites.size();
}

bool gnss_search_list::hand_off(int satellite, std::uint32_t& id)
{
    if (d_by_satellite.size() >= d_max_channels || d_by_satellite.count(satellite))
        return false;
    id = d_next_id++;
    d_by_id[id] = satellite;
    d_by_satellite[satellite] = id;
    return true;
}

bool gnss_search_list::release(std::uint32_t id, int& satellite)
{
    const auto it = d_by_id.find(id);
    if (it == d_by_id.end())
        return false;
    satellite = it->second;
    d_by_satellite.erase(satellite);
    d_by_id.erase(it);
    return true;
}

std::vector<int> gnss_search_list::searching() const
{
    std::vector<int> out;
    const std::size_t n = d_satellites.size();
    for (std::size_t step = 0; step < n; ++step) {
        const int s = d_satellites[(d_cursor + step) % n];
        if (!d_by_satellite.count(s))
            out.push_back(s);
    }
    return out;
}

std::vector<int> gnss_search_list::tracked() const
{
    std::vector<int> out;
    for (const auto& [id, satellite] : d_by_id)
        out.push_back(satellite);
    return out;
}

std::vector<std::uint32_t> gnss_search_list::tracked_ids() const
{
    std::vector<std::uint32_t> out;
    for (const auto& [id, satellite] : d_by_id)
        out.push_back(id);
    return out;
}

} // namespace cudadsp
} // namespace gr
