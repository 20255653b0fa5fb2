/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_KERNEL_LANES_CUH
#define INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_KERNEL_LANES_CUH

/*
 * The correlation kernel's steps per warp: a lane's share of a channel
 * (lane_correlator: code walkers, carrier, float sums, folds into the epoch sums),
 * and the picking up, correlating through a tile and saving of a warp's channel. Part
 * of multichannel_correlator_kernel.cuh, which composes them into correlate_kernel.
 */

#include "gnss/multichannel_correlator_kernel_helpers.cuh"
#include <type_traits>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace core {
namespace gnss_kernel {

/*!
 * One lane's share of a warp's channel: the code table, the tap walkers, the carrier
 * and the float sums of the current pass of TG taps (see correlate_kernel for the
 * walkers). Every member function is called by the whole warp (warp-uniform control
 * flow); they are steps of the kernel, inlined into it, the lane state kept in
 * registers.
 */
template <int TG, bool SharedTables>
struct lane_correlator {
    const kernel_args& a;
    warp_channel& ch;
    double* sums; //!< the warp's 2 taps float64 epoch sums (shared)
    std::uint32_t lane, slot, T;
    std::uint32_t entries, wrap_groups, table_address;
    table_reader<SharedTables> table;
    std::uint32_t wrap_at;
    std::uint64_t period;

    // Lane state of the current pass.
    std::uint64_t walker[TG];
    float acc_re[TG], acc_im[TG];
    std::uint64_t walker_advance;
    // Code phase and carrier rotation from a lane's first sample to its sample j + 1.
    std::uint64_t step_offset[lane_samples - 1];
    float rot_c[lane_samples - 1], rot_s[lane_samples - 1];
    std::uint32_t theta, theta_advance;

    __device__ __forceinline__ void clear()
    {
        walker_advance = 0;
        theta = 0;
        theta_advance = 0;
        GNSS_KERNEL_UNROLL
        for (int j = 0; j < lane_samples - 1; ++j) {
            step_offset[j] = 0;
            rot_c[j] = 1.0f;
            rot_s[j] = 0.0f;
        }
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k) {
            walker[k] = 0;
            acc_re[k] = acc_im[k] = 0.0f;
        }
    }

