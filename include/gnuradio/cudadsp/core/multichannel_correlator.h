/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_H
#define INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_H

#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/device.h>
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief Input sample layout: complex float32 (GNU Radio gr_complex), or interleaved
 * I/Q integers. Integers are converted to float as they are (no scaling): correlator
 * values of an int16 or int8 stream are in the units of its integers.
 */
enum class gnss_sample_format { cf32, ci16, ci8 };

//! "cf32", "ci16" or "ci8"; std::invalid_argument naming \p parameter_name else.
CUDADSP_CORE_API gnss_sample_format parse_gnss_sample_format(
    const std::string& name, const std::string& parameter_name = "input_format");
CUDADSP_CORE_API std::string to_string(gnss_sample_format format);
//! 8, 4 or 2 bytes per complex sample.
CUDADSP_CORE_API std::size_t bytes_per_sample(gnss_sample_format format);

//! Most taps per channel.
constexpr std::size_t gnss_max_taps = 64;
/*! Highest sample rate, 2^32 Hz (4.29 GHz): the carrier NCO's frequency resolution,
 *  sample_rate_hz / 2^32, stays within 1 Hz. */
constexpr double gnss_max_sample_rate_hz = 4294967296.0;
//! Range of gnss_loop_parameters::cn0_epochs.
constexpr std::size_t gnss_min_cn0_epochs = 2;
constexpr std::size_t gnss_max_cn0_epochs = std::size_t(1) << 30;
/*! Largest loop noise bandwidth times epoch duration (PLL, FLL and DLL): a loop updated
 *  once per epoch of T seconds sees frequencies up to 1 / (2 T) only. Stable, quiet
 *  tracking wants well below it (about 0.1). */
constexpr double gnss_max_loop_bandwidth_epochs = 0.5;

struct CUDADSP_CORE_API multichannel_correlator_config {
    double sample_rate_hz = 4e6; //!< > 0, at most gnss_max_sample_rate_hz
    gnss_sample_format input_format = gnss_sample_format::cf32;
    std::size_t taps = 3;            //!< T per channel, 1 to 64
    std::size_t max_channels = 4096; //!< channel capacity, >= 1
    //! "auto", "cpu", "cuda" or "cuda:N".
    std::string device = "auto";

    //! Throws std::invalid_argument naming the offending field.
    void validate() const;
};

//! open_loop: the NCOs run as the caller set them. tracking: DLL and PLL steer them.
enum class gnss_channel_mode { open_loop, tracking };

/*!
 * \brief Tracking loops of one channel (the filters, discriminators and estimators,
 * with their references, are documented in the source, lib/core/gnss/gnss_tracking.h).
 *
 * Carrier: Costas PLL (atan(Q/I), insensitive to data bits) of order 2 or 3, with an
 * optional FLL assist of order pll_order - 1 (two-quadrant atan of cross/dot of
 * successive prompts) while not in carrier lock. Code: normalized early-minus-late
 * envelope DLL of order 1 or 2, aided by the carrier: code rate =
 * nominal_code_rate_cps (1 + Doppler / nominal_carrier_frequency_hz) + DLL output.
 * Every loop updates once per epoch.
 */
struct CUDADSP_CORE_API gnss_loop_parameters {
    /*! 2 or 3. The 3rd-order loop (Kaplan's a3 = 1.1, b3 = 2.4) follows Doppler rate
     *  without a phase bias but is lightly damped (damping ratio about 0.2): it settles
     *  in about 10 / w0, w0 = Bn / 0.7845, against about 3 / w0 (w0 = Bn / 0.53) for
     *  the 2nd order, whose phase bias under a Doppler rate r is 2 pi r / w0^2. */
    int pll_order = 2;
    /*! Noise bandwidth, > 0; in tracking mode times the epoch's nominal duration at
     *  most gnss_max_loop_bandwidth_epochs (as the FLL and DLL bandwidths). */
    double pll_bandwidth_hz = 15.0;
    double fll_bandwidth_hz = 0.0; //!< >= 0; 0: no FLL assist
    int dll_order = 1;             //!< 1 or 2 (2 when not carrier-aided)
    double dll_bandwidth_hz = 2.0; //!< > 0
    //! Carrier aiding of the code NCO; 0 turns aiding off (then use dll_order 2).
    double nominal_carrier_frequency_hz = gps_l1_frequency_hz;
    double nominal_code_rate_cps = gps_l1ca_chip_rate_cps; //!< > 0
    //! Epochs per C/N0 (SNV estimator) and carrier-lock window, 2 to 2^30.
    std::size_t cn0_epochs = 50;
    /*! Code lock when C/N0 >= this. Keep it above the estimator's reading of noise
     *  alone, 26.7 dB-Hz - 10 log10(epoch / 1 ms). */
    double cn0_lock_threshold_dbhz = 30.0;
    //! Carrier lock when in code lock and cos(2 phi) >= this, in (-1, 1).
    double carrier_lock_threshold = 0.85;

