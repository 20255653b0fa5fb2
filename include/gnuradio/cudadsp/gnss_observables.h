/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_GNSS_OBSERVABLES_H
#define INCLUDED_CUDADSP_GNSS_OBSERVABLES_H

#include <gnuradio/block.h>
#include <gnuradio/cudadsp/api.h>
#include <cstdint>

namespace gr {
namespace cudadsp {

/*!
 * \brief GNSS observables at common receiver epochs: the telemetry decoder's channel
 * states in, pseudorange, carrier phase, Doppler and C/N0 per satellite out.
 * \ingroup cudadsp
 *
 * \details
 * Input port "navigation": the gps_telemetry_decoder's messages. Its "states" (GPS and
 * Galileo channels alike) go to the engine's core::gnss_observables, which
 * interpolates every channel to the sample at which the receiver clock (GPS time)
 * reads each epoch (the clock starts GNSS-SDR's way: the latest transmit time plus
 * 68.802 ms). Output port "observables": each epoch as a dict {type: "epoch",
 * receiver_time_ms, sample_index, observations: float64 rows, system and PRN first},
 * and the decoder's navigation data ("ephemeris", "iono_utc", "galileo_ephemeris",
 * "galileo_iono_health") passed on in its place among the epochs (the PVT block needs
 * both, in that order). docs/blocks/gnss_observables.md.
 */
class CUDADSP_API gnss_observables : virtual public gr::block
{
public:
    typedef std::shared_ptr<gnss_observables> sptr;

    /*!
     * \param sample_rate_hz the correlator's input sample rate (> 0).
     * \param rate_hz epochs per second: 1000 / rate_hz must be a whole number of
     * milliseconds from 20 (50 Hz) up.
     */
    static sptr make(double sample_rate_hz, double rate_hz = 1.0);

    //! Epochs published so far.
    virtual std::uint64_t epochs() const = 0;
    //! States refused (out of time order, a bad message), each logged.
    virtual std::uint64_t refused_states() const = 0;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_GNSS_OBSERVABLES_H */
