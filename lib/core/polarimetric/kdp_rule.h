/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_KDP_RULE_H
#define INCLUDED_CUDADSP_CORE_KDP_RULE_H

// The KDP rule (core/kdp.h states it) as functions that the CPU backend and the CUDA
// kernel both call, so that the two give bit-identical outputs. Everything is float64;
// every product that the device compiler could fuse with a neighbouring sum into a
// fused multiply-add is written with an explicit rounding (kdp_mul) on the device, and
// the host compiler does not contract on x86-64 without -mfma. Divisions, floor and
// comparisons are exact IEEE operations on both. Sums run in one fixed order.

#include "runtime/host_device.h"
#include <gnuradio/cudadsp/core/kdp.h>
#include <cmath>
#include <cstdint>
#include <limits>

namespace gr {
namespace cudadsp {
namespace core {

//! What the rule needs from the configuration, as plain values for the kernel.
struct kdp_rule_params {
    int ngates = 0;
    int half_window = 1; //!< h: the window holds 2h + 1 gates
    int max_gap = 0;     //!< longest run of masked gates that is interpolated over
    bool use_rhohv = false;
    bool use_snr = false;
    double min_rhohv = 0.0;
    double min_snr_db = 0.0;
    double two_gate_spacing_km = 0.3; //!< KDP = slope per gate / this
};

//! The rule's parameters for \p config with the optional inputs in use (kdp.cc).
kdp_rule_params
make_kdp_rule_params(const kdp_config& config, bool use_rhohv, bool use_snr);

//! Valid gates before the current one that make the unfolding reference.
constexpr int kdp_reference_gates = 5;

CUDADSP_HOST_DEVICE double kdp_nan()
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double(0x7ff8000000000000ll);
#else
    return std::numeric_limits<double>::quiet_NaN();
#endif
}

CUDADSP_HOST_DEVICE bool kdp_is_nan(double x)
{
#ifdef __CUDA_ARCH__
    return isnan(x);
#else
    return std::isnan(x);
#endif
}

//! a * b rounded once and never fused with a following sum.
CUDADSP_HOST_DEVICE double kdp_mul(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

//! The multiple of 360 that moves \p d into (-180, 180]: d + 360 k lies there.
CUDADSP_HOST_DEVICE double kdp_fold_count(double d)
{
    return std::floor((180.0 - d) / 360.0);
}

/*!
 * Step 1, the mask: the gate's PhiDP in float64 when it is data (|PhiDP| <=
 * kdp_max_abs_phidp_deg, which NaN and +-inf fail) and passes the thresholds that are
 * in use (a NaN RhoHV or SNR fails them), NaN otherwise.
 */
CUDADSP_HOST_DEVICE double
kdp_masked_phase(float phidp, float rhohv, float snr_db, const kdp_rule_params& p)
{
    const double phase = static_cast<double>(phidp);
    const bool valid = phase >= -kdp_max_abs_phidp_deg &&
                       phase <= kdp_max_abs_phidp_deg &&
                       (!p.use_rhohv || static_cast<double>(rhohv) >= p.min_rhohv) &&
                       (!p.use_snr || static_cast<double>(snr_db) >= p.min_snr_db);
    return valid ? phase : kdp_nan();
}

/*!
 * Steps 2 and 3 on one radial, in place: \p u holds kdp_masked_phase() of every gate
 * and ends holding the unfolded PhiDP of every valid gate, the interpolation over
 * short gaps, and NaN at every gate outside a segment.
 *
 * Shifting by multiples of 360 and the unfolding moves are exact: the values are
 * float32 inputs (24-bit significands) plus multiples of 360, far inside float64.
 */
CUDADSP_HOST_DEVICE void kdp_unfold_radial(double* u, const kdp_rule_params& p)
{
    // The reference is a mean, not the previous gate alone, so that one noisy gate
    // cannot turn the branch for the gates after it.
    double recent[kdp_reference_gates];
    int count = 0;
    int next = 0;
    for (int g = 0; g < p.ngates; ++g) {
        if (kdp_is_nan(u[g]))
            continue;
        if (count > 0) {
            double sum = 0.0;
            for (int i = 0; i < count; ++i)
                sum += recent[i];
            const double reference = sum / count;
            u[g] += kdp_mul(360.0, kdp_fold_count(u[g] - reference));
        }
        recent[next] = u[g];
        next = next + 1 == kdp_reference_gates ? 0 : next + 1;
        count = count < kdp_reference_gates ? count + 1 : count;
    }

    // The branch of the whole radial: the mean of its first valid gates in (-180, 180].
    double first_sum = 0.0;
    int first_count = 0;
    for (int g = 0; g < p.ngates && first_count < kdp_reference_gates; ++g)
        if (!kdp_is_nan(u[g])) {
            first_sum += u[g];
            ++first_count;
        }
    if (first_count == 0)
        return;
    const double shift = kdp_mul(360.0, kdp_fold_count(first_sum / first_count));

    int previous = -1;
    for (int g = 0; g < p.ngates; ++g) {
        if (kdp_is_nan(u[g]))
            continue;
        u[g] += shift;
        const int gap = g - previous - 1;
        if (previous >= 0 && gap > 0 && gap <= p.max_gap) {
            const double rise = u[g] - u[previous];
            const double span = g - previous;
            for (int i = previous + 1; i < g; ++i)
                u[i] = u[previous] + kdp_mul(rise, (i - previous) / span);
        }
        previous = g;
    }
}

//! Step 4's outputs at one gate.
struct kdp_gate_result {
    float phidp_deg;
    float kdp_deg_km;
};

/*!
 * Step 4 at gate \p g of a radial that kdp_unfold_radial() has processed: the
 * least-squares line through the gates of g's segment within h of g, in the order of
 * increasing range, centred on g (x = j - g, y = u[j] - u[g]) so that the sums stay
 * small. The sums of x and x^2 are integers, exact in float64.
 */
CUDADSP_HOST_DEVICE kdp_gate_result kdp_fit_gate(const double* u,
                                                 int g,
                                                 const kdp_rule_params& p)
{
    const float nan = static_cast<float>(kdp_nan());
    if (kdp_is_nan(u[g]))
        return { nan, nan };
    int lo = g;
    while (lo > 0 && g - lo < p.half_window && !kdp_is_nan(u[lo - 1]))
        --lo;
    int hi = g;
    while (hi + 1 < p.ngates && hi - g < p.half_window && !kdp_is_nan(u[hi + 1]))
        ++hi;
    const int n = hi - lo + 1;
    if (n < p.half_window + 1)
        return { nan, nan };

    const double centre = u[g];
    double sum_x = 0.0, sum_xx = 0.0, sum_y = 0.0, sum_xy = 0.0;
    for (int j = lo; j <= hi; ++j) {
        const double x = j - g;
        const double y = u[j] - centre;
        sum_x += x;
        sum_xx += x * x; // exact: small integers
        sum_y += y;
        sum_xy += kdp_mul(x, y);
    }
    const double count = n;
    const double denominator = kdp_mul(count, sum_xx) - kdp_mul(sum_x, sum_x); // exact
    const double slope = (kdp_mul(count, sum_xy) - kdp_mul(sum_x, sum_y)) / denominator;
    const double intercept = (sum_y - kdp_mul(slope, sum_x)) / count;
    return { static_cast<float>(centre + intercept),
             static_cast<float>(slope / p.two_gate_spacing_km) };
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_KDP_RULE_H */
