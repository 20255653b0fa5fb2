/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_nco.h"
#include "gnss/gnss_tracking.h"
#include "gnss/multichannel_correlator_buffers.h"
#include "gnss/multichannel_correlator_cuda.h"
#include "gnss/multichannel_correlator_housekeeping_kernels.cuh"
#include "gnss/multichannel_correlator_kernel.cuh"
#include "runtime/cuda_check.h"
#include "runtime/kernel_shared_memory.h"
#include "runtime/parallel_copy.h"
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using namespace gnss_kernel;

using correlate_fn = void (*)(kernel_args);

template <bool SharedTables>
correlate_fn correlate_kernel_for(std::size_t pass_taps)
{
    switch (pass_taps) {
    case 1:
        return correlate_kernel<1, SharedTables>;
    case 2:
        return correlate_kernel<2, SharedTables>;
    case 3:
        return correlate_kernel<3, SharedTables>;
    case 4:
        return correlate_kernel<4, SharedTables>;
    case 5:
        return correlate_kernel<5, SharedTables>;
    case 6:
        return correlate_kernel<6, SharedTables>;
    case 7:
        return correlate_kernel<7, SharedTables>;
    default:
        return correlate_kernel<8, SharedTables>;
    }
}

correlate_fn correlate_kernel_for(std::size_t taps, bool shared_tables)
{
    const std::size_t pass_taps = std::min<std::size_t>(taps, max_pass_taps);
    return shared_tables ? correlate_kernel_for<true>(pass_taps)
                         : correlate_kernel_for<false>(pass_taps);
}

} // namespace

// ------------------------------------------------------------------------------------
// Engine
// ------------------------------------------------------------------------------------

multichannel_correlator_cuda::multichannel_correlator_cuda(
    const multichannel_correlator_config& config, const device_selection& device)
    : multichannel_correlator(config, device), d_taps(config.taps)
{
    device_guard guard(d_device.cuda_ordinal);
    // The kernels' shared memory limit, once: it is the same for every launch shape.
    for (const bool shared_tables : { false, true })
        d_dynamic_shared_limit[shared_tables] = allow_dynamic_shared_memory(
            reinterpret_cast<const void*>(correlate_kernel_for(d_taps, shared_tables)));
    d_stream = std::make_unique<cuda_stream>();
    d_upload_stream = std::make_unique<cuda_stream>();
    d_flags = device_buffer<std::uint32_t>(2);
    d_host_flags = pinned_buffer<std::uint32_t>(2);
}

multichannel_correlator_cuda::~multichannel_correlator_cuda()
{
    try {
        device_guard guard(d_device.cuda_ordinal);
        d_stream.reset();
        d_upload_stream.reset();
        // Device and pinned buffers release themselves (never throwing).
    } catch (...) {
        // Destructors must not throw; the device is already in an error state.
    }
}

std::uint32_t multichannel_correlator_cuda::allocate_slot()
{
    if (!d_free_slots.empty()) {
        // Lowest free slot first keeps the used range compact.
        auto it = std::min_element(d_free_slots.begin(), d_free_slots.end());
        const std::uint32_t slot = *it;
        d_free_slots.erase(it);
        return slot;
    }
    d_slots.emplace_back();
    return static_cast<std::uint32_t>(d_slots.size() - 1);
}

void multichannel_correlator_cuda::stage_channel(std::uint32_t slot,
                                                 const gnss_channel_setup& setup)
{
    const gnss_channel_params& p = setup.params;
    channel_slot& s = d_slots[slot];
    s.id = p.channel_id;
    s.used = true;
    if (s.code != setup.code)
        d_tables_dirty = true;
    s.code = setup.code;
    s.entries = p.entries;
    s.max_step = std::max(p.code_step_max, setup.state.code_step);
    const std::uint64_t shortest = (p.epoch_length + s.max_step - 1) / s.max_step;
    s.epoch_samples_min = shortest > 1 ? shortest - 1 : 1;
    d_launch_dirty = true;

    // A slot staged twice before an upload keeps its latest setup.
    if (d_staged_index.size() < d_slots.size())
        d_staged_index.resize(d_slots.size(), not_staged);
    std::size_t i = d_staged_index[slot];
    if (i == not_staged) {
        i = d_staged_slots.size();
        d_staged_index[slot] = i;
        d_staged_slots.push_back(slot);
        d_staged_params.push_back(p);
        d_staged_states.push_back(setup.state);
        d_staged_shifts.resize(d_staged_shifts.size() + d_taps);
    } else {
        d_staged_params[i] = p;
        d_staged_states[i] = setup.state;
    }
    for (std::size_t k = 0; k < d_taps; ++k)
        d_staged_shifts[i * d_taps + k] =
            normalized_tap_shift(setup.tap_shifts[k], p.entries);
}

