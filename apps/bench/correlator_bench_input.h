/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BENCH_CORRELATOR_BENCH_INPUT_H
#define INCLUDED_CUDADSP_BENCH_CORRELATOR_BENCH_INPUT_H

// The input of cudadsp_bench's section correlator (bench_correlator.cc): a simulated
// GPS L1 C/A signal at the paper's rate in three sample formats, the channels' replicas
// (a few matched to the simulated satellites) and the float64 reference of a channel's
// first epoch.

#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {
namespace correlator_bench {

constexpr double pi = 3.14159265358979323846;
constexpr double sample_rate_hz = 9.75e6;   // the paper's complex rate
constexpr std::size_t epoch_samples = 9750; // 1 ms of GPS L1 C/A
constexpr std::size_t taps = 3;
constexpr int satellite_count = 4;
constexpr double satellite_cn0_dbhz = 50.0;
constexpr double doppler_spread_hz = 5000.0;
constexpr std::uint64_t input_seed = 20260404;

struct satellite {
    int prn;
    double code_phase_chips;
    double doppler_hz;
};

//! A channel's replica: PRN, code phase (chips) and Doppler at sample 0.
struct channel_plan {
    int prn;
    double code_phase_chips;
    double doppler_hz;
};

//! The buffer in all three formats (the same simulated signal, seeded alike).
struct input_buffers {
    std::vector<std::complex<float>> cf32;
    std::vector<std::int16_t> ci16;
    std::vector<std::int8_t> ci8;
};

std::vector<channel_plan> plan_channels(std::size_t n);
//! The code rate (chips/s) of a GPS L1 C/A channel at \p doppler_hz.
double code_rate_of(double doppler_hz);
//! \p n samples of the simulated signal in every format.
input_buffers simulate(std::size_t n);
//! The buffer in format \p f as complex float64 values.
std::vector<std::complex<double>> as_double(const input_buffers& in,
                                            core::gnss_sample_format f);
//! The host buffer of format \p f.
const void* host_data(const input_buffers& in, core::gnss_sample_format f);
std::pair<std::vector<std::complex<double>>, double>
reference_first_epoch(const std::vector<std::complex<double>>& x, const channel_plan& c);

} // namespace correlator_bench
} // namespace bench
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BENCH_CORRELATOR_BENCH_INPUT_H */
