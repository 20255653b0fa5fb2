/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gps_navigation_decoder.h"
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

gps_navigation_decoder::gps_navigation_decoder(
    const gps_navigation_channel_config& config)
    : d_config(config)
{
    config.validate();
}

void gps_navigation_decoder::assign_channel(std::uint32_t channel_id, int prn)
{
    d_channels.erase(channel_id);
    d_channels.emplace(channel_id, gps_navigation_channel(prn, d_config));
}

void gps_navigation_decoder::release_channel(std::uint32_t channel_id)
{
    d_channels.erase(channel_id);
}

const gps_navigation_channel*
gps_navigation_decoder::channel(std::uint32_t channel_id) const
{
    const auto it = d_channels.find(channel_id);
    return it == d_channels.end() ? nullptr : &it->second;
}

gps_navigation_update gps_navigation_decoder::push(const gnss_epoch_record& record,
                                                   std::complex<float> prompt)
{
    const auto it = d_channels.find(record.channel_id);
    if (it == d_channels.end()) {
        throw std::invalid_argument("a record of channel " +
                                    std::to_string(record.channel_id) +
                                    ", which has no PRN assigned");
    }
    gps_navigation_channel& navigation = it->second;
    // The counters are summed over the channel's restarts, so they only grow: a change
    // across the push is what this record completed.
    const gps_lnav_counters before = navigation.lnav_counters();
    gps_navigation_update update;
    update.prn = navigation.prn();
    update.has_state = navigation.push(record, prompt, update.state);
    const gps_lnav_counters after = navigation.lnav_counters();
    const gps_lnav_decoder& decoder = navigation.decoder();
    if (after.subframes != before.subframes) {
        update.has_subframe = true;
        update.subframe = decoder.last_header();
    }
    if (after.ephemerides != before.ephemerides) {
        update.has_ephemeris = true;
        update.ephemeris = decoder.ephemeris();
    }
    if (after.iono_utc_pages != before.iono_utc_pages) {
        update.has_iono_utc = true;
        update.iono_utc = decoder.iono_utc();
    }
    return update;
}

std::string gps_navigation_decoder::stages() const
{
    if (d_channels.empty()) {
        return "no channel assigned";
    }
    std::string text;
    for (const auto& entry : d_channels) {
        text += (text.empty() ? "" : "; ") +
                gnss_satellite_id(gnss_system::gps, entry.second.prn()) + ": " +
                to_string(entry.second.stage());
    }
    return text;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
