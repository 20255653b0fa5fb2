/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_nco.h"
#include "gnss/gnss_tracking.h"
#include "gnss/multichannel_correlator_cpu.h"
#include "runtime/parallel_ranges.h"
#include <algorithm>
#include <complex>

namespace gr {
namespace cudadsp {
namespace core {

struct multichannel_correlator_cpu::channel {
    gnss_channel_setup setup;
    std::vector<double> sums;      //!< the epoch in progress: (re, im) per tap
    std::vector<float> block_sums; //!< its block in progress (see accumulate())
    std::vector<gnss_epoch_record> records;
    std::vector<std::complex<float>> correlations;

    explicit channel(const gnss_channel_setup& s)
        : setup(s), sums(2 * s.params.taps, 0.0), block_sums(2 * s.params.taps, 0.0f)
    {
    }
};

namespace {

// Samples of one block: wiped once, then summed for every tap. Small enough to stay in
// L1 with the code table, large enough to amortise the per-tap walker start.
constexpr std::uint32_t block_samples = 512;

// Input sample readers: float I and Q of sample k, integers as they are.
struct cf32_reader {
    const float* x;
    float re(std::size_t k) const { return x[2 * k]; }
    float im(std::size_t k) const { return x[2 * k + 1]; }
};
struct ci16_reader {
    const std::int16_t* x;
    float re(std::size_t k) const { return static_cast<float>(x[2 * k]); }
    float im(std::size_t k) const { return static_cast<float>(x[2 * k + 1]); }
};
struct ci8_reader {
    const std::int8_t* x;
    float re(std::size_t k) const { return static_cast<float>(x[2 * k]); }
    float im(std::size_t k) const { return static_cast<float>(x[2 * k + 1]); }
};

cf32_reader offset_reader(const cf32_reader& r, std::size_t n) { return { r.x + 2 * n }; }
ci16_reader offset_reader(const ci16_reader& r, std::size_t n) { return { r.x + 2 * n }; }
ci8_reader offset_reader(const ci8_reader& r, std::size_t n) { return { r.x + 2 * n }; }

/*!
 * Accumulates \p count samples of the epoch in progress (count does not cross its end)
 * and advances the NCOs and s.samples_done past them.
 *
 * Sums are float within a block of block_samples samples counted from the epoch's
 * start and float64 across blocks. A block cut by the end of a buffer keeps its float
 * partial sums in \p block_sums and continues in the next call, so the arithmetic, and
 * every result bit, is the same however the stream is split into calls.
 */
template <typename Reader>
void accumulate(const gnss_channel_params& p,
                gnss_channel_state& s,
                const std::int64_t* shifts,
                const std::int8_t* code,
                Reader x,
                std::uint32_t count,
                float* block_sums,
                double* sums)
{
    alignas(64) float wiped_re[block_samples];
    alignas(64) float wiped_im[block_samples];
    const std::uint64_t step = s.code_step;
    const std::uint32_t carrier_step = static_cast<std::uint32_t>(s.carrier_step);
    while (count > 0) {
        const std::uint32_t m =
            std::min(count, block_samples - s.samples_done % block_samples);
        const std::uint32_t phase0 = s.carrier_phase;
        for (std::uint32_t k = 0; k < m; ++k) {
            float c, sn;
            gnss_carrier_cos_sin(phase0 + k * carrier_step, c, sn);
            const float xr = x.re(k), xi = x.im(k);
            // x exp(-j theta) = (xr + j xi)(c - j sn)
            wiped_re[k] = xr * c + xi * sn;
            wiped_im[k] = xi * c - xr * sn;
        }
        for (std::uint32_t t = 0; t < p.taps; ++t) {
            gnss_tap_walker walker;
            walker.start(s.code_phase, shifts[t], p.entries);
            float re = block_sums[2 * t], im = block_sums[2 * t + 1];
            for (std::uint32_t k = 0; k < m; ++k) {
                const float chip = code[walker.entry()];
                re += wiped_re[k] * chip;
                im += wiped_im[k] * chip;
                walker.advance(step);
            }
            block_sums[2 * t] = re;
            block_sums[2 * t + 1] = im;
        }
        s.code_phase += m * step;
        s.carrier_phase = phase0 + m * carrier_step;
        s.samples_done += m;
        x = offset_reader(x, m);
        count -= m;
        if (s.samples_done % block_samples == 0 || s.samples_done == s.epoch_samples) {
            for (std::uint32_t t = 0; t < 2 * p.taps; ++t) {
                sums[t] += block_sums[t];
                block_sums[t] = 0.0f;
            }
        }
    }
}

/*!
 * Runs one channel over the buffer [buffer_start, buffer_start + nsamples): its epochs
 * in order, each finished by the shared rule, the records kept in the channel.
 */
template <typename Reader>
void run_channel(multichannel_correlator_cpu::channel& ch,
                 Reader x,
                 std::uint64_t buffer_start,
                 std::size_t nsamples)
{
    gnss_channel_params& p = ch.setup.params;
    gnss_channel_state& s = ch.setup.state;
    const std::uint64_t next = gnss_next_sample(s);
    if (next >= buffer_start + nsamples)
        return; // starts in a later buffer
    std::size_t offset = static_cast<std::size_t>(next - buffer_start);
    const std::int8_t* code = ch.setup.code->data();
    const std::int64_t* shifts = ch.setup.tap_shifts.data();
    while (offset < nsamples) {
        const std::uint32_t m = static_cast<std::uint32_t>(
            std::min<std::size_t>(s.epoch_samples - s.samples_done, nsamples - offset));
        accumulate(p,
                   s,
                   shifts,
                   code,
                   offset_reader(x, offset),
                   m,
                   ch.block_sums.data(),
                   ch.sums.data());
        offset += m;
        if (s.samples_done < s.epoch_samples)
            break;
        gnss_epoch_record record;
        gnss_finish_epoch(p, s, ch.sums.data(), record);
        ch.records.push_back(record);
        for (std::uint32_t t = 0; t < p.taps; ++t)
            ch.correlations.emplace_back(static_cast<float>(ch.sums[2 * t]),
                                         static_cast<float>(ch.sums[2 * t + 1]));
        std::fill(ch.sums.begin(), ch.sums.end(), 0.0);
    }
}

} // namespace

multichannel_correlator_cpu::multichannel_correlator_cpu(
    const multichannel_correlator_config& config, const device_selection& device)
    : multichannel_correlator(config, device)
{
}

multichannel_correlator_cpu::~multichannel_correlator_cpu() = default;

std::vector<std::unique_ptr<multichannel_correlator_cpu::channel>>::iterator
multichannel_correlator_cpu::find(std::uint32_t id)
{
    return std::lower_bound(d_channels.begin(),
                            d_channels.end(),
                            id,
                            [](const std::unique_ptr<channel>& c, std::uint32_t v) {
                                return c->setup.params.channel_id < v;
                            });
}

void multichannel_correlator_cpu::do_add_channel(const gnss_channel_setup& setup)
{
    d_channels.insert(find(setup.params.channel_id), std::make_unique<channel>(setup));
}

void multichannel_correlator_cpu::do_reinit_channel(const gnss_channel_setup& setup)
{
    *find(setup.params.channel_id) = std::make_unique<channel>(setup);
}

void multichannel_correlator_cpu::do_remove_channel(std::uint32_t id)
{
    d_channels.erase(find(id));
}

void multichannel_correlator_cpu::do_process(const void* samples,
                                             std::size_t nsamples,
                                             gnss_correlator_results& results)
{
    const std::uint64_t start = d_samples_processed;
    auto run = [&](std::size_t first, std::size_t end) {
        for (std::size_t i = first; i < end; ++i) {
            channel& ch = *d_channels[i];
            ch.records.clear();
            ch.correlations.clear();
            switch (d_config.input_format) {
            case gnss_sample_format::ci16:
                run_channel(ch,
                            ci16_reader{ static_cast<const std::int16_t*>(samples) },
                            start,
                            nsamples);
                break;
            case gnss_sample_format::ci8:
                run_channel(ch,
                            ci8_reader{ static_cast<const std::int8_t*>(samples) },
                            start,
                            nsamples);
                break;
            default:
                run_channel(ch,
                            cf32_reader{ static_cast<const float*>(samples) },
                            start,
                            nsamples);
            }
        }
    };
    const std::size_t nchannels = d_channels.size();
    // Channels are independent: contiguous shares per core, unless the call is too
    // small to pay for starting threads.
    constexpr std::size_t min_work_per_thread = std::size_t(1) << 19;
    parallel_ranges(nchannels, nchannels * nsamples / min_work_per_thread, run);
    std::size_t total = 0;
    for (const auto& ch : d_channels)
        total += ch->records.size();
    results.records.reserve(results.records.size() + total);
    results.correlations.reserve(results.correlations.size() + total * d_config.taps);
    for (const auto& ch : d_channels) {
        results.records.insert(
            results.records.end(), ch->records.begin(), ch->records.end());
        results.correlations.insert(
            results.correlations.end(), ch->correlations.begin(), ch->correlations.end());
    }
}

} // namespace core
} // namespace cudadsp
} // namespace gr