    //! Throws std::invalid_argument naming the offending field.
    void validate() const;
};

//! gnss_channel::start_sample value meaning "the next sample process() receives".
constexpr std::uint64_t gnss_start_now = std::numeric_limits<std::uint64_t>::max();

/*!
 * \brief One channel: a code replica, its NCOs, taps and loops.
 *
 * Code phase and tap conventions:
 *  - The code table holds one code period of code.size() entries, each +1 or -1, with
 *    code_entries_per_chip entries per chip (2 for a BOC(1,1) table from
 *    boc11_expand()). Phases are in chips; internally in table entries.
 *  - An epoch (one correlation interval) spans periods_per_integration code periods and
 *    ends where the code NCO crosses the end of the last of them: sample counts per
 *    epoch vary by one sample as the phase falls, and the remainder is carried.
 *  - Tap offsets are code delays relative to the prompt, in chips: tap k at a sample
 *    where the prompt code phase is phi uses the code at phi - tap_offsets_chips[k].
 *    Negative offsets are early replicas, positive late ones; the default {-0.5, 0,
 *    +0.5} is early, prompt, late.
 *  - Carrier wipe-off multiplies by exp(-j theta), theta the carrier NCO phase, which
 *    advances by 2 pi carrier_frequency_hz / sample_rate_hz per sample. Doppler is
 *    carrier_frequency_hz - intermediate_frequency_hz.
 */
struct CUDADSP_CORE_API gnss_channel {
    std::uint32_t id = 0;                    //!< the caller's channel number, unique
    std::vector<std::int8_t> code;           //!< one period, +1 / -1 entries
    std::uint32_t code_entries_per_chip = 1; //!< >= 1, dividing code.size()
    double code_rate_cps = gps_l1ca_chip_rate_cps; //!< chips/s of the first epoch, > 0
    /*! Prompt code phase at start_sample, chips, in [0, periods_per_integration *
     *  chips): the position within the integration interval. An acquisition's phase
     *  (within one period) makes the first epoch end at the next period edge when
     *  periods_per_integration is 1. */
    double code_phase_chips = 0.0;
    std::uint32_t periods_per_integration = 1; //!< code periods per epoch, >= 1
    double intermediate_frequency_hz = 0.0;    //!< |IF| < sample_rate / 2
    double carrier_frequency_hz = 0.0;         //!< IF + Doppler, |f| < sample_rate / 2
    double carrier_phase_rad = 0.0;            //!< at start_sample
    //! config.taps values, each shorter than one code period in magnitude.
    std::vector<double> tap_offsets_chips = { -0.5, 0.0, 0.5 };
    std::size_t early_tap = 0;  //!< DLL early tap (tracking: smaller offset than late)
    std::size_t prompt_tap = 1; //!< PLL, FLL, C/N0, lock and bit-sign tap
    std::size_t late_tap = 2;   //!< DLL late tap
    gnss_channel_mode mode = gnss_channel_mode::tracking;
    gnss_loop_parameters loop;
    /*! Absolute sample index (counted from the engine's first sample) at which the
     *  phases above hold. Later than the next sample: the channel waits for it. Earlier:
     *  both NCOs are advanced to the next sample at their given rates (exactly, in
     *  their fixed-point units), so an acquisition made on past samples can start a
     *  channel now. gnss_start_now: the next sample. */
    std::uint64_t start_sample = gnss_start_now;

    //! Throws std::invalid_argument naming the offending field.
    void validate(const multichannel_correlator_config& config) const;
};

//! gnss_epoch_record::flags bits.
enum gnss_record_flag : std::uint32_t {
    gnss_flag_tracking = 1u,     //!< the loops steered this channel's NCOs
    gnss_flag_cn0_valid = 2u,    //!< cn0_dbhz and carrier_lock hold an estimate
    gnss_flag_code_lock = 4u,    //!< cn0_dbhz >= cn0_lock_threshold_dbhz
    gnss_flag_carrier_lock = 8u, //!< carrier_lock >= carrier_lock_threshold
    /*! This epoch's tap sums were NaN, infinite or beyond float32's range (non-finite
     *  or overflowing input samples): the loops and indicators skipped it, its
     *  discriminators are NaN (lib/core/gnss/gnss_tracking.h states the rule). */
    gnss_flag_invalid_sums = 16u,
};

/*!
 * \brief One completed epoch of one channel. Loop state fields are after this epoch's
 * loop update, i.e. they hold for the next epoch, whose first sample is start_sample +
 * sample_count.
 */