    // Walkers and carrier of the lanes for the group holding virtual index b, taps
    // [k0, k0 + TG) (taps past T walk with shift 0 and are never summed).
    __device__ __forceinline__ void rebase(std::uint32_t b, std::uint32_t k0)
    {
        const std::uint64_t code_step = ch.code_step;
        const std::uint32_t carrier_step = ch.carrier_step;
        const std::uint32_t n = b - ch.v_base;
        const std::uint64_t pb =
            ch.base_phase + static_cast<std::uint64_t>(n) * code_step;
        const std::uint32_t thb = ch.base_theta + n * carrier_step;
        const std::uint64_t pin =
            (static_cast<std::uint64_t>(static_cast<std::uint32_t>(pb >> 32) % entries)
             << 32) |
            (pb & 0xffffffffull);
        const int d = static_cast<int>((b / group_samples) * group_samples + 2 * lane) -
                      static_cast<int>(b);
        const std::uint64_t m =
            mul_mod(code_step, static_cast<std::uint32_t>(d < 0 ? -d : d), period);
        const std::uint64_t lane_phase =
            d >= 0 ? add_mod(pin, m, period) : sub_mod(pin, m, period);
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k) {
            const std::uint32_t tap = k0 + k;
            const std::uint64_t shift = tap < T ? a.shifts[slot * T + tap] : 0;
            walker[k] = add_mod(lane_phase, shift, period) +
                        (static_cast<std::uint64_t>(table_address) << 32);
        }
        theta = thb + static_cast<std::uint32_t>(d) * carrier_step;
        theta_advance = group_samples * carrier_step;
        GNSS_KERNEL_UNROLL
        for (int j = 0; j < lane_samples - 1; ++j)
            gnss_carrier_cos_sin(sample_offset(j + 1) * carrier_step, rot_c[j], rot_s[j]);
        // Offsets 1, 64 and 65 steps (each reduced to one period); the advance, 128.
        static_assert(lane_samples == 4 && half_group == 64, "offsets 1, 64, 65");
        step_offset[0] = code_step;
        step_offset[1] = mul_mod(code_step, half_group, period);
        step_offset[2] = add_mod(step_offset[1], code_step, period);
        walker_advance = add_mod(step_offset[1], step_offset[1], period);
    }

    // One group of a lane: its pairs at x[0] and x[half_group / 2] (float4 = 2
    // samples); with Masked, sample j is summed only where on[j] is set.
    template <bool Masked>
    __device__ __forceinline__ void group(const float4* x, const bool* on)
    {
        const float4 pair0 = x[0];
        const float4 pair1 = x[half_group / 2];
        const float xr[lane_samples] = { pair0.x, pair0.z, pair1.x, pair1.z };
        const float xi[lane_samples] = { pair0.y, pair0.w, pair1.y, pair1.w };
        float c[lane_samples], s[lane_samples];
        carrier_cos_sin(theta, c[0], s[0]);
        GNSS_KERNEL_UNROLL
        for (int j = 1; j < lane_samples; ++j) {
            // exp(-j (theta + o step)) = (c0 - j s0)(rot_c - j rot_s)
            c[j] = fmaf(c[0], rot_c[j - 1], -(s[0] * rot_s[j - 1]));
            s[j] = fmaf(s[0], rot_c[j - 1], c[0] * rot_s[j - 1]);
        }
        float wr[lane_samples], wi[lane_samples];
        GNSS_KERNEL_UNROLL
        for (int j = 0; j < lane_samples; ++j) {
            // x exp(-j theta) = (xr + j xi)(c - j s)
            wr[j] = fmaf(xr[j], c[j], xi[j] * s[j]);
            wi[j] = fmaf(xi[j], c[j], -(xr[j] * s[j]));
        }
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k) {
            float chip[lane_samples];
            chip[0] = chip_value(table(static_cast<std::uint32_t>(walker[k] >> 32)));
            GNSS_KERNEL_UNROLL
            for (int j = 1; j < lane_samples; ++j)
                chip[j] = chip_value(table(
                    static_cast<std::uint32_t>((walker[k] + step_offset[j - 1]) >> 32)));
            GNSS_KERNEL_UNROLL
            for (int j = 0; j < lane_samples; ++j) {
                if (!Masked || on[j]) {
                    acc_re[k] = fmaf(wr[j], chip[j], acc_re[k]);
                    acc_im[k] = fmaf(wi[j], chip[j], acc_im[k]);
                }
            }
        }
    }

    __device__ __forceinline__ void advance()
    {
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k)
            walker[k] += walker_advance;
        theta += theta_advance;
    }

    __device__ __forceinline__ void wrap_walkers()
    {
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k)
            if (static_cast<std::uint32_t>(walker[k] >> 32) >= wrap_at)
                walker[k] -= period;
    }

    // Sums the samples at virtual indices [lo, hi) of the tile that starts at virtual
    // index tile_v; the walkers are at the group holding lo.
    __device__ __forceinline__ void
    walk(const float2* tile, std::uint32_t tile_v, std::uint32_t lo, std::uint32_t hi)
    {
        std::uint32_t g = lo / group_samples;
        const std::uint32_t g_stop = (hi + group_samples - 1) / group_samples;
        const float4* x = reinterpret_cast<const float4*>(tile) +
                          (g - tile_v / group_samples) * (group_samples / 2) + lane;
        while (g < g_stop) {
            wrap_walkers();
            const std::uint32_t gs = g * group_samples;
            if (gs < lo || gs + group_samples > hi) {
                const std::uint32_t v0 = gs + 2 * lane;
                bool on[lane_samples];
                GNSS_KERNEL_UNROLL
                for (int j = 0; j < lane_samples; ++j)
                    on[j] = v0 + sample_offset(j) >= lo && v0 + sample_offset(j) < hi;
                group<true>(x, on);
                // A group cut by hi goes on in the next piece with these walkers.
                if (gs + group_samples <= hi)
                    advance();
                ++g;
                x += group_samples / 2;
                continue;
            }
            const std::uint32_t full_stop = min(hi / group_samples, g + wrap_groups);
            GNSS_KERNEL_UNROLL_2
            for (; g < full_stop; ++g) {
                group<false>(x, nullptr);
                advance();
                x += group_samples / 2;
            }
        }
    }

    // Folds the lanes' float sums of taps [k0, k0 + TG) into the float64 epoch sums:
    // a butterfly leaves every total in every lane; lane c keeps component c.
    __device__ __forceinline__ void flush(std::uint32_t k0)
    {
        float mine = 0.0f;
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k) {
            float re = acc_re[k], im = acc_im[k];
            GNSS_KERNEL_UNROLL
            for (int o = warp_lanes / 2; o > 0; o /= 2) {
                re += __shfl_xor_sync(full_mask, re, o);
                im += __shfl_xor_sync(full_mask, im, o);
            }
            if (lane == 2u * k)
                mine = re;
            if (lane == 2u * k + 1u)
                mine = im;
            acc_re[k] = acc_im[k] = 0.0f;
        }
        const std::uint32_t valid = min(static_cast<std::uint32_t>(TG), T - k0);
        if (lane < 2 * valid)
            sums[2 * k0 + lane] += static_cast<double>(mine);
        __syncwarp();
    }

    __device__ __forceinline__ void load_partials(std::uint32_t k0)
    {
        const std::uint32_t C = 2 * T;
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k) {
            const std::uint32_t tap = k0 + k;
            if (tap < T) {
                acc_re[k] = a.lane_partials[(slot * C + 2 * tap) * warp_lanes + lane];
                acc_im[k] = a.lane_partials[(slot * C + 2 * tap + 1) * warp_lanes + lane];
            } else {
                acc_re[k] = acc_im[k] = 0.0f;
            }
        }
    }

    __device__ __forceinline__ void store_partials(std::uint32_t k0)
    {
        const std::uint32_t C = 2 * T;
        GNSS_KERNEL_UNROLL
        for (int k = 0; k < TG; ++k) {
            const std::uint32_t tap = k0 + k;
            if (tap < T) {
                a.lane_partials[(slot * C + 2 * tap) * warp_lanes + lane] = acc_re[k];
                a.lane_partials[(slot * C + 2 * tap + 1) * warp_lanes + lane] = acc_im[k];
            }
        }
    }
};

