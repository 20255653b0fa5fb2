/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "correlator_bench_input.h"
#include "runtime/splitmix64.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <cmath>

namespace gr {
namespace cudadsp {
namespace bench {
namespace correlator_bench {

namespace {

std::vector<satellite> sky()
{
    // Code phases near the period's start: the first epoch, which the checks compare
    // with the reference, is then (almost) a whole millisecond.
    return { { 3, 0.4, 1234.0 },
             { 11, 1.2, -2870.0 },
             { 17, 0.05, 3321.5 },
             { 28, 2.5, -415.0 } };
}

} // namespace

/*!
 * Channel i: PRN 1 + i mod 32; the first satellite_count channels hold the simulated
 * satellites (their PRNs, phases and Dopplers), the rest random phases and Dopplers.
 */
std::vector<channel_plan> plan_channels(std::size_t n)
{
    const auto sats = sky();
    core::splitmix64 random(input_seed ^ 0x5bd1e995ull);
    std::vector<channel_plan> plan(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (i < sats.size()) {
            plan[i] = { sats[i].prn, sats[i].code_phase_chips, sats[i].doppler_hz };
        } else {
            plan[i] = { 1 + int(i % 32),
                        1023.0 * random.uniform(),
                        doppler_spread_hz * (2.0 * random.uniform() - 1.0) };
        }
    }
    return plan;
}

double code_rate_of(double doppler_hz)
{
    return core::gps_l1ca_chip_rate_cps * (1.0 + doppler_hz / core::gps_l1_frequency_hz);
}

input_buffers simulate(std::size_t n)
{
    core::gnss_simulator_config config;
    config.sample_rate_hz = sample_rate_hz;
    config.noise_power = 1.0;
    config.seed = input_seed;
    std::vector<core::gnss_simulated_satellite> sats;
    for (const auto& s : sky()) {
        core::gnss_simulated_satellite sat;
        sat.code = core::gps_l1ca_code(s.prn);
        sat.code_phase_chips = s.code_phase_chips;
        sat.doppler_hz = s.doppler_hz;
        sat.cn0_dbhz = satellite_cn0_dbhz;
        sats.push_back(sat);
    }
    input_buffers in;
    in.cf32.resize(n);
    in.ci16.resize(2 * n);
    in.ci8.resize(2 * n);
    core::gnss_signal_simulator(config, sats).generate(in.cf32.data(), n);
    // int16 with the noise at 1000 per part, int8 at 20: the usual front-end scalings.
    core::gnss_signal_simulator(config, sats).generate_ci16(in.ci16.data(), n, 1414.0);
    core::gnss_signal_simulator(config, sats).generate_ci8(in.ci8.data(), n, 28.0);
    return in;
}

std::vector<std::complex<double>> as_double(const input_buffers& in,
                                            core::gnss_sample_format f)
{
    const std::size_t n = in.cf32.size();
    std::vector<std::complex<double>> x(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (f == core::gnss_sample_format::cf32)
            x[i] = std::complex<double>(in.cf32[i]);
        else if (f == core::gnss_sample_format::ci16)
            x[i] = { double(in.ci16[2 * i]), double(in.ci16[2 * i + 1]) };
        else
            x[i] = { double(in.ci8[2 * i]), double(in.ci8[2 * i + 1]) };
    }
    return x;
}

const void* host_data(const input_buffers& in, core::gnss_sample_format f)
{
    switch (f) {
    case core::gnss_sample_format::ci16:
        return in.ci16.data();
    case core::gnss_sample_format::ci8:
        return in.ci8.data();
    default:
        return in.cf32.data();
    }
}

/*!
 * Float64 correlations of the first epoch of a channel with the engine's integer NCOs
 * (gnss_nco.h definitions, written out here): code phase in 2^-32 chips, the epoch
 * ends where it reaches 1023 chips; taps at -0.5, 0, +0.5 chip. Returns the taps and
 * sqrt(sum |x|^2) over the epoch (the natural scale of a correlator value).
 */
std::pair<std::vector<std::complex<double>>, double>
reference_first_epoch(const std::vector<std::complex<double>>& x, const channel_plan& c)
{
    const auto code = core::gps_l1ca_code(c.prn);
    const long double one = 4294967296.0L;
    const __int128 L = 1023;
    const __int128 step =
        std::llround((long double)code_rate_of(c.doppler_hz) / sample_rate_hz * one);
    __int128 phase =
        static_cast<__int128>(std::floor((long double)c.code_phase_chips * one));
    const std::uint32_t cstep = static_cast<std::uint32_t>(
        std::llround((long double)c.doppler_hz / sample_rate_hz * one));
    std::uint32_t carrier = 0;
    const __int128 shifts[taps] = { __int128(1) << 31, 0, -(__int128(1) << 31) };
    std::vector<std::complex<double>> sums(taps);
    double power = 0;
    for (std::size_t n = 0; n < x.size() && phase < L * (__int128(1) << 32); ++n) {
        const double theta = 2.0 * pi * double(carrier) / 4294967296.0;
        const std::complex<double> w =
            x[n] * std::complex<double>(std::cos(theta), -std::sin(theta));
        power += std::norm(x[n]);
        for (std::size_t k = 0; k < taps; ++k) {
            __int128 v = phase + shifts[k] + L * (__int128(1) << 32);
            const std::size_t e = static_cast<std::size_t>((v >> 32) % L);
            sums[k] += w * double(code[e]);
        }
        phase += step;
        carrier += cstep;
    }
    return { sums, std::sqrt(power) };
}

} // namespace correlator_bench
} // namespace bench
} // namespace cudadsp
} // namespace gr
