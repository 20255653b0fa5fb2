/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_POLARIMETRIC_GATE_H
#define INCLUDED_CUDADSP_CORE_POLARIMETRIC_GATE_H

/*
 * The whole computation of one gate of one radial, shared by both backends: clutter
 * phase alignment and the raw moments in one pass over the pulses, then, where the
 * gate is filtered, a second pass over the same pulses through the clutter filter into
 * fresh moments, and the products. The backends differ only in how a pulse is read
 * (Pulses: a gate-major copy on the CPU, strided loads from L2 on the GPU).
 */

#include "polarimetric/clutter_filter_rule.h"
#include "polarimetric/polarimetric_estimators.h"
#include "runtime/host_device.h"
#include <cmath>

namespace gr {
namespace cudadsp {
namespace core {

//! Pulses whose loads are issued before any is used: enough bytes in flight per GPU
//! SM to cover memory latency at full bandwidth (the CPU does not mind).
constexpr unsigned int pulses_in_flight = 4;

//! Up to pulses_in_flight consecutive pulses of one gate, as read (float32: half the
//! registers of float64 while the loads are in flight).
struct pulse_batch {
    float h_re[pulses_in_flight], h_im[pulses_in_flight];
    float v_re[pulses_in_flight] = {}, v_im[pulses_in_flight] = {};
    unsigned int count;

    template <class Pulses>
    CUDADSP_HOST_DEVICE void
    load(const Pulses& pulses, unsigned int first, unsigned int M)
    {
        count = M - first < pulses_in_flight ? M - first : pulses_in_flight;
        CUDADSP_UNROLL_FULLY
        for (unsigned int i = 0; i < pulses_in_flight; ++i)
            if (i < count)
                pulses(first + i, h_re[i], h_im[i], v_re[i], v_im[i]);
    }
};

/*!
 * The nine products of gate \p gate. \p pulses(n, h_re, h_im, v_re, v_im) loads pulse
 * n (0 .. M - 1) of the gate into floats; in alternating mode only h (the co-polar
 * input) is used.
 */
template <polarimetric_mode Mode, clutter_filter_kind Kind, class Pulses>
CUDADSP_HOST_DEVICE gate_products process_gate(const Pulses& pulses,
                                               unsigned int M,
                                               const clutter_filter_constants& cf,
                                               const product_constants& k,
                                               std::size_t gate)
{
    constexpr bool simultaneous = Mode == polarimetric_mode::simultaneous;
    moment_accumulator<Mode> raw;
    gate_clutter_filter<Kind> filter;
    complex64_sum h_sum;
    double h_magnitude_sum = 0.0;
    for (unsigned int first = 0; first < M; first += pulses_in_flight) {
        pulse_batch batch;
        batch.load(pulses, first, M);
        CUDADSP_UNROLL_FULLY
        for (unsigned int i = 0; i < pulses_in_flight; ++i) {
            if (i >= batch.count)
                break;
            const unsigned int n = first + i;
            const double h_re = batch.h_re[i], h_im = batch.h_im[i];
            const double v_re = batch.v_re[i], v_im = batch.v_im[i];
            raw.add(n, h_re, h_im, v_re, v_im);
            if (simultaneous || n % 2 == 0) {
                h_sum.re += h_re;
                h_sum.im += h_im;
                // Squares of float32 samples cannot overflow a double: no hypot.
                h_magnitude_sum += sqrt(h_re * h_re + h_im * h_im);
            }
            if (simultaneous) {
                filter.add(cf, 0, n, h_re, h_im);
                filter.add(cf, 1, n, v_re, v_im);
            } else {
                filter.add(cf, static_cast<int>(n % 2), n / 2, h_re, h_im);
            }
        }
    }
    const double cpa = h_magnitude_sum > 0.0 ? magnitude(h_sum) / h_magnitude_sum : 0.0;

    polarimetric_moments m = raw.moments(M);
    double removed_db = 0.0;
    const bool filtered = Kind != clutter_filter_kind::none &&
                          (!cf.only_where_detected || cpa >= cf.cpa_threshold);
    if (filtered) {
        filter.choose(cf);
        moment_accumulator<Mode> clean;
        for (unsigned int first = 0; first < M; first += pulses_in_flight) {
            pulse_batch batch;
            batch.load(pulses, first, M);
            CUDADSP_UNROLL_FULLY
            for (unsigned int i = 0; i < pulses_in_flight; ++i) {
                if (i >= batch.count)
                    break;
                const unsigned int n = first + i;
                double h_re = batch.h_re[i], h_im = batch.h_im[i];
                double v_re = batch.v_re[i], v_im = batch.v_im[i];
                if (simultaneous) {
                    filter.filtered(cf, 0, n, h_re, h_im);
                    filter.filtered(cf, 1, n, v_re, v_im);
                } else {
                    filter.filtered(cf, static_cast<int>(n % 2), n / 2, h_re, h_im);
                }
                clean.add(n, h_re, h_im, v_re, v_im);
            }
        }
        polarimetric_moments f = clean.moments(M);
        // Lag-1 terms of the filter's series (a window shrinks them): lag_h, lag_v,
        // and in alternating mode C2 = <a[i + 1] conj b[i]>.
        const double unwindow = 1.0 / filter.lag1_gain(cf);
        f.lag_h.re *= unwindow;
        f.lag_h.im *= unwindow;
        f.lag_v.re *= unwindow;
        f.lag_v.im *= unwindow;
        f.cross_b.re *= unwindow;
        f.cross_b.im *= unwindow;
        const double removed = m.power_h / f.power_h;
        if (removed > 1.0)
            removed_db = 10.0 * log10(removed);
        m = f;
    }
    gate_products out = compute_products<Mode>(m, k, gate);
    out.value[product_clutter_removed_db] = static_cast<float>(removed_db);
    out.value[product_cpa] = static_cast<float>(cpa);
    return out;
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_POLARIMETRIC_GATE_H */