void multichannel_correlator_cuda::do_add_channel(const gnss_channel_setup& setup)
{
    const std::uint32_t slot = allocate_slot();
    stage_channel(slot, setup);
    d_slot_of_id[setup.params.channel_id] = slot;
    d_order_dirty = true;
}

void multichannel_correlator_cuda::do_reinit_channel(const gnss_channel_setup& setup)
{
    stage_channel(d_slot_of_id.at(setup.params.channel_id), setup);
}

void multichannel_correlator_cuda::do_remove_channel(std::uint32_t id)
{
    const auto it = d_slot_of_id.find(id);
    channel_slot& s = d_slots[it->second];
    s.used = false;
    s.code.reset();
    d_free_slots.push_back(it->second);
    // Its staged setup, if any, is harmless: a free slot is in no rank.
    d_slot_of_id.erase(it);
    d_order_dirty = true;
    d_launch_dirty = true;
}

void multichannel_correlator_cuda::ensure_slot_capacity(std::size_t slots)
{
    if (slots <= d_slot_capacity)
        return;
    const std::size_t capacity = std::max(slots, d_slot_capacity + d_slot_capacity / 2);
    const std::size_t C = 2 * d_taps;
    cudaStream_t stream = d_stream->get();
    regrow_keeping(d_params, capacity, stream);
    regrow_keeping(d_states, capacity, stream);
    regrow_keeping(d_shifts, capacity * d_taps, stream);
    regrow_keeping(d_epoch_sums, capacity * C, stream);
    regrow_keeping(d_lane_partials, capacity * C * warp_lanes, stream);
    d_slot_capacity = capacity;
}

void multichannel_correlator_cuda::rebuild_tables()
{
    // Distinct tables among the channels in use, each extended for the fastest walker
    // of any channel, 16-byte aligned so that the kernel copies them in words.
    std::uint64_t max_step = 1;
    for (const auto& s : d_slots)
        if (s.used)
            max_step = std::max(max_step, s.max_step);
    std::map<const std::vector<std::int8_t>*, std::uint32_t> offsets;
    std::vector<std::int8_t> pool;
    std::size_t stride = 16;
    for (const auto& s : d_slots) {
        if (!s.used || offsets.count(s.code.get()))
            continue;
        const std::vector<std::int8_t>& code = *s.code;
        const std::size_t length = extended_table_length(s.entries, max_step);
        if (pool.size() + length > std::numeric_limits<std::uint32_t>::max())
            throw std::invalid_argument(
                "code: the code tables of all channels exceed 4 GB on the device");
        offsets[s.code.get()] = static_cast<std::uint32_t>(pool.size());
        for (std::size_t i = 0; i < length; ++i)
            pool.push_back(code[i % code.size()]);
        stride = std::max(stride, length);
    }
    d_host_codes.assign(d_slots.size(), gnss_cuda_code{ 0, 1, 1, 0 });
    for (std::size_t i = 0; i < d_slots.size(); ++i) {
        const auto& s = d_slots[i];
        if (!s.used)
            continue;
        d_host_codes[i] = gnss_cuda_code{
            offsets.at(s.code.get()),
            s.entries,
            wrap_groups_for(s.entries, s.max_step),
            static_cast<std::uint32_t>(extended_table_length(s.entries, max_step))
        };
    }
    d_table_stride = stride;
    d_tables = device_buffer<std::int8_t>(std::max<std::size_t>(pool.size(), 16));
    if (!pool.empty())
        CUDADSP_CUDA(cudaMemcpyAsync(d_tables.get(),
                                     pool.data(),
                                     pool.size(),
                                     cudaMemcpyHostToDevice,
                                     d_stream->get()));
    d_codes =
        device_buffer<gnss_cuda_code>(std::max<std::size_t>(d_host_codes.size(), 1));
    if (!d_host_codes.empty())
        CUDADSP_CUDA(cudaMemcpyAsync(d_codes.get(),
                                     d_host_codes.data(),
                                     d_host_codes.size() * sizeof(gnss_cuda_code),
                                     cudaMemcpyHostToDevice,
                                     d_stream->get()));
    // The host copies above read pageable vectors: cudaMemcpyAsync returns once they are
    // staged, so the vectors may go.
    d_tables_dirty = false;
}

