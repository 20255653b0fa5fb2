/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/galileo_navigation_channel.h"
#include "runtime/parameter_checks.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr std::int64_t seconds_per_week = 604800;
constexpr std::int64_t gst_weeks = 4096; // the 12-bit WN rolls over
//! E1-B symbols (4-ms code periods) per second and per page (even + odd part).
constexpr std::int64_t symbols_per_second = 250;
constexpr std::uint64_t symbols_per_page = 2 * galileo_inav_part_symbols;

//! GST a - b in seconds, the week numbers taken modulo their 12-bit roll-over.
std::int64_t gst_difference_s(int wn_a, int tow_a, int wn_b, int tow_b)
{
    std::int64_t weeks = (wn_a - wn_b) % gst_weeks;
    if (weeks >= gst_weeks / 2) {
        weeks -= gst_weeks;
    } else if (weeks < -gst_weeks / 2) {
        weeks += gst_weeks;
    }
    return weeks * seconds_per_week + (tow_a - tow_b);
}

} // namespace

const char* to_string(galileo_navigation_stage stage)
{
    switch (stage) {
    case galileo_navigation_stage::page_sync:
        return "page synchronisation";
    case galileo_navigation_stage::gst_search:
        return "waiting for a page with the GST";
    case galileo_navigation_stage::time_unconfirmed:
        return "time mark awaiting confirmation by the next GST page";
    case galileo_navigation_stage::time_known:
        return "transmit time known";
    }
    return "unknown";
}

galileo_navigation_channel::galileo_navigation_channel(int prn) : d_prn(prn)
{
    if (prn < 1 || prn > galileo_e1_prn_count) {
        parameter_error("prn", "a Galileo PRN from 1 to 50", prn);
    }
}

galileo_navigation_stage galileo_navigation_channel::stage() const
{
    if (d_have_mark) {
        return d_mark_confirmed ? galileo_navigation_stage::time_known
                                : galileo_navigation_stage::time_unconfirmed;
    }
    return d_decoder.counters().pages > 0 ? galileo_navigation_stage::gst_search
                                          : galileo_navigation_stage::page_sync;
}

galileo_inav_counters galileo_navigation_channel::inav_counters() const
{
    galileo_inav_counters sum = d_past_inav_counters;
    sum += d_decoder.counters();
    return sum;
}

bool galileo_navigation_channel::push(const gnss_epoch_record& record,
                                      std::complex<float> prompt,
                                      gnss_channel_epoch& state)
{
    ++d_counters.records;
    if (!d_epochs.continues(record.epoch)) {
        // After a gap or a reinit nothing known about the pages or the time holds.
        ++d_counters.restarts;
        restart();
    }

    // Logic 1 is sent as -1 (OS SIS ICD 2.3): the negated prompt is the decoder's soft
    // symbol; a held epoch (0) is an erasure.
    const double symbol = -navigation_prompt(record, prompt);
    if (d_decoder.push(symbol) && d_decoder.last_page_stated_gst()) {
        // Past its first sync the decoder takes each part on the part's last symbol,
        // so a page completes on the record of its odd part's last symbol.
        take_gst_page(record.epoch + 1 - symbols_per_page);
    }

    if (!d_mark_confirmed || !(record.flags & gnss_flag_code_lock)) {
        return false;
    }
    state = channel_epoch_of(record,
                             gnss_system::galileo,
                             d_prn,
                             d_mark_tow_s,
                             d_mark_epoch,
                             d_decoder.polarity());
    return true;
}

void galileo_navigation_channel::restart()
{
    d_past_inav_counters = inav_counters();
    d_decoder = galileo_inav_decoder();
    d_have_mark = false;
    d_mark_confirmed = false;
}

void galileo_navigation_channel::take_gst_page(std::uint64_t first_epoch)
{
    const galileo_gst& gst = d_decoder.gst();
    bool agrees = false;
    if (d_have_mark) {
        const std::int64_t periods =
            static_cast<std::int64_t>(first_epoch - d_mark_epoch);
        agrees =
            periods == symbols_per_second *
                           gst_difference_s(gst.wn, gst.tow, d_mark_wn, d_mark_tow_s);
        if (!agrees) {
            ++d_counters.gst_contradictions;
        }
    }
    d_have_mark = true;
    d_mark_confirmed = agrees;
    d_mark_wn = gst.wn;
    d_mark_tow_s = gst.tow;
    d_mark_epoch = first_epoch;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
