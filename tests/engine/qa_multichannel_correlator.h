/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_MULTICHANNEL_CORRELATOR_H
#define INCLUDED_CUDADSP_QA_MULTICHANNEL_CORRELATOR_H

// Multichannel GNSS correlator engine, every case defined once and run on the CPU and
// the CUDA backend (the CUDA backend's own cases are in
// qa_multichannel_correlator_float64). The suite's cases are defined by concern in
// qa_multichannel_correlator_<concern>.cc; qa_multichannel_correlator.cc registers it.
//
// References, written here from the definitions in lib/core/gnss/gnss_nco.h (not from
// its code): the code NCO is P(n) = P0 + n S in units of 2^-32 table entries, with
// S = round(rate * epc / fs * 2^32) and P0 = floor(phase * epc * 2^32); an epoch of K
// periods of L entries holds the samples with P(n) < E = K L 2^32; tap k at sample n
// uses entry floor((P(n) + shift_k) / 2^32) mod L, shift_k = -round(offset_k * epc *
// 2^32); the carrier NCO is a uint32 phase stepping by round(f / fs * 2^32), the replica
// exp(-j 2 pi phase / 2^32). The test computes all of it with its own integer code
// (__int128 floor division, long double rounding) and sums the reference correlations
// in float64.
//
// Tolerances. The engine sums float32 products in blocks and float64 across blocks, and
// evaluates the carrier in float32 (error below 3.2e-7); the reference is float64. For
// an epoch the natural scale of a correlator value is sqrt(sum |x|^2) over its samples
// (the size of a noise sum): the engine must agree within 1e-4 of max(|reference|,
// that scale). One wrong chip would move a value by 2 |x[n]|, about 3 % of that scale
// for an epoch of 4000 samples, so the check also pins every chip choice.
//
// Tracking runs on gnss_signal_simulator signals (truth known at every sample).

#include "qa_support.h"
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <cppunit/extensions/HelperMacros.h>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! What the files of qa_multichannel_correlator share.
namespace multichannel_correlator_qa {

multichannel_correlator_config
make_config(const std::string& device,
            double fs,
            std::size_t taps = 3,
            gnss_sample_format format = gnss_sample_format::cf32);

//! \p n complex Gaussian samples of \p power, from \p seed.
std::vector<std::complex<double>>
noise_samples(std::size_t n, std::uint64_t seed, double power = 1.0);

std::vector<std::complex<float>> to_cf32(const std::vector<std::complex<double>>& x);

} // namespace multichannel_correlator_qa

class qa_multichannel_correlator : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_multichannel_correlator);
    CPPUNIT_TEST(formats_and_names);
    CPPUNIT_TEST(bad_configuration_names_the_field);
    QA_BACKEND_TEST(epoch_sample_counts);
    QA_BACKEND_TEST(chip_at_epoch_edges);
    QA_BACKEND_TEST(cf32_against_float64);
    QA_BACKEND_TEST(ci16_against_float64);
    QA_BACKEND_TEST(ci8_against_float64);
    QA_BACKEND_TEST(split_invariance);
    QA_BACKEND_TEST(open_loop_keeps_its_rates);
    QA_BACKEND_TEST(start_sample_past_and_future);
    QA_BACKEND_TEST(add_remove_reinit);
    QA_BACKEND_TEST(tracking_simulated_sky);
    QA_BACKEND_TEST(tracking_through_bad_samples);
    CPPUNIT_TEST_SUITE_END();

public:
    // qa_multichannel_correlator_configuration.cc
    void formats_and_names();
    void bad_configuration_names_the_field();

    // qa_multichannel_correlator_epochs.cc
    void epoch_sample_counts(const std::string& device);
    void chip_at_epoch_edges(const std::string& device);
    void open_loop_keeps_its_rates(const std::string& device);

    // qa_multichannel_correlator_values.cc
    void cf32_against_float64(const std::string& device);
    void ci16_against_float64(const std::string& device);
    void ci8_against_float64(const std::string& device);
    void split_invariance(const std::string& device);

    // qa_multichannel_correlator_channels.cc
    void start_sample_past_and_future(const std::string& device);
    void add_remove_reinit(const std::string& device);

    // qa_multichannel_correlator_tracking.cc
    void tracking_simulated_sky(const std::string& device);
    void tracking_through_bad_samples(const std::string& device);
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_MULTICHANNEL_CORRELATOR_H */
