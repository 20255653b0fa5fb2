/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_CUDA_H
#define INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_CUDA_H

#include "gnss/multichannel_correlator_internal.h"
#include "runtime/cuda_resources.h"
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! Device-side layout of one channel's code table
//! (lib/core/gnss/multichannel_correlator_cuda.cu).
struct gnss_cuda_code {
    std::uint32_t table_offset; //!< bytes into the table pool
    std::uint32_t entries;      //!< L, entries of one period
    std::uint32_t wrap_groups;  //!< walker groups between two wraps, >= 1
    std::uint32_t table_bytes;  //!< the extended table's length, multiple of 16
};

/*!
 * Event-timed breakdown of the last process() or process_device() call, milliseconds.
 * correlate: the correlation kernel (all channels, tracking included); the rest is the
 * input's way in and the records' way out.
 */
struct gnss_cuda_timing {
    double upload_ms = 0;    //!< host-to-device copies of the input (process() only)
    double convert_ms = 0;   //!< ci16 / ci8 to float conversion
    double correlate_ms = 0; //!< the correlation kernel
    double compact_ms = 0;   //!< gathering the records in channel order
    double download_ms = 0;  //!< device-to-host copies of counts and records
    double assemble_ms = 0;  //!< appending to the caller's results (host clock)
    double total_ms = 0;     //!< the whole call (host clock)
    std::size_t chunks = 0;  //!< kernel launches (input chunks) in the call
    std::size_t records = 0; //!< epochs completed in the call
};

/*!
 * \brief CUDA backend of the multichannel correlator.
 *
 * One kernel launch per input chunk (one per call unless the call is very long)
 * processes every channel: a thread block holds up to 16 channels, one warp each, and
 * stages tiles of the input in shared memory (cp.async, double-buffered), so the input
 * is read from memory once per block rather than once per channel. Each warp walks its
 * channel's epochs over the tiles, 64 consecutive samples per step (two adjacent
 * samples per lane), with the integer NCOs of gnss_nco.h and the channel's code table
 * in shared memory; at each epoch end lane 0 runs gnss_finish_epoch() (the loops, in
 * float64) and the warp goes on with the new NCO rates, without leaving the kernel.
 * Epochs that run past the end of a chunk continue in the next one from the state kept
 * in device memory.
 *
 * Sums: float per lane over at most flush_samples samples counted from the epoch's
 * start, float64 across; the sample-to-lane mapping is anchored to absolute sample
 * indices, so every result bit is the same however the stream is split into calls
 * (and into chunks).
 *
 * Records: one per completed epoch, written by the kernel per channel, gathered in
 * channel-id order on the device and copied to the host once per chunk.
 */
class multichannel_correlator_cuda : public multichannel_correlator
{
public:
    multichannel_correlator_cuda(const multichannel_correlator_config& config,
                                 const device_selection& device);
    ~multichannel_correlator_cuda() override;

    /*!
     * As process(), from device memory: \p d_samples holds \p nsamples samples in
     * config().input_format on this engine's device (aligned to one sample). Returns
     * when the records are in \p results.
     */
    void process_device(const void* d_samples,
                        std::size_t nsamples,
                        gnss_correlator_results& results);

    //! Timing of the last process() / process_device() call.
    const gnss_cuda_timing& last_timing() const { return d_timing; }

    //! Warps (channels) per thread block and input samples per tile of the next call.
    std::size_t channels_per_block() const { return d_launch.warps; }
    std::size_t tile_samples() const { return d_launch.tile_samples; }
    //! False when the code tables are too long for shared memory and are read from
    //! global memory (through L1) instead.
    bool code_tables_in_shared_memory() const { return d_launch.shared_tables; }

protected:
    void do_add_channel(const gnss_channel_setup& setup) override;
    void do_reinit_channel(const gnss_channel_setup& setup) override;
    void do_remove_channel(std::uint32_t id) override;
    void do_process(const void* samples,
                    std::size_t nsamples,
                    gnss_correlator_results& results) override;

private:
    //! A channel as the host keeps it: its setup until uploaded, its slot for good.
    struct channel_slot {
        std::uint32_t id = 0;
        bool used = false;
        gnss_code_table code;                //!< keeps the table interned while used
        std::uint64_t max_step = 0;          //!< largest code step the loops may set
        std::uint64_t epoch_samples_min = 0; //!< shortest epoch after the first
        std::uint32_t entries = 0;
    };
    struct launch_shape {
        std::size_t warps = 16;
        std::size_t tile_samples = 2048;
        std::size_t shared_bytes = 0;
        bool shared_tables = true;
    };

    struct call; // one call of run(), in chunks (multichannel_correlator_cuda_call.cu)

