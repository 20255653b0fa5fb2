/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/cuda_check.h"
#include "runtime/grid_size.h"
#include "runtime/parallel_copy.h"
#include "tbd/st_tbd_cuda.h"
#include "tbd/st_tbd_kernels.cuh"
#include "tbd/st_tbd_rule.h"
#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Slots of the host pipeline: upload, compute and download of three frames at once.
constexpr std::size_t pipeline_slots = 3;

dim3 grid_for(const tbd_layout& l)
{
    return dim3(blocks_for(l.width, tbd_block_x), blocks_for(l.height, tbd_block_y));
}

} // namespace

//! Buffers of one frame in flight in process().
struct st_tbd_cuda::frame_slot {
    device_buffer<float> frame;
    device_buffer<float> map;
    device_buffer<std::int32_t> argmax;
    device_buffer<float> argmax_float; //!< made for process_float_argmax()
    detection_buffers detection;
    pinned_buffer<float> frame_staging; //!< made when an input is pageable
    pinned_buffer<float> map_staging;
    //! 4-byte argmax values (int32 or float) on their way to pageable memory.
    pinned_buffer<std::int32_t> argmax_staging;
    cuda_event uploaded, computed, downloaded;
    bool busy = false;
    std::uint64_t frame_number = 0;
    float* map_destination = nullptr;
    bool map_staged = false;
    void* argmax_destination = nullptr;
    //! argmax_destination holds int32 values (the overflow path of the detections
    //! may read them back) rather than floats.
    bool argmax_destination_int = false;
    bool argmax_staged = false;
    bool detections = false;
};

st_tbd_cuda::st_tbd_cuda(const st_tbd_config& config, const device_selection& device)
    : st_tbd(config, device),
      d_layout(make_tbd_layout(config)),
      d_table(make_tbd_table(config))
{
    d_candidate_capacity =
        std::min({ tbd_max_local_maxima(d_layout.width, d_layout.height),
                   std::max<std::size_t>(2 * config.max_detections_per_frame, 4096),
                   std::size_t(1) << 18 });
    device_guard guard(d_device.cuda_ordinal);
    try {
        d_stream = std::make_unique<cuda_stream>();
        d_upload_stream = std::make_unique<cuda_stream>();
        d_download_stream = std::make_unique<cuda_stream>();
        d_state_stream = stream_order(d_stream->get());

        cudaDeviceProp props{};
        CUDADSP_CUDA(cudaGetDeviceProperties(&props, d_device.cuda_ordinal));
        const std::size_t align_floats =
            std::max<std::size_t>(1, props.textureAlignment / sizeof(float));
        for (int b = 0; b < 2; ++b) {
            d_state_memory[b] = device_buffer<float>(d_layout.total() + align_floats);
            CUDADSP_CUDA(
                cudaMemset(d_state_memory[b].get(), 0, d_state_memory[b].bytes()));
            const auto address =
                reinterpret_cast<std::uintptr_t>(d_state_memory[b].get());
            const std::uintptr_t alignment = align_floats * sizeof(float);
            d_state[b] = reinterpret_cast<float*>((address + alignment - 1) / alignment *
                                                  alignment);
        }
        d_taps = device_buffer<tbd_tap>(d_table.taps.size());
        CUDADSP_CUDA(cudaMemcpy(
            d_taps.get(), d_table.taps.data(), d_taps.bytes(), cudaMemcpyHostToDevice));
        d_first = device_buffer<int>(d_table.first.size());
        CUDADSP_CUDA(cudaMemcpy(d_first.get(),
                                d_table.first.data(),
                                d_first.bytes(),
                                cudaMemcpyHostToDevice));
        const std::size_t cells = config.cells();
        d_scratch_frame = device_buffer<float>(cells);
        CUDADSP_CUDA(cudaMemset(d_scratch_frame.get(), 0, d_scratch_frame.bytes()));
        d_scratch_map = device_buffer<float>(cells);
        d_scratch_argmax = device_buffer<std::int32_t>(cells);
        CUDADSP_CUDA(cudaDeviceSynchronize());
        choose_implementation();
    } catch (...) {
        destroy_textures();
        throw;
    }
}