/*!
 * Picks up a warp's channel for the chunk: its code table (into the warp's shared
 * table when SharedTables), its epoch sums, and lane 0 fills \p ch from the channel's
 * state; a warp past the last rank only marks itself done. Called by the whole warp.
 */
template <int TG, bool SharedTables>
__device__ __forceinline__ void begin_channel(lane_correlator<TG, SharedTables>& lc,
                                              bool live,
                                              unsigned char* table_smem,
                                              std::uint32_t v_chunk_end)
{
    const kernel_args& a = lc.a;
    warp_channel& ch = lc.ch;
    const std::uint32_t C = 2 * lc.T;
    lc.entries = 1;
    lc.wrap_groups = 1;
    lc.table_address = 0;
    if (live) {
        const gnss_cuda_code code = a.codes[lc.slot];
        lc.entries = code.entries;
        lc.wrap_groups = code.wrap_groups;
        if constexpr (SharedTables) {
            lc.table_address =
                static_cast<std::uint32_t>(__cvta_generic_to_shared(table_smem));
            const auto* src =
                reinterpret_cast<const std::uint32_t*>(a.tables + code.table_offset);
            auto* dst = reinterpret_cast<std::uint32_t*>(table_smem);
            for (std::uint32_t i = lc.lane; i < code.table_bytes / 4; i += warp_lanes)
                dst[i] = __ldg(src + i);
        } else {
            lc.table.base =
                reinterpret_cast<const signed char*>(a.tables + code.table_offset);
        }
        for (std::uint32_t c = lc.lane; c < C; c += warp_lanes)
            lc.sums[c] = a.epoch_sums[lc.slot * C + c];
        if (lc.lane == 0) {
            const gnss_channel_state& s = a.states[lc.slot];
            const std::uint64_t next = s.epoch_start_sample + s.samples_done;
            ch.takes_samples = next < a.first + a.nsamples;
            ch.v_cur = ch.takes_samples
                           ? static_cast<std::uint32_t>(next - a.first) + a.align
                           : v_chunk_end;
            ch.v_base = ch.v_cur;
            ch.base_done = s.samples_done;
            ch.epoch_samples = s.epoch_samples;
            ch.base_phase = s.code_phase;
            ch.code_step = s.code_step;
            ch.base_theta = s.carrier_phase;
            ch.carrier_step = static_cast<std::uint32_t>(s.carrier_step);
            ch.records_done = 0;
        }
    } else if (lc.lane == 0) {
        ch.takes_samples = 0;
        ch.v_cur = v_chunk_end;
    }
    __syncwarp();
    lc.wrap_at = lc.table_address + lc.entries;
    lc.period = static_cast<std::uint64_t>(lc.entries) << 32;
}

/*!
 * A warp's channel through the samples of one tile, [ch.v_cur, tile_end), in pieces:
 * each up to the epoch's end, the next fold of the float sums (every flush_samples
 * from the epoch's start) or the tile's end; at an epoch's end the tracking rule runs
 * and the warp goes on with the new NCO rates. Called by the whole warp.
 */
