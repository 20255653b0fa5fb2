/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_MULTICHANNEL_CORRELATOR_CC_H
#define INCLUDED_CUDADSP_MULTICHANNEL_CORRELATOR_CC_H

#include <gnuradio/block.h>
#include <gnuradio/cudadsp/api.h>
#include <gnuradio/cudadsp/core/gnss_channel_description.h>
#include <gnuradio/gr_complex.h>
#include <pmt/pmt.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {

/*!
 * \brief Fields of the loop-state record on output port 1 ("state"): one float64 vector
 * of gnss_state_field_count values per record, in this order.
 *
 * Integers (ids, epoch and sample counts, flags) are exact in float64 up to 2^53 (at
 * 10 Msps, 28 years of samples). Loop-state fields hold after the epoch's loop update,
 * i.e. for the next epoch, which starts at start_sample + sample_count.
 */
enum gnss_state_field : int {
    gnss_state_channel_id = 0,    //!< the channel's "id"
    gnss_state_epoch,             //!< 0, 1, 2, ... since the channel was added or reinit
    gnss_state_start_sample,      //!< absolute input index of the epoch's first sample
    gnss_state_sample_count,      //!< samples in the epoch
    gnss_state_flags,             //!< core::gnss_record_flag bits (1 tracking, 2 C/N0
                                  //!< valid, 4 code lock, 8 carrier lock)
    gnss_state_prompt_sign,       //!< +1 / -1: sign of Re(prompt), the data bit
    gnss_state_code_phase_chips,  //!< prompt code phase within the period, [0, chips)
    gnss_state_code_rate_cps,     //!< code NCO rate, chips/s
    gnss_state_doppler_hz,        //!< carrier NCO frequency - IF
    gnss_state_carrier_phase_rad, //!< carrier NCO phase, [-pi, pi)
    gnss_state_carrier_cycles,    //!< accumulated Doppler phase since start, cycles
    gnss_state_cn0_dbhz,          //!< M2M4 C/N0 estimate; NaN before the first
    gnss_state_carrier_lock,      //!< cos(2 phi) lock metric; NaN before the first
    gnss_state_pll_discriminator_rad,   //!< this epoch's Costas phase error
    gnss_state_dll_discriminator_chips, //!< this epoch's code phase error
    gnss_state_prn,                     //!< the channel's "prn" (0 for an explicit code)
    gnss_state_system,                  //!< gnss_signal_system of the channel
    gnss_state_field_count
};

//! The code family of a channel (record field gnss_state_system), as the engine names it.
using core::gnss_signal_system;
using core::gnss_system_explicit_code;
using core::gnss_system_galileo_e1b;
using core::gnss_system_galileo_e1c;
using core::gnss_system_glonass_l1of;
using core::gnss_system_gps_l1ca;

/*!
 * \brief The parameters of multichannel_correlator_cc, _sc and _bc.
 * \ingroup cudadsp
 *
 * \details Python and GRC take the same values as keyword arguments (sample_rate_hz,
 * tap_offsets_chips, max_channels, channels, intermediate_frequency_hz, batch_ms,
 * device, lock_loss_windows, lock_timeout_windows, remove_lost), each the field of the
 * same name: docs/blocks/multichannel_correlator_cc.md.
 *
 * Flat rather than holding the engine's core::multichannel_correlator_config: the
 * block derives that one's taps (tap_offsets_chips.size()) and input_format (the
 * block's item) itself, and its max_channels default (4096) is not the block's (1024,
 * which sizes the output buffers).
 */
struct CUDADSP_API multichannel_correlator_block_config {
    //! Input sample rate (required: > 0, at most 2^32 Hz; 0, unset, is refused).
    double sample_rate_hz = 0.0;
    /*!
     * The channels' default tap offsets, code delays relative to the prompt in chips
     * (negative: early; below 2^30 in magnitude here, below one code period in each
     * channel); their number is the tap count T (1 to 64), the same for every channel.
     * A channel's early, prompt and late taps default to the offset nearest 0 and its
     * nearest neighbours below and above.
     */
    std::vector<double> tap_offsets_chips = { -0.5, 0.0, 0.5 };
    //! Channel capacity (1 to 2^31 - 1, as max_channels() returns an int); also sizes
    //! the output buffers.
    std::size_t max_channels = 1024;
    //! Initial channels: PMT_NIL, a dict, or a list of dicts (Python:
    //! cudadsp.gnss_channels_pmt([...])). A bad one raises ValueError.
    pmt::pmt_t channels = pmt::PMT_NIL;
    //! The channels' default IF (|IF| < fs / 2).
    double intermediate_frequency_hz = 0.0;
    /*!
     * On the CUDA backend, input a work() call gathers before it launches
     * (milliseconds of samples, > 0): larger batches, more latency. The CPU backend
     * takes what arrives, up to the same amount per call.
     */
    double batch_ms = 10.0;
    //! "auto", "cpu", "cuda" or "cuda:N".
    std::string device = "auto";
    /*!
     * A tracking channel whose code lock has been off for this many C/N0 windows
     * (cn0_epochs epochs each) after having been on is lost: a "lost" event {event, id,
     * sample, prn, system, reason} goes out on "events"; 0: never.
     */
    unsigned lock_loss_windows = 4;
    //! ... or whose code lock has not come on within this many windows of its start
    //! (reason "never_locked"); 0: no timeout.
    unsigned lock_timeout_windows = 20;
    //! Remove a lost channel at once (a "remove" event follows).
    bool remove_lost = true;
};