st_tbd_cuda::~st_tbd_cuda()
{
    try {
        device_guard guard(d_device.cuda_ordinal);
        if (d_stream) {
            cudaStreamSynchronize(d_state_stream.last());
            cudaStreamSynchronize(d_stream->get());
            cudaStreamSynchronize(d_upload_stream->get());
            cudaStreamSynchronize(d_download_stream->get());
        }
        destroy_textures();
        d_slots.clear();
        d_device_detection.reset();
        d_generated = generated_kernel{};
        for (int b = 0; b < 2; ++b) {
            d_state_memory[b] = device_buffer<float>();
            d_texture_table[b] = device_buffer<cudaTextureObject_t>();
        }
        d_taps = device_buffer<tbd_tap>();
        d_first = device_buffer<int>();
        d_scratch_frame = device_buffer<float>();
        d_scratch_map = device_buffer<float>();
        d_scratch_argmax = device_buffer<std::int32_t>();
        d_download_stream.reset();
        d_upload_stream.reset();
        d_stream.reset();
    } catch (...) {
        // Destructors must not throw; the device is already in an error state.
    }
}

void st_tbd_cuda::enqueue_update(const float* d_frame,
                                 float* d_map,
                                 std::int32_t* d_argmax,
                                 cudaStream_t stream,
                                 tbd_bilinear_mode mode,
                                 const generated_kernel* kernel)
{
    const float* state = d_state[d_current];
    float* next = d_state[1 - d_current];
    float alpha = d_config.alpha;
    const dim3 grid = grid_for(d_layout);
    const dim3 block(tbd_block_x, tbd_block_y);
    const bool texture = mode == tbd_bilinear_mode::texture;
    if (kernel) {
        void* args[] = { &state,
                         &next,
                         &d_frame,
                         &d_map,
                         &d_argmax,
                         &alpha,
                         texture ? static_cast<void*>(d_textures[d_current].data())
                                 : nullptr };
        cuda_module::launch(kernel->function, grid, block, 0, stream, args);
        return;
    }
    const kernel_layout layout = to_kernel_layout(d_layout);
    const int planes = static_cast<int>(d_layout.planes);
    if (texture)
        st_tbd_generic_kernel<true>
            <<<grid, block, 0, stream>>>(state,
                                         next,
                                         d_frame,
                                         d_map,
                                         d_argmax,
                                         alpha,
                                         d_taps.get(),
                                         d_first.get(),
                                         d_texture_table[d_current].get(),
                                         planes,
                                         layout);
    else
        st_tbd_generic_kernel<false><<<grid, block, 0, stream>>>(state,
                                                                 next,
                                                                 d_frame,
                                                                 d_map,
                                                                 d_argmax,
                                                                 alpha,
                                                                 d_taps.get(),
                                                                 d_first.get(),
                                                                 nullptr,
                                                                 planes,
                                                                 layout);
    CUDADSP_CUDA_LAUNCHED("st_tbd_generic_kernel");
}

void st_tbd_cuda::enqueue_argmax_to_float(const std::int32_t* d_argmax,
                                          float* d_out,
                                          std::size_t n,
                                          cudaStream_t stream)
{
    constexpr unsigned int threads = 256;
    const unsigned int blocks = std::min(blocks_for(n, threads), 65535u);
    st_tbd_argmax_to_float_kernel<<<blocks, threads, 0, stream>>>(d_argmax, d_out, n);
    CUDADSP_CUDA_LAUNCHED("st_tbd_argmax_to_float_kernel");
}

void st_tbd_cuda::enqueue_detection(const float* d_map,
                                    const std::int32_t* d_argmax,
                                    detection_buffers& buffers,
                                    cudaStream_t stream)
{
    CUDADSP_CUDA(cudaMemsetAsync(buffers.count.get(), 0, sizeof(unsigned int), stream));
    st_tbd_detection_kernel<<<grid_for(d_layout),
                              dim3(tbd_block_x, tbd_block_y),
                              0,
                              stream>>>(d_map,
                                        d_argmax,
                                        static_cast<int>(d_layout.width),
                                        static_cast<int>(d_layout.height),
                                        d_config.threshold,
                                        buffers.candidates.get(),
                                        static_cast<unsigned int>(d_candidate_capacity),
                                        buffers.count.get());
    CUDADSP_CUDA_LAUNCHED("st_tbd_detection_kernel");
    CUDADSP_CUDA(cudaMemcpyAsync(buffers.count_host.get(),
                                 buffers.count.get(),
                                 sizeof(unsigned int),
                                 cudaMemcpyDeviceToHost,
                                 stream));
}

