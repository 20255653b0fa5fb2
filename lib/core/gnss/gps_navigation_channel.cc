/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gps_navigation_channel.h"
#include "runtime/parameter_checks.h"
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr int ms_per_bit = 20;
constexpr int tow_counts_per_week = 100800; // 604800 s / 6 s
constexpr std::int64_t seconds_per_week = 604800;

//! a - b for two times of week in seconds, brought into [-half week, half week).
std::int64_t wrapped_difference_s(std::int64_t a, std::int64_t b)
{
    std::int64_t d = (a - b) % seconds_per_week;
    if (d >= seconds_per_week / 2) {
        d -= seconds_per_week;
    } else if (d < -seconds_per_week / 2) {
        d += seconds_per_week;
    }
    return d;
}

} // namespace

void gps_navigation_channel_config::validate() const
{
    if (bit_sync_ms < ms_per_bit) {
        parameter_error("bit_sync_ms", "at least 20 (one bit)", bit_sync_ms);
    }
    require_within(bit_sync_min_share,
                   1e-3,
                   1.0,
                   "bit_sync_min_share",
                   "",
                   "a share of the sign changes");
    if (bit_sync_min_changes < 1) {
        parameter_error("bit_sync_min_changes", "at least 1", bit_sync_min_changes);
    }
}

const char* to_string(gps_navigation_stage stage)
{
    switch (stage) {
    case gps_navigation_stage::bit_sync:
        return "bit synchronisation";
    case gps_navigation_stage::subframe_sync:
        return "subframe synchronisation";
    case gps_navigation_stage::time_unconfirmed:
        return "time mark awaiting confirmation by the next subframe";
    case gps_navigation_stage::time_known:
        return "transmit time known";
    }
    return "unknown";
}

gps_navigation_channel::gps_navigation_channel(
    int prn, const gps_navigation_channel_config& config)
    : d_prn(prn), d_config(config), d_decoder(prn)
{
    if (prn < 1 || prn > 32) {
        parameter_error("prn", "a GPS PRN from 1 to 32", prn);
    }
    config.validate();
}

gps_navigation_stage gps_navigation_channel::stage() const
{
    if (d_bit_edge < 0) {
        return gps_navigation_stage::bit_sync;
    }
    if (!d_have_mark) {
        return gps_navigation_stage::subframe_sync;
    }
    return d_mark_confirmed ? gps_navigation_stage::time_known
                            : gps_navigation_stage::time_unconfirmed;
}

gps_lnav_counters gps_navigation_channel::lnav_counters() const
{
    gps_lnav_counters sum = d_past_lnav_counters;
    sum += d_decoder.counters();
    return sum;
}

bool gps_navigation_channel::push(const gnss_epoch_record& record,
                                  std::complex<float> prompt,
                                  gnss_channel_epoch& state)
{
    ++d_counters.records;
    if (!d_epochs.continues(record.epoch)) {
        // After a gap or a reinit nothing known about the bits or the time holds.
        ++d_counters.restarts;
        restart();
    }

    // A held epoch (0) adds nothing to a bit.
    const double prompt_i = navigation_prompt(record, prompt);
    if (d_bit_edge < 0) {
        if (d_prompts.empty()) {
            d_first_epoch = record.epoch;
        }
        d_prompts.push_back(prompt_i);
        if (d_prompts.size() >= static_cast<std::size_t>(d_config.bit_sync_ms)) {
            try_bit_sync();
        }
    } else {
        add_prompt(prompt_i, record.epoch);
    }

    if (!d_mark_confirmed || !(record.flags & gnss_flag_code_lock)) {
        return false;
    }
    state = channel_epoch_of(record,
                             gnss_system::gps,
                             d_prn,
                             d_mark_tow_s,
                             d_mark_epoch,
                             d_decoder.polarity());
    return true;
}

void gps_navigation_channel::restart()
{
    d_past_lnav_counters = lnav_counters();
    d_decoder = gps_lnav_decoder(d_prn);
    d_prompts.clear();
    d_bit_edge = -1;
    d_bit_sum = 0.0;
    d_bit_ms = 0;
    d_have_mark = false;
    d_mark_confirmed = false;
}

//! Accepts the histogram's edge when it is clear enough; otherwise the search starts
//! over on fresh prompts, so that its memory stays bounded on a channel without data.
void gps_navigation_channel::try_bit_sync()
{
    const gps_bit_sync_result r = gps_bit_sync(d_prompts);
    if (r.edge_ms < 0 || r.edge_changes < d_config.bit_sync_min_changes ||
        r.edge_changes < d_config.bit_sync_min_share * r.total_changes) {
        d_prompts.clear();
        return;
    }
    d_bit_edge = static_cast<int>((d_first_epoch + r.edge_ms) % ms_per_bit);
    std::vector<double> gathered;
    gathered.swap(d_prompts);
    for (std::size_t k = static_cast<std::size_t>(r.edge_ms); k < gathered.size(); ++k) {
        add_prompt(gathered[k], d_first_epoch + k);
    }
}

void gps_navigation_channel::add_prompt(double prompt_i, std::uint64_t epoch)
{
    if (d_bit_ms == 0) {
        d_bit_first_epoch = epoch;
    }
    d_bit_sum += prompt_i;
    if (++d_bit_ms < ms_per_bit) {
        return;
    }
    // Logic 1 is sent as -1 (IS-GPS-200 Table 3-III): a negative sum is a 1 when the
    // Costas loop sits on the signal's phase, so the decoder's polarity is the carrier's.
    const bool completed = d_decoder.push(d_bit_sum < 0.0 ? 1 : 0);
    const std::uint64_t bit_first_epoch = d_bit_first_epoch;
    d_bit_sum = 0.0;
    d_bit_ms = 0;
    if (completed) {
        // The decoder completes a subframe on its 300th bit, this one.
        take_subframe(bit_first_epoch - (gps_lnav_subframe_bits - 1) * ms_per_bit);
    }
}

void gps_navigation_channel::take_subframe(std::uint64_t first_epoch)
{
    // The HOW counts the next subframe's start; this one was sent 6 s before it.
    const int tow_count = d_decoder.last_header().tow_count;
    const int tow_s = 6 * ((tow_count + tow_counts_per_week - 1) % tow_counts_per_week);
    bool agrees = false;
    if (d_have_mark) {
        const std::int64_t periods =
            static_cast<std::int64_t>(first_epoch - d_mark_epoch);
        agrees = periods == 1000 * wrapped_difference_s(tow_s, d_mark_tow_s);
        if (!agrees) {
            ++d_counters.how_contradictions;
        }
    }
    d_have_mark = true;
    d_mark_confirmed = agrees;
    d_mark_tow_s = tow_s;
    d_mark_epoch = first_epoch;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