void multichannel_correlator_cuda::apply_channel_changes()
{
    const bool changed = !d_staged_slots.empty() || d_order_dirty;
    if (!changed && !d_tables_dirty)
        return;
    cudaStream_t stream = d_stream->get();
    ensure_slot_capacity(d_slots.size());
    if (!d_staged_slots.empty()) {
        const std::size_t n = d_staged_slots.size();
        grow(d_upload_slots, n);
        grow(d_upload_params, n);
        grow(d_upload_states, n);
        grow(d_upload_shifts, n * d_taps);
        CUDADSP_CUDA(cudaMemcpyAsync(d_upload_slots.get(),
                                     d_staged_slots.data(),
                                     n * sizeof(std::uint32_t),
                                     cudaMemcpyHostToDevice,
                                     stream));
        CUDADSP_CUDA(cudaMemcpyAsync(d_upload_params.get(),
                                     d_staged_params.data(),
                                     n * sizeof(gnss_channel_params),
                                     cudaMemcpyHostToDevice,
                                     stream));
        CUDADSP_CUDA(cudaMemcpyAsync(d_upload_states.get(),
                                     d_staged_states.data(),
                                     n * sizeof(gnss_channel_state),
                                     cudaMemcpyHostToDevice,
                                     stream));
        CUDADSP_CUDA(cudaMemcpyAsync(d_upload_shifts.get(),
                                     d_staged_shifts.data(),
                                     n * d_taps * sizeof(std::uint64_t),
                                     cudaMemcpyHostToDevice,
                                     stream));
        install_channels_kernel<<<static_cast<unsigned>(n), 128, 0, stream>>>(
            d_upload_slots.get(),
            d_upload_params.get(),
            d_upload_states.get(),
            d_upload_shifts.get(),
            static_cast<std::uint32_t>(d_taps),
            d_params.get(),
            d_states.get(),
            d_shifts.get(),
            d_epoch_sums.get(),
            d_lane_partials.get());
        CUDADSP_CUDA_LAUNCHED("install_channels_kernel");
        for (std::uint32_t slot : d_staged_slots)
            d_staged_index[slot] = not_staged;
        d_staged_slots.clear();
        d_staged_params.clear();
        d_staged_states.clear();
        d_staged_shifts.clear();
    }
    // Wrap counts and table places are per slot and follow every change of channels.
    rebuild_tables();
    if (d_order_dirty) {
        std::vector<std::uint32_t> order;
        order.reserve(d_slot_of_id.size());
        for (const auto& [id, slot] : d_slot_of_id)
            order.push_back(slot);
        d_ranks = order.size();
        d_order = device_buffer<std::uint32_t>(std::max<std::size_t>(d_ranks, 1));
        if (d_ranks)
            CUDADSP_CUDA(cudaMemcpyAsync(d_order.get(),
                                         order.data(),
                                         d_ranks * sizeof(std::uint32_t),
                                         cudaMemcpyHostToDevice,
                                         stream));
        d_order_dirty = false;
    }
    // The staged vectors above are pageable: finish their copies before they change.
    d_stream->synchronize();
}

