/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_GNSS_TRACKING_H
#define INCLUDED_CUDADSP_CORE_GNSS_TRACKING_H

/*
 * Per-channel state of the multichannel correlator and the end-of-epoch rule (NCO
 * bookkeeping, discriminators, loop filters, C/N0 and lock indicators), shared by the
 * CPU and CUDA backends. Both backends keep gnss_channel_params / gnss_channel_state
 * per channel (plain structs, copyable to the device as they are), accumulate the tap
 * sums of an epoch as they like, and call gnss_finish_epoch() once per completed epoch,
 * so the loops are the same function everywhere. All of it is float64: it runs once per
 * epoch per channel.
 *
 * Discriminators
 *  - Costas (PLL): e_p = atan(Q/I) of the prompt, rad, in [-pi/2, pi/2]: insensitive to
 *    a data bit (it reads a half-cycle offset as none).
 *  - FLL: e_f = atan(cross/dot) / T, rad/s, with cross = I1 Q2 - I2 Q1 and dot = I1 I2 +
 *    Q1 Q2 of the previous and this prompt: the two-quadrant arctangent, so that a data
 *    bit change between the two prompts does not read as half a cycle per epoch (pull-in
 *    range +-1/(4T) Hz).
 *  - DLL: D = (|E| - |L|) / (|E| + |L|), normalized early-minus-late envelope, scaled to
 *    chips by (2 - k d) / (2 k): d = late - early offset in chips and k the slope of the
 *    code's autocorrelation peak per chip (1 for BPSK, 3 for BOC(1,1)), computed from
 *    the table. Exact for an ideal (unfiltered) correlation triangle while the error is
 *    below d/2; validation requires k d / 2 < 1 so that both taps sit on the main peak.
 *
 * Loop filters (E. D. Kaplan and C. J. Hegarty, Understanding GPS: Principles and
 * Applications, 2nd ed., 2006, section 5.6 by P. Ward, J. Betz and C. Hegarty:
 * Table 5.6 and Figures 5.21-5.23), with bilinear (trapezoidal) integrators
 * y_k = y_{k-1} + T x_k, output (y_k + y_{k-1}) / 2, T the epoch's duration:
 *  - 2nd-order PLL, w0 = Bn / 0.53, a2 = 1.414, optional 1st-order FLL assist
 *    (w0f = Bn_f / 0.25):  v += T (w0^2 e_p + w0f e_f);  out = v_mid + a2 w0 e_p
 *  - 3rd-order PLL, w0 = Bn / 0.7845, a3 = 1.1, b3 = 2.4, optional 2nd-order FLL assist
 *    (w0f = Bn_f / 0.53, a2f = 1.414):  a += T (w0^3 e_p + w0f^2 e_f);
 *    v += T (a_mid + a3 w0^2 e_p + a2f w0f e_f);  out = v_mid + b3 w0 e_p
 *    out is the carrier Doppler estimate in rad/s: carrier NCO = IF + out / (2 pi).
 *  - DLL on the code phase error delta (chips): 1st order, out = 4 Bn delta; 2nd order,
 *    w0 = Bn / 0.53, z += T w0^2 delta, out = z_mid + 1.414 w0 delta; out in chips/s.
 *    Code NCO = nominal rate (1 + Doppler / nominal carrier) + out (carrier aiding;
 *    without it, nominal rate + out).
 *
 * FLL assist is applied while the channel is not in carrier lock (pull-in and after a
 * loss of lock); in lock the PLL runs alone, without the FLL discriminator's noise,
 * which at 1 ms epochs would dominate the frequency jitter.
 *
 * C/N0: the signal-to-noise-variance estimator (SNV; F. Dovis, M. Pini and others in
 * E. Falletti, M. Pini and L. Lo Presti, "Low complexity carrier-to-noise ratio
 * estimators for GNSS digital receivers", IEEE Trans. Aerosp. Electron. Syst. 47(1),
 * 2011; GNSS-SDR's default estimator) over windows of cn0_epochs prompts:
 *   Ps = (mean |I|)^2,  Pt = mean (I^2 + Q^2),  C/N0 = Ps / ((Pt - Ps) T).
 * |I| makes it insensitive to data bits; it needs phase lock (unlocked, I and so the
 * estimate shrink). On noise alone it reads (1/pi)/(1 - 1/pi)/T, 26.7 dB-Hz for
 * T = 1 ms (20.7 for 4 ms): lock thresholds must sit above that floor. Over 50 epochs
 * of 1 ms its scatter is about 0.8 dB at 35 to 40 dB-Hz.
 *
 * Carrier lock: cos(2 phi) = NBD / NBP (A. J. Van Dierendonck, "GPS receivers", in
 * Global Positioning System: Theory and Applications vol. I, AIAA 1996) over the same
 * window, with NBD = (sum I')^2 - (sum Q')^2 and NBP = (sum I')^2 + (sum Q')^2, where
 * I' = |I| and Q' = Q sign(I) remove the data bit of each prompt. That bit removal
 * reads noise alone as about 0.9, so the carrier lock flag also requires code lock.
 * Code lock: C/N0 >= cn0_lock_threshold_dbhz.
 *
 * Non-finite and overflowing input. Samples are summed as they are, so a NaN or an
 * infinite sample, or finite samples whose float sums overflow (a burst near FLT_MAX),
 * make the epoch's tap sums NaN, infinite or larger than float32 can hold (the
 * records' correlations are float32). Such an epoch is *held*
 * (gnss_tap_sums_usable() is false for it): it carries gnss_flag_invalid_sums and NaN
 * discriminators, and it updates neither the loops nor the indicators. The NCOs run on
 * at their rates through it (the loops coast, as through a fade), the FLL starts
 * afresh at the next usable prompt (no frequency error across a held epoch), and the
 * epoch still counts towards the C/N0 and lock window, whose estimate is formed from
 * the usable prompts in it. A window without any usable prompt ends with C/N0 and
 * carrier lock NaN and the lock flags (and cn0_valid) cleared: a channel fed only
 * bad samples stops claiming lock within two windows. Finite input that does not
 * overflow is data, however large: a strong burst disturbs the loops and the window
 * like any interference, and they recover at their bandwidths. The rule costs the
 * sample loops nothing (no test per sample): the one decision is made here, on the
 * float64 tap sums, by both backends.
 */

