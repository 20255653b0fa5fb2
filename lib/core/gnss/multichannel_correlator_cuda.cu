/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_nco.h"
#include "gnss/gnss_tracking.h"
#include "gnss/multichannel_correlator_cuda.h"
#include "gnss/multichannel_correlator_kernel.cuh"
#include "runtime/cuda_check.h"
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

// ---------------------------------------------------------------------------------
// Housekeeping kernels
// ---------------------------------------------------------------------------------

/*!
 * Integer I/Q pairs to float2, as they are (no scaling): in[0, n) to out[0, n), two
 * buffers that do not overlap; any grid (grid-stride loop).
 */
template <typename Pair>
__global__ void
to_float2_kernel(const Pair* __restrict__ in, float2* __restrict__ out, std::size_t n)
{
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const Pair p = in[i];
        out[i] = make_float2(static_cast<float>(p.x), static_cast<float>(p.y));
    }
}

/*!
 * Installs staged channels: parameters, state and tap shifts into their slots, the
 * carried sums zeroed. One block per staged channel.
 */
__global__ void install_channels_kernel(const std::uint32_t* __restrict__ slots,
                                        const gnss_channel_params* __restrict__ params,
                                        const gnss_channel_state* __restrict__ states,
                                        const std::uint64_t* __restrict__ shifts,
                                        std::uint32_t taps,
                                        gnss_channel_params* __restrict__ d_params,
                                        gnss_channel_state* __restrict__ d_states,
                                        std::uint64_t* __restrict__ d_shifts,
                                        double* __restrict__ epoch_sums,
                                        float* __restrict__ lane_partials)
{
    const std::uint32_t i = blockIdx.x;
    const std::uint32_t slot = slots[i];
    const std::uint32_t C = 2 * taps;
    if (threadIdx.x == 0) {
        d_params[slot] = params[i];
        d_states[slot] = states[i];
    }
    for (std::uint32_t k = threadIdx.x; k < taps; k += blockDim.x)
        d_shifts[std::size_t(slot) * taps + k] = shifts[std::size_t(i) * taps + k];
    for (std::uint32_t c = threadIdx.x; c < C; c += blockDim.x)
        epoch_sums[std::size_t(slot) * C + c] = 0.0;
    for (std::uint32_t c = threadIdx.x; c < C * warp_lanes; c += blockDim.x)
        lane_partials[std::size_t(slot) * C * warp_lanes + c] = 0.0f;
}

/*!
 * Gathers the records of every rank into one array in rank order (offsets from an
 * exclusive scan of the counts); one warp per rank, blocks of whole warps. Rank r's
 * counts[r] records (at most capacity) and their taps correlations come from slots
 * r * capacity of records and correlations and go to out_records and
 * out_correlations at offsets[r], buffers that do not overlap the sources. \p total
 * receives the sum.
 */
__global__ void gather_records_kernel(const gnss_epoch_record* __restrict__ records,
                                      const float2* __restrict__ correlations,
                                      const std::uint32_t* __restrict__ counts,
                                      const std::uint32_t* __restrict__ offsets,
                                      std::uint32_t ranks,
                                      std::uint32_t capacity,
                                      std::uint32_t taps,
                                      gnss_epoch_record* __restrict__ out_records,
                                      float2* __restrict__ out_correlations,
                                      std::uint32_t* __restrict__ total)
{
    constexpr std::uint32_t words = sizeof(gnss_epoch_record) / sizeof(std::uint32_t);
    const std::uint32_t rank = (blockIdx.x * blockDim.x + threadIdx.x) / warp_lanes;
    const std::uint32_t lane = threadIdx.x % warp_lanes;
    if (rank >= ranks)
        return;
    const std::uint32_t count = counts[rank];
    const std::uint32_t offset = offsets[rank];
    const auto* src = reinterpret_cast<const std::uint32_t*>(records) +
                      std::size_t(rank) * capacity * words;
    auto* dst =
        reinterpret_cast<std::uint32_t*>(out_records) + std::size_t(offset) * words;
    for (std::uint32_t w = lane; w < count * words; w += warp_lanes)
        dst[w] = src[w];
    const float2* csrc = correlations + std::size_t(rank) * capacity * taps;
    float2* cdst = out_correlations + std::size_t(offset) * taps;
    for (std::uint32_t i = lane; i < count * taps; i += warp_lanes)
        cdst[i] = csrc[i];
    if (rank == ranks - 1 && lane == 0)
        *total = offset + count;
}

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