    void run(const void* samples,
             bool on_device,
             std::size_t nsamples,
             gnss_correlator_results& results);
    //! Sizes the buffers of a call in chunks of \p chunk samples; returns the bytes
    //! of the record scan's temporary storage.
    std::size_t prepare_call_buffers(bool on_device,
                                     bool host_pinned,
                                     std::size_t chunk,
                                     std::size_t capacity);
    //! \p m integer samples of \p format (ci16 or ci8) at \p raw to float2 at \p out.
    static void enqueue_to_float2(gnss_sample_format format,
                                  const unsigned char* raw,
                                  float2* out,
                                  std::size_t m,
                                  cudaStream_t stream);
    //! The correlation kernel over \p m float2 samples from absolute \p first_abs.
    void enqueue_correlate(const float2* input,
                           std::size_t m,
                           std::uint64_t first_abs,
                           std::size_t capacity,
                           cudaStream_t stream);
    //! The chunk's records in rank order into the compact buffers, their total in
    //! d_flags[1].
    void
    enqueue_compaction(std::size_t capacity, std::size_t scan_bytes, cudaStream_t stream);
    void apply_channel_changes();
    void rebuild_tables();
    void choose_launch_shape();
    std::size_t record_capacity(std::size_t chunk_samples) const;
    std::size_t chunk_samples_for(std::size_t nsamples) const;
    void ensure_slot_capacity(std::size_t slots);
    std::uint32_t allocate_slot();
    void stage_channel(std::uint32_t slot, const gnss_channel_setup& setup);

    const std::size_t d_taps;
    // Created and destroyed with the engine's device current.
    std::unique_ptr<cuda_stream> d_stream;
    std::unique_ptr<cuda_stream> d_upload_stream;

    // Channels: slots hold device state; ranks (ascending id) give the record order.
    std::vector<channel_slot> d_slots;
    std::vector<std::uint32_t> d_free_slots;
    std::map<std::uint32_t, std::uint32_t> d_slot_of_id; //!< ascending id
    bool d_order_dirty = false;
    bool d_tables_dirty = false;

    // Staged channel uploads (applied before the next call), packed for one copy.
    std::vector<std::uint32_t> d_staged_slots;
    std::vector<gnss_channel_params> d_staged_params;
    std::vector<gnss_channel_state> d_staged_states;
    std::vector<std::uint64_t> d_staged_shifts;
    static constexpr std::size_t not_staged = ~std::size_t(0);
    std::vector<std::size_t> d_staged_index; //!< [slot]: place in the staged lists

    // Device state per slot.
    std::size_t d_slot_capacity = 0;
    device_buffer<gnss_channel_params> d_params;
    device_buffer<gnss_channel_state> d_states;
    device_buffer<std::uint64_t> d_shifts; //!< [slot * taps + k]
    device_buffer<double> d_epoch_sums;    //!< [slot * 2 taps + c]
    device_buffer<float> d_lane_partials;  //!< [(slot * 2 taps + c) * 32 + lane]
    device_buffer<gnss_cuda_code> d_codes; //!< [slot]
    std::vector<gnss_cuda_code> d_host_codes;
    device_buffer<std::int8_t> d_tables;  //!< extended tables, 16-byte aligned
    std::size_t d_table_stride = 0;       //!< bytes per extended table (max)
    device_buffer<std::uint32_t> d_order; //!< rank -> slot
    std::size_t d_ranks = 0;

    // Staging for channel uploads.
    device_buffer<std::uint32_t> d_upload_slots;
    device_buffer<gnss_channel_params> d_upload_params;
    device_buffer<gnss_channel_state> d_upload_states;
    device_buffer<std::uint64_t> d_upload_shifts;

    // Per-call buffers, grown on demand.
    device_buffer<float2> d_input[2];          //!< float2 chunks
    device_buffer<unsigned char> d_raw[2];     //!< ci16 / ci8 chunks as uploaded
    pinned_buffer<unsigned char> d_staging[2]; //!< pageable input staged for upload
    device_buffer<gnss_epoch_record> d_records;
    device_buffer<float2> d_correlations;
    device_buffer<std::uint32_t> d_counts;
    device_buffer<std::uint32_t> d_offsets;
    device_buffer<gnss_epoch_record> d_compact_records;
    device_buffer<float2> d_compact_correlations;
    device_buffer<unsigned char> d_scan_storage;
    device_buffer<std::uint32_t>
        d_flags; //!< [0] record overflow, [1] records in the chunk
    pinned_buffer<std::uint32_t> d_host_flags;
    pinned_buffer<std::uint32_t> d_host_counts;
    pinned_buffer<gnss_epoch_record> d_host_records;
    pinned_buffer<float2> d_host_correlations;

    //! Dynamic shared memory each correlate kernel may use
    //! (allow_dynamic_shared_memory()), indexed by shared_tables.
    std::size_t d_dynamic_shared_limit[2] = { 0, 0 };
    launch_shape d_launch;
    bool d_launch_dirty = true;
    gnss_cuda_timing d_timing;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_CUDA_H */