#include "gnss/gnss_nco.h"
#include "runtime/host_device.h"
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <cmath>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace core {

//! Constant per channel until it is re-initialised.
struct gnss_channel_params {
    std::uint32_t channel_id;
    std::uint32_t entries; //!< L, code table entries per period
    std::uint32_t entries_per_chip;
    std::uint32_t periods; //!< K, code periods per epoch
    std::uint32_t taps;
    std::uint32_t early_tap, prompt_tap, late_tap;
    std::uint32_t tracking;  //!< 1: the loops steer the NCOs
    std::int32_t pll_order;  //!< 2 or 3
    std::int32_t fll_assist; //!< 1: FLL assist on
    std::int32_t dll_order;  //!< 1 or 2
    std::uint32_t cn0_epochs;
    std::int32_t if_step;        //!< carrier step of the IF
    std::uint64_t epoch_length;  //!< E = K L 2^32
    std::uint64_t code_step_min; //!< tracking guard range of the code step
    std::uint64_t code_step_max;
    double sample_rate_hz;
    double intermediate_frequency_hz;
    double max_carrier_offset_hz; //!< tracking guard: |carrier| below this
    double pll_w0, pll_a2, pll_a3, pll_b3;
    double fll_w0, fll_a2;
    double dll_w0, dll_a2;
    double dll_chips_per_discriminator; //!< (2 - k d) / (2 k)
    double code_aiding_ratio; //!< nominal code rate / nominal carrier, 0: no aiding
    double nominal_code_rate_cps;
    double cn0_threshold_dbhz;
    double carrier_lock_threshold;
};

//! Changes every sample (NCOs) and every epoch (the rest).
struct gnss_channel_state {
    std::uint64_t code_phase; //!< code NCO at the next sample, [0, E)
    std::uint64_t code_step;
    std::uint32_t carrier_phase; //!< carrier NCO at the next sample
    std::int32_t carrier_step;
    std::uint64_t epoch;              //!< index of the epoch in progress
    std::uint64_t epoch_start_sample; //!< its first sample (absolute)
    std::uint32_t epoch_samples;      //!< its length N
    std::uint32_t samples_done;       //!< samples of it already accumulated
    // Loops.
    double carrier_hz;       //!< carrier NCO frequency asked for (IF + Doppler)
    double code_rate_cps;    //!< code NCO rate asked for
    double pll_velocity;     //!< rad/s, the Doppler integrator
    double pll_acceleration; //!< rad/s^2 (3rd order)
    double dll_integrator;   //!< chips/s (2nd order)
    double previous_prompt_re;
    double previous_prompt_im;
    std::uint32_t have_previous_prompt;
    // Indicators.
    std::uint32_t window_epochs; //!< epochs of the window so far, held ones included
    std::uint32_t window_count;  //!< usable prompts among them
    double window_seconds;       //!< the usable epochs' duration
    double abs_i_sum;            //!< sum |I| (SNV signal and lock I')
    double power_sum;            //!< sum I^2 + Q^2
    double lock_q_sum;           //!< sum Q sign(I)
    double cn0_dbhz;             //!< NaN before the first window
    double carrier_lock;         //!< NaN before the first window
    std::uint32_t flags;         //!< gnss_record_flag bits
    double carrier_cycles;       //!< accumulated (NCO - IF) phase, cycles
};

//! Absolute index of the next sample a channel will take.
CUDADSP_HOST_DEVICE std::uint64_t gnss_next_sample(const gnss_channel_state& s)
{
    return s.epoch_start_sample + s.samples_done;
}

/*!
 * Largest tap sum magnitude an epoch may have and still update the loops: FLT_MAX,
 * what the record's float32 correlations can hold; a float accumulation that
 * overflowed gives infinity, beyond it.
 */
constexpr double gnss_max_tap_sum = 3.4028234663852886e38;

/*!
 * Whether the \p taps tap sums ((re, im) pairs) of an epoch are all finite and within
 * float32's range: the rule for non-finite and overflowing input above. One comparison
 * per value: NaN fails it too.
 */
CUDADSP_HOST_DEVICE bool gnss_tap_sums_usable(const double* sums, std::uint32_t taps)
{
    bool usable = true;
    for (std::uint32_t k = 0; k < 2 * taps; ++k)
        usable &= fabs(sums[k]) <= gnss_max_tap_sum;
    return usable;
}

//! Costas phase error atan(Q/I), rad, in [-pi/2, pi/2]; 0 for a zero prompt.
CUDADSP_HOST_DEVICE double gnss_costas_discriminator(double i, double q)
{
    if (i == 0.0)
        return q > 0.0 ? 1.5707963267948966 : (q < 0.0 ? -1.5707963267948966 : 0.0);
    return atan(q / i);
}

//! FLL frequency error, rad/s, from two successive prompts T seconds apart.
CUDADSP_HOST_DEVICE double
gnss_fll_discriminator(double i1, double q1, double i2, double q2, double seconds)
{
    const double cross = i1 * q2 - i2 * q1;
    const double dot = i1 * i2 + q1 * q2;
    return gnss_costas_discriminator(dot, cross) / seconds;
}

//! Normalized early-minus-late envelope, in [-1, 1]; 0 when both taps are zero.
CUDADSP_HOST_DEVICE double
gnss_dll_discriminator(double e_re, double e_im, double l_re, double l_im)
{
    const double e = sqrt(e_re * e_re + e_im * e_im);
    const double l = sqrt(l_re * l_re + l_im * l_im);
    return e + l > 0.0 ? (e - l) / (e + l) : 0.0;
}

/*!
 * PLL update, with FLL assist when p.fll_assist and the channel is not in carrier lock;
 * returns the carrier Doppler estimate, rad/s. e_p: Costas error (rad), e_f: FLL error
 * (rad/s, 0 when not available).
 */
CUDADSP_HOST_DEVICE double gnss_pll_update(const gnss_channel_params& p,
                                           gnss_channel_state& s,
                                           double e_p,
                                           double e_f,
                                           double seconds)
{
    const double w0 = p.pll_w0;
    const double f = (p.fll_assist && !(s.flags & gnss_flag_carrier_lock)) ? e_f : 0.0;
    const double v_old = s.pll_velocity;
    if (p.pll_order == 3) {
        const double a_old = s.pll_acceleration;
        s.pll_acceleration =
            a_old + seconds * (w0 * w0 * w0 * e_p + p.fll_w0 * p.fll_w0 * f);
        s.pll_velocity =
            v_old + seconds * (0.5 * (a_old + s.pll_acceleration) +
                               p.pll_a3 * w0 * w0 * e_p + p.fll_a2 * p.fll_w0 * f);
        return 0.5 * (v_old + s.pll_velocity) + p.pll_b3 * w0 * e_p;
    }
    s.pll_velocity = v_old + seconds * (w0 * w0 * e_p + p.fll_w0 * f);
    return 0.5 * (v_old + s.pll_velocity) + p.pll_a2 * w0 * e_p;
}

//! DLL update on a code phase error (chips); returns the rate correction, chips/s.
CUDADSP_HOST_DEVICE double gnss_dll_update(const gnss_channel_params& p,
                                           gnss_channel_state& s,
                                           double error_chips,
                                           double seconds)
{
    if (p.dll_order == 2) {
        const double z_old = s.dll_integrator;
        s.dll_integrator = z_old + seconds * p.dll_w0 * p.dll_w0 * error_chips;
        return 0.5 * (z_old + s.dll_integrator) + p.dll_a2 * p.dll_w0 * error_chips;
    }
    return p.dll_w0 * error_chips;
}

//! Code rate (chips/s) for a Doppler and a DLL correction: carrier-aided when enabled.
CUDADSP_HOST_DEVICE double gnss_aided_code_rate(const gnss_channel_params& p,
                                                double doppler_hz,
                                                double dll_correction)
{
    return p.nominal_code_rate_cps + p.code_aiding_ratio * doppler_hz + dll_correction;
}

/*!
 * Counts one epoch in the C/N0 and carrier-lock window, adding its prompt when
 * \p usable; at the window's end computes the estimates and lock flags from the usable
 * prompts (none: NaN estimates, no lock) and starts a new window.
 */
CUDADSP_HOST_DEVICE void gnss_indicator_update(const gnss_channel_params& p,
                                               gnss_channel_state& s,
                                               double i,
                                               double q,
                                               double seconds,
                                               bool usable)
{
    if (usable) {
        s.abs_i_sum += fabs(i);
        s.power_sum += i * i + q * q;
        s.lock_q_sum += i < 0.0 ? -q : q;
        s.window_seconds += seconds;
        ++s.window_count;
    }
    if (++s.window_epochs < p.cn0_epochs)
        return;
    std::uint32_t flags = s.flags & gnss_flag_tracking;
    if (s.window_count == 0) {
        s.cn0_dbhz = nan("");
        s.carrier_lock = nan("");
    } else {
        const double m = static_cast<double>(s.window_count);
        const double mean_abs_i = s.abs_i_sum / m;
        const double signal = mean_abs_i * mean_abs_i;
        const double noise = s.power_sum / m - signal;
        // Floors keep the ratio finite in the limits (no signal, or no noise at all).
        const double floor_power = 1e-12 * (s.power_sum / m) + 1e-300;
        const double ratio = fmax(signal, floor_power) / fmax(noise, floor_power);
        s.cn0_dbhz = 10.0 * log10(ratio / (s.window_seconds / m));
        const double nbd = s.abs_i_sum * s.abs_i_sum - s.lock_q_sum * s.lock_q_sum;
        const double nbp = s.abs_i_sum * s.abs_i_sum + s.lock_q_sum * s.lock_q_sum;
        s.carrier_lock = nbp > 0.0 ? nbd / nbp : 0.0;
        flags |= gnss_flag_cn0_valid;
        if (s.cn0_dbhz >= p.cn0_threshold_dbhz) {
            flags |= gnss_flag_code_lock;
            if (s.carrier_lock >= p.carrier_lock_threshold)
                flags |= gnss_flag_carrier_lock;
        }
    }
    s.flags = flags;
    s.window_epochs = 0;
    s.window_count = 0;
    s.window_seconds = 0.0;
    s.abs_i_sum = s.power_sum = s.lock_q_sum = 0.0;
}

//! Sets the NCO steps from the loops' carrier frequency and code rate, within guards.
CUDADSP_HOST_DEVICE void gnss_apply_loop_rates(const gnss_channel_params& p,
                                               gnss_channel_state& s)
{
    const double offset = s.carrier_hz - p.intermediate_frequency_hz;
    const double limit = p.max_carrier_offset_hz;
    s.carrier_hz = p.intermediate_frequency_hz +
                   (offset > limit ? limit : (offset < -limit ? -limit : offset));
    s.carrier_step = gnss_carrier_step(s.carrier_hz, p.sample_rate_hz);
    const double rate = s.code_rate_cps > 0.0 ? s.code_rate_cps : 0.0;
    std::uint64_t step = gnss_code_step(rate, p.entries_per_chip, p.sample_rate_hz);
    step = step < p.code_step_min ? p.code_step_min
                                  : (step > p.code_step_max ? p.code_step_max : step);
    s.code_step = step;
}

/*!
 * Ends the epoch in progress, whose s.epoch_samples samples have all been accumulated
 * (s.samples_done == s.epoch_samples, and the code phase advanced past the epoch's end
 * by those samples). \p taps holds the epoch's T sums as (re, im) pairs in tap order.
 * Updates the loops (tracking) and indicators, starts the next epoch and fills \p r.
 */
CUDADSP_HOST_DEVICE void gnss_finish_epoch(const gnss_channel_params& p,
                                           gnss_channel_state& s,
                                           const double* taps,
                                           gnss_epoch_record& r)
{
    const std::uint32_t n = s.epoch_samples;
    const double seconds = static_cast<double>(n) / p.sample_rate_hz;
    const double i = taps[2 * p.prompt_tap];
    const double q = taps[2 * p.prompt_tap + 1];

    s.code_phase -= p.epoch_length;
    s.carrier_cycles +=
        static_cast<double>(static_cast<std::int64_t>(s.carrier_step) - p.if_step) *
        static_cast<double>(n) / gnss_fp_one;

    // A held epoch (non-finite or overflowing sums) measures nothing: NaN errors in
    // the record, no loop update, and the FLL waits for two usable prompts in a row.
    const bool usable = gnss_tap_sums_usable(taps, p.taps);
    double e_p = nan(""), e_f = 0.0, error_chips = nan("");
    if (usable) {
        e_p = gnss_costas_discriminator(i, q);
        if (s.have_previous_prompt)
            e_f = gnss_fll_discriminator(
                s.previous_prompt_re, s.previous_prompt_im, i, q, seconds);
        error_chips = p.dll_chips_per_discriminator *
                      gnss_dll_discriminator(taps[2 * p.early_tap],
                                             taps[2 * p.early_tap + 1],
                                             taps[2 * p.late_tap],
                                             taps[2 * p.late_tap + 1]);
    }
    s.previous_prompt_re = i;
    s.previous_prompt_im = q;
    s.have_previous_prompt = usable ? 1u : 0u;
    gnss_indicator_update(p, s, i, q, seconds, usable);

    if (p.tracking && usable) {
        const double doppler_rad_s = gnss_pll_update(p, s, e_p, e_f, seconds);
        const double doppler_hz =
            doppler_rad_s * (1.0 / 6.283185307179586476925286766559);
        s.carrier_hz = p.intermediate_frequency_hz + doppler_hz;
        s.code_rate_cps = gnss_aided_code_rate(
            p, doppler_hz, gnss_dll_update(p, s, error_chips, seconds));
        gnss_apply_loop_rates(p, s);
    }

    r.channel_id = p.channel_id;
    r.flags = usable ? s.flags : s.flags | gnss_flag_invalid_sums;
    r.epoch = s.epoch;
    r.start_sample = s.epoch_start_sample;
    r.sample_count = n;
    r.prompt_sign = i < 0.0 ? -1 : 1;
    // code_phase mod (entries 2^32) on the high word alone: a 32-bit remainder where
    // the 64-bit one is a called subroutine on the GPU (code_phase < E < 2^64, so the
    // high word holds every whole entry).
    const std::uint64_t in_period =
        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(s.code_phase >> 32) %
                                    p.entries)
         << 32) |
        (s.code_phase & 0xffffffffull);
    r.code_phase_chips = static_cast<double>(in_period) / gnss_fp_one /
                         static_cast<double>(p.entries_per_chip);
    r.code_rate_cps =
        gnss_code_rate_of_step(s.code_step, p.entries_per_chip, p.sample_rate_hz);
    r.doppler_hz =
        static_cast<double>(static_cast<std::int64_t>(s.carrier_step) - p.if_step) /
        gnss_fp_one * p.sample_rate_hz;
    r.carrier_phase_rad = gnss_carrier_phase_rad(s.carrier_phase);
    r.carrier_cycles = s.carrier_cycles;
    r.cn0_dbhz = static_cast<float>(s.cn0_dbhz);
    r.carrier_lock = static_cast<float>(s.carrier_lock);
    r.pll_discriminator_rad = static_cast<float>(e_p);
    r.dll_discriminator_chips = static_cast<float>(error_chips);

    s.epoch += 1;
    s.epoch_start_sample += n;
    s.samples_done = 0;
    s.epoch_samples = static_cast<std::uint32_t>(
        gnss_samples_to_epoch_end(s.code_phase, p.epoch_length, s.code_step));
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_TRACKING_H */
