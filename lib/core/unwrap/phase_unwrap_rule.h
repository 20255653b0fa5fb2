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

namespace gr {
namespace cudadsp {
namespace core {

//! Period-dependent constants, computed once per configuration.
struct unwrap_period {
    double period;
    double half_period;
    double inverse_period;
    float half_period_f;
    float inverse_period_f;
};

inline unwrap_period make_unwrap_period(double period)
{
    const double half = 0.5 * period;
    return { period,
             half,
             1.0 / period,
             static_cast<float>(half),
             static_cast<float>(1.0 / period) };
}

/*! Largest correction one step can make, in periods. Only input that is not a wrapped
 *  phase (a jump of over 65536 periods) reaches it; bounding it lets a 16384-sample
 *  tile's wrap count fit 32 bits in the CUDA backend's look-back. */
constexpr double max_step_periods = 65536.0;

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

CUDADSP_HOST_DEVICE bool is_finite_sample(float x)
{
    // False for NaN and both infinities.
#ifdef __CUDA_ARCH__
    return isfinite(x);
#else
    return std::isfinite(x);
#endif
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_RULE_H */