void multichannel_correlator_cuda::choose_launch_shape()
{
    // Per table placement, the largest block (most channels sharing each tile) among
    // those leaving the most warps resident per multiprocessor. Tables in shared memory
    // unless that leaves fewer than half the warps that global tables (read through
    // L1, slower per read) would: very long codes.
    launch_shape best[2];
    int best_warps[2] = { -1, -1 };
    for (const bool shared_tables : { true, false }) {
        const correlate_fn kernel = correlate_kernel_for(d_taps, shared_tables);
        const std::size_t allowed = d_dynamic_shared_limit[shared_tables];
        for (const std::size_t warps : { 8, 4, 2, 1 }) {
            for (const std::size_t tile : { 4096, 2048, 1024, 512 }) {
                const std::size_t bytes = shared_layout_bytes(
                    tile, warps, d_taps, shared_tables ? d_table_stride : 0);
                if (bytes > allowed)
                    continue;
                int blocks = 0;
                CUDADSP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &blocks, kernel, static_cast<int>(warps * warp_lanes), bytes));
                const int resident = blocks * static_cast<int>(warps);
                if (resident > best_warps[shared_tables]) {
                    best_warps[shared_tables] = resident;
                    best[shared_tables] =
                        launch_shape{ warps, tile, bytes, shared_tables };
                }
            }
        }
    }
    if (best_warps[1] <= 0 && best_warps[0] <= 0)
        throw cuda_error("multichannel correlator: no launch configuration fits the "
                         "device's shared memory (" +
                         std::to_string(std::max(d_dynamic_shared_limit[0],
                                                 d_dynamic_shared_limit[1])) +
                         " bytes per block)");
    d_launch = 2 * best_warps[1] >= best_warps[0] ? best[1] : best[0];
    d_launch_dirty = false;
}

std::size_t multichannel_correlator_cuda::record_capacity(std::size_t chunk) const
{
    std::uint64_t shortest = std::numeric_limits<std::uint64_t>::max();
    for (const auto& [id, slot] : d_slot_of_id)
        shortest = std::min(shortest, d_slots[slot].epoch_samples_min);
    // The first epoch of a chunk may end after one sample, every later one takes at
    // least `shortest` samples.
    return static_cast<std::size_t>(chunk / shortest) + 2;
}

std::size_t multichannel_correlator_cuda::chunk_samples_for(std::size_t nsamples) const
{
    std::size_t chunk = std::min(nsamples, max_chunk_samples);
    while (chunk > group_samples && d_ranks * record_capacity(chunk) > max_record_slots)
        chunk /= 2;
    return chunk;
}

void multichannel_correlator_cuda::do_process(const void* samples,
                                              std::size_t nsamples,
                                              gnss_correlator_results& results)
{
    run(samples, false, nsamples, results);
}

void multichannel_correlator_cuda::process_device(const void* d_samples,
                                                  std::size_t nsamples,
                                                  gnss_correlator_results& results)
{
    if (!results.records.empty() && results.taps != d_config.taps)
        throw std::invalid_argument(
            "results: holds records of " + std::to_string(results.taps) +
            " taps; this engine has " + std::to_string(d_config.taps));
    results.taps = d_config.taps;
    if (nsamples == 0)
        return;
    if (d_samples == nullptr)
        throw std::invalid_argument("d_samples: must not be null");
    run(d_samples, true, nsamples, results);
    d_samples_processed += nsamples;
}

std::size_t multichannel_correlator_cuda::prepare_call_buffers(bool on_device,
                                                               bool host_pinned,
                                                               std::size_t chunk,
                                                               std::size_t capacity)
{
    const gnss_sample_format format = d_config.input_format;
    const std::size_t in_bytes = bytes_per_sample(format);
    const bool is_float = format == gnss_sample_format::cf32;
    const bool direct_input = on_device && is_float;
    const std::size_t ranks = d_ranks;
    const std::size_t T = d_taps;
    // Host input goes through two device buffers (the upload of one chunk overlaps the
    // kernel of the other), pageable host input through two pinned staging buffers
    // first.
    const std::size_t nbuffers = on_device ? 1 : 2;
    for (std::size_t b = 0; b < nbuffers; ++b) {
        if (!direct_input)
            grow(d_input[b], chunk);
        if (!on_device && !is_float)
            grow(d_raw[b], chunk * in_bytes);
        if (!on_device && !host_pinned)
            grow(d_staging[b], chunk * in_bytes);
    }
    grow(d_records, ranks * capacity);
    grow(d_correlations, ranks * capacity * T);
    grow(d_counts, ranks);
    grow(d_offsets, ranks);
    grow(d_compact_records, ranks * capacity);
    grow(d_compact_correlations, ranks * capacity * T);
    grow(d_host_counts, ranks);
    std::size_t scan_bytes = 0;
    CUDADSP_CUDA(cub::DeviceScan::ExclusiveSum(
        nullptr, scan_bytes, d_counts.get(), d_offsets.get(), static_cast<int>(ranks)));
    grow(d_scan_storage, std::max<std::size_t>(scan_bytes, 1));
    return scan_bytes;
}

