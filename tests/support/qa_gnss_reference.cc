/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_gnss_reference.h"
#include <cmath>

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

} // namespace

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

} // namespace qa
} // namespace cudadsp
} // namespace gr