void st_tbd_cuda::collect_detections(const detection_buffers& buffers,
                                     std::uint64_t frame,
                                     const float* host_map,
                                     const std::int32_t* host_argmax,
                                     const float* d_map,
                                     const std::int32_t* d_argmax,
                                     std::vector<tbd_detection>& detections)
{
    const std::size_t count = *buffers.count_host.get();
    std::vector<tbd_candidate> candidates;
    if (count <= d_candidate_capacity) {
        candidates.assign(buffers.candidates_host.get(),
                          buffers.candidates_host.get() + count);
    } else {
        // More cells passed than the buffer holds: the rule again, on the host.
        const std::size_t cells = d_config.cells();
        std::vector<float> map;
        std::vector<std::int32_t> arg;
        if (!host_map) {
            map.resize(cells);
            CUDADSP_CUDA(cudaMemcpy(
                map.data(), d_map, cells * sizeof(float), cudaMemcpyDeviceToHost));
            host_map = map.data();
        }
        if (!host_argmax) {
            arg.resize(cells);
            CUDADSP_CUDA(cudaMemcpy(arg.data(),
                                    d_argmax,
                                    cells * sizeof(std::int32_t),
                                    cudaMemcpyDeviceToHost));
            host_argmax = arg.data();
        }
        find_tbd_candidates(host_map,
                            host_argmax,
                            d_layout.width,
                            d_layout.height,
                            d_config.threshold,
                            0,
                            d_layout.height,
                            candidates);
    }
    append_tbd_detections(candidates,
                          d_config.max_detections_per_frame,
                          frame,
                          d_config.hypotheses,
                          detections);
}

void st_tbd_cuda::allocate_slots()
{
    if (!d_slots.empty())
        return;
    const std::size_t cells = d_config.cells();
    for (std::size_t s = 0; s < pipeline_slots; ++s) {
        auto slot = std::make_unique<frame_slot>();
        slot->frame = device_buffer<float>(cells);
        slot->map = device_buffer<float>(cells);
        slot->argmax = device_buffer<std::int32_t>(cells);
        slot->detection.candidates = device_buffer<tbd_candidate>(d_candidate_capacity);
        slot->detection.count = device_buffer<unsigned int>(1);
        slot->detection.candidates_host =
            pinned_buffer<tbd_candidate>(d_candidate_capacity);
        slot->detection.count_host = pinned_buffer<unsigned int>(1);
        d_slots.push_back(std::move(slot));
    }
}

void st_tbd_cuda::finish_slot(frame_slot& s, std::vector<tbd_detection>* detections)
{
    s.downloaded.synchronize();
    s.busy = false;
    const std::size_t cells = d_config.cells();
    if (s.map_staged)
        parallel_memcpy(s.map_destination, s.map_staging.get(), cells * sizeof(float));
    if (s.argmax_staged)
        parallel_memcpy(
            s.argmax_destination, s.argmax_staging.get(), cells * sizeof(std::int32_t));
    if (s.detections && detections)
        collect_detections(s.detection,
                           s.frame_number,
                           s.map_destination,
                           s.argmax_destination_int
                               ? static_cast<const std::int32_t*>(s.argmax_destination)
                               : nullptr,
                           s.map.get(),
                           s.argmax.get(),
                           *detections);
}

void st_tbd_cuda::process(const float* frames,
                          std::size_t nframes,
                          float* detection_map,
                          std::int32_t* argmax,
                          std::vector<tbd_detection>* detections)
{
    process_host(frames, nframes, detection_map, argmax, nullptr, detections);
}

void st_tbd_cuda::process_float_argmax(const float* frames,
                                       std::size_t nframes,
                                       float* detection_map,
                                       float* argmax,
                                       std::vector<tbd_detection>* detections)
{
    process_host(frames, nframes, detection_map, nullptr, argmax, detections);
}