/*!
 * \brief Common interface of the multichannel GNSS correlator blocks
 * (multichannel_correlator_cc, _sc, _bc: complex float, interleaved int16 and int8
 * input).
 * \ingroup cudadsp
 *
 * \details
 * N channels x T taps of carrier and code wipe-off over one input stream (the engine
 * core::multichannel_correlator, on the CPU or a CUDA GPU), each channel open-loop or
 * steered by its own PLL/FLL/DLL. A general block: every completed epoch (correlation
 * interval) of every channel gives one record, i.e. one item on each output:
 *  - out 0 ("taps"): T gr_complex, the tap correlations in tap order;
 *  - out 1 ("state"): gnss_state_field_count float64, the fields of gnss_state_field.
 * A work() call's records are in ascending channel id, each channel's epochs in time
 * order; the input is consumed completely (partial epochs are carried).
 *
 * Channels are described by PMT dicts (keys in docs/blocks/multichannel_correlator_cc.md:
 * "id" and "prn" with "system", or an explicit "code", plus "code_phase_chips",
 * "doppler_hz", "start_sample", "tap_offsets_chips", "mode", loop parameters, ...).
 * They are given at construction and changed at run time through the message ports
 * "add", "reinit" and "remove" (a dict or a list of dicts; "remove" also takes ids)
 * or the methods below; changes are queued and applied at the start of the next work()
 * call. A bad message is logged (naming the field) and published on the "events"
 * port; it never stops the flowgraph.
 *
 * Loss of lock: a tracking channel whose code lock goes off for lock_loss_windows
 * C/N0 windows, or never comes on within lock_timeout_windows, is reported on "events"
 * ({event: lost, ...}) and, with remove_lost, removed: an acquisition block fed these
 * events searches its satellite again.
 *
 * Tags: every applied change puts a "channel_event" tag (dict: event, id, sample) on
 * the next record written; input tags are re-emitted, key and value unchanged, on the
 * first record written after their sample has been correlated.
 */
class CUDADSP_API multichannel_correlator_base : virtual public gr::block
{
public:
    typedef std::shared_ptr<multichannel_correlator_base> sptr;

    /*!
     * Queues channels to add: a dict or a list (or PMT vector) of dicts, all or
     * nothing. Throws std::invalid_argument, and queues nothing of \p channels, when a
     * description is bad, an id is used twice or already in use, or the channels would
     * exceed max_channels, each checked against the channels there will be once the
     * changes already queued are applied; the message names the count of refused items
     * and the first three (channels[i].key: rule). Nesting deeper than 8 levels is
     * refused before anything is parsed. Thread-safe; applied at the next work() call.
     */
    virtual void add_channels(const pmt::pmt_t& channels) = 0;
    /*! Queues replacements of existing channels (fresh NCOs and loops); as add_channels
     *  (every id must exist). */
    virtual void reinit_channels(const pmt::pmt_t& channels) = 0;
    /*! Queues removals: an id, a dict with "id", a list of those, or the symbol "all";
     *  all or nothing as add_channels (every id must exist). Throws
     *  std::invalid_argument for anything else. */
    virtual void remove_channels(const pmt::pmt_t& ids) = 0;

    //! Ids of the channels running now (changes still queued not included).
    virtual std::vector<std::uint32_t> channel_ids() const = 0;
    //! Changes queued and not yet applied.
    virtual std::size_t pending_changes() const = 0;
    //! Input samples correlated so far (the absolute index of the next sample).
    virtual std::uint64_t samples_processed() const = 0;

    virtual double sample_rate_hz() const = 0;
    virtual int taps() const = 0;
    //! The block's default tap offsets (chips; negative = early).
    virtual std::vector<double> tap_offsets_chips() const = 0;
    virtual int max_channels() const = 0;
    //! "cf32", "ci16" or "ci8".
    virtual std::string input_format() const = 0;
    //! The backend in use: "cpu" or "cuda:N".
    virtual std::string backend() const = 0;
};

/*!
 * \brief Multichannel GNSS correlator on a stream of \p Item: one class for the three
 * input formats, as gr-blocks writes its type variants (typedefs below).
 * \ingroup cudadsp
 *
 * \details Items: multichannel_correlator_cc takes gr_complex (cf32);
 * multichannel_correlator_sc interleaved int16 I/Q (std::complex<std::int16_t>, GRC
 * "sc16", UHD's sc16 output); multichannel_correlator_bc interleaved int8 I/Q
 * (std::complex<std::int8_t>, GRC "sc8"). The integer formats' correlations are in the
 * integers' units (no scaling). See multichannel_correlator_base and
 * docs/blocks/multichannel_correlator_cc.md.
 */
template <class Item>
class CUDADSP_API multichannel_correlator : virtual public multichannel_correlator_base
{
public:
    typedef std::shared_ptr<multichannel_correlator<Item>> sptr;

    static sptr make(const multichannel_correlator_block_config& config);
};

typedef multichannel_correlator<gr_complex> multichannel_correlator_cc;
typedef multichannel_correlator<std::complex<std::int16_t>> multichannel_correlator_sc;
typedef multichannel_correlator<std::complex<std::int8_t>> multichannel_correlator_bc;

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_MULTICHANNEL_CORRELATOR_CC_H */
