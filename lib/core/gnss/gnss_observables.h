/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Observables at common receiver epochs from the channels' tracking states: pseudorange,
// carrier phase, Doppler and C/N0 as RINEX 3.04 defines them. Each channel's state, taken
// at the end of each tracking epoch (the correlator's gnss_epoch_record, joined with the
// transmit time its LNAV decoder knows), is interpolated to the sample at which the
// receiver clock reads the epoch's time. The receiver clock starts at the first epoch by
// GNSS-SDR's convention: the largest transmit time plus 68.802 ms. Definitions, signs and
// the clock convention: docs/design/gnss_outputs.md.

#ifndef INCLUDED_CUDADSP_CORE_GNSS_OBSERVABLES_H
#define INCLUDED_CUDADSP_CORE_GNSS_OBSERVABLES_H

#include "gnss/gnss_pvt.h"
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <complex>
#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! The L1 / E1 open signal of a system: what turns code periods and chips into seconds.
struct gnss_l1_signal {
    double chip_rate_cps;
    double chips_per_period;
    double carrier_frequency_hz;
};

//! GPS L1 C/A (1023 chips, 1 ms) or Galileo E1 (4092 chips, 4 ms), both at 1575.42 MHz.
gnss_l1_signal gnss_l1_signal_of(gnss_system system);

/*!
 * \brief One channel's state at the end of one tracking epoch.
 *
 * The numbers of the correlator's gnss_epoch_record of that epoch (code phase, carrier
 * cycles, Doppler, C/N0, flags), which hold at the sample after the epoch,
 * start_sample + sample_count, and the navigation data's time mark: the GPS time of week
 * at which the satellite sent the start of the subframe in progress (for GPS the decoded
 * HOW's TOW count x 6 s, minus 6 s: the HOW counts the next subframe) and the whole code
 * periods the channel has tracked since that start.
 */
struct gnss_channel_epoch {
    gnss_system system = gnss_system::gps;
    int prn = 0;
    std::uint64_t sample_index = 0; //!< the sample the state holds at (receiver's clock)
    int subframe_start_tow_s = 0;   //!< satellite's time of week, multiple of 6 s (GPS)
    std::uint64_t code_periods_since_subframe_start = 0;
    double code_phase_chips = 0.0; //!< within the period in progress, [0, chips)
    double carrier_cycles = 0.0;   //!< accumulated (carrier NCO - IF) phase, cycles
    double doppler_hz = 0.0;       //!< carrier NCO - IF
    double cn0_dbhz = 0.0;         //!< NaN: no estimate yet
    bool carrier_lock = false;     //!< the record's gnss_flag_carrier_lock
    //! The LNAV decoder's verdict on the Costas loop's half-cycle ambiguity: +1 the bits
    //! arrive upright, -1 inverted (the phase is half a cycle off), 0 not known yet.
    int bit_polarity = 0;
};

/*!
 * \brief A navigation channel's gnss_channel_epoch of \p record: the record's numbers
 * with the time mark (the message start sent at \p mark_tow_s, tracked from epoch
 * \p mark_epoch) and the decoder's \p bit_polarity. The record's numbers hold after its
 * code period, in the next one: record.epoch + 1 - mark_epoch whole periods since the
 * marked start, plus the code phase into the one in progress. GPS and Galileo channels
 * both give their states through it.
 */
gnss_channel_epoch channel_epoch_of(const gnss_epoch_record& record,
                                    gnss_system system,
                                    int prn,
                                    int mark_tow_s,
                                    std::uint64_t mark_epoch,
                                    int bit_polarity);

/*!
 * \brief A navigation channel's record epochs, checked to follow one another: its
 * symbols and time mark rest on consecutive code periods, so a gap or a reinit makes
 * it start anew. GPS and Galileo channels both keep one.
 */
class gnss_epoch_sequence
{
public:
    //! Notes \p epoch; false when it does not follow the one noted before.
    bool continues(std::uint64_t epoch)
    {
        const bool follows = !d_started || epoch == d_last + 1;
        d_started = true;
        d_last = epoch;
        return follows;
    }

private:
    bool d_started = false;
    std::uint64_t d_last = 0;
};

