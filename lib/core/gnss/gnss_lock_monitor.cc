/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_lock_monitor.h"

namespace gr {
namespace cudadsp {
namespace core {

void gnss_lock_monitor::watch(const gnss_channel& channel)
{
    if (channel.mode != gnss_channel_mode::tracking) {
        d_channels.erase(channel.id);
        return;
    }
    const std::uint64_t window = channel.loop.cn0_epochs;
    watched w;
    w.loss_epochs = window * d_loss_windows;
    w.timeout_epochs = window * d_timeout_windows;
    d_channels[channel.id] = w;
}

gnss_lock_monitor::verdict gnss_lock_monitor::observe(const gnss_epoch_record& r)
{
    const auto it = d_channels.find(r.channel_id);
    if (it == d_channels.end() || it->second.reported)
        return verdict::none;
    watched& w = it->second;
    if (r.flags & gnss_flag_code_lock) {
        w.locked_once = true;
        w.unlocked_epochs = 0;
        return verdict::none;
    }
    verdict v = verdict::none;
    if (w.locked_once) {
        ++w.unlocked_epochs;
        if (w.loss_epochs != 0 && w.unlocked_epochs >= w.loss_epochs)
            v = verdict::lock_lost;
    } else if (w.timeout_epochs != 0 && r.epoch + 1 >= w.timeout_epochs) {
        v = verdict::never_locked;
    }
    w.reported = v != verdict::none;
    return v;
}

const char* gnss_lock_monitor::reason(verdict v)
{
    return v == verdict::lock_lost ? "lock_lost" : "never_locked";
}

} // namespace core
} // namespace cudadsp
} // namespace gr
