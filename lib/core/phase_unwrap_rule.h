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

#include <cmath>
#include <cstdint>

#ifdef __CUDACC__
#define CUDADSP_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define CUDADSP_HOST_DEVICE inline
#endif

namespace gr {
namespace cudadsp {
namespace core {

//! Period-dependent constants, computed once per configuration.
struct unwrap_period {
    double period;
    double half_period;
    double inverse_period;
    //! Below this, a float32 difference proves |d| < P/2 without float64 arithmetic.
    float fast_no_wrap_bound;
};

inline unwrap_period make_unwrap_period(double period)
{
    // The float32 difference is within a relative 2^-24 of the exact one, so shrinking
    // P/2 by 2^-20 leaves room for that and for rounding the bound itself.
    const double half = 0.5 * period;
    return { period, half, 1.0 / period, static_cast<float>(half * (1.0 - 0x1p-20)) };
}

/*!
 * Correction count for the step from the previous finite sample \p previous to \p x:
 * the k with |d + kP| <= P/2 of smallest |k| (numpy.unwrap's choice: ties at exactly
 * P/2 keep the sign of d). The difference is formed in float64, where the difference
 * of two float32 values is exact, so the comparison with P/2 is decided on the true
 * step. Steps beyond 2^31 periods (only for inputs that are not a wrapped phase)
 * saturate rather than overflow.
 */
CUDADSP_HOST_DEVICE std::int32_t unwrap_step(float previous, float x, const unwrap_period& p)
{
    if (std::fabs(x - previous) < p.fast_no_wrap_bound)
        return 0;
    const double d = static_cast<double>(x) - static_cast<double>(previous);
    const double magnitude = std::fabs(d);
    if (magnitude <= p.half_period)
        return 0;
    const double count = std::ceil((magnitude - p.half_period) * p.inverse_period);
    const double limited = count < 2147483647.0 ? count : 2147483647.0;
    const std::int32_t k = static_cast<std::int32_t>(limited);
    return d > 0.0 ? -k : k;
}

//! Output sample: x + P*K in float64, rounded once to float32.
CUDADSP_HOST_DEVICE float unwrapped_value(float x, std::int64_t wraps, const unwrap_period& p)
{
    const double correction = static_cast<double>(wraps);
#ifdef __CUDA_ARCH__
    // Separate roundings, no fused multiply-add: bit-identical to the CPU backend.
    return static_cast<float>(__dadd_rn(static_cast<double>(x), __dmul_rn(p.period, correction)));
#else
    return static_cast<float>(static_cast<double>(x) + p.period * correction);
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
