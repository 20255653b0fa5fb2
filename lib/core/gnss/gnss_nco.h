/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_GNSS_NCO_H
#define INCLUDED_CUDADSP_CORE_GNSS_NCO_H

/*
 * The code and carrier NCOs of the multichannel correlator, shared by the CPU and CUDA
 * backends. Both are integers, so every backend picks the same code table entry and
 * the same carrier phase for every sample, whatever order it visits the samples in (a
 * float code index, as in Xu et al. 2016, rounds differently on CPU and GPU and picks a
 * different chip now and then).
 *
 * Code NCO. Unsigned 64-bit fixed point in code-table entries with 32 fractional bits
 * ("fp": value * 2^32). The phase counts from the start of the current epoch
 * (integration interval of K code periods of L entries), so it lies in [0, E) with
 * E = K L 2^32. The step per sample is round(code rate * entries per chip / sample rate
 * * 2^32); a channel's initial phase is floor(code_phase_chips * entries per chip *
 * 2^32). For sample n of an epoch whose first sample has phase P0:
 *
 *     phase(n)        = P0 + n * step                       (exact, no wrap: < 2^63)
 *     entry(n, tap k) = floor((phase(n) + shift_k) / 2^32) mod L   (mathematical mod)
 *     shift_k         = -round(tap_offsets_chips[k] * entries_per_chip * 2^32)
 *
 * and the epoch holds the samples whose phase is below E, i.e. N = ceil((E - P0) / step)
 * samples; the next epoch starts at phase P0 + N step - E. Any implementation must
 * produce these integers; gnss_code_entry() is the definition, gnss_tap_walker an
 * equivalent incremental form for contiguous walks. Validation keeps (K + 1) L < 2^31,
 * |shift| < L 2^32 and step < L 2^32, so nothing below overflows.
 *
 * Frequency resolution: one step unit is 2^-32 entries per sample (at 10 Msps, 2.3e-3
 * entries/s); the loops absorb it, and open-loop users see it as a code rate rounded to
 * that grid.
 *
 * Carrier NCO. uint32 phase, 2^32 = one cycle, int32 step = round(f / fs * 2^32)
 * (|f| < fs / 2), wrapping modulo 2^32: phase(n) = phase0 + n * step (mod 2^32). The
 * replica exp(-j theta) is evaluated from the integer phase by gnss_carrier_cos_sin():
 * the nearest quarter cycle q is taken from the integer (exact), the remainder
 * r in [-2^29, 2^29) is converted to x = r 2 pi / 2^32 in [-pi/4, pi/4) as float, and
 * cos x, sin x come from their Taylor polynomials to x^8 and x^7 (truncation below
 * 3.2e-7 on that interval, i.e. float32 accuracy); a quarter-cycle rotation by q
 * finishes. The same arithmetic in both backends; only float rounding and FMA
 * contraction may differ (a few 1e-7).
 */

#include "runtime/host_device.h"
#include <cmath>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace core {

constexpr double gnss_fp_one = 4294967296.0; //!< 2^32

//! Code NCO step (entries * 2^32 per sample) for a code rate; rate > 0.
CUDADSP_HOST_DEVICE std::uint64_t
gnss_code_step(double code_rate_cps, double entries_per_chip, double sample_rate_hz)
{
    // Positive and far below 2^52, where x + 0.5 truncated is round-half-up exactly.
    return static_cast<std::uint64_t>(
        code_rate_cps * entries_per_chip / sample_rate_hz * gnss_fp_one + 0.5);
}

//! Code rate (chips/s) that a step stands for.
CUDADSP_HOST_DEVICE double
gnss_code_rate_of_step(std::uint64_t step, double entries_per_chip, double sample_rate_hz)
{
    return static_cast<double>(step) / gnss_fp_one * sample_rate_hz / entries_per_chip;
}

/*!
 * Samples from a phase to the end of its epoch (>= 1 while phase < epoch_length): the
 * exact ceil((epoch_length - phase) / step). Below 2^53 (every real epoch: E < 2^48)
 * the float64 quotient of the exactly represented operands is within one of the true
 * one and is corrected to it, which spares the GPU a 64-bit integer division (a called
 * subroutine) in the tracking rule; the result is the integer division's on any
 * platform.
 */
CUDADSP_HOST_DEVICE std::uint64_t gnss_samples_to_epoch_end(std::uint64_t phase,
                                                            std::uint64_t epoch_length,
                                                            std::uint64_t step)
{
    const std::uint64_t n = epoch_length - phase + step - 1;
    if (n >= (std::uint64_t(1) << 53))
        return n / step;
    std::uint64_t q =
        static_cast<std::uint64_t>(static_cast<double>(n) / static_cast<double>(step));
    const std::uint64_t qs = q * step; // <= n + step < 2^64
    if (qs > n)
        q -= 1;
    else if (n - qs >= step)
        q += 1;
    return q;
}

