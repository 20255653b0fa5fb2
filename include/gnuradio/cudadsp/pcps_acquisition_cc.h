/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_PCPS_ACQUISITION_CC_H
#define INCLUDED_CUDADSP_PCPS_ACQUISITION_CC_H

#include <gnuradio/cudadsp/api.h>
#include <gnuradio/gr_complex.h>
#include <gnuradio/sync_block.h>
#include <pmt/pmt.h>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {

/*!
 * \brief Common interface of the continuous GNSS acquisition blocks
 * (pcps_acquisition_cc, _sc: complex float and interleaved int16 input, the typedefs
 * of pcps_acquisition<Item> below).
 * \ingroup cudadsp
 *
 * \details
 * A sink: it reads the sample stream that also feeds a multichannel correlator and
 * hands it satellites to track. Round robin over the satellites not being tracked,
 * satellites_per_search at a time, it copies K coherent intervals of samples into
 * its own buffer (a search may span many work() calls) and runs a parallel code-phase
 * search (core::pcps_acquisition, FFT on the CPU or a CUDA GPU) on a worker thread.
 *
 * stream_mode "live" (an SDR): the stream is never held back; while a search runs,
 * work() consumes and drops the samples (samples_dropped()); the next search starts on
 * fresh samples. stream_mode "recording" (a file, a finite stream): every sample goes
 * into a search; while one runs, work() waits for it, so the stream goes at the
 * searches' pace. A search's detections are published by work() (the scheduler's
 * thread) once it has finished: in recording mode before work() returns, so the last
 * search of a finite stream is published before the block reports done; in live mode
 * at the next work() call (a search still running when the stream ends is not
 * published: the block logs a warning).
 *
 * Each detection leaves on the message port "detections" as a channel dict that the
 * correlator's "add" port takes as it is: an id allocated by the block, system, prn /
 * frequency_number, code_phase_chips and doppler_hz at start_sample (the search's first
 * sample: the correlator advances the channel over the samples gone, exactly), mode
 * "tracking", plus channel_parameters. At most max_channels satellites are tracked
 * at once.
 *
 * The message port "lost" takes the correlator's "events": a "lost" event (loss of
 * lock), a "remove" event or an "error" event naming one of the block's channel ids
 * returns that satellite to the search; other events are ignored. A malformed message
 * is logged and ignored.
 */
class CUDADSP_API pcps_acquisition_base : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<pcps_acquisition_base> sptr;

    //! Satellites waiting to be searched (not tracked), in search order.
    virtual std::vector<int> searching() const = 0;
    //! Satellites handed to tracking and not returned.
    virtual std::vector<int> tracked() const = 0;
    //! Channel id of each satellite of tracked(), in the same order.
    virtual std::vector<std::uint32_t> tracked_ids() const = 0;
    //! Searches finished so far.
    virtual std::uint64_t searches_completed() const = 0;
    //! Samples consumed while a search was running (not searched; live mode only).
    virtual std::uint64_t samples_dropped() const = 0;
    //! Samples in the searches finished so far: searches_completed() x search_samples().
    virtual std::uint64_t samples_searched() const = 0;
    //! Detections published on "detections" so far (each one message sent).
    virtual std::uint64_t detections_published() const = 0;
    //! Samples one search takes: noncoherent_dwells x coherent interval.
    virtual std::uint64_t search_samples() const = 0;
    virtual double sample_rate_hz() const = 0;
    //! "gps_l1ca", "galileo_e1" or "glonass_l1of".
    virtual std::string signal() const = 0;
    //! "cf32" or "ci16".
    virtual std::string input_format() const = 0;
    //! The backend in use: "cpu" or "cuda:N".
    virtual std::string backend() const = 0;
    //! "live" or "recording".
    virtual std::string stream_mode() const = 0;
};

/*!
 * \brief Continuous PCPS acquisition on a stream of \p Item, handing detections to a
 * multichannel correlator: one class for both input formats, as gr-blocks writes its
 * type variants (typedefs below).
 * \ingroup cudadsp
 *
 * \details Items: pcps_acquisition_cc takes gr_complex (cf32); pcps_acquisition_sc
 * interleaved int16 I/Q (std::complex<std::int16_t>, GRC "sc16", as UHD's sc16 output;
 * no scaling): feed multichannel_correlator_sc with the same stream. See
 * pcps_acquisition_base and docs/blocks/pcps_acquisition_cc.md.
 */
