/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_gnss_reference.h"
#include "qa_support.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>

namespace gr {
namespace cudadsp {
namespace qa {

namespace {

using cdouble = std::complex<double>;
using int128 = __int128;

const double pi = 3.14159265358979323846;
const long double two32 = 4294967296.0L;

std::int64_t ref_round(long double x) { return std::llround(x); }

//! floor(a / 2^32) for a signed 128-bit a.
int128 floor_div_2_32(int128 a)
{
    const int128 d = int128(1) << 32;
    int128 q = a / d;
    if (a % d != 0 && a < 0)
        q -= 1;
    return q;
}

//! \p v wrapped into [-period/2, period/2).
double wrap(double v, double period)
{
    v = std::fmod(v, period);
    if (v >= period / 2)
        v -= period;
    if (v < -period / 2)
        v += period;
    return v;
}

} // namespace

core::gnss_channel open_loop_channel(std::uint32_t id, std::vector<std::int8_t> code)
{
    core::gnss_channel c;
    c.id = id;
    c.code = std::move(code);
    c.mode = core::gnss_channel_mode::open_loop;
    return c;
}

void poison(core::gnss_correlator_results& r, std::size_t taps)
{
    r.clear();
    r.taps = taps;
    core::gnss_epoch_record bad;
    std::memset(&bad, 0xff, sizeof bad);
    r.records.push_back(bad);
    r.correlations.assign(taps, std::complex<float>(poison_value, poison_value));
}

void strip_poison(core::gnss_correlator_results& r)
{
    CPPUNIT_ASSERT(!r.records.empty());
    CPPUNIT_ASSERT_EQUAL(0xffffffffu, r.records[0].channel_id);
    for (std::size_t t = 0; t < r.taps; ++t)
        CPPUNIT_ASSERT_EQUAL(poison_value, r.correlations[t].real());
    r.records.erase(r.records.begin());
    r.correlations.erase(r.correlations.begin(), r.correlations.begin() + r.taps);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::vector<reference_epoch>
reference_correlate(const std::vector<cdouble>& x, double fs, const core::gnss_channel& c)
{
    const int128 L = c.code.size();
    const long double epc = c.code_entries_per_chip;
    const int128 S =
        ref_round((long double)c.code_rate_cps * epc / (long double)fs * two32);
    const int128 E = int128(c.periods_per_integration) * L * (int128(1) << 32);
    int128 P = (int128)std::floor((long double)c.code_phase_chips * epc * two32);
    const std::uint32_t carrier_step = static_cast<std::uint32_t>(
        ref_round((long double)c.carrier_frequency_hz / (long double)fs * two32));
    long double cycles = (long double)c.carrier_phase_rad / (2.0L * (long double)pi);
    cycles -= std::floor(cycles);
    std::uint32_t carrier = static_cast<std::uint32_t>(
        static_cast<std::uint64_t>(std::llround(cycles * two32)) & 0xffffffffu);
    std::vector<int128> shifts;
    for (double offset : c.tap_offsets_chips)
        shifts.push_back(-ref_round((long double)offset * epc * two32));

    std::vector<reference_epoch> epochs;
    reference_epoch current;
    current.taps.assign(shifts.size(), 0.0);
    double power = 0.0;
    for (std::size_t n = 0; n < x.size(); ++n) {
        const double theta = 2.0 * pi * static_cast<double>(carrier) / 4294967296.0;
        const cdouble wiped = x[n] * std::polar(1.0, -theta);
        power += std::norm(x[n]);
        for (std::size_t k = 0; k < shifts.size(); ++k) {
            int128 entry = floor_div_2_32(P + shifts[k]) % L;
            if (entry < 0)
                entry += L;
            current.taps[k] += wiped * double(c.code[static_cast<std::size_t>(entry)]);
        }
        ++current.count;
        P += S;
        carrier += carrier_step;
        if (P >= E) {
            P -= E;
            current.scale = std::sqrt(power);
            epochs.push_back(current);
            current = reference_epoch{};
            current.start = n + 1;
            current.taps.assign(shifts.size(), 0.0);
            power = 0.0;
        }
    }
    return epochs;
}

std::vector<std::size_t> records_of(const core::gnss_correlator_results& r,
                                    std::uint32_t id)
{
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < r.records.size(); ++i)
        if (r.records[i].channel_id == id)
            out.push_back(i);
    return out;
}

core::gnss_signal_simulator
simulate_sky(const std::vector<sky_satellite>& sky, double fs, std::uint64_t seed)
{
    core::gnss_simulator_config config;
    config.sample_rate_hz = fs;
    config.seed = seed;
    std::vector<core::gnss_simulated_satellite> sats;
    for (const sky_satellite& s : sky) {
        core::gnss_simulated_satellite sat;
        if (s.galileo()) {
            sat.code = s.e1b_table;
            sat.pilot_code = s.e1c_table;
            sat.code_entries_per_chip = 2;
            sat.code_periods_per_bit = 1;
        } else {
            sat.code = core::gps_l1ca_code(s.prn);
        }
        sat.code_phase_chips = s.code_phase_chips;
        sat.doppler_hz = s.doppler_hz;
        sat.doppler_rate_hz_per_s = s.doppler_rate_hz_per_s;
        sat.carrier_phase_rad = s.carrier_phase_rad;
        sat.cn0_dbhz = s.cn0_dbhz;
        sats.push_back(sat);
    }
    return core::gnss_signal_simulator(config, sats);
}

core::gnss_channel tracking_channel(const sky_satellite& s, std::uint32_t id)
{
    core::gnss_channel c;
    c.id = id;
    c.mode = core::gnss_channel_mode::tracking;
    c.code_phase_chips = std::fmod(
        s.code_phase_chips + s.code_error_chips + s.code_chips(), s.code_chips());
    c.carrier_frequency_hz = s.doppler_hz + s.doppler_error_hz;
    c.code_rate_cps =
        1.023e6 * (1.0 + c.carrier_frequency_hz / core::gps_l1_frequency_hz);
    c.loop.fll_bandwidth_hz = 10.0;
    c.loop.cn0_epochs = 50;
    if (s.third_order_pll) {
        c.loop.pll_order = 3;
        c.loop.pll_bandwidth_hz = 25.0;
    }
    if (s.galileo()) {
        c.code = s.e1c_table;
        c.code_entries_per_chip = 2;
        c.tap_offsets_chips = { -0.15, 0.0, 0.15 };
        c.loop.pll_bandwidth_hz = 10.0;
        c.loop.fll_bandwidth_hz = 5.0;
        c.loop.dll_bandwidth_hz = 1.0;
        c.loop.cn0_epochs = 25;
    } else {
        c.code = core::gps_l1ca_code(s.prn);
    }
    return c;
}

tracking_quality measure_tracking(const core::gnss_correlator_results& r,
                                  const core::gnss_signal_simulator& sim,
                                  std::size_t i,
                                  const sky_satellite& s,
                                  double fs,
                                  double settle_s)
{
    tracking_quality q;
    double code_sq = 0.0, doppler_sq = 0.0, cn0_sum = 0.0;
    std::vector<std::pair<std::int64_t, double>> bit_sums;
    for (std::size_t j : records_of(r, static_cast<std::uint32_t>(i))) {
        const core::gnss_epoch_record& rec = r.records[j];
        const double begin = double(rec.start_sample);
        const double next = begin + rec.sample_count;
        if (begin < settle_s * fs)
            continue;
        const double code_error =
            wrap(rec.code_phase_chips - sim.code_phase_chips(i, next), s.code_chips());
        const double doppler_error = rec.doppler_hz - sim.doppler_hz(i, next);
        code_sq += code_error * code_error;
        doppler_sq += doppler_error * doppler_error;
        cn0_sum += rec.cn0_dbhz;
        ++q.epochs;
        const std::uint32_t lock =
            core::gnss_flag_code_lock | core::gnss_flag_carrier_lock;
        if ((rec.flags & lock) != lock && ++q.unlocked <= 3)
            std::cout << "qa_gnss_reference: channel " << i << " unlocked at "
                      << begin / fs << " s: cn0 " << rec.cn0_dbhz << " lock "
                      << rec.carrier_lock << " code error " << code_error
                      << " Doppler error " << doppler_error << std::endl;
        const std::int64_t bit = sim.bit_index(i, begin);
        if (!s.galileo() && bit == sim.bit_index(i, next - 1)) {
            if (bit_sums.empty() || bit_sums.back().first != bit)
                bit_sums.emplace_back(bit, 0.0);
            bit_sums.back().second += r.taps_of(j)[1].real();
        }
    }
    const double epochs = double(std::max<std::size_t>(q.epochs, 1));
    q.code_rms_chips = std::sqrt(code_sq / epochs);
    q.doppler_rms_hz = std::sqrt(doppler_sq / epochs);
    q.cn0_mean_dbhz = cn0_sum / epochs;
    if (!bit_sums.empty()) {
        const int ambiguity =
            (bit_sums[0].second < 0 ? -1 : 1) * sim.bit(i, bit_sums[0].first);
        for (const auto& [index, sum] : bit_sums) {
            const int decoded = (sum < 0 ? -1 : 1) * ambiguity;
            q.decoded_bits.push_back(decoded);
            q.bit_errors += decoded != sim.bit(i, index);
        }
    }
    return q;
}

} // namespace qa
} // namespace cudadsp
} // namespace gr