/*!
 * Code table entry of a tap at a code phase: floor((phase + shift) / 2^32) mod entries.
 * phase + shift is negative for an early tap at the very start of an epoch; adding one
 * code period first keeps the sum non-negative (|shift| < entries 2^32) without
 * changing the result modulo the period. The addition of the two's-complement shift
 * wraps modulo 2^64, which is exactly the signed sum.
 */
CUDADSP_HOST_DEVICE std::uint32_t
gnss_code_entry(std::uint64_t phase, std::int64_t shift, std::uint32_t entries)
{
    const std::uint64_t biased = phase + (static_cast<std::uint64_t>(entries) << 32) +
                                 static_cast<std::uint64_t>(shift);
    return static_cast<std::uint32_t>((biased >> 32) % entries);
}

/*!
 * gnss_code_entry() along consecutive samples without a division per sample: the
 * biased phase is kept modulo one code period and stepped. Requires step < one period.
 */
struct gnss_tap_walker {
    std::uint64_t in_period; //!< (phase + shift + period) mod period
    std::uint64_t period;    //!< entries * 2^32

    CUDADSP_HOST_DEVICE void
    start(std::uint64_t phase, std::int64_t shift, std::uint32_t entries)
    {
        period = static_cast<std::uint64_t>(entries) << 32;
        in_period = (phase + period + static_cast<std::uint64_t>(shift)) % period;
    }
    CUDADSP_HOST_DEVICE std::uint32_t entry() const
    {
        return static_cast<std::uint32_t>(in_period >> 32);
    }
    CUDADSP_HOST_DEVICE void advance(std::uint64_t step)
    {
        in_period += step;
        if (in_period >= period)
            in_period -= period;
    }
};

//! Carrier NCO step for a frequency, |frequency| < sample_rate / 2.
CUDADSP_HOST_DEVICE std::int32_t gnss_carrier_step(double frequency_hz,
                                                   double sample_rate_hz)
{
    const double x = frequency_hz / sample_rate_hz * gnss_fp_one;
    // Round half away from zero, as llround; |x| < 2^31 by validation.
    return static_cast<std::int32_t>(x < 0.0 ? -static_cast<std::int64_t>(-x + 0.5)
                                             : static_cast<std::int64_t>(x + 0.5));
}

//! Carrier phase (2^32 per cycle) of a phase in radians, any real value.
CUDADSP_HOST_DEVICE std::uint32_t gnss_carrier_phase_of_rad(double phase_rad)
{
    const double cycles = phase_rad / 6.283185307179586476925286766559;
    const double fraction = cycles - floor(cycles); // [0, 1)
    // Rounding may give 2^32, which the uint32 cast wraps to 0 as it should.
    return static_cast<std::uint32_t>(
        static_cast<std::uint64_t>(fraction * gnss_fp_one + 0.5));
}

//! Carrier phase in radians, [-pi, pi).
CUDADSP_HOST_DEVICE double gnss_carrier_phase_rad(std::uint32_t phase)
{
    return static_cast<double>(static_cast<std::int32_t>(phase)) *
           (6.283185307179586476925286766559 / gnss_fp_one);
}

/*!
 * cos(theta) and sin(theta), theta = 2 pi phase / 2^32; the wipe-off multiplies a sample
 * by (c - j s). See the file comment for the construction and its accuracy.
 */
CUDADSP_HOST_DEVICE void gnss_carrier_cos_sin(std::uint32_t phase, float& c, float& s)
{
    const std::uint32_t q = ((phase + 0x20000000u) >> 30) & 3u;
    const std::int32_t r = static_cast<std::int32_t>(phase - (q << 30));
    const float x = static_cast<float>(r) * 1.46291807926715968e-09f; // 2 pi / 2^32
    const float x2 = x * x;
    const float sx =
        x *
        (1.0f + x2 * (-1.66666667e-01f + x2 * (8.33333333e-03f + x2 * -1.98412698e-04f)));
    const float cx =
        1.0f + x2 * (-0.5f + x2 * (4.16666667e-02f +
                                   x2 * (-1.38888889e-03f + x2 * 2.48015873e-05f)));
    // theta = q pi/2 + x: rotate (cos x, sin x) by q quarter turns.
    const bool odd = (q & 1u) != 0;
    const float c0 = odd ? sx : cx;
    const float s0 = odd ? cx : sx;
    c = (q == 1u || q == 2u) ? -c0 : c0;
    s = (q >= 2u) ? -s0 : s0;
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_NCO_H */
