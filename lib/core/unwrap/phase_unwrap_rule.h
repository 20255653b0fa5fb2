/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_RULE_H
#define INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_RULE_H

// The per-sample arithmetic of the phase unwrapper, shared verbatim by the CPU and
// CUDA backends so that both make the same decision on every sample.

#include "runtime/host_device.h"
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * Largest magnitude of a sample that is a phase, in periods. From 2^24 periods on, the
 * spacing of float32 values is more than a period (ulp(x) >= 2^(1 + floor(log2 P)) > P),
 * so such a sample holds no phase within a period: it is a glitch (a saturated or
 * corrupted value, 3e38 from an overflow) and is treated as NaN is. Bounding the
 * samples bounds every step by 2^25 periods, and the steps of a run telescope: a run's
 * wrap count is -(x_last - x_first) / P plus at most 1/2 per step, so a tile's count
 * fits 32 bits in the CUDA backend's look-back, and K the 64 bits it is kept in, with
 * no step ever capped. (Exact counts for any finite float32 would need integers of
 * hundreds of bits: a step of 6.8e38 with P = 2 pi is 1e38 periods.)
 */
constexpr double max_sample_periods = 16777216.0; // 2^24

//! Period-dependent constants, computed once per configuration.
struct unwrap_period {
    double period;
    double half_period;
    double inverse_period;
    float half_period_f;
    float inverse_period_f;
    //! The largest float32 below max_sample_periods * period (FLT_MAX if none is
    //! above it): a sample is a phase when its magnitude is at most this.
    float sample_limit;
};

inline unwrap_period make_unwrap_period(double period)
{
    const double half = 0.5 * period;
    const double bound = max_sample_periods * period;
    float limit = std::numeric_limits<float>::max();
    if (bound <= static_cast<double>(limit)) {
        limit = static_cast<float>(bound);
        while (static_cast<double>(limit) >= bound)
            limit = std::nextafter(limit, 0.0f);
    }
    return { period,
             half,
             1.0 / period,
             static_cast<float>(half),
             static_cast<float>(1.0 / period),
             limit };
}

/*! Largest correction unwrap_step_exact() returns, in periods: keeps the conversion to
 *  32 bits defined for the 2-D rule's callers, whose input is not bounded. The 1-D
 *  engine never reaches it: its steps are below 2 * max_sample_periods. */
constexpr double max_step_periods = 1073741824.0; // 2^30
static_assert(2.0 * max_sample_periods < max_step_periods,
              "1-D steps must never be capped");

//! The exact decision of unwrap_step(), in float64 (where float32 differences are exact).
CUDADSP_HOST_DEVICE std::int32_t
unwrap_step_exact(float previous, float x, const unwrap_period& p)
{
    const double d = static_cast<double>(x) - static_cast<double>(previous);
    const double magnitude = std::fabs(d);
    if (magnitude <= p.half_period)
        return 0;
    const double count = std::ceil((magnitude - p.half_period) * p.inverse_period);
    const double limited = count < max_step_periods ? count : max_step_periods;
    const std::int32_t k = static_cast<std::int32_t>(limited);
    return d > 0.0 ? -k : k;
}

/*!
 * Correction count for the step from the previous finite sample \p previous to \p x:
 * the k with |d + kP| <= P/2 of smallest |k| (numpy.unwrap's choice: ties at exactly
 * P/2 keep the sign of d), i.e. k = -sign(d) * ceil((|d| - P/2) / P).
 *
 * The decision is that of the exact difference. It is made in float32 wherever float32
 * provably gets it right: the error of t = (|d| - P/2)/P in float32 is a few 2^-24
 * (|t| + 1), so when t is more than 2^-18 (|t| + 2) from an integer, ceil(t) is exact.
 * Otherwise (near a tie, for |t| >= 2^15, or a NaN t from an overflowing difference)
 * the float64 path decides. Rounding to an integer uses the 1.5 * 2^23 addition trick
 * (round to nearest even, exact for |t| < 2^22) rather than conversion instructions,
 * which run at an eighth of the float32 rate on recent GPUs.
 */
CUDADSP_HOST_DEVICE std::int32_t
unwrap_step(float previous, float x, const unwrap_period& p)
{
    constexpr float round_shift = 12582912.0f; // 1.5 * 2^23
    const float d = x - previous;
#ifdef __CUDA_ARCH__
    // Explicit roundings: a fused multiply-add would change what the trick rounds.
    const float t =
        __fmul_rn(__fsub_rn(std::fabs(d), p.half_period_f), p.inverse_period_f);
    const float shifted = __fadd_rn(t, round_shift);
    const float nearest = __fsub_rn(shifted, round_shift);
#else
    const float t = (std::fabs(d) - p.half_period_f) * p.inverse_period_f;
    const float shifted = t + round_shift;
    const float nearest = shifted - round_shift;
#endif
    const float margin = 0x1p-18f * (std::fabs(t) + 2.0f);
    if (!(std::fabs(t) < 0x1p15f && std::fabs(t - nearest) > margin))
        return unwrap_step_exact(previous, x, p);
    std::int32_t bits;
    std::memcpy(&bits, &shifted, sizeof bits);
    // shifted's low mantissa bits hold nearest as an integer; ceil(t) is one more when
    // t lies above it (t is never an integer here).
    const std::int32_t k = bits - 0x4B400000 + (t > nearest ? 1 : 0);
    return d > 0.0f ? -k : k;
}

//! P*K in float64: what a sample's output adds to it (exact K, one rounding).
CUDADSP_HOST_DEVICE double wrap_offset(std::int64_t wraps, const unwrap_period& p)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(p.period, static_cast<double>(wraps));
#else
    return p.period * static_cast<double>(wraps);
#endif
}

//! Output sample: x + P*K in float64, rounded once to float32.
CUDADSP_HOST_DEVICE float unwrapped_value(float x, double offset)
{
#ifdef __CUDA_ARCH__
    // Separate roundings, no fused multiply-add: bit-identical to the CPU backend.
    return static_cast<float>(__dadd_rn(static_cast<double>(x), offset));
#else
    return static_cast<float>(static_cast<double>(x) + offset);
#endif
}

/*! Whether \p x takes part in the unwrapping: finite and below max_sample_periods
 *  periods in magnitude. False for NaN (the comparison fails), both infinities and
 *  finite glitches alike. */
CUDADSP_HOST_DEVICE bool is_phase_sample(float x, const unwrap_period& p)
{
    return std::fabs(x) <= p.sample_limit;
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_RULE_H */