/*! The prompt's in-phase value of \p record as a navigation channel's soft value: 0
 *  for a held epoch (non-finite sums), which carries no sign. */
inline double navigation_prompt(const gnss_epoch_record& record,
                                std::complex<float> prompt)
{
    return (record.flags & gnss_flag_invalid_sums) ? 0.0
                                                   : static_cast<double>(prompt.real());
}

//! RINEX loss-of-lock indicator bits (RINEX 3.04 5.3, Table A3).
enum gnss_lli_bit : int {
    gnss_lli_lost_lock = 1,  //!< lost lock since the previous epoch: cycle slip possible
    gnss_lli_half_cycle = 2, //!< half-cycle ambiguity unresolved
};

//! One satellite's observables at an epoch, in RINEX's definitions and signs.
struct gnss_observation {
    gnss_system system = gnss_system::gps;
    int prn = 0;
    double pseudorange_m = 0.0;        //!< c (receiver time - transmit time)
    double carrier_phase_cycles = 0.0; //!< grows with the range (RINEX 3.04 5.2)
    double doppler_hz = 0.0;           //!< positive for an approaching satellite
    double cn0_dbhz = 0.0;
    int lli = 0; //!< gnss_lli_bit flags of the carrier phase
};

//! The observables of all channels at one receiver epoch.
struct gnss_observation_epoch {
    //! Receiver time, ms since the start of the GPS week of the first epoch (it passes
    //! 604 800 000 when the week rolls over during the run): a multiple of the interval.
    std::int64_t receiver_time_ms = 0;
    //! The sample at which the receiver clock reads receiver_time_ms (fractional).
    double sample_index = 0.0;
    std::vector<gnss_observation> observations; //!< ascending (system, prn)
};

struct gnss_observables_config {
    double sample_rate_hz = 4e6;
    //! Between epochs, whole milliseconds: 1000 (1 Hz) by default, down to 20 (50 Hz).
    int interval_ms = 1000;
    //! The first epoch's pseudorange of the satellite whose signal left last (GNSS-SDR's
    //! convention: a transit time of a satellite near the zenith).
    double initial_transit_s = 0.068802;
    //! Longest span between two states of a channel that is interpolated across; an
    //! epoch in a longer gap leaves the channel out.
    double max_state_gap_s = 0.025;
};

/*!
 * \brief Forms the observables at the receiver's epochs from the channels' states, as
 * they arrive.
 *
 * The caller adds every channel's states (in time order per channel) and then says up to
 * which sample its input is complete; each epoch whose sample is by then bracketed by
 * states of its channels is formed and returned, channels without a bracketing pair
 * left out. The receiver clock is set at the first epochs_through() call after states
 * were added, from the channels known then: at the latest of their first states'
 * samples, it reads their largest transmit time plus initial_transit_s; the first epoch
 * is the first multiple of the interval from there, and the receiver time runs with the
 * sample count (the clock's drift is the sample clock's).
 */
class gnss_observables
{
public:
    //! Throws std::invalid_argument naming the field of an invalid configuration.
    explicit gnss_observables(const gnss_observables_config& config);

    //! Throws std::invalid_argument for a state not after the channel's last one.
    void add(const gnss_channel_epoch& state);

    //! The epochs whose sample is at or below \p complete_through_sample minus the
    //! longest gap (later ones may still get their bracketing states), in time order.
    std::vector<gnss_observation_epoch>
    epochs_through(std::uint64_t complete_through_sample);

private:
    using channel_key = std::pair<int, int>; //!< (system, prn)
    struct channel {
        std::deque<gnss_channel_epoch> states;
        double previous_epoch_sample = -1.0; //!< -1 before its first epoch
    };

    void set_clock();
    bool observe(const channel_key& key,
                 const channel& ch,
                 double sample,
                 std::int64_t receiver_time_ms,
                 gnss_observation& out) const;

    gnss_observables_config d_config;
    std::map<channel_key, channel> d_channels;
    bool d_clock_set = false;
    //! The clock: receiver time d_first_epoch_ms falls at sample d_first_epoch_sample
    //! and runs with the sample count from there.
    std::int64_t d_first_epoch_ms = 0;
    double d_first_epoch_sample = 0.0;
    std::int64_t d_next_epoch_ms = 0;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_OBSERVABLES_H */
