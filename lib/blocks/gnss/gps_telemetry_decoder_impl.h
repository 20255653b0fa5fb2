/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_GPS_TELEMETRY_DECODER_IMPL_H
#define INCLUDED_CUDADSP_GPS_TELEMETRY_DECODER_IMPL_H

#include "blocks/common/work_errors.h"
#include "gnss/gps_navigation_decoder.h"
#include <gnuradio/cudadsp/gps_telemetry_decoder.h>
#include <map>
#include <mutex>
#include <vector>

namespace gr {
namespace cudadsp {

class gps_telemetry_decoder_impl
    : public guarded_work<gps_telemetry_decoder_impl, gps_telemetry_decoder>
{
public:
    gps_telemetry_decoder_impl(int taps, int prompt_tap, int bit_sync_ms);

    std::uint64_t parity_failures() const override;
    std::uint64_t subframes() const override;
    std::uint64_t crc_failures() const override;
    std::uint64_t pages() const override;
    std::uint64_t ephemerides() const override;
    std::string channel_stages() const override;

    //! work()'s body: guarded_work (work_errors.h) runs it in work().
    int work_body(int noutput_items,
                  gr_vector_const_void_star& input_items,
                  gr_vector_void_star& output_items);

private:
    //! A channel's satellite and the end sample of its latest record.
    struct channel_progress {
        core::gnss_system system = core::gnss_system::gps;
        int prn = 0;
        std::uint64_t last_end = 0;
    };

    //! A channel's LNAV and I/NAV counters (zero for the system it is not).
    struct channel_counters {
        core::gps_lnav_counters lnav;
        core::galileo_inav_counters inav;
    };

    /*! The sample through which every channel's records are in: the least latest end
     *  over the channels still giving records. A channel silent while the newest
     *  record advanced 1 s (removed by the correlator) is released. */
    std::uint64_t complete_through();
    //! Publishes the states gathered so far with complete_through().
    void publish_states();
    /*! Publishes what \p update completed on channel \p channel_id: its subframe or
     *  page, then its ephemeris, iono/UTC page, word 5 or word 6, after the states
     *  before it. */
    void publish_navigation(const core::gps_navigation_update& update,
                            std::uint32_t channel_id);
    //! Channel \p channel_id's counters; d_mutex held.
    channel_counters counters_of(std::uint32_t channel_id) const;
    //! Adds a replaced or released channel's counters to the released ones; d_mutex
    //! held.
    void keep_counters(const channel_counters& counters);
    /*! Gives channel \p channel_id to \p prn of \p system, its old counters kept;
     *  throws, changing nothing, for a PRN the system refuses. d_mutex held. */
    void reassign_channel(std::uint32_t channel_id, core::gnss_system system, int prn);
    //! The LNAV counters of every GPS channel, released ones included; d_mutex held.
    core::gps_lnav_counters lnav_sum() const;
    //! The I/NAV counters of every Galileo channel, released ones included.
    core::galileo_inav_counters inav_sum() const;

    const int d_taps;
    const int d_prompt_tap;
    const pmt::pmt_t d_port;
    core::gps_navigation_decoder d_decoder;
    std::map<std::uint32_t, channel_progress> d_progress;
    std::uint64_t d_newest_end = 0;
    //! The sample rate of the newest record: its samples over its epoch's length.
    double d_newest_sample_rate_hz = 0.0;
    std::uint64_t d_published_through = 0;
    std::vector<core::gnss_channel_epoch> d_states;
    std::vector<int> d_order; //!< work()'s records in order of their end
    //! Counters of the channels released, so the totals stay whole.
    core::gps_lnav_counters d_released_lnav;
    core::galileo_inav_counters d_released_inav;
    mutable std::mutex d_mutex; //!< d_decoder and the released counters, for the getters
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_GPS_TELEMETRY_DECODER_IMPL_H */
