/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_GNSS_CHANNEL_DESCRIPTION_H
#define INCLUDED_CUDADSP_CORE_GNSS_CHANNEL_DESCRIPTION_H

// A correlator channel described by named fields ("id", "system", "prn", "doppler_hz",
// ...; docs/blocks/multichannel_correlator_cc.md lists them): the keys, their defaults
// and their checks, whatever carries them. The blocks read them from PMT dicts
// (lib/gnss/gnss_channel_pmt.h), the Python engine package from keyword arguments:
// both implement gnss_channel_fields and call make_gnss_channel().

#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <gnuradio/cudadsp/core/pcps_acquisition.h>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! The code family of a channel.
enum gnss_signal_system : int {
    gnss_system_explicit_code = 0, //!< the description gave "code"
    gnss_system_gps_l1ca = 1,
    gnss_system_galileo_e1b = 2, //!< BOC(1,1) table of the E1-B (data) primary code
    gnss_system_galileo_e1c = 3, //!< BOC(1,1) table of the E1-C (pilot) primary code
    gnss_system_glonass_l1of = 4,
};

/*!
 * \brief The fields of one channel description, read by key.
 *
 * Each accessor is called only for a key that has() reports, and throws
 * std::invalid_argument starting with the key when the value has the wrong type
 * ("doppler_hz: must be a number, got ..."). Keys are checked against
 * gnss_channel_keys() by the implementation when it is built.
 */
class CUDADSP_CORE_API gnss_channel_fields
{
public:
    virtual ~gnss_channel_fields();
    virtual bool has(const std::string& key) const = 0;
    //! An integer or a real.
    virtual double number(const std::string& key) const = 0;
    //! An integer, or a real with an integral value (GRC writes 3.0).
    virtual std::int64_t integer(const std::string& key) const = 0;
    virtual bool is_text(const std::string& key) const = 0;
    virtual std::string text(const std::string& key) const = 0;
    virtual bool boolean(const std::string& key) const = 0;
    //! A sequence of numbers.
    virtual std::vector<double> numbers(const std::string& key) const = 0;
    //! The value as an error message shows it (short: at most about 80 characters).
    virtual std::string value_text(const std::string& key) const = 0;
};

//! Every key a channel description may have.
CUDADSP_CORE_API const std::set<std::string>& gnss_channel_keys();

//! What a description does not say: the defaults of the block or API that reads it.
struct gnss_channel_defaults {
    //! One offset per tap of the correlator (its config().taps), chips.
    std::vector<double> tap_offsets_chips = { -0.5, 0.0, 0.5 };
    double intermediate_frequency_hz = 0.0;
};

/*!
 * The taps a receiver tracks \p signal with: early, prompt and late 0.5 chip apart, and
 * 0.15 chip for Galileo E1, whose BOC(1,1) correlation peak is too narrow for 0.5.
 */
CUDADSP_CORE_API std::vector<double> gnss_receiver_tap_offsets(acquisition_signal signal);

/*!
 * The configuration of a correlator whose channels take \p defaults: taps =
 * defaults.tap_offsets_chips.size(). Checks in this order, each error naming its
 * parameter: tap_offsets_chips holds 1 to gnss_max_taps offsets; the configuration
 * (multichannel_correlator_config::validate()); each offset finite and below 2^30 chips
 * in magnitude (the longest code period a channel can have; each channel allows less
 * than its own); |intermediate_frequency_hz| < sample_rate_hz / 2.
 */
CUDADSP_CORE_API multichannel_correlator_config
make_correlator_config(double sample_rate_hz,
                       gnss_sample_format input_format,
                       std::size_t max_channels,
                       const std::string& device,
                       const gnss_channel_defaults& defaults);

//! A read description: the engine's channel plus what records report about it.
struct gnss_channel_request {
    gnss_channel channel;
    int prn = 0;
    gnss_signal_system system = gnss_system_explicit_code;
};

/*!
 * Builds the channel \p fields describe and checks it with gnss_channel::validate()
 * against \p config. Throws std::invalid_argument whose message starts with the
 * offending key (a missing "id", a wrong type, a value out of range, keys that do not
 * go together).
 */
CUDADSP_CORE_API gnss_channel_request
make_gnss_channel(const gnss_channel_fields& fields,
                  const gnss_channel_defaults& defaults,
                  const multichannel_correlator_config& config);

/*!
 * Early, prompt and late taps for \p offsets: prompt the offset nearest 0 (the first of
 * equals), early and late its nearest neighbours below and above (prompt itself where
 * there is none).
 */
CUDADSP_CORE_API void default_gnss_taps(const std::vector<double>& offsets,
                                        std::size_t& early,
                                        std::size_t& prompt,
                                        std::size_t& late);

/*!
 * Fewest samples any full epoch of \p channel can have at \p sample_rate_hz, rounded
 * down: in tracking mode the loops may raise the code rate up to 1.5 times the nominal
 * (the engine's guard). At least 1.
 */
CUDADSP_CORE_API double gnss_min_epoch_samples(const gnss_channel& channel,
                                               double sample_rate_hz);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_CHANNEL_DESCRIPTION_H */