double elapsed_ms(const cuda_event& from, const cuda_event& to)
{
    return static_cast<double>(to.elapsed_ms_since(from));
}

template <typename T>
void grow(device_buffer<T>& buffer, std::size_t count)
{
    if (buffer.size() < count)
        buffer = device_buffer<T>(std::max(count, buffer.size() + buffer.size() / 2));
}

template <typename T>
void grow(pinned_buffer<T>& buffer, std::size_t count)
{
    if (buffer.size() < count)
        buffer = pinned_buffer<T>(std::max(count, buffer.size() + buffer.size() / 2));
}

//! Replaces \p buffer by one of \p count elements that starts with its contents.
template <typename T>
void regrow_keeping(device_buffer<T>& buffer, std::size_t count, cudaStream_t stream)
{
    device_buffer<T> bigger(count);
    if (buffer.size())
        CUDADSP_CUDA(cudaMemcpyAsync(bigger.get(),
                                     buffer.get(),
                                     buffer.bytes(),
                                     cudaMemcpyDeviceToDevice,
                                     stream));
    // The old buffer is freed below: cudaFree waits for the copy.
    buffer = std::move(bigger);
}

//! Appends \p count elements to \p out, on several threads when the block is large.
template <typename T, typename U>
void append(std::vector<T>& out, const U* src, std::size_t count)
{
    static_assert(sizeof(T) == sizeof(U), "same layout");
    if (count == 0)
        return;
    const std::size_t old = out.size();
    const std::size_t bytes = count * sizeof(T);
    if (bytes < (std::size_t(4) << 20)) {
        const T* first = reinterpret_cast<const T*>(src);
        out.insert(out.end(), first, first + count);
        return;
    }
    out.resize(old + count);
    parallel_memcpy(out.data() + old, src, bytes);
}

/*!
 * The timed stages of one call: pairs of events (from, to) recorded on the streams,
 * summed per kind into gnss_cuda_timing once the call has synchronised.
 */
class stage_timer
{
public:
    enum kind { upload, convert, correlate, compact, download };

    //! Records an event on \p stream; returns its handle for add().
    std::size_t mark(cudaStream_t stream)
    {
        d_marks.emplace_back(true);
        d_marks.back().record(stream);
        return d_marks.size() - 1;
    }
    void add(kind k, std::size_t from, std::size_t to)
    {
        d_stages.push_back({ k, from, to });
    }

    void add_to(gnss_cuda_timing& timing) const
    {
        for (const stage& st : d_stages) {
            const double ms = elapsed_ms(d_marks[st.from], d_marks[st.to]);
            switch (st.k) {
            case upload:
                timing.upload_ms += ms;
                break;
            case convert:
                timing.convert_ms += ms;
                break;
            case correlate:
                timing.correlate_ms += ms;
                break;
            case compact:
                timing.compact_ms += ms;
                break;
            case download:
                timing.download_ms += ms;
                break;
            }
        }
    }

private:
    struct stage {
        kind k;
        std::size_t from, to;
    };
    std::vector<cuda_event> d_marks;
    std::vector<stage> d_stages;
};