template <class Item>
class CUDADSP_API pcps_acquisition : virtual public pcps_acquisition_base
{
public:
    typedef std::shared_ptr<pcps_acquisition<Item>> sptr;

    /*!
     * \param sample_rate_hz input sample rate: at least twice the chip rate (GPS and
     * Galileo 2.046 MHz, GLONASS 1.022 MHz), at most 100 MHz.
     * \param signal "gps_l1ca", "galileo_e1" or "glonass_l1of".
     * \param satellites PRNs to search (GPS 1..32, Galileo 1..50) or GLONASS frequency
     * numbers (-7..6), each once, whose carrier (GLONASS k: IF + k 562.5 kHz) with the
     * Doppler window lies inside +-sample_rate_hz / 2; empty: all of the signal's that
     * do (the others are logged at construction).
     * \param doppler_max_hz Doppler window: doppler_center_hz +- this (>= 0).
     * \param doppler_step_hz Doppler bin spacing (> 0).
     * \param coherent_periods code periods per coherent integration (the coherent time
     * is a whole number of code periods): GPS 1..20, GLONASS 1..10, Galileo 1 (or up to
     * 25 with galileo_pilot).
     * \param noncoherent_dwells K, coherent integrations summed in power (1..1000).
     * \param false_alarm probability that noise alone is detected somewhere in one
     * satellite's grid, in (0, 1).
     * \param max_channels most satellites tracked at once (>= 1): with this many
     * handed off, the block stops searching until one returns.
     * \param satellites_per_search satellites in one search (>= 1); the search list is
     * walked round robin.
     * \param channel_parameters tracking parameters added to every detection dict: a
     * dict of the correlator's loop and tap keys (pll_bandwidth_hz, dll_bandwidth_hz,
     * fll_bandwidth_hz, tap_offsets_chips, cn0_epochs, ...), or PMT_NIL. Keys the block
     * sets itself (id, system, prn, code_phase_chips, ...) are refused. Without
     * fll_bandwidth_hz the detections carry fll_bandwidth_hz = 10 (FLL-assisted
     * pull-in from the acquisition's Doppler).
     * \param first_channel_id the first channel id the block allocates (ids count up
     * from it): give two acquisition blocks that feed one correlator disjoint ranges.
     * \param doppler_center_hz centre of the Doppler window (a front end's known
     * frequency offset).
     * \param intermediate_frequency_hz where the carrier lies in the stream (GLONASS:
     * frequency number 0's), |IF| < fs / 2; the detections carry it.
     * \param galileo_pilot Galileo: search the E1-C pilot alone (needed for
     * coherent_periods > 1) instead of E1-B and E1-C together.
     * \param device "auto", "cpu", "cuda" or "cuda:N".
     * \param stream_mode "live" (an SDR: never hold the stream back, drop the samples
     * that arrive while a search runs) or "recording" (a file or any finite stream:
     * search every sample, the stream waits for each search).
     */
    static sptr make(double sample_rate_hz,
                     const std::string& signal = "gps_l1ca",
                     const std::vector<int>& satellites = {},
                     double doppler_max_hz = 10e3,
                     double doppler_step_hz = 500.0,
                     int coherent_periods = 1,
                     int noncoherent_dwells = 10,
                     double false_alarm = 1e-3,
                     int max_channels = 12,
                     int satellites_per_search = 8,
                     const pmt::pmt_t& channel_parameters = pmt::PMT_NIL,
                     int first_channel_id = 0,
                     double doppler_center_hz = 0.0,
                     double intermediate_frequency_hz = 0.0,
                     bool galileo_pilot = false,
                     const std::string& device = "auto",
                     const std::string& stream_mode = "live");
};

typedef pcps_acquisition<gr_complex> pcps_acquisition_cc;
typedef pcps_acquisition<std::complex<std::int16_t>> pcps_acquisition_sc;

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_PCPS_ACQUISITION_CC_H */
