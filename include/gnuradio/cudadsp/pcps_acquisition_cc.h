/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_PCPS_ACQUISITION_CC_H
#define INCLUDED_CUDADSP_PCPS_ACQUISITION_CC_H

#include <gnuradio/cudadsp/api.h>
#include <gnuradio/cudadsp/core/pcps_acquisition.h>
#include <gnuradio/gr_complex.h>
#include <gnuradio/sync_block.h>
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
 * \brief The parameters of pcps_acquisition_cc and _sc: the engine's search, with its
 * defaults, and the block's hand-off to the correlator.
 * \ingroup cudadsp
 *
 * \details Python and GRC take the same values as keyword arguments (sample_rate_hz,
 * signal, satellites, ..., stream_mode): docs/blocks/pcps_acquisition_cc.md names the
 * field each one sets.
 */
struct CUDADSP_API pcps_acquisition_block_config {
    /*!
     * Signal, sample rate (required: at least twice the chip rate, at most 100 MHz),
     * intermediate frequency, Doppler window (centre, max, step), coherent periods,
     * non-coherent dwells (K), false-alarm probability, Galileo pilot and device: see
     * core::pcps_acquisition_config. batch_transforms is passed on as it is (Python
     * and GRC leave it 0: chosen by the engine).
     */
    core::pcps_acquisition_config acquisition;
    /*!
     * PRNs to search (GPS 1..32, Galileo 1..50) or GLONASS frequency numbers (-7..6),
     * each once, whose carrier (GLONASS k: IF + k 562.5 kHz) with the Doppler window
     * lies inside +-sample_rate_hz / 2; empty: all of the signal's that do (the others
     * are logged at construction).
     */
    std::vector<int> satellites = {};
    //! Most satellites tracked at once (>= 1): with this many handed off, the block
    //! stops searching until one returns.
    std::size_t max_channels = 12;
    //! Satellites in one search (>= 1); the search list is walked round robin.
    std::size_t satellites_per_search = 8;
    /*!
     * Tracking parameters added to every detection dict: a dict of the correlator's
     * loop and tap keys (pll_bandwidth_hz, dll_bandwidth_hz, fll_bandwidth_hz,
     * tap_offsets_chips, cn0_epochs, ...), or PMT_NIL. Keys the block sets itself (id,
     * system, prn, code_phase_chips, ...) are refused. Without fll_bandwidth_hz the
     * detections carry fll_bandwidth_hz = 10 (FLL-assisted pull-in from the
     * acquisition's Doppler).
     */
    pmt::pmt_t channel_parameters = pmt::PMT_NIL;
    //! The first channel id the block allocates (ids count up from it): give two
    //! acquisition blocks that feed one correlator disjoint ranges.
    std::uint32_t first_channel_id = 0;
    /*!
     * Galileo E1: the code a detection's channel tracks, its "system":
     * "galileo_e1c" (the pilot) or "galileo_e1b" (the data code, whose I/NAV symbols
     * the telemetry decoder reads). Either way the search is the same (one code
     * period's phase is the same on both). Other signals: not used.
     */
    std::string galileo_channel_system = "galileo_e1c";
    /*!
     * "live" (an SDR: never hold the stream back, drop the samples that arrive while
     * a search runs) or "recording" (a file or any finite stream: search every
     * sample, the stream waits for each search).
     */
    std::string stream_mode = "live";
};

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
     * Validates \p config (std::invalid_argument naming the field by its keyword
     * name), selects the backend and the satellites to search. Python and GRC:
     * pcps_acquisition_cc(sample_rate_hz, signal="gps_l1ca", ...), keyword for keyword
     * the fields of pcps_acquisition_block_config.
     */
    static sptr make(const pcps_acquisition_block_config& config);
};

typedef pcps_acquisition<gr_complex> pcps_acquisition_cc;
typedef pcps_acquisition<std::complex<std::int16_t>> pcps_acquisition_sc;

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_PCPS_ACQUISITION_CC_H */