template <int TG, bool SharedTables>
__device__ __forceinline__ void correlate_tile(lane_correlator<TG, SharedTables>& lc,
                                               std::uint32_t rank,
                                               const float2* tile,
                                               std::uint32_t tile_v,
                                               std::uint32_t tile_end)
{
    warp_channel& ch = lc.ch;
    const std::uint32_t C = 2 * lc.T;
    const std::uint32_t passes = (lc.T + TG - 1) / TG;
    for (;;) {
        const std::uint32_t v_cur = ch.v_cur;
        if (v_cur >= tile_end)
            break;
        const std::uint32_t done = ch.base_done + (v_cur - ch.v_base);
        const std::uint32_t v_epoch_end = v_cur + (ch.epoch_samples - done);
        const std::uint32_t v_flush =
            v_cur + ((done / flush_samples + 1) * flush_samples - done);
        const std::uint32_t e = min(min(v_epoch_end, v_flush), tile_end);
        const bool folds = e == v_epoch_end || e == v_flush;
        for (std::uint32_t pass = 0; pass < passes; ++pass) {
            const std::uint32_t k0 = pass * TG;
            if (passes > 1) {
                lc.rebase(v_cur, k0);
                lc.load_partials(k0);
            }
            lc.walk(tile, tile_v, v_cur, e);
            if (folds)
                lc.flush(k0);
            if (passes > 1)
                lc.store_partials(k0);
        }
        __syncwarp();
        if (e != v_epoch_end) {
            if (lc.lane == 0)
                ch.v_cur = e;
            __syncwarp();
            continue;
        }
        if (lc.lane == 0) {
            const kernel_args& a = lc.a;
            const std::uint32_t n = ch.epoch_samples - ch.base_done;
            const std::uint64_t code_end =
                ch.base_phase + static_cast<std::uint64_t>(n) * ch.code_step;
            const std::uint32_t theta_end = ch.base_theta + n * ch.carrier_step;
            gnss_epoch_record* record = nullptr;
            float2* correlations = nullptr;
            if (ch.records_done < a.capacity) {
                const std::size_t i =
                    static_cast<std::size_t>(rank) * a.capacity + ch.records_done;
                record = a.records + i;
                correlations = a.correlations + i * lc.T;
            } else {
                *a.overflow = 1;
            }
            const epoch_start next = finish_epoch(a.params + lc.slot,
                                                  a.states + lc.slot,
                                                  lc.sums,
                                                  code_end,
                                                  theta_end,
                                                  record,
                                                  correlations,
                                                  lc.T);
            ch.records_done += 1;
            ch.base_phase = next.code_phase;
            ch.code_step = next.code_step;
            ch.base_theta = next.carrier_phase;
            ch.carrier_step = next.carrier_step;
            ch.epoch_samples = next.epoch_samples;
            ch.v_base = e;
            ch.base_done = 0;
            ch.v_cur = e;
        }
        __syncwarp();
        for (std::uint32_t c = lc.lane; c < C; c += warp_lanes)
            lc.sums[c] = 0.0;
        __syncwarp();
        // Also at the chunk's end, where it is not needed: the walkers are then
        // rebuilt on every path out of the epoch's end, and nothing of the sample
        // loop stays live (in registers) across the tracking rule.
        if (passes == 1)
            lc.rebase(e, 0);
    }
}

/*!
 * Leaves a warp's channel for the next call: the epoch in progress goes on from these
 * NCOs, float sums (lane_partials) and float64 sums; lane 0 writes the rank's record
 * count. Called by the whole warp of a live rank.
 */
template <int TG, bool SharedTables>
__device__ __forceinline__ void save_channel(lane_correlator<TG, SharedTables>& lc,
                                             std::uint32_t rank)
{
    const kernel_args& a = lc.a;
    const warp_channel& ch = lc.ch;
    const std::uint32_t C = 2 * lc.T;
    if (ch.takes_samples) {
        if (lc.T <= TG)
            lc.store_partials(0);
        if (lc.lane == 0) {
            gnss_channel_state& s = a.states[lc.slot];
            const std::uint32_t n = ch.v_cur - ch.v_base;
            s.code_phase = ch.base_phase + static_cast<std::uint64_t>(n) * ch.code_step;
            s.carrier_phase = ch.base_theta + n * ch.carrier_step;
            s.samples_done = ch.base_done + n;
        }
        for (std::uint32_t c = lc.lane; c < C; c += warp_lanes)
            a.epoch_sums[lc.slot * C + c] = lc.sums[c];
    }
    if (lc.lane == 0)
        a.record_counts[rank] = min(ch.records_done, a.capacity);
}

} // namespace gnss_kernel
} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_KERNEL_LANES_CUH */