//! \p m integer samples of \p format (ci16 or ci8) at \p raw to float2 at \p out.
void enqueue_to_float2(gnss_sample_format format,
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

//! One chunk's results on the host: its counts per rank, records and correlations.
struct chunk_results {
    std::vector<std::uint32_t> counts;
    std::vector<gnss_epoch_record> records;
    std::vector<float2> correlations;
};

/*!
 * Appends the records of several chunks to \p results channel by channel (ascending
 * id, the rank order), each channel's epochs chunk after chunk.
 */
void merge_chunks_by_channel(const std::vector<chunk_results>& chunks,
                             std::size_t ranks,
                             std::size_t taps,
                             std::size_t total_records,
                             gnss_correlator_results& results)
{
    results.records.reserve(results.records.size() + total_records);
    results.correlations.reserve(results.correlations.size() + total_records * taps);
    std::vector<std::size_t> offset(chunks.size(), 0);
    for (std::size_t r = 0; r < ranks; ++r) {
        for (std::size_t c = 0; c < chunks.size(); ++c) {
            const std::size_t n = chunks[c].counts[r];
            const gnss_epoch_record* rec = chunks[c].records.data() + offset[c];
            results.records.insert(results.records.end(), rec, rec + n);
            const auto* corr = reinterpret_cast<const std::complex<float>*>(
                chunks[c].correlations.data() + offset[c] * taps);
            results.correlations.insert(
                results.correlations.end(), corr, corr + n * taps);
            offset[c] += n;
        }
    }
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
    int optin = 0;
    CUDADSP_CUDA(cudaDeviceGetAttribute(
        &optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, d_device.cuda_ordinal));
    launch_shape best[2];
    int best_warps[2] = { -1, -1 };
    for (const bool shared_tables : { true, false }) {
        for (const std::size_t warps : { 8, 4, 2, 1 }) {
            for (const std::size_t tile : { 4096, 2048, 1024, 512 }) {
                const std::size_t bytes = shared_layout_bytes(
                    tile, warps, d_taps, shared_tables ? d_table_stride : 0);
                if (bytes > static_cast<std::size_t>(optin))
                    continue;
                const correlate_fn kernel = correlate_kernel_for(d_taps, shared_tables);
                CUDADSP_CUDA(
                    cudaFuncSetAttribute(kernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(bytes)));
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
                         std::to_string(optin) + " bytes per block)");
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
    const correlate_fn kernel = correlate_kernel_for(d_taps, d_launch.shared_tables);
    CUDADSP_CUDA(cudaFuncSetAttribute(kernel,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(d_launch.shared_bytes)));
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

/*!
 * One call of run(): what is fixed for the call (its chunking, where the samples are,
 * the record capacity), the events that hand each input buffer between the upload and
 * the compute streams, the stage timer and what the chunks have returned so far.
 */
struct multichannel_correlator_cuda::call {
    call(multichannel_correlator_cuda& e,
         const void* call_samples,
         bool samples_on_device,
         std::size_t call_nsamples)
        : engine(e),
          samples(call_samples),
          on_device(samples_on_device),
          nsamples(call_nsamples),
          format(e.d_config.input_format),
          in_bytes(bytes_per_sample(format)),
          is_float(format == gnss_sample_format::cf32),
          direct_input(on_device && is_float),
          host_pinned(!on_device && is_pinned_host_pointer(samples)),
          chunk(e.chunk_samples_for(nsamples)),
          nchunks((nsamples + chunk - 1) / chunk),
          capacity(e.record_capacity(chunk)),
          stream(e.d_stream->get()),
          upload_stream(e.d_upload_stream->get())
    {
        scan_bytes = e.prepare_call_buffers(on_device, host_pinned, chunk, capacity);
        CUDADSP_CUDA(
            cudaMemsetAsync(e.d_flags.get(), 0, 2 * sizeof(std::uint32_t), stream));
    }

    std::size_t first_of(std::size_t c) const { return c * chunk; }
    std::size_t length_of(std::size_t c) const
    {
        return std::min(chunk, nsamples - c * chunk);
    }
    //! The input buffer of chunk \p c: device input is read in place.
    std::size_t buffer_of(std::size_t c) const { return on_device ? 0 : c % 2; }

    //! Enqueues chunk \p c's host samples on the upload stream (staged when pageable).
    void upload(std::size_t c)
    {
        const std::size_t b = buffer_of(c);
        const std::size_t m = length_of(c);
        const unsigned char* src =
            static_cast<const unsigned char*>(samples) + first_of(c) * in_bytes;
        if (!host_pinned) {
            // The staging buffer's previous upload (chunk c - 2) must be done.
            uploaded[b].synchronize();
            parallel_memcpy(engine.d_staging[b].get(), src, m * in_bytes);
            src = engine.d_staging[b].get();
        }
        consumed[b].wait_on(upload_stream);
        const std::size_t from = timer.mark(upload_stream);
        void* dst = is_float ? static_cast<void*>(engine.d_input[b].get())
                             : static_cast<void*>(engine.d_raw[b].get());
        CUDADSP_CUDA(cudaMemcpyAsync(
            dst, src, m * in_bytes, cudaMemcpyHostToDevice, upload_stream));
        timer.add(stage_timer::upload, from, timer.mark(upload_stream));
        uploaded[b].record(upload_stream);
    }

    //! Chunk \p c as float2 on the device, once its upload is done.
    const float2* device_input(std::size_t c)
    {
        const std::size_t b = buffer_of(c);
        if (!on_device)
            uploaded[b].wait_on(stream);
        if (direct_input)
            return static_cast<const float2*>(samples) + first_of(c);
        if (is_float)
            return engine.d_input[b].get();
        const unsigned char* raw =
            on_device
                ? static_cast<const unsigned char*>(samples) + first_of(c) * in_bytes
                : engine.d_raw[b].get();
        const std::size_t from = timer.mark(stream);
        enqueue_to_float2(format, raw, engine.d_input[b].get(), length_of(c), stream);
        timer.add(stage_timer::convert, from, timer.mark(stream));
        return engine.d_input[b].get();
    }

    /*!
     * Correlates chunk \p c, gathers its records in rank (channel id) order and
     * downloads their count and, with several chunks, the counts per rank that merge
     * the chunks by channel.
     */
    void correlate(std::size_t c, const float2* input)
    {
        const std::size_t correlate_from = timer.mark(stream);
        engine.enqueue_correlate(input,
                                 length_of(c),
                                 engine.d_samples_processed + first_of(c),
                                 capacity,
                                 stream);
        const std::size_t correlate_to = timer.mark(stream);
        timer.add(stage_timer::correlate, correlate_from, correlate_to);
        if (!on_device)
            consumed[buffer_of(c)].record(stream);

        engine.enqueue_compaction(capacity, scan_bytes, stream);
        const std::size_t compact_to = timer.mark(stream);
        timer.add(stage_timer::compact, correlate_to, compact_to);
        CUDADSP_CUDA(cudaMemcpyAsync(engine.d_host_flags.get(),
                                     engine.d_flags.get(),
                                     2 * sizeof(std::uint32_t),
                                     cudaMemcpyDeviceToHost,
                                     stream));
        if (nchunks > 1)
            CUDADSP_CUDA(cudaMemcpyAsync(engine.d_host_counts.get(),
                                         engine.d_counts.get(),
                                         engine.d_ranks * sizeof(std::uint32_t),
                                         cudaMemcpyDeviceToHost,
                                         stream));
        timer.add(stage_timer::download, compact_to, timer.mark(stream));
    }

    //! Waits for the chunk just correlated and takes its records to the host.
    void collect(gnss_correlator_results& results)
    {
        using clock = std::chrono::steady_clock;
        const std::size_t T = engine.d_taps;
        engine.d_stream->synchronize();
        if (engine.d_host_flags.get()[0] != 0)
            throw std::logic_error("multichannel correlator (cuda): a channel completed "
                                   "more epochs than its record capacity of " +
                                   std::to_string(capacity));
        const std::size_t total = engine.d_host_flags.get()[1];
        total_records += total;

        grow(engine.d_host_records, std::max<std::size_t>(total, 1));
        grow(engine.d_host_correlations, std::max<std::size_t>(total * T, 1));
        const std::size_t download_from = timer.mark(stream);
        if (total) {
            CUDADSP_CUDA(cudaMemcpyAsync(engine.d_host_records.get(),
                                         engine.d_compact_records.get(),
                                         total * sizeof(gnss_epoch_record),
                                         cudaMemcpyDeviceToHost,
                                         stream));
            CUDADSP_CUDA(cudaMemcpyAsync(engine.d_host_correlations.get(),
                                         engine.d_compact_correlations.get(),
                                         total * T * sizeof(float2),
                                         cudaMemcpyDeviceToHost,
                                         stream));
        }
        timer.add(stage_timer::download, download_from, timer.mark(stream));
        engine.d_stream->synchronize();

        const auto assemble_start = clock::now();
        const auto* records = engine.d_host_records.get();
        const auto* correlations = engine.d_host_correlations.get();
        if (nchunks == 1) {
            append(results.records, records, total);
            append(results.correlations, correlations, total * T);
        } else {
            const auto* counts = engine.d_host_counts.get();
            chunks.push_back({ { counts, counts + engine.d_ranks },
                               { records, records + total },
                               { correlations, correlations + total * T } });
        }
        assemble_ms +=
            std::chrono::duration<double, std::milli>(clock::now() - assemble_start)
                .count();
    }

    multichannel_correlator_cuda& engine;
    const void* samples;
    const bool on_device;
    const std::size_t nsamples;
    const gnss_sample_format format;
    const std::size_t in_bytes;
    const bool is_float;
    const bool direct_input;
    const bool host_pinned;
    const std::size_t chunk;
    const std::size_t nchunks;
    const std::size_t capacity;
    std::size_t scan_bytes = 0;
    const cudaStream_t stream;
    const cudaStream_t upload_stream;
    // Per input buffer: its upload done, and the kernel done reading it.
    cuda_event uploaded[2], consumed[2];
    stage_timer timer;
    std::vector<chunk_results> chunks; // when there are several
    double assemble_ms = 0;
    std::size_t total_records = 0;
};

void multichannel_correlator_cuda::run(const void* samples,
                                       bool on_device,
                                       std::size_t nsamples,
                                       gnss_correlator_results& results)
{
    using clock = std::chrono::steady_clock;
    const auto wall_start = clock::now();
    device_guard guard(d_device.cuda_ordinal);
    d_timing = gnss_cuda_timing{};
    apply_channel_changes();
    if (d_ranks == 0)
        return; // nothing to correlate; the caller counts the samples
    if (d_launch_dirty)
        choose_launch_shape();

    call k(*this, samples, on_device, nsamples);
    if (!on_device)
        k.upload(0);
    for (std::size_t c = 0; c < k.nchunks; ++c) {
        k.correlate(c, k.device_input(c));
        // The next chunk's upload overlaps this chunk's kernel.
        if (!on_device && c + 1 < k.nchunks)
            k.upload(c + 1);
        k.collect(results);
    }

    if (k.nchunks > 1) {
        const auto assemble_start = clock::now();
        merge_chunks_by_channel(k.chunks, d_ranks, d_taps, k.total_records, results);
        k.assemble_ms +=
            std::chrono::duration<double, std::milli>(clock::now() - assemble_start)
                .count();
    }

    k.timer.add_to(d_timing);
    d_timing.assemble_ms = k.assemble_ms;
    d_timing.chunks = k.nchunks;
    d_timing.records = k.total_records;
    d_timing.total_ms =
        std::chrono::duration<double, std::milli>(clock::now() - wall_start).count();
}

} // namespace core
} // namespace cudadsp
} // namespace gr
