/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_GNSS_REFERENCE_H
#define INCLUDED_CUDADSP_QA_GNSS_REFERENCE_H

// The float64 reference of the multichannel correlator tests (CPU and CUDA backends):
// written from the NCO definitions of multichannel_correlator.h in 128-bit integers,
// not from the engine's rules, so it can disagree with both backends. And the simulated
// sky of their tracking cases, with the measures of a channel against its truth.

#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

//! An open-loop channel of \p id on \p code (no tracking loops, nominal rates).
core::gnss_channel open_loop_channel(std::uint32_t id, std::vector<std::int8_t> code);

/*!
 * Poisons \p r so that a field the engine leaves unwritten is caught: process()
 * appends, so every record it writes lands after one record of all-ones bytes and its
 * poison_value correlations.
 */
void poison(core::gnss_correlator_results& r, std::size_t taps);

//! Checks that the poison of poison() is intact and removes it, leaving what the
//! engine appended.
void strip_poison(core::gnss_correlator_results& r);

//! Bitwise equality (NaN payloads and signed zeros included).
bool same_bits(double a, double b);
bool same_bits(float a, float b);

//! One completed open-loop epoch of the reference.
struct reference_epoch {
    std::uint64_t start = 0; //!< absolute index of the first sample
    std::uint32_t count = 0; //!< samples in the epoch
    std::vector<std::complex<double>> taps;
    double scale = 0.0; //!< sqrt(sum |x|^2) over the epoch
};

/*!
 * Open-loop correlations of channel \p c over samples [0, x.size()) (x[0] is absolute
 * sample 0) at \p fs samples/s: the epochs completed inside x, in order.
 */
std::vector<reference_epoch> reference_correlate(
    const std::vector<std::complex<double>>& x, double fs, const core::gnss_channel& c);

//! Indices of channel \p id's records in \p r, in order.
std::vector<std::size_t> records_of(const core::gnss_correlator_results& r,
                                    std::uint32_t id);

/*!
 * A satellite of a simulated tracking sky, and the acquisition-like errors its tracking
 * channel starts from. GPS L1 C/A with 50 bps data, or (with E1 tables) Galileo E1 B+C
 * tracked on its pilot.
 */
struct sky_satellite {
    int prn;
    double cn0_dbhz;
    double doppler_hz;
    double doppler_rate_hz_per_s;
    double code_phase_chips;
    double carrier_phase_rad;
    double code_error_chips;
    double doppler_error_hz;
    bool third_order_pll; //!< 25 Hz 3rd order, instead of the default PLL
    //! Galileo E1-B and E1-C as BOC(1,1) tables; both empty for GPS.
    std::vector<std::int8_t> e1b_table, e1c_table;

    bool galileo() const { return !e1c_table.empty(); }
    double code_chips() const { return galileo() ? 4092.0 : 1023.0; }
};

//! The signal of \p sky at \p fs samples/s, noise seeded by \p seed.
core::gnss_signal_simulator
simulate_sky(const std::vector<sky_satellite>& sky, double fs, std::uint64_t seed);

/*!
 * The tracking channel of \p s: code phase and Doppler off by the satellite's errors,
 * FLL-assisted PLL (10 Hz FLL), C/N0 over 50 epochs; the Galileo pilot with narrow taps
 * (+-0.15 chip) and slower loops.
 */
core::gnss_channel tracking_channel(const sky_satellite& s, std::uint32_t id);

//! How channel \p i tracked, from the settling time on.
struct tracking_quality {
    std::size_t epochs = 0;   //!< epochs measured
    std::size_t unlocked = 0; //!< of them, without code and carrier lock
    double code_rms_chips = 0.0;
    double doppler_rms_hz = 0.0;
    double cn0_mean_dbhz = 0.0;
    //! GPS data bits, decoded from prompt I summed over each bit (the PLL's half-cycle
    //! ambiguity resolved by the first bit), and how many differ from the simulated.
    std::vector<int> decoded_bits;
    std::size_t bit_errors = 0;
};

/*!
 * The records of channel \p i (satellite \p s of \p sim) in \p r that start at or
 * after \p settle_s against the simulator's truth at the end of each epoch. Prints the
 * first few unlocked epochs, to diagnose a failure.
 */
tracking_quality measure_tracking(const core::gnss_correlator_results& r,
                                  const core::gnss_signal_simulator& sim,
                                  std::size_t i,
                                  const sky_satellite& s,
                                  double fs,
                                  double settle_s);

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_GNSS_REFERENCE_H */