void st_tbd_cuda::process_host(const float* frames,
                               std::size_t nframes,
                               float* detection_map,
                               std::int32_t* argmax_int,
                               float* argmax_float,
                               std::vector<tbd_detection>* detections)
{
    if (nframes == 0)
        return;
    // Both outputs are 4-byte values per cell; only the device-side form differs.
    static_assert(sizeof(float) == sizeof(std::int32_t), "4-byte argmax values");
    void* const argmax =
        argmax_int ? static_cast<void*>(argmax_int) : static_cast<void*>(argmax_float);
    device_guard guard(d_device.cuda_ordinal);
    allocate_slots();
    const std::size_t cells = d_config.cells();
    const std::size_t frame_bytes = cells * sizeof(float);
    const bool frames_pinned = is_pinned_host_pointer(frames);
    const bool map_pinned = detection_map && is_pinned_host_pointer(detection_map);
    const bool argmax_pinned = argmax && is_pinned_host_pointer(argmax);
    const cudaStream_t compute = d_stream->get();
    const cudaStream_t upload = d_upload_stream->get();
    const cudaStream_t download = d_download_stream->get();
    d_state_stream.switch_to(compute);
    const generated_kernel* kernel =
        d_kernel == kernel_kind::generated ? &d_generated : nullptr;
    std::size_t enqueued = 0;
    try {
        for (std::size_t f = 0; f < nframes; ++f) {
            frame_slot& s = *d_slots[f % pipeline_slots];
            if (s.busy)
                finish_slot(s, detections);

            const float* source = frames + f * cells;
            if (!frames_pinned) {
                if (!s.frame_staging.get())
                    s.frame_staging = pinned_buffer<float>(cells);
                parallel_memcpy(s.frame_staging.get(), source, frame_bytes);
                source = s.frame_staging.get();
            }
            CUDADSP_CUDA(cudaMemcpyAsync(
                s.frame.get(), source, frame_bytes, cudaMemcpyHostToDevice, upload));
            s.uploaded.record(upload);

            s.uploaded.wait_on(compute);
            enqueue_update(
                s.frame.get(), s.map.get(), s.argmax.get(), compute, d_bilinear, kernel);
            d_current = 1 - d_current;
            ++enqueued;
            if (detections)
                enqueue_detection(s.map.get(), s.argmax.get(), s.detection, compute);
            if (argmax_float) {
                if (!s.argmax_float.get())
                    s.argmax_float = device_buffer<float>(cells);
                enqueue_argmax_to_float(
                    s.argmax.get(), s.argmax_float.get(), cells, compute);
            }
            s.computed.record(compute);

            s.computed.wait_on(download);
            s.map_destination = detection_map ? detection_map + f * cells : nullptr;
            s.map_staged = detection_map && !map_pinned;
            if (detection_map) {
                if (s.map_staged && !s.map_staging.get())
                    s.map_staging = pinned_buffer<float>(cells);
                CUDADSP_CUDA(cudaMemcpyAsync(s.map_staged ? s.map_staging.get()
                                                          : s.map_destination,
                                             s.map.get(),
                                             frame_bytes,
                                             cudaMemcpyDeviceToHost,
                                             download));
            }
            s.argmax_destination =
                argmax ? static_cast<std::int32_t*>(argmax) + f * cells : nullptr;
            s.argmax_destination_int = argmax_int != nullptr;
            s.argmax_staged = argmax && !argmax_pinned;
            if (argmax) {
                if (s.argmax_staged && !s.argmax_staging.get())
                    s.argmax_staging = pinned_buffer<std::int32_t>(cells);
                const void* device_argmax =
                    argmax_float ? static_cast<const void*>(s.argmax_float.get())
                                 : static_cast<const void*>(s.argmax.get());
                CUDADSP_CUDA(cudaMemcpyAsync(
                    s.argmax_staged ? static_cast<void*>(s.argmax_staging.get())
                                    : s.argmax_destination,
                    device_argmax,
                    cells * sizeof(std::int32_t),
                    cudaMemcpyDeviceToHost,
                    download));
            }
            s.detections = detections != nullptr;
            if (detections)
                CUDADSP_CUDA(cudaMemcpyAsync(s.detection.candidates_host.get(),
                                             s.detection.candidates.get(),
                                             d_candidate_capacity * sizeof(tbd_candidate),
                                             cudaMemcpyDeviceToHost,
                                             download));
            s.downloaded.record(download);
            s.frame_number = d_frames + f;
            s.busy = true;
        }
        // The frames still in flight, in frame order.
        for (std::size_t f = nframes > pipeline_slots ? nframes - pipeline_slots : 0;
             f < nframes;
             ++f) {
            frame_slot& s = *d_slots[f % pipeline_slots];
            if (s.busy)
                finish_slot(s, detections);
        }
    } catch (...) {
        // Leave no slot pointing into this call's buffers; the state has advanced by
        // the frames whose update was enqueued.
        cudaStreamSynchronize(compute);
        cudaStreamSynchronize(upload);
        cudaStreamSynchronize(download);
        for (auto& s : d_slots)
            s->busy = false;
        d_frames += enqueued;
        throw;
    }
    d_frames += nframes;
}

