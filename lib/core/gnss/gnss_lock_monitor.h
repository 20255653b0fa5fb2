/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_GNSS_LOCK_MONITOR_H
#define INCLUDED_CUDADSP_CORE_GNSS_LOCK_MONITOR_H

#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <unordered_map>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief Loss of lock of the multichannel correlator's tracking channels, decided from
 * their records.
 *
 * A tracking channel is *lost* when its code lock (record flag gnss_flag_code_lock,
 * C/N0 above the channel's threshold, decided once per C/N0 window and held between
 * windows) has been off for \p loss_windows windows after having been on, or has never
 * come on within \p timeout_windows windows of the channel's start (a false detection,
 * or a satellite too weak to track). Windows are counted in epochs (cn0_epochs of the
 * channel per window) so that the decision falls on a window's last epoch. Open-loop
 * channels are never lost: they are search grids and references, without lock. Zero
 * turns the rule off.
 *
 * A channel is reported once; it is watched again only when it is added again
 * (re-initialised). Shared by multichannel_correlator_cc (its "lost" events) and
 * cudadsp.gnss.receive() (its re-acquisition).
 */
class CUDADSP_CORE_API gnss_lock_monitor
{
public:
    enum class verdict {
        none,        //!< nothing to report
        lock_lost,   //!< code lock off for loss_windows windows after being on
        never_locked //!< no code lock within timeout_windows windows of the start
    };

    gnss_lock_monitor(unsigned loss_windows, unsigned timeout_windows)
        : d_loss_windows(loss_windows), d_timeout_windows(timeout_windows)
    {
    }

    //! Starts (or restarts, for a re-initialised channel) watching \p channel.
    void watch(const gnss_channel& channel);
    //! Stops watching channel \p id (removed).
    void forget(std::uint32_t id) { d_channels.erase(id); }
    //! The verdict on one record, in the channel's epoch order.
    verdict observe(const gnss_epoch_record& record);

    unsigned loss_windows() const { return d_loss_windows; }
    unsigned timeout_windows() const { return d_timeout_windows; }

    //! "lock_lost" or "never_locked", the reason an event gives.
    static const char* reason(verdict v);

private:
    struct watched {
        std::uint64_t loss_epochs;    //!< 0: rule off
        std::uint64_t timeout_epochs; //!< 0: rule off
        bool locked_once = false;
        std::uint64_t unlocked_epochs = 0; //!< consecutive, since lock was last on
        bool reported = false;
    };

    const unsigned d_loss_windows;
    const unsigned d_timeout_windows;
    std::unordered_map<std::uint32_t, watched> d_channels;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_LOCK_MONITOR_H */
