/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One call of the multichannel correlator's CUDA backend (run()): the samples in chunks,
// each uploaded (overlapping the previous chunk's kernel), converted, correlated,
// compacted and downloaded, the stages timed, the chunks' records merged by channel.
// The kernels and their launches are multichannel_correlator_cuda.cu's.

#include "gnss/multichannel_correlator_buffers.h"
#include "gnss/multichannel_correlator_cuda.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/parallel_copy.h"
#include <algorithm>
#include <chrono>
#include <complex>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

double elapsed_ms(const cuda_event& from, const cuda_event& to)
{
    return static_cast<double>(to.elapsed_ms_since(from));
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
