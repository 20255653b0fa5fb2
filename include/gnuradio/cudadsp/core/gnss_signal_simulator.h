/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_GNSS_SIGNAL_SIMULATOR_H
#define INCLUDED_CUDADSP_CORE_GNSS_SIGNAL_SIMULATOR_H

#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief One simulated satellite signal.
 *
 * At time t = n / sample_rate (n the absolute sample index from 0):
 *   Doppler    f_d(t)   = doppler_hz + doppler_rate_hz_per_s t
 *   carrier    theta(t) = carrier_phase_rad + 2 pi (IF t + doppler_hz t + rate t^2 / 2)
 *   code phase chi(t)   = code_phase_chips + chip_rate_cps (t + (doppler_hz t + rate t^2
 *                         / 2) / carrier_frequency_hz)   (chips, unwrapped)
 * so the code Doppler follows the carrier's (the same path delay). The sample is
 *   s(n) = A d(b) code[floor(chi epc) mod L] exp(j theta)
 * or, with a pilot table, A (d(b) code[...] - pilot_code[...]) / sqrt(2) exp(j theta)
 * (Galileo E1 B and C), where b = floor(chi / (chips per period * code_periods_per_bit))
 * is the data bit index (bit edges fall on code period edges), d(b) = +1 or -1, and A =
 * sqrt(10^(cn0_dbhz / 10) N0) with N0 = noise_power / sample_rate (the complex noise's
 * power spectral density), so C/N0 holds whatever the noise power.
 */
/*!
 * \brief A satellite's code and carrier phases as a table, for paths the linear Doppler
 * model cannot follow (a satellite orbit seen from a receiver,
 * gps_constellation_scenario).
 *
 * Entry k holds the phases at time k interval_s after sample 0; between entries the
 * cubic through the four nearest entries interpolates (the end cubics at the edges),
 * and its derivative gives the code rate and the Doppler. A cubic over 1-ms steps
 * follows a satellite's range to far below 1 mm: the error is of order h^4 times the
 * range's fourth derivative.
 */
struct CUDADSP_CORE_API gnss_phase_track {
    double interval_s = 1e-3;              //!< > 0
    std::vector<double> code_phase_chips;  //!< chi, unwrapped, >= 0 at entry 0
    std::vector<double> carrier_phase_rad; //!< theta without IF, as many entries
};

struct CUDADSP_CORE_API gnss_simulated_satellite {
    std::vector<std::int8_t> code;       //!< data-channel table, one period, +-1
    std::vector<std::int8_t> pilot_code; //!< empty, or a pilot table of the same length
    std::uint32_t code_entries_per_chip = 1;
    double chip_rate_cps = gps_l1ca_chip_rate_cps;     //!< nominal, > 0
    double carrier_frequency_hz = gps_l1_frequency_hz; //!< nominal RF, > 0
    double code_phase_chips = 0.0;                     //!< chi at sample 0, >= 0
    double doppler_hz = 0.0;                           //!< at sample 0
    double doppler_rate_hz_per_s = 0.0;
    double carrier_phase_rad = 0.0; //!< at sample 0, without IF
    double cn0_dbhz = 45.0;
    //! Code periods per data bit (GPS L1 C/A: 20, Galileo E1-B: 1); 0: no data.
    std::uint32_t code_periods_per_bit = 20;
    //! Data bits +1 / -1, repeated cyclically; empty: random bits from the seed.
    std::vector<std::int8_t> bits;
    /*! Empty: the Doppler model above. Otherwise chi(t) and theta(t) - 2 pi IF t -
     *  carrier_phase_rad come from this table instead, and code_phase_chips, doppler_hz
     *  and doppler_rate_hz_per_s must be 0. It must reach past the last sample made. */
    gnss_phase_track track;
};

struct CUDADSP_CORE_API gnss_simulator_config {
    double sample_rate_hz = 4e6;            //!< > 0
    double intermediate_frequency_hz = 0.0; //!< |IF| < sample_rate / 2
    double noise_power = 1.0;               //!< complex noise power per sample, >= 0
    std::uint64_t seed = 1;                 //!< noise and random bits
};

/*!
 * \brief Several GNSS satellites plus complex white Gaussian noise, with their truth.
 *
 * generate() continues where the previous call stopped, so a long signal can be made in
 * pieces. Noise and random data bits come from splitmix64 (platform-independent):
 * the same seed gives the same samples everywhere. The truth functions take any
 * absolute sample index, past or future.
 */
class CUDADSP_CORE_API gnss_signal_simulator
{
public:
    //! Throws std::invalid_argument naming the field (e.g. "satellites[2].code").
    gnss_signal_simulator(const gnss_simulator_config& config,
                          const std::vector<gnss_simulated_satellite>& satellites);

    /*! The next \p n samples, complex float32. Each generate call throws
     *  std::out_of_range when a satellite's track ends before its last sample. */
    void generate(std::complex<float>* out, std::size_t n);
    /*! The next \p n samples as interleaved I/Q integers: round(scale * x), saturated to
     *  the type's range (the noise's standard deviation per part becomes scale *
     *  sqrt(noise_power / 2)). */
    void generate_ci16(std::int16_t* out, std::size_t n, double scale);
    void generate_ci8(std::int8_t* out, std::size_t n, double scale);

    //! Absolute index of the next sample generate() makes.
    std::uint64_t position() const { return d_position; }
    const gnss_simulator_config& config() const { return d_config; }
    std::size_t satellite_count() const { return d_satellites.size(); }

    //! Unwrapped code phase chi (chips) of satellite \p sat at (fractional) sample n.
    double code_phase_total_chips(std::size_t sat, double n) const;
    //! Code phase within the code period, [0, chips).
    double code_phase_chips(std::size_t sat, double n) const;
    double code_rate_cps(std::size_t sat, double n) const;
    double doppler_hz(std::size_t sat, double n) const;
    //! Unwrapped carrier phase theta (rad), IF included.
    double carrier_phase_rad(std::size_t sat, double n) const;
    //! Data bit index b and value d(b) at sample n (1 when the satellite has no data).
    std::int64_t bit_index(std::size_t sat, double n) const;
    int bit(std::size_t sat, std::int64_t index) const;
    //! Signal amplitude A.
    double amplitude(std::size_t sat) const;

private:
    void generate_block(std::complex<double>* out, std::size_t n);
    void require_tracks_reach(std::size_t n) const;

    gnss_simulator_config d_config;
    std::vector<gnss_simulated_satellite> d_satellites;
    std::vector<double> d_amplitude;
    std::uint64_t d_position = 0;
    std::uint64_t d_noise_state;
    std::vector<std::complex<double>> d_block;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_SIGNAL_SIMULATOR_H */
