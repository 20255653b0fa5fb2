/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_MULTICHANNEL_CORRELATOR_FLOAT64_H
#define INCLUDED_CUDADSP_QA_MULTICHANNEL_CORRELATOR_FLOAT64_H

// The multichannel GNSS correlator's CUDA backend against the float64 reference and
// the CPU backend: cases of the CUDA backend alone (registered as name[cuda]; ctest
// runs them as qa_multichannel_correlator_float64_cuda, skipped without a device).
// qa_multichannel_correlator holds the cases run on both backends.
//
// The reference (qa_gnss_reference) is written from the definitions in
// lib/core/gnss/gnss_nco.h: code NCO P(n) = P0 + n S (units of 2^-32 table entries),
// S = round(rate epc / fs 2^32), P0 = floor(phase epc 2^32); an epoch of K periods of L
// entries holds the samples with P(n) < E = K L 2^32; tap k takes entry
// floor((P(n) + shift_k) / 2^32) mod L with shift_k = -round(offset_k epc 2^32); the
// carrier is a uint32 phase stepping by round(f / fs 2^32) and the replica
// exp(-j 2 pi phase / 2^32). Integers in __int128, sums in float64: the same chip for
// every sample as the engine must pick.
//
// Tolerance (as in qa_multichannel_correlator): 1e-4 of max(|reference|, sqrt(sum
// |x|^2) over the epoch); one wrong chip moves a value by about 3 % of that scale.
// Against the CPU backend: the fields that follow from the integer NCOs alone
// (start, length, epoch, code phase, rates, carrier phase and cycles) must be
// identical in open loop; in tracking, the lock and data-bit outcomes must agree.
//
// The suite's cases are defined by concern in
// qa_multichannel_correlator_float64_<concern>.cc; qa_multichannel_correlator_float64.cc
// registers it and holds the helpers they share.

#include "gnss/multichannel_correlator_cuda.h"
#include "qa_support.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <cppunit/extensions/HelperMacros.h>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! What the files of qa_multichannel_correlator_float64 share.
namespace multichannel_correlator_float64_qa {

//! A configuration of at most 100000 channels.
multichannel_correlator_config
make_config(const std::string& device,
            double fs,
            std::size_t taps = 3,
            gnss_sample_format f = gnss_sample_format::cf32);

//! Galileo E1 code \p prn of \p component as a BOC(1,1) table.
std::vector<std::int8_t>
e1_boc_table(int prn, galileo_e1_component component = galileo_e1_component::b);

//! The CUDA backend behind \p engine (fails the case if it is another).
multichannel_correlator_cuda& cuda_engine(multichannel_correlator& engine);

//! Simulated input in \p format, and the same samples as float64 for the reference.
struct test_input {
    std::vector<std::complex<double>> x;
    std::vector<std::complex<float>> cf32;
    std::vector<std::int16_t> ci16;
    std::vector<std::int8_t> ci8;
    const void* data(gnss_sample_format f) const
    {
        return f == gnss_sample_format::cf32
                   ? static_cast<const void*>(cf32.data())
                   : (f == gnss_sample_format::ci16
                          ? static_cast<const void*>(ci16.data())
                          : static_cast<const void*>(ci8.data()));
    }
};

//! \p n samples of \p sim in format \p f.
test_input simulate(gnss_signal_simulator& sim, std::size_t n, gnss_sample_format f);

//! strip_poison(), and every correlation the engine wrote is finite.
void strip_poison_finite(gnss_correlator_results& r);

//! Every field and correlation, bit for bit.
void assert_identical(const gnss_correlator_results& a, const gnss_correlator_results& b);

//! The fields of an open-loop record that follow from the integer NCOs alone.
void assert_same_nco_fields(const gnss_epoch_record& a, const gnss_epoch_record& b);

/*!
 * Correlations of the records of channel \p c in \p r against the reference; returns
 * the worst error as a fraction of the tolerance (fails above 1).
 */
double check_channel(const gnss_correlator_results& r,
                     const std::vector<std::complex<double>>& x,
                     double fs,
                     const gnss_channel& c,
                     const std::string& what);

} // namespace multichannel_correlator_float64_qa

class qa_multichannel_correlator_float64 : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_multichannel_correlator_float64);
    QA_CUDA_TEST(cf32_three_taps_against_float64);
    QA_CUDA_TEST(ci16_three_taps_against_float64);
    QA_CUDA_TEST(ci8_three_taps_against_float64);
    QA_CUDA_TEST(cf32_five_taps_against_float64);
    QA_CUDA_TEST(ci16_five_taps_against_float64);
    QA_CUDA_TEST(ci8_five_taps_against_float64);
    QA_CUDA_TEST(eleven_taps_two_passes);
    QA_CUDA_TEST(long_code_from_global_memory);
    QA_CUDA_TEST(split_invariance);
    QA_CUDA_TEST(call_longer_than_a_chunk);
    QA_CUDA_TEST(process_device_matches_process);
    QA_CUDA_TEST(add_remove_reinit_against_cpu);
    QA_CUDA_TEST(start_sample_past_and_future);
    QA_CUDA_TEST(tracking_simulated_sky_against_cpu);
    QA_CUDA_TEST(many_channels);
    CPPUNIT_TEST_SUITE_END();

public:
    // qa_multichannel_correlator_float64_values.cc
    void cf32_three_taps_against_float64(const std::string&);
    void ci16_three_taps_against_float64(const std::string&);
    void ci8_three_taps_against_float64(const std::string&);
    void cf32_five_taps_against_float64(const std::string&);
    void ci16_five_taps_against_float64(const std::string&);
    void ci8_five_taps_against_float64(const std::string&);
    void eleven_taps_two_passes(const std::string&);
    void long_code_from_global_memory(const std::string&);

    // qa_multichannel_correlator_float64_streams.cc
    void split_invariance(const std::string&);
    void call_longer_than_a_chunk(const std::string&);
    void process_device_matches_process(const std::string&);

    // qa_multichannel_correlator_float64_channels.cc
    void add_remove_reinit_against_cpu(const std::string&);
    void start_sample_past_and_future(const std::string&);
    void many_channels(const std::string&);

    // qa_multichannel_correlator_float64_tracking.cc
    void tracking_simulated_sky_against_cpu(const std::string&);
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_MULTICHANNEL_CORRELATOR_FLOAT64_H */