void st_tbd_cuda::process_device(const float* d_frames_in,
                                 std::size_t nframes,
                                 float* d_detection_map,
                                 std::int32_t* d_argmax,
                                 std::vector<tbd_detection>* detections,
                                 cuda_stream_t stream_arg)
{
    if (nframes == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    const cudaStream_t stream = stream_arg ? stream_arg : d_stream->get();
    d_state_stream.switch_to(stream);
    if (detections && !d_device_detection) {
        d_device_detection = std::make_unique<detection_buffers>();
        d_device_detection->candidates =
            device_buffer<tbd_candidate>(d_candidate_capacity);
        d_device_detection->count = device_buffer<unsigned int>(1);
        d_device_detection->candidates_host =
            pinned_buffer<tbd_candidate>(d_candidate_capacity);
        d_device_detection->count_host = pinned_buffer<unsigned int>(1);
    }
    const std::size_t cells = d_config.cells();
    const generated_kernel* kernel =
        d_kernel == kernel_kind::generated ? &d_generated : nullptr;
    for (std::size_t f = 0; f < nframes; ++f) {
        float* map = d_detection_map ? d_detection_map + f * cells : d_scratch_map.get();
        std::int32_t* arg = d_argmax ? d_argmax + f * cells : d_scratch_argmax.get();
        enqueue_update(d_frames_in + f * cells, map, arg, stream, d_bilinear, kernel);
        d_current = 1 - d_current;
        ++d_frames;
        if (detections) {
            detection_buffers& b = *d_device_detection;
            enqueue_detection(map, arg, b, stream);
            CUDADSP_CUDA(cudaMemcpyAsync(b.candidates_host.get(),
                                         b.candidates.get(),
                                         d_candidate_capacity * sizeof(tbd_candidate),
                                         cudaMemcpyDeviceToHost,
                                         stream));
            CUDADSP_CUDA(cudaStreamSynchronize(stream));
            collect_detections(b, d_frames - 1, nullptr, nullptr, map, arg, *detections);
        }
    }
    // Hand the state back to the engine's own stream (a wait on the device, none on
    // the host): the engine then never holds the caller's stream, which the caller may
    // destroy as soon as this call returns.
    d_state_stream.switch_to(d_stream->get());
}

void st_tbd_cuda::synchronize()
{
    device_guard guard(d_device.cuda_ordinal);
    CUDADSP_CUDA(cudaStreamSynchronize(d_state_stream.last()));
}

void st_tbd_cuda::reset()
{
    device_guard guard(d_device.cuda_ordinal);
    const cudaStream_t stream = d_state_stream.last();
    for (int b = 0; b < 2; ++b)
        CUDADSP_CUDA(cudaMemsetAsync(
            d_state_memory[b].get(), 0, d_state_memory[b].bytes(), stream));
    CUDADSP_CUDA(cudaStreamSynchronize(stream));
    d_current = 0;
    d_frames = 0;
}

void st_tbd_cuda::read_state(float* state)
{
    device_guard guard(d_device.cuda_ordinal);
    const cudaStream_t stream = d_state_stream.last();
    const std::size_t cells = d_config.cells();
    for (std::size_t m = 0; m < d_layout.planes; ++m)
        CUDADSP_CUDA(cudaMemcpy2DAsync(state + m * cells,
                                       d_layout.width * sizeof(float),
                                       d_state[d_current] + d_layout.offset(m, 0, 0),
                                       d_layout.pitch * sizeof(float),
                                       d_layout.width * sizeof(float),
                                       d_layout.height,
                                       cudaMemcpyDeviceToHost,
                                       stream));
    CUDADSP_CUDA(cudaStreamSynchronize(stream));
}

std::string st_tbd_cuda::implementation() const
{
    return std::string("cuda ") +
           (d_kernel == kernel_kind::generated ? "generated " : "generic ") +
           to_string(d_bilinear);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