struct gnss_epoch_record {
    std::uint32_t channel_id;
    std::uint32_t flags;         //!< gnss_record_flag bits
    std::uint64_t epoch;         //!< 0, 1, 2, ... since the channel was added or reinit
    std::uint64_t start_sample;  //!< absolute index of the epoch's first sample
    std::uint32_t sample_count;  //!< samples in the epoch
    std::int32_t prompt_sign;    //!< +1 or -1: sign of the prompt's real part (data bit)
    double code_phase_chips;     //!< prompt phase within the code period, [0, chips)
    double code_rate_cps;        //!< code NCO rate, chips/s
    double doppler_hz;           //!< carrier NCO frequency - IF
    double carrier_phase_rad;    //!< carrier NCO phase, [-pi, pi)
    double carrier_cycles;       //!< accumulated (NCO - IF) phase since start, cycles
    float cn0_dbhz;              //!< latest C/N0 (SNV) estimate; NaN before the first
    float carrier_lock;          //!< latest cos(2 phi) estimate; NaN before the first
    float pll_discriminator_rad; //!< this epoch's Costas phase error; NaN when held
    float dll_discriminator_chips; //!< this epoch's code phase error; NaN when held
};

/*!
 * \brief What process() appends to: one record per completed epoch per channel and its
 * taps. Record i's T correlator values are correlations[i * taps + k], k in tap order;
 * each is sum over the epoch's samples of x[n] exp(-j theta[n]) code[tap entry].
 * A call's records are in ascending channel id, each channel's epochs in time order.
 */
struct CUDADSP_CORE_API gnss_correlator_results {
    std::size_t taps = 0;
    std::vector<gnss_epoch_record> records;
    std::vector<std::complex<float>> correlations;

    void clear()
    {
        records.clear();
        correlations.clear();
    }
    const std::complex<float>* taps_of(std::size_t record) const
    {
        return correlations.data() + record * taps;
    }
};

struct gnss_channel_setup;  // a channel compiled for the backends (internal)
class gnss_code_table_pool; // shares equal code tables among channels (internal)

/*!
 * \brief N channels x T taps of GNSS carrier and code wipe-off over one shared input
 * stream, with per-channel tracking loops.
 *
 * process() takes a buffer of any length; every channel walks its own epochs over it,
 * and an epoch that runs past the buffer's end continues in the next call. Both
 * backends pick the same code entry and carrier phase for every sample (integer NCOs,
 * lib/core/gnss/gnss_nco.h) and update the loops with the same rules (gnss_tracking.h).
 *
 * Channel changes (add, reinit, remove) take effect from the next process() call. The
 * engine is not thread-safe: a caller that changes channels from another thread (e.g. a
 * message handler) serialises those calls with process().
 */
class CUDADSP_CORE_API multichannel_correlator
{
public:
    //! Validates \p config (std::invalid_argument) and selects the backend.
    static std::unique_ptr<multichannel_correlator>
    make(const multichannel_correlator_config& config);
    virtual ~multichannel_correlator();

    /*! Adds a channel. std::invalid_argument naming the field for a bad description,
     *  an id already in use ("id"), or max_channels reached ("max_channels"). */
    void add_channel(const gnss_channel& channel);
    /*! Replaces channel \p channel.id with a fresh one (new NCO phases and rates, loop
     *  state, epoch count 0); the partial epoch in progress is discarded.
     *  std::invalid_argument for an unknown id or a bad description. */
    void reinit_channel(const gnss_channel& channel);
    //! Drops a channel and its partial epoch; std::invalid_argument for an unknown id.
    void remove_channel(std::uint32_t id);
    bool has_channel(std::uint32_t id) const { return d_ids.count(id) != 0; }
    std::size_t channel_count() const { return d_ids.size(); }
    std::vector<std::uint32_t> channel_ids() const
    {
        return std::vector<std::uint32_t>(d_ids.begin(), d_ids.end());
    }

    /*!
     * Correlates \p nsamples samples (host memory, in config().input_format) for every
     * channel and appends the completed epochs to \p results (whose taps it sets).
     */
    void
    process(const void* samples, std::size_t nsamples, gnss_correlator_results& results);

    //! Samples consumed so far: the absolute index of the next sample.
    std::uint64_t samples_processed() const { return d_samples_processed; }
    const multichannel_correlator_config& config() const { return d_config; }
    const device_selection& device() const { return d_device; }

protected:
    multichannel_correlator(const multichannel_correlator_config& config,
                            const device_selection& device);

    //! \p setup is valid and its id new (add) or present (reinit).
    virtual void do_add_channel(const gnss_channel_setup& setup) = 0;
    virtual void do_reinit_channel(const gnss_channel_setup& setup) = 0;
    virtual void do_remove_channel(std::uint32_t id) = 0;
    /*! Correlate samples [samples_processed(), samples_processed() + nsamples) and
     *  append to \p results (taps already set). */
    virtual void do_process(const void* samples,
                            std::size_t nsamples,
                            gnss_correlator_results& results) = 0;

    multichannel_correlator_config d_config;
    device_selection d_device;
    std::uint64_t d_samples_processed = 0;
    std::set<std::uint32_t> d_ids;
    std::shared_ptr<gnss_code_table_pool> d_code_pool;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_H */
