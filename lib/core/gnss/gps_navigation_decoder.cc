/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gps_navigation_decoder.h"
#include <stdexcept>
#include <utility>

namespace gr {
namespace cudadsp {
namespace core {

gps_navigation_decoder::gps_navigation_decoder(
    const gps_navigation_channel_config& config)
    : d_config(config)
{
    config.validate();
}

void gps_navigation_decoder::assign_channel(std::uint32_t channel_id,
                                            gnss_system system,
                                            int prn)
{
    // Built first: a PRN the channel refuses leaves what the id had.
    if (system == gnss_system::galileo) {
        galileo_navigation_channel navigation(prn);
        release_channel(channel_id);
        d_galileo_channels.emplace(channel_id, std::move(navigation));
    } else {
        gps_navigation_channel navigation(prn, d_config);
        release_channel(channel_id);
        d_channels.emplace(channel_id, std::move(navigation));
    }
}

void gps_navigation_decoder::release_channel(std::uint32_t channel_id)
{
    d_channels.erase(channel_id);
    d_galileo_channels.erase(channel_id);
}

bool gps_navigation_decoder::has_channel(std::uint32_t channel_id) const
{
    return d_channels.count(channel_id) != 0 || d_galileo_channels.count(channel_id) != 0;
}

const gps_navigation_channel*
gps_navigation_decoder::channel(std::uint32_t channel_id) const
{
    const auto it = d_channels.find(channel_id);
    return it == d_channels.end() ? nullptr : &it->second;
}

const galileo_navigation_channel*
gps_navigation_decoder::galileo_channel(std::uint32_t channel_id) const
{
    const auto it = d_galileo_channels.find(channel_id);
    return it == d_galileo_channels.end() ? nullptr : &it->second;
}

gps_navigation_update gps_navigation_decoder::push(const gnss_epoch_record& record,
                                                   std::complex<float> prompt)
{
    const auto galileo = d_galileo_channels.find(record.channel_id);
    if (galileo != d_galileo_channels.end()) {
        return push_galileo(galileo->second, record, prompt);
    }
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

gps_navigation_update
gps_navigation_decoder::push_galileo(galileo_navigation_channel& navigation,
                                     const gnss_epoch_record& record,
                                     std::complex<float> prompt)
{
    // As for GPS, the summed counters only grow: a change is what this record brought.
    const galileo_inav_counters before = navigation.inav_counters();
    gps_navigation_update update;
    update.system = gnss_system::galileo;
    update.prn = navigation.prn();
    update.has_state = navigation.push(record, prompt, update.state);
    const galileo_inav_counters after = navigation.inav_counters();
    const galileo_inav_decoder& decoder = navigation.decoder();
    if (after.ephemerides != before.ephemerides) {
        update.has_galileo_ephemeris = true;
        update.galileo_ephemeris_data = decoder.ephemeris();
    }
    update.has_galileo_page = after.pages != before.pages;
    if (update.has_galileo_page && decoder.last_word_type() == 5) {
        update.has_galileo_iono_health = true;
        update.galileo_iono_health_data = decoder.iono_health();
    }
    if (update.has_galileo_page && decoder.last_word_type() == 6) {
        update.has_galileo_gst_utc = true;
        update.galileo_gst_utc_data = decoder.gst_utc();
    }
    return update;
}

std::string gps_navigation_decoder::stages() const
{
    if (d_channels.empty() && d_galileo_channels.empty()) {
        return "no channel assigned";
    }
    std::string text;
    for (const auto& entry : d_channels) {
        text += (text.empty() ? "" : "; ") +
                gnss_satellite_id(gnss_system::gps, entry.second.prn()) + ": " +
                to_string(entry.second.stage());
    }
    for (const auto& entry : d_galileo_channels) {
        text += (text.empty() ? "" : "; ") +
                gnss_satellite_id(gnss_system::galileo, entry.second.prn()) + ": " +
                to_string(entry.second.stage());
    }
    return text;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