//! \p m integer samples of \p format (ci16 or ci8) at \p raw to float2 at \p out.
void multichannel_correlator_cuda::enqueue_to_float2(gnss_sample_format format,
                                                     const unsigned char* raw,
                                                     float2* out,
                                                     std::size_t m,
                                                     cudaStream_t stream)
{
    const unsigned blocks =
        static_cast<unsigned>(std::min<std::size_t>((m + 255) / 256, 4096));
    if (format == gnss_sample_format::ci16)
        to_float2_kernel<<<blocks, 256, 0, stream>>>(
            reinterpret_cast<const short2*>(raw), out, m);
    else
        to_float2_kernel<<<blocks, 256, 0, stream>>>(
            reinterpret_cast<const char2*>(raw), out, m);
    CUDADSP_CUDA_LAUNCHED("to_float2_kernel");
}

void multichannel_correlator_cuda::enqueue_correlate(const float2* input,
                                                     std::size_t m,
                                                     std::uint64_t first_abs,
                                                     std::size_t capacity,
                                                     cudaStream_t stream)
{
    kernel_args args{};
    args.samples = input;
    args.nsamples = static_cast<std::uint32_t>(m);
    args.align = static_cast<std::uint32_t>(first_abs % group_samples);
    args.first = first_abs;
    args.tile_samples = static_cast<std::uint32_t>(d_launch.tile_samples);
    args.ranks = static_cast<std::uint32_t>(d_ranks);
    args.order = d_order.get();
    args.taps = static_cast<std::uint32_t>(d_taps);
    args.params = d_params.get();
    args.states = d_states.get();
    args.codes = d_codes.get();
    args.shifts = d_shifts.get();
    args.tables = d_tables.get();
    args.table_stride =
        static_cast<std::uint32_t>(d_launch.shared_tables ? d_table_stride : 0);
    args.epoch_sums = d_epoch_sums.get();
    args.lane_partials = d_lane_partials.get();
    args.records = d_records.get();
    args.correlations = d_correlations.get();
    args.record_counts = d_counts.get();
    args.capacity = static_cast<std::uint32_t>(capacity);
    args.overflow = d_flags.get();
    // The constructor let the kernel use this much dynamic shared memory.
    const correlate_fn kernel = correlate_kernel_for(d_taps, d_launch.shared_tables);
    const unsigned blocks =
        static_cast<unsigned>((d_ranks + d_launch.warps - 1) / d_launch.warps);
    kernel<<<blocks,
             static_cast<unsigned>(d_launch.warps * warp_lanes),
             d_launch.shared_bytes,
             stream>>>(args);
    CUDADSP_CUDA_LAUNCHED("correlate_kernel");
}

void multichannel_correlator_cuda::enqueue_compaction(std::size_t capacity,
                                                      std::size_t scan_bytes,
                                                      cudaStream_t stream)
{
    const std::size_t ranks = d_ranks;
    CUDADSP_CUDA(cub::DeviceScan::ExclusiveSum(d_scan_storage.get(),
                                               scan_bytes,
                                               d_counts.get(),
                                               d_offsets.get(),
                                               static_cast<int>(ranks),
                                               stream));
    const unsigned gather_blocks =
        static_cast<unsigned>((ranks * warp_lanes + 255) / 256);
    gather_records_kernel<<<gather_blocks, 256, 0, stream>>>(
        d_records.get(),
        d_correlations.get(),
        d_counts.get(),
        d_offsets.get(),
        static_cast<std::uint32_t>(ranks),
        static_cast<std::uint32_t>(capacity),
        static_cast<std::uint32_t>(d_taps),
        d_compact_records.get(),
        d_compact_correlations.get(),
        d_flags.get() + 1);
    CUDADSP_CUDA_LAUNCHED("gather_records_kernel");
}

} // namespace core
} // namespace cudadsp
} // namespace gr
